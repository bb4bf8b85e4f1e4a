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
        XCTAssertEqual(digest.pixelSHA256.hex, SHA256.hex(image.pixels), name)
        XCTAssertEqual(digest.pixelSHA256.hex, image.pixelSHA256, name)
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
    XCTAssertEqual(PNGPixelDigest.formatVersion, 2)
    // The seal: IHDR's and the image data's bytes, then the two pixel digests.
    let sealed = CoreFixtures.chunks(of: png).filter { ["IHDR", "IDAT"].contains($0.type) }
      .flatMap { png[($0.start + 8)..<($0.start + 8 + $0.length)] }
    XCTAssertEqual(Self.hex(data[1..<17]), XXH3Digest(of: sealed + data[17..<65]).description)
    XCTAssertEqual(Self.hex(data[17..<33]), XXH3Digest(of: image.pixels).description)
    XCTAssertEqual(Self.hex(data[33..<65]), SHA256.hex(image.pixels))
    XCTAssertEqual(
      Array(png[(chunk.start + 73)..<(chunk.start + 77)]),
      Self.bigEndian(Self.crc32(Array(png[(chunk.start + 4)..<(chunk.start + 73)]))),
      "chunk CRC")
  }

  func testXXH3_knownAnswers() {
    // From `xxhsum -H2` (xxHash 0.8.1, Debian's `xxhash` package) on the same bytes.
    XCTAssertEqual(XXH3Digest(of: []).description, "99aa06d3014798d86001c324468d497f")
    XCTAssertEqual(
      XXH3Digest(of: Array("abc".utf8)).description, "06b05ab6733a618578af5f94892f3950")
    let long = (0..<1_000_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    XCTAssertEqual(XXH3Digest(of: long).description, "a6ea16ee0fd324191f748a0eacf646fa")
    // Fed in pieces, as the seal hashes a file's chunks.
    let hasher = XXH3Digest.Hasher()
    for start in stride(from: 0, to: long.count, by: 65_537) {
      long[start..<min(start + 65_537, long.count)].withUnsafeBytes(hasher.update)
    }
    XCTAssertEqual(hasher.finish(), XXH3Digest(of: long))
  }

  func testRead_version1Chunk_isStillReadAndChecksWithSHA256() throws {
    let image = try PNGEncoderTests.screenshotLike()
    let version1 = try Self.version1(of: PNGEncoder().encode(image), pixels: image)
    let digest = try XCTUnwrap(PNGPixelDigest.read(fromPNG: version1))
    XCTAssertEqual(digest.pixelSHA256.hex, SHA256.hex(image.pixels))
    XCTAssertNil(digest.pixelXXH3, "version 1 has no fast digest")
    XCTAssertTrue(digest.matches(image))
    var changed = image
    changed[7, 3] = .red
    XCTAssertFalse(digest.matches(changed))
    // Its image data replaced under the kept chunk: not believed.
    let grafted = try Self.replacingImageData(of: version1, with: PNGEncoder().encode(changed))
    XCTAssertNil(PNGPixelDigest.read(fromPNG: grafted))
  }

  func testMatches_oneDifferentPixel_isFalseWithTheFastDigest() throws {
    let image = try PNGEncoderTests.screenshotLike()
    let digest = try XCTUnwrap(PNGPixelDigest.read(fromPNG: PNGEncoder().encode(image)))
    XCTAssertNotNil(digest.pixelXXH3)
    for (x, y) in [(0, 0), (image.width - 1, image.height - 1), (image.width / 2, 3)] {
      var changed = image
      var color = changed[x, y]
      color.alpha ^= 1
      changed[x, y] = color
      XCTAssertFalse(digest.matches(changed), "(\(x), \(y))")
    }
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

  func testRead_fastDigestChangedApartFromItsSHA256_isNil() throws {
    // A chunk whose fast digest names other pixels than its SHA-256 (edited, its CRC made
    // right again): the seal no longer agrees, so the file is decoded, never matched by it.
    let image = try PNGEncoderTests.screenshotLike()
    var changed = image
    changed[1, 1] = .red
    let png = try PNGEncoder().encode(image)
    let chunk = try XCTUnwrap(CoreFixtures.chunks(of: png).first { $0.type == "riDG" })
    var data = Array(png[(chunk.start + 8)..<(chunk.start + 73)])
    data.replaceSubrange(17..<33, with: XXH3Digest(of: changed.pixels).bytes)
    let tampered = Self.replacingDigest(of: png, with: data)
    XCTAssertNil(PNGPixelDigest.read(fromPNG: tampered))
    XCTAssertEqual(try PNGDecoder().decode(tampered), image, "decoding gives the file's pixels")
    // The SHA-256 changed instead: refused the same way.
    data = Array(png[(chunk.start + 8)..<(chunk.start + 73)])
    data.replaceSubrange(33..<65, with: Self.sha256(changed.pixels))
    XCTAssertNil(PNGPixelDigest.read(fromPNG: Self.replacingDigest(of: png, with: data)))
  }

  func testRead_paletteChangedUnderTheKeptChunk_isNil() throws {
    // A palette file: the chunk vouches for the colours its PLTE gives the indices.
    let encoder = PNGEncoder()
    let indices: [UInt8] = [0, 1, 1, 0, 1, 0]
    let red = RGBAColor(red: 255, green: 0, blue: 0)
    let blue = RGBAColor(red: 0, green: 0, blue: 255)
    let plain = try encoder.encodeIndexed(
      width: 3, height: 2, palette: [red, blue], indices: indices)
    let image = try PNGDecoder().decode(plain)
    let png = try XCTUnwrap(
      PNGPixelDigest.inserting(pixelSHA256: SHA256Digest(of: image.pixels), of: image, into: plain))
    XCTAssertTrue(try XCTUnwrap(PNGPixelDigest.read(fromPNG: png)).matches(image))
    let recoloured = try encoder.encodeIndexed(
      width: 3, height: 2, palette: [red, .white], indices: indices)
    // The recoloured file's PLTE under the original's digest chunk, image data unchanged.
    var output = Array(png[0..<8])
    for chunk in CoreFixtures.chunks(of: png) {
      let source = chunk.type == "PLTE" ? recoloured : png
      let from =
        chunk.type == "PLTE"
        ? try XCTUnwrap(CoreFixtures.chunks(of: recoloured).first { $0.type == "PLTE" }) : chunk
      output += source[from.start..<(from.start + 12 + from.length)]
    }
    XCTAssertNotEqual(try PNGDecoder().decode(output), image)
    XCTAssertNil(PNGPixelDigest.read(fromPNG: output))
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
    cases.append(("version 9", Self.replacingDigest(of: png, with: [9] + data.dropFirst())))
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

  /// The file with a version 1 digest chunk for `pixels`, as the package wrote before.
  static func version1(of png: [UInt8], pixels: RGBAImage) throws -> [UInt8] {
    let idat = CoreFixtures.chunks(of: png).filter { $0.type == "IDAT" }
      .flatMap { png[($0.start + 8)..<($0.start + 8 + $0.length)] }
    return replacingDigest(
      of: png, with: [1] + sha256(idat) + sha256(pixels.pixels))
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

  static func sha256(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes(SHA256.digest) }

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
