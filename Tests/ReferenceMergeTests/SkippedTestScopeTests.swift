import XCTest

@testable import ReferenceMerge

/// Paths and test names are split at each `/` byte, as the file system splits paths: a name
/// that starts with a combining mark still starts after the slash.
final class SkippedTestScopeTests: XCTestCase {
  private let mark = "\u{301}"

  func testSuite_ofATestWhoseNameStartsWithACombiningMark_isItsClass() {
    XCTAssertEqual(
      SkippedTestScope.suite(of: "BadgeTests.BadgeRenderTests/\(mark)dot()"),
      "BadgeTests.BadgeRenderTests")
    XCTAssertEqual(SkippedTestScope.suite(of: "BadgeTests.free()"), "BadgeTests")
  }

  func testProtects_aFolderStartingWithACombiningMark_inASkippedTestsModule() {
    // The skipped test's suite asserted nothing; its module's other suite did.
    let scope = SkippedTestScope(
      skipped: ["BadgeTests.BadgeRenderTests/dot()"], files: [:],
      suiteFiles: ["BadgeTests.OtherTests": ["Tests/BadgeTests/OtherTests.swift"]], uses: [])
    XCTAssertTrue(scope.protects("Tests/BadgeTests/\(mark)x/__References__/A/a.png"))
    XCTAssertTrue(scope.protects("Tests/BadgeTests/__References__/A/a.png"))
    XCTAssertFalse(scope.protects("Tests/ChartTests/__References__/A/a.png"))
  }

  func testProtects_aStemFolderStartingWithACombiningMark() {
    let scope = SkippedTestScope(
      skipped: ["BadgeTests.BadgeRenderTests/dot()"],
      files: ["BadgeTests.BadgeRenderTests/dot()": "Tests/BadgeTests/\(mark)Badge.swift"],
      suiteFiles: [:], uses: [])
    XCTAssertTrue(scope.protects("Tests/BadgeTests/__References__/\(mark)Badge/a.png"))
    XCTAssertFalse(scope.protects("Tests/BadgeTests/__References__/Other/a.png"))
  }

  func testProtects_aNestedTestFilesFolder_inTheTargetsRootAndBesideIt() {
    let test = "ChartTests.StackTests/testStack()"
    let scope = SkippedTestScope(
      skipped: [test], files: [test: "Tests/ChartTests/Bars/Stacked/StackTests.swift"],
      suiteFiles: [:], uses: [])
    XCTAssertTrue(scope.protects("Tests/ChartTests/__References__/Bars/Stacked/StackTests/a.png"))
    XCTAssertTrue(scope.protects("Tests/ChartTests/__References__/Bars/Stacked/StackTests/d/a.png"))
    XCTAssertTrue(scope.protects("Tests/ChartTests/Bars/Stacked/__References__/StackTests/a.png"))
    XCTAssertFalse(scope.protects("Tests/ChartTests/__References__/Bars/Stacked/PieTests/a.png"))
    XCTAssertFalse(scope.protects("Tests/ChartTests/__References__/Bars/StackTests.png"))
  }
}
