import Foundation
import ReferenceImageCore
import XCTest

final class PerceptualComparisonTests: XCTestCase {
  private struct Expectation: Decodable {
    var pair: String
    var threshold: Double
    var includeAntiAliasing: Bool
    var differingPixels: Int
    var oracle: String
  }

  private func expectations() throws -> [Expectation] {
    try JSONDecoder().decode(
      [Expectation].self, from: Data(CoreFixtures.bytes("perceptual/expected.json")))
  }

  /// Counts from the PyPI `pixelmatch` package (opaque pairs) and from generate.py's port of
  /// mapbox/pixelmatch 7.x (translucent pairs, checkerboard blending), made by
  /// `__Fixtures__/generate.py`.
  func testPerceptual_fixturePairs_matchPixelmatchCounts() throws {
    let cases = try expectations()
    XCTAssertEqual(cases.count, 96, "12 pairs × 4 thresholds × with and without anti-aliasing")
    XCTAssertTrue(cases.contains { $0.oracle.contains("PyPI") })
    XCTAssertTrue(cases.contains { $0.oracle == "pixelmatch7.py" })
    var images: [String: (RGBAImage, RGBAImage)] = [:]
    for expectation in cases {
      if images[expectation.pair] == nil {
        images[expectation.pair] = (
          try CoreFixtures.image("perceptual/\(expectation.pair)_a.png"),
          try CoreFixtures.image("perceptual/\(expectation.pair)_b.png")
        )
      }
      let (a, b) = images[expectation.pair]!
      let result = ImageComparison.perceptual(
        threshold: expectation.threshold, includeAntiAliasing: expectation.includeAntiAliasing
      ).compare(a, to: b, bound: .maximumDifferingPixels(Int.max))
      XCTAssertEqual(
        result.differences?.differingPixelCount ?? 0, expectation.differingPixels,
        "\(expectation.pair) threshold \(expectation.threshold) includeAA "
          + "\(expectation.includeAntiAliasing) (\(expectation.oracle))")
    }
  }

  func testPerceptual_fixturePairs_exerciseAntiAliasingAndThresholds() throws {
    // The fixtures must be able to tell a broken port from a correct one: anti-aliasing
    // detection changes some counts, and thresholds change others.
    let cases = try expectations()
    let aaMatters = Set(cases.map(\.pair)).filter { pair in
      let counts = cases.filter { $0.pair == pair && $0.threshold == 0.1 }
      return Set(counts.map(\.differingPixels)).count > 1
    }
    XCTAssertGreaterThanOrEqual(aaMatters.count, 4, "\(aaMatters)")
    let thresholdMatters = Set(cases.map(\.pair)).filter { pair in
      let counts = cases.filter { $0.pair == pair && !$0.includeAntiAliasing }
      return Set(counts.map(\.differingPixels)).count > 2
    }
    XCTAssertGreaterThanOrEqual(thresholdMatters.count, 3, "\(thresholdMatters)")
  }

  func testPerceptual_blackAgainstWhite_crossesAtPixelmatchsMaximumDelta() throws {
    // pixelmatch: delta = 0.5053 · 255² = 32857 (I and Q cancel for greys), and the threshold
    // compares with 35215 · t², so black and white differ below t = 0.9659 and not above.
    let black = try RGBAImage(width: 1, height: 1, color: .black)
    let white = try RGBAImage(width: 1, height: 1, color: .white)
    XCTAssertFalse(ImageComparison.perceptual(threshold: 0.96).compare(white, to: black).passed)
    XCTAssertTrue(ImageComparison.perceptual(threshold: 0.97).compare(white, to: black).passed)
  }

  func testPerceptual_pureRedStep_usesPixelmatchWeights() throws {
    // Red 0 → 100 on black: y = 29.89, i = 59.60, q = 21.15, so
    // delta = 0.5053·y² + 0.299·i² + 0.1957·q² = 1600.8; threshold √(1600.8/35215) = 0.2132.
    let black = try RGBAImage(width: 1, height: 1, color: .black)
    let red = try RGBAImage(width: 1, height: 1, color: RGBAColor(red: 100, green: 0, blue: 0))
    XCTAssertFalse(ImageComparison.perceptual(threshold: 0.2125).compare(red, to: black).passed)
    let tolerated = ImageComparison.perceptual(threshold: 0.214).compare(red, to: black)
    XCTAssertTrue(tolerated.passed)
    XCTAssertEqual(tolerated.differences?.toleratedPixelCount, 1)
    XCTAssertEqual(tolerated.differences?.antiAliasedPixelCount, 0)
    XCTAssertEqual(
      tolerated.description,
      "0 of 1 pixels differ beyond the perceptual threshold 0.214 (allowed: 0), largest channel "
        + "difference 100; 1 more differs within the threshold and was tolerated")
  }

