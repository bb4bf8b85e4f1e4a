import ChartRenderer
import XCTest

final class AxisScaleTests: XCTestCase {
  func testTicks_roundStepsCoveringTheData() {
    let scale = AxisScale(covering: [12, 19, 7, 23])
    XCTAssertEqual(scale.ticks, [0, 5, 10, 15, 20, 25])
    XCTAssertEqual(scale.label(for: 15), "15")
  }

  func testTicks_fractionalAndNegative() {
    let scale = AxisScale(covering: [1.8, -0.6, 2.4])
    XCTAssertEqual(scale.step, 1)
    XCTAssertEqual(scale.lowerBound, -1)
    XCTAssertEqual(scale.upperBound, 3)
    XCTAssertEqual(AxisScale(covering: [0.03, 0.11]).label(for: 0.06), "0.06")
  }

  func testFormat_fixedDecimalsWithoutLocale() {
    XCTAssertEqual(AxisScale.format(1234.5, fractionDigits: 2), "1234.50")
    XCTAssertEqual(AxisScale.format(-0.04, fractionDigits: 1), "0.0")
    XCTAssertEqual(AxisScale.format(-2.25, fractionDigits: 1), "-2.3")
    XCTAssertEqual(AxisScale.format(.nan, fractionDigits: 1), "?")
  }
}
