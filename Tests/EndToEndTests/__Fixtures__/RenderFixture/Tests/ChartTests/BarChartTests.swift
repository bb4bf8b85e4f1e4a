import ReferenceImageTesting
import Shapes
import XCTest

final class BarChartTests: XCTestCase {
  func testBars() {
    assertImage(
      Shapes.bars([20, 40, 30, 55]), named: "bars", comparison: .perceptual(threshold: 0.1),
      requiredAccuracy: 0.999)
  }

  func testFlatBars() {
    assertImage(Shapes.bars([10, 10, 10]), named: "flat-bars")
    FixtureCrash.afterStoring()
  }
}
