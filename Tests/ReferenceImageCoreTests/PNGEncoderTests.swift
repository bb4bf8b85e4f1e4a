import Foundation
import ReferenceImageCore
import XCTest

final class PNGEncoderTests: XCTestCase {
  // MARK: Round trips

  func testEncode_variedImages_roundTripExactly() throws {
    for (name, image) in try Self.variedImages() {
      for setting in PNGEncoder.Setting.allCases {
        let bytes = try PNGEncoder(setting: setting).encode(image)
        XCTAssertEqual(Array(bytes.prefix(8)), CoreFixtures.signature, name)
        let decoded = try PNGDecoder().decode(bytes)
        XCTAssertEqual(decoded.size, image.size, "\(name) \(setting)")
        XCTAssertTrue(decoded.pixels == image.pixels, "\(name) \(setting): pixels changed")
      }
    }
  }

  func testEncode_severalBands_roundTripDeterministicallyWithATrustedDigest() throws {
    // Images of several bands of about 1 MiB of filtered rows each, deflated on every core.
    var generator = SplitMix64(seed: 7)
    var noise = try RGBAImage(width: 700, height: 900, color: .clear)
    noise.withUnsafeMutablePixelBytes { bytes in
      for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
    }
    var gradient = try RGBAImage(width: 2000, height: 600, color: .white)
    for y in 0..<600 where y % 7 != 0 {
      for x in stride(from: 0, to: 2000, by: 3) {
        gradient[x, y] = RGBAColor(red: UInt8(x % 256), green: UInt8(y % 256), blue: 90)
      }
    }
    let tall = try RGBAImage(width: 64, height: 16384, color: RGBAColor(red: 9, green: 8, blue: 7))
    for (name, image) in [("noise", noise), ("gradient", gradient), ("tall", tall)] {
      for setting in [PNGEncoder.Setting.fast, .fastest] {
        let png = try PNGEncoder(setting: setting).encode(image)
        XCTAssertEqual(try PNGDecoder().decode(png), image, "\(name) \(setting)")
        let copy = try RGBAImage(
          width: image.width, height: image.height, pixels: image.pixels.map { $0 })
        XCTAssertEqual(try PNGEncoder(setting: setting).encode(copy), png, "\(name) \(setting)")
        XCTAssertEqual(
          PNGPixelDigest.read(fromPNG: png)?.pixelSHA256.hex, SHA256.hex(image.pixels), name)
        var libspng = PNGEncoder(setting: setting)
        libspng.usesLibspngOnly = true
        let before = try libspng.encode(image)
        XCTAssertEqual(try PNGDecoder().decode(before), image, "\(name) \(setting)")
        // The fast deflate trades up to 10% of size for its speed (issue 21's bound).
        XCTAssertLessThanOrEqual(
          Double(png.count), Double(before.count) * 1.10, "\(name) \(setting): at most 10% larger")
      }
    }
  }

  func testEncode_decodedFixtures_roundTrip() throws {
    // Every committed decoding fixture, re-encoded as RGBA8, decodes to the same pixels.
    for entry in try CoreFixtures.decodingManifest() {
      let image = try CoreFixtures.image("png/\(entry.name).png")
      let decoded = try PNGDecoder().decode(PNGEncoder().encode(image))
      XCTAssertEqual(decoded, image, entry.name)
    }
  }

  // MARK: Determinism and chunks

  func testEncode_samePixels_giveSameBytes() throws {
    for (name, image) in try Self.variedImages() {
      for setting in PNGEncoder.Setting.allCases {
        let first = try PNGEncoder(setting: setting).encode(image)
        // A separate copy of the pixels, so storage identity cannot play a part.
        let copy = try RGBAImage(
          width: image.width, height: image.height, pixels: image.pixels.map { $0 })
        let second = try PNGEncoder(setting: setting).encode(copy)
        XCTAssertEqual(first, second, "\(name) \(setting)")
      }
    }
  }

  func testEncode_settingsDiffer_inBytesNotPixels() throws {
    let image = try Self.screenshotLike()
    let fast = try PNGEncoder(setting: .fast).encode(image)
    let small = try PNGEncoder(setting: .small).encode(image)
    XCTAssertNotEqual(fast, small, "the two settings should not write the same stream")
    XCTAssertEqual(try PNGDecoder().decode(fast), try PNGDecoder().decode(small))
  }

  func testEncode_output_hasCriticalChunksAndThePixelDigestButNoTimestamp() throws {
    let bytes = try PNGEncoder(setting: .small).encode(Self.screenshotLike())
    let chunks = CoreFixtures.chunks(of: bytes)
    let types = chunks.map(\.type)
    XCTAssertEqual(types.first, "IHDR")
    XCTAssertEqual(types.last, "IEND")
    XCTAssertTrue(types.contains("IDAT"))
    for forbidden in ["tIME", "tEXt", "zTXt", "iTXt"] {
      XCTAssertFalse(types.contains(forbidden), "\(forbidden) in \(types)")
    }
    XCTAssertEqual(Set(types), ["IHDR", "riDG", "IDAT", "IEND"], "\(types)")
    XCTAssertEqual(types.firstIndex(of: "riDG"), 1, "the digest sits right after IHDR")
    let last = try XCTUnwrap(chunks.last)
    XCTAssertEqual(last.start + 12, bytes.count, "nothing after IEND")
    // IHDR: 8-bit RGBA, not interlaced.
    XCTAssertEqual(Array(bytes[24..<29]), [8, 6, 0, 0, 0])
  }

