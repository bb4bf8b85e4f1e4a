import Foundation
import ReferenceContracts

/// The proof `merge-refs --require-shards` asks for: the records cover shards 0..<N of one
/// plan (one commit, one N, one replica count R, one listing) and every planned test ran
/// exactly once in each shard that planned it, so R times in all. A value, so the merge decides
/// before writing anything and tests call it directly.
public struct ShardCheck: Sendable {
  /// A record and the SOURCE it came from.
  public struct Source: Sendable {
    /// The SOURCE argument (the shard's folder).
    public var name: String
    /// Its record.
    public var record: ShardRecord
    /// What the folder's files prove, read by the merge; nil to trust the record (tests of the
    /// plan logic alone).
    public var evidence: ShardEvidence?

    /// Creates a source.
    public init(name: String, record: ShardRecord, evidence: ShardEvidence? = nil) {
      self.name = name
      self.record = record
      self.evidence = evidence
    }

    /// The record with what ran and was skipped taken from the evidence, when read.
    public var proven: ShardRecord {
      guard let evidence else { return record }
      var proven = record
      proven.ran = ShardRecord.fold(evidence.runs)
      proven.skipped = evidence.skipped
      return proven
    }
  }

  /// An archive's manifest tests, for archives that ran tests of no shard.
  public struct Archive: Sendable {
    /// The archive, for messages.
    public var name: String
    /// The tests its manifest says ran (`testDurations`).
    public var tests: [String]

    /// Creates an archive entry.
    public init(name: String, tests: [String]) {
      self.name = name
      self.tests = tests
    }
  }

  /// Creates a check.
  public init() {}

  /// Checks the records.
  /// - Parameters:
  ///   - sources: The shard records found in the SOURCE folders.
  ///   - archives: The archives' tests, as their manifests list them.
  /// - Returns: Every problem found; empty when the plan is proven.
  public func problems(sources: [Source], archives: [Archive] = []) -> [ShardProblem] {
    guard !sources.isEmpty else { return [.noRecords] }
    let (groups, named) = Self.plansApart(sources)
    guard groups.count > 1 else { return planProblems(sources: sources, archives: archives) }
    // Each platform ran the whole plan in its own shards: proven apart, each problem naming
    // its variant or platform, so a missing shard of one platform names that platform.
    return groups.sorted { $0.key < $1.key }.flatMap { key, group in
      planProblems(sources: group, archives: []).map { named(key, $0) }
    } + outsidePlan(archives, planned: Set(sources.flatMap(\.record.planned)))
  }

  /// Whether the records hold one plan per platform: none names a variant (a package without
  /// `ReferenceVariants.json`) and they name more than one platform (older records name none).
  public static func provesPlatformsApart(_ records: [ShardRecord]) -> Bool {
    !records.contains { $0.variant != nil } && Set(records.map(\.platform)).count > 1
  }

  /// The records grouped by the plan each proves: by platform where `provesPlatformsApart`,
  /// else by variant (one group for a package without variants), and how a group's problem is
  /// named.
  private static func plansApart(_ sources: [Source])
    -> ([String: [Source]], (String, ShardProblem) -> ShardProblem)
  {
    if provesPlatformsApart(sources.map(\.record)) {
      let groups = Dictionary(grouping: sources) { $0.record.platform ?? "" }
      return (groups, { .onPlatform($0, $1) })
    }
    let groups = Dictionary(grouping: sources) { $0.record.variant ?? RunningVariant.baseName }
    return (groups, { .inVariant($0, $1) })
  }

  /// The problems of one plan's shards.
  private func planProblems(sources: [Source], archives: [Archive]) -> [ShardProblem] {
    var problems = sources.flatMap(evidenceProblems)
    let records = sources.map(\.proven)
    problems += disagreements(records)
    let byIndex = Dictionary(grouping: sources, by: \.record.index)
    for (index, group) in byIndex.sorted(by: { $0.key < $1.key }) where group.count > 1 {
      problems.append(.duplicateShard(index: index, sources: group.map(\.name).sorted()))
    }
    let count = Set(records.map(\.count)).min() ?? 0
    let missing = (0..<max(count, 0)).filter { byIndex[$0] == nil }
    if !missing.isEmpty { problems.append(.missingShards(missing, count: count)) }
    problems += runProblems(records)
    if missing.isEmpty && problems.isEmpty && !coversListing(records) {
      problems.append(.planDoesNotCoverListing)
    }
    return problems + outsidePlan(archives, planned: Set(records.flatMap(\.planned)))
  }

  /// The archives that hold tests no shard planned.
  private func outsidePlan(_ archives: [Archive], planned: Set<String>) -> [ShardProblem] {
    archives.compactMap { archive in
      // Each test looked up in the plan, never the whole plan walked per archive
      // (`Set.subtracting` does): a fleet checks thousands of archives against one plan.
      let outside = Set(archive.tests.filter { !planned.contains($0) }).sorted()
      return outside.isEmpty ? nil : .archiveOutsidePlan(archive: archive.name, tests: outside)
    }
  }

