import Foundation
import ReferenceContracts
import ReferenceShards
import XCTest

final class TestBatchesTests: XCTestCase {
  private let prefix = { (batch: Int) in
    [
      "/usr/bin/env", "swift", "test", "--skip-build", "--parallel",
      "--experimental-event-stream-output", "/tmp/out/.events/batch-\(batch).jsonl",
    ]
  }

  /// 5,000 synthetic tests of both frameworks, with long names: every test is in exactly one
  /// command, each as `--filter <its exact pattern>`, and no command reaches 100 KiB.
  func testCommands_fiveThousandTests_everyFilterOnceEachCommandUnderTheLimit() throws {
    let tests = (0..<5_000).map { index in
      index % 3 == 0
        ? "RenderingTests.SomeRatherLongRenderSuiteName\(index / 50)/testRendersScene\(index)"
        : index % 3 == 1
          ? "RenderingTests.Outer\(index / 40)/Inner/paramScene\(index)(width:height:)"
          : "RenderingTests.freeFunctionNumber\(index)()"
    }
    let plan = ShardPlanner().plan(tests: tests, count: 1)
    let commands = try TestBatches().commands(tests: plan.shards[0], prefix: prefix)
    XCTAssertGreaterThan(commands.count, 1, "5,000 filters do not fit one command")
    var seen: [String] = []
    for (index, command) in commands.enumerated() {
      XCTAssertLessThanOrEqual(TestBatches.size(of: command), 100 * 1024)
      XCTAssertEqual(Array(command.prefix(7)), prefix(index))
      let filters = Array(command.dropFirst(7))
      XCTAssertEqual(filters.count % 2, 0)
      for pair in stride(from: 0, to: filters.count, by: 2) {
        XCTAssertEqual(filters[pair], "--filter")
        seen.append(filters[pair + 1])
      }
    }
    XCTAssertEqual(seen, plan.shards[0].map(TestFilter.pattern(for:)))
    XCTAssertEqual(Set(seen).count, 5_000)
  }

  func testCommands_fillEachCommandBeforeStartingTheNext() throws {
    let tests = (0..<10).map { "M.C/test\($0)" }
    let filterSize = TestBatches.size(of: ["--filter", TestFilter.pattern(for: tests[0])])
    let base = TestBatches.size(of: prefix(0))
    let commands = try TestBatches(limit: base + 3 * filterSize).commands(
      tests: tests, prefix: prefix)
    XCTAssertEqual(commands.map { ($0.count - 7) / 2 }, [3, 3, 3, 1])
  }

  func testCommands_noTests_noCommand() throws {
    XCTAssertEqual(try TestBatches().commands(tests: [], prefix: prefix), [])
  }

  func testCommands_oneFilterTooLong_throws() {
    let long = "M.C/test" + String(repeating: "x", count: 200)
    XCTAssertThrowsError(try TestBatches(limit: 250).commands(tests: [long], prefix: prefix))
  }

  func testSize_countsEachArgumentAndItsNul() {
    XCTAssertEqual(TestBatches.size(of: ["ab", "é"]), 3 + 3)
  }
}
