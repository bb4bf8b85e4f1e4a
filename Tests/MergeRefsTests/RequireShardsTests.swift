import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceShards
import XCTest

/// `merge-refs --require-shards` on shard folders as CI downloads them: the proof decides
/// before anything is written, and the job summary, timings and annotations are written.
final class RequireShardsTests: XCTestCase {
  private var root: URL!
  private var package: URL { root.appendingPathComponent("package") }
  private var artifacts: URL { root.appendingPathComponent("artifacts") }
  private let image = "Tests/XTests/__References__/C/a.png"
  private let tests = ["M.C/testA", "M.C/testB"]

  override func setUpWithError() throws {
    root = try makeTemporaryFolder(self)
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
  }

  /// Two shards of one plan: shard 0 ran testA, which stored an image; shard 1 ran testB,
  /// which stored none (its archive holds only the manifest).
  /// `extraRan` adds tests to a shard's archive (its evidence); `skipped`, tests its archive
  /// records as skipped; `status`, a shard's `swift test` status.
  private func writeShards(
    commits: [String] = ["abc", "abc"], extraRan: [Int: [String]] = [:],
    skipped: [Int: [String]] = [:], failed: [Int: [String]] = [:], status: [Int: Int32] = [:]
  ) throws {
    let plan = ShardPlanner().plan(tests: tests, count: 2)
    XCTAssertEqual(plan.shards, [["M.C/testA"], ["M.C/testB"]])
    for index in 0..<2 {
      let folder = shardFolder(index)
      var archive = ArchiveBuilder(pid: Int32(100 + index), generatedAt: day(2))
      let ranTests = plan.shards[index] + (extraRan[index] ?? [])
      archive.testDurations = ranTests.map { .init(test: $0, seconds: 0.5) }
      archive.skippedTests = skipped[index] ?? []
      archive.failedTests = failed[index]?.map { .init(test: $0, file: nil) }
      if index == 0, !failed.isEmpty {
        // Where testA asserted: the folders its class's failed tests may own.
        archive.owners[image] = "M.C/testA"
        archive.referenceUses = [
          .init(
            path: image, test: "M.C/testA", file: "Tests/XTests/C.swift", line: 1,
            verdict: .recorded)
        ]
      }
      if index == 0 { try archive.add(image, try noiseImage(seed: 1)) }
      let zip = folder.appendingPathComponent("archives/worker-\(index).zip")
      try archive.write(to: zip)
      let record = ShardRecord(
        commit: commits[index], index: index, count: 2, listingSHA256: plan.listingSHA256,
        planned: plan.shards[index],
        ran: ranTests.map { ShardRecord.Run(test: $0, seconds: 0.5, count: 1) },
        startedAt: day(2), endedAt: day(2), swiftTestStatus: status[index] ?? 0,
        archives: [
          .init(
            name: zip.lastPathComponent, sha256: try FileSystem.sha256(of: zip),
            images: archive.images.count)
        ], skipped: skipped[index] ?? [])
      try record.encoded().write(to: folder.appendingPathComponent(ShardRecord.fileName))
    }
  }

  /// Writes an archive into a shard's `archives/` folder that its record does not know of:
  /// the tests it says ran, and one image when a seed is given.
  @discardableResult
  private func writeArchive(
    _ name: String, shard: Int, tests: [String], imagePath: String? = nil, seed: Int = 3
  ) throws -> URL {
    var archive = ArchiveBuilder(pid: Int32(300 + shard), generatedAt: day(2))
    if let imagePath { try archive.add(imagePath, try noiseImage(seed: seed)) }
    archive.testDurations = tests.map { .init(test: $0, seconds: 0.5) }
    let url = shardFolder(shard).appendingPathComponent("archives/\(name)")
    try archive.write(to: url)
    return url
  }

  private func shardFolder(_ index: Int) -> URL {
    artifacts.appendingPathComponent("reference-shard-\(index)")
  }

  private func merge(_ extra: [String] = []) throws -> ProgramResult {
    try MergeRefs.run(
      [
        "--require-shards", "--require-complete", "--github-annotations", "--summary-markdown",
        root.appendingPathComponent("summary.md").path, "--timings-output",
        root.appendingPathComponent("timings.json").path,
      ] + extra + [
        artifacts.appendingPathComponent("reference-shard-0").path,
        artifacts.appendingPathComponent("reference-shard-1").path, package.path,
      ])
  }

