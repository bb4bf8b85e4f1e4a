import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import XCTest

/// A report knows whether it landed: the review data of `merge-refs --report` says `landed`
/// when the merge wrote the changes (naming the files a failed write did not reach), `failed`
/// when a write failed before any file was written, `pending` for a dry run and `stopped` when
/// problems or conflicts stopped the merge before writing. A landed report keeps the references the merge
/// replaced (`before.zip`), and its command restores a rejected change from them, bound to the
/// landed and the earlier pixels like an approval. (The page's own export of a rejection is
/// driven in Chromium by `ReviewPageTests`.)
final class LandedReportTests: XCTestCase {
  private let folder = "Tests/ChartTests/__References__/BarChart"
  private func hex(_ image: RGBAImage) -> String { SHA256.hex(image.pixels) }

  /// A package with the references `old-a` and `old-b`, and an archive that updates both and
  /// adds `new-a`.
  private struct Scenario {
    var root: URL
    var destination: URL
    var archive: URL
    /// The references' PNG bytes before the merge, by path.
    var earlierPNG: [String: [UInt8]]
    var earlier: [String: RGBAImage]
    var renders: [String: RGBAImage]
  }

  private func scenario() throws -> Scenario {
    let merge = try MergeScenario(self)
    var earlierPNG: [String: [UInt8]] = [:]
    var earlier: [String: RGBAImage] = [:]
    for (name, seed) in [("old-a", 1), ("old-b", 2)] {
      // The slow setting, unlike the archive's: the restore must give back these very bytes.
      earlierPNG[path(name)] = try merge.reference(name, .seed(seed), setting: .small)
      earlier[path(name)] = try noiseImage(seed: seed)
    }
    let renders: KeyValuePairs<String, Pixels> = [
      "new-a": .seed(10), "old-a": .changed(seed: 1, pixels: 5),
      "old-b": .changed(seed: 2, pixels: 7),
    ]
    let archive = try merge.archive("artifacts/run 1.zip", renders)
    return Scenario(
      root: merge.root, destination: merge.destination, archive: archive,
      earlierPNG: earlierPNG, earlier: earlier,
      renders: Dictionary(uniqueKeysWithValues: try renders.map { (path($0), try $1.image()) }))
  }

  /// The image the package holds at a path.
  private func reference(_ path: String, in s: Scenario) throws -> RGBAImage {
    try PNGDecoder().decode(try FileSystem.read(s.destination.appendingPathComponent(path)))
  }

  /// A report's earlier references by path, after checking the entry that says what they are.
  private func earlierReferences(_ zip: URL) throws -> [String: [UInt8]] {
    var entries: [String: [UInt8]] = [:]
    try ZipReader(limits: .default).forEachEntry(in: .file(zip)) { entries[$0.path] = $0.bytes }
    let marker = entries.removeValue(forKey: ReportRequest.earlierReferencesMarker)
    XCTAssertEqual(
      marker.map { String(decoding: $0, as: UTF8.self) }, ReportRequest.earlierReferencesNote)
    return entries
  }

  // MARK: What the first screen says

