import Foundation
import XCTest

/// Runs `swift package regenerate-references` in the fixture package, which depends on this
/// checkout by path: the plugin a user gets from the dependency.
final class PluginEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
  }

  func testPlugin_generatesMergesAndWritesTheReviewPage() throws {
    let first = try fixture.plugin([])
    XCTAssertEqual(first.exitStatus, .success, first.all)
    XCTAssertTrue(
      first.output.contains("12 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused"),
      first.all)
    let defaultReport = fixture.root.appendingPathComponent(".build/reference-review/index.html")
    XCTAssertTrue(first.output.contains("review report: \(defaultReport.path)"), first.all)
    XCTAssertTrue(FileManager.default.fileExists(atPath: defaultReport.path))
    let landed = fixture.root.appendingPathComponent(
      "Tests/ChartTests/__References__/BarChartTests/bars.png")
    XCTAssertTrue(FileManager.default.fileExists(atPath: landed.path))

    // Only the filtered tests run; the changed bars land, the rest stays.
    let report = fixture.root.appendingPathComponent("review/changed.html")
    let changed = try fixture.plugin(
      ["--mode", "failed", "--filter", "BarChartTests", "--report", "review/changed.html"],
      environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(changed.exitStatus, .success, changed.all)
    XCTAssertTrue(
      changed.output.contains("0 added, 2 updated, 0 unchanged, 0 conflicts"), changed.all)
    XCTAssertTrue(
      changed.output.contains("  Tests/ChartTests/__References__/BarChartTests/bars.png"))
    let page = try String(contentsOf: report, encoding: .utf8)
    XCTAssertTrue(page.contains("BarChartTests/flat-bars.png"), "the page shows the change")
    // The page's command is one a person pastes in the package root, not the plugin's build.
    let data = try ReviewDataScript.object(of: try ReviewDataScript.splitSingleFile(page).script)
    let command = try XCTUnwrap(data["command"] as? [String], "\(data.keys)")
    XCTAssertEqual(Array(command.prefix(3)), ["swift", "run", "merge-refs"], "\(command)")
    XCTAssertEqual(command.last, ".")
    XCTAssertFalse(command.contains { $0.contains("merge-refs-tool") }, "\(command)")

    let verify = try fixture.test(
      ["--filter", "BarChartTests"], environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(verify.status, 0, "the merged references match\n\(verify.all)")
  }

  func testPlugin_dryRun_writesNothing() throws {
    let run = try fixture.plugin(["--dry-run", "--mode", "missing"])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertTrue(run.output.contains("12 added"), run.all)
    XCTAssertTrue(run.output.contains("(dry run: nothing written)"), run.all)
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: fixture.root.appendingPathComponent("Tests/ChartTests/__References__").path))
  }

  /// merge-refs' status reaches the caller: `swift package` turns it into 1 and the plugin says
  /// which; `--status-file` gets the exact number.
  func testPlugin_mergeRefsFailure_isTheExitStatus() throws {
    let sources = fixture.root.appendingPathComponent(".build/bad-sources")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    try Data("not a zip".utf8).write(to: sources.appendingPathComponent("broken.zip"))
    let statusFile = fixture.root.appendingPathComponent(".build/status.txt")
    let run = try fixture.plugin(["--sources", sources.path, "--status-file", statusFile.path])
    XCTAssertEqual(run.exitStatus, .writeFailed, run.all)
    XCTAssertTrue(run.all.contains("merge-refs exited with status 3"), run.all)
    XCTAssertTrue(run.output.contains("0 added, 0 updated"), run.all)
    XCTAssertEqual(try String(contentsOf: statusFile, encoding: .utf8), "3\n")
  }

  func testPlugin_badMode_isAUsageErrorNamingTheValue() throws {
    let run = try fixture.plugin(["--mode", "sometimes"])
    XCTAssertNotEqual(run.exitStatus, .success)
    XCTAssertTrue(run.error.contains("--mode must be all, missing or failed, not 'sometimes'"))
  }

  func testPlugin_repeat_randomRenderIsUnstableAndLandsNowhere() throws {
    let status = fixture.root.appendingPathComponent(".build/repeat-status")
    let run = try fixture.plugin(
      ["--repeat", "2", "--filter", "BarChartTests", "--status-file", status.path],
      environment: ["RENDER_FIXTURE_CHANGE": "random"])
    XCTAssertEqual(
      try String(contentsOf: status, encoding: .utf8).trimmingCharacters(
        in: .whitespacesAndNewlines),
      "5", run.all)
    XCTAssertTrue(run.output.contains("run 2 of 2"), run.all)
    XCTAssertTrue(run.output.contains("unstable (replicated runs of one test"), run.all)
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: fixture.root.appendingPathComponent(
          "Tests/ChartTests/__References__/BarChartTests/bars.png"
        ).path), "an unstable render never lands")
  }

  /// The render fixture disables seven Swift Testing tests unless asked: the plugin's run sees
  /// them skipped and keeps only what they may own (their files' folders), so an orphan in
  /// another folder is found; the printed command, pasted, prunes exactly that run's orphan. A
  /// filtered run proves nothing and looks for none.
  func testPlugin_skippedTests_orphansFoundOutsideTheirFolders_filteredRunLooksForNone() throws {
    XCTAssertEqual(try fixture.plugin([]).exitStatus, .success)
    let folder = fixture.root.appendingPathComponent(
      "Tests/ChartTests/__References__/BarChartTests")
    let orphan = folder.appendingPathComponent("stale.png")
    try FileManager.default.copyItem(at: folder.appendingPathComponent("bars.png"), to: orphan)
    let filtered = try fixture.plugin(["--filter", "BarChartTests"])
    XCTAssertEqual(filtered.exitStatus, .success, filtered.all)
    XCTAssertTrue(filtered.output.contains("ran selected tests only"), filtered.all)
    XCTAssertTrue(FileManager.default.fileExists(atPath: orphan.path))

    let whole = try fixture.plugin([])
    XCTAssertEqual(whole.exitStatus, .success, whole.all)
    XCTAssertFalse(whole.output.contains("orphans were not looked for"), whole.all)
    XCTAssertTrue(whole.output.contains("SwiftTestingTests.ScopedSettings/recordedByScope()"))
    XCTAssertTrue(
      whole.output.contains("  Tests/ChartTests/__References__/BarChartTests/stale.png"),
      whole.all)
    let command =
      "swift run merge-refs --require-shards --prune .build/regenerate-references/shards/shard-0 ."
    XCTAssertTrue(whole.output.contains("to delete the orphans: \(command)\n"), whole.all)
    XCTAssertTrue(FileManager.default.fileExists(atPath: orphan.path), "pruned without --prune")

    let pruned = try fixture.shell(command, environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(pruned.exitStatus, .success, pruned.all)
    XCTAssertTrue(pruned.output.contains(" 1 orphans (1 pruned)"), pruned.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: orphan.path), pruned.all)
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("bars.png").path))
  }

  /// The archives of one XCTest process that ran a package's whole bundle in mode `all`, in a
  /// folder of the package emptied first.
  /// - Returns: The folder, relative to the package root.
  private func wholeBundleArchives(_ package: FixturePackage) throws -> String {
    let archives = ".build/whole-bundle-archives"
    try? FileManager.default.removeItem(at: package.root.appendingPathComponent(archives))
    let run = try package.test(
      ["--disable-swift-testing"],
      environment: [
        "IMAGE_GENERATION_MODE": "all",
        "IMAGE_GENERATION_OUTPUT": package.root.appendingPathComponent(archives).path,
      ])
    XCTAssertEqual(run.status, 0, run.all)
    return archives
  }

  /// Orphans found without `--prune` are listed with the plugin's own command that deletes
  /// them; that command, pasted into the package root, does. The sources are one XCTest
  /// process that ran its whole bundle, which proves the run whole in a package of XCTest tests
  /// only (`LoopFixture`): in this class's fixture, the Swift Testing tests run in a process of
  /// their own, so its XCTest archives prove nothing (the test below).
  func testPlugin_orphanFound_printsThePruneCommand_andItRemovesTheOrphan() throws {
    let loop = try FixturePackage.built("LoopFixture")
    try? FileManager.default.removeItem(
      at: loop.root.appendingPathComponent("Tests/SwatchTests/__References__"))
    let archives = try wholeBundleArchives(loop)
    let landed = try loop.plugin(["--sources", archives])
    XCTAssertEqual(landed.exitStatus, .success, landed.all)
    let folder = loop.root.appendingPathComponent(
      "Tests/SwatchTests/__References__/SwatchTests")
    let orphan = folder.appendingPathComponent("stale.png")
    try FileManager.default.copyItem(
      at: folder.appendingPathComponent("swatch-00.png"), to: orphan)

    let found = try loop.plugin(["--sources", archives, "--dry-run"])

    XCTAssertEqual(found.exitStatus, .success, found.all)
    XCTAssertTrue(
      found.output.contains("  Tests/SwatchTests/__References__/SwatchTests/stale.png"),
      found.all)
    let command =
      "swift package --allow-writing-to-package-directory regenerate-references --sources "
      + "\(archives) --prune"
    XCTAssertTrue(found.output.contains("to delete the orphans: \(command)\n"), found.all)
    XCTAssertTrue(FileManager.default.fileExists(atPath: orphan.path), "pruned without --prune")

    let pruned = try loop.shell(command, environment: [:])

    XCTAssertEqual(pruned.exitStatus, .success, pruned.all)
    XCTAssertTrue(pruned.output.contains(" 1 orphans (1 pruned)"), pruned.all)
    XCTAssertFalse(pruned.output.contains("to delete the orphans"), pruned.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: orphan.path), pruned.all)
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("swatch-00.png").path))
  }

  /// The same whole-bundle XCTest archives in a package that also has Swift Testing tests
  /// (`swift test --disable-swift-testing` left them out): no orphan search, named why, and
  /// `--prune` deletes nothing.
  func testPlugin_xcTestArchivesBesideSwiftTestingTests_proveNoOrphans() throws {
    let archives = try wholeBundleArchives(fixture)
    XCTAssertEqual(try fixture.plugin(["--sources", archives]).exitStatus, .success)
    let folder = fixture.root.appendingPathComponent(
      "Tests/ChartTests/__References__/BarChartTests")
    let unproven = folder.appendingPathComponent("stale.png")
    try FileManager.default.copyItem(at: folder.appendingPathComponent("bars.png"), to: unproven)

    let pruned = try fixture.plugin(["--sources", archives, "--prune"])

    XCTAssertEqual(pruned.exitStatus, .success, pruned.all)
    XCTAssertTrue(
      pruned.output.contains(
        "orphans were not looked for: 1 XCTest run did not run the Swift Testing tests"),
      pruned.all)
    XCTAssertTrue(FileManager.default.fileExists(atPath: unproven.path), pruned.all)
  }
}
