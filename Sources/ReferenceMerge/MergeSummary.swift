import Foundation
import ReferenceContracts

/// The outcome of a `merge-refs` run in a form for people (`text`) and machines (`json`).
// `--json` has one writer, `writeJSON` (streamed, so a summary of any size is never held as
// text); `Decodable` is for the programs that read it, and the tests check that the two agree.
public struct MergeSummary: Decodable, Sendable {
  /// One source line.
  public struct Source: Decodable, Sendable {
    public var name: String
    public var worker: String?
    public var images: Int
    public var complete: Bool
    public var incompleteReason: String?
    /// True for a landed review report's earlier references, which are not a run (neither
    /// complete nor incomplete); absent otherwise.
    public var earlierReferences: Bool?
  }

  /// One changed or conflicting path.
  public struct Change: Decodable, Sendable {
    public var path: String
    /// The path's outcome, typed to the last printed line (its raw value in `--json`).
    public var outcome: MergePlan.Outcome
    /// The sources holding the chosen image, or every rival for conflicts.
    public var sources: [String]
    public var workers: [String]
    public var differingPixels: Int?
    public var resolvedByNewest: Bool
    /// For the render of a failed comparison: the test, the verdict and the assertion's place.
    public var failedComparison: SourceInventory.FailedComparison?
    /// True for an added, updated or orphan path that applying did not reach because a write
    /// failed first (the file is as it was); absent otherwise.
    public var notWritten: Bool?
    /// The variant whose file the path is (`ReferenceVariants`); nil for a base path.
    public var variant: String?
    /// When the run the chosen image comes from started (ISO 8601), when that run is not the
    /// newest one merged: a render an earlier run left; nil otherwise.
    public var earlierRunStart: String?
    /// With a review report, each changed region's kind (an updated path's, or a conflict's
    /// first two rivals'); nil without a report or a comparison.
    public var kinds: [RegionKind]?
  }

  /// What the merge did to one variant's files: `base` for the base references, then each
  /// variant the merge touched, by name.
  public struct VariantCounts: Decodable, Sendable, Equatable {
    public var variant: String
    public var added = 0
    public var updated = 0
    public var unchanged = 0
    public var conflicts = 0
    public var unstable = 0
    public var orphans = 0
    public var redundant = 0
    /// Renders equal to the fallback, for which no file is written.
    public var matchingFallback = 0

    init(variant: String) { self.variant = variant }

    mutating func count(_ outcome: MergePlan.Outcome) {
      switch outcome {
      case .added: added += 1
      case .updated: updated += 1
      case .unchanged: unchanged += 1
      case .conflict: conflicts += 1
      case .unstable: unstable += 1
      case .orphan: orphans += 1
      case .redundant: redundant += 1
      }
    }
  }

  public var destination = ""
  public var dryRun = false
  /// Whether the plan was applied to its end.
  public var applied = false
  /// Files added; when applying failed, only those really written.
  public var added = 0
  /// Files updated; when applying failed, only those really written.
  public var updated = 0
  /// When applying failed: the planned writes and deletions it did not reach (those files
  /// are as they were). 0 otherwise.
  public var notWritten = 0
  public var unchanged = 0
  public var conflicts = 0
  /// Paths whose replicated renders differ: never written.
  public var unstable = 0
  public var orphans = 0
  /// Variant files whose variant now renders what its fallback holds (`ReferenceVariants`):
  /// not needed, deleted only with `--prune`; nil where there are none (in `--json`, the field
  /// is left out then).
  public var redundant: Int?
  /// Variant renders equal to what their chain's fallback gives, for which no file is written;
  /// nil where there are none (left out of `--json` then).
  public var matchingFallback: Int?
  /// The counts per variant, the base first; nil where the destination declares no variants.
  public var variants: [VariantCounts]?
  public var pruned = 0
  /// For a package with a store, what this merge uploaded to it; nil otherwise (and left out
  /// of `--json` then).
  public var store: StoreUploads?
  /// With `--compact`, what compacting the landed references did; nil otherwise (and left out
  /// of `--json` then).
  public var compacted: CompactedReferences?
  public var refused = 0
  public var orphanSearchDone = false
  /// Why orphans were not looked for, when they were not.
  public var orphanSearchRefusal: String?
  /// The tests the runs recorded as skipped: they verified nothing, and their references stay.
  public var skippedTests: [String] = []
  /// The tests the runs recorded as failed: they may have stopped before storing their images,
  /// and their references stay.
  public var failedTests: [String] = []
  /// References no run used that skipped or failed tests may own: kept, never orphans.
  public var keptForSkippedTests: [String] = []
  /// Reference folders no test of the runs uses any more (`MergePlan.AbandonedFolder`).
  public var abandonedFolders: [MergePlan.AbandonedFolder] = []
  public var sources: [Source] = []
  public var changes: ChangeList = []
  /// Changes left out by `--include`, with the outcome they would have had.
  public var skipped: [Change] = []
  /// Renders that a later run superseded: never written.
  public var superseded: [Superseded] = []

