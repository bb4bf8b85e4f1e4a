import XCTest

@testable import ReferenceImageCore

/// Fingerprints group changes made the same way to different images, and keep apart changes
/// that only share a kind.
final class ChangeFingerprintTests: XCTestCase {
  private let green = RGBAColor(red: 0x16, green: 0xA3, blue: 0x4A)
  private let purple = RGBAColor(red: 0x93, green: 0x33, blue: 0xEA)
  private let orange = RGBAColor(red: 0xF0, green: 0x8C, blue: 0x00)

  private func fingerprint(_ old: RGBAImage, _ new: RGBAImage) -> ChangeFingerprint? {
    let regions = ChangeClassifier.classify(
      new, reference: old, differenceImage: ImageComparison.exact.differenceImage(new, old)
    ).regions
    return ChangeFingerprint.of(regions, image: new, reference: old)
  }

  func testRecolour_ofDifferentCharts_sameFingerprint_otherMappingAnother() throws {
    let first = fingerprint(try bars([30, 50], green), try bars([30, 50], purple))
    let second = fingerprint(try bars([45, 20, 60], green), try bars([45, 20, 60], purple))
    let other = fingerprint(try bars([30, 50], green), try bars([30, 50], orange))
    XCTAssertEqual(first?.key, second?.key)
    XCTAssertEqual(first?.label, "recoloured #16A34A → #9333EA")
    XCTAssertNotEqual(first?.key, other?.key)
  }

  func testAdded_samePixelsSamePlace_groups_otherContentDoesNot() throws {
    let empty = try bars([30], green)
    var withBox = empty
    fill(&withBox, x: 100, y: 10, width: 20, height: 10, purple)
    var withOtherBox = empty
    fill(&withOtherBox, x: 100, y: 10, width: 20, height: 10, orange)
    let a = fingerprint(empty, withBox)
    var otherChart = try bars([50], green)
    let otherEmpty = otherChart
    fill(&otherChart, x: 100, y: 10, width: 20, height: 10, purple)
    let b = fingerprint(otherEmpty, otherChart)
    let c = fingerprint(empty, withOtherBox)
    XCTAssertEqual(a?.label, "added at x 100…119, y 10…19")
    XCTAssertEqual(a?.key, b?.key, "the same box added to two charts")
    XCTAssertNotEqual(a?.key, c?.key, "another box at the same place")
  }

  func testNoChange_noFingerprint() throws {
    let image = try bars([30], green)
    XCTAssertNil(fingerprint(image, image))
  }

  private func bars(_ heights: [Int], _ colour: RGBAColor) throws -> RGBAImage {
    var image = try RGBAImage(width: 140, height: 80, color: .white)
    for (index, height) in heights.enumerated() {
      fill(&image, x: 10 + index * 20, y: 75 - height, width: 12, height: height, colour)
    }
    return image
  }

  private func fill(
    _ image: inout RGBAImage, x: Int, y: Int, width: Int, height: Int, _ colour: RGBAColor
  ) {
    for row in y..<(y + height) { for column in x..<(x + width) { image[column, row] = colour } }
  }
}
