import Foundation
import XCTest

/// The kinds of change on real renders: a copy of the example package (Examples/ChartRenderer)
/// with four real edits to its chart code, one kind each, through a failing `swift test`, a
/// generation run, `merge-refs --dry-run --json --report` and the report page in Chromium.
///
/// The edits, and the gallery samples each one changes (the others stay equal and pass):
/// - a label moved: the line chart's legend 2 pixels up (`line-light`, `line-dark`);
/// - a series recoloured: the pie's fourth slice takes the fifth palette colour (`pie`,
///   `donut-dark`: the slice and its legend swatch);
/// - a legend entry added: the bar chart names its series above the plot (`bar-light`,
///   `bar-dark`, `bar-negative`);
/// - a font-weight change: the shapes scene's caption in faux bold, drawn again a pixel to the
///   right, as the bitmap font has no bold face (`shapes-light`, `shapes-dark`).
final class ChartKindsEndToEndTests: XCTestCase {
  private static let folder = "Tests/ChartRenderTests/__References__/GalleryRenderTests"

  /// Each changed sample's region lines, as the failure message prints them. The boxes are the
  /// edits' own pixels: the legend's text and swatch at both heights, the slice's straight
  /// edge and its swatch, the new legend entry, the caption.
  private static let expectedRegions: [String: [String]] = [
    "line-light": ["region x 350…463, y 39…47: moved by (0, -2)"],
    "line-dark": ["region x 350…463, y 39…47: moved by (0, -2)"],
    "pie": [
      "region x 91…114, y 45…132: recoloured #EF4444 → #8B5CF6",
      "region x 244…255, y 164…175: recoloured #EF4444 → #8B5CF6",
    ],
    "donut-dark": [
      "region x 91…114, y 45…89: recoloured #F87171 → #A78BFA",
      "region x 244…255, y 164…175: recoloured #F87171 → #A78BFA",
    ],
    "bar-light": ["region x 409…463, y 24…30: added"],
    "bar-dark": ["region x 409…463, y 24…30: added"],
    "bar-negative": ["region x 329…383, y 24…30: added"],
    "shapes-light": ["region x 212…352, y 156…168: changed"],
    "shapes-dark": ["region x 169…239, y 124…130: changed"],
  ]

  private static func path(_ name: String) -> String { "\(folder)/\(name).png" }

  /// The kind a region line names: the first word of its label.
  private static func kind(of line: String) -> String {
    String(label(of: line).split(separator: " ")[0])
  }

  private static func label(of line: String) -> String {
    String(line.split(separator: ": ", maxSplits: 1)[1])
  }

  /// The samples with a region of `kind`.
  private static func names(ofKind kind: String) -> [String] {
    expectedRegions.filter { $0.value.contains { Self.kind(of: $0) == kind } }.keys.sorted()
  }

  func testRealChartEdits_areMovedRecolouredAddedAndChanged_inTheFailureTheJSONAndThePage()
    throws
  {
    let example = try ExampleCopy.make()
    defer { try? FileManager.default.removeItem(at: example.root) }

    // 1. Verify: the changed samples fail, each with its region lines; the others pass.
    let verify = try example.swiftTest(environment: [:])
    XCTAssertNotEqual(verify.status, 0, verify.all)
    XCTAssertTrue(
      verify.all.contains("failed after") && verify.all.contains("with 9 issues"), verify.all)
    for (name, lines) in Self.expectedRegions {
      XCTAssertEqual(regionLines(of: name, in: verify.all), lines, name)
    }
    for name in ["font", "badge-passing", "badge-failing", "badge-coverage"] {
      XCTAssertFalse(verify.all.contains(Self.path(name) + ":"), "\(name) is unchanged")
    }

    // 2. A generation run of the failed ones, then the merge's plan with its report.
    try? FileManager.default.removeItem(
      at: example.root.appendingPathComponent(".build/reference-images"))
    let generation = try example.swiftTest(environment: ["IMAGE_GENERATION_MODE": "failed"])
    XCTAssertTrue(
      generation.all.contains("ReferenceImages: wrote 9 images (mode failed)"), generation.all)
    let report = example.root.appendingPathComponent("review")
    let merge = try runProcess(
      try mergeRefsBinary().path,
      ["--dry-run", "--json", "--report", report.path, ".build/reference-images", "."],
      in: example.root)
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    try checkJSON(merge.output)

    // 3. The page in Chromium: every box labelled with its kind, and the kind filter.
    try checkPage(report.appendingPathComponent("index.html"))
  }

