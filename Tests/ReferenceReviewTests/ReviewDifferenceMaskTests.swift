import ReferenceImageCore
import XCTest

@testable import ReferenceReview

/// A review card's difference for a test that ignores regions: counted as the test counts, its
/// ignored pixels drawn in blue, still written as a small palette PNG.
final class ReviewDifferenceMaskTests: XCTestCase {
  func testIgnoredRegion_countsAsTheTest_andStaysAPalettePNG() throws {
    let reference = try RGBAImage(
      width: 64, height: 40, color: RGBAColor(red: 200, green: 210, blue: 220))
    var image = reference
    for x in 40..<60 { for y in 2..<10 { image[x, y] = RGBAColor(red: 0, green: 0, blue: 0) } }
    image[5, 30] = RGBAColor(red: 0, green: 0, blue: 0)
    let comparison = ImageComparison.exact.ignoring([
      IgnoredRegion(x: 38, y: 0, width: 26, height: 12)
    ])
    let record = ComparisonRecord(comparison, bound: .none)

    let difference = try ReviewDifference.make(image, reference, comparison: record)

    XCTAssertEqual(difference.result, comparison.compare(image, to: reference))
    XCTAssertEqual(difference.result.differences?.differingPixelCount, 1)
    XCTAssertEqual(difference.result.differences?.totalPixelCount, 64 * 40 - 26 * 12)
    XCTAssertEqual(
      difference.regions.count, 1, "the ignored change is not boxed: \(difference.regions)")
    // Colour type 3 (palette) in the IHDR chunk: byte 25 of the file.
    XCTAssertEqual(difference.png[25], 3)
    XCTAssertEqual(
      try PNGDecoder().decode(difference.png), comparison.differenceImage(image, reference),
      "the palette PNG holds the comparison's own difference image, blue region included")
    let unmasked = try ReviewDifference.make(
      image, reference, comparison: ComparisonRecord(.exact, bound: .none))
    XCTAssertEqual(unmasked.result.differences?.differingPixelCount, 1 + 20 * 8)
  }

  func testIgnoredClockInsideABox_changesNotItsKind() throws {
    // Two lines of text moved by (2, 1) make one box; between them a clock the test ignores.
    let clock = IgnoredRegion(x: 47, y: 8, width: 10, height: 7)
    var reference = try RGBAImage(width: 100, height: 30, color: .white)
    drawText(&reference, at: (10, 8))
    drawText(&reference, at: (58, 8))
    var image = try RGBAImage(width: 100, height: 30, color: .white)
    drawText(&image, at: (12, 9))
    drawText(&image, at: (60, 9))
    for y in clock.y..<(clock.y + clock.height) {
      for x in clock.x..<(clock.x + clock.width) {
        image[x, y] = RGBAColor(red: 90, green: 90, blue: 90)
      }
    }
    let record = ComparisonRecord(ImageComparison.exact.ignoring([clock]), bound: .none)

    let difference = try ReviewDifference.make(image, reference, comparison: record)

    XCTAssertEqual(difference.kinds.map(\.kind), [.moved(dx: 2, dy: 1)])
  }

  /// A 34 × 6 block of text-like marks, the same marks wherever it is drawn.
  private func drawText(_ image: inout RGBAImage, at origin: (x: Int, y: Int)) {
    var state: UInt32 = 12_345
    for y in 0..<6 {
      for x in 0..<34 where x % 7 != 6 {
        state = state &* 1_103_515_245 &+ 12_345
        if (state >> 16) % 3 == 0 { image[origin.x + x, origin.y + y] = .black }
      }
    }
  }
}