  /// Files of a shard's folder that are not the ones its record lists: a lost, an extra or a
  /// changed archive or event stream, or an archive whose image count was edited.
  private func evidenceProblems(_ source: Source) -> [ShardProblem] {
    guard let evidence = source.evidence else { return [] }
    let shard = source.record.index
    var problems = evidence.unreadable.map {
      ShardProblem.unreadableEvidence(shard: shard, file: $0.file, reason: $0.reason)
    }
    let folders = [
      (ShardRecord.archivesFolderName, source.record.archives, evidence.archives),
      (ShardRecord.eventsFolderName, source.record.events, evidence.events),
    ]
    // Reported above: an unreadable listed file is not missing as well.
    let unreadable = Set(
      evidence.unreadable.map { URL(fileURLWithPath: $0.file).lastPathComponent })
    for (folder, recorded, found) in folders {
      let foundByName = Dictionary(found.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
      let recordedNames = Set(recorded.map(\.name))
      for file in recorded {
        let path = "\(source.name)/\(folder)/\(file.name)"
        guard let actual = foundByName[file.name] else {
          if !unreadable.contains(file.name) {
            problems.append(.evidenceMissing(shard: shard, file: path))
          }
          continue
        }
        if actual.sha256 != file.sha256 {
          problems.append(
            .evidenceChanged(shard: shard, file: path, recorded: file.sha256, actual: actual.sha256)
          )
        } else if let recordedImages = file.images, let images = actual.images,
          recordedImages != images
        {
          problems.append(
            .imageCountDiffers(shard: shard, file: path, recorded: recordedImages, actual: images))
        }
      }
      for file in found where !recordedNames.contains(file.name) {
        problems.append(
          .evidenceNotInRecord(shard: shard, file: "\(source.name)/\(folder)/\(file.name)"))
      }
    }
    return problems
  }

  /// Whether the records' planned tests are the listing they were planned from, each test in
  /// exactly R shards: a test dropped from a shard or added to another is an edited record.
  private func coversListing(_ records: [ShardRecord]) -> Bool {
    let planned = records.flatMap(\.planned)
    let unique = Array(Set(planned)).sorted()
    let shards = Dictionary(planned.map { ($0, 1) }, uniquingKeysWith: +)
    return ShardPlan.listingDigest(unique) == records[0].listingSHA256
      && shards.values.allSatisfy { $0 == records[0].replicas }
  }

  /// Records that are not of one plan: other commits, counts, replica counts or listings.
  private func disagreements(_ records: [ShardRecord]) -> [ShardProblem] {
    var problems: [ShardProblem] = []
    let commits = Dictionary(grouping: records, by: \.commit).mapValues { $0.map(\.index).sorted() }
    if commits.count > 1 { problems.append(.differentCommits(commits)) }
    let counts = Dictionary(grouping: records, by: \.count).mapValues { $0.map(\.index).sorted() }
    if counts.count > 1 { problems.append(.differentCounts(counts)) }
    let replicas = Dictionary(grouping: records, by: \.replicas)
      .mapValues { $0.map(\.index).sorted() }
    if replicas.count > 1 { problems.append(.differentReplicas(replicas)) }
    let listings = Dictionary(grouping: records, by: \.listingSHA256)
      .mapValues { $0.map(\.index).sorted() }
    if listings.count > 1 { problems.append(.differentListings(listings)) }
    return problems
  }

  /// Planned tests that did not run in a shard that planned them, ran more than once in one
  /// shard or more than R times in all, or ran in a shard that did not plan them.
  private func runProblems(_ records: [ShardRecord]) -> [ShardProblem] {
    // With records that disagree about R, the largest, so the disagreement is the problem
    // reported rather than every test "ran twice".
    let replicas = records.map(\.replicas).max() ?? 1
    var runs: [String: Int] = [:]
    var notRun: Set<String> = []
    var twice: Set<String> = []
    var problems: [ShardProblem] = []
    for record in records.sorted(by: { $0.index < $1.index }) {
      let planned = Set(record.planned)
      let ran = Dictionary(record.ran.map { ($0.test, $0.count) }, uniquingKeysWith: +)
      let outside = record.ran.map(\.test).filter { !planned.contains($0) }
      if !outside.isEmpty { problems.append(.ranOutsidePlan(shard: record.index, tests: outside)) }
      notRun.formUnion(planned.filter { ran[$0] == nil })
      twice.formUnion(ran.filter { $0.value > 1 }.keys)
      runs.merge(ran, uniquingKeysWith: +)
    }
    twice.formUnion(runs.filter { $0.value > replicas }.keys)
    if !notRun.isEmpty { problems.append(.notRun(notRun.sorted())) }
    if !twice.isEmpty { problems.append(.ranTwice(twice.sorted())) }
    return problems
  }
}