  /// The lines under `name`'s failure sentence that say its regions' kinds.
  private func regionLines(of name: String, in output: String) -> [String] {
    let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let start = lines.firstIndex(where: { $0.contains("\(Self.path(name)): ") }) else {
      return []
    }
    return lines[(start + 1)...].prefix { $0.hasPrefix("    region ") || $0.hasPrefix("    and ") }
      .map { $0.trimmingCharacters(in: .whitespaces) }
  }

  private func checkJSON(_ output: String) throws {
    struct Summary: Decodable {
      struct Change: Decodable {
        struct Kind: Decodable {
          var kind: String
          var label: String
          var box: [Int]
        }
        var path: String
        var outcome: String
        var kinds: [Kind]?
      }
      struct Group: Decodable {
        var label: String
        var paths: [String]
      }
      var changes: [Change]
      var changeGroups: [Group]
    }
    let summary = try JSONDecoder().decode(Summary.self, from: Data(output.utf8))
    XCTAssertEqual(
      summary.changes.map(\.path).sorted(), Self.expectedRegions.keys.map(Self.path).sorted())
    for change in summary.changes {
      let name = URL(fileURLWithPath: change.path).deletingPathExtension().lastPathComponent
      XCTAssertEqual(change.outcome, "updated", name)
      let kinds = change.kinds ?? []
      // The same regions as the failure message: box x…x, y…y and the label.
      XCTAssertEqual(
        kinds.map { kind in
          "region x \(kind.box[0])…\(kind.box[0] + kind.box[2] - 1), "
            + "y \(kind.box[1])…\(kind.box[1] + kind.box[3] - 1): \(kind.label)"
        }, Self.expectedRegions[name], name)
      XCTAssertTrue(
        kinds.allSatisfy { ["moved", "recoloured", "added", "changed"].contains($0.kind) }, name)
    }
    // Only the legend moved the same way in two charts: one change group of two. The pie's
    // recolours differ between the light and dark palettes; added and changed regions group by
    // their pixels, which differ per chart.
    XCTAssertEqual(summary.changeGroups.map(\.label), ["moved by (0, -2)"])
    XCTAssertEqual(
      summary.changeGroups.first?.paths, [Self.path("line-dark"), Self.path("line-light")])
  }

  // MARK: - The page

  private struct PageResult: Decodable {
    struct State: Decodable {
      var path: String?
      var visibleCount: String
      var kindLabels: [String]
      var kindBoxes: [String]
      var kindOptions: [String]
    }
    struct Card: Decodable { var path: String }
    var states: [String: State]
    var cardsSeen: [String: [Card]]
    var errors: [String]
  }

  private func checkPage(_ index: URL) throws {
    let ordered = Self.expectedRegions.keys.map(Self.path).sorted()
    // Changed-regions mode (key 6), then each card in path order.
    var steps: [[String: Any]] = [["press": ["6"]]]
    for position in ordered.indices {
      if position > 0 { steps.append(["press": ["j"]]) }
      steps.append(["state": "card-\(position)"])
    }
    let kinds = ["moved", "recoloured", "added", "changed"]
    for kind in kinds {
      steps += [["select": ["#kind-filter", kind]], ["state": kind], ["cards": kind]]
    }
    let result = try drive(index, steps: steps)
    XCTAssertEqual(result.errors, [], "the page logged errors")

    for (position, path) in ordered.enumerated() {
      let state = try XCTUnwrap(result.states["card-\(position)"], path)
      XCTAssertEqual(state.path, path)
      let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
      let expected = try XCTUnwrap(Self.expectedRegions[name])
      XCTAssertEqual(state.kindLabels, expected.map(Self.label), "\(name): each box says its kind")
      XCTAssertEqual(state.kindBoxes, expected.map(Self.kind), name)
    }
    XCTAssertEqual(
      result.states["card-0"]?.kindOptions,
      [
        "every kind", "moved (2)", "recoloured (2)", "added (3)", "removed (0) (disabled)",
        "anti-aliasing or noise only (0) (disabled)", "resized (0) (disabled)", "changed (2)",
      ])
    for kind in kinds {
      let names = Self.names(ofKind: kind)
      XCTAssertEqual(
        result.states[kind]?.visibleCount, "\(names.count) of 9 cards shown", "filter \(kind)")
      XCTAssertEqual(
        result.cardsSeen[kind]?.map(\.path), names.map(Self.path).sorted(),
        "filter \(kind): only its cards")
    }
  }

