import Foundation
import ReferenceShards
import TestSupport
import XCTest

final class ShardCheckTests: XCTestCase {
  private let tests = ["M.A/testA", "M.AExtra/testA", "M.free()", "M.param(n:)", "M.S/deep()"]

  /// The records of a plan in which every shard ran exactly its tests once.
  private func records(count: Int = 2, commit: String = "abc") -> [ShardCheck.Source] {
    sources(of: ShardPlanner().plan(tests: tests, count: count), commit: commit)
  }

  /// The records of a plan with replicas in which every shard ran exactly its tests once.
  private func replicated(count: Int = 3, replicas: Int = 2) throws -> [ShardCheck.Source] {
    sources(
      of: try ShardPlanner().plan(tests: tests, count: count, replicas: replicas), commit: "abc")
  }

  private func sources(of plan: ShardPlan, commit: String) -> [ShardCheck.Source] {
    plan.shards.enumerated().map { index, planned in
      ShardCheck.Source(
        name: "artifacts/reference-shard-\(index)",
        record: ShardRecord(
          commit: commit, index: index, count: plan.count, replicas: plan.replicas,
          listingSHA256: plan.listingSHA256, planned: planned,
          ran: planned.map { .init(test: $0, seconds: 0.1, count: 1) },
          startedAt: Date(), endedAt: Date(), swiftTestStatus: 0, archives: []))
    }
  }

  func testCheck_completePlan_noProblems() {
    XCTAssertEqual(ShardCheck().problems(sources: records()), [])
    XCTAssertEqual(ShardCheck().problems(sources: records(count: 7)), [], "empty shards too")
  }

  /// The records of the same plan run by each of several variants (platforms), each variant
  /// its own shards.
  private func perVariant(_ variants: [String?], count: Int = 2) -> [ShardCheck.Source] {
    variants.flatMap { variant in
      records(count: count).map { source in
        var source = source
        source.name += "-\(variant ?? "base")"
        source.record.variant = variant
        return source
      }
    }
  }

  func testCheckVariants_eachVariantsShardsComplete_noProblems() {
    XCTAssertEqual(ShardCheck().problems(sources: perVariant([nil, "linux-arm64", "macos"])), [])
  }

  func testCheckVariants_missingShardOfOneVariant_namesTheVariant() {
    let sources = perVariant([nil, "linux-arm64"]).filter {
      !($0.record.variant == "linux-arm64" && $0.record.index == 1)
    }

    let problems = ShardCheck().problems(sources: sources)

    XCTAssertEqual(problems, [.inVariant("linux-arm64", .missingShards([1], count: 2))])
    XCTAssertTrue(
      problems[0].description.hasPrefix("variant linux-arm64: shard 1 of 2 has no record"),
      problems[0].description)
  }

  func testCheckVariants_aVariantsTestRanTwice_isThatVariantsProblemOnly() {
    var sources = perVariant([nil, "macos"])
    let index = sources.firstIndex { $0.record.variant == "macos" && !$0.record.ran.isEmpty }!
    sources[index].record.ran[0].count = 2

    XCTAssertEqual(
      ShardCheck().problems(sources: sources),
      [.inVariant("macos", .ranTwice([sources[index].record.ran[0].test]))])
  }

  /// The records of the same plan run on several platforms by a package that declares no
  /// variants.
  private func perPlatform(_ platforms: [String]) -> [ShardCheck.Source] {
    platforms.flatMap { platform in
      records().map { source in
        var source = source
        source.name += "-\(platform)"
        source.record.platform = platform
        return source
      }
    }
  }

  func testCheckPlatforms_noVariants_eachPlatformsShardsComplete_noProblems() {
    XCTAssertEqual(
      ShardCheck().problems(sources: perPlatform(["linux-x86_64", "linux-arm64"])), [])
  }

  func testCheckPlatforms_noVariants_missingShardOfOnePlatform_namesThePlatform() {
    let sources = perPlatform(["linux-x86_64", "linux-arm64"]).filter {
      !($0.record.platform == "linux-arm64" && $0.record.index == 1)
    }

    let problems = ShardCheck().problems(sources: sources)

    XCTAssertEqual(problems, [.onPlatform("linux-arm64", .missingShards([1], count: 2))])
    XCTAssertTrue(
      problems[0].description.hasPrefix("platform linux-arm64: shard 1 of 2 has no record"),
      problems[0].description)
  }

  func testCheckPlatforms_onePlatformTwice_isOnePlanRunTwice() {
    var sources = records() + records()
    for index in sources.indices { sources[index].name += "-\(index)" }

    let problems = ShardCheck().problems(sources: sources)

    XCTAssertTrue(problems.contains { if case .duplicateShard = $0 { true } else { false } })
  }

  func testCheck_noRecords() {
    XCTAssertEqual(ShardCheck().problems(sources: []), [.noRecords])
  }

  func testCheck_missingShard_namesIt() {
    let problems = ShardCheck().problems(sources: [records(count: 3)[0], records(count: 3)[2]])
    XCTAssertEqual(problems, [.missingShards([1], count: 3)])
    XCTAssertTrue(problems[0].description.contains("shard 1 of 3 has no record"))
  }

  func testCheck_differentCommits() {
    let sources = [records()[0], records(commit: "def")[1]]
    XCTAssertEqual(
      ShardCheck().problems(sources: sources), [.differentCommits(["abc": [0], "def": [1]])])
  }

  func testCheck_countMismatch() {
    let problems = ShardCheck().problems(sources: [records(count: 2)[0]] + records(count: 3))
    XCTAssertTrue(problems.contains(.differentCounts([2: [0], 3: [0, 1, 2]])), "\(problems)")
    XCTAssertTrue(
      problems.contains(
        .duplicateShard(
          index: 0,
          sources: [
            "artifacts/reference-shard-0", "artifacts/reference-shard-0",
          ])), "\(problems)")
  }

