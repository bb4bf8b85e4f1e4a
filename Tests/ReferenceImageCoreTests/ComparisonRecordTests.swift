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
    let json = #"{"version": 3, "kind": "perceptual", "threshold": 0.1}"#
    let record = try JSONDecoder().decode(ComparisonRecord.self, from: Data(json.utf8))
    XCTAssertNil(record.comparison, "a rule this code does not know is not guessed")
  }

  private func sortedJSON(_ record: ComparisonRecord) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(record), as: UTF8.self)
  }

  func testWithoutRegionsOrShift_theRecordIsVersionOne_withItsOldBytes() throws {
    XCTAssertEqual(
      try sortedJSON(ComparisonRecord(.perceptual(), bound: .requiredAccuracy(0.999))),
      #"{"includeAntiAliasing":false,"kind":"perceptual","requiredAccuracy":0.999,"#
        + #""threshold":0.1,"version":1}"#)
    XCTAssertEqual(
      try sortedJSON(ComparisonRecord(.exact.ignoring([]).shiftTolerance(0), bound: .none)),
      #"{"kind":"exact","maximumDifferingPixels":0,"version":1}"#)
  }

  func testRegionsAndShift_makeVersionTwo_andReplayAsTheOriginal() throws {
    let regions = [IgnoredRegion(x: 2, y: 3, width: 5, height: 4)]
    let comparison = ImageComparison.tolerance(4).ignoring(regions).shiftTolerance(2)
    let record = ComparisonRecord(comparison, bound: .requiredAccuracy(0.9))
    XCTAssertEqual(record.version, 2, "readers of version 1 refuse it rather than misjudge")
    XCTAssertEqual(
      try sortedJSON(record),
      #"{"ignoredRegions":[{"height":4,"width":5,"x":2,"y":3}],"kind":"tolerance","#
        + #""requiredAccuracy":0.9,"shiftTolerance":2,"tolerance":4,"version":2}"#)
    let decoded = try JSONDecoder().decode(
      ComparisonRecord.self, from: try JSONEncoder().encode(record))
    let replayed = try XCTUnwrap(decoded.comparison)
    XCTAssertEqual(replayed.ignoredRegions, regions)
    XCTAssertEqual(replayed.maximumShift, 2)
    XCTAssertEqual(replayed.name, comparison.name)
    let (a, b) = (try image(0), try image(9))
    XCTAssertEqual(
      replayed.compare(a, to: b, bound: decoded.bound),
      comparison.compare(a, to: b, bound: .requiredAccuracy(0.9)))
    XCTAssertFalse(record.needsEqualPixels)
    XCTAssertFalse(ComparisonRecord(.exact.ignoring(regions), bound: .none).needsEqualPixels)
    XCTAssertFalse(ComparisonRecord(.exact.shiftTolerance(1), bound: .none).needsEqualPixels)
    XCTAssertTrue(ComparisonRecord(.exact, bound: .none).needsEqualPixels)
  }
}