  /// A render that a later run superseded (`MergePlan.Superseded`), as the summary shows it.
  public struct Superseded: Decodable, Sendable, Equatable {
    /// The package-relative path.
    public var path: String
    /// The test that rendered it, when known.
    public var test: String?
    /// The source holding the render.
    public var source: String
    /// Whether the later run rendered the path again, rather than compared and passed.
    public var laterRunRenderedAgain: Bool
    /// When the later run started, ISO 8601.
    public var laterRunStart: String
  }
  public var errors: [String] = []
  public var warnings: [String] = []
  /// The review report written, if any.
  public var report: String?
  /// The references the review report found changed the same way (`ChangeGroup`), largest
  /// first; empty without a report.
  public var changeGroups: [ChangeGroup] = []
  /// The command that deletes the orphans found, as the user would type it (the same
  /// sources and destination plus `--prune`); set by the program that ran the merge, and
  /// printed only when orphans were found and not pruned.
  public var pruneCommand: String?

  /// Summarises a plan and, when it was applied, what happened: the run, the counts, the
  /// orphan search, the sources, then the changes, each in a step of its own.
  public init(
    plan: MergePlan, applied: MergeApplier.Result?, dryRun: Bool, errors: [String],
    warnings: [String], report: String? = nil
  ) {
    destination = plan.destination.path
    self.dryRun = dryRun
    self.applied = applied != nil && applied?.failure == nil
    self.report = report
    self.errors = errors
    self.warnings = warnings
    // A failed apply counts what it wrote, never what it meant to write.
    let unreached = Set(applied?.notReached ?? [])
    count(plan, unreached: unreached)
    pruned = applied?.deleted.count ?? 0
    store = applied?.store
    if let compaction = applied?.compaction {
      compacted = CompactedReferences(
        files: compaction.files, compacted: compaction.compacted,
        bytesBefore: compaction.bytesBefore, bytesAfter: compaction.bytesAfter)
      self.warnings += compaction.failures.map { "not compacted, landed as it was: \($0)" }
    }
    describeOrphanSearch(plan)
    listSources(plan)
    listChanges(plan, unreached: unreached)
  }

  /// The counts of outcomes, without the writes a failed apply did not reach.
  private mutating func count(_ plan: MergePlan, unreached: Set<String>) {
    let counts = plan.counts
    let unwritten = { (outcome: MergePlan.Outcome) in
      unreached.isEmpty
        ? 0 : plan.items.count { $0.outcome == outcome && unreached.contains($0.path) }
    }
    added = (counts[.added] ?? 0) - unwritten(.added)
    updated = (counts[.updated] ?? 0) - unwritten(.updated)
    notWritten = unreached.count
    unchanged = counts[.unchanged] ?? 0
    conflicts = counts[.conflict] ?? 0
    unstable = counts[.unstable] ?? 0
    orphans = counts[.orphan] ?? 0
    redundant = counts[.redundant]
    matchingFallback = plan.matchingFallback.isEmpty ? nil : plan.matchingFallback.count
    refused = plan.badSources.count + plan.destinationProblems.count
    variants = plan.variants.map { _ in Self.countByVariant(plan, unreached: unreached) }
  }

