import Foundation
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// The command line: argument errors, `--dry-run`, `--check`, `--json`, `--keep-going`, and
/// links in the destination.
final class MergeRefsCommandTests: XCTestCase {
  private var merge: MergeScenario!
  private var root: URL { merge.root }
  private var destination: URL { merge.destination }
  private var imagePath: String { merge.path("pie") }

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: "Tests/ChartTests/__References__/Pie")
  }

  /// A finished run's archive rendering `pie` with `seed`.
  private func archive(_ name: String = "run.zip", seed: Int = 1) throws -> URL {
    try merge.archive(name, ["pie": .seed(seed)])
  }

  // MARK: Argument errors

  func testArguments_lastArgumentIsAZip_exit64WithAClearMessage() throws {
    let source = try archive()
    let before = try snapshot(root)

    let result = try MergeRefs.run([destination.path, source.path])

    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(
      result.error.contains(
        "the last argument, \(source.path), is a zip file; it must be the destination folder"),
      result.all)
    assertTreesEqual(try snapshot(root), before)
  }

  func testArguments_missingSource_exit64NamingIt() throws {
    let missing = root.appendingPathComponent("no such archive.zip").path

    let result = try MergeRefs.run([missing, destination.path])

    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(result.error.contains("the source \(missing) does not exist"), result.all)
  }

  func testArguments_fewerThanTwo_exit64() throws {
    for arguments in [[], [destination.path], ["--prune", destination.path]] {
      let result = try MergeRefs.run(arguments)
      XCTAssertEqual(result.exitStatus, .invalidArguments, "\(arguments): \(result.all)")
      XCTAssertTrue(
        result.error.contains("give at least one SOURCE and the DESTINATION folder"), result.all)
    }
  }

  func testArguments_destinationNotAFolder_exit64() throws {
    let source = try archive()
    let missing = root.appendingPathComponent("no such folder").path

    let result = try MergeRefs.run([source.path, missing])

    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(result.error.contains("the destination \(missing) is not an existing folder"))
  }

  func testArguments_unknownConflictPolicy_exit64() throws {
    let result = try MergeRefs.run([
      try archive().path, "--on-conflict", "oldest", destination.path,
    ])
    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
  }

  // MARK: Dry run and check

  func testDryRun_printsThePlanAndWritesNothing() throws {
    let source = try archive()
    let before = try snapshot(root)

    let result = try MergeRefs.run([source.path, "--dry-run", destination.path])

    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(result.output.contains("added:\n  \(imagePath)\n"), result.output)
    XCTAssertTrue(result.output.hasSuffix("(dry run: nothing written)\n"), result.output)
    assertTreesEqual(try snapshot(root), before)
  }

  func testCheck_changesPending_exit4AndWritesNothing_thenUpToDate_exit0() throws {
    let source = try archive()
    let before = try snapshot(root)

    let pending = try MergeRefs.run([source.path, "--check", destination.path])
    XCTAssertEqual(pending.exitStatus, .checkFoundChanges, pending.all)
    assertTreesEqual(try snapshot(root), before)

    XCTAssertEqual(try MergeRefs.run([source.path, destination.path]).exitStatus, .success)
    let upToDate = try MergeRefs.run([source.path, "--check", destination.path])
    XCTAssertEqual(upToDate.exitStatus, .success, upToDate.all)
    XCTAssertTrue(upToDate.output.contains("0 added, 0 updated, 1 unchanged"), upToDate.output)

    let changed = try archive("changed.zip", seed: 2)
    XCTAssertEqual(
      try MergeRefs.run([changed.path, "--check", destination.path]).exitStatus, .checkFoundChanges)
  }

  // MARK: JSON

  func testJSON_parsesAndCarriesTheCounts() throws {
    let source = try archive()

    let result = try MergeRefs.run([source.path, "--json", destination.path])

    XCTAssertEqual(result.exitStatus, .success, result.all)
    let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    let dictionary = try XCTUnwrap(object as? [String: Any], result.output)
    XCTAssertEqual(dictionary["added"] as? Int, 1)
    let summary = try decodedSummary(result.output)
    XCTAssertEqual(summary.destination, destination.path)
    XCTAssertEqual(summary.changes.map(\.path), [imagePath])
    XCTAssertEqual(summary.changes.first?.outcome, .added)
    XCTAssertEqual(summary.sources.map(\.name), [source.path])
    XCTAssertEqual(summary.sources.first?.worker, "ci-host pid 4242")
    XCTAssertTrue(summary.applied)
  }

  func testJSON_conflict_parsesWithBothRivals() throws {
    var first = ArchiveBuilder(host: "a", generatedAt: day(1))
    try first.add(imagePath, try noiseImage(seed: 1))
    var second = ArchiveBuilder(host: "b", generatedAt: day(2))
    try second.add(imagePath, try changingPixels(try noiseImage(seed: 1), count: 5))
    let firstURL = root.appendingPathComponent("a.zip")
    let secondURL = root.appendingPathComponent("b.zip")
    try first.write(to: firstURL)
    try second.write(to: secondURL)

    let result = try MergeRefs.run([firstURL.path, secondURL.path, "--json", destination.path])

    XCTAssertEqual(result.exitStatus, .conflicts, result.all)
    let summary = try decodedSummary(result.output)
    XCTAssertEqual(summary.conflicts, 1)
    XCTAssertEqual(summary.changes.first?.sources, [secondURL.path, firstURL.path])
    XCTAssertEqual(summary.changes.first?.workers, ["b pid 4242", "a pid 4242"])
    XCTAssertEqual(summary.changes.first?.differingPixels, 5)
    XCTAssertFalse(summary.applied)
  }

  // MARK: Keep going

  func testKeepGoing_appliesGoodSourcesAndExits3NamingTheBadOne() throws {
    let good = try archive()
    let bad = hostileFixture("traversal.zip")

    let result = try MergeRefs.run([good.path, bad.path, "--keep-going", destination.path])

    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertTrue(
      result.output.contains("error: \(bad.path): refused entry '../escaped.png'"), result.output)
    XCTAssertTrue(result.output.contains("1 added, 0 updated"), result.output)
    XCTAssertTrue(result.output.contains(", 1 refused\n"), result.output)
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: destination.appendingPathComponent(imagePath).path))
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: root.appendingPathComponent("escaped.png").path))
  }

  /// A truncated archive fails while its arguments are expanded; it must still count as a
  /// refused source, and orphans must not be pruned without it.
  func testKeepGoing_truncatedArchiveWithPrune_exit3AndNoOrphanDeleted() throws {
    let orphan = destination.appendingPathComponent("Tests/ChartTests/__References__/Pie/old.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 9)), to: orphan)
    let good = try archive()
    let truncated = hostileFixture("truncated.zip")

    let result = try MergeRefs.run([
      good.path, truncated.path, "--keep-going", "--prune", destination.path,
    ])

    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertTrue(
      result.output.contains(
        "error: \(truncated.path) is truncated (284 bytes; its end record is missing): "
          + "download it again"), result.output)
    XCTAssertTrue(
      result.output.contains("1 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused"),
      result.output)
    XCTAssertTrue(FileManager.default.fileExists(atPath: orphan.path), "an orphan was pruned")
  }

  // MARK: An unwritable destination

  /// Sets or clears the immutable attribute; false when this machine cannot (not root, or a
  /// file system without attributes).
  @discardableResult
  private func chattr(_ flag: String, _ url: URL) -> Bool {
    (try? runProcess("/usr/bin/env", ["chattr", flag, url.path]).status) == 0
  }

  func testMerge_immutableReferenceFolder_exit1NamesFolderCauseAndFix_losesNothing() throws {
    let folder = "Tests/ChartTests/__References__/Pie"
    let references = destination.appendingPathComponent(folder)
    try writeFile(
      try PNGEncoder().encode(try noiseImage(seed: 77)),
      to: references.appendingPathComponent("pie.png"))
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(imagePath, try noiseImage(seed: 1))
    try builder.add("\(folder)/new.png", try noiseImage(seed: 2))
    let source = root.appendingPathComponent("run.zip")
    try builder.write(to: source)
    guard chattr("+i", references) else {
      throw XCTSkip("chattr +i needs root and a file system with attributes")
    }
    defer { chattr("-i", references) }
    let before = try snapshot(destination)
    let review = root.appendingPathComponent("review")

    let result = try MergeRefs.run(["--report", review.path, source.path, destination.path])

    XCTAssertEqual(result.exitStatus, .writeFailed, result.all)
    let error = String(
      try XCTUnwrap(
        result.output.split(separator: "\n").first { $0.hasPrefix("error: ") }, result.all))
    XCTAssertTrue(
      error.hasPrefix("error: could not write \(folder)/"), "names the reference: \(error)")
    XCTAssertTrue(error.contains(" in \(destination.path): operation not permitted ("), error)
    XCTAssertTrue(error.contains("\(folder) may be immutable or append-only"), error)
    XCTAssertFalse(error.contains("rerun the same command"), "rerunning cannot help: \(error)")
    XCTAssertTrue(error.hasSuffix("Nothing is lost: every reference not written is as it was"))
    XCTAssertTrue(
      result.output.contains(
        "0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused, 2 not written "
          + "(nothing written)\n"), result.all)
    XCTAssertFalse(result.output.contains("\nadded:"), result.all)
    XCTAssertFalse(result.output.contains("\nupdated:"), result.all)
    assertTreesEqual(try snapshot(destination), before, "the references must stay as they were")
    // The page says what the terminal says: nothing written, and no restore file.
    let page = try ReviewDataScript.object(inReport: review)
    XCTAssertEqual(page["changes"] as? String, "failed")
    XCTAssertEqual(page["decisionFile"] as? String, "reference-decisions.txt")
    XCTAssertEqual((page["notWritten"] as? [String])?.count, 2)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: review.appendingPathComponent("before.zip").path))

    // The fix, as printed, run in the package root: the merge then lands.
    let fix = try XCTUnwrap(error.split(separator: "`").first { $0.hasPrefix("chattr -i -a ") })
    let fixed = try runProcess("/bin/sh", ["-c", String(fix)], in: destination)
    XCTAssertEqual(fixed.exitStatus, .success, fixed.all)
    let rerun = try MergeRefs.run([source.path, destination.path])
    XCTAssertEqual(rerun.exitStatus, .success, rerun.all)
    XCTAssertTrue(rerun.output.contains("1 added, 1 updated, 0 unchanged"), rerun.all)
  }

  // MARK: Links in the destination

  func testMerge_symlinkedFolderInDestination_neverWrittenThrough() throws {
    let outside = root.appendingPathComponent("outside")
    try writeFile(Array("keep".utf8), to: outside.appendingPathComponent("note.txt"))
    let links = destination.appendingPathComponent("Tests/ChartTests/__References__")
    try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: links.appendingPathComponent("Pie"), withDestinationURL: outside)
    let source = try archive()
    let before = try snapshot(root)

    let result = try MergeRefs.run([source.path, destination.path])

    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertTrue(
      result.output.contains(
        "\(links.path)/Pie is a symbolic link; merge-refs does not write through links"),
      result.output)
    assertTreesEqual(try snapshot(root), before)
  }

  func testMerge_symlinkedReferenceInDestination_neverWrittenThrough() throws {
    let outside = root.appendingPathComponent("outside.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 7)), to: outside)
    let link = destination.appendingPathComponent(imagePath)
    try FileManager.default.createDirectory(
      at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
    let source = try archive()
    let before = try snapshot(root)

    for options in [[], ["--keep-going"], ["--on-conflict", "newest", "--prune"]] {
      let result = try MergeRefs.run([source.path] + options + [destination.path])

      XCTAssertEqual(result.exitStatus, .refusedInput, "\(options): \(result.all)")
      XCTAssertTrue(result.output.contains("\(link.path) is a symbolic link"), result.output)
      assertTreesEqual(try snapshot(root), before, "\(options)")
    }
  }
}