  func testDryRun_saysPending_writesNoEarlierReferences() throws {
    let s = try scenario()
    let review = s.root.appendingPathComponent("review")
    let before = try snapshot(s.destination)
    let run = try MergeRefs.run([
      "--dry-run", "--report", review.path, s.archive.path, s.destination.path,
    ])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    assertTreesEqual(try snapshot(s.destination), before, "a dry run writes nothing")
    let data = try ReviewDataScript.object(inReport: review)
    XCTAssertEqual(data["changes"] as? String, "pending")
    XCTAssertEqual(data["decisionFile"] as? String, "reference-decisions.txt")
    let command = try XCTUnwrap(data["command"] as? [String])
    XCTAssertEqual(
      Array(command.suffix(4)),
      ["--include-from", "reference-decisions.txt", s.archive.path, s.destination.path],
      "the land command, as before")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: review.appendingPathComponent("before.zip").path),
      "nothing was replaced, so nothing is kept")
  }

  func testStoppedMerge_saysStopped_evenWhenTheStopComesFromRequireComplete() throws {
    let s = try scenario()
    // A second run that disagrees about old-a: a conflict stops the merge.
    var second = ArchiveBuilder(host: "other-host", generatedAt: day(2))
    try second.add(path("old-a"), try noiseImage(seed: 77))
    let disagreeing = s.root.appendingPathComponent("artifacts/run 2.zip")
    try second.write(to: disagreeing)
    let review = s.root.appendingPathComponent("review")
    let conflict = try MergeRefs.run([
      "--report", review.path, s.archive.path, disagreeing.path, s.destination.path,
    ])
    XCTAssertEqual(conflict.exitStatus, .conflicts, conflict.all)
    XCTAssertEqual(try ReviewDataScript.object(inReport: review)["changes"] as? String, "stopped")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: review.appendingPathComponent("before.zip").path))

    // --require-complete refuses a source without a manifest: decided after the other problems,
    // and still before the report, which says so.
    var incomplete = ArchiveBuilder(generatedAt: day(2))
    incomplete.includesManifest = false
    try incomplete.add(path("new-b"), try noiseImage(seed: 20))
    let unfinished = s.root.appendingPathComponent("artifacts/unfinished.zip")
    try incomplete.write(to: unfinished)
    let refused = try MergeRefs.run([
      "--require-complete", "--report", review.path, s.archive.path, unfinished.path,
      s.destination.path,
    ])
    XCTAssertEqual(refused.exitStatus, .refusedInput, refused.all)
    let data = try ReviewDataScript.object(inReport: review)
    XCTAssertEqual(data["changes"] as? String, "stopped")
    XCTAssertTrue(
      (data["problems"] as? [String] ?? []).contains { $0.contains("--require-complete") },
      "\(data["problems"] ?? "none")")
    XCTAssertEqual(
      try reference(path("old-a"), in: s).pixels, s.earlier[path("old-a")]?.pixels,
      "nothing was written")
  }

  func testLandedMerge_saysLanded_keepsTheEarlierReferencesByteForByte() throws {
    let s = try scenario()
    let review = s.root.appendingPathComponent("review")
    let run = try MergeRefs.run(["--report", review.path, s.archive.path, s.destination.path])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertTrue(run.output.contains("1 added, 2 updated"), run.output)
    let data = try ReviewDataScript.object(inReport: review)
    XCTAssertEqual(data["changes"] as? String, "landed")
    XCTAssertEqual(data["decisionFile"] as? String, "reference-restore.txt")
    let kept = review.appendingPathComponent("before.zip")
    XCTAssertEqual(
      try XCTUnwrap(data["command"] as? [String]).suffix(4),
      ["--include-from", "reference-restore.txt", kept.path, s.destination.path])
    XCTAssertEqual(data["commandDestination"] as? String, s.destination.path)
    XCTAssertEqual(
      try earlierReferences(kept), s.earlierPNG,
      "the replaced references, at their paths, as they were")
  }

  // MARK: What applying did

  /// The merge in-process with a report, its renames into the reference folder failing as a
  /// read-only folder makes them fail for a user who is not root, after `successes` renames.
  private func mergeIntoReadOnlyFolder(_ s: Scenario, report: URL, after successes: Int = 0)
    -> MergeSession.Conclusion
  {
    var session = MergeSession(
      options: MergeOptions(), destination: s.destination, writesNothing: false,
      reportURL: report)
    session.report = ReviewReport.write(_:request:)
    session.fileCalls = .failingRenames(EACCES, after: successes)
    return session.run(sourcePaths: [s.archive.path])
  }

  func testReadOnlyReferenceFolder_reportSaysNothingWritten_landsTheDecisionsLater() throws {
    let s = try scenario()
    let review = s.root.appendingPathComponent("review")
    let before = try snapshot(s.destination)

    let outcome = mergeIntoReadOnlyFolder(s, report: review)

    XCTAssertEqual(outcome.status, .writeFailed, outcome.summary.text())
    assertTreesEqual(try snapshot(s.destination), before, "nothing was written")
    let data = try ReviewDataScript.object(inReport: review)
    XCTAssertEqual(data["changes"] as? String, "failed", "the page says what applying did")
    XCTAssertEqual(data["decisionFile"] as? String, "reference-decisions.txt")
    XCTAssertEqual(
      try XCTUnwrap(data["command"] as? [String]).suffix(4),
      ["--include-from", "reference-decisions.txt", s.archive.path, s.destination.path],
      "the land command, for once the folder is writable: no restore of what never landed")
    XCTAssertEqual(
      (data["notWritten"] as? [String])?.sorted(), [path("new-a"), path("old-a"), path("old-b")])
    let problems = try XCTUnwrap(data["problems"] as? [String])
    XCTAssertTrue(
      problems.contains { $0.contains("chmod u+rwx \(folder)") },
      "the page names the folder and the fix, as the terminal does: \(problems)")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: review.appendingPathComponent("before.zip").path),
      "no restore source for references never replaced")
    XCTAssertEqual(outcome.summary.report, review.appendingPathComponent("index.html").path)
  }

  func testReadOnlyReferenceFolder_singleFileReport_keepsNoRestoreSourceBesideIt() throws {
    let s = try scenario()
    let page = s.root.appendingPathComponent("review.html")

    let outcome = mergeIntoReadOnlyFolder(s, report: page)

    XCTAssertEqual(outcome.status, .writeFailed, outcome.summary.text())
    let (_, script) = try ReviewDataScript.splitSingleFile(
      try String(contentsOf: page, encoding: .utf8))
    XCTAssertEqual(try ReviewDataScript.object(of: script)["changes"] as? String, "failed")
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: s.root.appendingPathComponent("review-before.zip").path))
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: s.root.path).sorted(),
      ["artifacts", s.destination.lastPathComponent, "review.html"],
      "no temporary file left beside the report")
  }

  func testWriteFailsAfterOneFile_reportSaysLanded_namesTheFilesNotWritten() throws {
    let s = try scenario()
    let review = s.root.appendingPathComponent("review")

    let outcome = mergeIntoReadOnlyFolder(s, report: review, after: 1)

    XCTAssertEqual(outcome.status, .writeFailed, outcome.summary.text())
    let written = outcome.summary.changes.filter { $0.notWritten != true }.map(\.path)
    XCTAssertEqual(written.count, 1, outcome.summary.text())
    let data = try ReviewDataScript.object(inReport: review)
    XCTAssertEqual(data["changes"] as? String, "landed", "one file was written")
    XCTAssertEqual(
      (data["notWritten"] as? [String])?.sorted(),
      [path("new-a"), path("old-a"), path("old-b")].filter { !written.contains($0) },
      "the page's status of each file is what applying did to it")
    XCTAssertEqual(data["decisionFile"] as? String, "reference-restore.txt")
  }

  func testLandedMerge_namesNoFileNotWritten() throws {
    let s = try scenario()
    let review = s.root.appendingPathComponent("review")
    XCTAssertEqual(
      try MergeRefs.run(["--report", review.path, s.archive.path, s.destination.path]).exitStatus,
      .success)
    let data = try ReviewDataScript.object(inReport: review)
    XCTAssertEqual(data["changes"] as? String, "landed")
    XCTAssertEqual(data["notWritten"] as? [String], [])
  }

  // MARK: Restoring

  /// The restore file as the page exports it for rejected updated cards: path, the landed
  /// pixels, the earlier pixels.
  private func restoreFile(rejecting paths: [String], report: URL, in folder: URL) throws
    -> String
  {
    let data = try ReviewDataScript.object(inReport: report)
    let cards = try XCTUnwrap(data["cards"] as? [[String: Any]])
    let lines = try paths.map { path in
      let card = try XCTUnwrap(cards.first { $0["path"] as? String == path }, path)
      let landed = try XCTUnwrap(card["afterPixels"] as? String)
      let earlier = try XCTUnwrap(card["beforePixels"] as? String)
      return "\(path)\t\(landed)\t\(earlier)\n"
    }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try ("# Landed changes rejected in review\n" + lines.joined()).write(
      to: folder.appendingPathComponent("reference-restore.txt"), atomically: true,
      encoding: .utf8)
    return try XCTUnwrap(data["command"] as? [String]).map(ShellWord.quoted).joined(separator: " ")
  }

  func testRestore_putsBackExactlyTheEarlierFile_onlyForTheRejected() throws {
    let s = try scenario()
    let review = s.root.appendingPathComponent("review")
    XCTAssertEqual(
      try MergeRefs.run(["--report", review.path, s.archive.path, s.destination.path]).exitStatus,
      .success)
    let downloads = s.root.appendingPathComponent("Downloads")
    let command = try restoreFile(rejecting: [path("old-a")], report: review, in: downloads)
    let restore = try runProcess("/bin/sh", ["-c", command], in: downloads)
    XCTAssertEqual(restore.exitStatus, .success, restore.all)
    XCTAssertTrue(restore.output.contains("0 added, 1 updated"), restore.output)
    XCTAssertTrue(
      restore.output.contains(
        "restored (the earlier references a review kept, put back):\n  \(path("old-a"))\n"),
      restore.output)
    XCTAssertFalse(restore.output.contains("\nupdated:"), restore.output)
    XCTAssertTrue(restore.output.hasPrefix("1 source: 2 images\n"), restore.output)
    XCTAssertFalse(
      restore.output.contains("incomplete"),
      "the report's earlier references are what they say, not a cut-short run: \(restore.all)")
    XCTAssertEqual(
      try FileSystem.read(s.destination.appendingPathComponent(path("old-a"))),
      s.earlierPNG[path("old-a")], "the earlier file, byte for byte")
    XCTAssertEqual(
      try reference(path("old-b"), in: s).pixels, s.renders[path("old-b")]?.pixels,
      "kept as landed")
    XCTAssertEqual(
      try reference(path("new-a"), in: s).pixels, s.renders[path("new-a")]?.pixels,
      "an added image is never touched by the restore")

    let again = try runProcess("/bin/sh", ["-c", command + " --json"], in: downloads)
    XCTAssertEqual(again.exitStatus, .success, again.all)
    let summary = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(again.output.utf8)) as? [String: Any], again.all)
    XCTAssertEqual(summary["updated"] as? Int, 0, "restored once: \(again.output)")
    XCTAssertEqual(summary["unchanged"] as? Int, 1, again.output)
    let source = try XCTUnwrap((summary["sources"] as? [[String: Any]])?.first, again.output)
    XCTAssertEqual(source["earlierReferences"] as? Bool, true, again.output)
    XCTAssertNil(source["incompleteReason"], "not a cut-short run: \(again.output)")
    XCTAssertEqual(summary["warnings"] as? [String], [], again.output)
  }

  func testRestore_referenceChangedAgainSinceTheReport_isRefused_nothingWritten() throws {
    let s = try scenario()
    let review = s.root.appendingPathComponent("review")
    XCTAssertEqual(
      try MergeRefs.run(["--report", review.path, s.archive.path, s.destination.path]).exitStatus,
      .success)
    let downloads = s.root.appendingPathComponent("Downloads")
    let command = try restoreFile(
      rejecting: [path("old-a"), path("old-b")], report: review, in: downloads)
    // Someone changed old-a again after the report.
    let newer = try noiseImage(seed: 55)
    try writeFile(
      try PNGEncoder().encode(newer), to: s.destination.appendingPathComponent(path("old-a")))
    let before = try snapshot(s.destination)
    let restore = try runProcess("/bin/sh", ["-c", command], in: downloads)
    XCTAssertEqual(restore.exitStatus, .refusedInput, restore.all)
    XCTAssertTrue(restore.output.contains("\(path("old-a")) changed since review"), restore.output)
    XCTAssertTrue(restore.output.contains(hex(newer)), "names what the package holds now")
    assertTreesEqual(try snapshot(s.destination), before, "nothing restored, not even old-b")
  }

  // MARK: Forms

  func testSingleFileReport_keepsTheEarlierReferencesBesideIt() throws {
    let s = try scenario()
    let page = s.root.appendingPathComponent("review.html")
    XCTAssertEqual(
      try MergeRefs.run(["--report", page.path, s.archive.path, s.destination.path]).exitStatus,
      .success)
    let (_, script) = try ReviewDataScript.splitSingleFile(
      try String(contentsOf: page, encoding: .utf8))
    let data = try ReviewDataScript.object(of: script)
    XCTAssertEqual(data["changes"] as? String, "landed")
    let kept = s.root.appendingPathComponent("review-before.zip")
    XCTAssertEqual(
      try XCTUnwrap(data["command"] as? [String]).suffix(2), [kept.path, s.destination.path])
    XCTAssertEqual(try earlierReferences(kept), s.earlierPNG)
  }

  func testPortableCommand_namesTheKeptReferencesRelativeToWhereTheMergeRan() throws {
    let s = try scenario()
    let run = try runProcess(
      try MergeRefs.binary().path,
      [
        "--report-program", "swift run merge-refs", "--report", ".build/reference-review",
        s.archive.path, ".",
      ], in: s.destination)
    XCTAssertEqual(run.exitStatus, .success, run.all)
    let data = try ReviewDataScript.object(
      inReport: s.destination.appendingPathComponent(".build/reference-review"))
    XCTAssertEqual(
      data["command"] as? [String],
      [
        "swift", "run", "merge-refs", "--include-from", "reference-restore.txt",
        ".build/reference-review/before.zip", ".",
      ], "pasted into the package root, as the land command is")
    XCTAssertEqual(data["commandDestination"] as? String, ".")
  }
}
