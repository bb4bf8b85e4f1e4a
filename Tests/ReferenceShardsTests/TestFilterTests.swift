import ReferenceContracts
import ReferenceShards
import XCTest

final class TestFilterTests: XCTestCase {
  func testPattern_xcTest_isAnchoredAtBothEnds() {
    XCTAssertEqual(TestFilter.pattern(for: "Mod.AlphaTests/testA"), #"^Mod\.AlphaTests/testA$"#)
  }

  func testPattern_swiftTesting_endsAtSlashOrEnd() {
    XCTAssertEqual(
      TestFilter.pattern(for: "Mod.paramScene(n:)"), #"^Mod\.paramScene\(n:\)(/|$)"#)
    XCTAssertEqual(
      TestFilter.pattern(for: "Mod.Outer/Inner/deep()"), #"^Mod\.Outer/Inner/deep\(\)(/|$)"#)
  }

  func testPattern_prefixClass_doesNotSelectTheLongerClass() throws {
    let pattern = try NSRegularExpression(pattern: TestFilter.pattern(for: "M.AlphaTests/testA"))
    XCTAssertTrue(matches(pattern, "M.AlphaTests/testA"))
    XCTAssertFalse(matches(pattern, "M.AlphaTestsExtra/testA"))
    XCTAssertFalse(matches(pattern, "M.AlphaTests/testAB"))
  }

  func testPattern_swiftTesting_matchesTheRunIDWithItsSourceLocation() throws {
    let pattern = try NSRegularExpression(pattern: TestFilter.pattern(for: "M.param(n:)"))
    XCTAssertTrue(matches(pattern, "M.param(n:)"))
    XCTAssertTrue(matches(pattern, "M.param(n:)/File.swift:7:2"))
    XCTAssertFalse(matches(pattern, "M.param(n:m:)/File.swift:9:2"))
    XCTAssertFalse(matches(pattern, "XM.param(n:)/File.swift:7:2"))
  }

  func testEscape_everyMetacharacter() throws {
    let text = #"a\b^c$d.e|f?g*h+i(j)k[l]m{n}"#
    let pattern = try NSRegularExpression(pattern: "^" + TestFilter.escape(text) + "$")
    XCTAssertTrue(matches(pattern, text))
    XCTAssertFalse(matches(pattern, "abcdefghijklmn"))
  }

  func testFramework_byTheClosingParenthesis() {
    XCTAssertEqual(TestFilter.framework(of: "M.C/testA"), .xcTest)
    XCTAssertEqual(TestFilter.framework(of: "M.free()"), .swiftTesting)
    XCTAssertEqual(TestFilter.framework(of: "M.S/param(n:)"), .swiftTesting)
  }

  private func matches(_ pattern: NSRegularExpression, _ text: String) -> Bool {
    pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
  }
}
