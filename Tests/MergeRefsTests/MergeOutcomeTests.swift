import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Every plan outcome (added, updated, unchanged, conflict, orphan) and every kind of source,
/// in-process with `merge-refs` arguments (`MergeInProcess`).
final class MergeOutcomeTests: XCTestCase {
  private var root: URL!
  private var destination: URL!

  override func setUpWithError() throws {
    root = try makeTemporaryFolder(self)
    destination = root.appendingPathComponent("package root")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
  }

  private let folder = "Tests/ChartTests/__References__/BarChart"
  private func path(_ name: String) -> String { "\(folder)/\(name).png" }
  private func inDestination(_ path: String) -> URL { destination.appendingPathComponent(path) }
  private func bytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: inDestination(path)))
  }

  private func write(_ builder: ArchiveBuilder, _ name: String) throws -> URL {
    let url = root.appendingPathComponent(name)
    try builder.write(to: url)
    return url
  }

  private let oldDate = Date(timeIntervalSince1970: 1_000_000_000)

  /// Puts a reference in the destination with an old modification time.
  private func placeReference(_ path: String, _ png: [UInt8]) throws {
    try writeFile(png, to: inDestination(path))
    try FileManager.default.setAttributes(
      [.modificationDate: oldDate], ofItemAtPath: inDestination(path).path)
  }

  private func modificationDate(_ path: String) throws -> Date? {
    try FileManager.default.attributesOfItem(atPath: inDestination(path).path)[.modificationDate]
      as? Date
  }

  private func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

  // MARK: Added, updated, unchanged

  func testMerge_newImage_added() throws {
    var builder = ArchiveBuilder(generatedAt: day(1))
    let png = try builder.add(path("new"), try noiseImage(seed: 1))
    let archive = try write(builder, "run.zip")

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("new")), png)
    XCTAssertTrue(lines(result.output).contains("  \(path("new"))"), result.output)
    XCTAssertTrue(
      result.output.hasSuffix(
        "1 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused\n"),
      result.output)
  }

  func testMerge_differentPixels_updated() throws {
    try placeReference(path("chart"), try PNGEncoder().encode(try noiseImage(seed: 1)))
    var builder = ArchiveBuilder(generatedAt: day(1))
    let png = try builder.add(path("chart"), try changingPixels(try noiseImage(seed: 1), count: 1))
    let archive = try write(builder, "run.zip")

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("chart")), png)
    XCTAssertTrue(result.output.contains("updated:\n  \(path("chart"))\n"), result.output)
    XCTAssertTrue(result.output.contains("0 added, 1 updated, 0 unchanged"), result.output)
  }

  func testMerge_identicalBytes_unchangedAndUntouched() throws {
    var builder = ArchiveBuilder(generatedAt: day(1))
    let png = try builder.add(path("same"), try noiseImage(seed: 2))
    try placeReference(path("same"), png)
    let archive = try write(builder, "run.zip")

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("same")), png)
    XCTAssertEqual(try modificationDate(path("same")), oldDate)
    XCTAssertTrue(result.output.contains("0 added, 0 updated, 1 unchanged"), result.output)
  }

  func testMerge_samePixelsOtherBytes_unchangedAndUntouched() throws {
    let pixels = try noiseImage(seed: 3, width: 40, height: 30)
    let reference = try PNGEncoder(setting: .small).encode(pixels)
    try placeReference(path("reencoded"), reference)
    var builder = ArchiveBuilder(generatedAt: day(1))
    let generated = try builder.add(path("reencoded"), pixels, setting: .fast)
    XCTAssertNotEqual(generated, reference, "the two settings must give different bytes")
    let archive = try write(builder, "run.zip")

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("reencoded")), reference)
    XCTAssertEqual(try modificationDate(path("reencoded")), oldDate)
    XCTAssertTrue(result.output.contains("0 added, 0 updated, 1 unchanged"), result.output)
  }

  func testMerge_undecodableReference_updated() throws {
    try placeReference(path("broken"), Array("not a png".utf8))
    var builder = ArchiveBuilder(generatedAt: day(1))
    let png = try builder.add(path("broken"), try noiseImage(seed: 4))
    let archive = try write(builder, "run.zip")

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("broken")), png)
    XCTAssertTrue(result.output.contains("0 added, 1 updated"), result.output)
  }

  func testMerge_manifestAfterTheImages_sameOutcomes() throws {
    let pixels = try noiseImage(seed: 5, width: 30, height: 20)
    try placeReference(path("same"), try PNGEncoder(setting: .small).encode(pixels))
    try placeReference(path("changed"), try PNGEncoder().encode(try noiseImage(seed: 6)))
    var builder = ArchiveBuilder(generatedAt: day(1))
    builder.manifestFirst = false
    try builder.add(path("same"), pixels)
    let changed = try builder.add(path("changed"), try noiseImage(seed: 7))
    let added = try builder.add(path("added"), try noiseImage(seed: 8))
    let archive = try write(builder, "run.zip")

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(
      result.output.contains("1 added, 1 updated, 1 unchanged, 0 conflicts, 0 orphans"),
      result.output)
    XCTAssertEqual(try bytes(path("changed")), changed)
    XCTAssertEqual(try bytes(path("added")), added)
    XCTAssertEqual(try modificationDate(path("same")), oldDate)
  }

  func testMerge_manifestRecordOfOtherContent_refusedWhereverTheManifestIs() throws {
    for manifestFirst in [true, false] {
      var builder = ArchiveBuilder(generatedAt: day(1))
      builder.manifestFirst = manifestFirst
      try builder.add(path("tampered"), try noiseImage(seed: 9))
      let other = try noiseImage(seed: 10)
      builder.recordedAs[path("tampered")] = .init(
        path: path("tampered"), png: try PNGEncoder().encode(other), pixels: other)
      let archive = try write(builder, "tampered-\(manifestFirst).zip")
      let before = try snapshot(destination)

      let result = try MergeInProcess.run([archive.path, destination.path])

      XCTAssertEqual(result.status, 3, result.all)
      XCTAssertTrue(
        result.output.contains(
          "\(archive.path): refused entry '\(path("tampered"))': its bytes do not match its "
            + "manifest record"), result.output)
      assertTreesEqual(try snapshot(destination), before)
    }
  }

  // MARK: Conflicts

  private func conflictingArchives() throws -> (older: URL, newer: URL, newerPNG: [UInt8]) {
    let base = try noiseImage(seed: 10)
    var older = ArchiveBuilder(host: "host-a", pid: 11, shard: "1", generatedAt: day(1))
    try older.add(path("disputed"), base)
    try older.add(path("only-in-a"), try noiseImage(seed: 11))
    var newer = ArchiveBuilder(host: "host-b", pid: 22, shard: "2", generatedAt: day(5))
    let newerPNG = try newer.add(path("disputed"), try changingPixels(base, count: 3))
    return (try write(older, "a.zip"), try write(newer, "b.zip"), newerPNG)
  }

  func testMerge_sourcesDisagree_conflictListedWithProvenanceAndNothingWritten() throws {
    let (older, newer, _) = try conflictingArchives()
    let before = try snapshot(destination)

    let result = try MergeInProcess.run([older.path, newer.path, destination.path])

    XCTAssertEqual(result.status, 2, result.all)
    XCTAssertTrue(
      result.output.contains("conflicts (sources disagree; nothing was written):"), result.output)
    let line = lines(result.output).first { $0.hasPrefix("  \(path("disputed")): ") } ?? ""
    for part in [
      newer.path, "host-b pid 22 (SHARD=2)", older.path, "host-a pid 11 (SHARD=1)",
      "3 pixels differ",
    ] {
      XCTAssertTrue(line.contains(part), "'\(part)' missing from: \(result.output)")
    }
    // The plan still lists what would be added; the summary line says nothing was written.
    XCTAssertTrue(
      result.output.contains("1 added, 0 updated, 0 unchanged, 1 conflicts"), result.output)
    XCTAssertTrue(result.output.hasSuffix("(nothing written)\n"), result.output)
    assertTreesEqual(try snapshot(destination), before)
  }

  func testMerge_onConflictNewest_takesTheNewestRunWhateverTheOrder() throws {
    let (older, newer, newerPNG) = try conflictingArchives()
    for order in [[newer, older], [older, newer]] {
      let target = root.appendingPathComponent(
        "target \(order[0].deletingPathExtension().lastPathComponent)")
      try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)

      let result = try MergeInProcess.run(
        order.map(\.path) + ["--on-conflict", "newest", target.path])

      XCTAssertEqual(result.status, 0, result.all)
      XCTAssertEqual(
        Array(try Data(contentsOf: target.appendingPathComponent(path("disputed")))), newerPNG)
      XCTAssertTrue(
        FileManager.default.fileExists(
          atPath: target.appendingPathComponent(path("only-in-a")).path))
      XCTAssertTrue(
        result.output.contains(
          "  \(path("disputed")) (conflict resolved by newest: \(newer.path) [host-b pid 22"),
        result.output)
    }
  }

  func testMerge_samePixelsFromTwoSources_noConflict() throws {
    let pixels = try noiseImage(seed: 12, width: 30, height: 20)
    var fast = ArchiveBuilder(host: "host-a", generatedAt: day(1))
    try fast.add(path("agreed"), pixels, setting: .fast)
    var small = ArchiveBuilder(host: "host-b", generatedAt: day(2))
    let newestPNG = try small.add(path("agreed"), pixels, setting: .small)

    let result = try MergeInProcess.run([
      try write(fast, "a.zip").path, try write(small, "b.zip").path, destination.path,
    ])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(
      result.output.contains("1 added, 0 updated, 0 unchanged, 0 conflicts"), result.output)
    XCTAssertEqual(try bytes(path("agreed")), newestPNG)
  }

  // MARK: Orphans

  /// A destination with a produced, a verified, an orphaned reference and one in a folder no
  /// run used; returns a complete archive for it.
  private func orphanScenario() throws -> URL {
    try placeReference(path("produced"), try PNGEncoder().encode(try noiseImage(seed: 20)))
    try placeReference(path("verified"), try PNGEncoder().encode(try noiseImage(seed: 21)))
    try placeReference(path("orphan"), try PNGEncoder().encode(try noiseImage(seed: 22)))
    try placeReference(
      "Tests/Other/__References__/unused.png", try PNGEncoder().encode(try noiseImage(seed: 23)))
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(path("produced"), try noiseImage(seed: 24))
    builder.verifiedReferences = [path("produced"), path("verified")]
    return try write(builder, "run.zip")
  }

  func testMerge_completeSources_orphanListedButKeptWithoutPrune() throws {
    let archive = try orphanScenario()

    let result = try MergeInProcess.run([archive.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(
      result.output.contains("orphans (no test produced or verified them):\n  \(path("orphan"))\n"),
      result.output)
    XCTAssertTrue(
      result.output.contains("0 added, 1 updated, 0 unchanged, 0 conflicts, 1 orphans"),
      result.output)
    XCTAssertTrue(FileManager.default.fileExists(atPath: inDestination(path("orphan")).path))
  }

  func testMerge_prune_deletesOnlyTheOrphan() throws {
    let archive = try orphanScenario()

    let result = try MergeInProcess.run([archive.path, "--prune", destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(result.output.contains("1 orphans (1 pruned)"), result.output)
    XCTAssertFalse(FileManager.default.fileExists(atPath: inDestination(path("orphan")).path))
    for kept in [path("produced"), path("verified"), "Tests/Other/__References__/unused.png"] {
      XCTAssertTrue(FileManager.default.fileExists(atPath: inDestination(kept).path), kept)
    }
  }

  func testMerge_incompleteSourceBeside_orphansNotLookedForEvenWithPrune() throws {
    let archive = try orphanScenario()
    var crashed = ArchiveBuilder(generatedAt: day(2))
    crashed.completion = .running
    try crashed.add(path("produced-too"), try noiseImage(seed: 25))
    let crashedArchive = try write(crashed, "crashed.zip")

    let result = try MergeInProcess.run([
      archive.path, crashedArchive.path, "--prune", destination.path,
    ])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertFalse(result.output.contains("orphans (no test"), result.output)
    XCTAssertTrue(
      result.output.contains(
        "warning: orphans were not looked for: not every source is a complete run"),
      result.output)
    XCTAssertTrue(result.output.contains(", 0 orphans, "), result.output)
    XCTAssertTrue(FileManager.default.fileExists(atPath: inDestination(path("orphan")).path))
  }

  // MARK: Incomplete sources

  private func incompleteArchives() throws -> [(URL, String)] {
    var noManifest = ArchiveBuilder(generatedAt: day(1))
    noManifest.includesManifest = false
    try noManifest.add(path("from-bare-zip"), try noiseImage(seed: 30))
    var running = ArchiveBuilder(generatedAt: day(1))
    running.completion = .running
    try running.add(path("from-running"), try noiseImage(seed: 31))
    var missing = ArchiveBuilder(generatedAt: day(1))
    try missing.add(path("from-damaged"), try noiseImage(seed: 32))
    missing.recordsWithoutEntries = [
      .init(
        path: path("lost"), png: try PNGEncoder().encode(try noiseImage(seed: 33)),
        pixels: try noiseImage(seed: 33))
    ]
    return [
      (try write(noManifest, "bare.zip"), "no manifest (not written by a finished run)"),
      (try write(running, "running.zip"), "the run was cut short (manifest says running)"),
      (
        try write(missing, "damaged.zip"),
        "1 images listed in the manifest are missing, first \(path("lost"))"
      ),
    ]
  }

  func testMerge_repeatedBytesWithoutManifest_everyPathLandsWithItsOwnBytes() throws {
    // More entries than one decoding batch holds, most repeating a few files: the files are
    // decoded once each, and every path still lands.
    var icons = ArchiveBuilder(generatedAt: day(1))
    icons.includesManifest = false
    let shapes = try (0..<3).map { try noiseImage(seed: 60 + $0) }
    for index in 0..<600 { try icons.add(path("icon\(index)"), shapes[index % 3]) }

    let result = try MergeInProcess.run([try write(icons, "icons.zip").path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(result.output.contains("600 added, 0 updated"), result.all)
    for index in [0, 1, 2, 299, 599] {
      XCTAssertEqual(try bytes(path("icon\(index)")), icons.images[index].png)
    }
  }

  func testMerge_invalidPNGRepeatedWithoutManifest_refusedNamingItsFirstEntry() throws {
    var icons = ArchiveBuilder(generatedAt: day(1))
    icons.includesManifest = false
    let valid = try noiseImage(seed: 70)
    for index in 0..<300 { try icons.add(path("icon\(index)"), valid) }
    // The same damaged file under a later and an earlier-decoded path; the second batch holds
    // both.
    var broken = icons.images[0].png
    broken[broken.count / 2] ^= 0xFF
    for index in [280, 290] { icons.images[index].png = broken }

    let result = try MergeInProcess.run([try write(icons, "icons.zip").path, destination.path])

    XCTAssertEqual(result.status, 3, result.all)
    let errorLine = result.output.split(separator: "\n").first { $0.hasPrefix("error: ") }
    XCTAssertTrue(errorLine?.contains(path("icon280")) == true, result.all)
    XCTAssertTrue(errorLine?.contains("not a valid PNG") == true, result.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: inDestination(path("icon0")).path))
  }

  func testMerge_incompleteSources_warnedAndApplied() throws {
    let sources = try incompleteArchives()

    let result = try MergeInProcess.run(sources.map(\.0.path) + [destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    for (archive, reason) in sources {
      XCTAssertTrue(
        result.output.contains("warning: \(archive.path) is incomplete: \(reason)"), result.output)
    }
    XCTAssertTrue(result.output.contains("3 added"), result.output)
  }

  func testMerge_incompleteSourcesWithRequireComplete_exit3AndNothingWritten() throws {
    let sources = try incompleteArchives()
    for (archive, reason) in sources {
      let before = try snapshot(destination)

      let result = try MergeInProcess.run([archive.path, "--require-complete", destination.path])

      XCTAssertEqual(result.status, 3, result.all)
      XCTAssertTrue(
        result.output.contains("\(archive.path) is incomplete: \(reason)"), result.output)
      XCTAssertTrue(
        result.output.contains(
          "error: --require-complete refuses the incomplete sources listed above"), result.output)
      assertTreesEqual(try snapshot(destination), before)
    }
  }

  // MARK: Folders and nested archives

  func testMerge_unpackedArchiveFolder_mergedAsACompleteRun() throws {
    try placeReference(path("orphan"), try PNGEncoder().encode(try noiseImage(seed: 40)))
    var builder = ArchiveBuilder(generatedAt: day(1))
    let png = try builder.add(path("unpacked"), try noiseImage(seed: 41))
    let unpacked = root.appendingPathComponent("unpacked archive")
    try builder.writeFolder(to: unpacked)

    let result = try MergeInProcess.run(["--verbose", unpacked.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("unpacked")), png)
    XCTAssertTrue(
      result.output.contains("  \(unpacked.path)/: 1 image, ci-host pid 4242\n"), result.output)
    XCTAssertTrue(
      result.output.contains("1 added, 0 updated, 0 unchanged, 0 conflicts, 1 orphans"),
      result.output)
  }

  func testMerge_stagingFolderOfACrashedRun_appliedWarnedAndTemporaryFilesSkipped() throws {
    var builder = ArchiveBuilder(generatedAt: day(1))
    builder.completion = .running
    let png = try builder.add(path("staged"), try noiseImage(seed: 42))
    let staging = root.appendingPathComponent("staging")
    try builder.writeFolder(to: staging)
    let partialFolder = staging.appendingPathComponent(folder)
    try writeFile(
      [0x89, 0x50], to: partialFolder.appendingPathComponent(".refimg-tmp-1-2-half.png"))
    try writeFile([0x89], to: partialFolder.appendingPathComponent(".half.png.77.partial"))

    let result = try MergeInProcess.run([staging.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("staged")), png)
    XCTAssertTrue(
      result.output.contains(
        "warning: \(staging.path)/ is incomplete: the run was cut short (manifest says running)"),
      result.output)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: inDestination(folder).path),
      ["staged.png"])
  }

  private func workerArchives() throws -> (URL, URL, [UInt8], [UInt8]) {
    var first = ArchiveBuilder(host: "worker-1", generatedAt: day(1))
    let firstPNG = try first.add(path("one"), try noiseImage(seed: 50))
    var second = ArchiveBuilder(host: "worker-2", generatedAt: day(1))
    let secondPNG = try second.add(
      "Tests/BadgeTests/__References__/badge.png", try noiseImage(seed: 51))
    return (
      try write(first, "worker-1.zip"), try write(second, "worker-2.zip"), firstPNG, secondPNG
    )
  }

  func testMerge_zipOfZips_eachInnerArchiveIsASource() throws {
    let (first, second, firstPNG, secondPNG) = try workerArchives()
    let artifact = root.appendingPathComponent("artifact download.zip")
    try ZipWriter().write(
      [
        .init(path: "reference-images/worker-1.zip", contents: .file(first)),
        .init(path: "reference-images/worker-2.zip", contents: .file(second)),
      ], to: artifact)

    let result = try MergeInProcess.run(["--verbose", artifact.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("one")), firstPNG)
    XCTAssertEqual(try bytes("Tests/BadgeTests/__References__/badge.png"), secondPNG)
    XCTAssertTrue(result.output.contains("sources (2):"), result.output)
    XCTAssertTrue(
      result.output.contains("  \(artifact.path)!reference-images/worker-2.zip: 1 image, worker-2"),
      result.output)
  }

  func testMerge_folderOfZips_eachZipIsASource() throws {
    let (first, second, firstPNG, secondPNG) = try workerArchives()
    let downloads = root.appendingPathComponent("downloads")
    try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    for archive in [first, second] {
      try FileManager.default.moveItem(
        at: archive, to: downloads.appendingPathComponent(archive.lastPathComponent))
    }

    let result = try MergeInProcess.run(["--verbose", downloads.path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try bytes(path("one")), firstPNG)
    XCTAssertEqual(try bytes("Tests/BadgeTests/__References__/badge.png"), secondPNG)
    XCTAssertTrue(result.output.contains("sources (2):"), result.output)
  }

  func testMerge_leftoverOfAnInterruptedMerge_removed() throws {
    let leftover = inDestination("\(folder)/.refimg-tmp-999-1-new.png")
    try writeFile([0x89, 0x50, 0x4E], to: leftover)
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add(path("new"), try noiseImage(seed: 60))

    let result = try MergeInProcess.run([try write(builder, "run.zip").path, destination.path])

    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path))
    XCTAssertTrue(
      result.output.contains(
        "warning: removed \(folder)/.refimg-tmp-999-1-new.png, left by an interrupted merge"),
      result.output)
  }
}
