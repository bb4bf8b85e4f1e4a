import Foundation
import ReferenceShards
import XCTest

/// The CI recipe, `.github/workflows/reference-images.yml`, run job by job on this machine by
/// `Scripts/run-workflow-job` on a fixture package that depends on this checkout: every
/// generate shard, then the merge, each in a fresh checkout of a git repository, with artifacts
/// and caches carried between jobs as files.
final class RecipeEndToEndTests: XCTestCase {
  private static let shardCount = 4
  private let checkout = FixturePackage.checkout

  func testRecipe_twoRunsAndALostShard_everyTestOnceBalancedAndRefused() throws {
    let folder = try makeTemporaryFolder(self)
    let repository = try makeFixtureRepository("RecipeFixture", in: folder)
    let runner = try WorkflowRunner(
      workflow: checkout.appendingPathComponent(".github/workflows/reference-images.yml"),
      repository: repository, root: folder.appendingPathComponent("runner"))

    // Run 1: no timings yet, so the plan balances by count.
    let first = try generate(runner, runID: 1001)
    let merge = try runner.run(job: "merge", runID: 1001)
    XCTAssertEqual(merge.result, "success", merge.output)
    let listing = try listTests(in: runner.workspace)
    assertEveryTestRanOnce(first, listing: listing, run: 1)
    for line in ["**13 added, 0 updated", "4 of 4 shards, 14 tests planned", "(14 exactly once)"] {
      XCTAssertTrue(merge.summary.contains(line), "job summary:\n\(merge.summary)")
    }
    XCTAssertTrue(
      try runner.cacheKeys().contains("reference-timings-1001"), "the merge saves the timings")

    // The recipe's references equal a serial run's, file by file.
    let sharded = try referenceFiles(in: runner.workspace)
    XCTAssertEqual(sharded.count, 13, "\(sharded.keys.sorted())")
    XCTAssertEqual(try serialReferences(in: runner.workspace, scratch: folder), sharded)
    // What the user takes home: the uploaded patch lands the same files in a clean clone.
    XCTAssertEqual(
      try applyUploadedPatch(runner.artifacts(runID: 1001), to: repository, scratch: folder),
      sharded)

    // Run 2: the shards plan with the timings the first merge saved.
    let second = try generate(runner, runID: 1002)
    assertEveryTestRanOnce(second, listing: listing, run: 2)
    let balance = try XCTUnwrap(Self.balance(second))
    print(
      "recipe balance (max/mean of per-shard test seconds): run 1 \(Self.balance(first) ?? 0), "
        + "run 2 \(balance); shards \(second.map(\.seconds)); tests \(listing.count)")
    XCTAssertLessThanOrEqual(balance, 1.2, "per-shard seconds: \(second.map(\.seconds))")

    // A shard whose upload is lost: the merge refuses and writes nothing in the checkout.
    try FileManager.default.removeItem(
      at: runner.artifacts(runID: 1002).appendingPathComponent("reference-shard-1"))
    let refused = try runner.run(job: "merge", runID: 1002)
    XCTAssertEqual(refused.result, "failure", refused.output)
    XCTAssertEqual(refused.outcome(of: "Land the references"), "failure", refused.output)
    let missing = "shard 1 of 4 has no record"
    XCTAssertTrue(refused.output.contains("::error::"), refused.output)
    XCTAssertTrue(refused.output.contains(missing), refused.output)
    XCTAssertTrue(refused.summary.contains(missing), refused.summary)
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

    // The loop closed: with the patch committed, a pull request's verify job passes, and the
    // generation jobs do not run for pull requests.
    try commitUploadedPatch(runner.artifacts(runID: 1001), in: repository)
    let skipped = try runner.run(
      job: "generate", runID: 1003, matrixIndex: 0, event: "pull_request")
    XCTAssertEqual(skipped.result, "skipped", skipped.output)
    let verify = try runner.run(job: "verify", runID: 1003, event: "pull_request")
    XCTAssertEqual(verify.result, "success", verify.output)
    XCTAssertEqual(verify.outcome(of: "Test"), "success", verify.output)
    XCTAssertEqual(verify.outcome(of: "Upload the failed images and their review"), "skipped")
  }

  // MARK: - Jobs

  /// Runs every generate shard of a run and reads the shard records they uploaded.
  private func generate(_ runner: WorkflowRunner, runID: Int) throws -> [ShardRecord] {
    try (0..<Self.shardCount).map { index in
      let job = try runner.run(job: "generate", runID: runID, matrixIndex: index)
      XCTAssertEqual(job.result, "success", "shard \(index) of run \(runID):\n\(job.output)")
      let record = runner.artifacts(runID: runID)
        .appendingPathComponent("reference-shard-\(index)/shard.json")
      return try ShardRecord.read(from: record)
    }
  }

  /// Every test `swift test list` names was planned in exactly one shard and ran exactly once
  /// there, and the shards are 0..<4 of one plan of one commit.
  private func assertEveryTestRanOnce(_ shards: [ShardRecord], listing: [String], run: Int) {
    XCTAssertEqual(shards.map(\.index), Array(0..<Self.shardCount), "run \(run)")
    XCTAssertEqual(Set(shards.map(\.count)), [Self.shardCount], "run \(run)")
    XCTAssertEqual(Set(shards.map(\.commit)).count, 1, "run \(run)")
    XCTAssertEqual(Set(shards.map(\.listingSHA256)).count, 1, "run \(run)")
    let planned = shards.flatMap(\.planned)
    XCTAssertEqual(planned.sorted(), listing, "run \(run): planned once each")
    let ran = shards.flatMap(\.ran)
    XCTAssertEqual(ran.map(\.test).sorted(), listing, "run \(run): ran once each")
    XCTAssertEqual(Set(ran.map(\.count)), [1], "run \(run)")
    for shard in shards {
      XCTAssertEqual(Set(shard.ran.map(\.test)), Set(shard.planned), "run \(run), shard \(shard)")
    }
    print(
      "recipe run \(run): \(ran.count) of \(listing.count) tests ran, "
        + "\(Set(ran.map(\.test)).count) distinct; per shard \(shards.map(\.ran.count))")
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

  /// The references a serial run lands: `IMAGE_GENERATION_MODE=1 swift test`, then merge-refs,
  /// in the same checkout after its references are removed.
  private func serialReferences(in package: URL, scratch: URL) throws -> [String: Data] {
    for path in try referenceFiles(in: package).keys {
      try FileManager.default.removeItem(at: package.appendingPathComponent(path))
    }
    let archives = scratch.appendingPathComponent("serial-archives")
    var environment = cleanEnvironment
    environment["IMAGE_GENERATION_MODE"] = "1"
    environment["IMAGE_GENERATION_OUTPUT"] = archives.path
    let test = try runProcess(
      "/usr/bin/env", ["swift", "test"], in: package, environment: environment, timeout: 900)
    XCTAssertEqual(test.status, 0, test.all)
    let merge = try runProcess(
      try mergeRefsBinary().path, [archives.path, package.path], in: package,
      environment: cleanEnvironment)
    XCTAssertEqual(merge.status, 0, merge.all)
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
