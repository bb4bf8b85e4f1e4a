import Foundation
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// `IncludeFilter`: glob matching, include files, and the plan step, in-process; then the
/// `--include` flags through the built `merge-refs`.
final class IncludeFilterTests: XCTestCase {
  private let folder = "Tests/ChartTests/__References__/BarChart"
  private func path(_ name: String) -> String { "\(folder)/\(name).png" }

  // MARK: Globs

  func testIncludes_literalPath_matchesOnlyItself() {
    let filter = IncludeFilter(patterns: [path("bars")])
    XCTAssertTrue(filter.includes(path("bars")))
    XCTAssertFalse(filter.includes(path("bars2")))
    XCTAssertFalse(filter.includes("x/" + path("bars")))
    XCTAssertTrue(IncludeFilter(patterns: ["./" + path("bars")]).includes(path("bars")))
  }

  func testIncludes_backslash_makesTheNextCharacterLiteral_asTheReviewPageExportsPaths() {
    let starred = "\(folder)/a*b?.png"
    let exported = IncludeFilter(patterns: ["\(folder)/a\\*b\\?.png"])
    XCTAssertTrue(exported.includes(starred))
    XCTAssertFalse(exported.includes("\(folder)/axxbc.png"), "an escaped * is not a wildcard")
    XCTAssertTrue(IncludeFilter(patterns: [starred]).includes("\(folder)/axxbc.png"))
    XCTAssertTrue(IncludeFilter(patterns: ["a\\\\b.png"]).includes("a\\b.png"))
    XCTAssertFalse(IncludeFilter(patterns: ["a\\\\b.png"]).includes("ab.png"))
  }

  func testIncludes_star_staysWithinOneFolderName() {
    let filter = IncludeFilter(patterns: ["\(folder)/*.png"])
    XCTAssertTrue(filter.includes(path("bars")))
    XCTAssertTrue(filter.includes("\(folder)/.png"))
    XCTAssertFalse(filter.includes("\(folder)/dark/bars.png"), "* does not cross /")
    XCTAssertFalse(filter.includes("\(folder)/bars.txt"))
    XCTAssertTrue(
      IncludeFilter(patterns: ["Tests/*/__References__/*/b*s.png"]).includes(path("bars")))
  }

  func testIncludes_doubleStar_spansAnyNumberOfFolders() {
    let filter = IncludeFilter(patterns: ["Tests/**/bars.png"])
    XCTAssertTrue(filter.includes("Tests/bars.png"), "**/ matches zero folders")
    XCTAssertTrue(filter.includes(path("bars")))
    XCTAssertFalse(filter.includes(path("flat-bars")))
    XCTAssertFalse(filter.includes("Other/bars.png"))
    XCTAssertTrue(IncludeFilter(patterns: ["**"]).includes(path("bars")))
    XCTAssertTrue(IncludeFilter(patterns: ["Tests/**.png"]).includes(path("dark/bars")))
    XCTAssertFalse(IncludeFilter(patterns: ["Tests/**.png"]).includes("Tests/a/b.jpg"))
  }

  func testIncludes_question_matchesOneCharacterButNotASlash() {
    let filter = IncludeFilter(patterns: ["\(folder)/bar?.png"])
    XCTAssertTrue(filter.includes(path("bars")))
    XCTAssertFalse(filter.includes(path("bar")))
    XCTAssertFalse(filter.includes(path("barss")))
    XCTAssertFalse(IncludeFilter(patterns: ["Tests?ChartTests/**"]).includes(path("bars")))
  }

  func testIncludes_noPatterns_includesNothing_severalPatterns_includeTheUnion() {
    XCTAssertFalse(IncludeFilter(patterns: []).includes(path("bars")))
    let filter = IncludeFilter(patterns: [path("a"), "**/b.png"])
    XCTAssertTrue(filter.includes(path("a")))
    XCTAssertTrue(filter.includes(path("b")))
    XCTAssertFalse(filter.includes(path("c")))
  }

