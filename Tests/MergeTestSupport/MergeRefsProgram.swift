import Foundation
import ReferenceMerge
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The result of running a program.
public typealias ProgramResult = ProcessOutput

/// Runs the `merge-refs` built beside this test bundle (the same build folder, whatever
/// `--scratch-path` was used).
public enum MergeRefs {
  /// The built binary, beside the test bundle.
  public static func binary() throws -> URL { try builtProduct("merge-refs") }

  /// Runs merge-refs with `arguments` (never split on spaces), reading both pipes before
  /// waiting, so a chatty run cannot block on a full pipe.
  @discardableResult
  public static func run(_ arguments: [String]) throws -> ProgramResult {
    try runProcess(try binary().path, arguments)
  }

  /// Starts merge-refs and kills it with SIGKILL after `delay` seconds (or lets it finish
  /// first). Output is discarded.
  /// - Returns: Whether the process was killed (false when it had already finished).
  @discardableResult
  public static func runAndKill(_ arguments: [String], after delay: TimeInterval) throws -> Bool {
    let process = Process()
    process.executableURL = try binary()
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    usleep(useconds_t(max(0, delay) * 1_000_000))
    let killed = process.isRunning && kill(process.processIdentifier, SIGKILL) == 0
    process.waitUntilExit()
    return killed && process.terminationReason == .uncaughtSignal
  }
}

/// Reads `merge-refs --json`'s output, and checks that it is what the decoder reads: the summary
/// decoded and written again is the same text, so the one writer (`writeJSON`) and the
/// `Decodable` conformance agree on every field, and none is lost between them.
public func decodedSummary(
  _ output: String, file: StaticString = #filePath, line: UInt = #line
) throws -> MergeSummary {
  let summary = try JSONDecoder().decode(MergeSummary.self, from: Data(output.utf8))
  XCTAssertEqual(
    summary.json(), output.trimmingCharacters(in: .newlines),
    "the summary decoded and written again differs", file: file, line: line)
  return summary
}
