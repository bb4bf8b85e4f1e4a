import Foundation
import XCTest

@testable import ReferenceImageCore

/// `.compact`: the smallest lossless form, read back by every reader on the machine.
final class CompactEncodingTests: XCTestCase {
  /// Each hard case with the colour type and bit depth the compact form must choose.
  static func hardCases() throws -> [(name: String, image: RGBAImage, type: UInt8, depth: UInt8)] {
    var generator = SplitMix64(seed: 37)
    func random() -> UInt8 { UInt8(truncatingIfNeeded: generator.next()) }
    var noise = try RGBAImage(width: 61, height: 29, color: .clear)
    noise.withUnsafeMutablePixelBytes { bytes in
      for index in bytes.indices { bytes[index] = random() }
    }
    var opaqueNoise = noise
    for y in 0..<29 { for x in 0..<61 { opaqueNoise[x, y].alpha = 255 } }
    // Exactly 256 colours, some translucent (palette with tRNS), and one more (truecolour).
    // Blocks of 4 × 4 pixels, each of one of 256 colours in a shuffled order.
    var colours256 = try RGBAImage(width: 256, height: 64, color: .white)
    var order = Array(0..<256)
    for index in order.indices.reversed() { order.swapAt(index, Int(random()) % (index + 1)) }
    for index in 0..<(256 * 64) {
      let (x, y) = (index % 256, index / 256)
      let colour = order[(x / 4 + y / 4 * 64) % 256]
      colours256[x, y] = RGBAColor(
        red: UInt8(colour), green: UInt8(255 - colour), blue: UInt8(colour / 2),
        alpha: colour < 40 ? UInt8(colour * 6) : 255)
    }
    var colours257 = colours256
    colours257[255, 63] = RGBAColor(red: 1, green: 2, blue: 3, alpha: 200)
    var greyRamp = try RGBAImage(width: 256, height: 3, color: .black)
    var greyAlpha = greyRamp
    var twoGreys = greyRamp
    var fourGreys = greyRamp
    var sixteenGreys = greyRamp
    for x in 0..<256 {
      for y in 0..<3 {
        let level = UInt8(x)
        greyRamp[x, y] = RGBAColor(red: level, green: level, blue: level)
        greyAlpha[x, y] = RGBAColor(red: level, green: level, blue: level, alpha: UInt8(y * 100))
        twoGreys[x, y] = (x + y) % 3 == 0 ? .white : .black
        fourGreys[x, y] = RGBAColor(
          red: UInt8(x % 4 * 85), green: UInt8(x % 4 * 85), blue: UInt8(x % 4 * 85))
        sixteenGreys[x, y] = RGBAColor(
          red: UInt8(x % 16 * 17), green: UInt8(x % 16 * 17), blue: UInt8(x % 16 * 17))
      }
    }
    let screenshot = try PNGEncoderTests.screenshotLike()
    return [
      // A single pixel is smallest as `.fast` writes it.
      ("1x1 opaque", try RGBAImage(width: 1, height: 1, color: .red), 6, 8),
      ("1x1 transparent", try RGBAImage(width: 1, height: 1, color: .clear), 6, 8),
      ("odd 3x5 two colours", try Self.checker(width: 3, height: 5), 2, 8),
      ("odd 33x17 two colours", try Self.checker(width: 33, height: 17), 3, 1),
      ("256 colours with alpha", colours256, 3, 8),
      ("257 colours with alpha", colours257, 6, 8),
      ("noise", noise, 6, 8),
      ("opaque noise", opaqueNoise, 2, 8),
      ("grey ramp", greyRamp, 0, 8),
      ("grey with alpha", greyAlpha, 4, 8),
      // Grey of fewer bits needs no PLTE.
      ("two greys, 1 bit", twoGreys, 0, 1),
      ("four greys", fourGreys, 0, 2),
      ("sixteen greys", sixteenGreys, 0, 4),
      // A gradient, where filtered RGB deflates smaller than palette indices.
      ("screenshot", screenshot, 2, 8),
    ]
  }

