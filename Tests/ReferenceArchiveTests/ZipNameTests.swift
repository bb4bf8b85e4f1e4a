import Foundation
import TestSupport
import XCTest

@testable import ReferenceArchive

/// Entry names beyond ASCII, both ways: written with the zip standard's UTF-8 flag and read
/// back byte for byte, whatever the locale (this process never sets one), and names that are
/// not UTF-8 refused by name.
final class ZipNameTests: XCTestCase {
  /// Several scripts, an emoji, and a decomposed `é` (e + U+0301), which a reader that
  /// normalizes would silently turn into the precomposed one.
  private let names = [
    "Tests/café/Größe.png", "日本語/画像.png", "русский.png", "עברית.png", "emoji 😀.png",
    "e\u{301}.png", "plain.png",
  ]

  // MARK: Writing

  func testWrite_namesInSeveralScripts_readBackByteForByteByZipReader() throws {
    let archive = try write(names)

    var paths: [String] = []
    try ZipReader().forEachEntry(in: .file(archive)) { paths.append($0.path) }
    let bytes = Array(try Data(contentsOf: archive))
    var fromMemory: [String] = []
    try ZipReader().forEachEntry(in: .memory(bytes, name: "m")) { fromMemory.append($0.path) }

    // Swift's `==` on strings ignores normalization; the bytes must be equal.
    XCTAssertEqual(paths.map(\.utf8).map(Array.init), names.map(\.utf8).map(Array.init))
    XCTAssertEqual(fromMemory.map(\.utf8).map(Array.init), names.map(\.utf8).map(Array.init))
    let listed = try XCTUnwrap(ZipDirectory.entries(in: archive)).map(\.path)
    XCTAssertEqual(listed.map(\.utf8).map(Array.init), names.map(\.utf8).map(Array.init))
  }

  func testWrite_namesInSeveralScripts_flaggedUTF8ForPythonsZipfile() throws {
    let archive = try write(names)

    let result = try python(
      """
      import json, sys, zipfile
      print(json.dumps([{"name": i.filename, "utf8": bool(i.flag_bits & 0x800)}
                        for i in zipfile.ZipFile(sys.argv[1]).infolist()]))
      """, [archive.path])

    let entries = try JSONDecoder().decode([PythonEntry].self, from: Data(result.utf8))
    XCTAssertEqual(entries.map(\.name.utf8).map(Array.init), names.map(\.utf8).map(Array.init))
    // libarchive flags the names that need it; an ASCII name reads the same either way.
    XCTAssertEqual(entries.map(\.utf8), names.map { !$0.utf8.allSatisfy { $0 < 0x80 } })
  }

  func testWrite_namesInSeveralScripts_listedByUnzipAndBsdtar() throws {
    let archive = try write(names)
    let environment = ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]

    let unzip = try runProcess(
      try tool("unzip", package: "unzip"), ["-Z1", archive.path], environment: environment)
    XCTAssertEqual(unzip.status, 0, unzip.error)
    XCTAssertEqual(
      lines(unzip.output).map(\.utf8).map(Array.init), names.map(\.utf8).map(Array.init))

