import ReferenceImageCore
import XCTest

final class ImageComparisonTests: XCTestCase {
  private let grey = RGBAColor(red: 100, green: 100, blue: 100)

  // MARK: Exact

  func testExact_identicalImages_areIdentical() throws {
    let image = try RGBAImage(width: 5, height: 3, color: grey)
    let copy = try RGBAImage(width: 5, height: 3, pixels: image.pixels)
    for other in [image, copy] {
      let result = ImageComparison.exact.compare(other, to: image)
      XCTAssertEqual(result.outcome, .identical)
      XCTAssertTrue(result.passed)
      XCTAssertNil(result.differences)
      XCTAssertEqual(result.description, "image is identical to reference")
    }
  }

  func testExact_onePixelChanged_differsWithItsNumbers() throws {
    let reference = try RGBAImage(width: 9, height: 4, color: grey)
    var image = reference
    image[7, 2] = RGBAColor(red: 100, green: 130, blue: 90)
    let result = ImageComparison.exact.compare(image, to: reference)
    XCTAssertFalse(result.passed)
    XCTAssertEqual(
      result.outcome,
      .differs(
        PixelDifferences(
          differingPixelCount: 1, totalPixelCount: 36, largestChannelDifference: 30,
          boundingBox: PixelBox(minX: 7, minY: 2, maxX: 7, maxY: 2))))
    XCTAssertEqual(result.allowedDifferingPixels, 0)
  }

  func testExact_alphaOnlyDifference_counts() throws {
    let reference = try RGBAImage(width: 2, height: 2, color: grey)
    var image = reference
    image[1, 1] = RGBAColor(red: 100, green: 100, blue: 100, alpha: 254)
    let found = try XCTUnwrap(ImageComparison.exact.compare(image, to: reference).differences)
    XCTAssertEqual(found.differingPixelCount, 1)
    XCTAssertEqual(found.largestChannelDifference, 1)
  }

  func testDescription_matchesDocumentedSentence() throws {
    // 500 × 500 = 250000 pixels, 37 of them differ inside x 10…58, y 4…19, the largest channel
    // difference is 212 (red 20 → 232), and 25 are allowed.
    let reference = try RGBAImage(
      width: 500, height: 500, color: RGBAColor(red: 20, green: 0, blue: 0))
    var image = reference
    var changed = [(10, 4), (58, 19), (10, 19), (58, 4)]
    for index in 0..<33 { changed.append((11 + index, 5 + index % 14)) }
    for (number, (x, y)) in changed.enumerated() {
      image[x, y] = RGBAColor(red: number == 0 ? 232 : 120, green: 0, blue: 0)
    }
    let result = ImageComparison.exact.compare(
      image, to: reference, bound: .maximumDifferingPixels(25))
    XCTAssertEqual(
      result.description,
      "37 of 250,000 pixels differ in any channel (allowed: 25), largest channel difference "
        + "212, within x 10…58, y 4…19")
    XCTAssertFalse(result.passed)
  }

  // MARK: Tolerance

  func testTolerance_boundaryIsInclusive() throws {
    let reference = try RGBAImage(width: 4, height: 1, color: grey)
    var image = reference
    image[0, 0] = RGBAColor(red: 105, green: 100, blue: 100)  // 5: tolerated
    image[1, 0] = RGBAColor(red: 100, green: 94, blue: 100)  // 6: differs
    image[2, 0] = RGBAColor(red: 100, green: 100, blue: 100, alpha: 248)  // alpha 7: differs
    let result = ImageComparison.tolerance(5).compare(image, to: reference)
    let found = try XCTUnwrap(result.differences)
    XCTAssertEqual(found.differingPixelCount, 2)
    XCTAssertEqual(found.toleratedPixelCount, 1)
    XCTAssertEqual(found.largestChannelDifference, 7)
    XCTAssertEqual(found.boundingBox, PixelBox(minX: 1, minY: 0, maxX: 2, maxY: 0))
    XCTAssertEqual(
      result.description,
      "2 of 4 pixels differ by more than 5 in a channel (allowed: 0), largest channel "
        + "difference 7, within x 1…2, y 0…0; 1 more differs by at most 5 in every channel and "
        + "was tolerated")
  }

