import Foundation
import ReferenceImageCore
import XCTest

/// What merge-refs prints of unstable renders (`UnstableRenderTests` has their verdict): the
/// summary's section, `--json`, GitHub annotations and the review report, exit 5.
final class UnstableRenderOutputTests: XCTestCase {
  private var merge: MergeScenario!
  private var flaky: String { merge.path("flaky") }

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: "Tests/XTests/__References__/C")
    try merge.replicatedRuns(flakySeeds: [1, 2])
  }

  func testReplicas_differentRenders_summaryNamesBothWorkers() throws {
    let result = try MergeRefs.run(merge.arguments)
    XCTAssertEqual(result.exitStatus, .unstableRenders, result.all)
    XCTAssertTrue(
      result.output.contains("unstable (replicated runs of one test rendered different pixels"),
      result.output)
    XCTAssertTrue(result.output.contains("pid 200"), "names both workers: \(result.output)")
    XCTAssertTrue(result.output.contains("pid 201"), result.output)
    XCTAssertTrue(result.output.contains("1 added"), result.output)
    XCTAssertTrue(result.output.contains(", 1 unstable"), result.output)
  }

  func testReplicas_unstable_jsonAnnotationsAndReport() throws {
    let report = merge.root.appendingPathComponent("review")
    let result = try MergeRefs.run(
      ["--json", "--github-annotations", "--report", report.path] + merge.arguments)
    XCTAssertEqual(result.exitStatus, .unstableRenders, result.all)
    let parts = result.output.components(separatedBy: "\n::")
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(parts[0].utf8)) as? [String: Any])
    XCTAssertEqual(json["unstable"] as? Int, 1)
    let changes = try XCTUnwrap(json["changes"] as? [[String: Any]])
    let unstable = try XCTUnwrap(changes.first { $0["outcome"] as? String == "unstable" })
    XCTAssertEqual(unstable["path"] as? String, flaky)
    XCTAssertEqual((unstable["workers"] as? [String])?.count, 2)
    XCTAssertTrue(
      result.output.contains("::error::unstable: replicated runs rendered \(flaky) differently"),
      result.output)
    let data = try ReviewDataScript.text(inReport: report)
    XCTAssertTrue(data.contains("\"outcome\":\"unstable\""), data)
    XCTAssertTrue(data.contains("replicated runs of this test rendered different pixels"), data)
  }
}
