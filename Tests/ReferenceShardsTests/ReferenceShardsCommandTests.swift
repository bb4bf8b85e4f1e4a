import Foundation
import ReferenceContracts
import ReferenceShards
import TestSupport
import XCTest

/// The command-line contract of `reference-shards`: exit codes, `plan` output, the
/// environment's shard variables. The planner itself is tested in-process.
final class ReferenceShardsCommandTests: XCTestCase {
  private func run(_ arguments: [String], in folder: URL, environment: [String: String] = [:])
    throws -> ProcessOutput
  {
    var merged = ProcessInfo.processInfo.environment
    for key in [
      "REFERENCE_SHARD_INDEX", "REFERENCE_SHARD_COUNT", "REFERENCE_SHARD_REPLICAS", "GITHUB_SHA",
    ] {
      merged[key] = nil
    }
    merged.merge(environment) { $1 }
    return try runProcess(
      try builtProduct("reference-shards").path, arguments, in: folder, environment: merged)
  }

  private func listFile(_ tests: [String]) throws -> URL {
    let file = try makeTemporaryFolder(self).appendingPathComponent("list.txt")
    try Data((tests.joined(separator: "\n") + "\n").utf8).write(to: file)
    return file
  }

  func testPlan_fromASavedList_printsTheShardsTests() throws {
    let tests = ["M.A/testA", "M.AExtra/testA", "M.free()", "M.param(n:)", "M.S/deep()"]
    let list = try listFile(tests)
    var printed: [String] = []
    for index in 0..<2 {
      let result = try run(
        ["plan", "--index", "\(index)", "--count", "2", "--list", list.path],
        in: list.deletingLastPathComponent())
      XCTAssertEqual(result.exitStatus, .success, result.all)
      XCTAssertTrue(result.error.contains("shard \(index) of 2:"), result.error)
      printed += result.output.split(separator: "\n").map(String.init)
    }
    XCTAssertEqual(printed.sorted(), tests.sorted())
  }

  func testPlan_shardFromTheEnvironment() throws {
    let list = try listFile(["M.a()", "M.b()", "M.c()"])
    let result = try run(
      ["plan", "--list", list.path], in: list.deletingLastPathComponent(),
      environment: ["REFERENCE_SHARD_INDEX": "1", "REFERENCE_SHARD_COUNT": "3"])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertEqual(result.output, "M.b()\n")
  }

  /// Three tests of equal weight, two replicas on three shards: a → 0, 1; b → 2, 0; c → 1, 2.
  func testPlan_replicasFromTheEnvironment_eachTestOnTwoShards() throws {
    let list = try listFile(["M.a()", "M.b()", "M.c()"])
    let result = try run(
      ["plan", "--index", "1", "--count", "3", "--list", list.path],
      in: list.deletingLastPathComponent(), environment: ["REFERENCE_SHARD_REPLICAS": "2"])
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertEqual(result.output, "M.a()\nM.c()\n")
    XCTAssertTrue(result.error.contains("balance 1.00"), result.error)
    XCTAssertTrue(result.error.contains("each test on 2 shards"), result.error)
  }

  func testPlan_moreReplicasThanShards_exits64() throws {
    let list = try listFile(["M.a()"])
    let result = try run(
      ["plan", "--index", "0", "--count", "2", "--replicas", "3", "--list", list.path],
      in: list.deletingLastPathComponent())
    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(result.error.contains("--replicas must be from 1 to 2"), result.error)
  }

  func testPlan_emptyShard_printsNothing() throws {
    let list = try listFile(["M.a()"])
    let result = try run(
      ["plan", "--index", "1", "--count", "2", "--list", list.path],
      in: list.deletingLastPathComponent())
    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertEqual(result.output, "")
  }

  func testPlan_emptyList_exits3() throws {
    let list = try listFile([])
    let result = try run(
      ["plan", "--index", "0", "--count", "2", "--list", list.path],
      in: list.deletingLastPathComponent())
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertTrue(result.error.contains("\(list.path)"), result.error)
    XCTAssertTrue(result.error.contains("names no test"), result.error)
  }

  func testPlan_unusableTimings_exits3NamingTheFile() throws {
    let list = try listFile(["M.a()"])
    let timings = list.deletingLastPathComponent().appendingPathComponent("timings.json")
    try Data("not json".utf8).write(to: timings)
    let result = try run(
      ["plan", "--index", "0", "--count", "1", "--list", list.path, "--timings", timings.path],
      in: list.deletingLastPathComponent())
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertTrue(result.error.contains(timings.path), result.error)
  }

  func testRun_badShard_exits64() throws {
    let folder = try makeTemporaryFolder(self)
    let result = try run(["run", "--index", "2", "--count", "2", "--commit", "c"], in: folder)
    XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
    XCTAssertTrue(result.error.contains("shard 2 of 2 does not exist"), result.error)
    let missing = try run(["run", "--commit", "c"], in: folder)
    XCTAssertEqual(missing.exitStatus, .invalidArguments, missing.all)
    XCTAssertTrue(missing.error.contains("REFERENCE_SHARD_INDEX"), missing.error)
  }

  /// A filter after `--` would widen every batch, never select: refused by name, nothing runs.
  func testRun_filterAmongSwiftTestArguments_exits64NamingIt() throws {
    let folder = try makeTemporaryFolder(self)
    for filter in [["--filter", "NoSuchTest"], ["--skip=Slow"]] {
      let result = try run(
        ["run", "--index", "0", "--count", "1", "--commit", "c", "--output", "out", "--"]
          + filter, in: folder)
      XCTAssertEqual(result.exitStatus, .invalidArguments, result.all)
      XCTAssertTrue(
        result.error.contains("'\(filter[0])' after -- cannot select tests"), result.error)
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))
    }
  }

  /// Outside a package `swift test list` fails: nothing runs, and no record is written.
  func testRun_failedListing_exits3AndRunsNothing() throws {
    let folder = try makeTemporaryFolder(self)
    let result = try run(
      ["run", "--index", "0", "--count", "2", "--commit", "c", "--output", "out"], in: folder)
    XCTAssertEqual(result.exitStatus, .refusedInput, result.all)
    XCTAssertTrue(result.error.contains("swift test list --skip-build` failed"), result.error)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/shard.json").path))
  }
}
