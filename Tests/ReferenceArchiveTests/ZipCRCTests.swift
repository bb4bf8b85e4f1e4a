import Foundation
import TestSupport
import XCTest

@testable import ReferenceArchive

/// `ZipReader` checks each entry's CRC-32 itself (libdeflate's) with libarchive's own check
/// turned off: the verdicts must be libarchive's, which reads the same bytes here as the oracle,
/// whatever the local header and the central directory say.
final class ZipCRCTests: XCTestCase {
  private let data = Array("pixels, or what stands for them".utf8)

  func testRead_crcsAgreeingOrNot_acceptedExactlyWhereLibarchiveAccepts() throws {
    let right = crc32(data)
    let wrong = right ^ 0x0100_0000
    // (local header's CRC, central directory's CRC, whether the entry reads)
    let cases: [(UInt32, UInt32, Bool)] = [
      (right, right, true),
      (wrong, wrong, false),
      // libarchive checks the local header's CRC where it has one...
      (right, wrong, true),
      (wrong, right, false),
      // ...and the central directory's where the local header leaves it zero.
      (0, right, true),
      (0, wrong, false),
    ]
    for (local, central, reads) in cases {
      let zip = Self.storedZip(name: "a.png", data: data, localCRC: local, centralCRC: central)
      let name = "local \(String(local, radix: 16)), central \(String(central, radix: 16))"
      XCTAssertEqual(LibArchiveAlone.readsEveryEntry(zip), reads, "oracle, \(name)")
      var read: [UInt8]?
      do {
        try ZipReader().forEachEntry(in: .memory(zip, name: "case.zip")) { read = $0.bytes }
        XCTAssertTrue(reads, "\(name): read although libarchive refuses it")
        XCTAssertEqual(read, data, name)
      } catch {
        XCTAssertFalse(reads, "\(name): \(error)")
        XCTAssertTrue("\(error)".contains("ZIP bad CRC: 0x"), "\(name): \(error)")
        XCTAssertTrue("\(error)".contains("'a.png'"), "\(name): \(error)")
      }
    }
  }

  func testRead_entryNotWanted_notChecked() throws {
    let zip = Self.storedZip(name: "a.png", data: data, localCRC: 1, centralCRC: 1)
    var seen: [String] = []
    try ZipReader().forEachEntry(in: .memory(zip, name: "case.zip"), wantsData: { _ in false }) {
      seen.append($0.path)
    }
    XCTAssertEqual(seen, ["a.png"])
  }

  func testRead_manyEntriesOfEverySize_readBackWholeAndADamagedOneNamed() throws {
    let archive = try makeTemporaryFolder(self).appendingPathComponent("many.zip")
    var generator = SystemRandomNumberGenerator()
    // Sizes on both sides of the 4 KiB block the local headers are read through, and names of
    // other scripts, which are read from those headers too.
    let entries = (0..<300).map { index -> ZipWriter.Entry in
      let size = [0, 1, 100, 4000, 4096, 5000, 70_000][index % 7]
      let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let name = index % 5 == 0 ? "設定-\(index).png" : "entry-\(index).png"
      return ZipWriter.Entry(path: name, contents: .bytes(bytes))
    }
    try ZipWriter().write(entries, to: archive)
    var read: [String: [UInt8]] = [:]
    try ZipReader().forEachEntry(in: .file(archive)) { read[$0.path] = $0.bytes }
    XCTAssertEqual(read.count, entries.count)
    for entry in entries {
      guard case .bytes(let bytes) = entry.contents else { continue }
      XCTAssertEqual(read[entry.path], bytes, entry.path)
    }
    // One byte of entry-101's data changed: the entry is refused by name.
    var zip = try [UInt8](Data(contentsOf: archive))
    let name = Array("entry-101.png".utf8)
    let header = try XCTUnwrap(
      (0..<(zip.count - name.count)).first {
        zip[$0 + 30..<$0 + 30 + name.count].elementsEqual(name)
          && zip[$0..<$0 + 4].elementsEqual([0x50, 0x4B, 0x03, 0x04])
      })
    let dataStart = header + 30 + name.count + Int(zip[header + 28]) + Int(zip[header + 29]) << 8
    zip[dataStart + 10] ^= 0xFF
    XCTAssertThrowsError(
      try ZipReader().forEachEntry(in: .memory(zip, name: "many.zip")) { _ in }
    ) { error in
      XCTAssertTrue("\(error)".contains("'entry-101.png'"), "\(error)")
      XCTAssertTrue("\(error)".contains("ZIP bad CRC"), "\(error)")
    }
  }

  // MARK: Helpers

  private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  /// A zip of one stored entry, its CRC-32 fields set as given.
  static func storedZip(
    name: String, data: [UInt8], localCRC: UInt32, centralCRC: UInt32
  ) -> [UInt8] {
    let nameBytes = Array(name.utf8)
    func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    func le32(_ value: UInt32) -> [UInt8] { le16(Int(value & 0xFFFF)) + le16(Int(value >> 16)) }
    let size = le32(UInt32(data.count))
    // Version 2.0, no flags, stored, 1980-01-01 00:00.
    let common = le16(20) + le16(0) + le16(0) + le16(0) + le16(0x21)
    let local =
      le32(0x0403_4b50) + common + le32(localCRC) + size + size + le16(nameBytes.count) + le16(0)
      + nameBytes + data
    let central =
      le32(0x0201_4b50) + le16(0x031E) + common + le32(centralCRC) + size + size
      + le16(nameBytes.count) + le16(0) + le16(0) + le16(0) + le16(0)
      + le32(0o100644 << 16) + le32(0) + nameBytes
    let end =
      le32(0x0605_4b50) + le16(0) + le16(0) + le16(1) + le16(1) + le32(UInt32(central.count))
      + le32(UInt32(local.count)) + le16(0)
    return local + central + end
  }
}
