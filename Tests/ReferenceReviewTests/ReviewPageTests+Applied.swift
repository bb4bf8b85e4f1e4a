import Foundation
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import XCTest

/// The review page says what applying did, file by file, in real Chromium: a merge whose
/// reference folder cannot be written lands nothing, and its page says so and exports the land
/// file; a merge stopped by a failed write after one file marks the others "not written".
extension ReviewPageTests {
  /// A package holding `a-updated.png` and `c-updated.png`, an archive that updates both and
  /// adds `b-added.png`, and the report of merging it with renames into the reference folder
  /// failing as a read-only folder makes them fail for a user who is not root, after
  /// `successes` renames.
  private func reportOfReadOnlyFolder(after successes: Int) throws -> AppliedScenario {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    let folder = "Tests/ChartTests/__References__/ReadOnly"
    let paths = ["a-updated", "b-added", "c-updated"].map { "\(folder)/\($0).png" }
    var builder = ArchiveBuilder(generatedAt: day(1))
    for (index, path) in paths.enumerated() {
      let earlier = try noiseImage(seed: 10 + index)
      if !path.contains("added") {
        try writeFile(
          try PNGEncoder().encode(earlier), to: destination.appendingPathComponent(path))
      }
      try builder.add(path, try changingPixels(earlier, count: 40))
    }
    let archive = root.appendingPathComponent("run.zip")
    try builder.write(to: archive)
    let review = root.appendingPathComponent("review")
    var session = MergeSession(
      options: MergeOptions(), destination: destination, writesNothing: false,
      reportURL: review)
    session.report = ReviewReport.write(_:request:)
    session.fileCalls = .failingRenames(EACCES, after: successes)
    let outcome = session.run(sourcePaths: [archive.path])
    XCTAssertEqual(outcome.status, .writeFailed, outcome.summary.text())
    return AppliedScenario(
      root: root, destination: destination, archive: archive, folder: folder, paths: paths,
      report: Report(
        index: review.appendingPathComponent("index.html"), cards: try reviewData(review)))
  }

  private struct AppliedScenario {
    var root: URL
    var destination: URL
    var archive: URL
    var folder: String
    var paths: [String]
    var report: Report
  }

