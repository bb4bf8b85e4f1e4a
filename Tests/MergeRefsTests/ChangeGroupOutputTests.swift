import Foundation
import MergeTestSupport
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// A merge with a review report groups the references changed the same way, and with many
/// changes its text summary, `--json` and Markdown job summary lead with the groups.
final class ChangeGroupOutputTests: XCTestCase {
  private static let green = RGBAColor(red: 0x16, green: 0xA3, blue: 0x4A)
  private static let purple = RGBAColor(red: 0x93, green: 0x33, blue: 0xEA)

  func testManyChanges_summariesLeadWithTheChangeGroups() throws {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    var builder = ArchiveBuilder(generatedAt: day(1))
    var recoloured: [String] = []
    // 24 different charts recoloured the same way, 2 moved the same way, 1 change of its own.
    for index in 0..<27 {
      let path = "Tests/ChartTests/__References__/Charts/chart-\(index).png"
      let heights = [20 + index % 9 * 5, 30 + index % 5 * 7, 15 + index % 4 * 9]
      let old = try chart(heights, Self.green)
      let new: RGBAImage
      switch index {
      case 0..<24:
        new = try chart(heights, Self.purple)
        recoloured.append(path)
      case 24, 25: new = try chart(heights, Self.green, shiftedBy: 2)
      default: new = try chart(heights.reversed(), Self.green)
      }
      try writeFile(try PNGEncoder().encode(old), to: destination.appendingPathComponent(path))
      try builder.add(path, new)
    }
    let archive = root.appendingPathComponent("run.zip")
    try builder.write(to: archive)
    let report = root.appendingPathComponent("review")
    let markdown = root.appendingPathComponent("summary.md")
    let arguments = [
      "--dry-run", "--report", report.path, "--summary-markdown", markdown.path, archive.path,
      destination.path,
    ]

    let text = try MergeRefs.run(arguments)
    XCTAssertEqual(text.exitStatus, .success, text.all)
    let lines = text.output.split(separator: "\n").map(String.init)
    let heading = try XCTUnwrap(
      lines.firstIndex(of: "changed the same way (the review report's change kinds):"),
      text.output)
    XCTAssertEqual(
      Array(lines[(heading + 1)...(heading + 2)]),
      ["  recoloured #16A34A → #9333EA: 24 references", "  moved by (2, 0): 2 references"])
    let firstChange = try XCTUnwrap(lines.firstIndex { $0.contains("chart-0.png") }, text.output)
    XCTAssertLessThan(heading, firstChange, "the groups lead")
    XCTAssertTrue(
      lines.contains("  Tests/ChartTests/__References__/Charts/chart-24.png — moved by (2, 0)"),
      "each change says its kinds:\n\(text.output)")

    let json = try MergeRefs.run(["--json"] + arguments)
    let summary = try JSONDecoder().decode(MergeSummary.self, from: Data(json.output.utf8))
    XCTAssertEqual(
      summary.changeGroups.map(\.label),
      [
        "recoloured #16A34A → #9333EA", "moved by (2, 0)",
      ])
    XCTAssertEqual(summary.changeGroups.first?.paths.sorted(), recoloured.sorted())
    // Every change carries its regions' kinds.
    let kinds = Dictionary(uniqueKeysWithValues: summary.changes.map { ($0.path, $0.kinds ?? []) })
    XCTAssertEqual(kinds[recoloured[0]]?.map(\.label), ["recoloured #16A34A → #9333EA"])
    let moved = "Tests/ChartTests/__References__/Charts/chart-24.png"
    XCTAssertEqual(kinds[moved]?.map(\.kind), ["moved"])
    XCTAssertEqual(kinds[moved]?.first?.box.count, 4)
    XCTAssertEqual(
      summary.changes.filter { ($0.kinds ?? []).isEmpty }.map(\.path), [],
      "every updated path was compared")

    let markdownText = try String(contentsOf: markdown, encoding: .utf8)
    XCTAssertTrue(
      markdownText.contains(
        "### Changed the same way (2 groups)\n\n- recoloured #16A34A → #9333EA: 24 references\n"
          + "- moved by (2, 0): 2 references\n"), markdownText)
    // Each change's line says its kinds too.
    XCTAssertTrue(
      markdownText.contains(
        "- updated `Tests/ChartTests/__References__/Charts/chart-24.png`: moved by (2, 0)\n"),
      markdownText)
  }

  func testFewChanges_noGroupLines_butJSONStillCarriesThem() throws {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    var builder = ArchiveBuilder(generatedAt: day(1))
    for index in 0..<3 {
      let path = "Tests/ChartTests/__References__/Charts/chart-\(index).png"
      let heights = [20 + index * 5, 40]
      try writeFile(
        try PNGEncoder().encode(try chart(heights, Self.green)),
        to: destination.appendingPathComponent(path))
      try builder.add(path, try chart(heights, Self.purple))
    }
    let archive = root.appendingPathComponent("run.zip")
    try builder.write(to: archive)
    let arguments = [
      "--dry-run", "--report", root.appendingPathComponent("review").path, archive.path,
      destination.path,
    ]
    let text = try MergeRefs.run(arguments)
    XCTAssertFalse(text.output.contains("changed the same way"), text.output)
    let json = try MergeRefs.run(["--json"] + arguments)
    let summary = try JSONDecoder().decode(MergeSummary.self, from: Data(json.output.utf8))
    XCTAssertEqual(summary.changeGroups.map(\.paths.count), [3])
  }

  /// Three bars on white, 100 × 80, optionally all moved right.
  private func chart(_ heights: [Int], _ colour: RGBAColor, shiftedBy shift: Int = 0) throws
    -> RGBAImage
  {
    var image = try RGBAImage(width: 100, height: 80, color: .white)
    for (index, height) in heights.enumerated() {
      for y in (75 - height)..<75 {
        for x in (10 + index * 18 + shift)..<(22 + index * 18 + shift) { image[x, y] = colour }
      }
    }
    return image
  }
}
