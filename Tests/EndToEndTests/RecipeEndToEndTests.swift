import Foundation
import ReferenceShards
import XCTest

/// The CI recipe, `.github/workflows/reference-images.yml`, run job by job on this machine by
/// `Scripts/run-workflow-job` on a fixture package that depends on this checkout: every
/// generate job (two platforms × two shards), then the merge, each in a fresh checkout of a git
/// repository, with artifacts and caches carried between jobs as files. A variant stands for
/// each platform: the fixture declares linux-arm64 and three of its images render differently
/// as it.
final class RecipeEndToEndTests: XCTestCase {
  /// The recipe's platforms in its matrices' order: each `runs-on:` label, the `runner.arch`
  /// it has, and the variant it stands for on this machine, whatever this machine's own
  /// architecture.
  private static let platforms = [
    (label: "ubuntu-24.04", arch: "X64", variant: "base"),
    (label: "ubuntu-24.04-arm", arch: "ARM64", variant: "linux-arm64"),
  ]
  private static let shardCount = 2
  /// The fixture's images that render differently on linux-arm64: its own files.
  private static let variantFiles: Set<String> = [
    "Tests/PlotTests/__References__/AlphaTests/b@@linux-arm64.png",
    "Tests/PlotTests/__References__/SlowPlotTests/medium@@linux-arm64.png",
    "Tests/SceneTests/__References__/Scenes/param-2@@linux-arm64.png",
  ]
  private let checkout = FixturePackage.checkout

  func testRecipe_twoPlatformsTwoRunsAndALostShard_everyTestOncePerPlatformAndRefused() throws {
    let folder = try makeTemporaryFolder(self)
    let repository = try makeFixtureRepository("RecipeFixture", in: folder)
    let runner = try WorkflowRunner(
      workflow: checkout.appendingPathComponent(".github/workflows/reference-images.yml"),
      repository: repository, root: folder.appendingPathComponent("runner"),
      runnerLabels: Self.platforms.map {
        [$0.label, $0.arch, "IMAGE_REFERENCE_VARIANT=\($0.variant)"]
      })

    // Run 1: no timings yet, so the plan balances by count.
    let first = try generate(runner, runID: 1001)
    let merge = try runner.run(job: "merge", runID: 1001)
    XCTAssertEqual(merge.result, "success", merge.output)
    let listing = try listTests(in: runner.workspace)
    assertEveryTestRanOnce(first, listing: listing, run: 1)
    // The proof per platform: each platform's two shards, named by variant in the table.
    for line in [
      "**16 added, 0 updated", "4 of 4 shards, 28 tests planned", "(28 exactly once)",
      "| 0 | 7 |", "| 1 | 7 |", "| 0 (linux-arm64) | 7 |", "| 1 (linux-arm64) | 7 |",
    ] {
      XCTAssertTrue(merge.summary.contains(line), "job summary lacks \(line):\n\(merge.summary)")
    }
    XCTAssertTrue(
      try runner.cacheKeys().contains("reference-timings-1001"), "the merge saves the timings")
    // One build folder per architecture: the arm64 jobs never restored the x86_64 one.
    let buildKeys = try runner.cacheKeys().filter { $0.hasPrefix("swift-build-") }
    XCTAssertEqual(
      Set(buildKeys.map { $0.split(separator: "-").prefix(4).joined(separator: "-") }),
      ["swift-build-Linux-X64", "swift-build-Linux-ARM64"], "\(buildKeys)")

    // The base files and exactly the variant files of the images that differ, nothing else.
    let sharded = try referenceFiles(in: runner.workspace)
    let variants = sharded.keys.filter { $0.contains("@@") }
    XCTAssertEqual(sharded.count - variants.count, 13, "\(sharded.keys.sorted())")
    XCTAssertEqual(Set(variants), Self.variantFiles, "\(variants.sorted())")
    for variant in variants {
      XCTAssertNotNil(sharded[variant.replacingOccurrences(of: "@@linux-arm64", with: "")])
    }
    // The recipe's references equal a serial run's on each platform merged together.
    XCTAssertEqual(try serialReferences(in: runner.workspace, scratch: folder), sharded)
    // What the user takes home: the uploaded patch lands the same files in a clean clone.
    XCTAssertEqual(
      try applyUploadedPatch(runner.artifacts(runID: 1001), to: repository, scratch: folder),
      sharded)

    // Run 2: the shards plan with the timings the first merge saved.
    let second = try generate(runner, runID: 1002)
    assertEveryTestRanOnce(second, listing: listing, run: 2)
    for (index, platform) in Self.platforms.enumerated() {
      let shards = second[index]
      let balance = try XCTUnwrap(Self.balance(shards))
      print(
        "recipe balance on \(platform.label) (max/mean of per-shard test seconds): run 1 "
          + "\(Self.balance(first[index]) ?? 0), run 2 \(balance); shards "
          + "\(shards.map(\.seconds)); tests \(listing.count)")
      XCTAssertLessThanOrEqual(balance, 1.2, "\(platform.label): \(shards.map(\.seconds))")
    }

    // One platform's shard upload is lost: the merge refuses, naming that platform, and
    // writes nothing in the checkout.
    try FileManager.default.removeItem(
      at: runner.artifacts(runID: 1002).appendingPathComponent(
        "reference-shard-ubuntu-24.04-arm-1"))
    let refused = try runner.run(job: "merge", runID: 1002)
    XCTAssertEqual(refused.result, "failure", refused.output)
    XCTAssertEqual(refused.outcome(of: "Land the references"), "failure", refused.output)
    let missing = "variant linux-arm64: shard 1 of 2 has no record"
    XCTAssertTrue(refused.output.contains("::error::"), refused.output)
    XCTAssertTrue(refused.output.contains(missing), refused.output)
    XCTAssertTrue(refused.summary.contains(missing), refused.summary)
    XCTAssertFalse(refused.summary.contains("variant base:"), refused.summary)
    // No reference landed and no tracked file changed; the untracked files are the downloads
    // and the job's own outputs (merge-refs writes the review page and the timings even when
    // it refuses), and the refused run's timings are not carried to the next run.
    XCTAssertEqual(try referenceFiles(in: runner.workspace), [:])
    let status = try untrackedAndChanged(in: runner.workspace)
    XCTAssertTrue(status.contains("?? artifacts/"), "\(status)")
    XCTAssertTrue(
      Set(status).isSubset(of: [
        "?? artifacts/", "?? reference-review/", "?? reference-timings.json",
      ]),
      "\(status)")
    XCTAssertFalse(try runner.cacheKeys().contains("reference-timings-1002"))

    // The loop closed: with the patch committed, a pull request's verify job passes on every
    // platform, and the generation jobs do not run for pull requests.
    try commitUploadedPatch(runner.artifacts(runID: 1001), in: repository)
    let skipped = try runner.run(
      job: "generate", runID: 1003, matrixIndex: 0, event: "pull_request")
    XCTAssertEqual(skipped.result, "skipped", skipped.output)
    for (index, platform) in Self.platforms.enumerated() {
      let verify = try runner.run(
        job: "verify", runID: 1003, matrixIndex: index, event: "pull_request")
      XCTAssertEqual(verify.result, "success", "\(platform.label):\n\(verify.output)")
      XCTAssertEqual(verify.outcome(of: "Test"), "success", verify.output)
      XCTAssertEqual(verify.outcome(of: "Upload the failed images and their review"), "skipped")
    }
  }

