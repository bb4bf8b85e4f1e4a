import ReferenceImageCore
import XCTest

@testable import ReferenceImageTesting

/// The closing line of a run whose comparisons passed only within tolerance.
final class ToleranceDriftTests: XCTestCase {
  private func result(_ comparison: ImageComparison, changed: Int, level: UInt8 = 1) throws
    -> ReferenceImageCore.ComparisonResult
  {
    let reference = try RGBAImage(
      width: 100, height: 10, color: RGBAColor(red: 9, green: 9, blue: 9))
    var image = reference
    for x in 0..<changed { image[x, 0] = RGBAColor(red: 9 + level, green: 9, blue: 9) }
    return comparison.compare(image, to: reference, bound: .maximumDifferingPixels(3))
  }

  func testClosingLine_countsThePasses_andNamesTheLargestShare() throws {
    var drift = ToleranceDrift()
    XCTAssertNil(drift.closingLine, "nothing tolerated, nothing said")
    drift.passes += [
      try XCTUnwrap(
        ToleranceDrift.Pass(path: "a.png", result: try result(.tolerance(2), changed: 5))),
      try XCTUnwrap(
        ToleranceDrift.Pass(path: "b.png", result: try result(.tolerance(2), changed: 21))),
      // Within the bound of 3 differing pixels: tolerated by the bound.
      try XCTUnwrap(ToleranceDrift.Pass(path: "c.png", result: try result(.exact, changed: 2))),
    ]
    XCTAssertEqual(
      drift.closingLine,
      "ReferenceImages: 3 references pass only within tolerance; largest 2.1% of pixels "
        + "tolerated, b.png")
  }

  func testIdenticalFailingAndIgnoredOnly_areNotDrift() throws {
    XCTAssertNil(ToleranceDrift.Pass(path: "x.png", result: try result(.exact, changed: 0)))
    XCTAssertNil(ToleranceDrift.Pass(path: "x.png", result: try result(.exact, changed: 9)))
    let ignored = ImageComparison.exact.ignoring([IgnoredRegion(x: 0, y: 0, width: 50, height: 1)])
    XCTAssertNil(ToleranceDrift.Pass(path: "x.png", result: try result(ignored, changed: 40)))
  }

  func testPercent_keepsTwoDigitsOfSmallShares() {
    XCTAssertEqual(ToleranceDrift.percent(0.021), "2.1%")
    XCTAssertEqual(ToleranceDrift.percent(1), "100.0%")
    XCTAssertEqual(ToleranceDrift.percent(1.0 / 4_000_000), "0.000025%")
  }
}
