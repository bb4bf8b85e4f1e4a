import Foundation
import ReferenceArchive
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
  private func writeShards(commits: [String] = ["abc", "abc"], extraRan: [Int: [String]] = [:])
    throws
  {
    let plan = ShardPlanner().plan(tests: tests, count: 2)
    XCTAssertEqual(plan.shards, [["M.C/testA"], ["M.C/testB"]])
    for index in 0..<2 {
      let folder = artifacts.appendingPathComponent("reference-shard-\(index)")
      var archive = ArchiveBuilder(pid: Int32(100 + index), generatedAt: day(2))
      if index == 0 { try archive.add(image, try noiseImage(seed: 1)) }
      archive.testDurations = plan.shards[index].map { .init(test: $0, seconds: 0.5) }
      try archive.write(to: folder.appendingPathComponent("archives/worker-\(index).zip"))
      let ran = (plan.shards[index] + (extraRan[index] ?? [])).map {
        ShardRecord.Run(test: $0, seconds: 0.5, count: 1)
      }
      let record = ShardRecord(
        commit: commits[index], index: index, count: 2, listingSHA256: plan.listingSHA256,
        planned: plan.shards[index], ran: ran, startedAt: day(2), endedAt: day(2),
        swiftTestStatus: 0, archives: ["worker-\(index).zip"])
      try record.encoded().write(to: folder.appendingPathComponent(ShardRecord.fileName))
    }
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
    XCTAssertEqual(result.status, 0, result.all)
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
    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertFalse(landed)
    XCTAssertTrue(
      result.output.contains(
        "::error::the shards come from different commits: abc (shards 0), "
          + "def (shards 1)"), result.output)
    let summary = try String(
      contentsOf: root.appendingPathComponent("summary.md"), encoding: .utf8)
    XCTAssertTrue(summary.contains("not merged (exit 3)"), summary)
  }

  func testRequireShards_testRanInTwoShards_exit3NothingWritten() throws {
    try writeShards(extraRan: [1: ["M.C/testA"]])
    let result = try merge()
    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertFalse(landed)
    XCTAssertTrue(result.output.contains("1 test ran more than once: M.C/testA"), result.all)
  }

  func testRequireShards_archiveOfAnotherRun_exit3() throws {
    try writeShards()
    var stray = ArchiveBuilder(pid: 999, generatedAt: day(1))
    stray.testDurations = [.init(test: "M.Gone/testOld", seconds: 1)]
    let strayZip = artifacts.appendingPathComponent("reference-shard-1/archives/old.zip")
    try stray.write(to: strayZip)
    let result = try merge()
    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertFalse(landed)
    XCTAssertTrue(
      result.output.contains("\(strayZip.path) lists 1 test of no shard of the plan"), result.all)
  }

  func testRequireShards_sourceThatIsNoShardFolder_exit3() throws {
    try writeShards()
    let loose = root.appendingPathComponent("loose.zip")
    try ArchiveBuilder(generatedAt: day(1)).write(to: loose)
    let result = try merge([loose.path])
    XCTAssertEqual(result.status, 3, result.all)
    XCTAssertFalse(landed)
    XCTAssertTrue(
      result.output.contains("\(loose.path) is not a shard's output folder"), result.all)
  }

  func testWithoutRequireShards_shardFoldersAreSourcesOfTheirArchives() throws {
    try writeShards(commits: ["abc", "def"])
    let result = try MergeRefs.run([
      artifacts.appendingPathComponent("reference-shard-0").path,
      artifacts.appendingPathComponent("reference-shard-1").path, package.path,
    ])
    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(landed)
    XCTAssertTrue(result.output.contains("sources (2):"), result.output)
  }
}