  // MARK: - Jobs

  /// Runs every generate job of a run (platform × shard, in the matrix's order) and reads the
  /// shard records they uploaded, by platform.
  private func generate(_ runner: WorkflowRunner, runID: Int) throws -> [[ShardRecord]] {
    try Self.platforms.enumerated().map { number, platform in
      try (0..<Self.shardCount).map { shard in
        let index = number * Self.shardCount + shard
        let job = try runner.run(job: "generate", runID: runID, matrixIndex: index)
        XCTAssertEqual(
          job.result, "success", "\(platform.label) shard \(shard) of run \(runID):\n\(job.output)")
        let record = try ShardRecord.read(
          from: runner.artifacts(runID: runID)
            .appendingPathComponent("reference-shard-\(platform.label)-\(shard)/shard.json"))
        XCTAssertEqual(record.variant, platform.variant == "base" ? nil : platform.variant)
        return record
      }
    }
  }

  /// On every platform, every test `swift test list` names was planned in exactly one shard
  /// and ran exactly once there, and the shards are 0..<2 of one plan of one commit.
  private func assertEveryTestRanOnce(_ platforms: [[ShardRecord]], listing: [String], run: Int) {
    XCTAssertEqual(platforms.count, Self.platforms.count)
    XCTAssertEqual(Set(platforms.joined().map(\.commit)).count, 1, "run \(run)")
    XCTAssertEqual(Set(platforms.joined().map(\.listingSHA256)).count, 1, "run \(run)")
    for (platform, shards) in zip(Self.platforms, platforms) {
      let label = "run \(run) on \(platform.label)"
      XCTAssertEqual(shards.map(\.index), Array(0..<Self.shardCount), label)
      XCTAssertEqual(Set(shards.map(\.count)), [Self.shardCount], label)
      let planned = shards.flatMap(\.planned)
      XCTAssertEqual(planned.sorted(), listing, "\(label): planned once each")
      let ran = shards.flatMap(\.ran)
      XCTAssertEqual(ran.map(\.test).sorted(), listing, "\(label): ran once each")
      XCTAssertEqual(Set(ran.map(\.count)), [1], label)
      for shard in shards {
        XCTAssertEqual(Set(shard.ran.map(\.test)), Set(shard.planned), "\(label), \(shard)")
      }
      print(
        "recipe \(label): \(ran.count) of \(listing.count) tests ran, "
          + "\(Set(ran.map(\.test)).count) distinct; per shard \(shards.map(\.ran.count))")
    }
  }