  func testReadOnlyReferenceFolder_pageSaysNothingWritten_exportsTheLandFile() throws {
    let s = try reportOfReadOnlyFolder(after: 0)

    let result = try drive(
      s.report,
      steps: [
        ["state": "start"], ["export": "initial"], ["press": ["r"]], ["export": "decided"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")

    let start = try XCTUnwrap(result.states["start"])
    XCTAssertTrue(
      start.changesState?.hasPrefix(
        "Not written: merge-refs could not write into the package (see the problems below)")
        == true, "never \"Landed\": \(start.changesState ?? "no line")")
    XCTAssertTrue(
      start.problems.contains { $0.contains("chmod u+rwx \(s.folder)") },
      "the page names the folder and the fix, as the terminal does: \(start.problems)")
    XCTAssertTrue(start.summary.contains(", 3 not written — "), start.summary)
    XCTAssertEqual(start.status, "undecided (lands)")
    XCTAssertEqual(start.downloadLabel, "Download accepted paths", "no restore file")
    XCTAssertFalse(start.command.contains("before.zip"), start.command)
    XCTAssertTrue(start.command.contains("--include-from reference-decisions.txt"), start.command)
    let initial = try XCTUnwrap(result.exports["initial"])
    XCTAssertEqual(initial.file, "reference-decisions.txt")
    XCTAssertEqual(initial.accepted, s.paths, "undecided changes land once the folder is writable")

    // The folder writable again, the exported file lands what was not rejected.
    let decided = try XCTUnwrap(result.exports["decided"])
    let file = s.root.appendingPathComponent(decided.file)
    try decided.text.write(to: file, atomically: true, encoding: .utf8)
    let land = try MergeRefs.run(
      ["--include-from", file.path, s.archive.path, s.destination.path])
    XCTAssertEqual(land.exitStatus, .success, land.all)
    XCTAssertTrue(land.output.contains("1 added, 1 updated"), land.all)
  }

  func testWriteFailedAfterOneFile_cardsNotReachedSayNotWritten_onlyTheWrittenRestore() throws {
    let s = try reportOfReadOnlyFolder(after: 1)
    let (written, added, unreached) = (s.paths[0], s.paths[1], s.paths[2])

    let result = try drive(
      s.report,
      steps: [
        ["state": "start"], ["press": ["j"]], ["state": "added"], ["press": ["r", "j"]],
        ["state": "unreached"], ["press": ["r", "Home", "r"]], ["export": "rejected"],
        ["cards": "all"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")

    let start = try XCTUnwrap(result.states["start"])
    XCTAssertTrue(
      start.changesState?.hasPrefix(
        "Landed in part: a write failed (see the problems below), "
          + "so 2 of the changes were not written") == true, start.changesState ?? "no line")
    XCTAssertEqual(start.path, written)
    XCTAssertEqual(start.status, "landed", "the one file written")
    XCTAssertEqual(start.acceptedCount, "0 kept · 0 to restore · 1 undecided — 1 of 1 stay")
    for name in ["added", "unreached"] {
      let state = try XCTUnwrap(result.states[name])
      XCTAssertEqual(state.status, "not written", "\(name): as it was")
      XCTAssertTrue(
        state.cardNote?.contains("Not written: a write failed before the merge reached this file")
          == true, "\(name): \(state.cardNote ?? "no note")")
    }
    XCTAssertEqual(result.states["added"]?.path, added)
    XCTAssertEqual(result.states["unreached"]?.path, unreached)
    let decidable = try XCTUnwrap(result.cardsSeen["all"]).filter(\.decidable).map(\.path)
    XCTAssertEqual(decidable, [written], "only a written file can be kept or restored")
    let rejected = try XCTUnwrap(result.exports["rejected"])
    XCTAssertEqual(rejected.file, "reference-restore.txt")
    XCTAssertEqual(rejected.accepted, [written], "r on a file not written restores nothing")
    XCTAssertFalse(rejected.text.contains("rm -- "), "nor removes an image never added")
  }
}

extension ReviewPageTests {
  /// A merge whose references already held every render wrote nothing (its one card, an
  /// orphan, is not pruned): its page says nothing about landing.
  func testLandedMergeThatWroteNothing_pageHasNoLandedLine() throws {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    let path = "Tests/ChartTests/__References__/Same/same.png"
    let image = try noiseImage(seed: 3)
    try writeFile(try PNGEncoder().encode(image), to: destination.appendingPathComponent(path))
    try writeFile(
      try PNGEncoder().encode(try noiseImage(seed: 4)),
      to: destination.appendingPathComponent("Tests/ChartTests/__References__/Same/old.png"))
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(path, image)
    let archive = root.appendingPathComponent("run.zip")
    try builder.write(to: archive)
    let review = root.appendingPathComponent("review")
    var session = MergeSession(
      options: MergeOptions(), destination: destination, writesNothing: false,
      reportURL: review)
    session.report = ReviewReport.write(_:request:)
    let outcome = session.run(sourcePaths: [archive.path])
    XCTAssertEqual(outcome.status, .success, outcome.summary.text())
    XCTAssertTrue(
      outcome.summary.text().contains("0 added, 0 updated, 1 unchanged, 0 conflicts, 1 orphans"),
      outcome.summary.text())

    let result = try drive(
      Report(index: review.appendingPathComponent("index.html"), cards: try reviewData(review)),
      steps: [["state": "start"]])
    XCTAssertEqual(result.errors, [], "the page logged errors")
    XCTAssertEqual(result.states["start"]?.changesState, "")
  }
}
