import Foundation
import ReferenceContracts

/// Which run a test process belongs to. A run is one `swift test` invocation: its serial
/// process, every worker of `--parallel`, and the Swift Testing pass after the XCTest one are all
/// children of one `swift-test` process, so that process (its pid and its start, which tell it
/// from an earlier process with the same pid) names the run. `reference-shards` names its plan's
/// run itself (`IMAGE_GENERATION_RUN`), so every shard and replica of one plan is one run.
enum RunIdentity {
  /// The run of this process.
  /// - Parameters:
  ///   - environment: The process environment.
  ///   - processRunID: This process's own id, the run when no parent `swift-test` is found (a
  ///     test binary started by hand, or a platform without `/proc`: untested on Apple
  ///     platforms, where every process is a run of its own).
  static func current(
    environment: [String: String] = ProcessInfo.processInfo.environment, processRunID: String
  ) -> String {
    if let named = environment[GenerationContract.runVariable]?
      .trimmingCharacters(in: .whitespaces), !named.isEmpty
    {
      return named
    }
    let host = ProcessInfo.processInfo.hostName
    let parent = getppid()
    if let started = swiftTestStart(pid: parent) {
      return "\(host):swift-test:\(parent):\(started)"
    }
    return "\(host):process:\(processRunID)"
  }

  /// The start of process `pid` in clock ticks since boot, when it is `swift-test`; nil
  /// otherwise, or where `/proc` does not say.
  static func swiftTestStart(pid: pid_t) -> String? {
    guard
      let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
      comm.trimmingCharacters(in: .whitespacesAndNewlines) == "swift-test",
      let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    // After the command name in parentheses: state is field 3, starttime field 22.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return fields.count > 19 ? String(fields[19]) : nil
  }
}
