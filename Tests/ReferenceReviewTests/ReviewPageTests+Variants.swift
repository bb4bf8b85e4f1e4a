import Foundation
import ReferenceArchive
import ReferenceImageCore
import XCTest

/// The review page of a merge with variants, in real Chromium: the cards grouped by variant
/// under headings, each saying what it compares with, and a variant card's approval exported
/// as that variant's path alone.
extension ReviewPageTests {
  func testVariants_cardsGroupedByVariant_sayWhatTheyCompareWith_approvalLandsTheVariantOnly()
    throws
  {
    let root = try makeTemporaryFolder(self)
    let fixture = try VariantReviewFixture(root: root)
    let report = Report(
      index: fixture.report.appendingPathComponent("index.html"),
      cards: try reviewData(fixture.report))
    let arm64 = VariantReviewFixture.path("b", "linux-arm64")

    let result = try drive(
      report,
      steps: [
        ["state": "0"], ["press": ["j"]], ["state": "1"], ["screenshot": "variant-linux"],
        ["press": ["j"]], ["state": "2"], ["screenshot": "variant-update"],
        ["screenshot": "variant-update"],
        ["press": ["j"]], ["state": "3"],
        ["click": "#reject-all"], ["press": ["Home"]],
        ["click": "#variant-groups button:last-child"], ["state": "jumped"],
        ["press": ["a"]], ["state": "approved"], ["export": "approved"],
        ["press": ["/"]], ["type": "@@linux-arm64"], ["press": ["Enter"]], ["state": "filtered"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")

    // The base first, then each variant by name, each group under its heading.
    let states = try (0..<4).map { try XCTUnwrap(result.states["\($0)"]) }
    XCTAssertEqual(states.map(\.path), VariantReviewFixture.expected.map(\.path))
    XCTAssertEqual(
      states.map(\.variantHeading),
      ["base: 1 card", "variant linux: 2 cards", nil, "variant linux-arm64: 1 card"])
    XCTAssertEqual(
      states.map(\.comparedWith),
      [
        "compared with a.png (its previous file)", "compared with a.png (fallback of linux)",
        "compared with b@@linux.png (its previous file); its fallback b.png shown too",
        "compared with b@@linux.png (fallback of linux-arm64)",
      ])
    XCTAssertEqual(states[0].variantGroups, ["base (1)", "linux (2)", "linux-arm64 (1)"])
    XCTAssertEqual(states[0].paneLabels, ["before 48×32", "after 48×32"])
    XCTAssertEqual(
      states[2].paneLabels, ["before 48×32", "after 48×32", "fallback b.png 48×32"],
      "an update of a variant file beside its previous self and its fallback")
    XCTAssertEqual(
      states[3].paneLabels, ["fallback 48×32", "after 48×32"],
      "a new variant file beside the fallback it replaces")

    // Every card rejected, then the linux-arm64 group's card approved: its path alone exports.
    XCTAssertEqual(result.states["jumped"]?.path, arm64, "the group's button goes to its card")
    XCTAssertEqual(result.states["approved"]?.announcement, "accepted \(arm64)")
    let export = try XCTUnwrap(result.exports["approved"])
    let pixels = SHA256.hex(try XCTUnwrap(fixture.after[arm64]).pixels)
    XCTAssertEqual(export.lines, ["\(arm64)\t-\t\(pixels)"])

    let filtered = try XCTUnwrap(result.states["filtered"])
    XCTAssertEqual(filtered.visibleCount, "1 of 4 cards shown", "the path filter finds a variant")
    XCTAssertEqual(filtered.variantGroups, ["linux-arm64 (1)"])
    XCTAssertEqual(filtered.variantHeading, "variant linux-arm64: 1 card")

    // The exported file lands the variant's file and nothing else.
    let before = try snapshot(fixture.destination)
    let decisions = root.appendingPathComponent("reference-decisions.txt")
    try export.text.write(to: decisions, atomically: true, encoding: .utf8)
    let land = try MergeRefs.run(
      ["--include-from", decisions.path] + fixture.archives.map(\.path)
        + [fixture.destination.path])
    XCTAssertEqual(land.exitStatus, .success, land.all)
    XCTAssertTrue(land.output.contains("1 added, 0 updated"), land.output)
    let landed = try FileSystem.read(fixture.destination.appendingPathComponent(arm64))
    var expected = before
    expected[arm64] = .file(landed)
    assertTreesEqual(try snapshot(fixture.destination), expected, "only \(arm64) landed")
    XCTAssertEqual(try PNGDecoder().decode(landed).pixels, fixture.after[arm64]?.pixels)
  }
}
