import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Approvals bound to the pixels reviewed (`--include-from` lines with digests), and renders
/// kept by a failed comparison, which land only over the reference they were compared with.
final class ReviewedApprovalTests: XCTestCase {
  private let folder = "Tests/ChartTests/__References__/BarChart"
  private func path(_ name: String) -> String { "\(folder)/\(name).png" }
  private func hex(_ image: RGBAImage) -> String { SHA256.hex(image.pixels) }

  /// A package with references `old-a` and `old-b`, and a verify run's archive holding new
  /// renders of both and of the missing `new-a`, each recorded with the reference it was
  /// compared with.
  private struct Scenario {
    var root: URL
    var destination: URL
    var archive: URL
    var oldA: RGBAImage
    var oldB: RGBAImage
    var renders: [String: RGBAImage]
  }

  private func scenario() throws -> Scenario {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    let oldA = try noiseImage(seed: 1)
    let oldB = try noiseImage(seed: 2)
    try writeFile(
      try PNGEncoder().encode(oldA), to: destination.appendingPathComponent(path("old-a")))
    try writeFile(
      try PNGEncoder().encode(oldB), to: destination.appendingPathComponent(path("old-b")))
    var builder = ArchiveBuilder(generatedAt: day(1))
    builder.mode = "verify"
    let renders = [
      path("new-a"): try noiseImage(seed: 10), path("old-a"): try noiseImage(seed: 11),
      path("old-b"): try noiseImage(seed: 12),
    ]
    for (path, image) in renders.sorted(by: { $0.key < $1.key }) {
      try builder.add(path, image)
      let reference = path.hasSuffix("old-a.png") ? oldA : path.hasSuffix("old-b.png") ? oldB : nil
      builder.failedComparisons[path] = .init(
        referencePixelSHA256: reference.map(hex), comparison: "exact",
        verdict: reference == nil ? "no reference" : "differs",
        differingPixels: reference == nil ? nil : 96,
        totalPixels: 96, file: "Tests/ChartTests/BarChartTests.swift", line: 12)
    }
    builder.coverage = .init(scope: .selectedTests, arguments: [])
    let archive = root.appendingPathComponent("reference-verify/run.zip")
    try builder.write(to: archive)
    return Scenario(
      root: root, destination: destination, archive: archive, oldA: oldA, oldB: oldB,
      renders: renders)
  }

  private func decisions(_ lines: [String], in scenario: Scenario) throws -> URL {
    let file = scenario.root.appendingPathComponent("reference-decisions.txt")
    try ("# accepted in review\n" + lines.map { $0 + "\n" }.joined())
      .write(to: file, atomically: true, encoding: .utf8)
    return file
  }

  private func line(_ path: String, before: RGBAImage?, after: RGBAImage) -> String {
    "\(path)\t\(before.map(hex) ?? "-")\t\(hex(after))"
  }

  // MARK: Approvals

  func testBoundDecisions_landExactlyTheAcceptedPaths() throws {
    let s = try scenario()
    let file = try decisions(
      [
        line(path("old-a"), before: s.oldA, after: s.renders[path("old-a")]!),
        line(path("new-a"), before: nil, after: s.renders[path("new-a")]!),
      ], in: s)
    let result = try MergeRefs.run([
      "--include-from", file.path, s.archive.path, s.destination.path,
    ])
    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(result.output.contains("1 added, 1 updated"), result.output)
    XCTAssertTrue(result.output.contains("1 skipped"), result.output)
    let landed = try PNGDecoder().decode(
      try FileSystem.read(s.destination.appendingPathComponent(path("old-a"))))
    XCTAssertEqual(landed.pixels, s.renders[path("old-a")]!.pixels)
    let kept = try PNGDecoder().decode(
      try FileSystem.read(s.destination.appendingPathComponent(path("old-b"))))
    XCTAssertEqual(kept.pixels, s.oldB.pixels, "the path not accepted stays as it was")
  }

