import Foundation
import ReferenceImageTesting
import XCTest

func square(_ shade: UInt8) -> RGBAImage {
  try! RGBAImage(width: 8, height: 8, color: RGBAColor(red: shade, green: 0, blue: 255 - shade))
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