  private var landed: Bool {
    FileManager.default.fileExists(atPath: package.appendingPathComponent(image).path)
  }

  func testRequireShards_completePlan_landsAndWritesSummaryAndTimings() throws {
    try writeShards()
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(landed)
    XCTAssertFalse(result.output.contains("::"), result.output)
    let summary = try String(
      contentsOf: root.appendingPathComponent("summary.md"), encoding: .utf8)
    XCTAssertTrue(
      summary.contains("2 of 2 shards, 2 tests planned, 2 on record (2 exactly once), 1 images"),
      summary)
    XCTAssertTrue(summary.contains("- added `\(image)`"), summary)
    let timings = try TestTimings.read(from: root.appendingPathComponent("timings.json"))
    XCTAssertEqual(timings.tests, ["M.C/testA": 0.5, "M.C/testB": 0.5])
  }

  func testRequireShards_differentCommits_exit3NothingWritten() throws {
    try writeShards(commits: ["abc", "def"])
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertFalse(landed)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: the shards come from different commits: abc (shards 0), def (shards 1); merge the artifacts of one workflow run
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused (nothing written)
      ::error::the shards come from different commits: abc (shards 0), def (shards 1); merge the artifacts of one workflow run

      """)
    let summary = try String(
      contentsOf: root.appendingPathComponent("summary.md"), encoding: .utf8)
    XCTAssertTrue(summary.contains("not merged (exit 3)"), summary)
  }

  func testRequireShards_testRanInTwoShards_exit3NothingWritten() throws {
    try writeShards(extraRan: [1: ["M.C/testA"]])
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertFalse(landed)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: shard 1 ran 1 test its plan did not give it: M.C/testA
      error: 1 test ran more than once: M.C/testA
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 2 refused (nothing written)
      ::error::shard 1 ran 1 test its plan did not give it: M.C/testA
      ::error::1 test ran more than once: M.C/testA

      """)
  }

  func testRequireShards_archiveOfAnotherRun_exit3() throws {
    try writeShards()
    let strayZip = try writeArchive("old.zip", shard: 1, tests: ["M.Gone/testOld"])
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertFalse(landed)
    // Refused from the records alone, before any archive is read for the merge.
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: shard 1: \(strayZip.path) is not listed in its shard.json: it comes from another run; remove it or rerun the shard
      error: shard 1 ran 1 test its plan did not give it: M.Gone/testOld
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 2 refused (nothing written)
      ::error::shard 1: \(strayZip.path) is not listed in its shard.json: it comes from another run; remove it or rerun the shard
      ::error::shard 1 ran 1 test its plan did not give it: M.Gone/testOld

      """)
  }

  func testRequireShards_sourceThatIsNoShardFolder_exit3() throws {
    try writeShards()
    let loose = root.appendingPathComponent("loose.zip")
    try ArchiveBuilder(generatedAt: day(1)).write(to: loose)
    let result = try merge([loose.path])
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertFalse(landed)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: --require-shards: \(loose.path) is not a shard's output folder (no shard.json); pass only the folders `reference-shards run` wrote
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused (nothing written)
      ::error::--require-shards: \(loose.path) is not a shard's output folder (no shard.json); pass only the folders `reference-shards run` wrote

      """)
  }

  func testWithoutRequireShards_shardFoldersAreSourcesOfTheirArchives() throws {
    try writeShards(commits: ["abc", "def"])
    let result = try MergeRefs.run([
      artifacts.appendingPathComponent("reference-shard-0").path,
      artifacts.appendingPathComponent("reference-shard-1").path, package.path,
    ])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(landed)
    XCTAssertTrue(result.output.contains("2 sources: "), result.output)
  }

  // MARK: The proof checks the files, not the record's say-so

  func testRequireShards_lostArchive_exit3NamesShardAndFile() throws {
    try writeShards()
    let zip = shardFolder(0).appendingPathComponent("archives/worker-0.zip")
    try FileManager.default.removeItem(at: zip)
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertFalse(landed)
    // Refused from the record and the folder's listing, before any archive is hashed or read.
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: shard 0: \(zip.path) is listed in its shard.json but missing from the folder: the artifact lost a file; download it again or rerun the shard
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused (nothing written)
      ::error::shard 0: \(zip.path) is listed in its shard.json but missing from the folder: the artifact lost a file; download it again or rerun the shard

      """)
  }

  /// Three platforms ran one plan, each with a shard 0: a lost archive names the shard by its
  /// platform and index, and the summary counts it.
  func testRequireShards_lostArchiveOnOnePlatform_namesTheShardByPlatformAndIndex() throws {
    var folders: [URL] = []
    for platform in ["linux-x86_64", "linux-arm64", "macos"] {
      let folder = artifacts.appendingPathComponent("reference-shard-\(platform)-0")
      var archive = ArchiveBuilder(pid: 100, generatedAt: day(2))
      try archive.add("Tests/XTests/__References__/C/\(platform).png", try noiseImage(seed: 1))
      archive.testDurations = [.init(test: "M.C/testA", seconds: 0.5)]
      let zip = folder.appendingPathComponent("archives/worker-0.zip")
      try archive.write(to: zip)
      let plan = ShardPlanner().plan(tests: ["M.C/testA"], count: 1)
      let record = ShardRecord(
        commit: "abc", index: 0, count: 1, listingSHA256: plan.listingSHA256,
        planned: plan.shards[0], ran: [.init(test: "M.C/testA", seconds: 0.5, count: 1)],
        startedAt: day(2), endedAt: day(2), swiftTestStatus: 0,
        archives: [
          .init(
            name: zip.lastPathComponent, sha256: try FileSystem.sha256(of: zip),
            images: archive.images.count)
        ], platform: platform)
      try record.encoded().write(to: folder.appendingPathComponent(ShardRecord.fileName))
      folders.append(folder)
    }
    let lost = folders[2].appendingPathComponent("archives/worker-0.zip")
    try FileManager.default.removeItem(at: lost)
    let result = try MergeRefs.run(["--require-shards"] + folders.map(\.path) + [package.path])
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: shard 0 of macos: \(lost.path) is listed in its shard.json but missing from the folder: the artifact lost a file; download it again or rerun the shard
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused (nothing written)

      """)
  }

  func testRequireShards_changedArchive_exit3() throws {
    try writeShards()
    let recorded = try ShardRecord.read(
      from: shardFolder(0).appendingPathComponent(ShardRecord.fileName)
    ).archives[0].sha256.prefix(12)
    let zip = try writeArchive(
      "worker-0.zip", shard: 0, tests: ["M.C/testA"], imagePath: image, seed: 7)
    let actual = try FileSystem.sha256(of: zip).prefix(12)
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertFalse(landed)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: shard 0: \(zip.path) is not the file its shard.json lists (SHA-256 \(actual), recorded \(recorded)): it was changed or replaced; rerun the shard
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused (nothing written)
      ::error::shard 0: \(zip.path) is not the file its shard.json lists (SHA-256 \(actual), recorded \(recorded)): it was changed or replaced; rerun the shard

      """)
  }

  func testRequireShards_extraArchive_exit3() throws {
    try writeShards()
    try writeArchive(
      "extra.zip", shard: 1, tests: ["M.C/testB"],
      imagePath: "Tests/XTests/__References__/C/extra.png")
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertFalse(landed)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: shard 1: \(shardFolder(1).path)/archives/extra.zip is not listed in its shard.json: it comes from another run; remove it or rerun the shard
      error: 1 test ran more than once: M.C/testB
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 2 refused (nothing written)
      ::error::shard 1: \(shardFolder(1).path)/archives/extra.zip is not listed in its shard.json: it comes from another run; remove it or rerun the shard
      ::error::1 test ran more than once: M.C/testB

      """)
  }

  func testRequireShards_recordClaimsARunItsFilesDoNotHold_exit3() throws {
    try writeShards()
    // Shard 1's archive and its listing are gone together; its record still says testB ran.
    let folder = shardFolder(1)
    try FileManager.default.removeItem(at: folder.appendingPathComponent("archives/worker-1.zip"))
    let file = folder.appendingPathComponent(ShardRecord.fileName)
    var record = try ShardRecord.read(from: file)
    record.archives = []
    try record.encoded().write(to: file)
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: 1 planned test did not run (crashed, or not selected): M.C/testB
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused (nothing written)
      ::error::1 planned test did not run (crashed, or not selected): M.C/testB

      """)
  }

  func testRequireShards_imageCountEdited_exit3() throws {
    try writeShards()
    let file = shardFolder(0).appendingPathComponent(ShardRecord.fileName)
    var record = try ShardRecord.read(from: file)
    record.archives[0].images = 5
    try record.encoded().write(to: file)
    let result = try merge()
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: shard 0: \(shardFolder(0).path)/archives/worker-0.zip holds 1 image, but its shard.json says 5: the record was edited; rerun the shard
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused (nothing written)
      ::error::shard 0: \(shardFolder(0).path)/archives/worker-0.zip holds 1 image, but its shard.json says 5: the record was edited; rerun the shard

      """)
  }

  // MARK: Skipped, failing and missing shards keep every reference

  func testRequireShards_skippedTest_referenceKeptWithPrune() throws {
    try writeShards(skipped: [1: ["M.C/testB"]])
    let owned = package.appendingPathComponent("Tests/XTests/__References__/C/b.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 2)), to: owned)
    let result = try merge(["--prune", "--json"])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(landed)
    XCTAssertTrue(FileManager.default.fileExists(atPath: owned.path), "kept: \(result.all)")
    let json = try XCTUnwrap(
      // The annotations follow the JSON.
      JSONSerialization.jsonObject(
        with: Data(result.output.components(separatedBy: "\n::")[0].utf8)) as? [String: Any])
    XCTAssertEqual(json["skippedTests"] as? [String], ["M.C/testB"])
    XCTAssertEqual(json["orphans"] as? Int, 0)
    // No assertion of module M says where its references live: the skipped test may own any.
    XCTAssertEqual(
      json["keptForSkippedTests"] as? [String], ["Tests/XTests/__References__/C/b.png"])
  }

  func testRequireShards_withoutSkips_orphanIsFoundAndPruned() throws {
    try writeShards()
    let orphan = package.appendingPathComponent("Tests/XTests/__References__/C/old.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 2)), to: orphan)
    let result = try merge(["--prune"])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: orphan.path), result.all)
  }

  func testRequireShards_failedShard_landsButPrunesNothing() throws {
    try writeShards(status: [1: 1])
    let owned = package.appendingPathComponent("Tests/XTests/__References__/C/b.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 2)), to: owned)
    let result = try merge(["--prune"])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(landed)
    XCTAssertTrue(FileManager.default.fileExists(atPath: owned.path), result.all)
    XCTAssertTrue(
      result.output.contains(
        "orphans were not looked for: `swift test` failed in shard 1 (status 1) with no failed "
          + "test on record"), result.all)
  }

  /// A failed test on record keeps what it may own (its class's file's folder); an orphan
  /// anywhere else is found and pruned, where a failed shard once switched the search off.
  func testRequireShards_failedTestOnRecord_keepsItsFolder_orphanElsewherePruned() throws {
    try writeShards(failed: [1: ["M.C/testB"]], status: [1: 1])
    let owned = package.appendingPathComponent("Tests/XTests/__References__/C/b.png")
    let orphan = package.appendingPathComponent("Tests/XTests/__References__/D/old.png")
    for file in [owned, orphan] {
      try writeFile(try PNGEncoder().encode(try noiseImage(seed: 2)), to: file)
    }
    let result = try merge(["--prune"])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(landed)
    XCTAssertTrue(FileManager.default.fileExists(atPath: owned.path), result.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: orphan.path), result.all)
    XCTAssertFalse(result.output.contains("orphans were not looked for"), result.all)
    XCTAssertTrue(result.output.contains(", 1 test failed"), result.all)
    XCTAssertTrue(
      result.output.contains(
        "tests failed (they may have stopped before storing their images; references they "
          + "may own are kept):\n  M.C/testB\n"), result.all)
  }

  func testRequireShards_missingShard_listsNoOrphans() throws {
    try writeShards()
    let owned = package.appendingPathComponent("Tests/XTests/__References__/C/b.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 2)), to: owned)
    try FileManager.default.removeItem(at: shardFolder(1))
    let result = try MergeRefs.run([
      "--require-shards", "--prune", shardFolder(0).path, package.path,
    ])
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    assertWholeOutput(
      result.output,
      """
      0 sources: 0 images
      error: shard 1 of 2 has no record: the upload is missing or the job did not finish; rerun the missing shard
      0 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 1 refused (nothing written)

      """)
    XCTAssertTrue(FileManager.default.fileExists(atPath: owned.path))
  }
}
