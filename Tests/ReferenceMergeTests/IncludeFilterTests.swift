import Foundation
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// `IncludeFilter`: glob matching, include files, and the plan step (the command line's
/// `--include` flags are `IncludeOutputTests`').
final class IncludeFilterTests: XCTestCase {
  private let folder = "Tests/ChartTests/__References__/BarChart"

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

  // MARK: The plan step

  /// `MergeScenario.updateOfTwoReferencesBesideAnOrphan`.
  private func scenario() throws -> MergeScenario {
    let merge = try MergeScenario(self)
    try merge.updateOfTwoReferencesBesideAnOrphan()
    return merge
  }

  func testApply_landsOnlyIncludedPaths_listsTheRestAsSkipped() throws {
    let merge = try scenario()
    merge.options.include = IncludeFilter(patterns: [path("new-a"), "**/old-?.png"])
    merge.options.prune = true
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["new-a": .added, "old-a": .updated, "old-b": .updated])
    XCTAssertEqual(verdict.skipped, ["new-b", "orphan"])
    XCTAssertEqual(verdict.plan.skipped.map(\.outcome), [.added, .orphan])
    XCTAssertTrue(merge.exists("new-a"))
    XCTAssertFalse(merge.exists("new-b"), "a skipped image is not written")
    XCTAssertEqual(merge.bytes("old-a"), try Pixels.seed(12).png())
    XCTAssertEqual(merge.bytes("old-b"), try Pixels.seed(13).png())
    XCTAssertEqual(
      try merge.package()[path("orphan")], before[path("orphan")],
      "--prune keeps what was not included")
  }

  func testApply_includedOrphan_isPrunedAsBefore() throws {
    let merge = try scenario()
    merge.options.include = IncludeFilter(patterns: [path("orphan")])
    merge.options.prune = true

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["orphan": .orphan])
    XCTAssertEqual(verdict.summary.pruned, 1)
    XCTAssertFalse(merge.exists("orphan"))
    XCTAssertEqual(verdict.skipped, ["new-a", "new-b", "old-a", "old-b"])
  }

  func testApply_emptyFilter_writesNothing_andUnchangedPathsAreNotSkipped() throws {
    let merge = try scenario()
    _ = merge.run()
    let before = try merge.package()
    merge.options.include = IncludeFilter(patterns: [])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.names(.unchanged), ["new-a", "new-b", "old-a", "old-b"])
    XCTAssertEqual(verdict.skipped, ["orphan"])
    XCTAssertFalse(verdict.conclusion.hasChanges)
    assertTreesEqual(before, try merge.package())
  }

  func testApply_conflictOnASkippedPath_doesNotStopTheMerge() throws {
    let merge = try scenario()
    try merge.archive("rival.zip", ["new-b": .seed(99)], host: "other-host", generatedAt: day(2))

    XCTAssertEqual(merge.plan().status, .conflicts)

    merge.options.include = IncludeFilter(patterns: [path("new-a")])
    let filtered = merge.plan()

    XCTAssertEqual(filtered.status, .success, "\(filtered.problems)")
    XCTAssertEqual(filtered.names(.conflict), [])
    XCTAssertTrue(filtered.plan.skipped.contains { $0.outcome == .conflict })
  }
}
