import Foundation
import ReferenceArchive
import TestSupport
import XCTest

/// `FileSystem.readIfPresent`: one `open` that tells "nothing there" from a failure.
final class FileReadIfPresentTests: XCTestCase {
  func testReadIfPresent_absentOrUnderAFile_isNil_otherFailuresThrow() throws {
    let folder = try makeTemporaryFolder(self)
    let file = folder.appendingPathComponent("a.png")
    try Data([1, 2, 3]).write(to: file)
    XCTAssertEqual(try FileSystem.readIfPresent(file), [1, 2, 3])
    XCTAssertNil(try FileSystem.readIfPresent(folder.appendingPathComponent("b.png")))
    XCTAssertNil(
      try FileSystem.readIfPresent(file.appendingPathComponent("c.png")),
      "a path through a file is absent, as FileManager.fileExists says")
    XCTAssertThrowsError(try FileSystem.readIfPresent(folder), "a folder is not a file") {
      XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)")
    }
    XCTAssertThrowsError(try FileSystem.read(folder.appendingPathComponent("b.png"))) {
      XCTAssertTrue("\($0)".contains("No such file or directory"), "\($0)")
    }
  }
}