  /// Runs the page tests' Playwright driver on the report with `steps`.
  private func drive(_ index: URL, steps: [[String: Any]]) throws -> PageResult {
    try PageTools.drive(
      index, steps: try PageTools.steps(steps), checkout: FixturePackage.checkout,
      work: try makeTemporaryFolder(self))
  }
}

/// A copy of Examples/ChartRenderer in a temporary folder, depending on this checkout, with the
/// four edits applied and its tests built once.
private struct ExampleCopy {
  let root: URL

  /// One real change to the example's source: `old` must occur exactly `count` times.
  struct Edit {
    var file: String
    var old: String
    var new: String
    var count = 1
  }

  static let edits = [
    Edit(
      file: "LineChart.swift", old: "top: frame.plot.y - 20", new: "top: frame.plot.y - 22"),
    Edit(
      file: "PieChart.swift", old: "theme.color(at: index)",
      new: "theme.color(at: index == 3 ? 4 : index)", count: 2),
    Edit(
      file: "BarChart.swift",
      old: "    frame.drawAxes(title: title, on: &canvas, theme: theme)\n",
      new: """
            frame.drawAxes(title: title, on: &canvas, theme: theme)
            let legendRight = Double(width) - CartesianFrame.margin
            canvas.drawText(
              "builds", at: Point(x: legendRight, y: frame.plot.y - 20), alignment: .right,
              color: theme.label)
            canvas.fillRoundedRect(
              Rect(
                x: legendRight - Double(BitmapFont.width(of: "builds")) - 20, y: frame.plot.y - 18,
                width: 12, height: 3), radius: 1.5, .solid(theme.color(at: 0)))

        """),
    Edit(
      file: "ShapesScene.swift",
      old: """
            canvas.drawText(
              "Anti-aliased", at: p(210, 156), scale: max(1, Int(2 * s)), alignment: .left,
              color: theme.title)

        """,
      new: """
            for bold in [0.0, 1.0] {
              canvas.drawText(
                "Anti-aliased", at: Point(x: p(210, 156).x + bold, y: p(210, 156).y),
                scale: max(1, Int(2 * s)), alignment: .left, color: theme.title)
            }

        """),
  ]

  static func make() throws -> ExampleCopy {
    let checkout = FixturePackage.checkout
    let source = checkout.appendingPathComponent("Examples/ChartRenderer")
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "ChartRenderer-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    // The sources only: a checkout's example may hold a build folder of its own.
    for item in ["Package.swift", "Sources", "Tests"] {
      try FileManager.default.copyItem(
        at: source.appendingPathComponent(item), to: root.appendingPathComponent(item))
    }
    try replace(
      in: root.appendingPathComponent("Package.swift"),
      Edit(file: "Package.swift", old: #"path: "../..""#, new: "path: \"\(checkout.path)\""))
    let chartCode = root.appendingPathComponent("Sources/ChartRenderer")
    for edit in edits {
      try replace(in: chartCode.appendingPathComponent(edit.file), edit)
    }
    let copy = ExampleCopy(root: root)
    let build = try copy.swift(["build", "--build-tests"], environment: [:])
    guard build.status == 0 else {
      throw FixtureError(message: "building the edited example failed:\n\(build.all)")
    }
    return copy
  }

  private static func replace(in file: URL, _ edit: Edit) throws {
    let text = try String(contentsOf: file, encoding: .utf8)
    let found = text.components(separatedBy: edit.old).count - 1
    guard found == edit.count else {
      throw FixtureError(
        message: "Examples/ChartRenderer/…/\(edit.file) holds \(found) of the \(edit.count) "
          + "texts ChartKindsEndToEndTests changes (\(edit.old)); update the test's edits to "
          + "the example's code")
    }
    try text.replacingOccurrences(of: edit.old, with: edit.new)
      .write(to: file, atomically: true, encoding: .utf8)
  }

  /// The gallery's render tests, one per sample, with extra environment.
  func swiftTest(environment: [String: String]) throws -> ProcessOutput {
    try swift(
      ["test", "--skip-build", "--filter", "GalleryRenderTests"], environment: environment)
  }

  private func swift(_ arguments: [String], environment: [String: String]) throws
    -> ProcessOutput
  {
    var merged = ProcessInfo.processInfo.environment
    // This process's generation or shard settings are not the example's.
    for key in merged.keys where key.hasPrefix("IMAGE_") || key.hasPrefix("REFERENCE_SHARD") {
      merged[key] = nil
    }
    merged.merge(environment) { $1 }
    return try runProcess("/usr/bin/env", ["swift"] + arguments, in: root, environment: merged)
  }
}
