import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// Every plan outcome (added, updated, unchanged, conflict, orphan) and every kind of source,
/// stated as scenarios and checked on the verdict (`MergeScenario`, `MergeVerdict`).
final class MergeOutcomeTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self)
  }

  /// A modification time long past: a file that still has it was not touched.
  private let oldDate = Date(timeIntervalSince1970: 1_000_000_000)

  // MARK: Added, updated, unchanged

  func testMerge_newImage_added() throws {
    try merge.archive("run.zip", ["new": .seed(1)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["new": .added])
    XCTAssertEqual(merge.bytes("new"), try Pixels.seed(1).png())
  }

  func testMerge_differentPixels_updated() throws {
    try merge.reference("chart", .seed(1))
    try merge.archive("run.zip", ["chart": .changed(seed: 1, pixels: 1)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["chart": .updated])
    XCTAssertEqual(merge.bytes("chart"), try Pixels.changed(seed: 1, pixels: 1).png())
  }

  func testMerge_identicalBytes_unchangedAndUntouched() throws {
    let png = try merge.reference("same", .seed(2), modified: oldDate)
    try merge.archive("run.zip", ["same": .seed(2)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["same": .unchanged])
    XCTAssertEqual(merge.bytes("same"), png)
    XCTAssertEqual(try merge.modificationDate("same"), oldDate)
  }

  func testMerge_samePixelsOtherBytes_unchangedAndUntouched() throws {
    let pixels = Pixels.image(try noiseImage(seed: 3, width: 40, height: 30))
    let reference = try merge.reference("reencoded", pixels, setting: .small, modified: oldDate)
    XCTAssertNotEqual(try pixels.png(), reference, "the two settings must give different bytes")
    try merge.archive("run.zip", ["reencoded": pixels])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["reencoded": .unchanged])
    XCTAssertEqual(merge.bytes("reencoded"), reference)
    XCTAssertEqual(try merge.modificationDate("reencoded"), oldDate)
  }

  func testMerge_undecodableReference_updated() throws {
    try merge.reference("broken", bytes: Array("not a png".utf8))
    try merge.archive("run.zip", ["broken": .seed(4)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["broken": .updated])
    XCTAssertEqual(merge.bytes("broken"), try Pixels.seed(4).png())
  }

  func testMerge_manifestAfterTheImages_sameOutcomes() throws {
    let same = Pixels.image(try noiseImage(seed: 5, width: 30, height: 20))
    try merge.reference("same", same, setting: .small, modified: oldDate)
    try merge.reference("changed", .seed(6))
    try merge.archive("run.zip", ["same": same, "changed": .seed(7), "added": .seed(8)]) {
      $0.manifestFirst = false
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["same": .unchanged, "changed": .updated, "added": .added])
    XCTAssertEqual(merge.bytes("changed"), try Pixels.seed(7).png())
    XCTAssertEqual(merge.bytes("added"), try Pixels.seed(8).png())
    XCTAssertEqual(try merge.modificationDate("same"), oldDate)
  }

  /// A record's digest that is not 64 lowercase hex digits is refused where the manifest is
  /// read, naming the source and the field, for an archive and a folder alike: nothing is
  /// written, and no later step meets the text.
  func testMerge_manifestDigestNotHex_refusedWhereTheManifestIsRead() throws {
    for field in ["pngSHA256", "pixelSHA256"] {
      let merge = try MergeScenario(self)
      let archive = try merge.archive("run.zip", ["a": .seed(1)]) { $0.includesManifest = false }
      let folder = try merge.folderSource("run", ["b": .seed(2)])
      let manifest = folder.appendingPathComponent(ArchiveManifest.entryName)
      var text = try String(contentsOf: manifest, encoding: .utf8)
      let value = try XCTUnwrap(text.range(of: "\"\(field)\" : \""))
      text.replaceSubrange(
        value.upperBound..<text.index(value.upperBound, offsetBy: 64), with: "not hex")
      try Data(text.utf8).write(to: manifest)
      let before = try merge.package()

      let verdict = merge.run()

      XCTAssertEqual(verdict.status, .refusedInput, field)
      XCTAssertEqual(verdict.problems, ["refusedSource"], field)
      let message = "\(verdict.conclusion.problems)"
      XCTAssertTrue(message.contains("\(folder.path)/: unreadable manifest: "), message)
      XCTAssertTrue(message.contains(field) && message.contains("not a SHA-256 digest"), message)
      XCTAssertFalse(message.contains(archive.path), message)
      assertTreesEqual(try merge.package(), before)
    }
  }

  func testMerge_manifestRecordOfOtherContent_refusedWhereverTheManifestIs() throws {
    for manifestFirst in [true, false] {
      let merge = try MergeScenario(self)
      let other = try noiseImage(seed: 10)
      try merge.archive("tampered.zip", ["tampered": .seed(9)]) {
        $0.manifestFirst = manifestFirst
        $0.recordedAs[merge.path("tampered")] = .init(
          path: merge.path("tampered"), png: try PNGEncoder().encode(other), pixels: other)
      }
      let before = try merge.package()

      let verdict = merge.run()

      XCTAssertEqual(verdict.status, .refusedInput, "manifest first: \(manifestFirst)")
      XCTAssertEqual(verdict.problems, ["refusedSource"])
      XCTAssertEqual(
        verdict.refusedEntries,
        [
          .init(
            source: "tampered.zip", entry: "tampered",
            reason: "its bytes do not match its manifest record (corrupt?)")
        ])
      assertTreesEqual(try merge.package(), before)
    }
  }

  // MARK: Conflicts

  /// Two runs on two hosts that disagree about `disputed` by three pixels; the older one also
  /// renders `only-in-a`.
  private func conflictingRuns(_ merge: MergeScenario, newestFirst: Bool = false) throws {
    let older = {
      try merge.archive(
        "a.zip", ["disputed": .seed(10), "only-in-a": .seed(11)], host: "host-a", pid: 11,
        shard: "1", generatedAt: day(1))
    }
    let newer = {
      try merge.archive(
        "b.zip", ["disputed": .changed(seed: 10, pixels: 3)], host: "host-b", pid: 22, shard: "2",
        generatedAt: day(5))
    }
    if newestFirst {
      try newer()
      try older()
    } else {
      try older()
      try newer()
    }
  }

  func testMerge_sourcesDisagree_conflictListedWithProvenanceAndNothingWritten() throws {
    try conflictingRuns(merge)
    let before = try merge.package()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .conflicts, "\(verdict.problems)")
    // The plan still lists what would be added; nothing is written.
    XCTAssertEqual(verdict.outcomes, ["disputed": .conflict, "only-in-a": .added])
    XCTAssertTrue(verdict.conclusion.stopsBeforeWriting)
    XCTAssertEqual(verdict.sources(of: "disputed"), ["b.zip", "a.zip"], "newest first")
    XCTAssertEqual(
      verdict.workers(of: "disputed"), ["host-b pid 22 (SHARD=2)", "host-a pid 11 (SHARD=1)"])
    XCTAssertEqual(verdict.item("disputed")?.conflictingPixels, 3)
    XCTAssertFalse(verdict.summary.applied, "nothing written")
    assertTreesEqual(try merge.package(), before)
  }

  func testMerge_onConflictNewest_takesTheNewestRunWhateverTheOrder() throws {
    for newestFirst in [true, false] {
      let merge = try MergeScenario(self)
      merge.options.onConflict = .newest
      try conflictingRuns(merge, newestFirst: newestFirst)

      let verdict = merge.run()

      XCTAssertEqual(verdict.status, .success, "newest first: \(newestFirst)")
      XCTAssertEqual(verdict.outcomes, ["disputed": .added, "only-in-a": .added])
      XCTAssertEqual(verdict.item("disputed")?.resolvedByNewest, true)
      XCTAssertEqual(verdict.sources(of: "disputed"), ["b.zip"])
      XCTAssertEqual(merge.bytes("disputed"), try Pixels.changed(seed: 10, pixels: 3).png())
      XCTAssertTrue(merge.exists("only-in-a"))
    }
  }

  func testMerge_samePixelsFromTwoSources_noConflict() throws {
    let pixels = try noiseImage(seed: 12, width: 30, height: 20)
    try merge.archive("a.zip", host: "host-a", generatedAt: day(1)) {
      try $0.add(self.merge.path("agreed"), pixels, setting: .fast)
    }
    var newestPNG: [UInt8] = []
    try merge.archive("b.zip", host: "host-b", generatedAt: day(2)) {
      newestPNG = try $0.add(self.merge.path("agreed"), pixels, setting: .small)
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["agreed": .added])
    XCTAssertEqual(verdict.sources(of: "agreed"), ["b.zip"], "the newest source's bytes")
    XCTAssertEqual(merge.bytes("agreed"), newestPNG)
  }

  // MARK: Orphans

  /// A package with a produced, a verified, an orphaned reference and one in a folder no run
  /// used, and a complete run that renders one and verifies another.
  private func orphanScenario() throws {
    try merge.reference("produced", .seed(20))
    try merge.reference("verified", .seed(21))
    try merge.reference("orphan", .seed(22))
    try merge.reference("Tests/Other/__References__/unused.png", .seed(23))
    try merge.archive("run.zip", ["produced": .seed(24)]) {
      $0.verifiedReferences = [self.merge.path("produced"), self.merge.path("verified")]
    }
  }

  func testMerge_completeSources_orphanListedButKeptWithoutPrune() throws {
    try orphanScenario()

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["produced": .updated, "orphan": .orphan])
    XCTAssertTrue(verdict.plan.orphanSearchDone)
    XCTAssertTrue(merge.exists("orphan"))
  }

  func testMerge_folderNamedWithADecomposedAccent_isNotTakenForTheComposedOne() throws {
    // `String` equality is canonical equivalence, but the file system keeps `café` with a
    // composed `é` apart from `cafe` with a combining accent: the run drew and verified the
    // first folder's references only, so the second folder's file is nobody's.
    let composed = "Tests/ChartTests/__References__/caf\u{E9}"
    let decomposed = "Tests/ChartTests/__References__/cafe\u{301}"
    try merge.reference("\(composed)/drawn.png", .seed(30))
    try merge.reference("\(composed)/verified.png", .seed(31))
    try merge.reference("\(decomposed)/verified.png", .seed(32))
    try merge.archive("run.zip", ["\(composed)/drawn.png": .seed(33)]) {
      $0.verifiedReferences = ["\(composed)/verified.png"]
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    let bytes = { (paths: [String]) in paths.map { Array($0.utf8) } }
    XCTAssertEqual(
      bytes(verdict.plan.items(.orphan).map(\.path)), bytes(["\(decomposed)/verified.png"]))
    XCTAssertEqual(
      bytes(verdict.plan.items(.updated).map(\.path)), bytes(["\(composed)/drawn.png"]))
    XCTAssertEqual(bytes(verdict.plan.abandonedFolders.map(\.path)), bytes([decomposed]))
  }

  func testMerge_usedFolderStartingWithACombiningMark_stillLeadsToItsReferenceRoot() throws {
    // The one folder the run used starts with a combining accent, which a split by `Character`
    // joined to the "/" before it: `__References__` was then not found among its components,
    // and its sibling folders were never searched.
    let used = "Tests/ChartTests/__References__/\u{301}x"
    try merge.reference("\(used)/drawn.png", .seed(40))
    try merge.reference("Tests/ChartTests/__References__/other/old.png", .seed(41))
    try merge.archive("run.zip", ["\(used)/drawn.png": .seed(42)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(
      verdict.plan.items(.orphan).map(\.path), ["Tests/ChartTests/__References__/other/old.png"])
  }

  func testMerge_prune_deletesOnlyTheOrphan() throws {
    try orphanScenario()
    merge.options.prune = true

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.names(.orphan), ["orphan"])
    XCTAssertEqual(verdict.summary.pruned, 1)
    XCTAssertFalse(merge.exists("orphan"))
    for kept in ["produced", "verified", "Tests/Other/__References__/unused.png"] {
      XCTAssertTrue(merge.exists(kept), kept)
    }
  }

  func testMerge_incompleteSourceBeside_orphansNotLookedForEvenWithPrune() throws {
    try orphanScenario()
    try merge.archive("crashed.zip", ["produced-too": .seed(25)], generatedAt: day(2)) {
      $0.completion = .running
    }
    merge.options.prune = true

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.names(.orphan), [])
    XCTAssertFalse(verdict.plan.orphanSearchDone)
    XCTAssertNotNil(verdict.plan.orphanSearchRefusal)
    XCTAssertTrue(merge.exists("orphan"))
  }

  /// The XCTest half of a `swift test` run of a bundle that also holds Swift Testing tests:
  /// those ran in a process of their own, and their references are no orphans of this run.
  func testMerge_xcTestRunBesideSwiftTestingTests_orphansNotLookedForEvenWithPrune() throws {
    try merge.reference("produced", .seed(20))
    try merge.reference("swift-testing-owned", .seed(22))
    try merge.archive("run.zip", ["produced": .seed(24)]) {
      $0.coverage = .init(scope: .wholeBundle, arguments: [], swiftTestingTestsNotRun: true)
    }
    merge.options.prune = true

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.names(.orphan), [])
    XCTAssertFalse(verdict.plan.orphanSearchDone)
    XCTAssertEqual(
      verdict.plan.orphanSearchRefusal,
      "1 XCTest run did not run the Swift Testing tests of the same bundle (`swift test` runs "
        + "them in a process of their own), and those may own references; to find orphans, "
        + "prove the run with `reference-shards run` and `merge-refs --require-shards`")
    XCTAssertTrue(merge.exists("swift-testing-owned"))
  }

  /// A Swift Testing run cannot prove which tests ran, even when it ran every one: the
  /// warning points to the proof that works, not to running every test.
  func testMerge_swiftTestingRun_orphansNotLookedFor_andTheHintIsTheShardProof() throws {
    try merge.reference("produced", .seed(20))
    try merge.reference("maybe-skipped", .seed(22))
    try merge.archive("run.zip", ["produced": .seed(24)]) {
      $0.coverage = .init(scope: .unobserved, arguments: [])
    }
    merge.options.prune = true

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.names(.orphan), [])
    XCTAssertEqual(
      verdict.plan.orphanSearchRefusal,
      "1 run is a Swift Testing run, which cannot see skipped or filtered-out tests; to find "
        + "orphans, prove the run with `reference-shards run` and `merge-refs --require-shards`")
    XCTAssertTrue(merge.exists("maybe-skipped"))
  }

  // MARK: Incomplete sources

  /// An archive without a manifest, one of a run cut short, and one whose manifest lists an
  /// image it does not hold; by file name, with the reason each is incomplete.
  private func incompleteArchives(_ merge: MergeScenario) throws -> [String: String] {
    try merge.archive("bare.zip", ["from-bare-zip": .seed(30)]) { $0.includesManifest = false }
    try merge.archive("running.zip", ["from-running": .seed(31)]) { $0.completion = .running }
    let lost = try noiseImage(seed: 33)
    try merge.archive("damaged.zip", ["from-damaged": .seed(32)]) {
      $0.recordsWithoutEntries = [
        .init(path: merge.path("lost"), png: try PNGEncoder().encode(lost), pixels: lost)
      ]
    }
    return [
      "bare.zip": "no manifest (not written by a finished run)",
      "running.zip": "the run was cut short (manifest says running)",
      "damaged.zip": "1 images listed in the manifest are missing, first \(merge.path("lost"))",
    ]
  }

  func testMerge_repeatedBytesWithoutManifest_everyPathLandsWithItsOwnBytes() throws {
    // More entries than one decoding batch holds, most repeating a few files: the files are
    // decoded once each, and every path still lands.
    let shapes = try (0..<3).map { try noiseImage(seed: 60 + $0) }
    try merge.archive("icons.zip") {
      $0.includesManifest = false
      for index in 0..<600 { try $0.add(self.merge.path("icon\(index)"), shapes[index % 3]) }
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.names(.added).count, 600)
    for index in [0, 1, 2, 299, 599] {
      XCTAssertEqual(merge.bytes("icon\(index)"), try Pixels.image(shapes[index % 3]).png())
    }
  }

  func testMerge_invalidPNGRepeatedWithoutManifest_refusedNamingItsFirstEntry() throws {
    let valid = try noiseImage(seed: 70)
    try merge.archive("icons.zip") {
      $0.includesManifest = false
      for index in 0..<300 { try $0.add(self.merge.path("icon\(index)"), valid) }
      // The same damaged file under a later and an earlier-decoded path; the second batch
      // holds both.
      var broken = $0.images[0].png
      broken[broken.count / 2] ^= 0xFF
      for index in [280, 290] { $0.images[index].png = broken }
    }

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .refusedInput, "\(verdict.problems)")
    XCTAssertEqual(verdict.problems, ["refusedSource"])
    let refused = try XCTUnwrap(verdict.refusedEntries.first, "\(verdict.conclusion.problems)")
    XCTAssertEqual(refused.entry, "icon280")
    XCTAssertTrue(refused.reason.contains("not a valid PNG"), refused.reason)
    XCTAssertFalse(merge.exists("icon0"))
  }

  func testMerge_incompleteSources_warnedAndApplied() throws {
    let reasons = try incompleteArchives(merge)

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.completeness, reasons)
    XCTAssertEqual(verdict.names(.added), ["from-bare-zip", "from-damaged", "from-running"])
  }

  func testMerge_incompleteSourcesWithRequireComplete_exit3AndNothingWritten() throws {
    for file in ["bare.zip", "running.zip", "damaged.zip"] {
      let merge = try MergeScenario(self)
      let reasons = try incompleteArchives(merge)
      merge.sources = merge.sources.filter { $0.lastPathComponent == file }
      merge.options.requireComplete = true
      let before = try merge.package()

      let verdict = merge.run()

      XCTAssertEqual(verdict.status, .refusedInput, file)
      XCTAssertEqual(verdict.problems, ["incompleteSources"], file)
      XCTAssertEqual(verdict.completeness, [file: reasons[file]])
      assertTreesEqual(try merge.package(), before)
    }
  }

  // MARK: Folders and nested archives

  func testMerge_unpackedArchiveFolder_mergedAsACompleteRun() throws {
    try merge.reference("orphan", .seed(40))
    try merge.folderSource("unpacked archive", ["unpacked": .seed(41)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["unpacked": .added, "orphan": .orphan])
    XCTAssertEqual(verdict.completeness, ["unpacked archive": nil])
    XCTAssertEqual(verdict.workers(of: "unpacked"), ["ci-host pid 4242"])
    XCTAssertEqual(merge.bytes("unpacked"), try Pixels.seed(41).png())
  }

  func testMerge_stagingFolderOfACrashedRun_appliedWarnedAndTemporaryFilesSkipped() throws {
    let staging = try merge.folderSource("staging", ["staged": .seed(42)]) {
      $0.completion = .running
    }
    let partialFolder = staging.appendingPathComponent(merge.folder)
    try writeFile(
      [0x89, 0x50], to: partialFolder.appendingPathComponent(".refimg-tmp-1-2-half.png"))
    try writeFile([0x89], to: partialFolder.appendingPathComponent(".half.png.77.partial"))

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["staged": .added])
    XCTAssertEqual(
      verdict.completeness, ["staging": "the run was cut short (manifest says running)"])
    XCTAssertEqual(merge.bytes("staged"), try Pixels.seed(42).png())
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(
        atPath: merge.destination.appendingPathComponent(merge.folder).path),
      ["staged.png"])
  }

  /// Two workers' archives, each a source of its own, taken out of the merge's list so that a
  /// test can pack them.
  private func workerArchives() throws -> [URL] {
    try merge.archive("worker-1.zip", ["one": .seed(50)], host: "worker-1")
    try merge.archive(
      "worker-2.zip", ["Tests/BadgeTests/__References__/badge.png": .seed(51)], host: "worker-2")
    defer { merge.sources = [] }
    return merge.sources
  }

  func testMerge_zipOfZips_eachInnerArchiveIsASource() throws {
    let workers = try workerArchives()
    let artifact = merge.root.appendingPathComponent("artifact download.zip")
    try ZipWriter().write(
      workers.map {
        .init(path: "reference-images/\($0.lastPathComponent)", contents: .file($0))
      }, to: artifact)
    merge.sources = [artifact]

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(
      verdict.plan.inventories.map(\.source.description),
      workers.map { "\(artifact.path)!reference-images/\($0.lastPathComponent)" })
    XCTAssertEqual(
      verdict.workers(of: "Tests/BadgeTests/__References__/badge.png"), ["worker-2 pid 4242"])
    XCTAssertEqual(merge.bytes("one"), try Pixels.seed(50).png())
    XCTAssertEqual(
      merge.bytes("Tests/BadgeTests/__References__/badge.png"), try Pixels.seed(51).png())
  }

  func testMerge_folderOfZips_eachZipIsASource() throws {
    let workers = try workerArchives()
    let downloads = merge.root.appendingPathComponent("downloads")
    try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    for archive in workers {
      try FileManager.default.moveItem(
        at: archive, to: downloads.appendingPathComponent(archive.lastPathComponent))
    }
    merge.sources = [downloads]

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.plan.inventories.count, 2)
    XCTAssertEqual(merge.bytes("one"), try Pixels.seed(50).png())
    XCTAssertEqual(
      merge.bytes("Tests/BadgeTests/__References__/badge.png"), try Pixels.seed(51).png())
  }

  func testMerge_leftoverOfAnInterruptedMerge_removed() throws {
    let leftover = merge.destination.appendingPathComponent(
      "\(merge.folder)/.refimg-tmp-999-1-new.png")
    try writeFile([0x89, 0x50, 0x4E], to: leftover)
    try merge.archive("run.zip", ["new": .seed(60)])

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path))
    XCTAssertEqual(
      verdict.summary.warnings,
      ["removed \(merge.folder)/.refimg-tmp-999-1-new.png, left by an interrupted merge"])
  }
}
