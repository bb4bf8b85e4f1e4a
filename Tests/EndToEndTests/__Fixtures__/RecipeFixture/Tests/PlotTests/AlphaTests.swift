import ReferenceImageTesting
import XCTest

// `AlphaTests` is a prefix of `AlphaTestsExtra`: a filter on the class name selects both.
final class AlphaTests: XCTestCase {
  func testA() { assertImage(swatch(10, after: 0.05), named: "a") }
  func testB() { assertImage(labelledSwatch(20, after: 0.3), named: "b") }
  func testC() { assertImage(swatch(30), named: "c") }
  func testD() { assertImage(swatch(40, after: 0.1), named: "d") }
}
