import Foundation
import MergeTestSupport
import ReferenceImageCore
import XCTest

/// The kinds of change on the review page, in real Chromium: each box labelled with its kind,
/// the cards filtered by kind, and the references changed the same way (not byte for byte)
/// decided together, each still bound to its own pixels.
extension ReviewPageTests {
  private static let kindsFolder = "Tests/ChartTests/__References__/Kinds"
  private static let green = RGBAColor(red: 0x16, green: 0xA3, blue: 0x4A)
  private static let purple = RGBAColor(red: 0x93, green: 0x33, blue: 0xEA)

  func testKinds_boxesLabelled_filterByKind_changeGroupAcceptedTogether() throws {
    let (report, after) = try kindsReport()
    let recoloured = (0..<3).map { "\(Self.kindsFolder)/c-recoloured-\($0).png" }

    let result = try drive(
      report,
      steps: [
        ["press": ["6"]], ["state": "moved"], ["screenshot": "kinds-moved"],
        ["press": ["j"]], ["state": "added"],
        ["press": ["j"]], ["state": "recoloured"],
        ["select": ["#kind-filter", "recoloured"]], ["state": "filtered"],
        ["click": "#reject-all"],
        ["click": ".card.current .change-group-accept"], ["export": "group"],
      ])
    XCTAssertEqual(result.errors, [], "the page logged errors")

    let moved = try XCTUnwrap(result.states["moved"])
    XCTAssertEqual(moved.path, "\(Self.kindsFolder)/a-moved.png")
    XCTAssertEqual(moved.kindLabels, ["moved by (2, 1)"], "the box says its kind")
    XCTAssertEqual(moved.kindBoxes, ["moved"])
    XCTAssertEqual(moved.kindsNote, "moved by (2, 1)")
    XCTAssertNil(moved.changeGroupNote, "a change of its own")
    XCTAssertEqual(
      moved.kindOptions,
      [
        "every kind", "moved (1)", "recoloured (3)", "added (1)", "removed (0) (disabled)",
        "anti-aliasing or noise only (0) (disabled)", "resized (0) (disabled)",
        "changed (0) (disabled)",
      ])

    XCTAssertEqual(result.states["added"]?.kindLabels, ["added"])

    let group = try XCTUnwrap(result.states["recoloured"])
    XCTAssertEqual(group.kindBoxes.count, 1)
    XCTAssertEqual(Set(group.kindLabels), ["recoloured #16A34A → #9333EA"])
    XCTAssertEqual(
      group.changeGroupNote, "recoloured #16A34A → #9333EA: 3 images changed the same way")
    XCTAssertNil(group.groupNote, "no two of them are the same bytes")

    let filtered = try XCTUnwrap(result.states["filtered"])
    XCTAssertEqual(filtered.visibleCount, "3 of 5 cards shown", "the kind filter")

    // Everything rejected, then the change group accepted: its three paths, each bound to its
    // own before and after pixels.
    let export = try XCTUnwrap(result.exports["group"])
    XCTAssertEqual(export.accepted, recoloured)
    for (line, path) in zip(export.lines, recoloured) {
      let fields = line.split(separator: "\t").map(String.init)
      let card = try XCTUnwrap(report.cards.first { $0.path == path })
      XCTAssertEqual(
        fields, [path, try XCTUnwrap(card.beforePixels), SHA256.hex(after[path]!.pixels)])
    }
  }

  /// A package with five references and an archive changing them: one moved by (2, 1), one
  /// with a box added, three different charts each recoloured from green to purple.
  private func kindsReport() throws -> (Report, [String: RGBAImage]) {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    var builder = ArchiveBuilder(generatedAt: day(1))
    var after: [String: RGBAImage] = [:]
    func change(_ name: String, _ old: RGBAImage, _ new: RGBAImage) throws {
      let path = "\(Self.kindsFolder)/\(name).png"
      try writeFile(try PNGEncoder().encode(old), to: destination.appendingPathComponent(path))
      try builder.add(path, new)
      after[path] = new
    }
    try change(
      "a-moved", try picture { self.text(&$0, 20, 20) }, try picture { self.text(&$0, 22, 21) })
    try change(
      "b-added", try picture { self.text(&$0, 20, 20) },
      try picture {
        self.text(&$0, 20, 20)
        self.fill(&$0, 100, 50, 30, 20, Self.purple)
      })
    for index in 0..<3 {
      try change(
        "c-recoloured-\(index)", try picture { self.bars(&$0, index, Self.green) },
        try picture { self.bars(&$0, index, Self.purple) })
    }
    let archive = root.appendingPathComponent("artifacts/run.zip")
    try builder.write(to: archive)
    let folder = root.appendingPathComponent("review")
    let run = try MergeRefs.run([
      "--dry-run", "--report", folder.path, archive.path, destination.path,
    ])
    XCTAssertEqual(run.status, 0, run.all)
    let report = Report(
      index: folder.appendingPathComponent("index.html"), cards: try reviewData(folder))
    return (report, after)
  }

  private func picture(_ draw: (inout RGBAImage) -> Void) throws -> RGBAImage {
    var image = try RGBAImage(width: 160, height: 90, color: .white)
    draw(&image)
    return image
  }

  /// A 40 × 8 block of text-like marks.
  private func text(_ image: inout RGBAImage, _ left: Int, _ top: Int) {
    var state: UInt32 = 99
    for y in 0..<8 {
      for x in 0..<40 where x % 6 != 5 {
        state = state &* 1_103_515_245 &+ 12_345
        if (state >> 16) % 3 == 0 { image[left + x, top + y] = .black }
      }
    }
  }

  /// Three bars whose heights depend on `variant`.
  private func bars(_ image: inout RGBAImage, _ variant: Int, _ colour: RGBAColor) {
    for bar in 0..<3 {
      let height = 20 + (bar * 13 + variant * 7) % 40
      fill(&image, 30 + bar * 20, 80 - height, 12, height, colour)
    }
  }

  private func fill(
    _ image: inout RGBAImage, _ x: Int, _ y: Int, _ width: Int, _ height: Int,
    _ colour: RGBAColor
  ) {
    for row in y..<(y + height) { for column in x..<(x + width) { image[column, row] = colour } }
  }
}
