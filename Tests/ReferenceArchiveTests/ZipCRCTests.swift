import Foundation
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
