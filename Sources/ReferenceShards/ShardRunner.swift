import Foundation
import ProcessSupport
import ReferenceArchive
import ReferenceContracts

/// `reference-shards run`: lists the built tests, plans, runs exactly this shard's tests in
/// batches of exact filters, and writes the shard's record beside the workers' archives.
public struct ShardRunner: Sendable {
  /// The variable a workflow sets to the shard's index when `--index` is not given.
  public static let indexVariable = "REFERENCE_SHARD_INDEX"
  /// The variable a workflow sets to the number of shards when `--count` is not given.
  public static let countVariable = "REFERENCE_SHARD_COUNT"
  /// The variable a workflow sets to the number of replicas when `--replicas` is not given.
  public static let replicaCountVariable = "REFERENCE_SHARD_REPLICAS"
  /// `IMAGE_GENERATION_OUTPUT`, read by the test processes.
  static let outputVariable = GenerationContract.outputVariable
  /// `IMAGE_GENERATION_SHARD`: tells the test processes to write a manifest even without
  /// images, so every test that ran is on record.
  static let shardVariable = GenerationContract.shardVariable
  /// `IMAGE_GENERATION_REPLICAS`: set to R for the test processes when R > 1, so what they
  /// record says that another shard renders the same images.
  public static let replicasVariable = GenerationContract.replicasVariable
  /// `REFERENCE_SHARDS_PARENT`: the process id of the program that started `reference-shards`
  /// and waits for it (the regenerate-references plugin sets it). When that process is no
  /// longer the parent (it was killed), the shard stops as if interrupted, instead of running
  /// on unseen and holding SwiftPM's lock.
  public static let parentVariable = "REFERENCE_SHARDS_PARENT"

  /// This shard's index, 0-based.
  public var index: Int
  /// The number of shards.
  public var count: Int
  /// How many different shards run each test, from 1 to `count`.
  public var replicas: Int
  /// Durations from an earlier run, or nil to balance by count.
  public var timings: TestTimings?
  /// The shard's output folder: `shard.json` and `archives/`.
  public var output: URL
  /// The commit the tests were built from.
  public var commit: String
  /// Arguments added to every `swift test` command, before the filters.
  public var extraArguments: [String] = []
  /// Arguments that say where the package is built (`--scratch-path DIR`), given to the listing
  /// and to every `swift test` command.
  public var packageArguments: [String] = []
  /// The package's folder.
  public var packageRoot: URL
  /// The `swift` program.
  public var swift = "swift"
  /// Receives progress lines for people.
  public var log: @Sendable (String) -> Void = { _ in }

  /// Creates a runner.
  public init(
    index: Int, count: Int, replicas: Int = 1, timings: TestTimings?, output: URL,
    commit: String, packageRoot: URL
  ) {
    self.index = index
    self.count = count
    self.replicas = replicas
    self.timings = timings
    self.output = output
    self.commit = commit
    self.packageRoot = packageRoot
  }

  /// Lists, plans, runs and records the shard.
  /// - Returns: The record written to `output/shard.json`.
  /// - Throws: `ShardError` for a failed or empty listing, a bad shard or replica count, or a
  ///   write that failed;
  ///   failing tests are not an error (the record's `swiftTestStatus` says so); `.interrupted`
  ///   when this process was interrupted (`Interruption`): the tests were stopped, and no
  ///   record is written, so no merge takes a cut-short shard for a whole one.
  public func run() throws(ShardError) -> ShardRecord {
    guard count >= 1, (0..<count).contains(index) else {
      throw .badShard(index: index, count: count)
    }
    // Refused before the listing, which takes a while: the replica count alone decides.
    guard (1...count).contains(replicas) else {
      throw .badReplicas(replicas: replicas, count: count)
    }
    let variant = try runningVariant()
    let tests = try TestListing.list(
      in: packageRoot, swift: swift, packageArguments: packageArguments)
    let plan = try ShardPlanner(timings: timings).plan(
      tests: tests, count: count, replicas: replicas)
    let planned = plan.shards[index]
    log(Self.describe(plan, index: index, listed: tests.count))
    let archives = output.appendingPathComponent(ShardRecord.archivesFolderName)
    let events = output.appendingPathComponent(ShardRecord.eventsFolderName)
    try prepare(archives: archives, events: events)
    let startedAt = Date()
    var status: Int32 = 0
    if planned.isEmpty {
      log("shard \(index) of \(count) has no tests: nothing to run")
    } else {
      status = try runBatches(planned, archives: archives, events: events)
    }
    if let signal = Interruption.signal { throw .interrupted(signal: signal) }
    let evidence = try ShardEvidence.collect(archives: archives, events: events, log: log)
    let record = ShardRecord(
      commit: commit, index: index, count: count, replicas: replicas,
      listingSHA256: plan.listingSHA256,
      planned: planned, ran: ShardRecord.fold(evidence.runs), startedAt: startedAt,
      endedAt: Date(), swiftTestStatus: status, archives: evidence.archives,
      events: evidence.events, skipped: evidence.skipped, variant: variant)
    let file = output.appendingPathComponent(ShardRecord.fileName)
    do {
      try FileSystem.writeAtomically(Array(record.encoded()), to: file)
    } catch {
      throw .io(path: file.path, reason: "the shard record cannot be written (\(error))")
    }
    log(
      "shard \(index) of \(count): \(record.ran.count) of \(planned.count) planned tests on "
        + "record (\(record.skipped.count) skipped), \(record.archives.count) archives; wrote "
        + file.path)
    return record
  }

