import Foundation
import TestSupport
import XCTest

@testable import ReferenceArchive

final class ZipDirectoryTests: XCTestCase {
  private func zip(_ names: [String]) throws -> URL {
    let url = try makeTemporaryFolder(self).appendingPathComponent("a.zip")
    try ZipWriter().write(
      names.map { ZipWriter.Entry(path: $0, contents: .bytes(Array($0.utf8))) }, to: url,
      modificationDate: Date(timeIntervalSince1970: 1_700_000_000))
    return url
  }

  func testContainsEntry_nameAnywhereInTheDirectory_true() throws {
    let url = try zip(["a/1.png", "b/2.png", "ReferenceImages-manifest.json"])
    XCTAssertEqual(
      ZipDirectory.containsEntry("ReferenceImages-manifest.json", in: .file(url)), true)
    let bytes = Array(try Data(contentsOf: url))
    XCTAssertEqual(ZipDirectory.containsEntry("b/2.png", in: .memory(bytes, name: "m")), true)
  }

  func testContainsEntry_absentOrOnlyAPrefix_false() throws {
    let url = try zip(["a/1.png", "ReferenceImages-manifest.json.bak"])
    XCTAssertEqual(
      ZipDirectory.containsEntry("ReferenceImages-manifest.json", in: .file(url)), false)
  }

  func testContainsEntry_notAZip_unknown() throws {
    let url = try makeTemporaryFolder(self).appendingPathComponent("b.zip")
    try Data(repeating: 7, count: 5000).write(to: url)
    XCTAssertNil(ZipDirectory.containsEntry("x", in: .file(url)))
    XCTAssertNil(ZipDirectory.containsEntry("x", in: .memory([1, 2, 3], name: "m")))
  }

  func testEntries_listsNamesInOrderAsRegularFiles() throws {
    let url = try zip(["b/2.png", "a/1.png"])

    let entries = try XCTUnwrap(ZipDirectory.entries(in: url))

    XCTAssertEqual(entries.map(\.path), ["b/2.png", "a/1.png"])
    XCTAssertEqual(entries.map(\.kind), [.regularFile, .regularFile])
  }
}
