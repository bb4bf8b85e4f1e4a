import Foundation
import ReferenceArchive
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// An IMAGE_GENERATION_OUTPUT folder given as a source: its archives, and the staging folders of
/// crashed runs, each become a source; nothing lands under `.staging/`.
final class OutputFolderSourceTests: XCTestCase {
  func testExpand_outputFolderWithArchiveAndStaging_yieldsEachAsASource() throws {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "refimg-output-\(UUID().uuidString)")
    addTeardownBlock { try? FileManager.default.removeItem(at: output) }
    let run = output.appendingPathComponent(".staging/ReferenceImages-crashed")
    let image = run.appendingPathComponent("Tests/A/__References__/T/one.png")
    try FileManager.default.createDirectory(
      at: image.deletingLastPathComponent(), withIntermediateDirectories: true)
    let png = try PNGEncoder().encode(try RGBAImage(width: 2, height: 2, color: .red))
    try Data(png).write(to: image)
    try ZipWriter().write(
      [.init(path: "Tests/A/__References__/T/two.png", contents: .bytes(png))],
      to: output.appendingPathComponent("ReferenceImages-a.zip"))

    let sources = try MergeSource.expand(output.path)

    XCTAssertEqual(
      sources.map(\.description),
      [output.appendingPathComponent("ReferenceImages-a.zip").path, run.path + "/"])
  }

  func testExpand_onlyAStagingFolder_isNotOneSourceWithStagingPaths() throws {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "refimg-output-\(UUID().uuidString)")
    addTeardownBlock { try? FileManager.default.removeItem(at: output) }
    let run = output.appendingPathComponent(".staging/ReferenceImages-crashed")
    let image = run.appendingPathComponent("Tests/A/__References__/T/one.png")
    try FileManager.default.createDirectory(
      at: image.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(try PNGEncoder().encode(try RGBAImage(width: 2, height: 2, color: .red))).write(
      to: image)

    XCTAssertEqual(try MergeSource.expand(output.path).map(\.description), [run.path + "/"])
  }
}