  func testEncode_smallSetting_isNoLargerThanFastOnScreenshotLikeImage() throws {
    let image = try Self.screenshotLike()
    let fast = try PNGEncoder(setting: .fast).encode(image)
    let small = try PNGEncoder(setting: .small).encode(image)
    XCTAssertLessThanOrEqual(small.count, fast.count)
  }

  // MARK: Another decoder reads our output

  func testEncode_output_isReadByImageMagick() throws {
    // /usr/local/bin/convert on some machines is a stand-in script; use ImageMagick's own paths.
    let candidates = ["/usr/bin/convert", "/usr/bin/convert-im6.q16", "/usr/local/bin/magick"]
    guard let convert = candidates.first(where: { Self.isImageMagick($0) }) else {
      throw XCTSkip("convert is not installed (ImageMagick); cannot cross-check our PNG output")
    }
    let image = try Self.screenshotLike()
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("PNGEncoderTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for setting in PNGEncoder.Setting.allCases {
      let file = directory.appendingPathComponent("\(setting).png")
      try Data(PNGEncoder(setting: setting).encode(image)).write(to: file)
      // RGBA:- writes the raw 8-bit pixels, exactly what RGBAImage holds.
      let output = try Self.run(convert, [file.path, "-depth", "8", "RGBA:-"])
      XCTAssertEqual(
        output.status, 0, "\(setting): \(String(decoding: output.error, as: UTF8.self))")
      XCTAssertTrue(output.data == image.pixels, "\(setting): ImageMagick read other pixels")
    }
  }

  // MARK: Helpers

  /// Images with hard cases: one pixel, odd widths, every alpha, noise, flat areas.
  static func variedImages() throws -> [(String, RGBAImage)] {
    var generator = SplitMix64(seed: 42)
    var noise = try RGBAImage(width: 37, height: 23, color: .clear)
    noise.withUnsafeMutablePixelBytes { bytes in
      for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
    }
    var alphaRamp = try RGBAImage(width: 256, height: 2, color: .clear)
    for x in 0..<256 {
      alphaRamp[x, 0] = RGBAColor(red: 10, green: 200, blue: 30, alpha: UInt8(x))
      alphaRamp[x, 1] = RGBAColor(red: UInt8(x), green: 0, blue: UInt8(255 - x), alpha: 0)
    }
    return [
      ("1x1 opaque", try RGBAImage(width: 1, height: 1, color: .red)),
      ("1x1 transparent", try RGBAImage(width: 1, height: 1, color: .clear)),
      (
        "tall 1x300",
        try RGBAImage(width: 1, height: 300, color: RGBAColor(red: 1, green: 2, blue: 3))
      ),
      ("noise 37x23", noise),
      ("alpha ramp", alphaRamp),
      ("screenshot", try screenshotLike()),
    ]
  }

  /// A UI-like picture: flat background, panels, text-like rows of dark marks, a gradient bar.
  static func screenshotLike() throws -> RGBAImage {
    var image = try RGBAImage(
      width: 320, height: 200, color: RGBAColor(red: 246, green: 246, blue: 248))
    for y in 10..<190 {
      for x in 10..<310 where x < 90 || (x > 100 && y > 30) {
        image[x, y] = x < 90 ? RGBAColor(red: 40, green: 44, blue: 52) : .white
      }
    }
    for line in 0..<8 {
      let y = 40 + line * 16
      for x in 110..<(180 + line * 13) where (x / 3 + line) % 5 != 0 {
        image[x, y] = RGBAColor(red: 30, green: 30, blue: 30)
        image[x, y + 1] = RGBAColor(red: 120, green: 120, blue: 120)
      }
    }
    for x in 100..<310 {
      for y in 12..<26 {
        image[x, y] = RGBAColor(red: UInt8(x - 100), green: 120, blue: 200)
      }
    }
    return image
  }

  static func isImageMagick(_ path: String) -> Bool {
    guard FileManager.default.isExecutableFile(atPath: path),
      let output = try? run(path, ["-version"])
    else { return false }
    return String(decoding: output.data, as: UTF8.self).contains("ImageMagick")
  }

  /// Runs a tool with an argument array, reading its output before waiting for it; the error
  /// stream goes to a file so neither pipe can fill up and stall the tool.
  static func run(_ path: String, _ arguments: [String]) throws -> (
    status: Int32, data: [UInt8], error: [UInt8]
  ) {
    let errorURL = FileManager.default.temporaryDirectory
      .appendingPathComponent("PNGEncoderTests-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errorURL) }
    let errorHandle = try FileHandle(forWritingTo: errorURL)
    defer { try? errorHandle.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = errorHandle
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let errorData = (try? Data(contentsOf: errorURL)) ?? Data()
    return (process.terminationStatus, [UInt8](data), [UInt8](errorData))
  }
}
