import Foundation
import ReferenceImageCore
import ReferenceShards
import XCTest

/// What must never be lost, on a real package: references of tests that were skipped, disabled
/// or filtered out survive `merge-refs --prune`; a shard folder that lost an archive is refused;
/// a render that differs run to run is caught as unstable, and 500 deterministic renders are not.
final class TrustEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!
  private var references: URL {
    fixture.root.appendingPathComponent("Tests/TrustTests/__References__")
  }
  private var output: URL { fixture.root.appendingPathComponent("trust-output") }

  override func setUpWithError() throws {
    fixture = try FixturePackage.built("TrustFixture")
    try? FileManager.default.removeItem(at: references)
    try? FileManager.default.removeItem(at: output)
    try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent("trust-review"))
  }

  private func reference(_ file: String, _ name: String) -> URL {
    references.appendingPathComponent("\(file)/\(name).png")
  }

  /// Commits a reference with other pixels than any run renders.
  private func commit(_ file: String, _ name: String) throws {
    let url = reference(file, name)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let image = try RGBAImage(width: 4, height: 4, color: RGBAColor(red: 1, green: 2, blue: 3))
    try Data(try PNGEncoder().encode(image)).write(to: url)
  }

  private func exists(_ file: String, _ name: String) -> Bool {
    FileManager.default.fileExists(atPath: reference(file, name).path)
  }

  private func generate(_ arguments: [String], _ environment: [String: String] = [:]) throws {
    let run = try fixture.test(
      arguments,
      environment: ["IMAGE_GENERATION_MODE": "1", "IMAGE_GENERATION_OUTPUT": output.path]
        .merging(environment) { $1 })
    XCTAssertEqual(run.status, 0, run.all)
  }

  private func merge(_ arguments: [String]) throws -> (ProcessOutput, [String: Any]) {
    let result = try fixture.run(
      [try builtProduct("merge-refs").path, "--json"] + arguments, environment: [:])
    let json =
      (try? JSONSerialization.jsonObject(with: Data(result.output.utf8))) as? [String: Any]
    return (result, json ?? [:])
  }

  /// All the tests as the one shard of `reference-shards run`, whose record proves the run
  /// whole: in a target that also holds Swift Testing tests, a whole-bundle XCTest process
  /// proves nothing (`swift test` runs those in a process of their own).
  private func generateOneShard(_ environment: [String: String] = [:]) throws {
    let run = try fixture.run(
      [
        try builtProduct("reference-shards").path, "run", "--index", "0", "--count", "1",
        "--commit", "c0ffee", "--output", output.path,
      ],
      environment: ["IMAGE_GENERATION_MODE": "1"].merging(environment) { $1 })
    XCTAssertEqual(run.exitStatus, .success, run.all)
  }

  func testXCTestSkip_pruneKeepsItsReference_andAWholeRunPrunesTheOrphan() throws {
    for name in ["sometimes", "old"] { try commit("XCTestCases", name) }
    try generateOneShard(["TRUST_SKIP": "1"])
    let (skipped, json) = try merge(
      ["--require-shards", "--prune", output.path, fixture.root.path])
    XCTAssertEqual(skipped.exitStatus, .success, skipped.all)
    let skippedTests = try XCTUnwrap(json["skippedTests"] as? [String], skipped.output)
    XCTAssertTrue(
      skippedTests.contains("TrustTests.KeptTests/testSometimesSkipped"), "\(skippedTests)")
    XCTAssertTrue(exists("XCTestCases", "sometimes"), "the skipped test's reference stays")
    // Its suite asserted in XCTestCases.swift: that file's folder is what it may own.
    XCTAssertTrue(exists("XCTestCases", "old"), "nothing in its suite's folder is an orphan")
    let kept = try XCTUnwrap(json["keptForSkippedTests"] as? [String], skipped.output)
    XCTAssertTrue(kept.contains { $0.hasSuffix("XCTestCases/old.png") }, "\(kept)")
    XCTAssertTrue(exists("XCTestCases", "drawn"))

    // The same run on a machine that skips nothing proves the folder whole: the orphan goes.
    try FileManager.default.removeItem(at: output)
    try generateOneShard()
    let (whole, wholeJSON) = try merge(
      ["--require-shards", "--prune", output.path, fixture.root.path])
    XCTAssertEqual(whole.exitStatus, .success, whole.all)
    XCTAssertEqual(wholeJSON["orphanSearchDone"] as? Bool, true, whole.output)
    XCTAssertFalse(exists("XCTestCases", "old"), whole.output)
    XCTAssertTrue(exists("XCTestCases", "sometimes"))
  }

  /// The whole-bundle XCTest process of that target alone: it did not run the Swift Testing
  /// tests beside it, so it proves no orphan, and `--prune` deletes nothing.
  func testWholeBundleXCTestRun_besideSwiftTestingTests_prunesNothing() throws {
    try commit("XCTestCases", "old")
    try generate(["--disable-swift-testing"])
    let (merged, json) = try merge(["--prune", output.path, fixture.root.path])
    XCTAssertEqual(merged.exitStatus, .success, merged.all)
    XCTAssertEqual(json["orphanSearchDone"] as? Bool, false, merged.output)
    XCTAssertTrue(
      (json["orphanSearchRefusal"] as? String)?.contains("did not run the Swift Testing tests")
        ?? false, merged.output)
    XCTAssertTrue(exists("XCTestCases", "old"), merged.output)
  }

  func testFilteredRun_pruneKeepsTheReferencesOfTestsItDidNotRun() throws {
    for name in ["sometimes", "old"] { try commit("XCTestCases", name) }
    try generate(["--disable-swift-testing", "--filter", "KeptTests/testDrawn"])
    let (result, json) = try merge(["--prune", output.path, fixture.root.path])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(exists("XCTestCases", "drawn"))
    XCTAssertTrue(exists("XCTestCases", "sometimes"), "a filtered-out test keeps its reference")
    XCTAssertTrue(exists("XCTestCases", "old"))
    XCTAssertTrue(
      (json["orphanSearchRefusal"] as? String ?? "").contains("ran selected tests only"),
      result.output)
  }

  func testParallelWorkers_pruneNothing() throws {
    try commit("XCTestCases", "old")
    try generate(["--disable-swift-testing", "--parallel"])
    let (result, _) = try merge(["--prune", output.path, fixture.root.path])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertTrue(exists("XCTestCases", "old"), "one-test workers prove no folder whole")
  }

  func testSwiftTestingDisabledTests_throughShards_keepTheirReferences() throws {
    let disabled = ["st-off", "st-cond", "inside", "old"]
    for name in disabled { try commit("SwiftTestingCases", name) }
    let shard = output.appendingPathComponent("shard-0")
    let run = try fixture.run(
      [
        try builtProduct("reference-shards").path, "run", "--index", "0", "--count", "1",
        "--output", shard.path,
      ], environment: ["GITHUB_SHA": "c0ffee", "IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    let record = try ShardRecord.read(from: shard.appendingPathComponent(ShardRecord.fileName))
    XCTAssertEqual(
      record.skipped,
      [
        "TrustTests.OffSuite/inside()", "TrustTests.stConditional()", "TrustTests.stOff()",
      ])
    XCTAssertFalse(record.events.isEmpty, "the Swift Testing evidence is kept")

    let (result, json) = try merge(["--require-shards", "--prune", shard.path, fixture.root.path])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertEqual(json["skippedTests"] as? [String], record.skipped)
    for name in disabled { XCTAssertTrue(exists("SwiftTestingCases", name), name) }
    XCTAssertTrue(exists("SwiftTestingCases", "st-drawn"))

    // An archive lost from the artifact: refused by name, nothing written.
    try FileManager.default.removeItem(at: reference("SwiftTestingCases", "st-drawn"))
    let holding = try XCTUnwrap(record.archives.first { ($0.images ?? 0) > 0 })
    try FileManager.default.removeItem(
      at: shard.appendingPathComponent("archives/\(holding.name)"))
    let (lost, _) = try merge(["--require-shards", shard.path, fixture.root.path])
    XCTAssertEqual(lost.exitStatus, .refusedInput, lost.all)
    XCTAssertTrue(lost.output.contains("\(holding.name) is listed in its shard.json"), lost.all)
    XCTAssertFalse(exists("SwiftTestingCases", "st-drawn"), "nothing written")
  }

  func testRepeatedRuns_randomRenderIsUnstable_500SteadyRendersAreNot() throws {
    let replicated = ["IMAGE_GENERATION_REPLICAS": "2"]
    for _ in 0..<2 {
      try generate(["--filter", "ClockTests|steady"], replicated)
    }
    let (result, json) = try merge([output.path, fixture.root.path])
    XCTAssertEqual(result.exitStatus, .unstableRenders, result.all)
    XCTAssertEqual(json["unstable"] as? Int, 1, result.output)
    XCTAssertEqual(json["added"] as? Int, 500, "every steady render lands once")
    let changes = json["changes"] as? [[String: Any]] ?? []
    let unstable = changes.filter { $0["outcome"] as? String == "unstable" }
    XCTAssertEqual(
      unstable.compactMap { $0["path"] as? String },
      ["Tests/TrustTests/__References__/XCTestCases/random.png"])
    XCTAssertFalse(exists("XCTestCases", "random"), "an unstable render never lands")
  }

  func testNonASCIINames_throughCoordinatorMergeReportAndDecisionFile() throws {
    try generate(["--disable-swift-testing", "--filter", "KeptTests/testNamesInOtherScripts"])
    let name = "cafe\u{301}/日本語-русский-עברית-😀"
    let path = "Tests/TrustTests/__References__/XCTestCases/\(name).png"
    let archives = try FileManager.default.contentsOfDirectory(atPath: output.path)
      .filter { $0.hasSuffix(".zip") }
    XCTAssertEqual(archives.count, 1, "\(archives)")
    let listing = try runProcess(
      "/usr/bin/env", ["unzip", "-Z1", output.appendingPathComponent(archives[0]).path],
      in: output, environment: ["LANG": "C.UTF-8"])
    XCTAssertTrue(
      listing.output.split(separator: "\n").contains { Array($0.utf8) == Array(path.utf8) },
      "unzip reads the coordinator's name as written: \(listing.output)")

    // Beside the archives' folder, not in it: a folder source holds archives only.
    let report = fixture.root.appendingPathComponent("trust-review")
    let (dry, _) = try merge(["--dry-run", "--report", report.path, output.path, fixture.root.path])
    XCTAssertEqual(dry.exitStatus, .success, dry.all)
    let data = try Data(contentsOf: report.appendingPathComponent("review-data.js"))
    XCTAssertNotNil(
      data.range(of: Data(path.utf8)), "the report names the path byte for byte")

    let decisions = fixture.root.appendingPathComponent("trust-decisions.txt")
    try Data((path + "\n").utf8).write(to: decisions)
    let (landed, json) = try merge([
      "--include-from", decisions.path, output.path, fixture.root.path,
    ])
    XCTAssertEqual(landed.exitStatus, .success, landed.all)
    XCTAssertEqual(json["added"] as? Int, 1, landed.output)
    let folder = references.appendingPathComponent("XCTestCases/cafe\u{301}")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    XCTAssertEqual(files.map { Array($0.utf8) }, [Array("日本語-русский-עברית-😀.png".utf8)])
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(
        atPath: references.appendingPathComponent("XCTestCases").path
      )
      .map { Array($0.utf8) }, [Array("cafe\u{301}".utf8)], "the decomposed name is kept")
  }

  func testReplicatedShards_randomRenderIsUnstable_everythingElseLands() throws {
    let shards = (0..<2).map { output.appendingPathComponent("shard-\($0)") }
    for (index, shard) in shards.enumerated() {
      let run = try fixture.run(
        [
          try builtProduct("reference-shards").path, "run", "--index", "\(index)", "--count", "2",
          "--replicas", "2", "--output", shard.path,
        ], environment: ["GITHUB_SHA": "c0ffee", "IMAGE_GENERATION_MODE": "1"])
      XCTAssertEqual(run.exitStatus, .success, run.all)
    }
    let (result, json) = try merge(["--require-shards"] + shards.map(\.path) + [fixture.root.path])
    XCTAssertEqual(result.exitStatus, .unstableRenders, result.all)
    XCTAssertEqual(json["unstable"] as? Int, 1, result.output)
    XCTAssertEqual(json["conflicts"] as? Int, 0)
    XCTAssertFalse(exists("XCTestCases", "random"))
    XCTAssertTrue(exists("XCTestCases", "drawn"), "the stable renders land")
    XCTAssertTrue(exists("SwiftTestingCases", "steady/499"))
  }
}
