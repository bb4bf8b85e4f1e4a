import Foundation
import ReferenceMerge
import TestSupport
import XCTest

final class ReferenceRootMovesTests: XCTestCase {
  private func package(_ files: [String]) throws -> URL {
    let root = try makeTemporaryFolder(self)
    for file in ["Package.swift"] + files {
      let url = root.appendingPathComponent(file)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(file.utf8).write(to: url)
    }
    return root
  }

  func testMoves_aFolderBesideANestedTestFile_intoTheTargetsRoot() throws {
    let root = try package([
      "Tests/ChartTests/BarTests.swift", "Tests/ChartTests/__References__/BarTests/bar.png",
      "Tests/ChartTests/Pies/Round/PieTests.swift",
      "Tests/ChartTests/Pies/Round/__References__/PieTests/pie.png",
      "Tests/ChartTests/Pies/Round/__References__/PieTests/dark/pie.png",
    ])
    let found = ReferenceRootMoves(packageRoot: root)
    XCTAssertEqual(
      found.commands,
      [
        "mkdir -p Tests/ChartTests/__References__/Pies/Round",
        "git mv Tests/ChartTests/Pies/Round/__References__/PieTests "
          + "Tests/ChartTests/__References__/Pies/Round/PieTests",
      ])
    XCTAssertEqual(found.emptied, ["Tests/ChartTests/Pies/Round/__References__"])
    XCTAssertEqual(found.bothHeld, [])
    XCTAssertEqual(found.leftInPlace, [])
  }

  func testMoves_intoAFolderTheRootHolds_fileByFile_leavingWhatBothHold() throws {
    let root = try package([
      "Tests/ChartTests/Pies/PieTests.swift",
      "Tests/ChartTests/Pies/__References__/PieTests/pie.png",
      "Tests/ChartTests/Pies/__References__/PieTests/ring.png",
      "Tests/ChartTests/__References__/Pies/PieTests/pie.png",
    ])
    let found = ReferenceRootMoves(packageRoot: root)
    XCTAssertEqual(
      found.moves,
      [
        .init(
          from: "Tests/ChartTests/Pies/__References__/PieTests/ring.png",
          to: "Tests/ChartTests/__References__/Pies/PieTests/ring.png")
      ])
    XCTAssertEqual(found.bothHeld, ["Tests/ChartTests/Pies/__References__/PieTests/pie.png"])
    XCTAssertEqual(found.emptied, [])
  }

  func testMoves_leaveAFolderNoTestFileBesideItNames() throws {
    let root = try package([
      "Tests/ChartTests/Pies/PieTests.swift",
      "Tests/ChartTests/Pies/__References__/Custom/pie.png",
    ])
    let found = ReferenceRootMoves(packageRoot: root)
    XCTAssertEqual(found.moves, [])
    XCTAssertEqual(found.leftInPlace, ["Tests/ChartTests/Pies/__References__/Custom"])
    XCTAssertEqual(found.emptied, [])
  }

  func testCommands_quoteAPathWithSpaces() throws {
    let root = try package([
      "Tests/ChartTests/My Area/AreaTests.swift",
      "Tests/ChartTests/My Area/__References__/AreaTests/a.png",
    ])
    XCTAssertEqual(
      ReferenceRootMoves(packageRoot: root).commands,
      [
        "mkdir -p 'Tests/ChartTests/__References__/My Area'",
        "git mv 'Tests/ChartTests/My Area/__References__/AreaTests' "
          + "'Tests/ChartTests/__References__/My Area/AreaTests'",
      ])
  }
}
