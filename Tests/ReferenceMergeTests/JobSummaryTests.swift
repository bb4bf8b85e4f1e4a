import Foundation
import ReferenceMerge
import ReferenceShards
import XCTest

final class JobSummaryTests: XCTestCase {
  private func summary(changes: Int, problems: [String] = []) -> JobSummary {
    // The rows merge-refs makes of two shard records: two tests each, run once, taking
    // 1 + index + 1 seconds.
    let shards = (0..<2).map { index in
      JobSummary.Shard(
        index: index, count: 2, planned: 2, ran: 2, ranOnce: 2, skipped: 0,
        seconds: Double(index + 2), swiftTestStatus: Int32(index), images: 3 + index)
    }
    let list = (0..<changes).lazy.map {
      JobSummary.Change(
        outcome: .added,
        path: "Tests/RenderTests/__References__/SomeSuite/a-rather-long-image-name-\($0).png")
    }
    var summary = JobSummary(
      outcome: "\(changes) added, 0 updated", exitCode: problems.isEmpty ? 0 : 3, shards: shards,
      changeCount: changes, changes: AnySequence(list), problems: problems, warnings: [])
    summary.balance = ShardPlan.balance(shards.map(\.seconds))
    return summary
  }

  private func lines(_ summary: JobSummary) -> [String] {
    var lines: [String] = []
    summary.write { lines.append($0) }
    return lines
  }

  func testSummary_countsAndAShardTableWithBalance() {
    let text = lines(summary(changes: 2)).joined(separator: "\n")
    XCTAssertTrue(text.contains("## Reference images: merged"), text)
    XCTAssertTrue(text.contains("**2 added, 0 updated**"), text)
    // Seconds 2 and 3: max/mean = 3 / 2.5.
    XCTAssertTrue(
      text.contains(
        "2 of 2 shards, 4 tests planned, 4 on record (4 exactly once), 7 images; balance "
          + "(max/mean seconds) 1.20"), text)
    XCTAssertTrue(text.contains("| 0 | 2 | 3 | 2.0 | passed |"), text)
    XCTAssertTrue(text.contains("| 1 | 2 | 4 | 3.0 | failed (1) |"), text)
    XCTAssertTrue(text.contains("- added `Tests/RenderTests/__References__/SomeSuite/"), text)
  }

  func testSummary_oneShardOnRecordTwice_countsItOnceAndSaysHowManyRecords() {
    // One plan run on two platforms of a package without variants: each index twice.
    let shards = (0..<4).map { record in
      JobSummary.Shard(
        index: record % 2, count: 2, planned: 2, ran: 2, ranOnce: 2, skipped: 0, seconds: 1,
        swiftTestStatus: 0, images: 1)
    }
    let summary = JobSummary(
      outcome: "", exitCode: 3, shards: shards, changeCount: 0, changes: AnySequence([]),
      problems: [], warnings: [])
    let text = lines(summary).joined(separator: "\n")
    XCTAssertTrue(text.contains("2 of 2 shards (4 records), 8 tests planned"), text)
  }

  func testSummary_dryRunWithDetailsAndLandCommand_saysNothingWasWritten() {
    var summary = JobSummary(
      outcome: "0 added, 1 updated", exitCode: 0, shards: [], changeCount: 1,
      changes: AnySequence([
        JobSummary.Change(
          outcome: .updated, path: "T/__References__/a.png",
          detail: "test A.testA, exact comparison at T/A.swift:7: 36 of 576 pixels differ")
      ]), problems: [], warnings: [])
    summary.writesNothing = true
    summary.landCommand = "swift run merge-refs --include-from reference-decisions.txt v ."
    let text = lines(summary).joined(separator: "\n")
    XCTAssertTrue(text.contains("## Reference images: nothing written (dry run)"), text)
    XCTAssertTrue(
      text.contains(
        "- updated `T/__References__/a.png`: test A.testA, exact comparison at T/A.swift:7: 36 of "
          + "576 pixels differ"), text)
    XCTAssertTrue(
      text.contains("`swift run merge-refs --include-from reference-decisions.txt v .`"), text)
  }

  func testSummary_manyChanges_truncatedWellUnderOneMebibyte() {
    let all = lines(summary(changes: 100_000))
    let bytes = all.reduce(0) { $0 + $1.utf8.count + 1 }
    XCTAssertLessThan(bytes, 512 * 1024)
    let listed = all.filter { $0.hasPrefix("- added ") }.count
    XCTAssertGreaterThan(listed, 1000)
    XCTAssertTrue(all.contains("- and \(100_000 - listed) more"), "\(all.suffix(3))")
  }

  func testSummary_problemsListed() {
    let text = lines(summary(changes: 0, problems: ["shard 1 of 2 has no record"]))
      .joined(separator: "\n")
    XCTAssertTrue(text.contains("## Reference images: not merged (exit 3)"), text)
    XCTAssertTrue(text.contains("### Problems (1)\n\n- shard 1 of 2 has no record"), text)
    XCTAssertFalse(text.contains("### Changed references"), text)
  }

  func testAnnotations_atMostTenAndEscaped() {
    let errors = (0..<15).map { "error \($0)" }
    let lines = Annotations.lines(errors: errors, warnings: ["w"])
    XCTAssertEqual(lines.count, 10)
    XCTAssertEqual(lines[0], "::error::error 0")
    XCTAssertEqual(
      lines[9], "::warning::7 more problems and warnings are listed in the job summary and the log")
    XCTAssertEqual(
      Annotations.lines(errors: ["100% broken\nsecond line"], warnings: []),
      ["::error::100%25 broken%0Asecond line"])
    XCTAssertEqual(Annotations.lines(errors: [], warnings: ["w"]), ["::warning::w"])
  }

  func testAnnotations_atAssertions_comeFirst_withPropertiesEscaped() {
    let located = (0..<12).map {
      Annotations.Located(
        file: "Tests/A,B.swift", line: $0 + 1, title: "Reference image updated: a\($0).png",
        message: "36 of 576 pixels differ")
    }
    let lines = Annotations.lines(located: located, errors: ["e"], warnings: [])
    XCTAssertEqual(lines.count, 10)
    XCTAssertEqual(
      lines[0],
      "::error file=Tests/A%2CB.swift,line=1,title=Reference image updated%3A a0.png::36 of 576 "
        + "pixels differ")
    XCTAssertEqual(
      lines[9], "::warning::4 more problems and warnings are listed in the job summary and the log")
  }
}
