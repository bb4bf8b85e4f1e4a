import Foundation
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// merge-refs' `--include` and `--include-from` (`IncludeFilterTests` has the filter and the
/// verdict): what a dry run and `--json` list as skipped, and an unreadable include file as a
/// usage error.
final class IncludeOutputTests: XCTestCase {
  /// `MergeScenario.updateOfTwoReferencesBesideAnOrphan`.
  private func scenario() throws -> MergeScenario {
    let merge = try MergeScenario(self)
    try merge.updateOfTwoReferencesBesideAnOrphan()
    return merge
  }

  func testCommandLine_includeFromFile_dryRunAndJSONListSkipped() throws {
    let merge = try scenario()
    let decisions = merge.root.appendingPathComponent("keep.txt")
    try "# decisions\n\(path("new-a"))\n".write(to: decisions, atomically: true, encoding: .utf8)
    let dryRun = try MergeRefs.run(
      ["--dry-run", "--include-from", decisions.path] + merge.arguments)
    XCTAssertEqual(dryRun.exitStatus, .success, dryRun.all)
    XCTAssertTrue(dryRun.output.contains("added:\n  \(path("new-a"))\n"), dryRun.output)
    XCTAssertTrue(dryRun.output.contains("  \(path("old-a")) (would be updated)"), dryRun.output)
    XCTAssertTrue(dryRun.output.contains("1 added, 0 updated"), dryRun.output)
    XCTAssertTrue(dryRun.output.contains("4 skipped (dry run: nothing written)"), dryRun.output)
    XCTAssertTrue(
      dryRun.output.contains("skipped (not included; left as they are):"), dryRun.output)

    let json = try MergeRefs.run(
      ["--json", "--include", path("old-b"), "--include-from", decisions.path] + merge.arguments)
    XCTAssertEqual(json.exitStatus, .success, json.all)
    let summary = try decodedSummary(json.output)
    XCTAssertEqual(summary.changes.map(\.path), [path("new-a"), path("old-b")])
    XCTAssertEqual(summary.skipped.map(\.path), [path("new-b"), path("old-a"), path("orphan")])
  }

  func testCommandLine_unreadableIncludeFile_isAUsageErrorNamingIt() throws {
    let merge = try scenario()
    let before = try merge.package()
    let result = try MergeRefs.run(
      ["--include-from", "/nonexistent/decisions.txt"] + merge.arguments)
    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(
      result.error.contains("cannot read the include file /nonexistent/decisions.txt"), result.all)
    assertTreesEqual(before, try merge.package())
  }
}
