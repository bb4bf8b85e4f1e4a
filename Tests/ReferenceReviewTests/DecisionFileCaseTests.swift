import Foundation
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// The decision-file grammar's Swift side: `IncludeFilter.parse` reads every case of
/// `__Fixtures__/decision-file-cases.json` as the case says, the cards the review page exported
/// land themselves, and a line drops exactly the white space the page escapes. The page's side
/// of the same cases runs under node (`__Fixtures__/review-page/decision_file_cases.mjs`, from
/// `Scripts/lint-page`).
final class DecisionFileCaseTests: XCTestCase {
  private struct Cases: Decodable {
    var lineSpace: String
    var cases: [Case]
  }

  private struct Case: Decodable {
    var name: String
    var text: String
    var patterns: [String]?
    var approvals: [Approval]?
    var error: String?
    var cards: [Card]?
    /// Paths the patterns read back must not include.
    var excludes: [String]?
  }

  private struct Approval: Decodable, Equatable {
    var path: String
    var before: String?
    var after: String
  }

  private struct Card: Decodable {
    var path: String
  }

  private func sharedCases(file: StaticString = #filePath) throws -> Cases {
    let url = URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
      .appendingPathComponent("__Fixtures__/decision-file-cases.json")
    return try JSONDecoder().decode(Cases.self, from: Data(contentsOf: url))
  }

  func testParse_everySharedCase_readsAsTheCaseSays() throws {
    let shared = try sharedCases()
    XCTAssertGreaterThan(shared.cases.count, 10)
    for entry in shared.cases {
      if let error = entry.error {
        XCTAssertThrowsError(try IncludeFilter.parse(entry.text, path: "cases.txt"), entry.name) {
          let message = "\($0)"
          XCTAssertTrue(message.contains(error), "\(entry.name): \(message)")
          XCTAssertTrue(message.contains("cases.txt"), "\(entry.name): \(message)")
        }
        continue
      }
      let file = try IncludeFilter.parse(entry.text, path: "cases.txt")
      XCTAssertEqual(file.patterns, entry.patterns, entry.name)
      let approvals = file.approvals.map {
        Approval(path: $0.path, before: $0.before?.hex, after: $0.after.hex)
      }
      XCTAssertEqual(approvals, entry.approvals, entry.name)
    }
  }

  /// Each exported path lands itself, and only itself: the patterns read back include it, and
  /// none of the case's `excludes` (a variant file's approval never lands its base's file or
  /// another variant's).
  func testParse_pageExportedCases_includeEveryCardsPathAndNoExcludedOne() throws {
    var excluded = 0
    for entry in try sharedCases().cases {
      guard let cards = entry.cards else { continue }
      let filter = IncludeFilter(
        patterns: try IncludeFilter.parse(entry.text, path: "cases.txt").patterns)
      for card in cards {
        XCTAssertTrue(filter.includes(card.path), "\(entry.name): \(card.path)")
        XCTAssertFalse(filter.includes(card.path + "x"), "\(entry.name): only \(card.path)")
      }
      for path in entry.excludes ?? [] {
        XCTAssertFalse(filter.includes(path), "\(entry.name): \(path) is not the cards'")
        excluded += 1
      }
    }
    XCTAssertGreaterThan(excluded, 0, "the cases name paths that must not land")
  }

  /// The white space a line drops at its ends is the set the page escapes (`lineSpace`).
  func testParse_dropsAtTheEndsExactlyTheSharedWhiteSpace() throws {
    let dropped = (0...0xFFFF).compactMap(Unicode.Scalar.init).filter { scalar in
      let text = "a" + String(scalar)
      guard let file = try? IncludeFilter.parse(text, path: "cases.txt") else { return false }
      // A line break splits the text instead: "a" alone, as dropping would leave it.
      return file.patterns == ["a"]
    }
    XCTAssertEqual(String(String.UnicodeScalarView(dropped)), try sharedCases().lineSpace)
  }
}
