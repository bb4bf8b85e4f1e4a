import Foundation
import ReferenceImageCore
import ReferenceMerge
import ReferenceReview
import XCTest

/// Runs decide before paths: a later run on the same host supersedes an earlier run's render;
/// runs of other hosts, replicated runs and archives that name no run do not.
final class RunLedgerTests: XCTestCase {
  private var merge: MergeScenario!

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: "Tests/XTests/__References__/C")
  }

  /// The archive of run `run` on `host`, started on day `start`, rendering `chart` with `seed`
  /// (or, with no seed, only comparing it and passing).
  private func run(
    _ name: String, run: String?, host: String = "laptop", start: Int, seed: Int?,
    replicas: Int? = nil
  ) throws {
    try merge.archive(
      name, seed.map { ["chart": .seed($0)] } ?? [:], host: host, pid: Int32(100 + start),
      generatedAt: day(start)
    ) {
      $0.run = run
      $0.replicas = replicas
      if seed == nil { $0.verifiedReferences = [self.merge.path("chart")] }
    }
  }

  func testEarlierRunsRender_saysWhichRun_inTheSummaryAndReviewCard() throws {
    // An abandoned run left a render of another path; the newest run rendered this one.
    let stale = "Tests/XTests/__References__/Old/stale.png"
    try merge.archive("abandoned.zip", [stale: .seed(1)], host: "laptop", pid: 101) {
      $0.run = "abandoned"
    }
    try run("today.zip", run: "today", start: 3, seed: 2)
    let started = day(1).addingTimeInterval(-60)
    let review = merge.root.appendingPathComponent("review")
    merge.reportWriter = ReviewReport.write(_:request:)

    let verdict = merge.plan(report: review)

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, [stale: .added, "chart": .added])
    let staleItem = try XCTUnwrap(verdict.item(stale))
    XCTAssertEqual(verdict.plan.earlierRun(of: staleItem), started)
    XCTAssertNil(verdict.plan.earlierRun(of: try XCTUnwrap(verdict.item("chart"))))
    let changes = Dictionary(
      uniqueKeysWithValues: verdict.summary.changes.map { ($0.path, $0.earlierRunStart) })
    let startedText = ISO8601DateFormatter().string(from: started)
    XCTAssertEqual(changes[stale], startedText)
    XCTAssertEqual(changes[merge.path("chart")], .some(nil), "the newest run's change names no run")
    let cards = try XCTUnwrap(
      ReviewDataScript.object(inReport: review)["cards"] as? [[String: Any]])
    let meta = { (path: String) in
      cards.first { $0["path"] as? String == path }?["meta"] as? [String] ?? []
    }
    XCTAssertTrue(
      meta(stale).contains {
        $0.hasPrefix("from an earlier run, started \(startedText), not the newest")
      },
      "\(meta(stale))")
    XCTAssertFalse(
      meta(merge.path("chart")).contains { $0.contains("earlier run") },
      "\(meta(merge.path("chart")))")
  }

  func testLaterRunPassed_earlierRenderSuperseded() throws {
    try run("failed.zip", run: "A", start: 2, seed: 1)
    try run("passed.zip", run: "B", start: 3, seed: nil)

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertFalse(merge.exists("chart"), "the failed run's render never lands")
    XCTAssertEqual(verdict.superseded, ["chart"])
    XCTAssertEqual(
      verdict.plan.superseded.map(\.laterRunRenderedAgain), [false], "compared again and passed")
  }

  func testEarlierRunsRenderInSeveralArchives_listedOnceWithItsCount() throws {
    try run("failed-1.zip", run: "A", start: 2, seed: 1)
    try run("failed-2.zip", run: "A", start: 2, seed: 1)
    try run("failed-3.zip", run: "A", start: 2, seed: 1)
    try run("passed.zip", run: "B", start: 3, seed: nil)

    let verdict = merge.run()

    XCTAssertEqual(verdict.plan.superseded.count, 3)
    let text = verdict.summary.text()
    let lines = text.split(separator: "\n").filter { $0.contains(merge.path("chart")) }
    XCTAssertEqual(lines.count, 1, text)
    XCTAssertTrue(
      lines.first?.contains(": compared again and passed by the run of ") ?? false, text)
    XCTAssertTrue(lines.first?.hasSuffix(" (3 earlier renders)") ?? false, text)
  }

  func testLaterRunRenderedAgain_itsRenderLands_noConflict() throws {
    try run("late.zip", run: "B", start: 3, seed: 2)
    try run("early.zip", run: "A", start: 2, seed: 1)

    let verdict = merge.run()

    XCTAssertEqual(verdict.status, .success, "\(verdict.problems)")
    XCTAssertEqual(verdict.outcomes, ["chart": .added])
    XCTAssertEqual(merge.bytes("chart"), try Pixels.seed(2).png())
    XCTAssertEqual(verdict.superseded, ["chart"])
    XCTAssertEqual(verdict.plan.superseded.map(\.laterRunRenderedAgain), [true])
  }

  func testOtherHostsReplicasAndUnnamedRuns_stillConflict() throws {
    for (index, (second, replicas)) in [
      ((run: "B" as String?, host: "ci-2"), nil as Int?),
      ((run: "B" as String?, host: "laptop"), 2),
      ((run: nil as String?, host: "laptop"), nil),
    ].enumerated() {
      merge = try MergeScenario(self, folder: "Tests/XTests/__References__/C")
      try run(
        "first.zip", run: second.run == nil ? nil : "A", start: 2, seed: 1, replicas: replicas)
      try run(
        "second.zip", run: second.run, host: second.host, start: 3, seed: 2, replicas: replicas)

      let verdict = merge.run()

      XCTAssertEqual(
        verdict.status, replicas == nil ? .conflicts : .unstableRenders, "case \(index)")
      XCTAssertEqual(verdict.outcomes, ["chart": replicas == nil ? .conflict : .unstable])
      XCTAssertFalse(merge.exists("chart"), "case \(index)")
    }
  }

  func testTwoTestsRenderOnePath_shared_oneTestInTwoShardsIsNot_amongManyPaths() throws {
    // Many single-owner paths around them, so the shared path is one run among many.
    let others = (0..<300).map { "icon\($0)" }
    for (shard, slice) in [("1", others[..<150]), ("2", others[150...])] {
      try merge.archive("shard\(shard).zip", shard: shard) { builder in
        for name in slice { try builder.add(self.merge.path(name), try Pixels.seed(7).image()) }
        try builder.add(self.merge.path("shared"), try Pixels.seed(1).image())
        try builder.add(self.merge.path("twice"), try Pixels.seed(2).image())
        builder.owners[self.merge.path("shared")] = "ChartTests.test\(shard)()"
        builder.owners[self.merge.path("twice")] = "ChartTests.testTwice()"
      }
    }

    let verdict = merge.plan()

    XCTAssertEqual(verdict.problems, ["sharedReference"])
    XCTAssertEqual(verdict.refusedPaths, ["shared"], "a test rendering in two shards owns it")
    let message = verdict.conclusion.problems.map(\.description).joined()
    XCTAssertTrue(message.contains("ChartTests.test1()"), message)
    XCTAssertTrue(message.contains("ChartTests.test2()"), message)
  }

  func testOneTestRendersAPath_anotherComparedIt_shared_amongManyPaths() throws {
    // The second test's use is recorded beside the renders, not rendered: it still owns the
    // path, as two renders' tests would.
    let others = (0..<300).map { "icon\($0)" }
    try merge.archive("renders.zip") { builder in
      for name in others { try builder.add(self.merge.path(name), try Pixels.seed(7).image()) }
      try builder.add(self.merge.path("shared"), try Pixels.seed(1).image())
      builder.owners[self.merge.path("shared")] = "ChartTests.testRender()"
    }
    try merge.archive("compares.zip") { builder in
      builder.referenceUses = [
        .init(
          path: self.merge.path("shared"), test: "ChartTests.testCompare()",
          file: "Tests/ChartTests/ChartTests.swift", line: 9, verdict: .passed)
      ]
    }

    let verdict = merge.plan()

    XCTAssertEqual(verdict.problems, ["sharedReference"])
    XCTAssertEqual(verdict.refusedPaths, ["shared"])
    let message = verdict.conclusion.problems.map(\.description).joined()
    XCTAssertTrue(message.contains("ChartTests.testRender()"), message)
    XCTAssertTrue(message.contains("ChartTests.testCompare()"), message)
  }
}
