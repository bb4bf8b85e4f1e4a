import Foundation
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import XCTest

/// The review report of a merge with variants: each card carries its variant and the file it
/// compares with (`VariantMergeTests` has the merge's verdict).
final class VariantReportTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: VariantReviewFixture.folder)
    try merge.declareVariants()
    merge.reportWriter = ReviewReport.write(_:request:)
  }

  /// The report of a dry run of the scenario: its cards.
  private func reportCards() throws -> (report: URL, cards: [[String: Any]]) {
    let report = merge.root.appendingPathComponent("review")
    let verdict = merge.plan(report: report)
    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    return (report, try ReviewDataScript.cards(inReport: report))
  }

  func testReport_newVariantFile_isShownBesideItsFallback() throws {
    try merge.reference("a", .seed(1))
    let arm = variantName("a", "linux-arm64")
    try merge.archive("arm.zip", [arm: .seed(2)])

    let (report, cards) = try reportCards()

    let card = try XCTUnwrap(cards.first)
    XCTAssertEqual(card["path"] as? String, merge.path(arm))
    XCTAssertEqual(card["outcome"] as? String, "added")
    let before = try XCTUnwrap(card["before"] as? [String: Any], "\(card)")
    let copied = report.appendingPathComponent(try XCTUnwrap(before["src"] as? String))
    XCTAssertEqual(Array(try Data(contentsOf: copied)), merge.bytes("a"), "the fallback's bytes")
    XCTAssertNotNil(card["difference"], "\(card)")
    XCTAssertTrue(card["beforePixels"] is NSNull, "an added path's approval binds no reference")
    let meta = (card["meta"] as? [String])?.joined(separator: " | ") ?? ""
    XCTAssertTrue(meta.contains("shown beside its fallback \(merge.path("a"))"), meta)
  }

  func testReport_baseAndTwoVariants_cardsCarryTheirVariantAndTheFileTheyCompareWith() throws {
    let fixture = try VariantReviewFixture(root: merge.root)
    let cards = try ReviewDataScript.cards(inReport: fixture.report)
    XCTAssertEqual(
      cards.compactMap { $0["path"] as? String }.sorted(),
      VariantReviewFixture.expected.map(\.path).sorted(), "one card per change")
    for expected in VariantReviewFixture.expected {
      let card = try XCTUnwrap(cards.first { $0["path"] as? String == expected.path })
      XCTAssertEqual(card["outcome"] as? String, expected.outcome, expected.path)
      XCTAssertEqual(card["variant"] as? String, expected.variant, expected.path)
      if expected.variant == nil { XCTAssertTrue(card["variant"] is NSNull, "\(card)") }
      let compared = try XCTUnwrap(card["comparedWith"] as? [String: Any], "\(card)")
      XCTAssertEqual(
        VariantReviewFixture.Compared(
          try XCTUnwrap(compared["path"] as? String), compared["variant"] as? String,
          fallback: try XCTUnwrap(compared["fallback"] as? Bool)),
        expected.compared, expected.path)
      // "before" is the file it compares with, as the package holds it.
      let before = try XCTUnwrap(card["before"] as? [String: Any], "\(card)")
      XCTAssertEqual(
        try Data(
          contentsOf: fixture.report.appendingPathComponent(
            try XCTUnwrap(before["src"] as? String))),
        try Data(contentsOf: fixture.destination.appendingPathComponent(expected.compared.path)),
        expected.path)
    }
    // An update of a variant file also shows its fallback, as the package holds it.
    let updatedVariant = try XCTUnwrap(
      cards.first { $0["path"] as? String == VariantReviewFixture.path("b", "linux") })
    let fallback = try XCTUnwrap(updatedVariant["fallback"] as? [String: Any], "\(updatedVariant)")
    XCTAssertEqual(fallback["path"] as? String, VariantReviewFixture.path("b"))
    XCTAssertTrue(fallback["variant"] is NSNull, "the base")
    let image = try XCTUnwrap(fallback["image"] as? [String: Any])
    XCTAssertEqual(
      try Data(
        contentsOf: fixture.report.appendingPathComponent(
          try XCTUnwrap(image["src"] as? String))),
      try Data(
        contentsOf: fixture.destination.appendingPathComponent(VariantReviewFixture.path("b"))))
    for card in cards where card["path"] as? String != VariantReviewFixture.path("b", "linux") {
      XCTAssertTrue(card["fallback"] is NSNull, "\(card)")
    }
  }

  func testReport_noDeclaration_cardsHaveNoVariant() throws {
    try FileManager.default.removeItem(
      at: merge.destination.appendingPathComponent(ReferenceVariants.fileName))
    try merge.reference("a", .seed(1))
    let linux = variantName("a", "linux")
    try merge.archive("run.zip", ["a": .seed(2), linux: .seed(3)])

    let (_, cards) = try reportCards()

    XCTAssertEqual(cards.count, 2)
    for card in cards { XCTAssertTrue(card["variant"] is NSNull, "\(card)") }
    let updated = try XCTUnwrap(cards.first { $0["path"] as? String == merge.path("a") })
    XCTAssertEqual(
      (updated["comparedWith"] as? [String: Any])?["path"] as? String, merge.path("a"),
      "an update compares with its own file")
    let added = try XCTUnwrap(cards.first { $0["path"] as? String == merge.path(linux) })
    XCTAssertTrue(added["comparedWith"] is NSNull, "an added file compares with nothing")
  }
}
