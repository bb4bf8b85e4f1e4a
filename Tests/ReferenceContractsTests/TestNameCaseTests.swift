import ReferenceContracts
import XCTest

final class TestNameCaseTests: XCTestCase {
  func testCaseLabel_namesEachArgumentInSwiftTestingsWords() {
    XCTAssertEqual(TestName.caseLabel(arguments: [("size", "16")]), "size → 16")
    XCTAssertEqual(
      TestName.caseLabel(arguments: [("title", "\"café\""), ("scale", "2.0")]),
      "title → \"café\", scale → 2.0")
    XCTAssertEqual(
      TestName.owner(test: "M.S/dotIcon(size:)", testCase: "size → 16"),
      "M.S/dotIcon(size:) [size → 16]")
    XCTAssertEqual(TestName.owner(test: "M.S/plain()", testCase: nil), "M.S/plain()")
  }

  func testCaseLabel_lineBreaksBecomeSpaces() {
    XCTAssertEqual(TestName.caseLabel(arguments: [("text", "a\nb\tc")]), "text → a b c")
  }

  /// Long descriptions are bounded, and two that differ only past the bound stay distinct.
  func testCaseLabel_longArguments_boundedAndStillDistinct() {
    let long = String(repeating: "設定/", count: 200)
    let first = TestName.caseLabel(arguments: [("path", long + "a")])
    let second = TestName.caseLabel(arguments: [("path", long + "b")])
    XCTAssertNotEqual(first, second)
    XCTAssertLessThanOrEqual(first.count, TestName.caseLimit)
    XCTAssertTrue(first.hasPrefix("path → 設定/"), first)
    XCTAssertTrue(first.contains("… #"), first)

    let many = (0..<40).map { (name: "p\($0)", value: "\($0)") }
    let label = TestName.caseLabel(arguments: many)
    XCTAssertLessThanOrEqual(label.count, TestName.caseLimit)
    XCTAssertNotEqual(label, TestName.caseLabel(arguments: many.dropLast() + [("p39", "x")]))
  }

  /// A short label is the same in every run: it names the case in manifests of other runs.
  func testCaseLabel_isDeterministic() {
    let arguments = [(name: "count", value: String(repeating: "9", count: 100))]
    XCTAssertEqual(
      TestName.caseLabel(arguments: arguments), TestName.caseLabel(arguments: arguments))
  }

  /// A use with a case names it in its place; its owner is not the bare test's.
  func testReferenceUse_placeNamesTheCase() {
    let use = ArchiveManifest.ReferenceUse(
      path: "a.png", test: "M.S/dot(size:)", file: "Tests/M/S.swift", line: 7, verdict: .passed,
      testCase: "size → 32")
    XCTAssertEqual(use.place, "M.S/dot(size:) [size → 32] (Tests/M/S.swift:7)")
    XCTAssertNotEqual(use.owner, use.test)
  }
}
