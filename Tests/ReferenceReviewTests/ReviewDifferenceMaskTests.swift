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
}
