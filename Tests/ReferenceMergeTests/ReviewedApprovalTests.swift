import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import XCTest

/// Approvals bound to the pixels reviewed (the decision file's lines with digests), and renders
/// kept by a failed comparison, which land only over the reference they were compared with.
/// The package and the verify run are `MergeScenario.verifyRunOfFailedComparisons`.
final class ReviewedApprovalTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self)
    try merge.verifyRunOfFailedComparisons()
  }

  /// The pixel digest of declared pixels.
  private func digest(_ pixels: Pixels) throws -> SHA256Digest {
    SHA256Digest(hex: SHA256.hex(try pixels.image().pixels))!
  }

  /// Lands only the approved paths, each bound to the pixels reviewed, as a decision file
  /// exported from the review page does (`--include-from`).
  private func approve(_ approvals: [(name: String, before: Pixels?, after: Pixels)]) throws {
    merge.options.include = IncludeFilter(
      patterns: approvals.map { merge.path($0.name) },
      approvals: try approvals.map {
        .init(
          path: merge.path($0.name), before: try $0.before.map(digest),
          after: try digest($0.after))
      })
  }

  // MARK: Approvals

  func testBoundDecisions_landExactlyTheAcceptedPaths() throws {
    try approve([("old-a", .seed(1), .seed(11)), ("new-a", nil, .seed(10))])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["old-a": .updated, "new-a": .added])
    XCTAssertEqual(verdict.skipped, ["old-b"])
    XCTAssertEqual(merge.bytes("old-a"), try Pixels.seed(11).png())
    XCTAssertEqual(
      merge.bytes("old-b"), try Pixels.seed(2).png(), "the path not accepted stays as it was")
  }

  func testStaleApproval_newRenderSinceReview_isRefusedByName_nothingWritten() throws {
    // What the page showed; the archive now holds another render.
    try approve([("old-a", .seed(1), .seed(99)), ("new-a", nil, .seed(10))])
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, ["changedSinceReview"])
    XCTAssertEqual(verdict.refusedPaths, ["old-a"])
    let reason = "\(verdict.conclusion.problems)"
    XCTAssertTrue(reason.contains(try digest(.seed(99)).hex), "names the reviewed digest")
    XCTAssertTrue(reason.contains(try digest(.seed(11)).hex), "and the current one")
    assertTreesEqual(before, try merge.package())
  }

  func testStaleApproval_referenceChangedSinceReview_isRefused_keepGoingLandsTheRest() throws {
    try approve([("old-a", .seed(1), .seed(11)), ("new-a", nil, .seed(10))])
    // Someone else's commit replaced old-a after the review (and after the verify run).
    let replaced = try merge.reference("old-a", .seed(50))
    let before = try merge.package()

    let refused = merge.run()

    XCTAssertEqual(refused.status, .refusedInput, "\(refused.problems)")
    XCTAssertEqual(Set(refused.refusedPaths), ["old-a"])
    assertTreesEqual(before, try merge.package())

    merge.options.keepGoing = true
    let rest = merge.run()

    XCTAssertEqual(
      rest.status, .refusedInput, "what was left out still shows in the exit code")
    XCTAssertTrue(merge.exists("new-a"))
    XCTAssertEqual(merge.bytes("old-a"), replaced, "the stale path is never written")
  }

  func testBoundAddedImage_whenAFileAppearedSince_isRefused() throws {
    try approve([("new-a", nil, .seed(10))])
    // new-a was added by another change after the review, with other pixels.
    try merge.reference("new-a", .seed(77))
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, ["changedSinceComparison"], "compared with no reference")
    XCTAssertEqual(verdict.refusedPaths, ["new-a"])
    assertTreesEqual(before, try merge.package())
  }

  func testBoundDecision_landedAlready_isARerunThatChangesNothing() throws {
    try approve([("old-a", .seed(1), .seed(11))])

    let first = merge.run()
    let again = merge.run()

    XCTAssertEqual(first.status, .success, "\(first.problems)")
    XCTAssertEqual(first.outcomes, ["old-a": .updated])
    XCTAssertEqual(again.status, .success, "\(again.problems)")
    XCTAssertEqual(again.outcomes, ["old-a": .unchanged])
  }

  func testReadingABoundFile_patternsAndApprovals() throws {
    let folder = merge.folder
    let file = merge.root.appendingPathComponent("reference-decisions.txt")
    let oldA = try digest(.seed(1)).hex
    try "# accepted in review\n\(folder)/a\\*.png\t-\t\(oldA)\n\(folder)/plain.png\n  \n"
      .write(to: file, atomically: true, encoding: .utf8)

    let read = try IncludeFilter.read(fileAt: file)

    XCTAssertEqual(read.patterns, ["\(folder)/a\\*.png", "\(folder)/plain.png"])
    XCTAssertEqual(
      read.approvals, [.init(path: "\(folder)/a*.png", before: nil, after: try digest(.seed(1)))])
  }

  // MARK: Renders kept by a failed comparison

  func testKeptRender_whoseReferenceChangedSinceTheRun_isRefused() throws {
    try merge.reference("old-b", .seed(60))
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, ["changedSinceComparison"])
    XCTAssertEqual(verdict.refusedPaths, ["old-b"])
    assertTreesEqual(before, try merge.package())

    // Limited to the other paths, the merge goes on.
    merge.options.include = IncludeFilter(patterns: [merge.path("old-a"), merge.path("new-a")])
    let others = merge.run()

    XCTAssertEqual(others.status, .success, "\(others.problems)")
    XCTAssertEqual(others.outcomes, ["old-a": .updated, "new-a": .added])
  }

  func testKeptRenders_planCarriesTheComparison_andAFolderWithAReportIsStillASource() throws {
    // The review report beside the archive, as the pull-request loop's artifact holds it.
    let artifact = merge.sources[0].deletingLastPathComponent()
    merge.reportWriter = ReviewReport.write(_:request:)
    XCTAssertEqual(
      merge.plan(report: artifact.appendingPathComponent("reference-review")).status, .success)
    merge.sources = [artifact]

    let verdict = merge.plan()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(
      verdict.plan.inventories.map(\.source.description), [artifact.path + "/run.zip"],
      "the report's images beside the archive are no source of their own")
    let comparison = { (name: String) in
      verdict.item(name)?.chosen?.image.failedComparison?.record
    }
    XCTAssertEqual(comparison("old-a")?.referencePixelSHA256, try digest(.seed(1)))
    XCTAssertEqual(comparison("old-a")?.line, 12)
    XCTAssertNotNil(comparison("new-a"))
    XCTAssertNil(comparison("new-a")?.referencePixelSHA256)
  }
}
