import Foundation
import TestSupport
import XCTest

@testable import ReferenceArchive

/// `ZipReader.firstEntry` reads a plain first entry itself (`ZipDirectory.plainFirstEntry`):
/// what it reads must be what libarchive reads, and anything it is unsure of must go to
/// libarchive, whose verdicts and messages stand. libarchive reading the same bytes from
/// memory (a path the plain reader never takes) is the oracle.
final class ZipFirstEntryTests: XCTestCase {
  private let manifest = Array(String(repeating: "{\"path\": \"Tests/a.png\"},\n", count: 400).utf8)

  func testPlainFirstEntry_deflatedStoredEmptyOrLarge_isLibarchivesEntry() throws {
    var generator = SystemRandomNumberGenerator()
    let noise = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let firsts: [(String, [UInt8])] = [
      ("manifest.json", manifest),  // deflated
      ("a.png", noise),  // stored
      ("empty.json", []),
      ("noise.bin", noise),  // deflated, and larger than its input
    ]
    for (name, bytes) in firsts {
      let archive = try write([(name, bytes), ("Tests/b.png", [1, 2, 3])])
      let plain = try XCTUnwrap(
        ZipDirectory.plainFirstEntry(in: archive, limits: .default), "\(name): not read plainly")
      let oracle = try XCTUnwrap(try libarchiveFirst(archive))
      XCTAssertEqual(plain.path, oracle.path, name)
      XCTAssertEqual(plain.kind, oracle.kind, name)
      XCTAssertEqual(plain.bytes, oracle.bytes, name)
      XCTAssertEqual(plain.bytes, bytes, name)
      XCTAssertEqual(try ZipReader().firstEntry(in: .file(archive))?.bytes, bytes, name)
    }
  }

  func testPlainFirstEntry_nonASCIINameOrAFolder_leftToLibarchive() throws {
    for name in ["設定.json", "Tests/"] {
      let archive = try write([(name, name.hasSuffix("/") ? [] : manifest), ("b.png", [1])])
      XCTAssertNil(ZipDirectory.plainFirstEntry(in: archive, limits: .default), name)
      let read = try XCTUnwrap(try ZipReader().firstEntry(in: .file(archive)))
      XCTAssertEqual(read.path, try libarchiveFirst(archive)?.path, name)
    }
  }

  func testPlainFirstEntry_overALimit_leftToLibarchiveWhichRefusesIt() throws {
    let archive = try write([("manifest.json", manifest), ("b.png", [1])])
    var limits = ArchiveLimits.default
    limits.maximumEntryBytes = manifest.count - 1
    XCTAssertNil(ZipDirectory.plainFirstEntry(in: archive, limits: limits))
    XCTAssertThrowsError(try ZipReader(limits: limits).firstEntry(in: .file(archive))) {
      XCTAssertTrue("\($0)".contains("limit"), "\($0)")
    }
  }

  /// Every single byte of small archives changed in turn, two ways: wherever the plain reader
  /// still reads an entry, it is libarchive's entry, and wherever libarchive refuses the
  /// archive, so does `firstEntry`.
  func testPlainFirstEntry_everyByteDamaged_neverReadsOtherwiseThanLibarchive() throws {
    let folder = try makeTemporaryFolder(self)
    let archives = [
      [("manifest.json", Array(manifest.prefix(300))), ("b.png", [7]), ("c/d.png", [8, 9])],
      [("a.png", [UInt8](repeating: 3, count: 40)), ("manifest.json", Array(manifest.prefix(50)))],
    ]
    var plainlyRead = 0
    for (number, entries) in archives.enumerated() {
      let original = try [UInt8](Data(contentsOf: write(entries)))
      for index in original.indices {
        for mask: UInt8 in [0x5A, 0x01] {
          var damaged = original
          damaged[index] ^= mask
          let archive = folder.appendingPathComponent("damaged-\(number)-\(index)-\(mask).zip")
          try Data(damaged).write(to: archive)
          let name = "archive \(number), byte \(index) ^ \(mask)"
          let oracle = Result { try libarchiveFirst(archive) }
          let read = Result { try ZipReader().firstEntry(in: .file(archive)) }
          if let plain = ZipDirectory.plainFirstEntry(in: archive, limits: .default) {
            plainlyRead += 1
            let expected = try XCTUnwrap(try oracle.get(), "\(name): libarchive refuses it")
            XCTAssertEqual(plain.path, expected.path, name)
            XCTAssertEqual(plain.bytes, expected.bytes, name)
          }
          switch (read, oracle) {
          case (.success(let read), .success(let expected)):
            XCTAssertEqual(read?.path, expected?.path, name)
            XCTAssertEqual(read?.bytes, expected?.bytes, name)
          case (.failure, .failure): break
          default: XCTFail("\(name): firstEntry \(read), libarchive \(oracle)")
          }
        }
      }
    }
    // Many bytes (time stamps, owners, the later entries' data) leave the first readable.
    XCTAssertGreaterThan(plainlyRead, 100)
  }

  private func write(_ entries: [(String, [UInt8])]) throws -> URL {
    let archive = try makeTemporaryFolder(self).appendingPathComponent("a.zip")
    try ZipWriter().write(entries.map { .init(path: $0.0, contents: .bytes($0.1)) }, to: archive)
    return archive
  }

  /// libarchive's first entry, read from memory.
  private func libarchiveFirst(_ archive: URL) throws -> ArchiveEntry? {
    let bytes = try [UInt8](Data(contentsOf: archive))
    return try ZipReader().firstEntry(in: .memory(bytes, name: archive.path))
  }
}
