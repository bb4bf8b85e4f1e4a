import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import XCTest

/// Images a generation run recorded unchanged (`unchangedImages`) instead of archiving: counted
/// unchanged exactly as their archived copies were, never orphans, never lost.
final class UnchangedImageMergeTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self)
  }

  /// A reference in the package, and a run that recorded it unchanged.
  @discardableResult
  private func unchangedRun(_ pixels: Pixels, name: String = "same") throws -> URL {
    let reference = try merge.reference(name, pixels)
    return try merge.archive("unchanged-\(name).zip", generatedAt: day(2)) {
      $0.addUnchanged(self.merge.path(name), try pixels.image(), reference: reference)
    }
  }

  func testMerge_unchangedRecord_countsUnchangedAndWritesNothing() throws {
    try unchangedRun(.seed(1))
    merge.options.prune = true
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["same": .unchanged], "never an orphan")
    assertTreesEqual(try merge.package(), before)
  }

  func testMerge_unchangedRecord_countsLikeTheArchivedImage() throws {
    let unchanged = try unchangedRun(.seed(2))
    let archived = try merge.archive("archived.zip", generatedAt: day(2)) {
      try $0.add(self.merge.path("same"), try noiseImage(seed: 2), setting: .small)
    }

    merge.sources = [unchanged]
    let recorded = merge.plan()
    merge.sources = [archived]
    let archivedVerdict = merge.plan()

    XCTAssertEqual(recorded.outcomes, ["same": .unchanged])
    XCTAssertEqual(recorded.outcomes, archivedVerdict.outcomes)
    XCTAssertEqual(recorded.plan.counts, archivedVerdict.plan.counts)
  }

  func testMerge_destinationSamePixelsOtherBytes_stillUnchanged() throws {
    try unchangedRun(.seed(3))
    try merge.reference("same", .seed(3), setting: .small)

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["same": .unchanged])
  }

  func testMerge_destinationChangedSince_refusedNamingThePath() throws {
    try unchangedRun(.seed(4))
    try merge.archive("other.zip", ["new": .seed(5)], generatedAt: day(2))
    try merge.reference("same", .seed(6))
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, ["unarchivedImageChanged"])
    XCTAssertEqual(verdict.refusedPaths, ["same"])
    assertTreesEqual(try merge.package(), before)
  }

  func testMerge_destinationChangedSince_butLeftOutByInclude_theRestLands() throws {
    try unchangedRun(.seed(4))
    try merge.archive("other.zip", ["new": .seed(5)], generatedAt: day(2))
    let changed = try merge.reference("same", .seed(6))
    merge.options.include = IncludeFilter(patterns: [merge.path("new")])

    let verdict = merge.run()

    XCTAssertEqual(
      verdict.status, .success, "a path the merge leaves out cannot stop it: \(verdict.problems)")
    XCTAssertTrue(merge.exists("new"))
    XCTAssertEqual(merge.bytes("same"), changed, "the left-out path is untouched")
  }

  func testMerge_destinationDeletedSince_refused() throws {
    try unchangedRun(.seed(7))
    try FileManager.default.removeItem(at: merge.url("same"))

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, ["unarchivedImageChanged"])
    XCTAssertEqual(verdict.refusedPaths, ["same"])
  }

  func testMerge_archivedAndUnchangedDisagree_conflict() throws {
    try unchangedRun(.seed(8))
    try merge.archive(
      "changed.zip", ["same": .changed(seed: 8, pixels: 3)], host: "host-b", generatedAt: day(3))
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .conflicts, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["same": .conflict])
    XCTAssertEqual(verdict.sources(of: "same"), ["changed.zip", "unchanged-same.zip"])
    assertTreesEqual(try merge.package(), before)
  }

  func testReport_archivedAndUnchangedDisagree_theConflictShowsTheReferenceAsTheUnchangedSide()
    throws
  {
    try unchangedRun(.seed(8))
    let changedPNG = try Pixels.changed(seed: 8, pixels: 3).png()
    try merge.archive(
      "changed.zip", ["same": .changed(seed: 8, pixels: 3)], host: "host-b", generatedAt: day(3))
    let report = merge.root.appendingPathComponent("report")
    merge.reportWriter = ReviewReport.write(_:request:)

    let verdict = merge.plan(report: report)

    XCTAssertEqual(verdict.status, .conflicts, "\(verdict.problems)")
    let card = try XCTUnwrap(ReviewDataScript.cards(inReport: report).first)
    XCTAssertEqual(card["outcome"] as? String, "conflict")
    let rivals = try XCTUnwrap(card["rivals"] as? [[String: Any]])
    XCTAssertEqual(rivals.count, 2, "both sides, the one that recorded the path unchanged too")
    func bytes(_ rival: [String: Any]) throws -> [UInt8] {
      let image = try XCTUnwrap(rival["image"] as? [String: Any])
      let source = try XCTUnwrap(image["src"] as? String)
      return Array(try Data(contentsOf: report.appendingPathComponent(source)))
    }
    let labels = rivals.compactMap { $0["label"] as? String }
    func rival(labelled part: String) throws -> [String: Any] {
      let found = rivals.first { ($0["label"] as? String)?.contains(part) == true }
      return try XCTUnwrap(found, "\(labels)")
    }
    let unchangedSide = try rival(labelled: "recorded unchanged")
    XCTAssertEqual(
      try bytes(unchangedSide), merge.bytes("same"), "the unchanged side is the current reference")
    let archivedSide = try rival(labelled: "/changed.zip")
    XCTAssertEqual(try bytes(archivedSide), changedPNG)
    XCTAssertEqual(card["changedPixels"] as? Int, 3, "the difference between the two sides")
  }

  func testMerge_archivedAndUnchangedAgree_archivedCopyLandsWhenTheDestinationChanged() throws {
    try unchangedRun(.seed(9))
    try merge.archive("archived.zip", ["same": .seed(9)], generatedAt: day(1))
    try merge.reference("same", .seed(10))

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["same": .updated])
    XCTAssertEqual(merge.bytes("same"), try Pixels.seed(9).png())
  }

  func testMerge_pathBothArchivedAndUnchangedInOneSource_refused() throws {
    let reference = try merge.reference("same", .seed(11))
    try merge.archive("twice.zip", ["same": .seed(11)], generatedAt: day(2)) {
      $0.addUnchanged(self.merge.path("same"), try noiseImage(seed: 11), reference: reference)
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, ["refusedSource"])
    XCTAssertTrue(
      "\(verdict.conclusion.problems)".contains("the path appears twice"),
      "\(verdict.conclusion.problems)")
  }
}
