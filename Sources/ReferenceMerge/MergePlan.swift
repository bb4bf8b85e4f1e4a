import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// What `merge-refs` will do (or did) for every destination path, decided by content alone: the
/// finished verdict. `MergePlanner` makes it whole, with every input (`--include` and its
/// approvals, `--require-shards`' proof, skipped tests) already applied; applying, the summary,
/// `--json`, the job summary, the annotations and the review only read it.
public struct MergePlan: Sendable {
  /// One source's candidate image for a path.
  public struct Candidate: Sendable, Hashable {
    /// Index into `inventories`.
    public var sourceIndex: Int
    /// The image's hashes and size.
    public var image: SourceInventory.Image
  }

  /// The decision for one path.
  public enum Outcome: String, Sendable, Codable, CaseIterable {
    /// No file at the destination: the image will be written.
    case added
    /// The destination's pixels differ: it will be replaced.
    case updated
    /// The destination has the same pixels (maybe other bytes): it is left untouched.
    case unchanged
    /// Sources disagree and `--on-conflict fail` is in force: nothing will be written at all.
    case conflict
    /// A reference no complete run produced or verified; deleted only with `--prune`.
    case orphan
    /// A variant file (`ReferenceVariants`) whose variant's render now matches what the rest
    /// of its chain gives: not needed any more; deleted only with `--prune`.
    case redundant
    /// Replicated runs of one test rendered different pixels for the path: the render is not
    /// deterministic, so it is never written and the reference stays as it is.
    case unstable
  }

  /// A source that could not be used, and why.
  public struct BadSource: Sendable {
    /// The source.
    public var source: MergeSource
    /// The error.
    public var error: MergeError
  }

  /// A render that a later run on the same host superseded: that run used the path again
  /// (rendered it again, or compared and passed), so this render never lands.
  public struct Superseded: Sendable, Equatable {
    /// The package-relative path.
    public var path: String
    /// The test that rendered it, when the manifest names it.
    public var test: String?
    /// The source that holds the superseded render.
    public var source: String
    /// Whether the later run rendered the path again (otherwise it compared and passed, or
    /// failed without keeping a render).
    public var laterRunRenderedAgain: Bool
    /// When the later run's first process started.
    public var laterRunStart: Date
  }

  /// A reference path two tests use.
  public struct AbandonedFolder: Codable, Sendable, Equatable {
    /// The folder, relative to the package root.
    public var path: String
    /// How many orphans it holds.
    public var orphans: Int
    /// The folder this merge adds the same pixels to, when every orphan's pixels are there.
    public var movedTo: String?
    /// Whether `movedTo` does not exist yet, so that `git mv` of this folder renames it
    /// (rather than moving it inside).
    public var movable: Bool = false
  }

  /// A path two tests use: nothing lands there.
  public struct SharedReference: Sendable, Equatable {
    /// The package-relative path.
    public var path: String
    /// Each test with its assertion's place and what it did, sorted.
    public var owners: [String]
  }

  /// The destination root.
  public internal(set) var destination: URL
  /// The sources that were read.
  public internal(set) var inventories: [SourceInventory]
  /// Sources refused as corrupt or hostile.
  public internal(set) var badSources: [BadSource]
  /// Destination paths that cannot be written safely (a symbolic link on the way).
  public internal(set) var destinationProblems: [MergeError]
  /// Updated paths whose destination file is a Git LFS pointer, not an image: never written.
  public internal(set) var gitLFSPointers: [String] = []
  /// Paths a run recorded unchanged (its render equalled the reference it found, so it archived
  /// nothing) whose destination file has since changed or gone: the pixels exist nowhere, so
  /// the merge refuses these paths (`MergeProblem.unarchivedImageChanged`) rather than lose them.
  public internal(set) var unarchivedChanged: [String] = []
  /// A reference that is not what a run compared its render with.
  public struct ReferenceChange: Sendable, Equatable {
    /// The package-relative path.
    public var path: String
    /// The pixel digest of the reference the run compared with; nil when there was none.
    public var compared: SHA256Digest?
    /// The pixel digest of the reference now; nil when there is none.
    public var now: SHA256Digest?
  }

