import Foundation
import ReferenceContracts
import ReferenceImageCore
import XCTest

/// The review decision without the page: the report's data names the decidable cards and the
/// command that lands them; a decision file in the format the page exports, holding all but
/// one of them, run with that command from the folder the file was saved in, lands exactly
/// the accepted images. (The page's own export is driven in Chromium by the page's tests.)
final class ReviewDecisionTests: XCTestCase {
  func testReviewData_decisionFileRunWithItsCommand_landsExactlyTheAccepted() throws {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("my package")
    for (name, seed) in [("old-a", 1), ("old-b", 2)] {
      try writeFile(
        try PNGEncoder().encode(try noiseImage(seed: seed)),
        to: destination.appendingPathComponent(path(name)))
    }
    var builder = ArchiveBuilder(generatedAt: day(1))
    let written = [
      ("new-a", try noiseImage(seed: 10)), ("new-b", try noiseImage(seed: 11)),
      ("old-a", try changingPixels(try noiseImage(seed: 1), count: 5)),
      ("old-b", try changingPixels(try noiseImage(seed: 2), count: 7)),
    ]
    var archivePNG: [String: [UInt8]] = [:]
    for (name, image) in written { archivePNG[path(name)] = try builder.add(path(name), image) }
    let archive = root.appendingPathComponent("artifacts/run 1.zip")
    try builder.write(to: archive)
    let before = try snapshot(destination)

    let review = root.appendingPathComponent("review")
    let dryRun = try MergeRefs.run([
      "--dry-run", "--report", review.path, archive.path, destination.path,
    ])
    XCTAssertEqual(dryRun.exitStatus, .success, dryRun.all)
    XCTAssertTrue(dryRun.output.contains("2 added, 2 updated"), dryRun.output)
    XCTAssertEqual(try snapshot(destination), before, "a dry run writes nothing")

    let data = try ReviewDataScript.object(inReport: review)
    let cards = try XCTUnwrap(data["cards"] as? [[String: Any]])
    let decidable = cards.filter { ["added", "updated"].contains($0["outcome"] as? String) }
      .compactMap { $0["path"] as? String }.sorted()
    XCTAssertEqual(decidable, written.map { path($0.0) }.sorted())
    let rejected = path("old-b")
    let acceptedPaths = decidable.filter { $0 != rejected }
    let command = try XCTUnwrap(data["command"] as? [String]).map(ShellWord.quoted)
      .joined(separator: " ")
    XCTAssertTrue(command.contains(" --include-from reference-decisions.txt "), command)
    let decision =
      "# Reference images accepted in review (3 of 4).\n# Land them with:\n# \(command)\n"
      + acceptedPaths.map { $0 + "\n" }.joined()

    let downloads = root.appendingPathComponent("Downloads")
    try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    try decision.write(
      to: downloads.appendingPathComponent("reference-decisions.txt"), atomically: true,
      encoding: .utf8)
    let land = try runProcess("/bin/sh", ["-c", command], in: downloads)
    XCTAssertEqual(land.exitStatus, .success, land.all)
    XCTAssertTrue(land.output.contains("2 added, 1 updated, 0 unchanged"), land.output)
    XCTAssertTrue(land.output.contains("  \(rejected) (would be updated)"), land.output)

    let after = try snapshot(destination)
    XCTAssertEqual(
      Set(after.keys), Set(before.keys).union([path("new-a"), path("new-b")]), "no other file")
    for name in ["new-a", "new-b", "old-a"] {
      XCTAssertEqual(after[path(name)], .file(try XCTUnwrap(archivePNG[path(name)])), name)
    }
    XCTAssertEqual(after[rejected], before[rejected], "the rejected image is left as it was")
  }
}
