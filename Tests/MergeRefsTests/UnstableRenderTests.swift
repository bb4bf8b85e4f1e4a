import Foundation
import ReferenceImageCore
import XCTest

/// Renders of one test from replicated runs (`IMAGE_GENERATION_REPLICAS`): equal renders land
/// once; different ones are unstable, never land, and exit 5, while the rest lands.
final class UnstableRenderTests: XCTestCase {
  private var root: URL!
  private var package: URL { root.appendingPathComponent("package") }
  private let flaky = "Tests/XTests/__References__/C/flaky.png"
  private let steady = "Tests/XTests/__References__/C/steady.png"

  override func setUpWithError() throws {
    root = try makeTemporaryFolder(self)
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
  }

  /// Two runs of the same tests; `flaky` renders with the seed given per run.
  private func writeRuns(flakySeeds: [Int], replicas: Int? = 2) throws -> [String] {
    try flakySeeds.enumerated().map { run, seed in
      var archive = ArchiveBuilder(pid: Int32(200 + run), generatedAt: day(2 + run))
      archive.replicas = replicas
      try archive.add(flaky, try noiseImage(seed: seed))
      try archive.add(steady, try noiseImage(seed: 99))
      let url = root.appendingPathComponent("run-\(run).zip")
      try archive.write(to: url)
      return url.path
    }
  }

  private func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: package.appendingPathComponent(path).path)
  }

  func testReplicas_differentRenders_unstableExit5_restLands() throws {
    let sources = try writeRuns(flakySeeds: [1, 2])
    let result = try MergeRefs.run(sources + [package.path])
    XCTAssertEqual(result.status, 5, result.all)
    XCTAssertFalse(exists(flaky), "an unstable render never lands")
    XCTAssertTrue(exists(steady), "the stable render lands")
    XCTAssertTrue(
      result.output.contains("unstable (replicated runs of one test rendered different pixels"),
      result.output)
    XCTAssertTrue(result.output.contains("pid 200"), "names both workers: \(result.output)")
    XCTAssertTrue(result.output.contains("pid 201"), result.output)
    XCTAssertTrue(result.output.contains("1 added"), result.output)
    XCTAssertTrue(result.output.contains(", 1 unstable"), result.output)
  }

  func testReplicas_differentRenders_newestDoesNotLandThem() throws {
    let sources = try writeRuns(flakySeeds: [1, 2])
    let result = try MergeRefs.run(["--on-conflict", "newest"] + sources + [package.path])
    XCTAssertEqual(result.status, 5, result.all)
    XCTAssertFalse(exists(flaky))
  }

  func testReplicas_equalRenders_landOnce() throws {
    let sources = try writeRuns(flakySeeds: [1, 1])
    let result = try MergeRefs.run(["--json"] + sources + [package.path])
    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertTrue(exists(flaky))
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    XCTAssertEqual(json["added"] as? Int, 2)
    XCTAssertEqual(json["unstable"] as? Int, 0)
  }

  func testWithoutReplicas_differentRenders_stayAConflict() throws {
    let sources = try writeRuns(flakySeeds: [1, 2], replicas: nil)
    let result = try MergeRefs.run(sources + [package.path])
    XCTAssertEqual(result.status, 2, result.all)
    XCTAssertFalse(exists(steady), "a conflict stops the whole merge, as before")
  }

  func testReplicas_unstable_jsonAnnotationsAndReport() throws {
    let sources = try writeRuns(flakySeeds: [1, 2])
    let report = root.appendingPathComponent("review")
    let result = try MergeRefs.run(
      ["--json", "--github-annotations", "--report", report.path] + sources + [package.path])
    XCTAssertEqual(result.status, 5, result.all)
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
