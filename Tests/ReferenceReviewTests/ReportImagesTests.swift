import Foundation
import XCTest

@testable import ReferenceReview

/// A report's images go in a folder per `ReportImages.cardsPerFolder` cards, so a fleet's
/// report never holds one folder of hundreds of thousands of files.
final class ReportImagesTests: XCTestCase {
  func testName_putsEachThousandCardsInAFolderOfTheirOwn() {
    XCTAssertEqual(ReportImages.name(card: 0, "after"), "0/0-after.png")
    XCTAssertEqual(ReportImages.name(card: 999, "rival-1"), "0/999-rival-1.png")
    XCTAssertEqual(ReportImages.name(card: 1_000, "before"), "1/1000-before.png")
    XCTAssertEqual(ReportImages.name(card: 123_456, "difference"), "123/123456-difference.png")
  }

  func testWrite_makesTheFolderOfItsFirstImage_andReadsItBack() throws {
    let images = try makeTemporaryFolder(self).appendingPathComponent("images")
    let report = ReportImages(folder: images)
    let names = [1_999, 2_000, 2_001].map { ReportImages.name(card: $0, "after") }
    for (index, name) in names.enumerated() { try report.write([UInt8(index)], as: name) }

    let files = try FileManager.default.subpathsOfDirectory(atPath: images.path)
      .filter { $0.hasSuffix(".png") }.sorted()
    XCTAssertEqual(files, ["1/1999-after.png", "2/2000-after.png", "2/2001-after.png"])
    XCTAssertEqual(report.read(names[2]), [2])
    XCTAssertNil(report.read("3/3000-after.png"))
  }
}
