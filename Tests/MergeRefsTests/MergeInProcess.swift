import Foundation
@_exported import MergeTestSupport
@_exported import TestSupport
import XCTest

@testable import merge_refs

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs `merge-refs` in this process, as swift-argument-parser's own tests do: the command
/// parses the arguments (`parseAsRoot`, which validates them too) and runs, and what it writes
/// to standard output and error is captured, so planner and applier tests need no child
/// process and no test parses flags by hand. The status is the one the binary exits with. The
/// binary itself is tested where the contract is the process (`MergeRefsCommandTests`); the
/// commands the command prints (`--prune`, the review page's) name the test program here.
enum MergeInProcess {
  static func run(_ arguments: [String]) throws -> ProgramResult {
    var status: Int32 = 0
    let (output, error) = try StandardStreams.capture {
      do {
        var command = try merge_refs.MergeRefs.parseAsRoot(arguments)
        try command.run()
      } catch {
        status = merge_refs.MergeRefs.exitCode(for: error).rawValue
        // What `main()` prints: help on standard output, errors on standard error.
        let message = merge_refs.MergeRefs.fullMessage(for: error)
        if !message.isEmpty {
          let stream = status == 0 ? FileHandle.standardOutput : FileHandle.standardError
          stream.write(Data((message + "\n").utf8))
        }
      }
    }
    return ProgramResult(status: status, output: output, error: error)
  }
}

/// This process's standard output and error, sent to files for the length of a closure.
enum StandardStreams {
  /// Runs `body` with descriptors 1 and 2 writing to temporary files (no pipe to fill up).
  /// - Returns: What was written to each.
  static func capture(_ body: () -> Void) throws -> (output: String, error: String) {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("merge-in-process-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let files = [1, 2].map { folder.appendingPathComponent("\($0)") }
    // nil flushes every stream: what was printed before goes where it was meant to.
    fflush(nil)
    let saved = [dup(1), dup(2)]
    for (descriptor, file) in zip([Int32(1), 2], files) {
      let handle = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      guard handle >= 0 else { throw CaptureError(file: file.path) }
      dup2(handle, descriptor)
      close(handle)
    }
    body()
    fflush(nil)
    for (descriptor, original) in zip([Int32(1), 2], saved) {
      dup2(original, descriptor)
      close(original)
    }
    let texts = try files.map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }
    return (texts[0], texts[1])
  }

  /// A capture file could not be created.
  struct CaptureError: Error {
    let file: String
  }
}
