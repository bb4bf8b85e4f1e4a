import ReferenceImageTesting
import XCTest

final class SlowPlotTests: XCTestCase {
  func testHeavy() { assertImage(swatch(70, after: 0.9), named: "heavy") }
  func testMedium() { assertImage(labelledSwatch(80, after: 0.6), named: "medium") }
}
