import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory regenerate-references`: runs the package's
/// tests in generation mode with parallel workers, then lands every archive they wrote with
/// `merge-refs`, prints its summary and writes the review page. The plugin exits with
/// `merge-refs`' status; SwiftPM turns every non-zero plugin status into 1, so the status is
/// also printed, and written to `--status-file` for scripts (`Scripts/regenerate`).
///
/// The tests run in a child `swift test` with its own scratch folder
/// (`.build/regenerate-references`): `swift package` holds the lock on `.build` while a plugin
/// runs, so a child using `.build` would wait for it forever, and `packageManager.test(...)`
/// can neither set `IMAGE_GENERATION_MODE` for the test processes nor run them in parallel.
@main
struct RegenerateReferences: CommandPlugin {
  func performCommand(context: PluginContext, arguments: [String]) async throws {
    // Ctrl-C: `swift package` passes SIGINT on to this process alone; pass it on to the
    // children, start nothing more, and stop also when `swift package` itself is gone. The
    // grace outlasts reference-shards' own (5 s), so that it stops its tests itself, and ends
    // well before `swift package` gives up on this process (24 s after its SIGINT).
    Interruption.install(watchingParent: getppid(), grace: 10)
    let package = context.package.directoryURL
    let request: RegenerationRequest
    do {
      request = try RegenerationRequest(arguments: arguments, package: package)
    } catch let error as RegenerationRequest.UsageError {
      Diagnostics.error(error.message)
      finish(ExitStatus.invalidArguments.rawValue, statusFile: error.statusFile)
    }
    if request.showHelp {
      print(RegenerationRequest.usage)
      return
    }
    let mergeRefs = try context.tool(named: "merge-refs").url
    let shards = try context.tool(named: "reference-shards").url
    let run = Regeneration(
      request: request, package: package, mergeRefs: mergeRefs, referenceShards: shards)
    let status: Int32
    do {
      status = try run.perform()
    } catch let interrupted as Interruption.Interrupted {
      stopped(
        by: interrupted.signal,
        "the build and the tests were stopped, and nothing landed in the package (merge-refs "
          + "was not started). To resume, run it again:\n  \(request.rerunCommand)",
        statusFile: request.statusFile)
    } catch let interrupted as MergeInterrupted {
      stopped(
        by: interrupted.signal,
        "merge-refs was stopped during the merge: each reference it had replaced is whole, the "
          + "others are as they were. To finish, run it again:\n  \(request.rerunCommand)",
        statusFile: request.statusFile)
    } catch {
      Diagnostics.error("\(error)")
      finish(1, statusFile: request.statusFile)
    }
    if status != 0 { Diagnostics.error("merge-refs exited with status \(status)") }
    finish(status, statusFile: request.statusFile)
  }

  /// Says what an interruption stopped and how to resume, then exits with 128 + the signal.
  /// The words go out as a diagnostic: `swift package`, interrupted itself, drops what the
  /// plugin printed, but shows its diagnostics before it ends.
  private func stopped(by signal: Int32, _ what: String, statusFile: URL?) -> Never {
    Diagnostics.error("interrupted by \(Interruption.name(of: signal)): \(what)")
    finish(Interruption.exitStatus(for: signal), statusFile: statusFile)
  }

  /// Records the status for the script that asked for it, then exits with it.
  private func finish(_ status: Int32, statusFile: URL?) -> Never {
    if let statusFile {
      try? "\(status)\n".write(to: statusFile, atomically: true, encoding: .utf8)
    }
    exit(status)
  }
}

/// An interruption that came while merge-refs ran (it was stopped too), rather than before it
/// started.
struct MergeInterrupted: Error {
  let signal: Int32
}
