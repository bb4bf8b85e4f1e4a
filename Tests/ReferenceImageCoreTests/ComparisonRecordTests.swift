import Foundation
import ReferenceImageCore
import XCTest

/// A comparison written down and read back judges exactly as the original.
final class ComparisonRecordTests: XCTestCase {
  private func image(_ seed: UInt8) throws -> RGBAImage {
    var pixels = [UInt8](repeating: 200, count: 16 * 16 * 4)
    for index in stride(from: 0, to: pixels.count, by: 7) { pixels[index] &+= seed }
    return try RGBAImage(width: 16, height: 16, pixels: pixels)
  }

  func testRoundTrip_throughJSON_judgesAsTheOriginal() throws {
    let cases: [(ImageComparison, DifferenceBound)] = [
      (.exact, .none), (.tolerance(3), .maximumDifferingPixels(5)),
      (.perceptual(threshold: 0.2, includeAntiAliasing: true), .requiredAccuracy(0.99)),
      (.perceptual(), .none),
    ]
    let (a, b) = (try image(0), try image(9))
    for (comparison, bound) in cases {
      let record = ComparisonRecord(comparison, bound: bound)
      let decoded = try JSONDecoder().decode(
        ComparisonRecord.self, from: try JSONEncoder().encode(record))
      XCTAssertEqual(decoded, record)
      let replayed = try XCTUnwrap(decoded.comparison)
      XCTAssertEqual(replayed.name, comparison.name)
      XCTAssertEqual(decoded.bound, bound)
      XCTAssertEqual(
        replayed.compare(a, to: b, bound: decoded.bound).description,
        comparison.compare(a, to: b, bound: bound).description)
    }
  }

  func testNewerVersion_isNotReplayed() throws {
    let json = #"{"version": 2, "kind": "perceptual", "threshold": 0.1}"#
    let record = try JSONDecoder().decode(ComparisonRecord.self, from: Data(json.utf8))
    XCTAssertNil(record.comparison, "a rule this code does not know is not guessed")
  }
}
