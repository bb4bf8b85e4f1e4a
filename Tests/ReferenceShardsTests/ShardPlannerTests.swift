import Foundation
import ReferenceShards
import TestSupport
import XCTest

final class ShardPlannerTests: XCTestCase {
  private let tests = (0..<10).map { "M.C/test\($0)" }

  func testPlan_sameInputsInAnyOrder_sameShards() {
    let timings = TestTimings(tests: ["M.C/test3": 2, "M.C/test7": 2, "M.C/test1": 0.5])
    let planner = ShardPlanner(timings: timings)
    let first = planner.plan(tests: tests, count: 3)
    let second = planner.plan(tests: tests.reversed() + ["M.C/test3"], count: 3)
    XCTAssertEqual(first, second)
  }

  func testPlan_everyTestExactlyOnce() {
    let plan = ShardPlanner().plan(tests: tests, count: 4)
    let all = plan.shards.flatMap { $0 }
    XCTAssertEqual(all.sorted(), tests.sorted())
    XCTAssertEqual(Set(all).count, all.count)
  }

  func testPlan_withoutTimings_balancesByCount() {
    let plan = ShardPlanner().plan(tests: tests, count: 3)
    XCTAssertEqual(plan.shards.map(\.count), [4, 3, 3])
    XCTAssertFalse(plan.isTimed)
    // Equal weights go round the shards in name order.
    XCTAssertEqual(plan.shards[1], ["M.C/test1", "M.C/test4", "M.C/test7"])
  }

  func testPlan_emptyTimings_balancesByCount() {
    let plan = ShardPlanner(timings: TestTimings(tests: [:])).plan(tests: tests, count: 2)
    XCTAssertEqual(plan.shards.map(\.count), [5, 5])
    XCTAssertFalse(plan.isTimed)
  }

  func testPlan_longestFirstOntoTheLeastLoadedShard() {
    let timings = TestTimings(tests: ["M.a": 10, "M.b": 6, "M.c": 5, "M.d": 4, "M.e": 1])
    let plan = ShardPlanner(timings: timings).plan(
      tests: ["M.a", "M.b", "M.c", "M.d", "M.e"], count: 2)
    // 10 → shard 0; 6 → 1; 5 → 1 (6 < 10); 4 → 0 (10 < 11); 1 → 1 (11 < 14)
    XCTAssertEqual(plan.shards, [["M.a", "M.d"], ["M.b", "M.c", "M.e"]])
    XCTAssertEqual(plan.expectedSeconds, [14, 12])
    XCTAssertEqual(plan.balance, 14 / 13, accuracy: 1e-9)
    XCTAssertTrue(plan.isTimed)
  }

  func testPlan_unknownTest_countsAsTheMedian() {
    // Known: 1, 3, 8 → median 3; the new test weighs 3.
    let timings = TestTimings(tests: ["M.a": 1, "M.b": 3, "M.c": 8, "M.gone": 100])
    let plan = ShardPlanner(timings: timings).plan(tests: ["M.a", "M.b", "M.c", "M.new"], count: 2)
    XCTAssertEqual(plan.expectedSeconds.reduce(0, +), 1 + 3 + 8 + 3)
    // 8 → shard 0; M.b (3) → 1; M.new (3, after M.b by name) → 1 (3 < 8); M.a (1) → 1 (6 < 8).
    XCTAssertEqual(plan.shards, [["M.c"], ["M.a", "M.b", "M.new"]])
  }

  func testPlan_equalDurations_tiesByName() {
    let timings = TestTimings(tests: ["M.b": 1, "M.a": 1, "M.c": 1])
    let plan = ShardPlanner(timings: timings).plan(tests: ["M.c", "M.b", "M.a"], count: 3)
    XCTAssertEqual(plan.shards, [["M.a"], ["M.b"], ["M.c"]])
  }

  func testPlan_zeroDurations_stillSpread() {
    let timings = TestTimings(tests: Dictionary(uniqueKeysWithValues: tests.map { ($0, 0.0) }))
    let plan = ShardPlanner(timings: timings).plan(tests: tests, count: 5)
    XCTAssertEqual(plan.shards.map(\.count), [2, 2, 2, 2, 2])
  }

  func testPlan_moreShardsThanTests_emptyShards() {
    let plan = ShardPlanner().plan(tests: ["M.a", "M.b"], count: 4)
    XCTAssertEqual(plan.shards, [["M.a"], ["M.b"], [], []])
  }

  func testPlan_listingDigest_isOfTheSortedUniqueListing() {
    let plan = ShardPlanner().plan(tests: ["M.b", "M.a", "M.a"], count: 2)
    XCTAssertEqual(plan.listingSHA256, ShardPlan.listingDigest(["M.a", "M.b"]))
    XCTAssertNotEqual(plan.listingSHA256, ShardPlan.listingDigest(["M.a", "M.c"]))
    // sha256("M.a\nM.b\n")
    XCTAssertEqual(
      plan.listingSHA256, "985f2574b17728308c315ed8f16cbec4439fd62c2d90b840c05cff5a6587574d")
  }

