import XCTest

final class WarmSwatchTests: XCTestCase {
  func testWarm() { assertSwatches(0..<13) }
}

final class CoolSwatchTests: XCTestCase {
  func testCool() { assertSwatches(13..<26) }
}

final class DarkSwatchTests: XCTestCase {
  func testDark() { assertSwatches(26..<39) }
}

final class PaleSwatchTests: XCTestCase {
  func testPale() { assertSwatches(39..<52) }
}

/// A test that compares no image: a pull request can break it alone.
final class LegendTests: XCTestCase {
  func testLegend() { XCTAssertNil(changedSwatches[99], "the legend has no swatch 99") }
}
