import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Images a generation run recorded unchanged (`unchangedImages`) instead of archiving: counted
/// unchanged exactly as their archived copies were, never orphans, never lost.
final class UnchangedImageMergeTests: XCTestCase {
  private var root: URL!
  private var destination: URL!
  private let folder = "Tests/ChartTests/__References__/BarChart"

  override func setUpWithError() throws {
    root = try makeTemporaryFolder(self)
    destination = root.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
  }

  private func path(_ name: String) -> String { "\(folder)/\(name).png" }
  private func inDestination(_ path: String) -> URL { destination.appendingPathComponent(path) }

  private func write(_ builder: ArchiveBuilder, _ name: String) throws -> URL {
    let url = root.appendingPathComponent(name)
    try builder.write(to: url)
    return url
  }

  /// A reference in the destination, and an archive that recorded it unchanged.
  private func unchangedRun(_ pixels: RGBAImage, name: String = "same") throws -> URL {
    let reference = try PNGEncoder().encode(pixels)
    try writeFile(reference, to: inDestination(path(name)))
    var builder = ArchiveBuilder(generatedAt: day(2))
    builder.addUnchanged(path(name), pixels, reference: reference)
    return try write(builder, "unchanged-\(name).zip")
  }

  func testMerge_unchangedRecord_countsUnchangedAndWritesNothing() throws {
    let archive = try unchangedRun(try noiseImage(seed: 1))
    let before = try snapshot(destination)

    let result = try MergeInProcess.run([archive.path, "--prune", destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(
      result.output.contains("0 added, 0 updated, 1 unchanged, 0 conflicts, 0 orphans"),
      result.output)
    assertTreesEqual(try snapshot(destination), before)
  }

  func testMerge_unchangedRecord_countsLikeTheArchivedImage() throws {
    let pixels = try noiseImage(seed: 2)
    let unchanged = try unchangedRun(pixels)
    var archived = ArchiveBuilder(generatedAt: day(2))
    try archived.add(path("same"), pixels, setting: .small)
    let archivedURL = try write(archived, "archived.zip")

    let json = { (source: URL) throws -> String in
      try MergeInProcess.run([source.path, "--dry-run", "--json", self.destination.path]).output
    }
    // The outcome counts: lines like `"unchanged" : 1,`.
    let outcomes = Set(MergePlan.Outcome.allCases.map { "\"\($0.rawValue)\" :" })
    let counts = { (text: String) -> [String] in
      text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { line in outcomes.contains { line.hasPrefix($0) } }
    }
    XCTAssertTrue(try counts(json(unchanged)).contains("\"unchanged\" : 1,"))
    XCTAssertEqual(counts(try json(unchanged)), counts(try json(archivedURL)))
  }

  func testMerge_destinationSamePixelsOtherBytes_stillUnchanged() throws {
    let pixels = try noiseImage(seed: 3)
    let archive = try unchangedRun(pixels)
    try writeFile(try PNGEncoder(setting: .small).encode(pixels), to: inDestination(path("same")))

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(result.output.contains("0 added, 0 updated, 1 unchanged"), result.output)
  }

  func testMerge_destinationChangedSince_refusedNamingThePath() throws {
    let archive = try unchangedRun(try noiseImage(seed: 4))
    var other = ArchiveBuilder(generatedAt: day(2))
    try other.add(path("new"), try noiseImage(seed: 5))
    let otherURL = try write(other, "other.zip")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 6)), to: inDestination(path("same")))
    let before = try snapshot(destination)

