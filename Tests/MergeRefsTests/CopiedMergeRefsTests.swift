import Foundation
import ReferenceImageCore
import TestSupport
import XCTest

/// A `merge-refs` copied away from its build folder (installed on `PATH`, or kept alone in a CI
/// cache) writes the same review reports as the one in the build folder: the page travels
/// inside the program, never in a resource bundle found by its build path.
final class CopiedMergeRefsTests: XCTestCase {
  private let folder = "Tests/ChartTests/__References__/Screens"

  /// The page's files in the repository: every `.html`, `.css` and `.js` file of the folder.
  private func repositoryPage(file: StaticString = #filePath) throws -> [String: Data] {
    let page = URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
      .appendingPathComponent("../../Sources/ReferenceReview/ReviewPage").standardizedFileURL
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: page.path)
    where ["html", "css", "js"].contains((name as NSString).pathExtension) {
      files[name] = try Data(contentsOf: page.appendingPathComponent(name))
    }
    return files
  }

  /// A destination with a reference that changes and an archive that also adds one.
  private func makeMerge(in root: URL) throws -> (archive: URL, destination: URL) {
    let destination = root.appendingPathComponent("package")
    try writeFile(
      try PNGEncoder().encode(try noiseImage(seed: 1, width: 40, height: 30)),
      to: destination.appendingPathComponent("\(folder)/changed.png"))
    var builder = ArchiveBuilder(generatedAt: day(1))
    try builder.add("\(folder)/changed.png", try noiseImage(seed: 2, width: 40, height: 30))
    try builder.add("\(folder)/added.png", try noiseImage(seed: 3, width: 20, height: 10))
    let archive = root.appendingPathComponent("run.zip")
    try builder.write(to: archive)
    return (archive, destination)
  }

  /// The review data with what differs from run to run (the report's id, the time, the
  /// program's own path in the command) set aside.
  private func comparableData(_ script: String) throws -> NSDictionary {
    var data = try ReviewDataScript.object(of: script)
    data["id"] = nil
    data["generatedAt"] = nil
    var command = try XCTUnwrap(data["command"] as? [String])
    XCTAssertTrue(command.first?.hasSuffix("merge-refs") ?? false, "\(command)")
    command[0] = "merge-refs"
    data["command"] = command
    return data as NSDictionary
  }

  /// A single-file page cut into the page around its data, and its data.
  private func splitSingleFile(_ url: URL) throws -> (page: String, script: String) {
    try ReviewDataScript.splitSingleFile(String(contentsOf: url, encoding: .utf8))
  }

  func testCopiedBinary_noBuildFolderBesideIt_writesTheSameReports() throws {
    let root = try makeTemporaryFolder(self)
    let (archive, destination) = try makeMerge(in: root)
    let built = try MergeRefs.binary()
    let binary = try Data(contentsOf: built)
    XCTAssertNil(
      binary.range(of: Data(".resources".utf8)),
      "merge-refs links a resource bundle accessor, which looks for the bundle by its build path")
    let installed = root.appendingPathComponent("bin/merge-refs")
    try FileManager.default.createDirectory(
      at: installed.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: built, to: installed)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(
        atPath: installed.deletingLastPathComponent().path),
      ["merge-refs"], "nothing of the build folder travels with the copy")
    // Run from a folder with no package and no build folder in it or above it.
    let elsewhere = root.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)

    let page = try repositoryPage()
    XCTAssertNotNil(page["index.html"])
    for (program, name) in [(built, "built"), (installed, "copied")] {
      let run = try runProcess(
        program.path,
        [
          "--dry-run", "--report", root.appendingPathComponent("\(name)-review").path,
          archive.path, destination.path,
        ], in: elsewhere)
      XCTAssertEqual(run.exitStatus, .success, "\(name)\n\(run.all)")
      let single = try runProcess(
        program.path,
        [
          "--dry-run", "--report", root.appendingPathComponent("\(name)-review.html").path,
          archive.path, destination.path,
        ], in: elsewhere)
      XCTAssertEqual(single.exitStatus, .success, "\(name)\n\(single.all)")
    }

    let builtFolder = root.appendingPathComponent("built-review")
    let copiedFolder = root.appendingPathComponent("copied-review")
    let listing = try FileManager.default.contentsOfDirectory(atPath: copiedFolder.path).sorted()
    XCTAssertEqual(
      listing, try FileManager.default.contentsOfDirectory(atPath: builtFolder.path).sorted())
    XCTAssertEqual(listing, (page.keys + ["images", "review-data.js"]).sorted())
    for (name, bytes) in page {
      XCTAssertEqual(try Data(contentsOf: copiedFolder.appendingPathComponent(name)), bytes, name)
      XCTAssertEqual(try Data(contentsOf: builtFolder.appendingPathComponent(name)), bytes, name)
    }
    // Each image by its path below `images/` (a folder per 1,000 cards).
    let pngs = { (report: URL) in
      try FileManager.default.subpathsOfDirectory(
        atPath: report.appendingPathComponent("images").path
      ).filter { $0.hasSuffix(".png") }.sorted()
    }
    let images = try pngs(copiedFolder)
    XCTAssertEqual(images, try pngs(builtFolder))
    XCTAssertFalse(images.isEmpty)
    for image in images {
      XCTAssertEqual(
        try Data(contentsOf: copiedFolder.appendingPathComponent("images/\(image)")),
        try Data(contentsOf: builtFolder.appendingPathComponent("images/\(image)")), image)
    }
    XCTAssertEqual(
      try comparableData(ReviewDataScript.text(inReport: copiedFolder)),
      try comparableData(ReviewDataScript.text(inReport: builtFolder)))

    let copiedFile = try splitSingleFile(root.appendingPathComponent("copied-review.html"))
    let builtFile = try splitSingleFile(root.appendingPathComponent("built-review.html"))
    XCTAssertEqual(copiedFile.page, builtFile.page, "the same page around the data")
    for (name, bytes) in page where name != "index.html" {
      let text = try XCTUnwrap(String(data: bytes, encoding: .utf8), name)
      XCTAssertTrue(copiedFile.page.contains(text), "\(name) inlined")
    }
    XCTAssertEqual(try comparableData(copiedFile.script), try comparableData(builtFile.script))
  }
}
