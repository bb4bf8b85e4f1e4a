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
}

private final class Failures: @unchecked Sendable {
  private let lock = NSLock()
  private var messages: [String] = []
  func append(_ message: String) { lock.withLock { messages.append(message) } }
  var all: [String] { lock.withLock { messages } }
}