  // MARK: Include files

  func testPatterns_file_skipsCommentsAndBlankLines() throws {
    let file = try makeTemporaryFolder(self).appendingPathComponent("accepted.txt")
    try "# accepted in review\n\n  \(path("a"))  \r\n#\(path("b"))\n**/c.png\n".write(
      to: file, atomically: true, encoding: .utf8)
    XCTAssertEqual(try IncludeFilter.patterns(inFileAt: file), [path("a"), "**/c.png"])
  }

  func testPatterns_missingFile_errorNamesTheFile() throws {
    let file = try makeTemporaryFolder(self).appendingPathComponent("no-such-decisions.txt")
    XCTAssertThrowsError(try IncludeFilter.patterns(inFileAt: file)) { error in
      XCTAssertTrue("\(error)".contains("cannot read the include file \(file.path)"), "\(error)")
    }
  }

  // MARK: The plan step, through a real merge

  /// A destination with two references, and one archive that adds two images, updates both
  /// references, and leaves an orphan.
  private func scenario() throws -> (archive: URL, destination: URL) {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    for (name, seed) in [("old-a", 1), ("old-b", 2), ("orphan", 3)] {
      try writeFile(
        try PNGEncoder().encode(try noiseImage(seed: seed)),
        to: destination.appendingPathComponent(path(name)))
    }
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(path("new-a"), try noiseImage(seed: 10))
    try builder.add(path("new-b"), try noiseImage(seed: 11))
    try builder.add(path("old-a"), try noiseImage(seed: 12))
    try builder.add(path("old-b"), try noiseImage(seed: 13))
    let archive = root.appendingPathComponent("run.zip")
    try builder.write(to: archive)
    return (archive, destination)
  }

  private func merge(
    _ archive: URL, into destination: URL, include: IncludeFilter?, prune: Bool = false,
    dryRun: Bool = false
  ) -> MergeSession.Conclusion {
    var options = MergeOptions()
    options.include = include
    options.prune = prune
    return MergeSession(options: options, destination: destination, writesNothing: dryRun)
      .run(sourcePaths: [archive.path])
  }

  func testApply_landsOnlyIncludedPaths_listsTheRestAsSkipped() throws {
    let (archive, destination) = try scenario()
    let before = try snapshot(destination)
    let outcome = merge(
      archive, into: destination,
      include: IncludeFilter(patterns: [path("new-a"), "**/old-?.png"]), prune: true)
    XCTAssertEqual(outcome.exitCode, 0, outcome.summary.text())
    XCTAssertEqual(outcome.summary.added, 1)
    XCTAssertEqual(outcome.summary.updated, 2)
    XCTAssertEqual(
      outcome.summary.skipped.map(\.path), [path("new-b"), path("orphan")],
      outcome.summary.text())
    XCTAssertEqual(outcome.summary.skipped.map(\.outcome), [.added, .orphan])
    XCTAssertTrue(outcome.summary.text().contains("skipped (not included; left as they are):"))
    XCTAssertTrue(outcome.summary.summaryLine.hasSuffix(", 0 refused, 2 skipped"))

    let after = try snapshot(destination)
    XCTAssertNotNil(after[path("new-a")])
    XCTAssertNil(after[path("new-b")], "a skipped image is not written")
    XCTAssertNotEqual(after[path("old-a")], before[path("old-a")])
    XCTAssertNotEqual(after[path("old-b")], before[path("old-b")])
    XCTAssertEqual(
      after[path("orphan")], before[path("orphan")], "--prune keeps what was not included")
  }

