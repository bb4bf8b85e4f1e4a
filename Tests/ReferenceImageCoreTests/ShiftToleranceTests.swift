import ReferenceImageCore
import XCTest

/// Shift tolerance accepts a pixel that matches a pixel of the other image nearby, both ways,
/// and says how many only matched shifted.
final class ShiftToleranceTests: XCTestCase {
  private let white = RGBAColor(red: 255, green: 255, blue: 255)
  private let ink = RGBAColor(red: 20, green: 30, blue: 40)

  /// A white 40×30 image with "text": a few strokes of ink, offset by (dx, dy).
  private func text(dx: Int = 0, dy: Int = 0, ink: RGBAColor? = nil) throws -> RGBAImage {
    var image = try RGBAImage(width: 40, height: 30, color: white)
    let ink = ink ?? self.ink
    for x in 5..<30 { image[x + dx, 8 + dy] = ink }
    for y in 8..<20 { image[12 + dx, y + dy] = ink }
    for x in 18..<24 { for y in 14..<16 { image[x + dx, y + dy] = ink } }
    return image
  }

  func testTextMovedByOnePixel_passesWithShiftToleranceOne_andSaysHowManyShifted() throws {
    let reference = try text()
    let image = try text(dx: 1, dy: 1)
    let plain = ImageComparison.exact.compare(image, to: reference)
    XCTAssertFalse(plain.passed)
    let changed = try XCTUnwrap(plain.differences?.differingPixelCount)
    let result = ImageComparison.exact.shiftTolerance(1).compare(image, to: reference)
    XCTAssertTrue(result.passed, "\(result)")
    let found = try XCTUnwrap(result.differences)
    XCTAssertEqual(found.differingPixelCount, 0)
    XCTAssertEqual(found.shiftedPixelCount, changed)
    XCTAssertEqual(found.toleratedPixelCount, changed)
    XCTAssertTrue(
      result.description.hasSuffix(
        "; \(changed) more differ but only matched shifted by at most 1 pixel (shift tolerance)"),
      result.description)
  }

  func testMovedFurtherThanTheTolerance_fails_andAnotherToleranceFindsIt() throws {
    let reference = try text()
    let image = try text(dx: 2)
    XCTAssertFalse(ImageComparison.exact.shiftTolerance(1).compare(image, to: reference).passed)
    XCTAssertTrue(ImageComparison.exact.shiftTolerance(2).compare(image, to: reference).passed)
    XCTAssertEqual(ImageComparison.exact.shiftTolerance(9).maximumShift, 3, "clamped")
  }

  func testVanishedStroke_stillDiffers_becauseBothWaysMustMatch() throws {
    let reference = try text()
    var image = reference
    for y in 8..<20 { image[12, y] = white }
    image[12, 8] = ink  // the crossing with the horizontal stroke stays
    let result = ImageComparison.exact.shiftTolerance(1).compare(image, to: reference)
    // The white render pixels find white next to them in the reference, but the reference's
    // ink finds no ink next to it in the render, except where the stroke meets another.
    let found = try XCTUnwrap(result.differences)
    XCTAssertFalse(result.passed)
    XCTAssertEqual(found.differingPixelCount + found.shiftedPixelCount, 11)
    XCTAssertGreaterThanOrEqual(found.differingPixelCount, 9)
  }

  func testMatchingUsesTheStrategysOwnRule() throws {
    let reference = try text()
    // Moved and slightly recoloured: exact never matches, a tolerance of 5 and perceptual do.
    let image = try text(dx: 1, ink: RGBAColor(red: 23, green: 30, blue: 40))
    XCTAssertFalse(ImageComparison.exact.shiftTolerance(1).compare(image, to: reference).passed)
    XCTAssertTrue(
      ImageComparison.tolerance(5).shiftTolerance(1).compare(image, to: reference).passed)
    XCTAssertFalse(
      ImageComparison.tolerance(2).shiftTolerance(1).compare(image, to: reference).passed)
    let perceptual = ImageComparison.perceptual(includeAntiAliasing: true).shiftTolerance(1)
    XCTAssertTrue(perceptual.compare(image, to: reference).passed)
  }

  func testNoShiftTolerance_countsAsBefore_andBandsDoNotChangeAResult() throws {
    let reference = try text()
    let image = try text(dx: 1, dy: -1)
    for strategy in [ImageComparison.exact, .tolerance(3), .perceptual()] {
      XCTAssertEqual(
        strategy.shiftTolerance(0).compare(image, to: reference),
        strategy.compare(image, to: reference))
      let shifted = strategy.shiftTolerance(1)
      let whole = shifted.compare(image, to: reference, bound: .none, bands: 1)
      for bands in [2, 7, 30] {
        XCTAssertEqual(shifted.compare(image, to: reference, bound: .none, bands: bands), whole)
      }
    }
  }

  func testDifferenceImage_paintsShiftedPixelsTeal() throws {
    let reference = try text()
    let image = try text(dx: 1)
    let (result, difference) = ImageComparison.exact.shiftTolerance(1)
      .compareWithDifferenceImage(image, to: reference, bound: .none)
    var teal = 0
    for y in 0..<30 {
      for x in 0..<40 where difference[x, y] == RGBAColor(red: 0, green: 128, blue: 128) {
        teal += 1
      }
    }
    XCTAssertEqual(teal, result.differences?.shiftedPixelCount)
    XCTAssertGreaterThan(teal, 0)
  }

  func testShiftAndRegionsTogether() throws {
    let reference = try text()
    var image = try text(dx: 1)
    image[38, 28] = ink
    let comparison = ImageComparison.exact.shiftTolerance(1)
    XCTAssertFalse(comparison.compare(image, to: reference).passed)
    let masked = comparison.ignoring([IgnoredRegion(x: 35, y: 25, width: 5, height: 5)])
    XCTAssertTrue(masked.compare(image, to: reference).passed)
  }
}