  func testPlanReplicas_two_eachTestOnTwoDifferentShards() throws {
    let timings = TestTimings(tests: ["M.C/test3": 2, "M.C/test7": 2, "M.C/test1": 0.5])
    let plan = try ShardPlanner(timings: timings).plan(tests: tests, count: 4, replicas: 2)
    XCTAssertEqual(plan.replicas, 2)
    for test in tests {
      XCTAssertEqual(plan.shards.filter { $0.contains(test) }.count, 2, test)
    }
    for shard in plan.shards { XCTAssertEqual(Set(shard).count, shard.count, "\(shard)") }
    let single = ShardPlanner(timings: timings).plan(tests: tests, count: 4)
    XCTAssertEqual(plan.expectedSeconds.reduce(0, +), 2 * single.expectedSeconds.reduce(0, +))
    XCTAssertEqual(plan.listingSHA256, single.listingSHA256, "the digest of the unique listing")
  }

  func testPlanReplicas_sameInputsInAnyOrder_sameShards() throws {
    let timings = TestTimings(tests: ["M.C/test3": 2, "M.C/test7": 2, "M.C/test1": 0.5])
    let planner = ShardPlanner(timings: timings)
    let first = try planner.plan(tests: tests, count: 3, replicas: 2)
    let second = try planner.plan(tests: tests.reversed() + ["M.C/test3"], count: 3, replicas: 2)
    XCTAssertEqual(first, second)
  }

  func testPlanReplicas_longestFirstOntoTheLeastLoadedShardsThatLackIt() throws {
    let timings = TestTimings(tests: ["M.a": 10, "M.b": 6, "M.c": 5, "M.d": 4, "M.e": 1])
    let plan = try ShardPlanner(timings: timings).plan(
      tests: ["M.a", "M.b", "M.c", "M.d", "M.e"], count: 3, replicas: 2)
    // 10 → 0, 1; 6 → 2 (0), 0 (10, lower index than 1); 5 → 2 (6), 1 (10);
    // 4 → 2 (11), 1 (15); 1 → 2 (15), 0 (16).
    XCTAssertEqual(
      plan.shards, [["M.a", "M.b", "M.e"], ["M.a", "M.c", "M.d"], ["M.b", "M.c", "M.d", "M.e"]])
    XCTAssertEqual(plan.expectedSeconds, [17, 19, 16])
    XCTAssertEqual(plan.balance, 19 / (52 / 3), accuracy: 1e-9)
  }

  func testPlanReplicas_one_isThePlanWithoutReplicas() throws {
    let timings = TestTimings(tests: ["M.C/test3": 2, "M.C/test7": 2, "M.C/test1": 0.5])
    for planner in [ShardPlanner(), ShardPlanner(timings: timings)] {
      for count in 1...5 {
        let plan = try planner.plan(tests: tests, count: count, replicas: 1)
        XCTAssertEqual(plan, planner.plan(tests: tests, count: count))
        XCTAssertEqual(plan.replicas, 1)
      }
    }
  }

  func testPlanReplicas_moreThanShards_refused() {
    XCTAssertThrowsError(try ShardPlanner().plan(tests: tests, count: 2, replicas: 3)) { error in
      XCTAssertEqual(error as? ShardError, .badReplicas(replicas: 3, count: 2))
      XCTAssertTrue("\(error)".contains("from 1 to the number of shards (2)"), "\(error)")
    }
    XCTAssertThrowsError(try ShardPlanner().plan(tests: tests, count: 2, replicas: 0))
    XCTAssertNoThrow(try ShardPlanner().plan(tests: tests, count: 2, replicas: 2))
  }

  /// 500 tests with log-normal durations (median 0.4 s, σ 1.5: most renders fast, a long tail),
  /// fixed by a seed and in 1/1024 s steps, so every sum is exact: two replicas on 4 shards
  /// plan exactly twice the time and stay within 1.2 max/mean.
  func testPlanReplicas_logNormalDurations_balancedWithin1_2() throws {
    var random = SplitMix64(seed: 0x5EED)
    let durations = (0..<500).map { index in
      ("Render.Scene\(index / 10)/testView\(index)", random.logNormal(median: 0.4, sigma: 1.5))
    }
    let timings = TestTimings(tests: Dictionary(uniqueKeysWithValues: durations))
    let tests = durations.map(\.0)
    let single = ShardPlanner(timings: timings).plan(tests: tests, count: 4)
    let replicated = try ShardPlanner(timings: timings).plan(tests: tests, count: 4, replicas: 2)
    XCTAssertEqual(
      replicated.expectedSeconds.reduce(0, +), 2 * single.expectedSeconds.reduce(0, +))
    XCTAssertLessThanOrEqual(replicated.balance, 1.2)
    XCTAssertEqual(replicated.shards.map(\.count).reduce(0, +), 1_000)
  }

  func testListing_parse_trimsSortsAndDropsEmptyLines() {
    XCTAssertEqual(
      TestListing.parse("M.b()\n\n  M.C/testA \nM.b()\n"), ["M.C/testA", "M.b()"])
  }
}

extension SplitMix64 {
  /// A log-normal duration (Box-Muller), rounded to 1/1024 s so sums of them are exact.
  mutating func logNormal(median: Double, sigma: Double) -> Double {
    let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
    let u2 = Double.random(in: 0..<1, using: &self)
    let normal = (-2 * Foundation.log(u1)).squareRoot() * cos(2 * .pi * u2)
    return (median * exp(sigma * normal) * 1024).rounded() / 1024
  }
}
