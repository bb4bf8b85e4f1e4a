import Foundation
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// A merge of thousands of images prints a log a person reads: each list shows its first
/// `MergeSummary.listLimit` paths and says how many more there are, on a pipe as in CI;
/// `--verbose` and `--json` still list every path.
final class BoundedLogTests: XCTestCase {
  private let folder = "Tests/IconTests/__References__/Icons"
  private let imageCount = 3_000

  /// One archive of `imageCount` added icons and, with `conflicting`, a second archive that
  /// disagrees about the first 30 of them.
  private func sources(in root: URL, conflicting: Bool) throws -> [URL] {
    var first = ArchiveBuilder(pid: 1001, generatedAt: day(1))
    var second = ArchiveBuilder(pid: 1002, generatedAt: day(1))
    for index in 0..<imageCount {
      let icon = try noiseImage(seed: index, width: 4, height: 4)
      try first.add("\(folder)/icon\(index).png", icon)
      if conflicting && index < 30 {
        try second.add("\(folder)/icon\(index).png", try changingPixels(icon, count: 1))
      }
    }
    let urls = [root.appendingPathComponent("a.zip"), root.appendingPathComponent("b.zip")]
    try first.write(to: urls[0])
    try second.write(to: urls[1])
    return conflicting ? urls : [urls[0]]
  }

  private func package(in root: URL) throws -> URL {
    let package = root.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    return package
  }

  func testManyAdded_eachListIsBounded_andTheCountsEndTheLog() throws {
    let root = try makeTemporaryFolder(self)
    let sources = try sources(in: root, conflicting: false)

    let result = try MergeRefs.run(["--dry-run"] + sources.map(\.path) + [package(in: root).path])

    XCTAssertEqual(result.status, ExitStatus.success.rawValue, result.error)
    let lines = result.output.split(separator: "\n")
    XCTAssertEqual(lines.count, 1 + 1 + MergeSummary.listLimit + 1 + 1, result.output)
    XCTAssertEqual(
      lines[lines.count - 2],
      "  … and \(imageCount - MergeSummary.listLimit) more (--json or --verbose lists them)")
    XCTAssertEqual(
      lines.last,
      "\(imageCount) added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused "
        + "(dry run: nothing written)")
  }

  func testConflicts_areBoundedToo_andComeBeforeTheChanges() throws {
    let root = try makeTemporaryFolder(self)
    let sources = try sources(in: root, conflicting: true)

    let result = try MergeRefs.run(["--dry-run"] + sources.map(\.path) + [package(in: root).path])

    XCTAssertEqual(result.status, ExitStatus.conflicts.rawValue, result.error)
    let lines = result.output.split(separator: "\n").map(String.init)
    let conflicts = try XCTUnwrap(
      lines.firstIndex(of: "conflicts (sources disagree; nothing was written):"))
    let added = try XCTUnwrap(lines.firstIndex(of: "added:"))
    XCTAssertLessThan(conflicts, added)
    XCTAssertEqual(
      lines[conflicts + MergeSummary.listLimit + 1],
      "  … and 10 more (--json or --verbose lists them)")
    XCTAssertLessThan(lines.count, 100, result.output)
  }

  func testVerboseAndJSON_listEveryPath() throws {
    let root = try makeTemporaryFolder(self)
    let sources = try sources(in: root, conflicting: false)
    let destination = try package(in: root).path

    let verbose = try MergeRefs.run(
      ["--dry-run", "--verbose"] + sources.map(\.path) + [destination])
    let json = try MergeRefs.run(["--dry-run", "--json"] + sources.map(\.path) + [destination])

    XCTAssertEqual(verbose.status, ExitStatus.success.rawValue, verbose.error)
    XCTAssertEqual(
      verbose.output.split(separator: "\n").count { $0.hasPrefix("  \(folder)/icon") }, imageCount)
    XCTAssertFalse(verbose.output.contains("more (--json or --verbose lists them)"))
    XCTAssertEqual(try decodedSummary(json.output).changes.count, imageCount)
  }
}