  /// Paths whose render a run kept because its comparison failed, and whose reference is no
  /// longer the one it was compared with: landing the render would overwrite pixels nobody
  /// compared it with, so the merge refuses them (`MergeProblem.changedSinceComparison`).
  public internal(set) var changedSinceComparison: [ReferenceChange] = []
  /// Every path's decision, sorted by path.
  public internal(set) var items: ItemList
  /// Whether orphans were looked for (only when every test that could own one ran, skipped
  /// tests' references aside: see `OrphanSearch`).
  public internal(set) var orphanSearchDone: Bool
  /// Why orphans were not looked for, when they were not.
  public internal(set) var orphanSearchRefusal: String?
  /// The tests the runs recorded as skipped, sorted: they verified nothing.
  public internal(set) var skippedTests: [String] = []
  /// The tests the runs recorded as failed, sorted: they may have stopped before they stored
  /// their images.
  public internal(set) var failedTests: [String] = []
  /// References no run produced or verified that skipped or failed tests may own
  /// (`SkippedTestScope`), sorted: never orphans, never pruned.
  public internal(set) var keptForSkippedTests: [String] = []
  /// Reference folders that no test of the runs uses any more, each with its orphans and, when
  /// a folder this merge adds holds the same pixels, that folder (a renamed test file).
  public internal(set) var abandonedFolders: [AbandonedFolder] = []
  /// Renders that a later run superseded, sorted by path: never written.
  public internal(set) var superseded: [Superseded] = []
  /// When each source's run started, by source index, for the sources whose run is not the
  /// newest one merged (`earlierRun(of:)`).
  public internal(set) var earlierRuns: [Int: Date] = [:]
  /// Paths two tests use, sorted by path: never written (`MergeProblem.sharedReference`).
  public internal(set) var sharedReferences: [SharedReference] = []
  /// Changes left out by `--include` (see `IncludeFilter`), and with `--keep-going` approvals
  /// whose pixels are not the ones reviewed: never written, never pruned.
  public internal(set) var skipped: [Item] = []
  /// The destination's variant declaration (`ReferenceVariants.json`), when it has a valid one.
  public internal(set) var variants: ReferenceVariants?
  /// Variant renders (`ReferenceVariants`) equal to what their chain's fallback gives, sorted:
  /// no file is written for them.
  public internal(set) var matchingFallback: [String] = []
  /// Everything found while planning that stops the merge or, with `--keep-going`, is left out,
  /// in the order found; their kinds decide the exit code (`MergeSession.Conclusion`).
  public internal(set) var problems: [MergeProblem] = []
  /// What the summary warns of: incomplete sources, and why orphans were not looked for.
  public internal(set) var warnings: [String] = []

  /// The variant whose file a path is (`VariantPath`); nil for a base path and where the
  /// destination declares no variants.
  public func variant(of path: String) -> String? {
    VariantPath.variant(of: path, declared: variants)
  }

  /// When the run that rendered an item's chosen image started, when that run is not the
  /// newest one merged (an archive an earlier, maybe abandoned, run left); nil otherwise.
  public func earlierRun(of item: Item) -> Date? {
    item.chosen.flatMap { earlierRuns[$0.sourceIndex] }
  }

  /// The item at a path and its position in `items`, by binary search of the items sorted by
  /// path: O(log items × log runs), no table of paths.
  public func item(at path: String) -> (position: Int, item: Item)? {
    MergePlanner.position(of: path, in: items).map { ($0, items[$0]) }
  }

  /// Items with one outcome.
  public func items(_ outcome: Outcome) -> [Item] { items.filter { $0.outcome == outcome } }

  /// Sources that are incomplete.
  public var incompleteSources: [SourceInventory] { inventories.filter(\.isIncomplete) }

  /// Whether applying would change the destination (added, updated or orphans to prune) or
  /// cannot proceed (conflicts).
  public func hasChanges(prune: Bool) -> Bool {
    items.contains {
      $0.outcome.writesFile || $0.outcome == .conflict || $0.outcome == .unstable
        || ($0.outcome.isRemoval && prune)
    }
  }

  /// Counts per outcome.
  public var counts: [Outcome: Int] {
    // Counted, not grouped: grouping copied every item of a merge of many archives.
    items.reduce(into: [:]) { counts, item in counts[item.outcome, default: 0] += 1 }
  }
}

extension MergePlan.Outcome {
  /// Whether the outcome writes the chosen image to the destination: added and updated paths.
  public var writesFile: Bool { self == .added || self == .updated }

  /// Whether the outcome proposes deleting the file: orphans and redundant variants, deleted
  /// only with `--prune`.
  public var isRemoval: Bool { self == .orphan || self == .redundant }
}
