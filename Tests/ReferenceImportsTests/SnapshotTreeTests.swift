import Foundation
import ReferenceContracts
import TestSupport
import XCTest

/// swift-snapshot-testing's own `__Snapshots__` tree (real iOS and macOS renders, tag 1.19.7 of
/// the machine's copy of that package), collected from two workers.
final class SnapshotTreeTests: XCTestCase {
  private static let package = "/opt/swift-packages/pointfreeco/swift-snapshot-testing.git"
  private static let tree = "Tests/SnapshotTestingTests/__Snapshots__"
  private let changed = "SnapshotTestingTests/testUIView.1.png"
  private let dropped = "SnapshotTestingTests/testAssertMultipleSnapshot.2.png"

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
}
