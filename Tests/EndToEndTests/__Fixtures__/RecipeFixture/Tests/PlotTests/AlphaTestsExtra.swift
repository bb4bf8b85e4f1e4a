import ReferenceImageTesting
import XCTest

final class AlphaTestsExtra: XCTestCase {
  func testA() { assertImage(swatch(50, after: 0.2), named: "a") }
  func testB() { assertImage(swatch(60), named: "b") }
}
