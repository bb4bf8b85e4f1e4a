import Foundation
import ReferenceShards
import XCTest

/// What the runner hands its test processes and prints, without running any.
final class ShardRunnerTests: XCTestCase {
  private let archives = URL(fileURLWithPath: "/tmp/shard/archives")

  func testTestEnvironment_oneReplica_noReplicasVariable() {
    XCTAssertEqual(
      ShardRunner.testEnvironment(archives: archives, index: 1, count: 4, replicas: 1),
      ["IMAGE_GENERATION_OUTPUT": archives.path, "IMAGE_GENERATION_SHARD": "1/4"])
  }

  func testTestEnvironment_twoReplicas_setsTheReplicasVariable() {
    let environment = ShardRunner.testEnvironment(
      archives: archives, index: 1, count: 4, replicas: 2)
    XCTAssertEqual(environment[ShardRunner.replicasVariable], "2")
    XCTAssertEqual(environment["IMAGE_GENERATION_SHARD"], "1/4")
    XCTAssertEqual(ShardRunner.replicasVariable, "IMAGE_GENERATION_REPLICAS")
  }

  func testDescribe_replicas_saysEachTestRunsOnTwoShards() throws {
    let tests = ["M.a", "M.b", "M.c"]
    let single = ShardPlanner().plan(tests: tests, count: 3)
    XCTAssertEqual(
      ShardRunner.describe(single, index: 0, listed: 3),
      "shard 0 of 3: 1 of 3 tests, balance 1.00 (by test count, no durations)")
    let replicated = try ShardPlanner().plan(tests: tests, count: 3, replicas: 2)
    XCTAssertEqual(
      ShardRunner.describe(replicated, index: 0, listed: 3),
      "shard 0 of 3: 2 of 3 tests, balance 1.00 (by test count, no durations, each test on 2 "
        + "shards)")
  }
}