    let bsdtar = try runProcess(
      try tool("bsdtar", package: "libarchive-tools"), ["-tf", archive.path],
      environment: environment)
    XCTAssertEqual(bsdtar.status, 0, bsdtar.error)
    // bsdtar (libarchive) prints names NFC-normalized, so only canonical equivalence holds.
    XCTAssertEqual(lines(bsdtar.output), names)
  }

  // MARK: Reading

  func testRead_utf8FlaggedNamesFromPythonsZipfile_keepsThem() throws {
    let archive = try makeTemporaryFolder(self).appendingPathComponent("python.zip")
    _ = try python(
      """
      import json, sys, zipfile
      with zipfile.ZipFile(sys.argv[1], "w") as z:
          for name in json.loads(sys.argv[2]):
              z.writestr(name, name.encode("utf-8"))
      """,
      [archive.path, String(decoding: try JSONEncoder().encode(names), as: UTF8.self)])

    var entries: [ArchiveEntry] = []
    try ZipReader().forEachEntry(in: .file(archive)) { entries.append($0) }

    XCTAssertEqual(entries.map(\.path.utf8).map(Array.init), names.map(\.utf8).map(Array.init))
    XCTAssertEqual(entries.map(\.bytes), names.map(\.utf8).map(Array.init))
    XCTAssertEqual(entries.map(\.kind), names.map { _ in .regularFile })
  }

  func testRead_nameNotUTF8_refusedNamingTheArchiveAndTheEscapedBytes() throws {
    // Written as `cafX.png`, without the UTF-8 flag (ASCII), then given a Latin-1 `é`.
    let archive = try patched(write(["a.png", "cafX.png"]), "cafX", to: Array("caf".utf8) + [0xE9])

    XCTAssertThrowsError(try ZipReader().forEachEntry(in: .file(archive)) { _ in }) { error in
      XCTAssertEqual(
        "\(error)", "\(archive.path): refused entry 'caf\\xe9.png': the name is not valid UTF-8")
    }
    let bytes = Array(try Data(contentsOf: archive))
    XCTAssertThrowsError(
      try ZipReader().forEachEntry(in: .memory(bytes, name: "outer.zip!in.zip")) { _ in }
    ) {
      XCTAssertEqual(
        "\($0)", "outer.zip!in.zip: refused entry 'caf\\xe9.png': the name is not valid UTF-8")
    }
    // The listing does not stand in with a name the archive does not hold (U+FFFD).
    XCTAssertNil(ZipDirectory.entries(in: archive))
    XCTAssertEqual(ZipDirectory.containsEntry("a.png", in: .file(archive)), true)
  }

  func testRead_utf8FlaggedNameWithAnInvalidByte_refused() throws {
    // `é` is C3 A9; C3 followed by `(` is no UTF-8 sequence.
    let archive = try patched(write(["café.png"]), "é", to: [0xC3, UInt8(ascii: "(")])

    XCTAssertThrowsError(try ZipReader().forEachEntry(in: .file(archive)) { _ in }) { error in
      XCTAssertTrue(
        "\(error)".hasSuffix("refused entry 'caf\\xc3(.png': the name is not valid UTF-8"),
        "\(error)")
    }
  }

  func testEscapedBytes_validUTF8KeptOtherBytesAndControlsAsHex() {
    XCTAssertEqual(
      EntryPath.escaped(bytes: Array("日本".utf8) + [0xFF, 0x1B, 0x41]), "日本\\xff\\x1bA")
    XCTAssertEqual(EntryPath.escaped(bytes: [0xE6, 0x97]), "\\xe6\\x97")
    XCTAssertNil(EntryPath.decoded([0x61, 0xE9]))
    XCTAssertEqual(
      EntryPath.decoded(Array("e\u{301}".utf8)).map { Array($0.utf8) }, [0x65, 0xCC, 0x81])
  }

  // MARK: Helpers

  private func write(_ names: [String]) throws -> URL {
    let url = try makeTemporaryFolder(self).appendingPathComponent("names.zip")
    try ZipWriter().write(
      names.map { ZipWriter.Entry(path: $0, contents: .bytes([0x2A])) }, to: url,
      modificationDate: Date(timeIntervalSince1970: 1_700_000_000))
    return url
  }

  /// The archive with every occurrence of `text` (in the local header and the directory)
  /// replaced by `bytes` of the same length.
  private func patched(_ url: URL, _ text: String, to bytes: [UInt8]) throws -> URL {
    let original = Array(try Data(contentsOf: url))
    let patched = original.replacing(Array(text.utf8), with: bytes)
    XCTAssertNotEqual(patched, original)
    XCTAssertEqual(patched.count, original.count)
    try Data(patched).write(to: url)
    return url
  }

  private func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
  }

  /// Runs a Python script; skips the test when python3 is not installed (only a development
  /// machine needs it).
  private func python(_ script: String, _ arguments: [String]) throws -> String {
    let result = try runProcess("/usr/bin/env", ["python3", "-c", script] + arguments)
    guard result.status != 127 else { throw XCTSkip("python3 is not installed") }
    XCTAssertEqual(result.status, 0, result.error)
    return result.output
  }
}

/// An entry as Python's zipfile reads it: the name, and whether the UTF-8 flag is set.
private struct PythonEntry: Decodable {
  var name: String
  var utf8: Bool
}
