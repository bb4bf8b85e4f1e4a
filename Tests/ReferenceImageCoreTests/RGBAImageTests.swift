import Foundation
import ReferenceImageCore
import XCTest

// The code of the "From your renderer's pixels" blocks in WritingRenderTests.md and
// ComparingImagesYourself.md, line for line (`testDocSnippet_isThisFilesCode` keeps them so).

/// Draws a gradient, red on the left to blue on the right, into a plain RGBA byte buffer.
func renderGradient(width: Int, height: Int) throws -> RGBAImage {
  var pixels = [UInt8](repeating: 0, count: width * height * 4)
  for y in 0..<height {
    for x in 0..<width {
      let offset = (y * width + x) * 4
      let red = UInt8(255 - x * 255 / max(width - 1, 1))
      pixels[offset] = red
      pixels[offset + 1] = 0  // green
      pixels[offset + 2] = 255 - red  // blue
      pixels[offset + 3] = 255  // alpha: opaque
    }
  }
  // Throws ImageError.bufferLengthMismatch, naming both counts, unless
  // pixels.count == width * height * 4.
  return try RGBAImage(width: width, height: height, pixels: pixels)
}

/// A buffer in another layout, as a CoreGraphics or Cairo bitmap holds it: blue, green, red,
/// alpha, premultiplied, rows `bytesPerRow` apart.
func imageFromBitmap() throws -> RGBAImage {
  let bgra: [UInt8] = [
    0, 0, 128, 128, 255, 0, 0, 255,  // half-transparent red, opaque blue
    0, 0, 0, 0, 40, 40, 40, 64,  // transparent, quarter-opaque grey
  ]
  return try RGBAImage(
    width: 2, height: 2, bytesPerRow: 8, channelOrder: .bgra, alphaMode: .premultiplied,
    bytes: bgra)
}

final class RGBAImageTests: XCTestCase {
  func testDocSnippet_gradient_isRGBAFromTheBuffer() throws {
    let image = try renderGradient(width: 3, height: 2)
    XCTAssertEqual(image.size, ImageSize(width: 3, height: 2))
    XCTAssertEqual(image[0, 0], RGBAColor(red: 255, green: 0, blue: 0))
    XCTAssertEqual(image[1, 1], RGBAColor(red: 128, green: 0, blue: 127))
    XCTAssertEqual(image[2, 1], RGBAColor(red: 0, green: 0, blue: 255))
  }

  func testDocSnippet_bitmap_isConvertedToStraightRGBA() throws {
    let image = try imageFromBitmap()
    XCTAssertEqual(image[0, 0], RGBAColor(red: 255, green: 0, blue: 0, alpha: 128))
    XCTAssertEqual(image[1, 0], RGBAColor(red: 0, green: 0, blue: 255, alpha: 255))
    XCTAssertEqual(image[0, 1], .clear)
    XCTAssertEqual(image[1, 1], RGBAColor(red: 159, green: 159, blue: 159, alpha: 64))
  }

  /// The articles show this file's code, so what they show compiles and does what the tests
  /// above check.
  func testDocSnippet_isThisFilesCode() throws {
    let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let source = Self.lines(
      try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
    for article in [
      "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/WritingRenderTests.md",
      "Sources/ReferenceImageCore/ReferenceImageCore.docc/ComparingImagesYourself.md",
    ] {
      let text = try String(contentsOf: checkout.appendingPathComponent(article), encoding: .utf8)
      let start = try XCTUnwrap(
        text.range(of: "```swift\n/// Draws a gradient"), "\(article) shows the renderer")
      let end = try XCTUnwrap(text[start.upperBound...].range(of: "\n```"))
      let shown = Self.lines("/// Draws a gradient" + text[start.upperBound..<end.lowerBound])
      XCTAssertGreaterThan(shown.count, 20, article)
      XCTAssertTrue(
        source.joined(separator: "\n").contains(shown.joined(separator: "\n")),
        "\(article)'s block differs from the code at the top of this file")
    }
  }

  /// Lines without their indentation and without blank lines, to compare code at any depth.
  private static func lines(_ text: String) -> [String] {
    text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
      !$0.isEmpty
    }
  }

