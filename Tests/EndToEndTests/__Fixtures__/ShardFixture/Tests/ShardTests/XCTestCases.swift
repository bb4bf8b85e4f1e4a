import Foundation
import ReferenceImageTesting
import XCTest

func square(_ shade: UInt8) -> RGBAImage {
  var image = try! RGBAImage(
    width: 8, height: 8, color: RGBAColor(red: shade, green: 0, blue: 255 - shade))
  // Another platform's renders, as IMAGE_REFERENCE_VARIANT stands for one: on linux-arm64 the
  // first square's stroke falls a pixel lower, on linux the third's colour rounds up by one.
  let variant = ProcessInfo.processInfo.environment["IMAGE_REFERENCE_VARIANT"]
  if variant == "linux-arm64" && shade == 10 {
    for x in 0..<8 { image[x, 7] = RGBAColor(red: 0, green: 0, blue: 0) }
  }
  if variant == "linux" && shade == 30 {
    image = try! RGBAImage(
      width: 8, height: 8, color: RGBAColor(red: shade + 1, green: 0, blue: 255 - shade))
  }
  return image
}

final class AlphaTests: XCTestCase {
  func testA() { assertImage(square(10), named: "alpha-a") }
  func testB() { assertImage(square(20), named: "alpha-b") }
  func testNoImage() { XCTAssertEqual(1 + 1, 2) }
}

// Its name starts with "AlphaTests": an unanchored filter for AlphaTests selects it too.
final class AlphaTestsExtra: XCTestCase {
  func testA() { assertImage(square(30), named: "extra-a") }
}

final class SlowTests: XCTestCase {
  func testSlow() {
    Thread.sleep(forTimeInterval: 0.5)
    assertImage(square(40), named: "slow")
  }

  func testQuickNoImage() {}
}
