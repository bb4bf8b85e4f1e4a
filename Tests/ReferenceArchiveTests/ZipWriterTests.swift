import Foundation
import ReferenceArchive
import TestSupport
import XCTest

final class ZipWriterTests: XCTestCase {
  func testWrite_storedPNGsAndManifest_readByUnzipAndBsdtar() throws {
    let folder = try makeTemporaryFolder(self)
    let archive = folder.appendingPathComponent("images.zip")
    let first = try samplePNG(10)
    let second = try samplePNG(200)
    try ZipWriter().write(
      [
        .init(path: "Tests/A/__References__/File/one.png", contents: .bytes(first)),
        .init(path: "Tests/B/__References__/File/two.png", contents: .bytes(second)),
        .init(path: "ReferenceImages-manifest.json", contents: .bytes(Array("{}".utf8))),
      ], to: archive)

    let unzip = try runProcess(try tool("unzip", package: "unzip"), ["-v", archive.path])
    XCTAssertEqual(unzip.status, 0, unzip.error)
    let pngLines = unzip.output.split(separator: "\n").filter { $0.contains(".png") }
    XCTAssertEqual(pngLines.count, 2)
    XCTAssertTrue(pngLines.allSatisfy { $0.contains("Stored") }, unzip.output)

    let bsdtar = try tool("bsdtar", package: "libarchive-tools")
    let listing = try runProcess(bsdtar, ["-tf", archive.path])
    XCTAssertEqual(
      listing.output.split(separator: "\n").sorted(),
      [
        "ReferenceImages-manifest.json", "Tests/A/__References__/File/one.png",
        "Tests/B/__References__/File/two.png",
      ])
    let extracted = folder.appendingPathComponent("x")
    try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: true)
    XCTAssertEqual(try runProcess(bsdtar, ["-xf", archive.path, "-C", extracted.path]).status, 0)
    XCTAssertEqual(
      try Data(
        contentsOf: extracted.appendingPathComponent("Tests/B/__References__/File/two.png")),
      Data(second))
    let unzipped = folder.appendingPathComponent("u")
    XCTAssertEqual(
      try runProcess(
        try tool("unzip", package: "unzip"), ["-q", archive.path, "-d", unzipped.path]
      )
      .status, 0)
    XCTAssertEqual(
      try Data(
        contentsOf: unzipped.appendingPathComponent("Tests/A/__References__/File/one.png")),
      Data(first))
  }

  func testWrite_leavesNoTemporaryFileAndReplacesAtomically() throws {
    let folder = try makeTemporaryFolder(self)
    let archive = folder.appendingPathComponent("images.zip")
    try Data("old".utf8).write(to: archive)
    try ZipWriter().write([.init(path: "a.png", contents: .bytes(try samplePNG(1)))], to: archive)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["images.zip"])
    var paths: [String] = []
    try ZipReader().forEachEntry(in: .file(archive)) { paths.append($0.path) }
    XCTAssertEqual(paths, ["a.png"])
  }

  func testWrite_missingSourceFile_throwsNamingItAndLeavesNothing() throws {
    let folder = try makeTemporaryFolder(self)
    let archive = folder.appendingPathComponent("images.zip")
    let missing = folder.appendingPathComponent("missing.png")
    XCTAssertThrowsError(
      try ZipWriter().write([.init(path: "a.png", contents: .file(missing))], to: archive)
    ) { error in
      XCTAssertTrue("\(error)".contains("missing.png"), "\(error)")
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
  }

  func testRead_truncatedArchive_throwsNamingTheArchive() throws {
    let folder = try makeTemporaryFolder(self)
    let archive = folder.appendingPathComponent("images.zip")
    try ZipWriter().write(
      [.init(path: "a.png", contents: .bytes(try samplePNG(1, width: 64, height: 64)))],
      to: archive)
    let bytes = try Data(contentsOf: archive)
    let truncated = folder.appendingPathComponent("truncated.zip")
    try bytes.prefix(bytes.count / 2).write(to: truncated)
    XCTAssertThrowsError(try ZipReader().forEachEntry(in: .file(truncated)) { _ in }) { error in
      XCTAssertEqual(
        error as? ArchiveError, .truncatedArchive(path: truncated.path, size: bytes.count / 2))
      XCTAssertTrue("\(error)".hasSuffix("its end record is missing): download it again"))
    }
    // The same bytes in memory (an archive inside another) are named the same way.
    let inMemory = ZipReader.Input.memory(Array(bytes.prefix(100)), name: "outer.zip!inner.zip")
    XCTAssertThrowsError(try ZipReader().forEachEntry(in: inMemory) { _ in }) { error in
      XCTAssertEqual(
        error as? ArchiveError, .truncatedArchive(path: "outer.zip!inner.zip", size: 100))
    }
  }

  func testRead_fileThatIsNoZip_throwsNotAZipArchive() throws {
    let folder = try makeTemporaryFolder(self)
    let text = folder.appendingPathComponent("notes.zip")
    try Data("hello\nworld\n".utf8).write(to: text)
    XCTAssertThrowsError(try ZipReader().forEachEntry(in: .file(text)) { _ in }) { error in
      XCTAssertEqual(
        error as? ArchiveError,
        .notAZipArchive(path: text.path, size: 12, start: #"text starting "hello""#))
    }
  }

  func testRead_wholeArchiveWithBrokenDirectory_keepsLibarchivesReason() throws {
    // An end record that points past the file is damage, not a download cut short: neither
    // truncation nor "not a zip" may be claimed.
    let folder = try makeTemporaryFolder(self)
    let archive = folder.appendingPathComponent("images.zip")
    try ZipWriter().write(
      [.init(path: "a.png", contents: .bytes(try samplePNG(1, width: 8, height: 8)))],
      to: archive)
    var bytes = Array(try Data(contentsOf: archive))
    // The end record's directory offset (bytes 16...19 of the last 22) far past the end.
    bytes[bytes.count - 22 + 16..<bytes.count - 22 + 20] = [0xF0, 0xFF, 0xFF, 0x0F]
    try Data(bytes).write(to: archive)
    XCTAssertThrowsError(try ZipReader().forEachEntry(in: .file(archive)) { _ in }) { error in
      guard case .libarchive = error as? ArchiveError else {
        return XCTFail("expected libarchive's own reason, got \(error)")
      }
    }
  }
}
