import Foundation
import ReferenceShards
import XCTest

/// `reference-shards run` on two shards of a real package, each into its own folder as CI
/// uploads them, then `merge-refs --require-shards`: every test of both frameworks runs
/// exactly once, and a merge without one shard's folder refuses, writing nothing.
final class ShardingEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!
  private var references: URL {
    fixture.root.appendingPathComponent("Tests/ShardTests/__References__")
  }
  private var artifacts: URL { fixture.root.appendingPathComponent("artifacts") }

  override func setUpWithError() throws {
    fixture = try FixturePackage.built("ShardFixture")
    try? FileManager.default.removeItem(at: references)
    try? FileManager.default.removeItem(at: artifacts)
  }

  func testTwoShards_everyTestExactlyOnce_mergeProvesIt_andAMissingShardRefuses() throws {
    let shards = try builtProduct("reference-shards").path
    let mergeRefs = try builtProduct("merge-refs").path
    let listing = try fixture.run(["swift", "test", "list", "--skip-build"], environment: [:])
    XCTAssertEqual(listing.status, 0, listing.all)
    let listed = TestListing.parse(listing.output)
    XCTAssertEqual(listed.count, 10, listing.output)

    // Shard 0 by options, shard 1 by the variables a workflow sets from the matrix.
    let first = try fixture.run(
      [
        shards, "run", "--index", "0", "--count", "2", "--commit", "c0ffee", "--output",
        "artifacts/reference-shard-0",
      ], environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(first.status, 0, first.all)
    let second = try fixture.run(
      [shards, "run", "--commit", "c0ffee", "--output", "artifacts/reference-shard-1"],
      environment: [
        "IMAGE_GENERATION_MODE": "1", "REFERENCE_SHARD_INDEX": "1", "REFERENCE_SHARD_COUNT": "2",
      ])
    XCTAssertEqual(second.status, 0, second.all)

    let records = try (0..<2).map {
      try ShardRecord.read(
        from: artifacts.appendingPathComponent("reference-shard-\($0)/shard.json"))
    }
    XCTAssertEqual(records.map(\.index), [0, 1])
    XCTAssertEqual(records.flatMap(\.planned).sorted(), listed, "each test planned once")
    let ran = records.flatMap(\.ran)
    XCTAssertEqual(ran.map(\.test).sorted(), listed, "each test on record in one shard")
    XCTAssertEqual(ran.filter { $0.count == 1 }.count, 10, "\(ran)")
    for record in records { XCTAssertEqual(record.ran.map(\.test), record.planned) }
    let slow = try XCTUnwrap(ran.first { $0.test == "ShardTests.SlowTests/testSlow" })
    XCTAssertGreaterThanOrEqual(slow.seconds, 0.5, "it sleeps half a second")

    // One shard's upload lost: refused, nothing written.
    let partial = try fixture.run(
      [mergeRefs, "--require-shards", "artifacts/reference-shard-0", "."], environment: [:])
    XCTAssertEqual(partial.status, 3, partial.all)
    XCTAssertTrue(partial.all.contains("shard 1 of 2 has no record"), partial.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: references.path), "nothing written")

    let summary = fixture.root.appendingPathComponent("artifacts/summary.md")
    let merge = try fixture.run(
      [
        mergeRefs, "--require-shards", "--require-complete", "--timings-output",
        "artifacts/reference-timings.json", "--summary-markdown", summary.path,
        "--github-annotations", "artifacts/reference-shard-0", "artifacts/reference-shard-1", ".",
      ],
      environment: [:])
    XCTAssertEqual(merge.status, 0, merge.all)
    XCTAssertTrue(merge.output.contains("9 added, 0 updated"), merge.all)
    let markdown = try String(contentsOf: summary, encoding: .utf8)
    XCTAssertTrue(
      markdown.contains(
        "2 of 2 shards, 10 tests planned, 10 on record (10 exactly once), 9 images"),
      markdown)
    let timings = try TestTimings.read(
      from: fixture.root.appendingPathComponent("artifacts/reference-timings.json"))
    XCTAssertEqual(timings.tests.keys.sorted(), listed)

    // The next plan balances by those durations: the slow test alone outweighs the rest.
    let plan = ShardPlanner(timings: timings).plan(tests: listed, count: 2)
    XCTAssertTrue(plan.isTimed)
    XCTAssertEqual(plan.shards.first { $0.contains("ShardTests.SlowTests/testSlow") }?.count, 1)
  }
}