  func testTolerance_allWithinTolerance_passesWithNoBox() throws {
    let reference = try RGBAImage(width: 3, height: 3, color: grey)
    var image = reference
    image[2, 2] = RGBAColor(red: 103, green: 97, blue: 100)
    let result = ImageComparison.tolerance(3).compare(image, to: reference)
    XCTAssertTrue(result.passed)
    XCTAssertEqual(
      result.outcome,
      .withinBound(
        PixelDifferences(
          differingPixelCount: 0, toleratedPixelCount: 1, totalPixelCount: 9,
          largestChannelDifference: 3, boundingBox: nil)))
  }

  func testTolerance_outOfRangeValues_areClamped() throws {
    let reference = try RGBAImage(width: 1, height: 1, color: .black)
    let image = try RGBAImage(width: 1, height: 1, color: .white)
    XCTAssertTrue(ImageComparison.tolerance(1000).compare(image, to: reference).passed)
    XCTAssertEqual(ImageComparison.tolerance(1000).name, "tolerance 255")
    let slightly = try RGBAImage(width: 1, height: 1, color: RGBAColor(red: 0, green: 0, blue: 1))
    XCTAssertFalse(ImageComparison.tolerance(-4).compare(slightly, to: reference).passed)
  }

  // MARK: Against a naive oracle

  func testExactAndTolerance_randomChanges_matchNaiveCount() throws {
    var generator = SplitMix64(seed: 2024)
    // Sizes around the 8-pixel blocks of the scan: tails of 0...7 pixels, single rows and columns.
    let sizes = [(1, 1), (7, 1), (8, 1), (9, 1), (1, 17), (5, 5), (13, 7), (64, 3), (33, 17)]
    for (width, height) in sizes {
      for trial in 0..<12 {
        let reference = try RGBAImage(width: width, height: height, color: grey)
        var image = reference
        let changes = Int.random(in: 0...(width * height), using: &generator)
        for _ in 0..<changes {
          let x = Int.random(in: 0..<width, using: &generator)
          let y = Int.random(in: 0..<height, using: &generator)
          var color = image[x, y]
          let amount = UInt8.random(in: 0...60, using: &generator)
          switch Int.random(in: 0..<4, using: &generator) {
          case 0: color.red = 100 + amount
          case 1: color.green = 100 - amount
          case 2: color.blue = 100 + amount / 2
          default: color.alpha = 255 - amount
          }
          image[x, y] = color
        }
        for tolerance in [0, 10, 40] {
          let expected = Self.naive(image, reference, tolerance: tolerance)
          let strategy = tolerance == 0 ? ImageComparison.exact : .tolerance(tolerance)
          let result = strategy.compare(image, to: reference)
          let label = "\(width)×\(height) trial \(trial) tolerance \(tolerance)"
          if expected.differing == 0 && expected.tolerated == 0 {
            XCTAssertEqual(result.outcome, .identical, label)
            continue
          }
          let found = try XCTUnwrap(result.differences, label)
          XCTAssertEqual(found.differingPixelCount, expected.differing, label)
          XCTAssertEqual(found.toleratedPixelCount, expected.tolerated, label)
          XCTAssertEqual(found.largestChannelDifference, expected.largest, label)
          XCTAssertEqual(found.boundingBox, expected.box, label)
          XCTAssertEqual(found.totalPixelCount, width * height, label)
        }
      }
    }
  }

  // MARK: Bounds

  func testBound_maximumDifferingPixels_passesUpToTheCount() throws {
    let reference = try RGBAImage(width: 10, height: 10, color: grey)
    var image = reference
    for x in 0..<3 { image[x, 0] = .black }
    XCTAssertFalse(
      ImageComparison.exact.compare(image, to: reference, bound: .maximumDifferingPixels(2)).passed)
    let within = ImageComparison.exact.compare(
      image, to: reference, bound: .maximumDifferingPixels(3))
    XCTAssertTrue(within.passed)
    guard case .withinBound(let found) = within.outcome else {
      return XCTFail("expected withinBound, got \(within.outcome)")
    }
    XCTAssertEqual(found.differingPixelCount, 3)
    XCTAssertEqual(within.allowedDifferingPixels, 3)
    XCTAssertTrue(within.description.contains("(allowed: 3)"), within.description)
  }

