import ReferenceImageCore
import XCTest

/// Ignored regions take their pixels out of every strategy's count, the bound's denominator and
/// the difference image, whatever the number of bands.
final class IgnoredRegionTests: XCTestCase {
  private let grey = RGBAColor(red: 100, green: 100, blue: 100)
  private let strategies: [ImageComparison] = [
    .exact, .tolerance(2), .perceptual(), .perceptual(threshold: 0.05, includeAntiAliasing: true),
  ]

  /// A 64×48 grey image with scattered changed pixels, some inside (20…39, 10…29) and some
  /// outside, with differences from 1 (tolerated by some strategies) to 150.
  private func pair() throws -> (image: RGBAImage, reference: RGBAImage) {
    let reference = try RGBAImage(width: 64, height: 48, color: grey)
    var image = reference
    var state: UInt64 = 7
    for _ in 0..<400 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let x = Int(state >> 33) % 64
      let y = Int(state >> 17) % 48
      let level = UInt8(100 + Int(state >> 50) % 150)
      image[x, y] = RGBAColor(red: level, green: 100, blue: 100)
    }
    return (image, reference)
  }

  private let region = IgnoredRegion(x: 20, y: 10, width: 20, height: 20)

  private func inside(_ x: Int, _ y: Int) -> Bool {
    (20..<40).contains(x) && (10..<30).contains(y)
  }

  /// Red pixels of a difference image outside the region: what the unmasked comparison
  /// counts there.
  private func countedOutsideRegion(_ difference: RGBAImage) -> Int {
    var count = 0
    for y in 0..<difference.height {
      for x in 0..<difference.width where !inside(x, y) {
        if difference[x, y] == RGBAColor(red: 255, green: 0, blue: 0) { count += 1 }
      }
    }
    return count
  }

  func testEveryStrategy_countsOnlyOutsideTheRegion_asTheUnmaskedComparisonDoesThere() throws {
    let (image, reference) = try pair()
    for strategy in strategies {
      let plain = strategy.differenceImage(image, reference)
      let masked = strategy.ignoring([region])
      let found = try XCTUnwrap(masked.compare(image, to: reference).differences, strategy.name)
      XCTAssertEqual(found.differingPixelCount, countedOutsideRegion(plain), strategy.name)
      XCTAssertEqual(found.totalPixelCount, 64 * 48 - 400, strategy.name)
      XCTAssertEqual(found.ignoredPixelCount, 400, strategy.name)
      if let box = found.boundingBox {
        let corners = [(box.minX, box.minY), (box.maxX, box.maxY)]
        XCTAssertFalse(corners.allSatisfy { inside($0.0, $0.1) }, strategy.name)
      }
      for bands in [1, 3, 48] {
        XCTAssertEqual(
          masked.compare(image, to: reference, bound: .none, bands: bands),
          masked.compare(
            image, to: reference), "\(strategy.name), \(bands) bands")
      }
    }
  }

  func testChangesOnlyInsideTheRegion_pass() throws {
    let reference = try RGBAImage(width: 64, height: 48, color: grey)
    var image = reference
    for y in 12..<20 { for x in 22..<38 { image[x, y] = RGBAColor(red: 0, green: 0, blue: 0) } }
    for strategy in strategies {
      XCTAssertFalse(strategy.compare(image, to: reference).passed, strategy.name)
      let result = strategy.ignoring([region]).compare(image, to: reference)
      XCTAssertTrue(result.passed, "\(strategy.name): \(result)")
      XCTAssertEqual(result.differences?.differingPixelCount, 0)
      XCTAssertEqual(result.differences?.toleratedPixelCount, 0)
    }
  }

  func testRequiredAccuracy_isAFractionOfTheComparedPixels() throws {
    // 100×100 with the left half ignored: 5,000 compared pixels, so 0.999 allows 5, not 10.
    let reference = try RGBAImage(width: 100, height: 100, color: grey)
    var image = reference
    for x in 60..<67 { image[x, 50] = RGBAColor(red: 0, green: 0, blue: 0) }
    let bound = DifferenceBound.requiredAccuracy(0.999)
    let plain = ImageComparison.exact.compare(image, to: reference, bound: bound)
    XCTAssertTrue(plain.passed)
    XCTAssertEqual(plain.allowedDifferingPixels, 10)
    let masked = ImageComparison.exact.ignoring([IgnoredRegion(x: 0, y: 0, width: 50, height: 100)])
      .compare(image, to: reference, bound: bound)
    XCTAssertFalse(masked.passed)
    XCTAssertEqual(masked.allowedDifferingPixels, 5)
    XCTAssertEqual(
      masked.description,
      "7 of 5,000 compared pixels differ in any channel (allowed: 5, requiredAccuracy 0.999), "
        + "largest channel difference 100, within x 60…66, y 50…50; 5,000 pixels in 1 ignored "
        + "region were not compared")
    let identical = ImageComparison.exact.ignoring([
      IgnoredRegion(x: 0, y: 0, width: 50, height: 100)
    ])
    .compare(reference, to: reference, bound: bound)
    XCTAssertEqual(identical.allowedDifferingPixels, 5, "identical images keep the same bound")
  }

  func testRegions_areClippedAndCountedOnce() throws {
    let reference = try RGBAImage(width: 10, height: 10, color: grey)
    var image = reference
    image[9, 9] = RGBAColor(red: 0, green: 0, blue: 0)
    image[0, 0] = RGBAColor(red: 0, green: 0, blue: 0)
    let regions = [
      IgnoredRegion(x: 5, y: 5, width: 100, height: 100),  // 5×5 inside the image
      IgnoredRegion(x: 6, y: 6, width: 2, height: 2),  // inside the first
      IgnoredRegion(x: -3, y: -3, width: 4, height: 4),  // only (0, 0) is inside
      IgnoredRegion(x: 2, y: 2, width: 0, height: 5),  // empty
      IgnoredRegion(x: 3, y: 3, width: -2, height: 5),  // negative: empty
      IgnoredRegion(x: Int.max - 1, y: 0, width: Int.max, height: 1),  // outside, no overflow
    ]
    let result = ImageComparison.exact.ignoring(regions).compare(image, to: reference)
    XCTAssertTrue(result.passed, "\(result)")
    XCTAssertEqual(result.differences?.ignoredPixelCount, 26)
    XCTAssertEqual(result.differences?.totalPixelCount, 74)
    let outside = ImageComparison.exact.ignoring([IgnoredRegion(x: 20, y: 0, width: 5, height: 5)])
    XCTAssertEqual(
      outside.compare(image, to: reference).outcome,
      ImageComparison.exact.compare(image, to: reference).outcome,
      "a region outside the image changes nothing")
  }

  func testDifferenceImage_drawsIgnoredPixelsInBlue_andCountsAsTheComparison() throws {
    let (image, reference) = try pair()
    let masked = ImageComparison.exact.ignoring([region])
    let (result, difference) = masked.compareWithDifferenceImage(image, to: reference, bound: .none)
    XCTAssertEqual(result, masked.compare(image, to: reference))
    // The reference's grey 100 dims to 25; an ignored pixel is blue 64 + 25.
    let blue = RGBAColor(red: 0, green: 0, blue: 89)
    var red = 0
    for y in 0..<48 {
      for x in 0..<64 {
        if inside(x, y) {
          XCTAssertEqual(difference[x, y], blue, "(\(x), \(y)) is ignored")
        } else if difference[x, y] == RGBAColor(red: 255, green: 0, blue: 0) {
          red += 1
        }
      }
    }
    XCTAssertEqual(red, result.differences?.differingPixelCount)
    let identical = masked.differenceImage(reference, reference)
    XCTAssertEqual(identical[30, 20], blue, "identical images show the region too")
    XCTAssertEqual(identical[0, 0], RGBAColor(red: 25, green: 25, blue: 25))
  }

  func testName_saysWhatIsIgnored() {
    XCTAssertEqual(ImageComparison.exact.ignoring([region]).name, "exact, ignoring 1 region")
    XCTAssertEqual(
      ImageComparison.perceptual().ignoring([region, region]).shiftTolerance(1).name,
      "perceptual (threshold 0.1), ignoring 2 regions, shift tolerance 1")
    XCTAssertEqual(ImageComparison.exact.ignoring([]).name, "exact")
  }
}
