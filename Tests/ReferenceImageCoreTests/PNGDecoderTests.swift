import Foundation
import ReferenceImageCore
import XCTest

final class PNGDecoderTests: XCTestCase {
  // MARK: Valid files against an independent decoder

  func testDecode_everyFixture_matchesIndependentDecoder() throws {
    let entries = try CoreFixtures.decodingManifest()
    // Guards against an empty or half-written manifest turning this into an empty pass.
    XCTAssertGreaterThanOrEqual(entries.count, 35)
    for entry in entries {
      let bytes = try CoreFixtures.bytes("png/\(entry.name).png")
      let expected = try CoreFixtures.bytes("png/\(entry.name).rgba")
      let image: RGBAImage
      do {
        image = try PNGDecoder().decode(bytes)
      } catch {
        XCTFail("\(entry.name) (\(entry.note)): \(error)")
        continue
      }
      XCTAssertEqual(image.width, entry.width, entry.name)
      XCTAssertEqual(image.height, entry.height, entry.name)
      XCTAssertEqual(expected.count, entry.width * entry.height * 4, entry.name)
      if image.pixels != expected {
        let index =
          zip(image.pixels, expected).enumerated().first { $0.element.0 != $0.element.1 }
          .map { $0.offset / 4 } ?? 0
        let x = index % entry.width
        let y = index / entry.width
        XCTFail(
          "\(entry.name) (\(entry.note)): pixel (\(x), \(y)) decoded as \(image[x, y]), expected "
            + "\(Array(expected[(index * 4)..<(index * 4 + 4)]))")
      }
    }
  }

  func testSize_everyFixture_matchesManifest() throws {
    for entry in try CoreFixtures.decodingManifest() {
      let size = try PNGDecoder().size(of: CoreFixtures.bytes("png/\(entry.name).png"))
      XCTAssertEqual(size.width, entry.width, entry.name)
      XCTAssertEqual(size.height, entry.height, entry.name)
    }
  }