  /// The largest shard's test time over the mean; nil when no time was recorded.
  private static func balance(_ shards: [ShardRecord]) -> Double? {
    let seconds = shards.map(\.seconds)
    let mean = seconds.reduce(0, +) / Double(seconds.count)
    return mean > 0 ? (seconds.max() ?? 0) / mean : nil
  }

  // MARK: - The fixture

  /// This process's environment without the generation variables.
  private var cleanEnvironment: [String: String] {
    ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("IMAGE_") }
  }

  /// `swift test list` of the built package, sorted.
  private func listTests(in package: URL) throws -> [String] {
    let list = try runProcess(
      "/usr/bin/env", ["swift", "test", "list", "--skip-build"], in: package,
      environment: cleanEnvironment, timeout: 900)
    XCTAssertEqual(list.status, 0, list.all)
    return list.output.split(separator: "\n").map(String.init).sorted()
  }

  /// The references serial runs land: `IMAGE_GENERATION_MODE=1 swift test` as each platform's
  /// variant, then one merge-refs of both, in the same checkout after its references are
  /// removed.
  private func serialReferences(in package: URL, scratch: URL) throws -> [String: Data] {
    for path in try referenceFiles(in: package).keys {
      try FileManager.default.removeItem(at: package.appendingPathComponent(path))
    }
    var folders: [String] = []
    for platform in Self.platforms {
      let archives = scratch.appendingPathComponent("serial-archives-\(platform.variant)")
      var environment = cleanEnvironment
      environment["IMAGE_GENERATION_MODE"] = "1"
      environment["IMAGE_GENERATION_OUTPUT"] = archives.path
      environment["IMAGE_REFERENCE_VARIANT"] = platform.variant
      let test = try runProcess(
        "/usr/bin/env", ["swift", "test"], in: package, environment: environment, timeout: 900)
      XCTAssertEqual(test.status, 0, "\(platform.variant): \(test.all)")
      folders.append(archives.path)
    }
    // Compacted as the recipe's merge job compacts what it lands.
    let merge = try runProcess(
      try mergeRefsBinary().path, ["--compact"] + folders + [package.path], in: package,
      environment: cleanEnvironment)
    XCTAssertEqual(merge.exitStatus, .success, merge.all)
    return try referenceFiles(in: package)
  }

  /// The references in a fresh clone of the fixture after `git apply` of the patch the merge
  /// job uploaded in `reference-review`.
  private func applyUploadedPatch(_ artifacts: URL, to repository: URL, scratch: URL) throws
    -> [String: Data]
  {
    let clone = scratch.appendingPathComponent("patched")
    let patch = artifacts.appendingPathComponent("reference-review/reference-images.patch")
    for (arguments, folder) in [
      (["clone", "--quiet", repository.path, clone.path], scratch),
      (["apply", patch.path], clone),
    ] {
      let git = try runProcess("/usr/bin/env", ["git"] + arguments, in: folder)
      XCTAssertEqual(git.status, 0, "git \(arguments): \(git.all)")
    }
    return try referenceFiles(in: clone)
  }

  /// Applies the uploaded patch in the fixture repository and commits it, as a user would.
  private func commitUploadedPatch(_ artifacts: URL, in repository: URL) throws {
    let patch = artifacts.appendingPathComponent("reference-review/reference-images.patch")
    for arguments in [
      ["apply", "--index", patch.path],
      [
        "-c", "user.name=fixture", "-c", "user.email=fixture@localhost", "commit", "--quiet",
        "--message", "references",
      ],
    ] {
      let git = try runProcess("/usr/bin/env", ["git"] + arguments, in: repository)
      XCTAssertEqual(git.status, 0, "git \(arguments): \(git.all)")
    }
  }

  /// Every file under a `__References__` folder of the package (outside `.build` and the
  /// downloaded artifacts), by path relative to the package root.
  private func referenceFiles(in package: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let root = package.standardizedFileURL.path + "/"
    guard let walker = FileManager.default.enumerator(atPath: package.path) else { return [:] }
    while let path = walker.nextObject() as? String {
      if path == ".build" || path == "artifacts" || path == ".git" {
        walker.skipDescendants()
        continue
      }
      let url = URL(fileURLWithPath: root + path)
      var isFolder: ObjCBool = false
      if path.contains("__References__/"),
        FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
        !isFolder.boolValue
      {
        files[path] = try Data(contentsOf: url)
      }
    }
    return files
  }

  /// `git status --porcelain` of the checkout: what a job changed or added.
  private func untrackedAndChanged(in package: URL) throws -> [String] {
    let status = try runProcess(
      "/usr/bin/env", ["git", "status", "--porcelain"], in: package, environment: cleanEnvironment)
    XCTAssertEqual(status.status, 0, status.all)
    return status.output.split(separator: "\n").map(String.init)
  }
}