  func testInit_wrongBufferLength_throwsWithBothCounts() {
    XCTAssertThrowsError(
      try RGBAImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 15))
    ) {
      XCTAssertEqual($0 as? ImageError, .bufferLengthMismatch(expected: 16, actual: 15))
      XCTAssertEqual(
        "\($0)", "pixel buffer holds 15 bytes but the size needs 16 (width × height × 4)")
    }
  }

  func testInit_zeroOrAbsurdDimension_throws() {
    for (width, height) in [(0, 1), (1, 0), (-3, 2), (1 << 17, 1), (1 << 16, 1 << 16)] {
      XCTAssertThrowsError(try RGBAImage(width: width, height: height, color: .white)) {
        XCTAssertEqual($0 as? ImageError, .invalidSize(width: width, height: height))
      }
    }
  }

  func testSolidColor_fillsEveryPixel() throws {
    let color = RGBAColor(red: 1, green: 2, blue: 3, alpha: 4)
    let image = try RGBAImage(width: 3, height: 2, color: color)
    XCTAssertEqual(image.pixels, [UInt8](repeating: 0, count: 6).flatMap { _ in [1, 2, 3, 4] })
    XCTAssertEqual(image[2, 1], color)
  }

  func testSubscript_setsOnePixel() throws {
    var image = try RGBAImage(width: 2, height: 2, color: .black)
    image[1, 0] = .red
    XCTAssertEqual(Array(image.pixels[4..<8]), [255, 0, 0, 255])
    XCTAssertEqual(image[0, 0], .black)
  }

  func testLayout_cairoPremultipliedBGRAWithStride_convertsToStraightRGBA() throws {
    // Two pixels per row, stride of 12 bytes (4 bytes padding), two rows.
    // Pixel (0,0): half-transparent red premultiplied: B=0 G=0 R=128 A=128.
    // Pixel (1,0): opaque blue. Pixel (0,1): fully transparent. Pixel (1,1): 25% grey 40/64.
    let bytes: [UInt8] = [
      0, 0, 128, 128, 255, 0, 0, 255, 9, 9, 9, 9,
      0, 0, 0, 0, 40, 40, 40, 64, 9, 9, 9, 9,
    ]
    let image = try bytes.withUnsafeBytes {
      try RGBAImage(
        width: 2, height: 2, bytesPerRow: 12, channelOrder: .bgra, alphaMode: .premultiplied,
        bytes: $0)
    }
    XCTAssertEqual(image[0, 0], RGBAColor(red: 255, green: 0, blue: 0, alpha: 128))
    XCTAssertEqual(image[1, 0], RGBAColor(red: 0, green: 0, blue: 255, alpha: 255))
    XCTAssertEqual(image[0, 1], RGBAColor(red: 0, green: 0, blue: 0, alpha: 0))
    XCTAssertEqual(image[1, 1], RGBAColor(red: 159, green: 159, blue: 159, alpha: 64))
  }

  func testLayout_argbStraight_reordersChannels() throws {
    let bytes: [UInt8] = [200, 10, 20, 30]
    let image = try bytes.withUnsafeBytes {
      try RGBAImage(
        width: 1, height: 1, bytesPerRow: 4, channelOrder: .argb, alphaMode: .straight, bytes: $0)
    }
    XCTAssertEqual(image[0, 0], RGBAColor(red: 10, green: 20, blue: 30, alpha: 200))
  }

  func testLayout_fromAnArray_sameAsFromItsBytes() throws {
    let bytes: [UInt8] = (0..<36).map { UInt8($0 * 7) }
    let fromArray = try RGBAImage(
      width: 2, height: 3, bytesPerRow: 12, channelOrder: .abgr, alphaMode: .premultiplied,
      bytes: bytes)
    let fromPointer = try bytes.withUnsafeBytes {
      try RGBAImage(
        width: 2, height: 3, bytesPerRow: 12, channelOrder: .abgr, alphaMode: .premultiplied,
        bytes: $0)
    }
    XCTAssertEqual(fromArray, fromPointer)
    XCTAssertThrowsError(
      try RGBAImage(
        width: 2, height: 3, bytesPerRow: 12, channelOrder: .rgba, alphaMode: .straight,
        bytes: Array(bytes.prefix(31)))
    ) {
      XCTAssertEqual($0 as? ImageError, .bufferLengthMismatch(expected: 32, actual: 31))
    }
  }

  func testLayout_bufferShorterThanStrideNeeds_throws() {
    let bytes = [UInt8](repeating: 0, count: 20)
    XCTAssertThrowsError(
      try bytes.withUnsafeBytes {
        try RGBAImage(
          width: 2, height: 2, bytesPerRow: 16, channelOrder: .rgba, alphaMode: .straight,
          bytes: $0)
      })
  }
}
