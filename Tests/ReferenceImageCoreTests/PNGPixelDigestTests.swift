import Foundation
import ReferenceImageCore
import XCTest

final class PNGPixelDigestTests: XCTestCase {
  // MARK: Written and read back

  func testRead_encodedImages_giveTheirSizeAndPixelHash() throws {
    for (name, image) in try PNGEncoderTests.variedImages() {
      for setting in PNGEncoder.Setting.allCases {
        let (png, written) = try PNGEncoder(setting: setting).encodeWithDigest(image)
        let digest = try XCTUnwrap(PNGPixelDigest.read(fromPNG: png), "\(name) \(setting)")
        XCTAssertEqual(digest, written, "\(name) \(setting)")
        XCTAssertEqual([digest.width, digest.height], [image.width, image.height], name)
        XCTAssertEqual(digest.pixelSHA256, SHA256.hex(image.pixels), name)
        XCTAssertEqual(digest.pixelSHA256, image.pixelSHA256, name)
        XCTAssertTrue(digest.matches(image), name)
        XCTAssertTrue(digest.matches(try PNGDecoder().decode(png)), name)
      }
    }
  }

  func testMatches_otherPixelsOrSameBytesInAnotherShape_isFalse() throws {
    let image = try RGBAImage(width: 4, height: 2, pixels: Array(0..<32))
    let digest = try XCTUnwrap(PNGPixelDigest.read(fromPNG: PNGEncoder().encode(image)))
    var changed = image
    changed[3, 1] = .white
    XCTAssertFalse(digest.matches(changed))
    // The same 32 bytes as a 2×4 image: equal pixel hash, different picture.
    XCTAssertFalse(digest.matches(try RGBAImage(width: 2, height: 4, pixels: image.pixels)))
  }

  func testEncode_withDigest_isDeterministic() throws {
    let image = try PNGEncoderTests.screenshotLike()
    let first = try PNGEncoder().encodeWithDigest(image)
    let second = try PNGEncoder().encodeWithDigest(
      RGBAImage(width: image.width, height: image.height, pixels: image.pixels.map { $0 }))
    XCTAssertEqual(first.png, second.png)
    XCTAssertEqual(first.digest, second.digest)
    XCTAssertEqual(try PNGEncoder().encode(image), first.png)
  }

  func testChunk_hasTheDocumentedLayout() throws {
    let image = try PNGEncoderTests.screenshotLike()
    let png = try PNGEncoder().encode(image)
    let chunk = try XCTUnwrap(CoreFixtures.chunks(of: png).first { $0.type == "riDG" })
    XCTAssertEqual(chunk.length, 65)
    let data = Array(png[(chunk.start + 8)..<(chunk.start + 8 + 65)])
    XCTAssertEqual(data[0], PNGPixelDigest.formatVersion)
    let idat = CoreFixtures.chunks(of: png).filter { $0.type == "IDAT" }
      .flatMap { png[($0.start + 8)..<($0.start + 8 + $0.length)] }
    XCTAssertEqual(Self.hex(data[1..<33]), SHA256.hex(idat))
    XCTAssertEqual(Self.hex(data[33..<65]), SHA256.hex(image.pixels))
    XCTAssertEqual(
      Array(png[(chunk.start + 73)..<(chunk.start + 77)]),
      Self.bigEndian(Self.crc32(Array(png[(chunk.start + 4)..<(chunk.start + 73)]))),
      "chunk CRC")
  }

  // MARK: Not trusted: decode instead

  func testRead_pixelsChangedByAnotherToolKeepingTheChunk_isNil() throws {
    let original = try PNGEncoderTests.screenshotLike()
    var edited = original
    edited[5, 5] = .red
    // The edited image's data under the original's digest chunk, as a careless tool would.
    let grafted = try Self.replacingImageData(
      of: PNGEncoder().encode(original), with: PNGEncoder().encode(edited))
    XCTAssertNil(PNGPixelDigest.read(fromPNG: grafted))
    // The fallback, decoding, sees the edit.
    XCTAssertEqual(try PNGDecoder().decode(grafted), edited)
  }

  func testRead_imageDataReencodedWithTheSamePixels_isNil() throws {
    let image = try PNGEncoderTests.screenshotLike()
    let fast = try PNGEncoder(setting: .fast).encode(image)
    let small = try PNGEncoder(setting: .small).encode(image)
    let reencoded = try Self.replacingImageData(of: fast, with: small)
    XCTAssertNotEqual(reencoded, fast)
    XCTAssertNil(PNGPixelDigest.read(fromPNG: reencoded))
    XCTAssertEqual(try PNGDecoder().decode(reencoded), image, "decoding still gives the pixels")
  }

