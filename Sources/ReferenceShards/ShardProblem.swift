/// One reason the shards' records do not prove that a plan ran exactly once. Each description
/// names the shards and tests (the first 20, then a count) and what to do.
public enum ShardProblem: Sendable, Equatable, CustomStringConvertible {
  /// No SOURCE held a shard record.
  case noRecords
  /// A SOURCE is not a shard's output folder.
  case notAShardFolder(source: String)
  /// A record could not be read.
  case unreadableRecord(source: String, reason: String)
  /// The shards were built from different commits.
  case differentCommits([String: [Int]])
  /// The shards disagree about the number of shards.
  case differentCounts([Int: [Int]])
  /// The shards disagree about how many different shards run each test.
  case differentReplicas([Int: [Int]])
  /// The shards listed different tests, so their plans are not one plan.
  case differentListings([String: [Int]])
  /// Two records claim the same shard index.
  case duplicateShard(index: Int, sources: [String])
  /// Shards of the plan have no record (their upload is missing).
  case missingShards([Int], count: Int)
  /// Planned tests that a shard which planned them did not run.
  case notRun([String])
  /// Tests that ran more often than planned: more than once in one shard (count 2 or more),
  /// or in more shards than the plan's replica count.
  case ranTwice([String])
  /// Tests a shard ran that its plan did not give it.
  case ranOutsidePlan(shard: Int, tests: [String])
  /// The shards' planned tests together are not the listing they were planned from.
  case planDoesNotCoverListing
  /// An archive's manifest lists tests that belong to no shard of the plan.
  case archiveOutsidePlan(archive: String, tests: [String])
  /// A file the record lists is not in the shard's folder.
  case evidenceMissing(shard: Int, file: String)
  /// A file in the shard's folder that the record does not list.
  case evidenceNotInRecord(shard: Int, file: String)
  /// A file whose bytes are not the ones the record lists.
  case evidenceChanged(shard: Int, file: String, recorded: String, actual: String)
  /// An archive that does not hold the number of images the record lists.
  case imageCountDiffers(shard: Int, file: String, recorded: Int, actual: Int)
  /// A file of the shard's evidence that cannot be read.
  case unreadableEvidence(shard: Int, file: String, reason: String)
  /// A problem of one variant's shards, when the sources hold several variants' shards
  /// (`ReferenceVariants`): each variant's plan is proven apart.
  indirect case inVariant(String, ShardProblem)
  /// A problem of one platform's shards, when a package that declares no variants ran its plan
  /// on several platforms: each platform's plan is proven apart.
  indirect case onPlatform(String, ShardProblem)

