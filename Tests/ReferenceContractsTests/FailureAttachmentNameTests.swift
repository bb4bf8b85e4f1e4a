import ReferenceContracts
import XCTest

/// The attachment names that carry a failed comparison's reference path through Swift
/// Testing's flat `--attachments-path`.
final class FailureAttachmentNameTests: XCTestCase {
  private let path = "Tests/ChartTests/__References__/Chart/bar-2.v1.png"

  func testName_carriesThePath_withoutSeparatorsDotsOrDashes() {
    let name = FailureAttachmentName(referencePath: path, caseSuffix: nil, role: .actual)
    XCTAssertEqual(
      name.fileName, "Tests%2FChartTests%2F__References__%2FChart%2Fbar%2D2%2Ev1.actual.png")
    XCTAssertEqual(FailureAttachmentName(fileName: name.fileName)?.referencePath, path)
    XCTAssertEqual(FailureAttachmentName(fileName: name.fileName)?.role, .actual)
  }

  func testRoundTrip_keepsEveryRoleCaseAndCharacter() {
    let paths = [
      path, "Tests/A/__References__/100%/[dark] 設定:chart.png",
      "Tests/A/__References__/a\\b|c?.png",
    ]
    for path in paths {
      for role in FailureAttachmentName.Role.allCases {
        for suffix in [nil, "[size=1.5]", "[text=\"a_b\", n=2]"] {
          let name = FailureAttachmentName(referencePath: path, caseSuffix: suffix, role: role)
          let read = FailureAttachmentName(fileName: name.fileName)
          XCTAssertEqual(read?.referencePath, path, name.fileName)
          XCTAssertEqual(read?.role, role, name.fileName)
          XCTAssertFalse(name.fileName.contains("/"), name.fileName)
        }
      }
    }
  }

  /// Swift Testing makes a repeated name unique by inserting `-<random>` before the first dot
  /// (seen with Swift 6.3.1: `sized.actual.png` became `sized-s1u4a4wbolrz.actual.png`).
  func testUniquingSuffix_isNotReadAsThePath() {
    for suffix in [nil, "[size=16]", "[scale=1.5]"] {
      let name = FailureAttachmentName(referencePath: path, caseSuffix: suffix, role: .actual)
        .fileName
      let dot = name.firstIndex(of: ".")!
      let uniqued = name[..<dot] + "-3ekpkbh3puewn" + name[dot...]
      XCTAssertEqual(FailureAttachmentName(fileName: String(uniqued))?.referencePath, path)
    }
  }

  /// Swift Testing writes a name over 255 bytes as `untitled`: a long path is attached under
  /// the reference's file name alone, which says no path.
  func testLongPath_fallsBackToTheFileName_whichCarriesNoPath() {
    let long = "Tests/" + String(repeating: "deep/", count: 50) + "chart.png"
    let name = FailureAttachmentName(referencePath: long, caseSuffix: "[n=1]", role: .actual)
    XCTAssertEqual(name.fileName, "chart[n=1].actual.png")
    XCTAssertNil(name.referencePath)
    XCTAssertNil(FailureAttachmentName(fileName: name.fileName)?.referencePath)
    XCTAssertLessThanOrEqual(
      FailureAttachmentName(referencePath: path, caseSuffix: nil, role: .difference)
        .fileName.utf8.count, FailureAttachmentName.maximumBytes)
  }

  func testOtherNames_areNotFailureImages_orCarryNoPath() {
    XCTAssertNil(FailureAttachmentName(fileName: "screenshot.png"))
    XCTAssertNil(FailureAttachmentName(fileName: "bar.actual.txt"))
    XCTAssertNil(FailureAttachmentName(fileName: "bar.actual.png")?.referencePath)
    XCTAssertNil(FailureAttachmentName(fileName: "Tests%2Fbar%ZZ.actual.png")?.referencePath)
  }
}