  func testCheck_differentListings() {
    var sources = records()
    sources[1].record.listingSHA256 = "0123456789abcdef"
    let problems = ShardCheck().problems(sources: sources)
    XCTAssertEqual(problems.count, 1, "\(problems)")
    XCTAssertTrue(problems[0].description.contains("0123456789ab (shards 1)"), "\(problems)")
  }

  func testCheck_duplicateShardIndex() {
    var copy = records()[1]
    copy.name = "artifacts/copy"
    let problems = ShardCheck().problems(sources: records() + [copy])
    XCTAssertTrue(
      problems.contains(
        .duplicateShard(index: 1, sources: ["artifacts/copy", "artifacts/reference-shard-1"])),
      "\(problems)")
  }

  func testCheck_plannedTestDidNotRun() {
    var sources = records()
    let dropped = sources[0].record.ran.removeFirst().test
    XCTAssertEqual(ShardCheck().problems(sources: sources), [.notRun([dropped])])
  }

  func testCheck_testRanTwiceInOneShard() {
    var sources = records()
    sources[1].record.ran[0].count = 2
    XCTAssertEqual(
      ShardCheck().problems(sources: sources), [.ranTwice([sources[1].record.ran[0].test])])
  }

  func testCheck_testRanInTwoShards() {
    var sources = records()
    let test = sources[0].record.ran[0]
    sources[1].record.ran.append(test)
    XCTAssertEqual(
      ShardCheck().problems(sources: sources),
      [.ranOutsidePlan(shard: 1, tests: [test.test]), .ranTwice([test.test])])
  }

  func testCheck_plannedTestsNotTheListing() {
    var sources = records()
    sources[0].record.planned.removeLast()
    sources[0].record.ran.removeLast()
    XCTAssertEqual(ShardCheck().problems(sources: sources), [.planDoesNotCoverListing])
  }

  func testCheckReplicas_completePlan_noProblems() throws {
    XCTAssertEqual(ShardCheck().problems(sources: try replicated()), [])
    XCTAssertEqual(ShardCheck().problems(sources: try replicated(count: 2)), [], "every shard")
    XCTAssertEqual(ShardCheck().problems(sources: try replicated(count: 7)), [], "empty shards")
  }

  func testCheckReplicas_testMissingFromOneOfItsShards_notRun() throws {
    var sources = try replicated()
    let dropped = sources[1].record.ran.removeFirst().test
    XCTAssertEqual(
      sources.filter { $0.record.planned.contains(dropped) }.count, 2, "it ran in the other")
    XCTAssertEqual(ShardCheck().problems(sources: sources), [.notRun([dropped])])
  }

  func testCheckReplicas_testInAShardNotPlannedForIt_ranOutsidePlan() throws {
    var sources = try replicated()
    let test = try XCTUnwrap(
      sources[0].record.planned.first { !sources[2].record.planned.contains($0) })
    sources[2].record.ran.append(.init(test: test, seconds: 0.1, count: 1))
    XCTAssertEqual(
      ShardCheck().problems(sources: sources),
      [.ranOutsidePlan(shard: 2, tests: [test]), .ranTwice([test])],
      "three runs of a test planned twice")
  }

  func testCheckReplicas_ranTwiceInOneShard_ranTwice() throws {
    var sources = try replicated()
    sources[0].record.ran[0].count = 2
    XCTAssertEqual(
      ShardCheck().problems(sources: sources), [.ranTwice([sources[0].record.ran[0].test])])
  }

  func testCheckReplicas_testPlannedOnOneShardOnly_planDoesNotCoverListing() throws {
    var sources = try replicated()
    let test = sources[0].record.planned.removeFirst()
    sources[0].record.ran.removeAll { $0.test == test }
    XCTAssertEqual(ShardCheck().problems(sources: sources), [.planDoesNotCoverListing])
  }

  func testCheckReplicas_recordsDisagree_differentReplicas() throws {
    let sources = [records()[0], try replicated(count: 2)[1]]
    let problems = ShardCheck().problems(sources: sources)
    XCTAssertEqual(problems, [.differentReplicas([1: [0], 2: [1]])])
    XCTAssertTrue(problems[0].description.contains("1 (shards 0), 2 (shards 1)"), "\(problems)")
  }

  func testCheck_archiveWithTestsOfNoShard() {
    let archives = [
      ShardCheck.Archive(name: "a.zip", tests: ["M.A/testA"]),
      ShardCheck.Archive(name: "old.zip", tests: ["M.Gone/testOld", "M.A/testA"]),
    ]
    XCTAssertEqual(
      ShardCheck().problems(sources: records(), archives: archives),
      [.archiveOutsidePlan(archive: "old.zip", tests: ["M.Gone/testOld"])])
  }

  func testProblem_longLists_nameTwentyThenACount() {
    let names = (0..<25).map { "M.C/test\($0)" }
    let text = ShardProblem.notRun(names).description
    XCTAssertTrue(text.hasPrefix("25 planned tests did not run"), text)
    XCTAssertTrue(text.contains("M.C/test19 and 5 more"), text)
    XCTAssertFalse(text.contains("M.C/test20"), text)
  }

  func testRecords_folderWithoutRecord_isAProblem() throws {
    let folder = try makeTemporaryFolder(self)
    let (sources, problems) = ShardFolder.records(in: [folder.path])
    XCTAssertTrue(sources.isEmpty)
    XCTAssertEqual(problems, [.notAShardFolder(source: folder.path)])
  }
}
