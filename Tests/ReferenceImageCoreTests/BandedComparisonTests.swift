import Foundation
import ReferenceImageCore
import XCTest

/// Large images are compared in bands of rows on several cores; whatever the split, every
/// figure and every pixel of the difference image must be what one scan gives.
final class BandedComparisonTests: XCTestCase {
  private let bandCounts = [1, 2, 3, 7]

  func testCompare_perceptualFixtures_sameCountsForEveryBandCount() throws {
    struct Expectation: Decodable {
      var pair: String
      var threshold: Double
      var includeAntiAliasing: Bool
      var differingPixels: Int
    }
    let cases = try JSONDecoder().decode(
      [Expectation].self, from: Data(CoreFixtures.bytes("perceptual/expected.json")))
    XCTAssertEqual(cases.count, 96)
    for expectation in cases {
      let a = try CoreFixtures.image("perceptual/\(expectation.pair)_a.png")
      let b = try CoreFixtures.image("perceptual/\(expectation.pair)_b.png")
      let strategy = ImageComparison.perceptual(
        threshold: expectation.threshold, includeAntiAliasing: expectation.includeAntiAliasing)
      let label = "\(expectation.pair) \(expectation.threshold) \(expectation.includeAntiAliasing)"
      try assertBandsAgree(strategy, a, b, label) { result in
        XCTAssertEqual(
          result.differences?.differingPixelCount ?? 0, expectation.differingPixels, label)
      }
    }
  }

  func testCompare_largeDriftedImage_sameResultForEveryBandCountAndStrategy() throws {
    let (reference, drifted) = try Self.driftedPair(width: 613, height: 401)
    XCTAssertGreaterThan(
      BandPlan(width: 613, height: 401, bands: nil).count, 1, "the automatic plan must split")
    for strategy in [
      ImageComparison.exact, .tolerance(3), .perceptual(), .perceptual(threshold: 0.05),
      .perceptual(includeAntiAliasing: true),
    ] {
      try assertBandsAgree(strategy, drifted, reference, strategy.name) { result in
        XCTAssertGreaterThan(result.differences?.differingPixelCount ?? 0, 100, strategy.name)
      }
    }
  }

  func testCompareWithDifferenceImage_identicalAndMismatchedSizes_agreeAcrossBands() throws {
    let (reference, drifted) = try Self.driftedPair(width: 300, height: 90)
    let wider = drifted.cropped(width: 250, height: 90)
    for (label, image, other) in [
      ("identical", reference, reference), ("narrower", wider, reference),
      ("shorter", reference.cropped(width: 300, height: 50), drifted),
    ] {
      let single = ImageComparison.perceptual().compareWithDifferenceImage(
        image, to: other, bound: .none, bands: 1)
      for bands in bandCounts {
        let banded = ImageComparison.perceptual().compareWithDifferenceImage(
          image, to: other, bound: .none, bands: bands)
        XCTAssertEqual(banded.result, single.result, "\(label), \(bands) bands")
        XCTAssertTrue(
          banded.differenceImage == single.differenceImage, "\(label), \(bands) bands: image")
      }
      XCTAssertEqual(single.result, ImageComparison.perceptual().compare(image, to: other), label)
      XCTAssertTrue(
        single.differenceImage == ImageComparison.perceptual().differenceImage(image, other))
    }
  }

  func testBandPlan_coversEveryRowOnceAndClampsToTheHeight() {
    for (height, bands) in [(1, 7), (5, 7), (100, 3), (401, 7), (2000, 1)] {
      let plan = BandPlan(width: 10, height: height, bands: bands)
      XCTAssertEqual(plan.count, min(bands, height))
      let rows = (0..<plan.count).flatMap { Array(plan.rows($0)) }
      XCTAssertEqual(rows, Array(0..<height), "\(height) rows in \(bands) bands")
    }
    XCTAssertEqual(BandPlan(width: 100, height: 100, bands: nil).count, 1, "small: one band")
    XCTAssertEqual(BandPlan(width: 2000, height: 2000, bands: nil).count, 61)
  }

  // MARK: Helpers

  /// Compares with every band count, through `compare` and `compareWithDifferenceImage`, and
  /// checks that all results and difference images equal the single band's.
  private func assertBandsAgree(
    _ strategy: ImageComparison, _ image: RGBAImage, _ reference: RGBAImage, _ label: String,
    check: (ReferenceImageCore.ComparisonResult) -> Void
  ) throws {
    let bound = DifferenceBound.maximumDifferingPixels(Int.max)
    let single = strategy.compare(image, to: reference, bound: bound, bands: 1)
    check(single)
    XCTAssertEqual(strategy.compare(image, to: reference, bound: bound), single, label)
    let singleDrawn = strategy.compareWithDifferenceImage(
      image, to: reference, bound: bound, bands: 1)
    XCTAssertEqual(singleDrawn.result, single, label)
    let reds = singleDrawn.differenceImage.pixels.withUnsafeBytes { bytes in
      bytes.bindMemory(to: UInt32.self).count { $0 == UInt32(littleEndian: 0xFF00_00FF) }
    }
    XCTAssertEqual(reds, single.differences?.differingPixelCount ?? 0, "\(label): red pixels")
    for bands in bandCounts.dropFirst() {
      XCTAssertEqual(
        strategy.compare(image, to: reference, bound: bound, bands: bands), single,
        "\(label), \(bands) bands")
      let drawn = strategy.compareWithDifferenceImage(
        image, to: reference, bound: bound, bands: bands)
      XCTAssertEqual(drawn.result, single, "\(label), \(bands) bands")
      XCTAssertTrue(
        drawn.differenceImage == singleDrawn.differenceImage, "\(label), \(bands) bands: image")
    }
  }

  /// A screenshot-like picture and a copy with text-like marks moved by one pixel and small
  /// colour drifts, so every strategy finds differing, tolerated and anti-aliased pixels.
  static func driftedPair(width: Int, height: Int) throws -> (RGBAImage, RGBAImage) {
    var generator = SplitMix64(seed: 11)
    var reference = try RGBAImage(
      width: width, height: height, color: RGBAColor(red: 246, green: 246, blue: 248))
    var drifted = reference
    for line in stride(from: 6, to: height - 6, by: 13) {
      var x = 4
      while x < width - 20 {
        let length = Int.random(in: 3...14, using: &generator)
        for dx in 0..<length {
          let shade = UInt8.random(in: 20...200, using: &generator)
          let color = RGBAColor(red: shade, green: shade, blue: shade &+ 10)
          reference[x + dx, line] = color
          reference[x + dx, line + 1] = RGBAColor(red: 128, green: 128, blue: 140)
          drifted[x + dx + (line % 2), line] = color
          drifted[x + dx + (line % 2), line + 1] = RGBAColor(red: 128, green: 128, blue: 140)
        }
        x += length + Int.random(in: 2...9, using: &generator)
      }
    }
    for _ in 0..<(width * height / 50) {
      let x = Int.random(in: 0..<width, using: &generator)
      let y = Int.random(in: 0..<height, using: &generator)
      var color = drifted[x, y]
      color.green = color.green &+ UInt8.random(in: 1...3, using: &generator)
      drifted[x, y] = color
    }
    return (reference, drifted)
  }
}