  func testApply_includedOrphan_isPrunedAsBefore() throws {
    let (archive, destination) = try scenario()
    let outcome = merge(
      archive, into: destination, include: IncludeFilter(patterns: [path("orphan")]), prune: true)
    XCTAssertEqual(outcome.exitCode, 0, outcome.summary.text())
    XCTAssertEqual(outcome.summary.pruned, 1)
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: destination.appendingPathComponent(path("orphan")).path))
    XCTAssertEqual(outcome.summary.skipped.count, 4)
  }

  func testApply_emptyFilter_writesNothing_andUnchangedPathsAreNotSkipped() throws {
    let (archive, destination) = try scenario()
    _ = merge(archive, into: destination, include: nil)
    let before = try snapshot(destination)
    let outcome = merge(archive, into: destination, include: IncludeFilter(patterns: []))
    XCTAssertEqual(outcome.exitCode, 0)
    XCTAssertEqual(outcome.summary.unchanged, 4)
    XCTAssertEqual(outcome.summary.skipped.map(\.path), [path("orphan")])
    XCTAssertFalse(outcome.hasChanges)
    assertTreesEqual(before, try snapshot(destination))
  }

  func testApply_conflictOnASkippedPath_doesNotStopTheMerge() throws {
    let (archive, destination) = try scenario()
    var rival = ArchiveBuilder(host: "other-host", generatedAt: day(2))
    try rival.add(path("new-b"), try noiseImage(seed: 99))
    let rivalArchive = archive.deletingLastPathComponent().appendingPathComponent("rival.zip")
    try rival.write(to: rivalArchive)
    let merge = { (include: IncludeFilter?) in
      var options = MergeOptions()
      options.include = include
      return MergeSession(options: options, destination: destination, writesNothing: true)
        .run(sourcePaths: [archive.path, rivalArchive.path])
    }
    XCTAssertEqual(merge(nil).exitCode, MergeSession.ExitCodes.conflicts)
    let filtered = merge(IncludeFilter(patterns: [path("new-a")]))
    XCTAssertEqual(filtered.exitCode, 0, filtered.summary.text())
    XCTAssertEqual(filtered.summary.conflicts, 0)
    XCTAssertTrue(filtered.summary.skipped.contains { $0.outcome == .conflict })
  }

  // MARK: The command line

  func testCommandLine_includeFromFile_dryRunAndJSONListSkipped() throws {
    let (archive, destination) = try scenario()
    let decisions = destination.deletingLastPathComponent().appendingPathComponent("keep.txt")
    try "# decisions\n\(path("new-a"))\n".write(to: decisions, atomically: true, encoding: .utf8)
    let dryRun = try MergeRefs.run([
      "--dry-run", "--include-from", decisions.path, archive.path, destination.path,
    ])
    XCTAssertEqual(dryRun.status, 0, dryRun.all)
    XCTAssertTrue(dryRun.output.contains("added:\n  \(path("new-a"))\n"), dryRun.output)
    XCTAssertTrue(dryRun.output.contains("  \(path("old-a")) (updated)"), dryRun.output)
    XCTAssertTrue(dryRun.output.contains("1 added, 0 updated"), dryRun.output)
    XCTAssertTrue(dryRun.output.contains("4 skipped (dry run: nothing written)"), dryRun.output)

    let json = try MergeRefs.run([
      "--json", "--include", path("old-b"), "--include-from", decisions.path, archive.path,
      destination.path,
    ])
    XCTAssertEqual(json.status, 0, json.all)
    let summary = try decodedSummary(json.output)
    XCTAssertEqual(summary.changes.map(\.path), [path("new-a"), path("old-b")])
    XCTAssertEqual(summary.skipped.map(\.path), [path("new-b"), path("old-a"), path("orphan")])
  }

  func testCommandLine_unreadableIncludeFile_isAUsageErrorNamingIt() throws {
    let (archive, destination) = try scenario()
    let before = try snapshot(destination)
    let result = try MergeRefs.run([
      "--include-from", "/nonexistent/decisions.txt", archive.path, destination.path,
    ])
    XCTAssertEqual(result.status, 64, result.all)
    XCTAssertTrue(
      result.error.contains("cannot read the include file /nonexistent/decisions.txt"), result.all)
    assertTreesEqual(before, try snapshot(destination))
  }
}