  func testStaleApproval_newRenderSinceReview_isRefusedByName_nothingWritten() throws {
    let s = try scenario()
    let reviewed = try noiseImage(seed: 99)  // what the page showed; the archive now differs
    let file = try decisions(
      [
        line(path("old-a"), before: s.oldA, after: reviewed),
        line(path("new-a"), before: nil, after: s.renders[path("new-a")]!),
      ], in: s)
    let before = try snapshot(s.destination)
    let result = try MergeRefs.run([
      "--include-from", file.path, s.archive.path, s.destination.path,
    ])
    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertTrue(result.output.contains("\(path("old-a")) changed since review"), result.output)
    XCTAssertTrue(result.output.contains(hex(reviewed)), "names the reviewed digest")
    XCTAssertTrue(result.output.contains(hex(s.renders[path("old-a")]!)), "and the current one")
    assertTreesEqual(before, try snapshot(s.destination))
  }

  func testStaleApproval_referenceChangedSinceReview_isRefused_keepGoingLandsTheRest() throws {
    let s = try scenario()
    let file = try decisions(
      [
        line(path("old-a"), before: s.oldA, after: s.renders[path("old-a")]!),
        line(path("new-a"), before: nil, after: s.renders[path("new-a")]!),
      ], in: s)
    // Someone else's commit replaced old-a after the review (and after the verify run).
    let replaced = try noiseImage(seed: 50)
    try writeFile(
      try PNGEncoder().encode(replaced), to: s.destination.appendingPathComponent(path("old-a")))
    let before = try snapshot(s.destination)
    let refused = try MergeRefs.run([
      "--include-from", file.path, s.archive.path, s.destination.path,
    ])
    XCTAssertEqual(refused.status, 3, refused.all)
    XCTAssertTrue(refused.output.contains("changed since"), refused.output)
    assertTreesEqual(before, try snapshot(s.destination))

    let rest = try MergeRefs.run([
      "--keep-going", "--include-from", file.path, s.archive.path, s.destination.path,
    ])
    XCTAssertEqual(rest.status, 3, "what was left out still shows in the exit code: \(rest.all)")
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: s.destination.appendingPathComponent(path("new-a")).path), rest.all)
    let oldA = try PNGDecoder().decode(
      try FileSystem.read(s.destination.appendingPathComponent(path("old-a"))))
    XCTAssertEqual(oldA.pixels, replaced.pixels, "the stale path is never written")
  }

  func testBoundAddedImage_whenAFileAppearedSince_isRefused() throws {
    let s = try scenario()
    let file = try decisions(
      [line(path("new-a"), before: nil, after: s.renders[path("new-a")]!)], in: s)
    // new-a was added by another change after the review, with other pixels.
    try writeFile(
      try PNGEncoder().encode(try noiseImage(seed: 77)),
      to: s.destination.appendingPathComponent(path("new-a")))
    let before = try snapshot(s.destination)
    let result = try MergeRefs.run([
      "--include-from", file.path, s.archive.path, s.destination.path,
    ])
    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertTrue(result.output.contains("\(path("new-a")) changed since"), result.output)
    assertTreesEqual(before, try snapshot(s.destination))
  }

  func testBoundDecision_landedAlready_isARerunThatChangesNothing() throws {
    let s = try scenario()
    let file = try decisions(
      [line(path("old-a"), before: s.oldA, after: s.renders[path("old-a")]!)], in: s)
    let first = try MergeRefs.run(["--include-from", file.path, s.archive.path, s.destination.path])
    XCTAssertEqual(first.status, 0, first.all)
    let again = try MergeRefs.run(["--include-from", file.path, s.archive.path, s.destination.path])
    XCTAssertEqual(again.status, 0, again.all)
    XCTAssertTrue(again.output.contains("0 added, 0 updated, 1 unchanged"), again.output)
  }

  func testMalformedBoundLine_isAUsageErrorNamingFileAndLine() throws {
    let s = try scenario()
    let file = try decisions(["\(path("old-a"))\tnot-a-digest\t-"], in: s)
    let result = try MergeRefs.run([
      "--include-from", file.path, s.archive.path, s.destination.path,
    ])
    XCTAssertEqual(result.status, 64, result.all)
    XCTAssertTrue(result.error.contains(file.path), result.all)
    XCTAssertTrue(result.error.contains("line 2"), result.all)
  }

  func testReadingABoundFile_patternsAndApprovals() throws {
    let s = try scenario()
    let file = try decisions(
      ["\(folder)/a\\*.png\t-\t\(hex(s.oldA))", "\(folder)/plain.png", "  "], in: s)
    let read = try IncludeFilter.read(fileAt: file)
    XCTAssertEqual(read.patterns, ["\(folder)/a\\*.png", "\(folder)/plain.png"])
    XCTAssertEqual(
      read.approvals,
      [.init(path: "\(folder)/a*.png", before: nil, after: SHA256Digest(hex: hex(s.oldA))!)])
  }

  // MARK: Renders kept by a failed comparison

  func testKeptRender_whoseReferenceChangedSinceTheRun_isRefused() throws {
    let s = try scenario()
    try writeFile(
      try PNGEncoder().encode(try noiseImage(seed: 60)),
      to: s.destination.appendingPathComponent(path("old-b")))
    let before = try snapshot(s.destination)
    let result = try MergeRefs.run([s.archive.path, s.destination.path])
    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertTrue(
      result.output.contains("\(path("old-b")) changed since the run compared its render"),
      result.output)
    assertTreesEqual(before, try snapshot(s.destination))
    // Limited to the other paths, the merge goes on.
    let others = try MergeRefs.run([
      "--include", path("old-a"), "--include", path("new-a"), s.archive.path, s.destination.path,
    ])
    XCTAssertEqual(others.status, 0, others.all)
  }

  func testKeptRenders_JSONCarriesTheComparison_andAFolderWithAReportIsStillASource() throws {
    let s = try scenario()
    let artifact = s.archive.deletingLastPathComponent()
    let report = artifact.appendingPathComponent("reference-review")
    let first = try MergeRefs.run([
      "--dry-run", "--report", report.path, "--report-program", "swift run merge-refs",
      "--summary-markdown", s.root.appendingPathComponent("summary.md").path,
      "--github-annotations", artifact.path, s.destination.path,
    ])
    XCTAssertEqual(first.status, 0, first.all)
    XCTAssertTrue(
      first.output.contains(
        "::error file=Tests/ChartTests/BarChartTests.swift,line=12,title=Reference image updated%3A "
      ), first.output)
    let markdown = try String(
      contentsOf: s.root.appendingPathComponent("summary.md"), encoding: .utf8)
    XCTAssertTrue(
      markdown.contains(
        "- updated `\(path("old-a"))`: test GeneratedTests.test\(path("old-a").count)(), exact "
          + "comparison at Tests/ChartTests/BarChartTests.swift:12: 96 of 96 pixels differ"),
      markdown)
    XCTAssertTrue(
      markdown.contains(
        "`swift run merge-refs --include-from reference-decisions.txt \(artifact.path) "
          + "\(s.destination.path)`"), markdown)
    // The report's images beside the archives are not taken for a source of their own.
    let again = try MergeRefs.run(["--json", "--dry-run", artifact.path, s.destination.path])
    XCTAssertEqual(again.status, 0, again.all)
    let summary = try decodedSummary(again.output)
    XCTAssertEqual(summary.sources.map(\.name), [s.archive.path])
    let oldA = try XCTUnwrap(summary.changes.first { $0.path == path("old-a") })
    XCTAssertEqual(oldA.failedComparison?.record.referencePixelSHA256, hex(s.oldA))
    XCTAssertEqual(oldA.failedComparison?.record.line, 12)
    XCTAssertNil(
      summary.changes.first { $0.path == path("new-a") }?.failedComparison?.record
        .referencePixelSHA256)
  }
}