  public var description: String {
    // Each platform (or variant) has a shard 0 of its own: a problem of one shard names it by
    // both, "shard 0 of macos".
    if case .onPlatform(let platform, let problem) = self, let (shard, detail) = problem.ofShard {
      return "shard \(shard) of \(platform): \(detail)"
    }
    if case .inVariant(let variant, let problem) = self, let (shard, detail) = problem.ofShard {
      return "shard \(shard) of variant \(variant): \(detail)"
    }
    if let (shard, detail) = ofShard { return "shard \(shard): \(detail)" }
    return switch self {
    case .inVariant(let variant, let problem):
      "variant \(variant): \(problem)"
    case .onPlatform(let platform, let problem):
      "platform \(platform): \(problem)"
    case .noRecords:
      "--require-shards: no SOURCE holds a shard record (\(ShardRecord.fileName)); pass the "
        + "folders `reference-shards run` wrote, one per shard"
    case .notAShardFolder(let source):
      "--require-shards: \(source) is not a shard's output folder (no \(ShardRecord.fileName)); "
        + "pass only the folders `reference-shards run` wrote"
    case .unreadableRecord(let source, let reason):
      "--require-shards: the shard record in \(source) cannot be used: \(reason)"
    case .differentCommits(let commits):
      "the shards come from different commits: "
        + commits.sorted { $0.key < $1.key }.map { "\($0.key) (shards \(list($0.value)))" }
        .joined(separator: ", ") + "; merge the artifacts of one workflow run"
    case .differentCounts(let counts):
      "the shards disagree about the number of shards: "
        + counts.sorted { $0.key < $1.key }.map { "\($0.key) (shards \(list($0.value)))" }
        .joined(separator: ", ") + "; merge the artifacts of one workflow run"
    case .differentReplicas(let replicas):
      "the shards disagree about how many shards run each test (--replicas): "
        + replicas.sorted { $0.key < $1.key }.map { "\($0.key) (shards \(list($0.value)))" }
        .joined(separator: ", ") + "; merge the artifacts of one workflow run"
    case .differentListings(let listings):
      "the shards planned from different test lists (built from different code?): "
        + listings.sorted { $0.key < $1.key }
        .map { "\($0.key.prefix(12)) (shards \(list($0.value)))" }.joined(separator: ", ")
    case .duplicateShard(let index, let sources):
      "shard \(index) has more than one record: \(sources.joined(separator: ", ")); pass each "
        + "shard's folder once"
    case .missingShards(let shards, let count):
      "shard\(shards.count == 1 ? "" : "s") \(list(shards)) of \(count) "
        + "\(shards.count == 1 ? "has" : "have") no record: the upload is missing or the job "
        + "did not finish; rerun the missing shard\(shards.count == 1 ? "" : "s")"
    case .notRun(let tests):
      "\(tests.count) planned test\(tests.count == 1 ? "" : "s") did not run (crashed, or not "
        + "selected): \(names(tests))"
    case .ranTwice(let tests):
      "\(tests.count) test\(tests.count == 1 ? "" : "s") ran more than once: \(names(tests))"
    case .ranOutsidePlan(let shard, let tests):
      "shard \(shard) ran \(tests.count) test\(tests.count == 1 ? "" : "s") its plan did not "
        + "give it: \(names(tests))"
    case .planDoesNotCoverListing:
      "the shards' planned tests together are not the test list they were planned from, each "
        + "test in as many shards as the plan's replicas; the records were edited or come from "
        + "different plans"
    case .archiveOutsidePlan(let archive, let tests):
      "\(archive) lists \(tests.count) test\(tests.count == 1 ? "" : "s") of no shard of the "
        + "plan: \(names(tests)); it comes from another run, leave it out"
    case .evidenceMissing, .evidenceNotInRecord, .evidenceChanged, .imageCountDiffers,
      .unreadableEvidence:
      ""  // Described by `ofShard` above.
    }
  }

  /// The shard a problem of one shard's files is about, and what is wrong, without the shard.
  private var ofShard: (shard: Int, detail: String)? {
    switch self {
    case .evidenceMissing(let shard, let file):
      (
        shard,
        "\(file) is listed in its \(ShardRecord.fileName) but missing from the folder: the "
          + "artifact lost a file; download it again or rerun the shard"
      )
    case .evidenceNotInRecord(let shard, let file):
      (
        shard,
        "\(file) is not listed in its \(ShardRecord.fileName): it comes from another run; remove "
          + "it or rerun the shard"
      )
    case .evidenceChanged(let shard, let file, let recorded, let actual):
      (
        shard,
        "\(file) is not the file its \(ShardRecord.fileName) lists (SHA-256 "
          + "\(actual.prefix(12)), recorded \(recorded.prefix(12))): it was changed or replaced; "
          + "rerun the shard"
      )
    case .imageCountDiffers(let shard, let file, let recorded, let actual):
      (
        shard,
        "\(file) holds \(actual) image\(actual == 1 ? "" : "s"), but its "
          + "\(ShardRecord.fileName) says \(recorded): the record was edited; rerun the shard"
      )
    case .unreadableEvidence(let shard, let file, let reason):
      (shard, "\(file) cannot be read, so the tests it holds are not proven: \(reason)")
    default: nil
    }
  }

  /// At most 20 names, then how many more.
  private func names(_ tests: [String]) -> String {
    let shown = tests.prefix(20).joined(separator: ", ")
    return tests.count > 20 ? "\(shown) and \(tests.count - 20) more" : shown
  }

  private func list(_ shards: [Int]) -> String {
    shards.map(String.init).joined(separator: ", ")
  }
}
