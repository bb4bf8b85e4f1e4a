import Foundation
import ReferenceArchive
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

final class FileSystemTests: XCTestCase {
  /// Parallel workers each create `.staging/<run>` and, when done, remove their folder and try
  /// to remove `.staging` (which succeeds when they were the last): a worker creating its folder
  /// at that moment must still succeed.
  func testCreateFolder_parentRemovedByAnotherWorkerMeanwhile_stillCreatesIt() throws {
    let parent = try makeTemporaryFolder(self).appendingPathComponent(".staging")
    let failures = Failures()
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      for run in 0..<400 {
        let folder = parent.appendingPathComponent("worker\(worker)-\(run)")
        do {
          try FileSystem.createFolder(folder)
        } catch {
          failures.append("\(error)")
        }
        rmdir(folder.path)
        rmdir(parent.path)
      }
    }
    XCTAssertEqual(failures.all, [])
  }

  func testCreateFolder_fileInTheWay_throwsNamingTheFolder() throws {
    let root = try makeTemporaryFolder(self)
    let file = root.appendingPathComponent("file")
    XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: Data([1])))
    let folder = file.appendingPathComponent("sub")
    XCTAssertThrowsError(try FileSystem.createFolder(folder)) { error in
      XCTAssertTrue("\(error)".contains(folder.path), "\(error)")
      XCTAssertTrue("\(error)".contains("create the folder"), "\(error)")
    }
  }

  /// A file's digest, read in blocks of 1 MiB, is `sha256sum`'s: empty, under one block, at a
  /// block's end, and across blocks with a partial last one.
  func testSHA256OfFile_isSha256sums_acrossBlockEdges() throws {
    let folder = try makeTemporaryFolder(self)
    var random = SystemRandomNumberGenerator()
    for size in [0, 1, 4_096, 1 << 20, (1 << 20) + 1, 2_621_441] {
      let file = folder.appendingPathComponent("file-\(size)")
      try Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: file)
      let sha256sum = try runTool("sha256sum", [file.path]).prefix(64)
      XCTAssertEqual(try FileSystem.sha256(of: file), String(sha256sum), "\(size) bytes")
    }
  }

  private func runTool(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, tool)
    return String(decoding: data, as: UTF8.self)
  }
}

private final class Failures: @unchecked Sendable {
  private let lock = NSLock()
  private var messages: [String] = []
  func append(_ message: String) { lock.withLock { messages.append(message) } }
  var all: [String] { lock.withLock { messages } }

}
