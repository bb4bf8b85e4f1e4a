import Foundation
import ReferenceContracts
import ReferenceImageCore
import XCTest

/// What merge-refs prints of a decision file and of renders kept by failed comparisons
/// (`ReviewedApprovalTests` has the verdict): a malformed line is a usage error naming the file
/// and line; annotations, the Markdown summary and `--json` carry each render's comparison.
final class ReviewedApprovalOutputTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self)
    try merge.verifyRunOfFailedComparisons()
  }

  func testMalformedBoundLine_isAUsageErrorNamingFileAndLine() throws {
    let file = merge.root.appendingPathComponent("reference-decisions.txt")
    try "# accepted in review\n\(merge.path("old-a"))\tnot-a-digest\t-\n"
      .write(to: file, atomically: true, encoding: .utf8)

    let result = try MergeRefs.run(["--include-from", file.path] + merge.arguments)

    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(result.error.contains(file.path), result.all)
    XCTAssertTrue(result.error.contains("line 2"), result.all)
  }

  func testKeptRenders_JSONCarriesTheComparison_andAFolderWithAReportIsStillASource() throws {
    let archive = merge.sources[0]
    let artifact = archive.deletingLastPathComponent()
    let report = artifact.appendingPathComponent("reference-review")
    let markdown = merge.root.appendingPathComponent("summary.md")
    let first = try MergeRefs.run([
      "--dry-run", "--report", report.path, "--report-program", "swift run merge-refs",
      "--summary-markdown", markdown.path, "--github-annotations", artifact.path,
      merge.destination.path,
    ])
    XCTAssertEqual(first.exitStatus, .success, first.all)
    XCTAssertTrue(
      first.output.contains(
        "::error file=Tests/ChartTests/BarChartTests.swift,line=12,title=Reference image updated%3A "
      ), first.output)
    let summaryText = try String(contentsOf: markdown, encoding: .utf8)
    let oldA = merge.path("old-a")
    XCTAssertTrue(
      summaryText.contains(
        "- updated `\(oldA)`: test GeneratedTests.test\(oldA.count)(), exact "
          + "comparison at Tests/ChartTests/BarChartTests.swift:12: 96 of 96 pixels differ"),
      summaryText)
    XCTAssertTrue(
      summaryText.contains(
        "`swift run merge-refs --include-from reference-decisions.txt \(artifact.path) "
          + "\(ShellWord.quoted(merge.destination.path))`"), summaryText)
    // The report's images beside the archives are not taken for a source of their own.
    let again = try MergeRefs.run([
      "--json", "--dry-run", artifact.path, merge.destination.path,
    ])
    XCTAssertEqual(again.exitStatus, .success, again.all)
    let summary = try decodedSummary(again.output)
    XCTAssertEqual(summary.sources.map(\.name), [archive.path])
    let change = try XCTUnwrap(summary.changes.first { $0.path == oldA })
    XCTAssertEqual(
      change.failedComparison?.record.referencePixelSHA256?.hex,
      SHA256.hex(try noiseImage(seed: 1).pixels))
    XCTAssertEqual(change.failedComparison?.record.line, 12)
    XCTAssertNil(
      summary.changes.first { $0.path == merge.path("new-a") }?.failedComparison?.record
        .referencePixelSHA256)
  }
}
