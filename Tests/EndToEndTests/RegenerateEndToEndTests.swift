import Foundation
import ReferenceImageCore
import XCTest

/// Runs `Scripts/regenerate` (the `regenerate-references` plugin behind a script) on the fixture
/// package, as a user would, and reads back its review report.
final class RegenerateEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
  }

  private func regenerate(_ arguments: [String], environment: [String: String] = [:]) throws
    -> ProcessOutput
  {
    var merged = ProcessInfo.processInfo.environment
    merged.merge(environment) { $1 }
    return try runProcess(
      FixturePackage.checkout.appendingPathComponent("Scripts/regenerate").path,
      arguments + [fixture.root.path], environment: merged)
  }

  func testRegenerate_addsThenLeavesUnchanged_thenUpdatesExactlyTheChangedImages() throws {
    let first = try regenerate([])
    XCTAssertEqual(first.exitStatus, .success, first.all)
    XCTAssertTrue(
      first.output.contains("12 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused"),
      first.all)

    let again = try regenerate([])
    XCTAssertEqual(again.exitStatus, .success, again.all)
    XCTAssertTrue(
      again.output.contains("0 added, 0 updated, 12 unchanged, 0 conflicts, 0 orphans"), again.all)

    let report = fixture.root.appendingPathComponent(".build/review")
    let changed = try regenerate(
      ["--report", report.path], environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(changed.exitStatus, .success, changed.all)
    XCTAssertTrue(
      changed.output.contains("0 added, 3 updated, 9 unchanged, 0 conflicts, 0 orphans"),
      changed.all)
    for path in [
      "Tests/ChartTests/__References__/BarChartTests/bars.png",
      "Tests/ChartTests/__References__/BarChartTests/flat-bars.png",
      "Tests/SwiftTestingTests/__References__/SwiftTestingBadges/bars.png",
    ] {
      XCTAssertTrue(changed.output.contains("  \(path)"), "\(path) listed as updated")
    }

    let verify = try fixture.test([], environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(
      verify.status, 0, "the merged references match the changed renderer\n\(verify.all)")
    try checkReport(report)
  }

  /// The README's first command, on the bundled example: every reference unchanged, the example's
  /// tests pass in verify mode, and git sees no change.
  func testRegenerate_bundledExample_reportsUnchangedAndLeavesGitClean() throws {
    let example = FixturePackage.checkout.appendingPathComponent("Examples/ChartRenderer")
    var environment = ProcessInfo.processInfo.environment
    for key in ["IMAGE_GENERATION_MODE", "IMAGE_GENERATION_OUTPUT", "IMAGE_REFERENCE_DIR"] {
      environment[key] = nil
    }
    let run = try runProcess(
      FixturePackage.checkout.appendingPathComponent("Scripts/regenerate").path, [],
      environment: environment)
    XCTAssertEqual(run.exitStatus, .success, run.all)
    let summary = try XCTUnwrap(
      run.output.split(separator: "\n").last { $0.contains(" unchanged, ") }, run.all)
    XCTAssertTrue(summary.hasPrefix("0 added, 0 updated, "), String(summary))
    XCTAssertFalse(summary.contains(" 0 unchanged"), String(summary))
    // Every test ran as one proven shard, none skipped: orphans were looked for, none found.
    XCTAssertTrue(summary.contains(" 0 orphans"), String(summary))
    // A test of the example that failed (RemoteImageClientTests can, in mode all) keeps only
    // what it may own: the search goes on.
    XCTAssertFalse(run.output.contains("orphans were not looked for"), run.all)
    // The plugin built the tests in its own scratch folder; verify with that build.
    let verify = try runProcess(
      "/usr/bin/env",
      [
        "swift", "test", "--skip-build", "--package-path", example.path, "--scratch-path",
        example.appendingPathComponent(".build/regenerate-references").path,
      ], environment: environment)
    XCTAssertEqual(verify.status, 0, verify.all)
    let git = try runProcess(
      "/usr/bin/env",
      ["git", "-C", FixturePackage.checkout.path, "status", "--porcelain", "--", "Examples"])
    guard git.status == 0 else { throw XCTSkip("not a git checkout: \(git.error)") }
    XCTAssertEqual(git.output, "", "regenerating changed the example's committed files")
  }

  func testRegenerate_dryRun_writesNothing() throws {
    let run = try regenerate(["--dry-run", "--mode", "missing"])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertTrue(run.output.contains("12 added"), run.all)
    XCTAssertTrue(run.output.contains("dry run: nothing written"), run.all)
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: fixture.root.appendingPathComponent("Tests/ChartTests/__References__").path))
  }

  func testRegenerate_badMode_isAUsageError() throws {
    let run = try regenerate(["--mode", "sometimes"])
    XCTAssertEqual(run.exitStatus, .invalidArguments)
    XCTAssertTrue(run.error.contains("--mode must be all, missing or failed"), run.all)
  }

  /// The report folder's data: three updated cards, the bars change counted, and the after
  /// images the very bytes that landed (the page's behaviour is tested in Chromium by the
  /// page's own tests).
  private func checkReport(_ report: URL) throws {
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: report.appendingPathComponent("index.html").path))
    let cards = try ReviewDataScript.cards(inReport: report)
    XCTAssertEqual(
      cards.compactMap { $0["outcome"] as? String }, ["updated", "updated", "updated"])
    XCTAssertTrue(
      cards.contains {
        ($0["meta"] as? [String])?.first?.contains("36 of 9,600 pixels differ") ?? false
      },
      "the pixel count of the bars change")
    for card in cards {
      let path = try XCTUnwrap(card["path"] as? String)
      let after = try XCTUnwrap((card["after"] as? [String: Any])?["src"] as? String)
      // The plugin lands the compact form of the render the card shows: the same pixels.
      XCTAssertEqual(
        try PNGDecoder().decode(Array(try Data(contentsOf: report.appendingPathComponent(after)))),
        try PNGDecoder().decode(
          Array(try Data(contentsOf: fixture.root.appendingPathComponent(path)))),
        "\(path): the report shows the pixels that landed")
      XCTAssertNotNil(card["group"] as? String)
      XCTAssertFalse((card["regions"] as? [[Int]] ?? []).isEmpty, path)
    }
  }
}
