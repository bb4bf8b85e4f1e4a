import Foundation
import ReferenceContracts
import ReferenceImageCore
import TestSupport
import XCTest

/// swift-snapshot-testing's own `__Snapshots__` tree (real iOS and macOS renders, tag 1.19.7 of
/// the machine's copy of that package), collected from two workers.
final class SnapshotTreeTests: XCTestCase {
  private static let package = "/opt/swift-packages/pointfreeco/swift-snapshot-testing.git"
  private static let tree = "Tests/SnapshotTestingTests/__Snapshots__"
  private let changed = "SnapshotTestingTests/testUIView.1.png"
  private let dropped = "SnapshotTestingTests/testAssertMultipleSnapshot.2.png"
  /// Names that begin with a combining mark: the file system splits `a/\u{301}b` at its `/`,
  /// where a `Character` split sees one character `/\u{301}`.
  private let marked = "Tests/AppTests/__Snapshots__/\u{301}Tests/testTitle.1.png"
  private let markedName = "Tests/AppTests/__Snapshots__/SnapTests/\u{301}name.1.png"

  /// Some of its files, small ones (a debug build decodes the others slowly): unnamed
  /// snapshots counted 1 and 2, named ones, and text snapshots.
  private static let files = [
    "SnapshotTestingTests/testAssertMultipleSnapshot.1.png",
    "SnapshotTestingTests/testAssertMultipleSnapshot.2.png",
    "SnapshotTestingTests/testUIView.1.png", "SnapshotTestingTests/testCALayer.1.png",
    "SnapshotTestingTests/testNSView.1.png", "SnapshotTestingTests/testSKView.ios.png",
    "SwiftTestingTests/testUIImage.pixel.png", "SnapshotTestingTests/testMultipleSnapshots.1.txt",
    "SnapshotTestingTests/testMultipleSnapshots.2.txt", "WaitTests/testWait.1.txt",
  ]

  /// The tree as a worker uploads it: `Tests/SnapshotTestingTests/__Snapshots__/...`.
  private func checkOut(into folder: URL) throws {
    guard FileManager.default.fileExists(atPath: Self.package) else {
      throw XCTSkip("\(Self.package) is absent: swift-snapshot-testing's local copy (STYLE.md)")
    }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let archive = folder.appendingPathComponent("tree.tar")
    let git = try runProcess(
      "/usr/bin/git",
      ["-C", Self.package, "archive", "--format=tar", "-o", archive.path, "1.19.7"]
        + Self.files.map { "\(Self.tree)/\($0)" })
    XCTAssertEqual(git.status, 0, git.all)
    let tar = try runProcess("/usr/bin/tar", ["-xf", archive.path, "-C", folder.path])
    XCTAssertEqual(tar.status, 0, tar.all)
    try FileManager.default.removeItem(at: archive)
  }

  private func path(_ name: String) -> String { "\(Self.tree)/\(name)" }

  func testAWorkersTreeIntoTheSameTreeChangesNothing() throws {
    let folder = try makeTemporaryFolder(self)
    let (worker, destination) = (
      folder.appendingPathComponent("worker-1"), folder.appendingPathComponent("package")
    )
    try checkOut(into: worker)
    try checkOut(into: destination)
    let before = try contents(of: destination)
    let run = try mergeRefs([worker.path, destination.path])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertTrue(run.output.contains("0 added, 0 updated, 7 unchanged, 0 conflicts"), run.all)
    XCTAssertTrue(run.all.contains("3 snapshots that are not PNG, not read"), run.all)
    XCTAssertEqual(try contents(of: destination), before, "unchanged files are untouched")
  }

  /// A worker's tree landed in a package whose references live in a store: each render another
  /// tool wrote (no pixel digest) lands as a pointer whose digests come from its decoded pixels,
  /// its PNG in the store byte for byte; landing it again changes nothing.
  func testAWorkersTreeIntoAPackageWithAStore_landsPointers() throws {
    let folder = try makeTemporaryFolder(self)
    let (worker, destination) = (
      folder.appendingPathComponent("worker-1"), folder.appendingPathComponent("package")
    )
    try checkOut(into: worker)
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    try Data(#"{"version": 1, "store": "folder", "folder": "../store"}"#.utf8).write(
      to: destination.appendingPathComponent("ReferenceStore.json"))
    let run = try mergeRefs([worker.path, destination.path])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertTrue(run.output.contains("7 added, 0 updated, 0 unchanged, 0 conflicts"), run.all)
    XCTAssertTrue(run.output.contains("store: 7 objects uploaded to"), run.all)
    let landed = try contents(of: destination).keys.filter { $0.hasSuffix(".png.ref") }
    XCTAssertEqual(landed.count, 7)
    for pointerPath in landed {
      let original = try Data(
        contentsOf: worker.appendingPathComponent(String(pointerPath.dropLast(4))))
      let pointer = try String(
        contentsOf: destination.appendingPathComponent(pointerPath), encoding: .utf8)
      let object = folder.appendingPathComponent("store")
      let key = SHA256.hex([UInt8](original))
      XCTAssertTrue(pointer.contains("object \(key)\n"), pointer)
      XCTAssertEqual(
        try Data(contentsOf: object.appendingPathComponent("\(key.prefix(2))/\(key)")), original)
    }
    let again = try mergeRefs([worker.path, destination.path])
    XCTAssertTrue(again.output.contains("0 added, 0 updated, 7 unchanged, 0 conflicts"), again.all)
  }

