import Foundation
import ReferenceContracts
import ReferenceShards
import XCTest

/// The sharding article's commands on a real package: two shards of `reference-shards run`, each
/// into its own folder as CI uploads them, then `merge-refs --require-shards`. Every test of
/// both frameworks runs exactly once, and a merge without one shard's folder refuses, writing
/// nothing.
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
    for file in ["reference-timings.json", "summary.md", ReferenceVariants.fileName] {
      try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent(file))
    }
  }

  /// The sharding article's block of commands, with `swift run` replaced by the products built
  /// beside this test: building them again in the fixture would take minutes.
  private func readmeScript() throws -> String {
    let readme = try String(
      contentsOf: FixturePackage.checkout.appendingPathComponent(
        "Sources/ReferenceImageTesting/ReferenceImageTesting.docc/Sharding.md"), encoding: .utf8)
    let start = try XCTUnwrap(
      readme.range(of: "```sh\nswift build --build-tests\n# on machine I of N"),
      "Sharding.md lacks the sharding commands")
    let body = readme[start.lowerBound...].dropFirst("```sh\n".count)
    let end = try XCTUnwrap(body.range(of: "\n```"))
    return try String(body[..<end.lowerBound])
      .replacingOccurrences(
        of: "swift run reference-shards", with: builtProduct("reference-shards").path
      )
      .replacingOccurrences(of: "swift run merge-refs", with: builtProduct("merge-refs").path)
  }

  func testReadmeCommands_twoShards_everyTestExactlyOnce_andAMissingShardRefuses() throws {
    let listing = try fixture.run(["swift", "test", "list", "--skip-build"], environment: [:])
    XCTAssertEqual(listing.status, 0, listing.all)
    let listed = TestListing.parse(listing.output)
    XCTAssertEqual(listed.count, 10, listing.output)

    // GITHUB_SHA is what CI provides; the fixture's copy is no git checkout.
    let script = try readmeScript()
    let run = try fixture.run(["sh", "-ec", script], environment: ["GITHUB_SHA": "c0ffee"])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertTrue(run.output.contains("9 added, 0 updated"), run.all)
    XCTAssertFalse(run.output.contains("::error"), run.all)

    let records = try (0..<2).map {
      try ShardRecord.read(
        from: artifacts.appendingPathComponent("reference-shard-\($0)/shard.json"))
    }
    XCTAssertEqual(records.map(\.index), [0, 1])
    XCTAssertEqual(records.map(\.commit), ["c0ffee", "c0ffee"])
    XCTAssertEqual(records.flatMap(\.planned).sorted(), listed, "each test planned once")
    let ran = records.flatMap(\.ran)
    XCTAssertEqual(ran.map(\.test).sorted(), listed, "each test on record in one shard")
    XCTAssertEqual(ran.filter { $0.count == 1 }.count, 10, "\(ran)")
    for record in records { XCTAssertEqual(record.ran.map(\.test), record.planned) }
    let slow = try XCTUnwrap(ran.first { $0.test == "ShardTests.SlowTests/testSlow" })
    XCTAssertGreaterThanOrEqual(slow.seconds, 0.5, "it sleeps half a second")
    let markdown = try String(
      contentsOf: fixture.root.appendingPathComponent("summary.md"), encoding: .utf8)
    XCTAssertTrue(
      markdown.contains(
        "2 of 2 shards, 10 tests planned, 10 on record (10 exactly once), 9 images"), markdown)

    // The next plan balances by the durations the merge wrote: the slow test, longer than
    // all the others together, gets a shard of its own.
    let timings = try TestTimings.read(
      from: fixture.root.appendingPathComponent("reference-timings.json"))
    XCTAssertEqual(timings.tests.keys.sorted(), listed)
    let plan = ShardPlanner(timings: timings).plan(tests: listed, count: 2)
    XCTAssertTrue(plan.isTimed)
    XCTAssertEqual(plan.shards.first { $0.contains("ShardTests.SlowTests/testSlow") }?.count, 1)

    // More shards than tests: the last one runs nothing, says so, and records it.
    let empty = try fixture.run(
      [
        try builtProduct("reference-shards").path, "run", "--commit", "c0ffee", "--output",
        "artifacts/empty",
      ],
      environment: ["REFERENCE_SHARD_INDEX": "10", "REFERENCE_SHARD_COUNT": "11"])
    XCTAssertEqual(empty.exitStatus, .success, empty.all)
    XCTAssertTrue(empty.error.contains("shard 10 of 11 has no tests: nothing to run"), empty.all)
    let emptyRecord = try ShardRecord.read(
      from: artifacts.appendingPathComponent("empty/shard.json"))
    XCTAssertEqual([emptyRecord.planned.count, emptyRecord.ran.count], [0, 0])

    // One shard's upload lost: refused, nothing written.
    try FileManager.default.removeItem(at: references)
    let partial = try fixture.run(
      [
        try builtProduct("merge-refs").path, "--require-shards", "artifacts/reference-shard-0", ".",
      ],
      environment: [:])
    XCTAssertEqual(partial.exitStatus, .refusedInput, partial.all)
    XCTAssertTrue(partial.all.contains("shard 1 of 2 has no record"), partial.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: references.path), "nothing written")
  }

  /// References per platform in shards: the base and two variants (`linux-arm64 → linux → base`,
  /// a variant standing for a platform) each run the whole plan in two shards; one merge with
  /// `--require-shards` proves each platform apart and lands a variant file exactly where a
  /// variant's render differs from what the rest of its chain gives. A platform's missing
  /// shard refuses the merge, naming the platform.
  func testTwoVariantsAndTheBase_inShards_landExactlyTheFilesThatDiffer() throws {
    try Data(
      """
      {"schemaVersion": 1, "base": "\(ReferencePlatform.current)",
       "variants": {"linux-arm64": ["linux"], "linux": []}}
      """.utf8
    ).write(to: fixture.root.appendingPathComponent(ReferenceVariants.fileName))
    let shards = try builtProduct("reference-shards").path
    for variant in ["base", "linux", "linux-arm64"] {
      for index in 0..<2 {
        let run = try fixture.run(
          [
            shards, "run", "--index", "\(index)", "--count", "2", "--commit", "c0ffee",
            "--output", "artifacts/\(variant)-\(index)",
          ],
          environment: ["IMAGE_GENERATION_MODE": "1", "IMAGE_REFERENCE_VARIANT": variant])
        XCTAssertEqual(run.exitStatus, .success, "\(variant) shard \(index): \(run.all)")
      }
    }
    let mergeRefs = try builtProduct("merge-refs").path
    let artifactFolders = ["base", "linux", "linux-arm64"].flatMap { variant in
      (0..<2).map { "artifacts/\(variant)-\($0)" }
    }

    // linux-arm64's shard 1 lost: refused by its platform's name, nothing written.
    let partial = try fixture.run(
      [mergeRefs, "--require-shards"] + artifactFolders.filter { $0 != "artifacts/linux-arm64-1" }
        + ["."],
      environment: [:])
    XCTAssertEqual(partial.exitStatus, .refusedInput, partial.all)
    XCTAssertTrue(
      partial.all.contains("variant linux-arm64: shard 1 of 2 has no record"), partial.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: references.path), "nothing written")

    let merge = try fixture.run(
      [mergeRefs, "--require-shards", "--summary-markdown", "summary.md"] + artifactFolders
        + ["."],
      environment: [:])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    let landed = try FileManager.default.subpathsOfDirectory(atPath: references.path)
      .filter { $0.hasSuffix(".png") }
    let variantFiles = landed.filter { $0.contains(ReferenceVariants.marker) }
    // arm64's first square differs from the base; linux's third square differs from the
    // base, so arm64, which renders the base's pixels there, needs a file over its fallback.
    XCTAssertEqual(
      variantFiles.map { ($0 as NSString).lastPathComponent }.sorted(),
      ["alpha-a@@linux-arm64.png", "extra-a@@linux-arm64.png", "extra-a@@linux.png"],
      merge.all)
    XCTAssertEqual(landed.count - variantFiles.count, 9, "every base reference: \(landed)")
    XCTAssertTrue(
      merge.output.contains(
        "by variant: base 9 added; linux 1 added, 8 equal to the fallback; "
          + "linux-arm64 2 added, 7 equal to the fallback"),
      merge.all)
    let markdown = try String(
      contentsOf: fixture.root.appendingPathComponent("summary.md"), encoding: .utf8)
    XCTAssertTrue(
      markdown.contains("6 of 6 shards, 30 tests planned, 30 on record (30 exactly once)"),
      markdown)

    // Each platform verifies against its own chain.
    for variant in ["base", "linux", "linux-arm64"] {
      let verify = try fixture.test([], environment: ["IMAGE_REFERENCE_VARIANT": variant])
      XCTAssertEqual(verify.status, 0, "\(variant): \(verify.all)")
    }
  }
}
