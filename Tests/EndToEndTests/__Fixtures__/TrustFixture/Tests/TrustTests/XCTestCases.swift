import Foundation
import ReferenceImageTesting
import XCTest

func square(_ shade: UInt8) -> RGBAImage {
  try! RGBAImage(width: 8, height: 8, color: RGBAColor(red: shade, green: 0, blue: 255 - shade))
}

final class KeptTests: XCTestCase {
  func testDrawn() { assertImage(square(10), named: "drawn") }

  func testSometimesSkipped() throws {
    try XCTSkipIf(ProcessInfo.processInfo.environment["TRUST_SKIP"] == "1", "not on this machine")
    assertImage(square(20), named: "sometimes")
  }

  /// Names people write in their own languages, with a decomposed é (e + U+0301).
  func testNamesInOtherScripts() {
    assertImage(square(30), named: "cafe\u{301}/日本語-русский-עברית-😀")
  }
}

/// A render that differs on every run: 128 random bits in its first pixels.
final class ClockTests: XCTestCase {
  func testRandomRender() throws {
    var pixels = square(40).pixels
    let bytes = withUnsafeBytes(of: UUID().uuid) { Array($0) }
    for (index, byte) in bytes.enumerated() { pixels[index * 4] = byte }
    let image = try RGBAImage(width: 8, height: 8, pixels: pixels)
    assertImage(image, named: "random")
  }
}