  func testRead_filesWithoutTheChunk_isNil() throws {
    let names = try FileManager.default.contentsOfDirectory(
      atPath: CoreFixtures.directory.appendingPathComponent("png").path
    ).filter { $0.hasSuffix(".png") }
    XCTAssertGreaterThan(names.count, 10)
    for name in names {
      XCTAssertNil(PNGPixelDigest.read(fromPNG: try CoreFixtures.bytes("png/\(name)")), name)
    }
    let png = try PNGEncoder().encode(PNGEncoderTests.screenshotLike())
    XCTAssertNil(PNGPixelDigest.read(fromPNG: Self.removingDigest(png)))
  }

  func testRead_malformedInput_isNilNeverACrash() throws {
    let png = try PNGEncoder().encode(PNGEncoderTests.screenshotLike())
    let chunk = try XCTUnwrap(CoreFixtures.chunks(of: png).first { $0.type == "riDG" })
    var cases: [(String, [UInt8])] = [("empty", []), ("signature only", Array(png[0..<8]))]
    // Every truncation, and every single-byte change inside the digest chunk.
    for length in stride(from: 0, to: png.count, by: 7) {
      cases.append(("first \(length) bytes", Array(png[0..<length])))
    }
    for offset in chunk.start..<(chunk.start + 77) {
      var damaged = png
      damaged[offset] ^= 0x5A
      cases.append(("byte \(offset) flipped", damaged))
    }
    // A well-formed chunk of another version or length, with a correct CRC.
    let data = Array(png[(chunk.start + 8)..<(chunk.start + 73)])
    cases.append(("version 2", Self.replacingDigest(of: png, with: [2] + data.dropFirst())))
    cases.append(("64 bytes", Self.replacingDigest(of: png, with: Array(data.dropLast()))))
    cases.append(("66 bytes", Self.replacingDigest(of: png, with: data + [0])))
    cases.append(("empty chunk", Self.replacingDigest(of: png, with: [])))
    let digestChunk = Array(png[chunk.start..<(chunk.start + 77)])
    cases.append(
      (
        "two digests",
        Array(png[0..<chunk.start]) + digestChunk + Array(png[chunk.start...])
      ))
    // A length field that points far past the end.
    var hugeLength = png
    hugeLength[chunk.start] = 0x7F
    cases.append(("huge length", hugeLength))
    for name in try FileManager.default.contentsOfDirectory(
      atPath: CoreFixtures.directory.appendingPathComponent("malformed").path)
    {
      cases.append((name, try CoreFixtures.bytes("malformed/\(name)")))
    }
    for (name, bytes) in cases {
      XCTAssertNil(PNGPixelDigest.read(fromPNG: bytes), name)
    }
    XCTAssertNotNil(PNGPixelDigest.read(fromPNG: png), "the undamaged file is trusted")
  }

  // MARK: Helpers

  /// `target`'s header and digest chunk with `source`'s IDAT chunks.
  static func replacingImageData(of target: [UInt8], with source: [UInt8]) throws -> [UInt8] {
    func idat(_ png: [UInt8]) -> [UInt8] {
      CoreFixtures.chunks(of: png).filter { $0.type == "IDAT" }
        .flatMap { png[$0.start..<($0.start + 12 + $0.length)] }
    }
    let chunks = CoreFixtures.chunks(of: target)
    let firstIDAT = try XCTUnwrap(chunks.first { $0.type == "IDAT" }).start
    return Array(target[0..<firstIDAT]) + idat(source) + PNGDecoderIEND.bytes
  }

  /// The file without its `riDG` chunk.
  static func removingDigest(_ png: [UInt8]) -> [UInt8] {
    Array(png[0..<8])
      + CoreFixtures.chunks(of: png).filter { $0.type != "riDG" }
      .flatMap { png[$0.start..<($0.start + 12 + $0.length)] }
  }

  /// The file with its `riDG` chunk's data replaced, CRC recomputed.
  static func replacingDigest(of png: [UInt8], with data: [UInt8]) -> [UInt8] {
    var output = Array(png[0..<8])
    for chunk in CoreFixtures.chunks(of: png) {
      if chunk.type == "riDG" {
        let typeAndData = Array("riDG".utf8) + data
        output += bigEndian(UInt32(data.count)) + typeAndData + bigEndian(crc32(typeAndData))
      } else {
        output += png[chunk.start..<(chunk.start + 12 + chunk.length)]
      }
    }
    return output
  }

  static func bigEndian(_ word: UInt32) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) }
  }

  /// The PNG CRC-32, bit by bit: slow and independent of the package's table.
  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  static func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }
}

/// The 12 bytes of an IEND chunk.
enum PNGDecoderIEND {
  static let bytes: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
}
