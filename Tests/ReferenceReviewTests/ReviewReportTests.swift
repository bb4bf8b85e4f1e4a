import Foundation
import ReferenceArchive
import ReferenceImageCore
import XCTest

@testable import ReferenceMerge
@testable import ReferenceReview

/// The review report as `merge-refs --report` writes it, read back without a browser: the
/// page's files, before and after byte for byte as the destination and archives hold them,
/// valid difference images, and the data the page reads (cards, counts, regions, groups).
final class ReviewReportTests: XCTestCase {
  private let folder = "Tests/ChartTests/__References__/Screens"

  /// The page's own files in the repository.
  /// The page's scripts, in the order index.html loads them.
  static let pageScripts = [
    "review-state.js", "review-decisions.js", "review-list.js", "review-panes.js",
    "review-keys.js", "review-boot.js",
  ]

  func testPageScripts_everyScriptOfThePageFolder_loadedByIndexInOrder() throws {
    let index = try XCTUnwrap(String(data: try pageFile("index.html"), encoding: .utf8))
    let loaded = index.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { $0.hasPrefix("<script src=") }
    XCTAssertEqual(
      loaded,
      (["review-data.js"] + Self.pageScripts).map { #"<script src="\#($0)"></script>"# },
      "the data first, then the scripts in the order they run")
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: pageFolder().path)
        .filter { $0.hasSuffix(".js") }.sorted(),
      Self.pageScripts.sorted(), "every script in the folder is loaded")
  }

  /// types.d.ts, which the page's type check reads, declares every field the data holds: the
  /// report's and each card's, of a landed report (every field written).
  func testPageTypes_declareEveryFieldOfTheData() throws {
    let fixture = try makeFixture()
    let report = fixture.destination.deletingLastPathComponent().appendingPathComponent("review")
    // Without the second archive, nothing conflicts and the merge lands.
    let run = try MergeRefs.run(
      ["--report", report.path, fixture.archives[0].path, fixture.destination.path])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    let data = try ReviewDataScript.object(inReport: report)
    XCTAssertEqual(data["changes"] as? String, "landed")
    let types = try XCTUnwrap(String(data: try pageFile("types.d.ts"), encoding: .utf8))
    /// The member names of `interface NAME { ... }`.
    func members(of name: String) throws -> Set<String> {
      let start = try XCTUnwrap(types.range(of: "interface \(name) {"), name)
      let end = try XCTUnwrap(types.range(of: "\n}", range: start.upperBound..<types.endIndex))
      return Set(
        types[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
          let text = line.trimmingCharacters(in: .whitespaces)
          guard let colon = text.firstIndex(of: ":"), !text.hasPrefix("*"), !text.hasPrefix("/")
          else { return nil }
          return String(text[..<colon]).replacingOccurrences(of: "?", with: "")
        })
    }
    XCTAssertEqual(Set(data.keys).subtracting(try members(of: "ReviewData")), [])
    let cards = try XCTUnwrap(data["cards"] as? [[String: Any]])
    XCTAssertEqual(
      Set(cards.flatMap(\.keys)).subtracting(try members(of: "ReviewCard")), [])
  }

  private func pageFolder(file: StaticString = #filePath) -> URL {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
      .appendingPathComponent("../../Sources/ReferenceReview/ReviewPage")
  }

  private func pageFile(_ name: String) throws -> Data {
    try Data(contentsOf: pageFolder().appendingPathComponent(name))
  }

  /// `image` with the pixels of a box inverted.
  private func changingBox(_ image: RGBAImage, x: Int, y: Int, width: Int, height: Int) throws
    -> RGBAImage
  {
    var pixels = image.pixels
    for row in y..<(y + height) {
      for column in x..<(x + width) {
        for channel in 0..<3 { pixels[(row * image.width + column) * 4 + channel] ^= 0xFF }
      }
    }
    return try RGBAImage(width: image.width, height: image.height, pixels: pixels)
  }

  private func cards(_ data: [String: Any]) throws -> [String: [String: Any]] {
    let list = try XCTUnwrap(data["cards"] as? [[String: Any]])
    return Dictionary(uniqueKeysWithValues: list.map { ($0["path"] as! String, $0) })
  }

  /// A destination with two references that change the same way, one that changes size, one
  /// orphan; a first archive that updates them and adds one, and a second archive that
  /// disagrees with the first about one more path (a conflict).
  struct Fixture {
    var destination: URL
    var archives: [URL]
    var archivePNG: [String: [UInt8]]
    var secondPNG: [String: [UInt8]]
  }

  func makeFixture() throws -> Fixture {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    let screen = try noiseImage(seed: 1, width: 96, height: 64)
    let other = try noiseImage(seed: 2, width: 96, height: 64)
    for (name, image) in [
      ("same-a", screen), ("same-b", screen), ("resized", other),
      ("orphan", try noiseImage(seed: 3)),
    ] {
      try writeFile(
        try PNGEncoder().encode(image),
        to: destination.appendingPathComponent(path(name, in: folder)))
    }
    // Two regions far apart: boxes of 5x4 and 3x3 pixels.
    let changed = try changingBox(
      try changingBox(screen, x: 2, y: 3, width: 5, height: 4), x: 70, y: 50, width: 3, height: 3)
    var first = ArchiveBuilder(host: "first", generatedAt: day(1))
    var second = ArchiveBuilder(host: "second", generatedAt: day(2))
    var archivePNG: [String: [UInt8]] = [:]
    var secondPNG: [String: [UInt8]] = [:]
    for (name, image) in [
      ("same-a", changed), ("same-b", changed),
      ("resized", try noiseImage(seed: 2, width: 80, height: 72)),
      ("added", try noiseImage(seed: 4, width: 20, height: 10)),
      ("disputed", try noiseImage(seed: 5)),
    ] {
      // `.small` bytes differ from what the destination's `.fast` encoder would write: a copy
      // is told from a re-encoding.
      archivePNG[path(name, in: folder)] = try first.add(
        path(name, in: folder), image, setting: .small)
    }
    secondPNG[path("disputed", in: folder)] = try second.add(
      path("disputed", in: folder), try noiseImage(seed: 6))
    let archives = [
      root.appendingPathComponent("first.zip"), root.appendingPathComponent("second.zip"),
    ]
    try first.write(to: archives[0])
    try second.write(to: archives[1])
    return Fixture(
      destination: destination, archives: archives, archivePNG: archivePNG, secondPNG: secondPNG)
  }

  func testFolderReport_everyKindOfCard_copiesBytesAndWritesTheData() throws {
    let fixture = try makeFixture()
    let report = fixture.destination.deletingLastPathComponent().appendingPathComponent("review")
    let run = try MergeRefs.run(
      ["--dry-run", "--report", report.path] + fixture.archives.map(\.path)
        + [fixture.destination.path])
    XCTAssertEqual(run.exitStatus, .conflicts, "the conflict stops the merge\n\(run.all)")
    XCTAssertTrue(run.output.contains("review report: \(report.path)/index.html"), run.output)

    for name in ["index.html", "review.css"] + Self.pageScripts {
      XCTAssertEqual(
        try Data(contentsOf: report.appendingPathComponent(name)), try pageFile(name), name)
    }
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: report.path).sorted(),
      (["images", "index.html", "review-data.js", "review.css"] + Self.pageScripts).sorted(),
      "the page's files and the data; not the type check's types.d.ts and tsconfig.json")
    let data = try ReviewDataScript.object(inReport: report)
    XCTAssertEqual(data["version"] as? Int, 1)
    XCTAssertEqual((data["id"] as? String)?.count, 32)
    XCTAssertEqual(data["destination"] as? String, fixture.destination.path)
    XCTAssertEqual(data["decisionFile"] as? String, "reference-decisions.txt")
    let counts = try XCTUnwrap(data["counts"] as? [String: Int])
    XCTAssertEqual(
      counts,
      [
        "added": 1, "updated": 3, "unchanged": 0, "conflict": 1, "orphan": 1, "redundant": 0,
        "unstable": 0,
        "skipped": 0,
      ])
    let command = try XCTUnwrap(data["command"] as? [String])
    XCTAssertEqual(
      Array(command.dropFirst()),
      ["--include-from", "reference-decisions.txt"]
        + fixture.archives.map(\.path) + [fixture.destination.path])
    XCTAssertEqual((data["sources"] as? [[String: Any]])?.count, 2)

    let cards = try cards(data)
    XCTAssertEqual(cards.count, 6)
    let ids = cards.values.compactMap { $0["id"] as? Int }.sorted()
    XCTAssertEqual(ids, Array(0..<6), "ids are unique")
    let bytes = { (image: Any?) throws -> [UInt8] in
      let source = try XCTUnwrap((image as? [String: Any])?["src"] as? String)
      XCTAssertTrue(source.hasPrefix("images/"), source)
      return try FileSystem.read(report.appendingPathComponent(source))
    }
    let current = { (name: String) throws -> [UInt8] in
      try FileSystem.read(fixture.destination.appendingPathComponent(path(name, in: self.folder)))
    }

    // Updated: before and after are the files' bytes; the difference decodes, at its size.
    let sameA = try XCTUnwrap(cards[path("same-a", in: folder)])
    XCTAssertEqual(sameA["outcome"] as? String, "updated")
    XCTAssertEqual(try bytes(sameA["before"]), try current("same-a"))
    XCTAssertEqual(try bytes(sameA["after"]), fixture.archivePNG[path("same-a", in: folder)])
    let difference = try PNGDecoder().decode(try bytes(sameA["difference"]))
    XCTAssertEqual(difference.size, ImageSize(width: 96, height: 64))
    let old = try PNGDecoder().decode(try current("same-a"))
    let new = try PNGDecoder().decode(try XCTUnwrap(fixture.archivePNG[path("same-a", in: folder)]))
    XCTAssertEqual(
      difference, ImageComparison.exact.differenceImage(new, old),
      "the palette PNG holds the comparison's own difference image")
    XCTAssertEqual((sameA["difference"] as? [String: Any])?["width"] as? Int, 96)
    XCTAssertEqual(sameA["changedPixels"] as? Int, 5 * 4 + 3 * 3)
    XCTAssertEqual(sameA["totalPixels"] as? Int, 96 * 64)
    XCTAssertGreaterThan(sameA["maxChannelDifference"] as? Int ?? 0, 0)
    XCTAssertEqual(sameA["regions"] as? [[Int]], [[0, 0, 16, 16], [64, 48, 16, 16]])
    XCTAssertEqual((sameA["rivals"] as? [Any])?.count, 0)
    // The same change in two files is one group; another change is another.
    let group = try XCTUnwrap(sameA["group"] as? String)
    let before = try PNGDecoder().decode(try current("same-a"))
    let after = try PNGDecoder().decode(
      try XCTUnwrap(fixture.archivePNG[path("same-a", in: folder)]))
    XCTAssertEqual(group, "\(SHA256.hex(before.pixels))->\(SHA256.hex(after.pixels))")
    XCTAssertEqual(cards[path("same-b", in: folder)]?["group"] as? String, group)
    XCTAssertNotEqual(cards[path("resized", in: folder)]?["group"] as? String, group)

    // A size change keeps both sizes; the difference covers the union canvas.
    let resized = try XCTUnwrap(cards[path("resized", in: folder)])
    XCTAssertEqual((resized["before"] as? [String: Any])?["height"] as? Int, 64)
    XCTAssertEqual((resized["after"] as? [String: Any])?["height"] as? Int, 72)
    let resizedDifference = try PNGDecoder().decode(try bytes(resized["difference"]))
    XCTAssertEqual(resizedDifference.size, ImageSize(width: 96, height: 72))
    XCTAssertEqual(
      resizedDifference,
      ImageComparison.exact.differenceImage(
        try PNGDecoder().decode(try XCTUnwrap(fixture.archivePNG[path("resized", in: folder)])),
        try PNGDecoder().decode(try current("resized"))))
    XCTAssertTrue(resized["changedPixels"] is NSNull)
    XCTAssertFalse((resized["regions"] as? [[Int]] ?? []).isEmpty, "the uncovered parts")

    // Added: only after. Orphan: the current file as before.
    let added = try XCTUnwrap(cards[path("added", in: folder)])
    XCTAssertTrue(added["before"] is NSNull)
    XCTAssertTrue(added["difference"] is NSNull)
    XCTAssertTrue(added["group"] is NSNull)
    XCTAssertEqual(try bytes(added["after"]), fixture.archivePNG[path("added", in: folder)])
    XCTAssertEqual(added["regions"] as? [[Int]], [])
    let orphan = try XCTUnwrap(cards[path("orphan", in: folder)])
    XCTAssertEqual(orphan["outcome"] as? String, "orphan")
    XCTAssertEqual(try bytes(orphan["before"]), try current("orphan"))
    XCTAssertTrue(orphan["after"] is NSNull)

    // Conflict: each source's image, labelled with its source and worker.
    let conflict = try XCTUnwrap(cards[path("disputed", in: folder)])
    let rivals = try XCTUnwrap(conflict["rivals"] as? [[String: Any]])
    XCTAssertEqual(rivals.count, 2)
    XCTAssertEqual(
      Set(try rivals.map { try bytes($0["image"]) }),
      Set([
        fixture.archivePNG[path("disputed", in: folder)],
        fixture.secondPNG[path("disputed", in: folder)],
      ]))
    XCTAssertTrue(
      (rivals[0]["label"] as? String)?.contains("second.zip (") ?? false, "newest first")
    XCTAssertNotNil(conflict["changedPixels"] as? Int)

    // Every file in images/ belongs to a card.
    let referenced = Set(
      cards.values.flatMap { card in
        ["before", "after", "difference"].compactMap {
          (card[$0] as? [String: Any])?["src"] as? String
        }
          + ((card["rivals"] as? [[String: Any]]) ?? []).compactMap {
            ($0["image"] as? [String: Any])?["src"] as? String
          }
      })
    let present = try FileManager.default.subpathsOfDirectory(
      atPath: report.appendingPathComponent("images").path
    ).filter { $0.hasSuffix(".png") }
    XCTAssertEqual(Set(present.map { "images/" + $0 }), referenced)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: report.deletingLastPathComponent().path)
        .filter { $0.hasPrefix(FileSystem.temporaryPrefix) }, [], "no temporary folder is left")
  }

  func testSingleFileReport_inlinesThePageAndTheImagesAsTheSameBytes() throws {
    let fixture = try makeFixture()
    let parent = fixture.destination.deletingLastPathComponent().appendingPathComponent("out")
    let report = parent.appendingPathComponent("review.html")
    let run = try MergeRefs.run(
      ["--dry-run", "--report", report.path, fixture.archives[0].path, fixture.destination.path])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: parent.path), ["review.html"])
    let page = try String(contentsOf: report, encoding: .utf8)
    var inlined: [String.Index] = []
    for name in Self.pageScripts {
      let script = try XCTUnwrap(String(data: try pageFile(name), encoding: .utf8))
      let range = page.range(of: "<script>\n" + script + "</script>")
      XCTAssertNotNil(range, "\(name) inlined")
      inlined += range.map { [$0.lowerBound] } ?? []
    }
    XCTAssertEqual(inlined, inlined.sorted(), "the scripts in the order index.html loads them")
    XCTAssertFalse(page.contains("src=\"review"), "no file is loaded from beside the page")
    let data = try ReviewDataScript.object(of: ReviewDataScript.splitSingleFile(page).script)
    let cards = try cards(data)
    XCTAssertEqual(cards.count, 6, "3 updated, 2 added, 1 orphan")
    let after = try XCTUnwrap(
      (cards[path("added", in: folder)]?["after"] as? [String: Any])?["src"] as? String)
    let prefix = "data:image/png;base64,"
    XCTAssertTrue(after.hasPrefix(prefix))
    XCTAssertEqual(
      Array(try XCTUnwrap(Data(base64Encoded: String(after.dropFirst(prefix.count))))),
      fixture.archivePNG[path("added", in: folder)])
  }

  func testFolderReport_replacesAnOlderReport_refusesAFolderOfOtherFiles() throws {
    let fixture = try makeFixture()
    let report = fixture.destination.deletingLastPathComponent().appendingPathComponent("review")
    let arguments = { (sources: [URL]) in
      ["--dry-run", "--report", report.path] + sources.map(\.path) + [fixture.destination.path]
    }
    XCTAssertEqual(try MergeRefs.run(arguments(fixture.archives)).exitStatus, .conflicts)
    let firstData = try ReviewDataScript.text(inReport: report)
    // A second archive alone: fewer cards; the old images must be gone, not mixed in.
    var later = ArchiveBuilder(host: "later", generatedAt: day(3))
    // In another folder, so the first folder's files are not its orphans.
    let only = "Tests/Other/__References__/only.png"
    try later.add(only, try noiseImage(seed: 9))
    let laterArchive = fixture.archives[0].deletingLastPathComponent()
      .appendingPathComponent("later.zip")
    try later.write(to: laterArchive)
    XCTAssertEqual(try MergeRefs.run(arguments([laterArchive])).exitStatus, .success)
    let data = try ReviewDataScript.object(inReport: report)
    XCTAssertNotEqual(
      try ReviewDataScript.object(of: firstData)["id"] as? String, data["id"] as? String)
    XCTAssertEqual(Array(try cards(data).keys), [only])
    XCTAssertEqual(
      try FileManager.default.subpathsOfDirectory(
        atPath: report.appendingPathComponent("images").path
      ).filter { $0.hasSuffix(".png") }, ["0/0-after.png"])

    let notes = fixture.destination.deletingLastPathComponent().appendingPathComponent("notes")
    try writeFile(Array("keep me".utf8), to: notes.appendingPathComponent("todo.txt"))
    let refused = try MergeRefs.run(
      ["--dry-run", "--report", notes.path, laterArchive.path, fixture.destination.path])
    XCTAssertEqual(refused.exitStatus, .writeFailed, refused.all)
    XCTAssertTrue(refused.output.contains("is not an older report"), refused.output)
    XCTAssertEqual(
      try String(contentsOf: notes.appendingPathComponent("todo.txt"), encoding: .utf8),
      "keep me")
  }

  /// Peak memory (max RSS, from `/usr/bin/time -v`) of a dry run with a folder report of
  /// `count` updated images of 160×120 noise (incompressible: 77 KB each, over 200 KB with the
  /// difference).
  private func peakMemory(updating count: Int) throws -> Double {
    let root = try makeTemporaryFolder(self)
    let destination = root.appendingPathComponent("package")
    var builder = ArchiveBuilder(generatedAt: day(1))
    for index in 0..<count {
      let old = try noiseImage(seed: index, width: 160, height: 120)
      let path = "Tests/MemoryTests/__References__/image\(index).png"
      try writeFile(try PNGEncoder().encode(old), to: destination.appendingPathComponent(path))
      try builder.add(path, try changingPixels(old, count: 50))
    }
    let archive = root.appendingPathComponent("run.zip")
    try builder.write(to: archive)
    let run = try runProcess(
      "/usr/bin/time",
      [
        "-v", try MergeRefs.binary().path, "--dry-run", "--report",
        root.appendingPathComponent("review").path, archive.path, destination.path,
      ])
    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertTrue(run.output.contains("0 added, \(count) updated"), run.output)
    let line = try XCTUnwrap(
      run.error.split(separator: "\n").first { $0.contains("Maximum resident set size") })
    return try XCTUnwrap(
      Double(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
      / 1024
  }

  func testFolderReport_memory_doesNotGrowWithTheNumberOfChanges() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
      throw XCTSkip("/usr/bin/time is not installed (apt-get install time)")
    }
    if let sanitizer = ProcessInfo.processInfo.environment["REFERENCE_IMAGES_SANITIZER"] {
      // The sanitizers' shadow memory and quarantine grow with every allocation made: the peak
      // would measure them, not merge-refs. The ordinary run of this test measures merge-refs.
      throw XCTSkip("peak memory is not merge-refs' own under the \(sanitizer) sanitizer")
    }
    let few = try peakMemory(updating: 20)
    let many = try peakMemory(updating: 250)
    // 230 more changes carry about 50 MB more images; a report held in memory would grow by
    // that much (more as base64), a streamed one by the plan's few bytes per path.
    XCTAssertLessThan(many - few, 15, "peak \(few) MB for 20 changes, \(many) MB for 250")
  }

  /// Busy screens keep their changes apart: one box per mark that touches no other, however
  /// many, never merged to fit a count.
  func testChangedRegions_manyScatteredMarks_oneBoxEachCoveringItsMark() throws {
    var image = try RGBAImage(width: 512, height: 512, color: RGBAColor(red: 9, green: 9, blue: 9))
    var marks: [(Int, Int)] = []
    for y in stride(from: 5, to: 512, by: 40) {
      for x in stride(from: 7, to: 512, by: 40) { marks.append((x, y)) }
    }
    image.withUnsafeMutablePixelBytes { bytes in
      for (x, y) in marks {
        bytes.storeBytes(
          of: DifferenceColor.differing, toByteOffset: (y * 512 + x) * 4, as: UInt32.self)
      }
    }
    let boxes = ChangedRegions.boxes(in: image)
    XCTAssertGreaterThan(marks.count, 64)
    XCTAssertEqual(boxes.count, marks.count)
    for (x, y) in marks {
      XCTAssertEqual(
        boxes.filter { $0[0] <= x && x < $0[0] + $0[2] && $0[1] <= y && y < $0[1] + $0[3] }.count,
        1, "(\(x), \(y)) is in one box")
    }
    XCTAssertEqual(
      ChangedRegions.boxes(in: try RGBAImage(width: 8, height: 8, color: .clear)), [])
  }
}
