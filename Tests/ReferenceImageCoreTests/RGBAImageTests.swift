import ReferenceImageCore
import XCTest

final class RGBAImageTests: XCTestCase {
  func testInit_wrongBufferLength_throwsWithBothCounts() {
    XCTAssertThrowsError(
      try RGBAImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 15))
    ) {
      XCTAssertEqual($0 as? ImageError, .bufferLengthMismatch(expected: 16, actual: 15))
      XCTAssertTrue("\($0)".contains("15 bytes"))
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
