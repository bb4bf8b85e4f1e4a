import Foundation
import ReferenceImageCore
import XCTest

/// Runs decide before paths: a later run on the same host supersedes an earlier run's render;
/// runs of other hosts, replicated runs and archives that name no run do not.
final class RunLedgerTests: XCTestCase {
  private var root: URL!
  private var package: URL { root.appendingPathComponent("package") }
  private let path = "Tests/XTests/__References__/C/chart.png"

  override func setUpWithError() throws {
    root = try makeTemporaryFolder(self)
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
  }

  /// An archive of run `run` on `host`, started on day `start`, rendering `path` with `seed`
  /// (or, with no seed, only comparing it and passing).
  @discardableResult
  private func archive(
    _ name: String, run: String?, host: String = "laptop", start: Int, seed: Int?,
    replicas: Int? = nil
  ) throws -> String {
    var builder = ArchiveBuilder(host: host, pid: Int32(100 + start), generatedAt: day(start))
    builder.run = run
    builder.replicas = replicas
    if let seed {
      try builder.add(path, try noiseImage(seed: seed))
    } else {
      builder.verifiedReferences = [path]
    }
    let url = root.appendingPathComponent(name)
    try builder.write(to: url)
    return url.path
  }

  private func landed() throws -> [UInt8]? {
    try? Array(Data(contentsOf: package.appendingPathComponent(path)))
  }

  func testEarlierRunsRender_saysWhichRun_inTheSummaryJSONAndReviewCard() throws {
    // An abandoned run left a render of another path; the newest run rendered this one.
    var abandoned = ArchiveBuilder(host: "laptop", pid: 101, generatedAt: day(1))
    abandoned.run = "abandoned"
    let stale = "Tests/XTests/__References__/Old/stale.png"
    try abandoned.add(stale, try noiseImage(seed: 1))
    try abandoned.write(to: root.appendingPathComponent("abandoned.zip"))
    try archive("today.zip", run: "today", start: 3, seed: 2)
    let started = ISO8601DateFormatter().string(from: abandoned.startedAt)
    let review = root.appendingPathComponent("review")

    let text = try MergeRefs.run(
      [
        "--dry-run", "--report", review.path, root.appendingPathComponent("abandoned.zip").path,
        root.appendingPathComponent("today.zip").path, package.path,
      ])
    let json = try MergeRefs.run(
      [
        "--dry-run", "--json", root.appendingPathComponent("abandoned.zip").path,
        root.appendingPathComponent("today.zip").path, package.path,
      ])

    XCTAssertEqual(text.status, 0, text.all)
    XCTAssertTrue(
      text.output.contains(
        "\n  \(stale) (from an earlier run, started \(started), not the newest merged)\n"),
      text.output)
    XCTAssertTrue(text.output.contains("\n  \(path)\n"), "the newest run's change: \(text.output)")
    let summary = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], json.all)
    let changes = try XCTUnwrap(summary["changes"] as? [[String: Any]])
    let byPath = Dictionary(uniqueKeysWithValues: changes.map { ($0["path"] as? String ?? "", $0) })
    XCTAssertEqual(byPath[stale]?["earlierRunStart"] as? String, started)
    XCTAssertNil(byPath[path]?["earlierRunStart"], "the newest run's change names no run")
    let cards = try XCTUnwrap(
      ReviewDataScript.object(inReport: review)["cards"] as? [[String: Any]])
    let meta = { (path: String) in
      cards.first { $0["path"] as? String == path }?["meta"] as? [String] ?? []
    }
    XCTAssertTrue(
      meta(stale).contains {
        $0.hasPrefix("from an earlier run, started \(started), not the newest")
      },
      "\(meta(stale))")
    XCTAssertFalse(meta(path).contains { $0.contains("earlier run") }, "\(meta(path))")
  }

  func testLaterRunPassed_earlierRenderSuperseded() throws {
    let sources = [
      try archive("failed.zip", run: "A", start: 2, seed: 1),
      try archive("passed.zip", run: "B", start: 3, seed: nil),
    ]
    let result = try MergeRefs.run(sources + [package.path])
    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertNil(try landed(), "the failed run's render never lands")
    XCTAssertTrue(result.output.contains("1 superseded"), result.output)
    XCTAssertTrue(result.output.contains("compared again and passed"), result.output)
  }

  func testLaterRunRenderedAgain_itsRenderLands_noConflict() throws {
    let sources = [
      try archive("late.zip", run: "B", start: 3, seed: 2),
      try archive("early.zip", run: "A", start: 2, seed: 1),
    ]
    let result = try MergeRefs.run(sources + [package.path])
    XCTAssertEqual(result.status, 0, result.all)
    XCTAssertEqual(try landed(), try PNGEncoder(setting: .fast).encode(try noiseImage(seed: 2)))
    XCTAssertTrue(result.output.contains("rendered again"), result.output)
  }

  func testOtherHostsReplicasAndUnnamedRuns_stillConflict() throws {
    for (index, (second, replicas)) in [
      ((run: "B" as String?, host: "ci-2"), nil as Int?),
      ((run: "B" as String?, host: "laptop"), 2),
      ((run: nil as String?, host: "laptop"), nil),
    ].enumerated() {
      let sources = [
        try archive(
          "first-\(index).zip", run: second.run == nil ? nil : "A", start: 2, seed: 1,
          replicas: replicas),
        try archive(
          "second-\(index).zip", run: second.run, host: second.host, start: 3, seed: 2,
          replicas: replicas),
      ]
      let result = try MergeRefs.run(sources + [package.path])
      XCTAssertEqual(result.status, replicas == nil ? 2 : 5, "case \(index): " + result.all)
      XCTAssertNil(try landed(), "case \(index)")
    }
  }
}