  func testBound_requiredAccuracy_roundsToWholePixels() {
    let cases: [(Double, Int, Int)] = [
      (0.999, 1000, 1), (0.999, 1999, 1), (0.999, 2000, 2), (1, 1000, 0), (0, 7, 7),
      (0.9, 10, 1), (0.5, 3, 1), (0.99, 250_000, 2500), (0.95, 20, 1), (0.7, 10, 3),
      (1.5, 100, 0), (-1, 100, 100),
      // Large images: the representation error of 0.9999 grows with the count.
      (0.9999, 100_000_000, 10_000), (0.9995, 100_000_000, 50_000), (0.93, 100_000_000, 7_000_000),
    ]
    for (accuracy, total, allowed) in cases {
      XCTAssertEqual(
        DifferenceBound.requiredAccuracy(accuracy).allowedDifferingPixels(totalPixelCount: total),
        allowed, "accuracy \(accuracy) of \(total)")
    }
    XCTAssertEqual(
      DifferenceBound.maximumDifferingPixels(-3).allowedDifferingPixels(totalPixelCount: 9), 0)
    XCTAssertEqual(DifferenceBound.none.allowedDifferingPixels(totalPixelCount: 1_000_000), 0)
  }

  func testBound_requiredAccuracy_appliesInCompare() throws {
    let reference = try RGBAImage(width: 100, height: 10, color: grey)
    var image = reference
    image[3, 3] = .white
    XCTAssertTrue(
      ImageComparison.exact.compare(image, to: reference, bound: .requiredAccuracy(0.999)).passed)
    image[4, 4] = .white
    let result = ImageComparison.exact.compare(
      image, to: reference, bound: .requiredAccuracy(0.999))
    XCTAssertFalse(result.passed)
    XCTAssertEqual(result.allowedDifferingPixels, 1)
    XCTAssertEqual(result.bound, .requiredAccuracy(0.999))
    XCTAssertEqual(
      result.description,
      "2 of 1,000 pixels differ in any channel (allowed: 1, requiredAccuracy 0.999), largest "
        + "channel difference 155, within x 3…4, y 3…4")
  }

  // MARK: Size mismatch

  func testCompare_sizeMismatch_failsNamingBothSizes() throws {
    let image = try RGBAImage(width: 3, height: 2, color: grey)
    let reference = try RGBAImage(width: 2, height: 3, color: grey)
    for strategy in [ImageComparison.exact, .tolerance(255), .perceptual(threshold: 1)] {
      let result = strategy.compare(image, to: reference, bound: .maximumDifferingPixels(100))
      XCTAssertEqual(
        result.outcome,
        .sizeMismatch(
          actual: ImageSize(width: 3, height: 2), reference: ImageSize(width: 2, height: 3)))
      XCTAssertFalse(result.passed)
      XCTAssertNil(result.differences)
      XCTAssertEqual(result.description, "image size 3×2 differs from reference size 2×3")
    }
  }

  // MARK: Helpers

  /// The straightforward per-pixel loop the strategies must agree with.
  static func naive(_ image: RGBAImage, _ reference: RGBAImage, tolerance: Int) -> (
    differing: Int, tolerated: Int, largest: Int, box: PixelBox?
  ) {
    var differing = 0
    var tolerated = 0
    var largest = 0
    var box: PixelBox?
    for y in 0..<image.height {
      for x in 0..<image.width {
        let a = image[x, y]
        let b = reference[x, y]
        let difference = [
          abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)),
          abs(Int(a.blue) - Int(b.blue)), abs(Int(a.alpha) - Int(b.alpha)),
        ].max()!
        guard difference > 0 else { continue }
        largest = max(largest, difference)
        if difference <= tolerance {
          tolerated += 1
          continue
        }
        differing += 1
        if var current = box {
          current.minX = min(current.minX, x)
          current.maxX = max(current.maxX, x)
          current.minY = min(current.minY, y)
          current.maxY = max(current.maxY, y)
          box = current
        } else {
          box = PixelBox(minX: x, minY: y, maxX: x, maxY: y)
        }
      }
    }
    return (differing, tolerated, largest, box)
  }
}
