import Foundation
import ReferenceImageCore
import XCTest

/// A project's first day with nested test folders (`NestedFixture`): render tests three folders
/// below their target, a renderer that writes PNG files, and a non-image test of the same target
/// that always fails. One `exclude: ["__References__"]` covers every reference, and after
/// README's one-time setup (the target's root with a committed `.gitkeep`) no build has a
/// warning of SwiftPM's: not the first one, before any recording, not in a fresh clone, not after
/// the first recording, not when a new folder gets its first render test, not after a folder
/// beside a test file is moved over.
final class NestedFoldersEndToEndTests: XCTestCase {
  private var fixture: FixturePackage!
  private let target = "Tests/TileTests"
  private let hex = "Tests/TileTests/__References__/Geometry/Polygons/Regular/HexTests/hex.png"
  private let ring = "Tests/TileTests/__References__/Geometry/Rings/RingTests/ring.png"
  private let flat = "Tests/TileTests/__References__/FlatTests/flat.png"
  private let fresh = "Tests/TileTests/__References__/Fresh/Deeper/Still/FreshTests/fresh.png"
  private let freshTest = "Tests/TileTests/Fresh/Deeper/Still/FreshTests.swift"

  override func setUpWithError() throws {
    fixture = try FixturePackage.built("NestedFixture")
    for path in [
      "\(target)/__References__", "\(target)/Fresh",
      "\(target)/Geometry/Polygons/Regular/__References__",
      ".git", ".build/reference-images", ".build/reference-review",
    ] {
      try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent(path))
    }
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: fixture.root.appendingPathComponent("\(target)/Fresh"))
  }

  private func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: fixture.root.appendingPathComponent(path).path)
  }

  /// SwiftPM's own warnings of a command's output (`warning: 'nestedfixture': …`); a compiler's
  /// warning starts with the source file's path instead.
  private func swiftPMWarnings(_ output: ProcessOutput) -> [String] {
    output.all.split(separator: "\n").map(String.init).filter { $0.hasPrefix("warning: '") }
  }

  /// README's setup block, made for this fixture's target (`TileTests` for `ChartTests`).
  private func readmeSetup() throws -> [String] {
    let readme = try String(
      contentsOf: FixturePackage.checkout.appendingPathComponent("README.md"), encoding: .utf8)
    let first = "mkdir -p Tests/ChartTests/__References__"
    let start = try XCTUnwrap(readme.range(of: "```sh\n" + first), "README lacks the setup")
    let body = readme[start.upperBound...]
    let end = try XCTUnwrap(body.range(of: "\n```"))
    let lines = (first + body[..<end.lowerBound]).split(separator: "\n").map {
      $0.replacingOccurrences(of: "ChartTests", with: "TileTests")
    }
    XCTAssertEqual(lines.count, 2, "\(lines)")
    return lines
  }

  /// `swift build --build-tests` after a change of `Package.swift`'s date, so that SwiftPM plans
  /// the build again from the manifest (where it warns) as a fresh checkout's first build does,
  /// rather than reusing the plan of the build before.
  private func build(file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
    try FileManager.default.setAttributes(
      [.modificationDate: Date().addingTimeInterval(2)],
      ofItemAtPath: fixture.root.appendingPathComponent("Package.swift").path)
    let build = try fixture.run(["swift", "build", "--build-tests"], environment: [:])
    XCTAssertEqual(build.status, 0, build.all, file: file, line: line)
    return swiftPMWarnings(build)
  }

  func testFirstDay_nestedFolders_oneExclude_noSwiftPMWarning_andAFolderBesideMovesOver() throws {
    // Without README's setup, the excluded root is missing and SwiftPM warns: the control that
    // shows these builds read the warning.
    let unset = try build()
    XCTAssertEqual(unset.count, 1, "\(unset)")
    XCTAssertTrue(unset.first?.contains("Invalid Exclude") ?? false, "\(unset)")

    // README's one-time setup, pasted, and committed: a fresh clone has the root, and the first
    // build before any recording has no warning.
    try git(["init", "--quiet", "--initial-branch=main"], in: fixture.root)
    for line in try readmeSetup() {
      let setup = try fixture.shell(line, environment: [:])
      XCTAssertEqual(setup.status, 0, "\(line)\n\(setup.all)")
    }
    try commitEverything("setup", in: fixture.root)
    let clone = try makeTemporaryFolder(self).appendingPathComponent("clone")
    try git(["clone", "--quiet", fixture.root.path, clone.path], in: fixture.root)
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: clone.appendingPathComponent("\(target)/__References__/.gitkeep").path))
    XCTAssertEqual(try build(), [])

    // The first verify run fails (nothing recorded, and the deliberate failure), naming the
    // nested path; the next build has no warning.
    let verify = try fixture.test([], environment: [:])
    XCTAssertNotEqual(verify.status, 0, verify.all)
    XCTAssertTrue(verify.all.contains(hex), verify.all)
    XCTAssertTrue(verify.all.contains("a deliberate failure"), verify.all)
    XCTAssertEqual(try build(), [])

    // Recording lands every reference in the target's one root, beside the failing test.
    let recorded = try fixture.plugin([])
    XCTAssertEqual(recorded.exitStatus, .success, recorded.all)
    XCTAssertEqual(swiftPMWarnings(recorded), [], recorded.all)
    for path in [hex, ring, flat] { XCTAssertTrue(exists(path), "\(path)\n\(recorded.all)") }
    // The failing neighbour is counted and named, its own output left in the log, and it
    // switches nothing off.
    XCTAssertTrue(
      recorded.output.contains(
        "1 test failed: ArithmeticTests.testAlwaysFails; their output is in the full log: "),
      recorded.all)
    XCTAssertFalse(recorded.all.contains("a deliberate failure"), recorded.all)
    XCTAssertFalse(recorded.all.contains("orphans were not looked for"), recorded.all)
    XCTAssertTrue(recorded.output.contains(", 1 test failed"), recorded.all)
    // The build's own warning is counted with the log's path, not printed.
    XCTAssertTrue(
      recorded.output.contains("1 compiler warning in your package's code"), recorded.all)
    XCTAssertTrue(recorded.output.contains("; full log: "), recorded.all)
    XCTAssertFalse(recorded.all.contains("unusedBorder"), recorded.all)
    XCTAssertEqual(try build(), [])
    let passing = try fixture.test(["--skip", "ArithmeticTests"], environment: [:])
    XCTAssertEqual(passing.status, 0, passing.all)

    // A new folder gets its first render test: no new exclude, no warning.
    let freshFile = fixture.root.appendingPathComponent(freshTest)
    try FileManager.default.createDirectory(
      at: freshFile.deletingLastPathComponent(), withIntermediateDirectories: true)
    try """
    import ReferenceImageTesting
    import XCTest

    final class FreshTests: XCTestCase {
      func testFresh() throws {
        assertImage(try RGBAImage(width: 6, height: 6, color: .white), named: "fresh")
      }
    }
    """.write(to: freshFile, atomically: true, encoding: .utf8)
    XCTAssertEqual(try build(), [])
    let added = try fixture.plugin(["--mode", "missing"])
    XCTAssertEqual(added.exitStatus, .success, added.all)
    XCTAssertEqual(swiftPMWarnings(added), [], added.all)
    XCTAssertTrue(exists(fresh), added.all)
    XCTAssertEqual(try build(), [])

    // The renderer changes: a dry run lands nothing, the run after it lands both files' renders.
    let hexBefore = try Data(contentsOf: fixture.root.appendingPathComponent(hex))
    let review = try fixture.plugin(["--dry-run"], environment: ["TILES_CHANGE": "1"])
    XCTAssertEqual(review.exitStatus, .success, review.all)
    XCTAssertTrue(review.output.contains("  \(hex)"), review.all)
    XCTAssertTrue(review.output.contains("  \(ring)"), review.all)
    XCTAssertEqual(try Data(contentsOf: fixture.root.appendingPathComponent(hex)), hexBefore)
    let landed = try fixture.plugin([], environment: ["TILES_CHANGE": "1"])
    XCTAssertEqual(landed.exitStatus, .success, landed.all)
    XCTAssertNotEqual(try Data(contentsOf: fixture.root.appendingPathComponent(hex)), hexBefore)
    let changed = try fixture.test(
      ["--skip", "ArithmeticTests"], environment: ["TILES_CHANGE": "1"])
    XCTAssertEqual(changed.status, 0, changed.all)

    // Rejected on the page: the restore command puts the earlier hex back from before.zip.
    try "\(hex)\n".write(
      to: fixture.root.appendingPathComponent("reference-restore.txt"), atomically: true,
      encoding: .utf8)
    let restored = try fixture.shell(
      "swift run merge-refs --include-from reference-restore.txt "
        + ".build/reference-review/before.zip .", environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(restored.exitStatus, .success, restored.all)
    XCTAssertEqual(
      try PNGDecoder().decode(try Data(contentsOf: fixture.root.appendingPathComponent(hex))),
      try PNGDecoder().decode(hexBefore), restored.all)
    try FileManager.default.removeItem(
      at: fixture.root.appendingPathComponent("reference-restore.txt"))
    XCTAssertEqual(try fixture.plugin([]).exitStatus, .success)

    // An orphan in a nested folder is found although a test failed, and the printed command
    // prunes it; the failed test's own folder is kept.
    let stale = "Tests/TileTests/__References__/Geometry/Rings/RingTests/stale.png"
    let owned = "Tests/TileTests/__References__/Checks/ArithmeticTests/kept.png"
    for path in [stale, owned] {
      let url = fixture.root.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try FileManager.default.copyItem(at: fixture.root.appendingPathComponent(ring), to: url)
    }
    let found = try fixture.plugin([])
    XCTAssertEqual(found.exitStatus, .success, found.all)
    XCTAssertTrue(found.output.contains("  \(stale)"), found.all)
    let command =
      "swift run merge-refs --require-shards --prune .build/regenerate-references/shards/shard-0 ."
    XCTAssertTrue(found.output.contains("to delete the orphans: \(command)\n"), found.all)
    let pruned = try fixture.shell(command, environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(pruned.exitStatus, .success, pruned.all)
    XCTAssertTrue(pruned.output.contains(" 1 orphans (1 pruned)"), pruned.all)
    XCTAssertFalse(exists(stale), pruned.all)
    XCTAssertTrue(exists(owned), pruned.all)
    XCTAssertTrue(exists("\(target)/__References__/.gitkeep"), "never an orphan\n\(pruned.all)")
    try FileManager.default.removeItem(at: fixture.root.appendingPathComponent(owned))

    // A folder beside a nested test file, as earlier versions recorded it, keeps verifying…
    let besideFolder = "\(target)/Geometry/Polygons/Regular/__References__/HexTests"
    try FileManager.default.createDirectory(
      at: fixture.root.appendingPathComponent(besideFolder).deletingLastPathComponent(),
      withIntermediateDirectories: true)
    try FileManager.default.moveItem(
      at: fixture.root.appendingPathComponent(hex).deletingLastPathComponent(),
      to: fixture.root.appendingPathComponent(besideFolder))
    let beside = try fixture.test(["--filter", "HexTests"], environment: [:])
    XCTAssertEqual(beside.status, 0, beside.all)
    XCTAssertFalse(exists(hex))

    // …until the printed moves, run as the docs show them, bring it into the target's root.
    try commitEverything("first day", in: fixture.root)
    let moved = try fixture.shell(
      "swift run merge-refs --print-moves . | sh", environment: ["PATH": try swiftShimPath()])
    XCTAssertEqual(moved.status, 0, moved.all)
    XCTAssertTrue(moved.error.contains("1 move into the targets' __References__ roots"), moved.all)
    XCTAssertTrue(
      moved.error.contains(
        "remove these entries, relative to their target: "
          + "\"Geometry/Polygons/Regular/__References__\""), moved.all)
    XCTAssertTrue(exists(hex), moved.all)
    XCTAssertFalse(exists(besideFolder), moved.all)
    let status = try runProcess(
      "/usr/bin/env", ["git", "status", "--porcelain"], in: fixture.root)
    XCTAssertTrue(
      status.output.contains("R  \(besideFolder)/hex.png -> \(hex)"), status.all)
    let after = try fixture.test(["--filter", "HexTests"], environment: [:])
    XCTAssertEqual(after.status, 0, after.all)
    XCTAssertEqual(try build(), [])

    // A package that skipped the setup: the first verify run that misses a reference makes the
    // root with its `.gitkeep` for git status to show, and the next build has no warning.
    try FileManager.default.removeItem(
      at: fixture.root.appendingPathComponent("\(target)/__References__"))
    let skipped = try fixture.test(["--filter", "FlatTests"], environment: [:])
    XCTAssertNotEqual(skipped.status, 0, skipped.all)
    XCTAssertTrue(exists("\(target)/__References__/.gitkeep"), skipped.all)
    XCTAssertEqual(try build(), [])
  }
}