  /// Whether orphans were looked for, why not, and what skipped tests keep.
  private mutating func describeOrphanSearch(_ plan: MergePlan) {
    orphanSearchDone = plan.orphanSearchDone
    orphanSearchRefusal = plan.orphanSearchDone ? nil : plan.orphanSearchRefusal
    skippedTests = plan.skippedTests
    failedTests = plan.failedTests
    keptForSkippedTests = plan.keptForSkippedTests
    abandonedFolders = plan.abandonedFolders
  }

  /// A line per source read, then per source refused.
  private mutating func listSources(_ plan: MergePlan) {
    sources =
      plan.inventories.map {
        Source(
          name: $0.source.description, worker: $0.manifest?.worker.summary,
          images: $0.imageCount, complete: $0.isComplete, incompleteReason: $0.incompleteReason,
          earlierReferences: $0.isEarlierReferences ? true : nil)
      }
      + plan.badSources.map {
        Source(
          name: $0.source.description, worker: nil, images: 0, complete: false,
          incompleteReason: "refused: \($0.error)")
      }
  }

  /// The changed paths, those `--include` left out, and the superseded renders.
  private mutating func listChanges(_ plan: MergePlan, unreached: Set<String>) {
    let formatter = ISO8601DateFormatter()
    let change = Self.changeMaker(
      plan, sources: sources, unreached: unreached, formatter: formatter)
    changes = ChangeList(deriving: plan.items, unreached: unreached, make: change)
    skipped = plan.skipped.map(change)
    superseded = plan.superseded.map {
      Superseded(
        path: $0.path, test: $0.test, source: $0.source,
        laterRunRenderedAgain: $0.laterRunRenderedAgain,
        laterRunStart: formatter.string(from: $0.laterRunStart))
    }
  }

  /// Makes a plan item's change. Built once per source and shared by every change it holds: a
  /// merge of many archives otherwise held two new strings per changed path, and two new arrays
  /// for the one holder most changes have. The names and workers are the source list's
  /// strings (`sources`, the inventories' first), not strings of their own, so a change costs
  /// no string per path.
  private static func changeMaker(
    _ plan: MergePlan, sources: [Source], unreached: Set<String>,
    formatter: ISO8601DateFormatter
  ) -> @Sendable (MergePlan.Item) -> Change {
    let earlierRuns = plan.earlierRuns.mapValues { formatter.string(from: $0) }
    let read = sources.prefix(plan.inventories.count)
    let names = read.map(\.name)
    let workers = read.map { $0.worker ?? SourceInventory.unknownWorker }
    let soleName = names.map { [$0] }
    let soleWorker = workers.map { [$0] }
    return { item in
      let holders = item.chosen.map { [$0] } ?? item.rivals
      let sole = holders.count == 1 ? holders[0].sourceIndex : nil
      return Change(
        path: item.path, outcome: item.outcome,
        sources: sole.map { soleName[$0] } ?? holders.map { names[$0.sourceIndex] },
        workers: sole.map { soleWorker[$0] } ?? holders.map { workers[$0.sourceIndex] },
        differingPixels: item.conflictingPixels, resolvedByNewest: item.resolvedByNewest,
        failedComparison: item.chosen?.image.failedComparison,
        notWritten: !unreached.isEmpty && unreached.contains(item.path) ? true : nil,
        variant: plan.variant(of: item.path),
        earlierRunStart: item.chosen.flatMap { earlierRuns[$0.sourceIndex] })
    }
  }

  /// Every item's outcome counted by the variant of its path, as `added` and `updated` are: a
  /// path that a failed apply did not reach is not counted.
  private static func countByVariant(_ plan: MergePlan, unreached: Set<String>)
    -> [VariantCounts]
  {
    let base = RunningVariant.baseName
    var counts: [String: VariantCounts] = [base: VariantCounts(variant: base)]
    for item in plan.items where !unreached.contains(item.path) {
      let variant = plan.variant(of: item.path) ?? base
      counts[variant, default: VariantCounts(variant: variant)].count(item.outcome)
    }
    for path in plan.matchingFallback {
      let variant = plan.variant(of: path) ?? base
      counts[variant, default: VariantCounts(variant: variant)].matchingFallback += 1
    }
    return counts.values.sorted {
      ($0.variant == base ? 0 : 1, $0.variant) < ($1.variant == base ? 0 : 1, $1.variant)
    }
  }
}