    let result = try MergeInProcess.run([archive.path, otherURL.path, destination.path])

    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertTrue(result.all.contains(inDestination(path("same")).path), result.all)
    XCTAssertTrue(result.all.contains("IMAGE_GENERATION_REENCODE=1"), result.all)
    assertTreesEqual(try snapshot(destination), before)
  }

  func testMerge_destinationChangedSince_butLeftOutByInclude_theRestLands() throws {
    let archive = try unchangedRun(try noiseImage(seed: 4))
    var other = ArchiveBuilder(generatedAt: day(2))
    try other.add(path("new"), try noiseImage(seed: 5))
    let otherURL = try write(other, "other.zip")
    let changed = try PNGEncoder().encode(try noiseImage(seed: 6))
    try writeFile(changed, to: inDestination(path("same")))

    let result = try MergeInProcess.run([
      "--include", path("new"), archive.path, otherURL.path, destination.path,
    ])

    XCTAssertEqual(result.status, 0, "a path the merge leaves out cannot stop it: \(result.all)")
    XCTAssertTrue(FileManager.default.fileExists(atPath: inDestination(path("new")).path))
    XCTAssertEqual(
      try FileSystem.read(inDestination(path("same"))), changed, "the left-out path is untouched")
  }

  func testMerge_destinationDeletedSince_refused() throws {
    let archive = try unchangedRun(try noiseImage(seed: 7))
    try FileManager.default.removeItem(at: inDestination(path("same")))

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertTrue(result.all.contains(path("same")), result.all)
  }

  func testMerge_archivedAndUnchangedDisagree_conflict() throws {
    let pixels = try noiseImage(seed: 8)
    let unchanged = try unchangedRun(pixels)
    var changed = ArchiveBuilder(host: "host-b", generatedAt: day(3))
    try changed.add(path("same"), try changingPixels(pixels, count: 3))
    let changedURL = try write(changed, "changed.zip")
    let before = try snapshot(destination)

    let result = try MergeInProcess.run([unchanged.path, changedURL.path, destination.path])

    XCTAssertEqual(result.status, 2, result.all)
    XCTAssertTrue(result.output.contains("1 conflicts"), result.output)
    assertTreesEqual(try snapshot(destination), before)
  }

  func testReport_archivedAndUnchangedDisagree_theConflictShowsTheReferenceAsTheUnchangedSide()
    throws
  {
    let pixels = try noiseImage(seed: 8)
    let unchanged = try unchangedRun(pixels)
    var changed = ArchiveBuilder(host: "host-b", generatedAt: day(3))
    let changedPNG = try changed.add(path("same"), try changingPixels(pixels, count: 3))
    let changedURL = try write(changed, "changed.zip")
    let report = root.appendingPathComponent("report")

    let result = try MergeInProcess.run([
      "--dry-run", "--report", report.path, unchanged.path, changedURL.path, destination.path,
    ])

    XCTAssertEqual(result.status, 2, result.all)
    let card = try XCTUnwrap(ReviewDataScript.cards(inReport: report).first)
    XCTAssertEqual(card["outcome"] as? String, "conflict")
    let rivals = try XCTUnwrap(card["rivals"] as? [[String: Any]])
    XCTAssertEqual(rivals.count, 2, "both sides, the one that recorded the path unchanged too")
    func bytes(_ rival: [String: Any]) throws -> [UInt8] {
      let image = try XCTUnwrap(rival["image"] as? [String: Any])
      let source = try XCTUnwrap(image["src"] as? String)
      return Array(try Data(contentsOf: report.appendingPathComponent(source)))
    }
    let labels = rivals.compactMap { $0["label"] as? String }
    func rival(labelled part: String) throws -> [String: Any] {
      let found = rivals.first { ($0["label"] as? String)?.contains(part) == true }
      return try XCTUnwrap(found, "\(labels)")
    }
    let unchangedSide = try rival(labelled: "recorded unchanged")
    XCTAssertEqual(
      try bytes(unchangedSide), Array(try Data(contentsOf: inDestination(path("same")))),
      "the unchanged side is the current reference")
    let archivedSide = try rival(labelled: "/changed.zip")
    XCTAssertEqual(try bytes(archivedSide), changedPNG)
    XCTAssertEqual(card["changedPixels"] as? Int, 3, "the difference between the two sides")
  }

  func testMerge_archivedAndUnchangedAgree_archivedCopyLandsWhenTheDestinationChanged() throws {
    let pixels = try noiseImage(seed: 9)
    let unchanged = try unchangedRun(pixels)
    var archived = ArchiveBuilder(generatedAt: day(1))
    let png = try archived.add(path("same"), pixels)
    let archivedURL = try write(archived, "archived.zip")
    try writeFile(
      try PNGEncoder().encode(try noiseImage(seed: 10)), to: inDestination(path("same")))

    let result = try MergeInProcess.run([unchanged.path, archivedURL.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(result.output.contains("0 added, 1 updated"), result.output)
    XCTAssertEqual(Array(try Data(contentsOf: inDestination(path("same")))), png)
  }

  func testMerge_pathBothArchivedAndUnchangedInOneSource_refused() throws {
    let pixels = try noiseImage(seed: 11)
    let reference = try PNGEncoder().encode(pixels)
    try writeFile(reference, to: inDestination(path("same")))
    var builder = ArchiveBuilder(generatedAt: day(2))
    try builder.add(path("same"), pixels)
    builder.addUnchanged(path("same"), pixels, reference: reference)
    let archive = try write(builder, "twice.zip")

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertTrue(result.all.contains("the path appears twice"), result.all)
  }
}