  func testPerceptual_zeroThreshold_countsEveryVisibleChange() throws {
    let reference = try RGBAImage(width: 4, height: 4, color: RGBAColor(red: 9, green: 9, blue: 9))
    var image = reference
    image[3, 3] = RGBAColor(red: 9, green: 10, blue: 9)
    let found = ImageComparison.perceptual(threshold: 0).compare(image, to: reference).differences
    XCTAssertEqual(found?.differingPixelCount, 1)
    XCTAssertEqual(found?.boundingBox, PixelBox(minX: 3, minY: 3, maxX: 3, maxY: 3))
  }

  func testPerceptual_invisibleColourUnderZeroAlpha_isTolerated() throws {
    // 7.x blends with alpha, so two fully transparent pixels never differ, whatever their RGB.
    let reference = try RGBAImage(width: 3, height: 3, color: .clear)
    var image = reference
    image[1, 1] = RGBAColor(red: 255, green: 255, blue: 255, alpha: 0)
    let result = ImageComparison.perceptual(threshold: 0).compare(image, to: reference)
    XCTAssertTrue(result.passed)
    XCTAssertEqual(result.differences?.toleratedPixelCount, 1)
    XCTAssertFalse(ImageComparison.exact.compare(image, to: reference).passed)
  }

  func testPerceptual_translucentPixel_isBlendedOverCheckerboardNotWhite() throws {
    // A white pixel at alpha 128 against opaque white. Over pixelmatch 5's white background they
    // would be identical; over 7.x's checkerboard (48 or 207 per channel, by byte offset) the
    // translucent one is visibly darker, so at threshold 0.1 it differs.
    let reference = try RGBAImage(width: 1, height: 1, color: .white)
    let image = try RGBAImage(
      width: 1, height: 1, color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 128))
    XCTAssertFalse(ImageComparison.perceptual(threshold: 0.1).compare(image, to: reference).passed)
  }

  func testPerceptual_antiAliasedEdge_isToleratedUnlessIncluded() throws {
    // A vertical edge black | white with a grey column between; the grey column changes shade.
    // The grey pixels have a darker and a brighter neighbour sitting in flat areas of both
    // images: anti-aliasing.
    func edge(_ shade: UInt8) throws -> RGBAImage {
      var image = try RGBAImage(width: 7, height: 7, color: .white)
      for y in 0..<7 {
        for x in 0..<3 { image[x, y] = .black }
        image[3, y] = RGBAColor(red: shade, green: shade, blue: shade)
      }
      return image
    }
    let reference = try edge(100)
    let image = try edge(160)
    let tolerant = ImageComparison.perceptual(threshold: 0.1).compare(image, to: reference)
    XCTAssertTrue(tolerant.passed, tolerant.description)
    XCTAssertEqual(tolerant.differences?.toleratedPixelCount, 7)
    XCTAssertEqual(tolerant.differences?.antiAliasedPixelCount, 7)
    XCTAssertEqual(
      tolerant.description,
      "0 of 49 pixels differ beyond the perceptual threshold 0.1 (allowed: 0), largest channel "
        + "difference 60; 7 more differ but were tolerated as anti-aliasing")
    let strict = ImageComparison.perceptual(threshold: 0.1, includeAntiAliasing: true)
      .compare(image, to: reference)
    XCTAssertEqual(strict.differences?.differingPixelCount, 7)
    XCTAssertEqual(strict.differences?.boundingBox, PixelBox(minX: 3, minY: 0, maxX: 3, maxY: 6))
    XCTAssertEqual(
      strict.description,
      "7 of 49 pixels differ beyond the perceptual threshold 0.1, anti-aliasing included "
        + "(allowed: 0), largest channel difference 60, within x 3…3, y 0…6")
  }

  func testPerceptual_antiAliasedCount_isWhatIncludingAntiAliasingAddsToTheDiffering() throws {
    // Every pixel beyond the threshold is either counted or detected as anti-aliasing, so
    // including anti-aliasing counts exactly the anti-aliased ones more, on pixelmatch's pairs.
    for pair in Set(try expectations().map(\.pair)).sorted() {
      let a = try CoreFixtures.image("perceptual/\(pair)_a.png")
      let b = try CoreFixtures.image("perceptual/\(pair)_b.png")
      for threshold in [0, 0.05, 0.1, 0.3] {
        let bound = DifferenceBound.maximumDifferingPixels(Int.max)
        let tolerant = ImageComparison.perceptual(threshold: threshold).compare(
          a, to: b, bound: bound)
        let strict = ImageComparison.perceptual(threshold: threshold, includeAntiAliasing: true)
          .compare(a, to: b, bound: bound)
        let label = "\(pair) threshold \(threshold)"
        XCTAssertEqual(
          (tolerant.differences?.differingPixelCount ?? 0)
            + (tolerant.differences?.antiAliasedPixelCount ?? 0),
          strict.differences?.differingPixelCount ?? 0, label)
        XCTAssertEqual(strict.differences?.antiAliasedPixelCount ?? 0, 0, label)
        XCTAssertEqual(
          tolerant.differences?.toleratedPixelCount ?? 0,
          (strict.differences?.toleratedPixelCount ?? 0)
            + (tolerant.differences?.antiAliasedPixelCount ?? 0), label)
      }
    }
  }

  /// ChoosingAComparison's claim: a thin anti-aliased line moved one pixel sideways (a chart's
  /// data line off by one pixel) passes the default perceptual comparison at
  /// `requiredAccuracy(0.999)`, because most moved pixels look like anti-aliasing; with
  /// `includeAntiAliasing` it fails, and so does the same line moved one pixel down.
  func testPerceptual_thinLineMovedOnePixel_passesUnlessAntiAliasingIsIncluded() throws {
    let values: [Double] = [150, 138, 146, 128, 134, 120, 131, 142, 136, 150]
    let points = values.enumerated().map { (x: 20 + 40 * Double($0.offset), y: $0.element) }
    let reference = try Self.thinLine(through: points)
    let right = try Self.thinLine(through: points.map { (x: $0.x + 1, y: $0.y) })
    let down = try Self.thinLine(through: points.map { (x: $0.x, y: $0.y + 1) })
    let bound = DifferenceBound.requiredAccuracy(0.999)

    XCTAssertEqual(
      ImageComparison.exact.compare(right, to: reference).differences?.differingPixelCount, 805)
    let moved = ImageComparison.perceptual().compare(right, to: reference, bound: bound)
    XCTAssertTrue(moved.passed, moved.description)
    XCTAssertEqual(
      moved.description,
      "96 of 120,000 pixels differ beyond the perceptual threshold 0.1 (allowed: 120, "
        + "requiredAccuracy 0.999), largest channel difference 128, within x 23…379, y 120…149; "
        + "709 more differ but were tolerated: 640 as anti-aliasing, 69 within the threshold")

    let strict = ImageComparison.perceptual(includeAntiAliasing: true)
      .compare(right, to: reference, bound: bound)
    XCTAssertFalse(strict.passed)
    XCTAssertEqual(strict.differences?.differingPixelCount, 736)

    let across = ImageComparison.perceptual().compare(down, to: reference, bound: bound)
    XCTAssertFalse(across.passed)
    XCTAssertEqual(across.differences?.differingPixelCount, 422)
  }

  /// A one-pixel-wide black line through `points` on a 400 × 300 white canvas: each pixel's grey
  /// is the share of its 4 × 4 samples within half a pixel of the line, as a renderer's
  /// anti-aliasing gives.
  private static func thinLine(through points: [(x: Double, y: Double)]) throws -> RGBAImage {
    let (width, height) = (400, 300)
    var samples = [UInt16](repeating: 0, count: width * height)
    for (a, b) in zip(points, points.dropFirst()) {
      let (dx, dy) = (b.x - a.x, b.y - a.y)
      for y in max(Int(min(a.y, b.y)) - 1, 0)...min(Int(max(a.y, b.y)) + 1, height - 1) {
        for x in max(Int(min(a.x, b.x)) - 1, 0)...min(Int(max(a.x, b.x)) + 1, width - 1) {
          for sample in 0..<16 {
            let px = Double(x) + (Double(sample % 4) + 0.5) / 4
            let py = Double(y) + (Double(sample / 4) + 0.5) / 4
            let t = max(0, min(1, ((px - a.x) * dx + (py - a.y) * dy) / (dx * dx + dy * dy)))
            let (cx, cy) = (a.x + t * dx - px, a.y + t * dy - py)
            if cx * cx + cy * cy <= 0.25 { samples[y * width + x] |= 1 << sample }
          }
        }
      }
    }
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for (index, mask) in samples.enumerated() where mask != 0 {
      let grey = UInt8(255 - mask.nonzeroBitCount * 255 / 16)
      pixels.replaceSubrange(index * 4..<index * 4 + 3, with: [grey, grey, grey])
    }
    return try RGBAImage(width: width, height: height, pixels: pixels)
  }

  func testPerceptual_name_namesTheThreshold() {
    XCTAssertEqual(ImageComparison.perceptual(threshold: 0.1).name, "perceptual (threshold 0.1)")
  }
}