  /// Two workers that disagree about one render: a conflict naming both; one that made one
  /// call fewer: its counters are said to disagree.
  func testWorkersThatDisagreeAreAConflictAndTheirCountersAreNamed() throws {
    let folder = try makeTemporaryFolder(self)
    let workers = ["worker-1", "worker-2"].map { folder.appendingPathComponent($0) }
    let destination = folder.appendingPathComponent("package")
    for worker in workers { try checkOut(into: worker) }
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    try writeFile(try samplePNG(7), to: workers[1].appendingPathComponent(path(changed)))
    try FileManager.default.removeItem(at: workers[1].appendingPathComponent(path(dropped)))

    let run = try mergeRefs(workers.map(\.path) + [destination.path, "--dry-run"])
    XCTAssertEqual(run.status, ExitStatus.conflicts.rawValue, run.all)
    XCTAssertTrue(run.all.contains(path(changed)), run.all)
    for worker in workers { XCTAssertTrue(run.all.contains(worker.path), run.all) }
    XCTAssertTrue(
      run.all.contains(
        "the workers' counters disagree for SnapshotTestingTests/testAssertMultipleSnapshot"),
      run.all)
    XCTAssertEqual(try contents(of: destination), [:])

    // --include lands the paths the workers agree on; the conflict is left out.
    let landed = try mergeRefs(
      workers.map(\.path) + [destination.path, "--include", "**/testAssertMultipleSnapshot.1.png"])
    XCTAssertEqual(landed.status, 0, landed.all)
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: destination.appendingPathComponent(
          path("SnapshotTestingTests/testAssertMultipleSnapshot.1.png")
        ).path))
  }

  /// A tree's files land at their paths as the file system splits them, folder and file names
  /// that begin with a combining mark too.
  func testATreeSplitsPathsAtEachSlashByte() throws {
    let folder = try makeTemporaryFolder(self)
    let (worker, destination) = (
      folder.appendingPathComponent("worker-1"), folder.appendingPathComponent("package")
    )
    try writeFile(try samplePNG(1), to: worker.appendingPathComponent(marked))
    try writeFile(try samplePNG(2), to: worker.appendingPathComponent(markedName))
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)

    let run = try mergeRefs([worker.path, destination.path])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertFalse(run.all.contains("outside __Snapshots__"), run.all)
    XCTAssertEqual(
      try contents(of: destination),
      [marked: Data(try samplePNG(1)), markedName: Data(try samplePNG(2))])
  }

  /// The counters of `SnapTests/\u{301}name` are the test's, not `__Snapshots__/SnapTests/...`.
  func testATreesCountersSplitPathsAtEachSlashByte() throws {
    let folder = try makeTemporaryFolder(self)
    let workers = ["worker-1", "worker-2"].map { folder.appendingPathComponent($0) }
    let destination = folder.appendingPathComponent("package")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    let second = markedName.replacingOccurrences(of: ".1.png", with: ".2.png")
    for worker in workers {
      try writeFile(try samplePNG(2), to: worker.appendingPathComponent(markedName))
    }
    try writeFile(try samplePNG(3), to: workers[0].appendingPathComponent(second))

    let run = try mergeRefs(workers.map(\.path) + [destination.path, "--dry-run"])
    XCTAssertTrue(
      run.all.contains("the workers' counters disagree for SnapTests/\u{301}name:"), run.all)
  }

  /// An attachment lands on the destination's file whose bytes name its test's class folder
  /// and file, not on another class's file of that name.
  func testPlacementSplitsPathsAndTestNamesAtEachSlashByte() throws {
    let folder = try makeTemporaryFolder(self)
    let destination = folder.appendingPathComponent("package")
    let other = "Tests/AppTests/__Snapshots__/OtherTests/testTitle.1.png"
    for path in [marked, markedName, other] {
      try writeFile(try samplePNG(1), to: destination.appendingPathComponent(path))
    }
    let export = folder.appendingPathComponent("export")
    let manifest = """
      [{"testIdentifier": "\u{301}Tests/testTitle()", "attachments": [
        {"exportedFileName": "a.png", "suggestedHumanReadableName": "testTitle.1.png"}]},
       {"testIdentifier": "SnapTests/\u{301}name()", "attachments": [
        {"exportedFileName": "b.png", "suggestedHumanReadableName": "\u{301}name.1.png"}]}]
      """
    try writeFile(Array(manifest.utf8), to: export.appendingPathComponent("manifest.json"))
    try writeFile(try samplePNG(2), to: export.appendingPathComponent("a.png"))
    try writeFile(try samplePNG(3), to: export.appendingPathComponent("b.png"))

    let run = try mergeRefs([export.path, destination.path])
    XCTAssertEqual(run.status, 0, run.all)
    XCTAssertEqual(
      try contents(of: destination),
      [
        marked: Data(try samplePNG(2)), markedName: Data(try samplePNG(3)),
        other: Data(try samplePNG(1)),
      ], run.all)
  }
}