  /// The one-line plan summary: "shard 1 of 4: 14 of 55 tests, expected 3.2 s, balance 1.04
  /// (by recorded durations)", and ", each test on 2 shards" inside the parentheses with
  /// replicas.
  public static func describe(_ plan: ShardPlan, index: Int, listed: Int) -> String {
    let replicas = plan.replicas > 1 ? ", each test on \(plan.replicas) shards" : ""
    let basis = (plan.isTimed ? "by recorded durations" : "by test count, no durations") + replicas
    let expected =
      plan.isTimed
      ? "expected \(String(format: "%.1f", plan.expectedSeconds[index])) s, " : ""
    return "shard \(index) of \(plan.count): \(plan.shards[index].count) of \(listed) tests, "
      + "\(expected)balance \(String(format: "%.2f", plan.balance)) (\(basis))"
  }

  /// The variables the shard's test processes get: where to write archives, which shard they
  /// are, and, with replicas, how many shards render the same images.
  /// - Parameter run: The run every shard of the plan belongs to (`IMAGE_GENERATION_RUN`): its
  ///   batches and its shards on other machines are one run, so `merge-refs` names two tests
  ///   that share a reference across them, and no shard supersedes another.
  public static func testEnvironment(
    archives: URL, index: Int, count: Int, replicas: Int, run: String? = nil
  ) -> [String: String] {
    var shard = [outputVariable: archives.path, shardVariable: "\(index)/\(count)"]
    shard[GenerationContract.runVariable] = run
    return replicas > 1 ? shard.merging([replicasVariable: "\(replicas)"]) { $1 } : shard
  }

  /// Starts from an empty archive folder: archives of an earlier run would prove tests this
  /// run did not run.
  /// The variant the shard's tests run as, for its record: nil for the base, a package without
  /// variants, or a platform the declaration does not name (whose tests refuse to generate).
  /// - Throws: `ShardError.variants` for a declaration that cannot be used or an undeclared
  ///   `IMAGE_REFERENCE_VARIANT`, before anything runs.
  private func runningVariant() throws(ShardError) -> String? {
    let requested = ProcessInfo.processInfo.environment[GenerationContract.variantVariable]
    do throws(VariantError) {
      guard let declaration = try ReferenceVariants.read(packageRoot: packageRoot) else {
        return nil
      }
      return try declaration.running(
        requested: requested?.isEmpty == false ? requested : nil,
        platform: ReferencePlatform.current
      ).variant
    } catch {
      throw .variants(error)
    }
  }

  private func prepare(archives: URL, events: URL) throws(ShardError) {
    for stale in [archives, events, output.appendingPathComponent(ShardRecord.fileName)] {
      try? FileManager.default.removeItem(at: stale)
    }
    do {
      try FileSystem.createFolder(archives)
      try FileSystem.createFolder(events)
    } catch {
      throw .io(path: output.path, reason: "the output folder cannot be created (\(error))")
    }
  }

  private func runBatches(_ planned: [String], archives: URL, events: URL) throws(ShardError)
    -> Int32
  {
    let prefix = { (batch: Int) in
      ["/usr/bin/env", swift, "test", "--skip-build", "--parallel"] + packageArguments
        + extraArguments + [
          "--experimental-event-stream-output",
          events.appendingPathComponent("batch-\(batch).jsonl").path,
        ]
    }
    let commands = try TestBatches().commands(tests: planned, prefix: prefix)
    let environment = Self.testEnvironment(
      archives: archives, index: index, count: count, replicas: replicas,
      run: Self.runIdentity(commit: commit, count: count))
    var status: Int32 = 0
    for (number, command) in commands.enumerated() {
      let tests = (command.count - prefix(number).count) / 2
      log("shard \(index) of \(count): batch \(number + 1) of \(commands.count), \(tests) tests")
      let batchStatus: Int32
      do {
        batchStatus = try ChildProcess.run(
          URL(fileURLWithPath: command[0]), Array(command.dropFirst()), in: packageRoot,
          environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
      } catch let error as Interruption.Interrupted {
        throw .interrupted(signal: error.signal)
      } catch {
        throw .io(path: swift, reason: "`swift test` could not be started (\(error))")
      }
      if let signal = Interruption.signal { throw .interrupted(signal: signal) }
      if status == 0 && batchStatus != 0 { status = batchStatus }
    }
    return status
  }

  /// The plan's run: `IMAGE_GENERATION_RUN` when the caller set one, else the commit, the shard
  /// count and the CI run's id and attempt, which every shard of one CI run shares.
  static func runIdentity(
    commit: String, count: Int,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let named = environment[GenerationContract.runVariable], !named.isEmpty { return named }
    let ciRun = ["GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT", "CI_PIPELINE_ID", "BUILDKITE_BUILD_ID"]
      .compactMap { environment[$0] }
    return (["shards", commit, "\(count)"] + ciRun).joined(separator: ":")
  }

  /// The commit to record: `GITHUB_SHA`, else `git rev-parse HEAD` in the package.
  /// - Throws: `ShardError.noCommit` when neither gives one.
  public static func currentCommit(
    in packageRoot: URL, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(ShardError) -> String {
    if let sha = environment["GITHUB_SHA"], !sha.isEmpty { return sha }
    guard
      let result = try? ChildProcess.capture(
        URL(fileURLWithPath: "/usr/bin/env"), ["git", "rev-parse", "HEAD"], in: packageRoot),
      result.status == 0
    else { throw .noCommit }
    let sha = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !sha.isEmpty else { throw .noCommit }
    return sha
  }
}

extension ShardRecord {
  /// Folds runs into one record per test, sorted by name: seconds summed, runs counted.
  public static func fold(_ runs: [ArchiveRun]) -> [Run] {
    var byTest: [String: Run] = [:]
    for run in runs {
      byTest[run.test, default: Run(test: run.test, seconds: 0, count: 0)].seconds += run.seconds
      byTest[run.test]?.count += 1
    }
    return byTest.values.sorted { $0.test < $1.test }
  }
}
