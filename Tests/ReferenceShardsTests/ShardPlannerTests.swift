import ReferenceShards
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

  func testListing_parse_trimsSortsAndDropsEmptyLines() {
    XCTAssertEqual(
      TestListing.parse("M.b()\n\n  M.C/testA \nM.b()\n"), ["M.C/testA", "M.b()"])
  }
}
