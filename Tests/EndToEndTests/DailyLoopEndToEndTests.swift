import Foundation
import ReferenceArchive
import ReferenceImageCore
import XCTest

/// The loop a new user walks on the first day, with real `swift test` runs of the fixture and
/// the default output folder: stale renders of an earlier run never land, a reference two tests
/// use is named with both tests in every mode, and the command a failure prints lands exactly
/// its render when a shell runs it as printed.
final class DailyLoopEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!

  private let bars = "Tests/ChartTests/__References__/BarChartTests/bars.png"
  private let flatBars = "Tests/ChartTests/__References__/BarChartTests/flat-bars.png"
  private let largeCells = "Tests/ChartTests/__References__/CheckerTests/large-cells.png"
  private let smallCells = "Tests/ChartTests/__References__/CheckerTests/small-cells.png"
  private let xctestOnly = ["--disable-swift-testing", "--filter", "BarChartTests|CheckerTests"]

  override func setUpWithError() throws {
    fixture = try FixturePackage.built()
    try fixture.reset()
  }

  /// Fail, fix, pass, record a new reference, merge the default folder: the summary says what
  /// was superseded, and the correct references keep their bytes.
  func testStaleRendersOfAnEarlierFailedRun_neverLand() throws {
    try recordReferences()
    let before = try bytes([bars, flatBars, smallCells])
    let broken = try fixture.test(xctestOnly, environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertNotEqual(broken.status, 0, broken.all)
    XCTAssertEqual(try fixture.archives().count, 1, "the failed run keeps its renders")
    let fixed = try fixture.test(xctestOnly, environment: [:])
    XCTAssertEqual(fixed.status, 0, fixed.all)
    // A new test's reference, recorded the documented way.
    try FileManager.default.removeItem(at: fixture.root.appendingPathComponent(largeCells))
    let missing = try fixture.test(
      xctestOnly, environment: ["IMAGE_GENERATION_MODE": "missing"])
    XCTAssertEqual(missing.status, 0, missing.all)

    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    XCTAssertTrue(merge.output.contains("1 added"), merge.all)
    XCTAssertTrue(merge.output.contains("1 added, 0 updated"), merge.all)
    XCTAssertTrue(merge.output.contains("2 superseded"), merge.all)
    XCTAssertEqual(try bytes([bars, flatBars, smallCells]), before, "no stale render landed")
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(largeCells).path))
  }

  /// The same loop with `--parallel` workers: every worker of one invocation is one run.
  func testStaleRenders_parallelWorkers_neverLand() throws {
    try recordReferences()
    let before = try bytes([bars, flatBars])
    let broken = try fixture.test(
      xctestOnly + ["--parallel"], environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertNotEqual(broken.status, 0, broken.all)
    let fixed = try fixture.test(xctestOnly + ["--parallel"], environment: [:])
    XCTAssertEqual(fixed.status, 0, fixed.all)
    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    XCTAssertTrue(merge.output.contains("2 superseded"), merge.all)
    XCTAssertEqual(try bytes([bars, flatBars]), before)
  }

  /// The render of the latest failed run still lands when nothing passed after it.
  func testLatestFailedRun_stillLands() throws {
    try recordReferences()
    _ = try fixture.test(xctestOnly, environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    XCTAssertTrue(merge.output.contains("2 updated"), merge.all)
  }

  /// Two tests ask for one reference: in-process the second assertion names both; the merge of
  /// a verify run, a `failed` run and a parallel `all` run names both tests and lands nothing.
  func testSharedReference_namedWithBothTests_inEveryMode() throws {
    try recordReferences()
    let owned = try bytes([smallCells])
    let shared = ["RENDER_FIXTURE_SHARED": "1"]

    let verify = try fixture.test([], environment: shared)
    XCTAssertNotEqual(verify.status, 0, verify.all)
    XCTAssertTrue(verify.all.contains("is the reference of two tests"), verify.all)
    XCTAssertTrue(verify.all.contains("ringThin()"), verify.all)
    XCTAssertTrue(verify.all.contains("ringThick()"), verify.all)
    try assertMergeRefusesSharedSmallCells(owned: owned)

    for (mode, extra) in [("failed", [String]()), ("all", ["--parallel"])] {
      try? FileManager.default.removeItem(at: fixture.archiveFolder)
      let run = try fixture.test(
        extra, environment: shared.merging(["IMAGE_GENERATION_MODE": mode]) { $1 })
      XCTAssertNotEqual(run.status, 0, "mode \(mode): " + run.all)
      try assertMergeRefusesSharedSmallCells(owned: owned)
    }
  }

  /// The same in the other layouts: the plugin (`--mode failed`, one run of every shard) and
  /// two `reference-shards` shards merged with `--require-shards`.
  func testSharedReference_pluginAndShards_namedWithBothTests() throws {
    try recordReferences()
    let owned = try bytes([smallCells])
    let shared = ["RENDER_FIXTURE_SHARED": "1"]
    let plugin = try fixture.plugin(["--mode", "failed"], environment: shared)
    XCTAssertNotEqual(plugin.exitStatus, .success, plugin.all)
    XCTAssertTrue(plugin.all.contains("merge-refs exited with status 3"), plugin.all)
    XCTAssertTrue(plugin.all.contains("\(smallCells) is the reference of 2 tests"), plugin.all)
    XCTAssertTrue(plugin.all.contains("ChartTests.CheckerTests/testSmallCells"), plugin.all)
    XCTAssertEqual(try bytes([smallCells]), owned)

    for index in 0..<2 {
      let shard = try fixture.run(
        [
          try builtProduct("reference-shards").path, "run", "--index", "\(index)", "--count", "2",
          "--commit", "c0ffee", "--output", "artifacts/shard-\(index)",
        ], environment: shared.merging(["IMAGE_GENERATION_MODE": "all"]) { $1 })
      XCTAssertNotEqual(shard.exitStatus, .refusedInput, shard.all)
    }
    let merge = try mergeRefs(
      ["--require-shards", "artifacts/shard-0", "artifacts/shard-1", "."])
    XCTAssertEqual(merge.exitStatus, .refusedInput, merge.all)
    XCTAssertTrue(merge.all.contains("\(smallCells) is the reference of 2 tests"), merge.all)
    XCTAssertTrue(merge.all.contains("SharedReference.swift:14"), merge.all)
    XCTAssertEqual(try bytes([smallCells]), owned)
    try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent("artifacts"))
  }

  /// Each failure message ends with a command; pasted into a shell in the package root, it
  /// lands exactly the render the message is about.
  func testFailureMessageCommands_landExactlyTheirRender() throws {
    try recordReferences()
    try FileManager.default.removeItem(at: fixture.root.appendingPathComponent(largeCells))
    let untouched = try bytes([flatBars, smallCells])
    let run = try fixture.test(
      ["--disable-swift-testing", "--filter", "BarChartTests/testBars|CheckerTests"],
      environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertNotEqual(run.status, 0, run.all)
    // The run's own line that lands every kept render names this run's archive (checked
    // below); the others are the failures' own.
    let lines = run.all.split(separator: "\n")
    let landAll = try XCTUnwrap(
      lines.first { $0.contains("2 failed comparisons kept their renders") }, run.all)
    let commands = lines.filter { $0 != landAll }.compactMap { line -> String? in
      guard let start = line.range(of: "once the tests have finished: ") else { return nil }
      return String(line[start.upperBound...].prefix { $0 != "(" }).trimmingCharacters(
        in: .whitespaces)
    }
    XCTAssertEqual(commands.count, 2, run.all)
    XCTAssertTrue(commands.allSatisfy { $0.hasPrefix("swift run merge-refs --include ") })
    let archive = try XCTUnwrap(try fixture.archives().first)
    let kept = try entries(of: archive)
    XCTAssertTrue(
      landAll.hasSuffix(
        "swift run merge-refs .build/reference-images/\(archive.lastPathComponent) ."),
      String(landAll))

    for (command, path) in zip(commands.sorted(), [bars, largeCells]) {
      XCTAssertTrue(command.contains(path), command)
      let pasted = try fixture.shell(command, environment: ["PATH": try swiftShimPath()])
      XCTAssertEqual(pasted.exitStatus, .success, command + "\n" + pasted.all)
      XCTAssertEqual(try bytes([path]), [try XCTUnwrap(kept[path])], "\(command) lands its render")
    }
    XCTAssertEqual(try bytes([flatBars, smallCells]), untouched, "nothing else landed")

    // The plugin's way, as printed: it renders the test again and lands exactly its images.
    try FileManager.default.removeItem(at: fixture.root.appendingPathComponent(bars))
    let marker = "(with the plugin, which renders it again: "
    let plugin = try XCTUnwrap(
      run.all.split(separator: "\n").compactMap { line -> String? in
        guard line.contains("BarChartTests/bars.png"), let start = line.range(of: marker) else {
          return nil
        }
        return String(line[start.upperBound...].dropLast())
      }.first, run.all)
    XCTAssertTrue(plugin.contains("--filter '^ChartTests\\.BarChartTests/testBars$'"), plugin)
    let rendered = try fixture.shell(plugin, environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertEqual(rendered.status, 0, plugin + "\n" + rendered.all)
    XCTAssertTrue(rendered.output.contains("1 added, 0 updated"), rendered.all)
    XCTAssertEqual(
      try PNGDecoder().decode(
        Array(try Data(contentsOf: fixture.root.appendingPathComponent(bars)))),
      try PNGDecoder().decode(try XCTUnwrap(kept[bars])))
    XCTAssertEqual(try bytes([flatBars, smallCells]), untouched, "nothing else landed")
  }

  /// A perceptual test's review card counts as the test did: the same differing pixels as its
  /// failure message, because the manifest records the comparison and its bound; and both say
  /// what kind of change the region is (the second bar grew 3 pixels taller: no move explains
  /// it, nothing was removed, so it is "changed", never the more reassuring "moved").
  func testReviewCard_countsWithTheTestsComparison() throws {
    try recordReferences()
    let run = try fixture.test(
      ["--disable-swift-testing", "--filter", "BarChartTests/testBars"],
      environment: ["RENDER_FIXTURE_CHANGE": "bars"])
    XCTAssertNotEqual(run.status, 0, run.all)
    let counted = try XCTUnwrap(
      run.all.firstMatch(
        of: /bars\.png: ([0-9,]+) of ([0-9,]+) pixels differ beyond the perceptual/),
      run.all)
    let report = fixture.root.appendingPathComponent("review")
    let merge = try mergeRefs(
      ["--dry-run", "--report", report.path, ".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    let card = try XCTUnwrap(
      try ReviewDataScript.cards(inReport: report).first { ($0["path"] as? String) == bars })
    XCTAssertEqual(
      card["changedPixels"] as? Int, Int(counted.1.replacingOccurrences(of: ",", with: "")),
      "\(card)\n\(run.all)")
    XCTAssertEqual(
      card["totalPixels"] as? Int, Int(counted.2.replacingOccurrences(of: ",", with: "")))
    XCTAssertTrue(
      run.all.contains("\n  region x 30…41, y 32…34: changed\n"),
      "the failure says the region's kind:\n\(run.all)")
    let kinds = try XCTUnwrap(card["regionKinds"] as? [[String: Any]], "\(card)")
    XCTAssertEqual(kinds.compactMap { $0["label"] as? String }, ["changed"])
  }

  // MARK: Helpers

  private func assertMergeRefusesSharedSmallCells(
    owned: [[UInt8]], file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .refusedInput, merge.all, file: file, line: line)
    XCTAssertTrue(
      merge.all.contains("\(smallCells) is the reference of 2 tests"), merge.all, file: file,
      line: line)
    XCTAssertTrue(
      merge.all.contains("ChartTests.CheckerTests/testSmallCells"), merge.all, file: file,
      line: line)
    XCTAssertTrue(
      merge.all.contains("SharedReference/smallCells()"), merge.all, file: file, line: line)
    XCTAssertTrue(merge.all.contains("SharedReference.swift:14"), merge.all, file: file, line: line)
    XCTAssertEqual(
      try bytes([smallCells]), owned, "nothing landed over the owner's reference", file: file,
      line: line)
  }

  /// Records every reference of the fixture's XCTest chart tests and empties the output folder.
  private func recordReferences() throws {
    let run = try fixture.test(xctestOnly, environment: ["IMAGE_GENERATION_MODE": "1"])
    XCTAssertEqual(run.status, 0, run.all)
    let merge = try mergeRefs([".build/reference-images", "."])
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    try FileManager.default.removeItem(at: fixture.archiveFolder)
  }

  private func mergeRefs(_ arguments: [String]) throws -> ProcessOutput {
    try fixture.run([try mergeRefsBinary().path] + arguments, environment: [:])
  }

  private func bytes(_ paths: [String]) throws -> [[UInt8]] {
    try paths.map { Array(try Data(contentsOf: fixture.root.appendingPathComponent($0))) }
  }

  private func entries(of archive: URL) throws -> [String: [UInt8]] {
    var entries: [String: [UInt8]] = [:]
    try ZipReader().forEachEntry(in: .file(archive)) { (entry) throws(ArchiveError) in
      entries[entry.path] = entry.bytes
    }
    return entries
  }
}
