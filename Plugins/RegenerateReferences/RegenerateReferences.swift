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
    } catch {
      Diagnostics.error("\(error)")
      finish(1, statusFile: request.statusFile)
    }
    if status != 0 { Diagnostics.error("merge-refs exited with status \(status)") }
    finish(status, statusFile: request.statusFile)
  }

  /// Records the status for the script that asked for it, then exits with it.
  private func finish(_ status: Int32, statusFile: URL?) -> Never {
    if let statusFile {
      try? "\(status)\n".write(to: statusFile, atomically: true, encoding: .utf8)
    }
    exit(status)
  }
}
