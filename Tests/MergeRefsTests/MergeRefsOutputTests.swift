import Foundation
import ReferenceContracts
import ReferenceImageCore
import ReferenceMerge
import XCTest

/// What `merge-refs` prints: one line for the sources unless `--verbose`, the orphan warning
/// only where orphans could apply, and a prune command that works when pasted.
final class MergeRefsOutputTests: XCTestCase {
  private var merge: MergeScenario!
  private var root: URL { merge.root }
  private var package: URL { merge.destination }
  private let folder = "Tests/ChartTests/__References__/Pie"

  override func setUpWithError() throws {
    merge = try MergeScenario(self, folder: folder)
  }

  /// An archive of a finished run of a whole XCTest bundle holding `images` images.
  private func archive(
    _ name: String, images: Int, seed: Int = 1, mode: String = "all",
    coverage: ArchiveManifest.Coverage.Scope = .wholeBundle
  ) throws -> URL {
    try merge.archive(name, pid: Int32(1000 + seed)) {
      $0.mode = mode
      $0.coverage = .init(scope: coverage, arguments: coverage == .wholeBundle ? [] : ["A.b"])
      for index in 0..<images {
        try $0.add(self.merge.path("image\(index)"), try noiseImage(seed: seed + index))
      }
    }
  }

  private func lines(_ output: String) -> [Substring] {
    output.split(separator: "\n")
  }

  // MARK: Sources

  func testSources_manyArchives_oneLineCountingThem() throws {
    let sources = try [
      archive("a.zip", images: 2), archive("b.zip", images: 0, seed: 5),
      archive("c.zip", images: 0, seed: 6),
    ]

    let result = try MergeRefs.run(sources.map(\.path) + [package.path])

    XCTAssertEqual(result.exitStatus, .success, result.all)
    XCTAssertEqual(
      lines(result.output),
      [
        "3 sources: 2 images in 1 of them (--verbose lists each)", "added:",
        "  \(folder)/image0.png", "  \(folder)/image1.png",
        "2 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused",
      ], result.all)
  }

  func testSources_verbose_listsEachWithItsImagesAndWorker() throws {
    let sources = try [archive("a.zip", images: 2), archive("b.zip", images: 0, seed: 5)]

    let result = try MergeRefs.run(["--verbose"] + sources.map(\.path) + [package.path])

    XCTAssertEqual(result.exitStatus, .success, result.all)
    assertWholeOutput(
      result.output,
      """
      sources (2):
        \(sources[0].path): 2 images, ci-host pid 1001
        \(sources[1].path): 0 images, ci-host pid 1005
      added:
        \(folder)/image0.png
        \(folder)/image1.png
      2 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused

      """)
  }

  // MARK: Orphans

  func testOrphanWarning_verifyOrMissingOrFailedRuns_neverPrinted() throws {
    for mode in ["verify", "missing", "failed"] {
      let source = try archive("\(mode).zip", images: 1, mode: mode, coverage: .selectedTests)

      let result = try MergeRefs.run(["--dry-run", source.path, package.path])

      XCTAssertEqual(result.exitStatus, .success, result.all)
      XCTAssertFalse(
        result.output.contains("orphans were not looked for"), "mode \(mode): \(result.all)")
    }
  }

  func testOrphanWarning_modeAllRunOfSelectedTests_saysWhyAndHowToFindThem() throws {
    let source = try archive("all.zip", images: 1, coverage: .selectedTests)

    let result = try MergeRefs.run(["--dry-run", source.path, package.path])

    XCTAssertEqual(result.exitStatus, .success, result.all)
    assertWholeOutput(
      result.output,
      """
      1 source: 1 image
      added:
        \(folder)/image0.png
      warning: orphans were not looked for: 1 run ran selected tests only (first: A.b), as a \
      --filter or the one-test workers of `swift test --parallel` do; to find orphans, run every \
      test in one `swift test` process, or prove the run with `reference-shards run` and \
      `merge-refs --require-shards`
      1 added, 0 updated, 0 unchanged, 0 conflicts, 0 orphans, 0 refused (dry run: nothing written)

      """)
  }

  func testOrphans_foundWithoutPrune_printTheCommandThatPrunesThem_andItWorksWhenPasted() throws {
    let orphan = package.appendingPathComponent("\(folder)/old one.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 90)), to: orphan)
    _ = try archive("run 1.zip", images: 1)
    let binary = try MergeRefs.binary().path

    // Typed in the package root, with the archive relative to it.
    let first = try runProcess(
      binary, ["--on-conflict", "newest", "../run 1.zip", "."], in: package)

    XCTAssertEqual(first.exitStatus, .success, first.all)
    XCTAssertTrue(FileManager.default.fileExists(atPath: orphan.path), "pruned without --prune")
    let prefix = "to delete the orphans: "
    let line = try XCTUnwrap(
      lines(first.output).first { $0.hasPrefix(prefix) }, "no prune command: \(first.all)")
    let command = String(line.dropFirst(prefix.count))
    XCTAssertEqual(command, "\(binary) --on-conflict newest --prune '../run 1.zip' .")

    let pasted = try runProcess("/bin/sh", ["-c", command], in: package)

    XCTAssertEqual(pasted.exitStatus, .success, pasted.all)
    XCTAssertFalse(FileManager.default.fileExists(atPath: orphan.path), pasted.all)
    // The prune command is not printed again.
    assertWholeOutput(
      pasted.output,
      """
      1 source: 1 image
      orphans (no test produced or verified them):
        \(folder)/old one.png
      0 added, 0 updated, 1 unchanged, 0 conflicts, 1 orphans (1 pruned), 0 refused

      """)
  }

  /// Run as `swift run merge-refs` runs it (the build under the package's own `.build`), the
  /// printed command is `swift run merge-refs …`, which stays right when the build path moves.
  func testOrphans_builtInThisPackage_theCommandIsSwiftRun() throws {
    let orphan = package.appendingPathComponent("\(folder)/old.png")
    try writeFile(try PNGEncoder().encode(try noiseImage(seed: 90)), to: orphan)
    _ = try archive("run 1.zip", images: 1)
    let build = package.appendingPathComponent(".build/debug")
    try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
    let linked = build.appendingPathComponent("merge-refs")
    try FileManager.default.createSymbolicLink(
      atPath: linked.path, withDestinationPath: try MergeRefs.binary().path)

    let run = try runProcess(linked.path, ["../run 1.zip", "."], in: package)

    XCTAssertEqual(run.exitStatus, .success, run.all)
    XCTAssertTrue(
      run.output.contains("to delete the orphans: swift run merge-refs --prune '../run 1.zip' .\n"),
      run.all)
  }

  func testOrphans_json_carryThePruneCommand() throws {
    try writeFile(
      try PNGEncoder().encode(try noiseImage(seed: 90)),
      to: package.appendingPathComponent("\(folder)/old.png"))
    let source = try archive("run.zip", images: 1)

    let result = try MergeRefs.run(["--json", "--dry-run", source.path, package.path])

    let json = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    let binary = try MergeRefs.binary().path
    XCTAssertEqual(
      json["pruneCommand"] as? String,
      "\(binary) --prune \(source.path) '\(package.path)'", result.all)
    XCTAssertEqual(json["orphans"] as? Int, 1)
  }
}