  static func checker(width: Int, height: Int) throws -> RGBAImage {
    var image = try RGBAImage(width: width, height: height, color: .white)
    for y in 0..<height { for x in 0..<width where (x + y) % 2 == 0 { image[x, y] = .red } }
    return image
  }

  func testCompact_hardCases_roundTripThroughBothDecoderPaths() throws {
    for (name, image, _, _) in try Self.hardCases() {
      let png = try PNGEncoder(setting: .compact).encode(image)
      XCTAssertEqual(try PNGDecoder().decode(png), image, name)
      XCTAssertEqual(try PNGDecoder().decode(png, commonCase: false), image, "\(name): libspng")
      XCTAssertEqual(PNGPixelDigest.read(fromPNG: png)?.pixelSHA256.hex, image.pixelSHA256, name)
      var storage: [UInt8] = []
      let fast = png.withUnsafeBytes { PNGDecoder().decodeCommonCase($0, reusing: &storage) }
      XCTAssertEqual(fast, image, "\(name): the fast path should read every compact form")
    }
  }

  func testCompact_randomImagesOfEveryForm_decodeAlikeThroughBothPaths() throws {
    // Small images of 1–12 colours, grey levels or translucent greys, partly smooth (so rows
    // choose Sub, Up and Paeth, alone and in pairs) and partly noisy, at odd sizes.
    var generator = SplitMix64(seed: 2026)
    func next(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
    var forms: Set<[UInt8]> = []
    for round in 0..<240 {
      let (width, height) = (1 + next(40), 1 + next(24))
      let colours = (0..<(1 + next(12))).map { _ -> RGBAColor in
        let level = UInt8(next(256))
        switch round % 3 {
        case 0: return RGBAColor(red: level, green: level, blue: level)
        case 1: return RGBAColor(red: level, green: level, blue: level, alpha: UInt8(next(256)))
        default:
          return RGBAColor(
            red: UInt8(next(256)), green: UInt8(next(256)), blue: level,
            alpha: next(4) == 0 ? UInt8(next(256)) : 255)
        }
      }
      var image = try RGBAImage(width: width, height: height, color: colours[0])
      for y in 0..<height {
        for x in 0..<width {
          let smooth = (x + y * (round % 5)) / (1 + round % 7)
          image[x, y] = colours[(next(5) == 0 ? next(colours.count) : smooth) % colours.count]
        }
      }
      let png = try PNGEncoder(setting: .compact).encode(image)
      forms.insert([png[24], png[25]])
      XCTAssertEqual(try PNGDecoder().decode(png), image, "round \(round)")
      XCTAssertEqual(try PNGDecoder().decode(png, commonCase: false), image, "round \(round)")
    }
    // Palettes of every bit depth, grey and grey with alpha were among them.
    for form: [UInt8] in [[1, 3], [2, 3], [4, 3], [8, 0], [8, 4]] {
      XCTAssertTrue(forms.contains(form), "no image was written as \(form): \(forms)")
    }
  }

  func testDecode_tRNSWithABadCRC_decodesAsLibspngDoes() throws {
    // libspng drops an ancillary chunk with a wrong CRC; the fast path must not apply it.
    let (_, image, _, _) = try XCTUnwrap(
      Self.hardCases().first { $0.name == "256 colours with alpha" })
    var png = try PNGEncoder(setting: .compact).encode(image)
    let chunks = png.withUnsafeBytes { PNGChunks($0)! }
    let trns = try XCTUnwrap(chunks.chunks.first { $0.type == PNGChunks.type("tRNS") })
    png[trns.data.upperBound] ^= 0xFF
    var storage: [UInt8] = []
    XCTAssertNil(png.withUnsafeBytes { PNGDecoder().decodeCommonCase($0, reusing: &storage) })
    XCTAssertEqual(
      String(describing: Result { try PNGDecoder().decode(png) }),
      String(describing: Result { try PNGDecoder().decode(png, commonCase: false) }))
  }

  func testDecode_paletteIndexBeyondPLTE_isLeftToLibspng() throws {
    let image = try Self.checker(width: 33, height: 17)
    let png = try PNGEncoder(setting: .compact).encode(image)
    // The same file with a PLTE of one entry: the checker's second colour has no entry.
    let chunks = png.withUnsafeBytes { PNGChunks($0)! }
    let plte = try XCTUnwrap(chunks.chunks.first { $0.type == PNGChunks.type("PLTE") })
    let shortPLTE = PNGChunks.encode(type: plte.type, data: Array(png[plte.data].prefix(3)))
    let damaged = Array(png[..<plte.whole.lowerBound]) + shortPLTE + png[plte.whole.upperBound...]
    var storage: [UInt8] = []
    XCTAssertNil(damaged.withUnsafeBytes { PNGDecoder().decodeCommonCase($0, reusing: &storage) })
    let fastPath = Result { try PNGDecoder().decode(damaged) }
    let libspng = Result { try PNGDecoder().decode(damaged, commonCase: false) }
    XCTAssertEqual(
      String(describing: fastPath), String(describing: libspng), "both paths decide alike")
  }

  func testCompact_choosesTheReducedColourType() throws {
    for (name, image, type, depth) in try Self.hardCases() {
      let png = try PNGEncoder(setting: .compact).encode(image)
      // IHDR's data starts at byte 16: width, height, then bit depth and colour type.
      XCTAssertEqual([png[24], png[25]], [depth, type], name)
    }
  }

  func testCompact_isNeverLargerThanFastOnHardCases() throws {
    for (name, image, _, _) in try Self.hardCases() {
      let compact = try PNGEncoder(setting: .compact).encode(image)
      let fast = try PNGEncoder(setting: .fast).encode(image)
      XCTAssertLessThanOrEqual(compact.count, fast.count, name)
    }
  }

  func testCompact_samePixels_sameBytes() throws {
    for (name, image, _, _) in try Self.hardCases() {
      let copy = try RGBAImage(
        width: image.width, height: image.height, pixels: image.pixels.map { $0 })
      XCTAssertEqual(
        try PNGEncoder(setting: .compact).encode(image),
        try PNGEncoder(setting: .compact).encode(copy), name)
    }
  }

  func testPixelInventory_stopsCountingPastAPalette() throws {
    let (_, image, _, _) = try XCTUnwrap(
      Self.hardCases().first { $0.name == "257 colours with alpha" })
    let inventory = PixelInventory(image)
    XCTAssertNil(inventory.colours)
    XCTAssertFalse(inventory.isOpaque)
    XCTAssertFalse(inventory.isGrey)
  }

  func testCompact_isReadByImageMagick() throws {
    let candidates = ["/usr/bin/convert", "/usr/bin/convert-im6.q16", "/usr/local/bin/magick"]
    guard let convert = candidates.first(where: { PNGEncoderTests.isImageMagick($0) }) else {
      throw XCTSkip("convert is not installed (ImageMagick); cannot cross-check compact PNGs")
    }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("CompactEncodingTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for (index, (name, image, _, _)) in try Self.hardCases().enumerated() {
      let file = folder.appendingPathComponent("\(index).png")
      try Data(PNGEncoder(setting: .compact).encode(image)).write(to: file)
      // RGBA:- writes 8-bit RGBA, whatever the file's colour type.
      let output = try PNGEncoderTests.run(convert, [file.path, "-depth", "8", "RGBA:-"])
      XCTAssertEqual(output.status, 0, "\(name): \(String(decoding: output.error, as: UTF8.self))")
      XCTAssertTrue(output.data == image.pixels, "\(name): ImageMagick read other pixels")
    }
  }
}
