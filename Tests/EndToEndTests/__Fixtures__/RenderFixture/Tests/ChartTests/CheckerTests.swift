import ReferenceImageTesting
import Shapes
import XCTest

final class CheckerTests: XCTestCase {
  func testSmallCells() {
    assertImage(Shapes.checker(size: 64, cell: 4), named: "small-cells")
  }

  func testLargeCells() {
    assertImage(Shapes.checker(size: 64, cell: 16), named: "large-cells")
  }
}