  func testDecode_sixteenBitSamples_keepHighByte() throws {
    // Spot check of the manifest-driven test with numbers visible here: the first two samples of
    // every fixture are the extremes 0 and the maximum, so a 16-bit 65535 must come out as 255,
    // a 2-bit 3 as 255, and a 1-bit 1 as 255.
    for name in ["grey16_7x5", "grey2_7x5", "grey1_7x5", "rgb16_7x5"] {
      let image = try PNGDecoder().decode(CoreFixtures.bytes("png/\(name).png"))
      XCTAssertEqual(image[0, 0].red, 0, name)
      XCTAssertEqual(image[0, 0].alpha, 255, name)
    }
    let grey = try PNGDecoder().decode(CoreFixtures.bytes("png/grey16_7x5.png"))
    XCTAssertEqual(grey[1, 0], .white)
    let twoBit = try PNGDecoder().decode(CoreFixtures.bytes("png/grey2_7x5.png"))
    XCTAssertEqual(twoBit[1, 0], .white)
    XCTAssertTrue(
      twoBit.pixels.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element % 85 == 0 },
      "2-bit grey scales to multiples of 85")
  }

  func testDecode_greyWithTRNS_makesMatchingSamplesTransparent() throws {
    let image = try PNGDecoder().decode(CoreFixtures.bytes("png/grey8_trns_7x5.png"))
    // generate.py puts the transparent grey 77 at (0, 0).
    XCTAssertEqual(image[0, 0], RGBAColor(red: 77, green: 77, blue: 77, alpha: 0))
    let transparent = (0..<image.pixelCount).filter { image.pixels[$0 * 4 + 3] == 0 }
    XCTAssertTrue(transparent.allSatisfy { image.pixels[$0 * 4] == 77 })
    XCTAssertGreaterThan(transparent.count, 0)
  }

  // MARK: Malformed input

  func testDecode_emptyData_throwsNotPNG() {
    XCTAssertThrowsError(try PNGDecoder().decode([UInt8]())) { error in
      XCTAssertEqual(error as? PNGError, .notPNG(byteCount: 0))
      CoreFixtures.assertReadable(error)
    }
  }

  func testDecode_wrongSignature_throwsNotPNG() throws {
    var bytes = try CoreFixtures.bytes("png/rgb8_33x17.png")
    bytes[1] = UInt8(ascii: "J")  // "\x89JNG"
    XCTAssertThrowsError(try PNGDecoder().decode(bytes)) { error in
      XCTAssertEqual(error as? PNGError, .notPNG(byteCount: bytes.count))
      CoreFixtures.assertReadable(error)
    }
    XCTAssertThrowsError(try PNGDecoder().size(of: bytes))
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0x49, 0x46, 0, 1]
    XCTAssertThrowsError(try PNGDecoder().decode(jpeg)) {
      XCTAssertEqual($0 as? PNGError, .notPNG(byteCount: jpeg.count))
    }
  }

  func testDecode_truncatedData_throws() throws {
    let bytes = try CoreFixtures.bytes("png/rgba8_33x17.png")
    let chunks = CoreFixtures.chunks(of: bytes)
    let idat = try XCTUnwrap(chunks.first { $0.type == "IDAT" })
    let iend = try XCTUnwrap(chunks.first { $0.type == "IEND" })
    XCTAssertEqual(iend.start + 12, bytes.count)
    let cuts = [
      1, 7,  // inside the signature
      8, 12, 16, 20, 30, 32,  // inside the IHDR chunk
      idat.start, idat.start + 8, idat.start + 8 + idat.length / 2,  // inside IDAT
      idat.start + 8 + idat.length,  // IDAT's CRC missing: libspng alone would not notice
      idat.start + 8 + idat.length + 2,  // inside IDAT's CRC
      iend.start,  // every pixel present, IEND missing
      iend.start + 8, bytes.count - 1,  // inside IEND
    ]
    for cut in cuts {
      let truncated = Array(bytes[..<cut])
      XCTAssertThrowsError(try PNGDecoder().decode(truncated), "cut at \(cut)") { error in
        CoreFixtures.assertReadable(error)
        if cut < 8 {
          XCTAssertEqual(error as? PNGError, .notPNG(byteCount: cut))
        } else {
          guard case .libspng = error as? PNGError else {
            return XCTFail("cut at \(cut): expected a libspng error, got \(error)")
          }
        }
      }
    }
  }

  func testDecode_bytesAfterIEND_areIgnored() throws {
    let bytes = try CoreFixtures.bytes("png/rgba8_33x17.png")
    let image = try PNGDecoder().decode(bytes + [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    XCTAssertEqual(image, try PNGDecoder().decode(bytes))
  }

  func testDecode_badCRCInIHDR_throws() throws {
    var bytes = try CoreFixtures.bytes("png/rgb8_33x17.png")
    // The stored CRC of IHDR sits at bytes 29..<33; flip one bit of it.
    bytes[30] ^= 0x04
    XCTAssertThrowsError(try PNGDecoder().decode(bytes)) { error in
      CoreFixtures.assertChecksumError(error)
    }
    XCTAssertThrowsError(try PNGDecoder().size(of: bytes)) { error in
      CoreFixtures.assertChecksumError(error)
    }
  }

  func testSize_corruptedWidthInIHDR_throwsInsteadOfBelievingIt() throws {
    var bytes = try CoreFixtures.bytes("png/rgb8_33x17.png")
    // Width 33 becomes 37, CRC unchanged. libspng's spng_get_ihdr alone returns 37 here.
    bytes[19] ^= 0x04
    XCTAssertThrowsError(try PNGDecoder().size(of: bytes)) { error in
      CoreFixtures.assertChecksumError(error)
    }
  }

  func testDecode_badCRCInIDAT_throws() throws {
    let original = try CoreFixtures.bytes("png/rgb8_33x17.png")
    let idat = try XCTUnwrap(CoreFixtures.chunks(of: original).first { $0.type == "IDAT" })
    // The stored CRC changed, the data intact: this is the last IDAT chunk, whose CRC libspng's
    // spng_decode_image never reads.
    var badCRC = original
    badCRC[idat.start + 8 + idat.length + 1] ^= 0x10
    XCTAssertThrowsError(try PNGDecoder().decode(badCRC)) { error in
      CoreFixtures.assertChecksumError(error)
    }
    // A data byte changed, the CRC as it was: zlib or the CRC check must notice.
    var badData = original
    badData[idat.start + 8 + idat.length / 2] ^= 0x10
    XCTAssertThrowsError(try PNGDecoder().decode(badData)) { error in
      guard case .libspng = error as? PNGError else {
        return XCTFail("expected a libspng error, got \(error)")
      }
      CoreFixtures.assertReadable(error)
    }
  }

  func testDecode_badCRCInIEND_throws() throws {
    var bytes = try CoreFixtures.bytes("png/grey8_7x5.png")
    bytes[bytes.count - 2] ^= 0x01
    XCTAssertThrowsError(try PNGDecoder().decode(bytes)) { error in
      CoreFixtures.assertChecksumError(error)
    }
  }

  func testDecode_randomBytes_throws() {
    var generator = SplitMix64(seed: 0x5EED)
    for length in [1, 7, 8, 9, 33, 100, 1000, 5000] {
      for trial in 0..<20 {
        var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // Half the trials start with a valid signature, so libspng itself sees the noise.
        if trial % 2 == 0, length >= 8 {
          bytes.replaceSubrange(0..<8, with: CoreFixtures.signature)
        }
        XCTAssertThrowsError(try PNGDecoder().decode(bytes), "length \(length) trial \(trial)") {
          CoreFixtures.assertReadable($0)
        }
      }
    }
  }

  func testDecode_malformedFixtures_throwReadableErrors() throws {
    let names = [
      "short_idat", "bad_bit_depth", "missing_plte", "zero_width", "random_after_signature",
    ]
    for name in names {
      let bytes = try CoreFixtures.bytes("malformed/\(name).png")
      XCTAssertThrowsError(try PNGDecoder().decode(bytes), name) { error in
        guard case .libspng = error as? PNGError else {
          return XCTFail("\(name): expected a libspng error, got \(error)")
        }
        CoreFixtures.assertReadable(error)
      }
    }
  }

  func testDecode_headerDeclaring100000Square_throwsTooLarge() throws {
    let bytes = try CoreFixtures.bytes("malformed/huge_dimensions.png")
    for attempt in [
      { _ = try PNGDecoder().decode(bytes) }, { _ = try PNGDecoder().size(of: bytes) },
    ] {
      XCTAssertThrowsError(try attempt()) { error in
        XCTAssertEqual(
          error as? PNGError, .tooLarge(width: 100000, height: 100000, limits: .default))
        XCTAssertTrue("\(error)".contains("100000×100000"), "\(error)")
        XCTAssertTrue("\(error)".contains("PNGDecoder.Limits"), "\(error)")
      }
    }
  }

  func testDecode_beyondCustomDecodedByteLimit_throwsTooLarge() throws {
    let bytes = try CoreFixtures.bytes("malformed/inflates_large.png")
    XCTAssertLessThan(bytes.count, 64 << 10, "the fixture is small and inflates a lot")
    let limits = PNGDecoder.Limits(
      maximumWidth: 4096, maximumHeight: 4096, maximumDecodedBytes: 1 << 20,
      maximumChunkBytes: 1 << 20)
    XCTAssertThrowsError(try PNGDecoder(limits: limits).decode(bytes)) { error in
      XCTAssertEqual(error as? PNGError, .tooLarge(width: 3000, height: 3000, limits: limits))
      XCTAssertTrue("\(error)".contains("3000×3000"), "\(error)")
    }
    // With the default limits the same file is a valid, all-black image.
    let image = try PNGDecoder().decode(bytes)
    XCTAssertEqual(image.size, ImageSize(width: 3000, height: 3000))
    XCTAssertEqual(image[2999, 2999], .black)
  }

  func testDecode_beyondCustomWidthLimit_throwsTooLarge() throws {
    let bytes = try CoreFixtures.bytes("png/rgb8_33x17.png")
    let limits = PNGDecoder.Limits(
      maximumWidth: 32, maximumHeight: 100, maximumDecodedBytes: 1 << 20,
      maximumChunkBytes: 1 << 20)
    XCTAssertThrowsError(try PNGDecoder(limits: limits).decode(bytes)) {
      XCTAssertEqual($0 as? PNGError, .tooLarge(width: 33, height: 17, limits: limits))
    }
  }

  func testDecode_compressedTextBombBeyondChunkLimit_throws() throws {
    // The zTXt chunk inflates to 8 MiB; libspng stops inflating at the chunk cache limit
    // (PNGDecoder passes four times maximumChunkBytes) and refuses the file.
    let bytes = try CoreFixtures.bytes("malformed/ztxt_bomb.png")
    let limits = PNGDecoder.Limits(
      maximumWidth: 64, maximumHeight: 64, maximumDecodedBytes: 1 << 16,
      maximumChunkBytes: 1 << 16)
    XCTAssertThrowsError(try PNGDecoder(limits: limits).decode(bytes)) { error in
      guard case .libspng(_, _, let message)? = error as? PNGError else {
        return XCTFail("expected a libspng error, got \(error)")
      }
      XCTAssertTrue(message.contains("limit"), message)
      CoreFixtures.assertReadable(error)
    }
    // Within the default limits the text is legitimate and the 4 × 4 grey image decodes.
    XCTAssertEqual(
      try PNGDecoder().decode(bytes),
      try RGBAImage(width: 4, height: 4, color: RGBAColor(red: 128, green: 128, blue: 128)))
  }

  func testErrorDescriptions_areSentencesWithTheNumbers() {
    let limits = PNGDecoder.Limits.default
    let cases: [(PNGError, [String])] = [
      (.notPNG(byteCount: 12), ["not a PNG", "12 bytes"]),
      (.tooLarge(width: 100000, height: 7, limits: limits), ["100000×7", "16384×16384"]),
      (.libspng(step: "decoding pixels", code: 1, message: "crc error"), ["decoding pixels"]),
      (.outOfMemory, ["memory"]),
    ]
    for (error, fragments) in cases {
      CoreFixtures.assertReadable(error)
      for fragment in fragments {
        XCTAssertTrue(
          error.description.contains(fragment), "\(error.description) lacks \(fragment)")
      }
    }
  }
}

// MARK: - Shared test helpers for ReferenceImageCore's codec and comparison tests

/// Reads the committed fixtures under `__Fixtures__` next to this file.
enum CoreFixtures {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("__Fixtures__")

  static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  struct DecodingEntry: Decodable {
    var name: String
    var width: Int
    var height: Int
    var note: String
  }

  static func bytes(_ relativePath: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: directory.appendingPathComponent(relativePath)))
  }

  static func decodingManifest() throws -> [DecodingEntry] {
    try JSONDecoder().decode([DecodingEntry].self, from: Data(bytes("png/manifest.json")))
  }

  static func image(_ relativePath: String) throws -> RGBAImage {
    try PNGDecoder().decode(bytes(relativePath))
  }

  struct Chunk {
    /// The offset of the chunk's length field.
    var start: Int
    /// The length of the chunk's data.
    var length: Int
    var type: String
  }

  /// The chunks of a PNG file, parsed by hand (independently of libspng).
  static func chunks(of bytes: [UInt8]) -> [Chunk] {
    var result: [Chunk] = []
    var offset = 8
    while offset + 8 <= bytes.count {
      let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
      let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
      result.append(Chunk(start: offset, length: length, type: type))
      offset += 12 + length
    }
    return result
  }

  /// Asserts that an error is libspng's report of a CRC mismatch, readable.
  static func assertChecksumError(
    _ error: any Error, file: StaticString = #filePath, line: UInt = #line
  ) {
    guard case .libspng(_, _, let message)? = error as? PNGError else {
      return XCTFail("expected a libspng error, got \(error)", file: file, line: line)
    }
    XCTAssertTrue(message.contains("checksum"), message, file: file, line: line)
    assertReadable(error, file: file, line: line)
  }

  /// Asserts that an error's description reads as a sentence: several words, no Swift dump of an
  /// enum case, no empty message.
  static func assertReadable(
    _ error: any Error, file: StaticString = #filePath, line: UInt = #line
  ) {
    let text = "\(error)"
    XCTAssertGreaterThanOrEqual(
      text.split(separator: " ").count, 4, "too short: \(text)", file: file, line: line)
    for dump in ["libspng(step:", "notPNG(", "tooLarge(", "Optional(", "error -", "()"] {
      XCTAssertFalse(text.contains(dump), "reads like a dump: \(text)", file: file, line: line)
    }
    XCTAssertEqual(
      text.trimmingCharacters(in: .whitespacesAndNewlines), text, file: file, line: line)
  }
}

/// A seeded generator, so "random" test data is the same on every run.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
