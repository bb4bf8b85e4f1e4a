import ReferenceContracts
import XCTest

final class ReferenceLayoutTests: XCTestCase {
  func testFolder_ofATestFileInItsTargetsFolder_isBesideIt() {
    XCTAssertEqual(
      ReferenceLayout.folder(ofTestFile: "Tests/ChartTests/BarTests.swift"),
      "Tests/ChartTests/__References__/BarTests")
    XCTAssertNil(ReferenceLayout.besideFolder(ofTestFile: "Tests/ChartTests/BarTests.swift"))
  }

  func testFolder_ofANestedTestFile_isInTheTargetsRootByItsFolders() {
    let file = "Tests/ChartTests/Bars/Stacked/StackTests.swift"
    XCTAssertEqual(
      ReferenceLayout.folder(ofTestFile: file),
      "Tests/ChartTests/__References__/Bars/Stacked/StackTests")
    XCTAssertEqual(
      ReferenceLayout.besideFolder(ofTestFile: file),
      "Tests/ChartTests/Bars/Stacked/__References__/StackTests")
  }

  func testFolder_outsideTests_isBesideTheFile() {
    XCTAssertEqual(
      ReferenceLayout.folder(ofTestFile: "Checks/Render/BarChecks.swift"),
      "Checks/Render/__References__/BarChecks")
    XCTAssertEqual(
      ReferenceLayout.folder(ofTestFile: "Tests/LooseTests.swift"),
      "Tests/__References__/LooseTests")
  }

  func testTargetRoot_ofAReferenceInATargetsRoot_isThatRoot() {
    XCTAssertEqual(
      ReferenceLayout.targetRoot(ofReference: "Tests/ChartTests/__References__/Bars/S/bar.png"),
      "Tests/ChartTests/__References__")
    XCTAssertNil(
      ReferenceLayout.targetRoot(ofReference: "Tests/ChartTests/Bars/__References__/S/a.png"))
    XCTAssertNil(ReferenceLayout.targetRoot(ofReference: "Tests/__References__/S/a.png"))
    XCTAssertNil(
      ReferenceLayout.targetRoot(ofReference: "Snapshots/ChartTests/__References__/a.png"))
  }
}
