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

  /// One destination path.
  ///
  /// Most items chose an image the plan read: they hold its source's list (`SourceImages`),
  /// which the source's items share, and its index there, not a copy of it; the few that have
  /// more (an update's replaced digest, rivals and the like) hold an object with the list and
  /// the rest. An item costs 16 bytes (a test asserts it), where holding its image would cost
  /// a merge of many archives about 192 bytes an image beside the sources' own lists; an
  /// update's replaced digest costs 56 more, where `Details` would cost about 220. The plan
  /// keeps its items as runs of items alike (`ItemList`), so a fleet's merge, whose items are
  /// mostly alike, pays far less than 16 bytes an item. The merge's peak memory at fleet size
  /// is in `Documentation/Benchmarks.md` ("Fleet").
  public struct Item: Sendable {
    /// The chosen image's source's list, and what else the item has.
    private(set) var anchor: Anchor
    /// The chosen image's index in its source's list.
    let imageIndex: Int32
    /// The decision.
    public var outcome: Outcome

    /// An item from its parts, as `ItemList` keeps them.
    init(anchor: Anchor, imageIndex: Int32, outcome: Outcome) {
      self.anchor = anchor
      self.imageIndex = imageIndex
      self.outcome = outcome
    }

    /// An item from values: orphans, conflicts, unstable renders, redundant variants.
    init(
      path: String, outcome: Outcome, chosen: Candidate?, rivals: [Candidate],
      conflictingPixels: Int?, resolvedByNewest: Bool
    ) {
      imageIndex = 0
      self.outcome = outcome
      anchor = .details(
        Details(
          list: nil, path: path, chosen: chosen, rivals: rivals,
          conflictingPixels: conflictingPixels, resolvedByNewest: resolvedByNewest,
          replaced: nil))
    }

    /// An item whose chosen image is the one at `place` in `read`.
    init(
      outcome: Outcome, read: ReadImages, place: Place, rivals: [Candidate],
      resolvedByNewest: Bool, replaced: SHA256Digest?
    ) {
      let list = read.lists[Int(place.source)]
      imageIndex = place.image
      self.outcome = outcome
      if !rivals.isEmpty || resolvedByNewest {
        anchor = .details(
          Details(
            list: list, path: nil, chosen: nil, rivals: rivals, conflictingPixels: nil,
            resolvedByNewest: resolvedByNewest, replaced: replaced))
      } else if let replaced, !list.images.path(at: Int(place.image)).keepReplaced(replaced) {
        anchor = .replaced(Replaced(list: list, digest: replaced))
      } else {
        // An update's replaced digest, when there is one, is kept beside its image's record.
        anchor = .image(list)
      }
    }

    /// The chosen image's source's list, or nil for an item built from values.
    private var list: SourceImages? {
      switch anchor {
      case .image(let list): list
      case .replaced(let replaced): replaced.list
      case .details(let details): details.list
      }
    }

    /// The chosen image's source's list, for an item that holds nothing else (`Anchor.image`).
    var imageList: SourceImages? {
      if case .image(let list) = anchor { list } else { nil }
    }

    /// The details, when the item has more than a replaced digest.
    private var details: Details? {
      if case .details(let details) = anchor { details } else { nil }
    }

    /// The package-relative path.
    public var path: String { pooledPath?.string ?? details?.path ?? "" }
    /// The chosen image's path, for an item that holds its place.
    private var pooledPath: PooledPath? { list?.images.path(at: Int(imageIndex)) }
    /// The path's order against a sought one (as `path` compares with it), without making
    /// the path's string when it is pooled.
    func pathOrder(to sought: SoughtPath) -> Int {
      guard let pooledPath else { return sought.order(of: details?.path ?? "") }
      return pooledPath.order(to: sought)
    }
    /// Whether this item's path sorts before another's.
    func pathPrecedes(_ other: Item) -> Bool {
      if let pooledPath, let other = other.pooledPath { return pooledPath < other }
      return path < other.path
    }
    /// The candidate that will be written (added, updated), or that matched (unchanged).
    public var chosen: Candidate? {
      guard let list else { return details?.chosen }
      return Candidate(sourceIndex: Int(list.source), image: list.images[Int(imageIndex)])
    }
    /// Every candidate with distinct pixels, for conflicts (newest first).
    public var rivals: [Candidate] { details?.rivals ?? [] }
    /// For conflicts: how many pixels differ between the first two rivals (nil if sizes
    /// differ).
    public var conflictingPixels: Int? {
      get { details?.conflictingPixels }
      set {
        anchor = .details(
          Details(details, list: list, conflictingPixels: newValue, replaced: replaced))
      }
    }
    /// Whether the sources disagreed and `--on-conflict newest` picked one.
    public var resolvedByNewest: Bool { details?.resolvedByNewest ?? false }
    /// The pixel digest of the destination file the decision was made on: the chosen image's
    /// for unchanged paths, the file's own for updated ones (nil when it holds no image, such
    /// as a Git LFS pointer), nil for added paths, conflicts, unstable renders and orphans.
    /// Approvals are checked against it, and the review shows it as the "before" pixels.
    public var before: SHA256Digest? {
      switch outcome {
      case .unchanged: after
      case .updated: replaced
      case .added, .conflict, .orphan, .unstable, .redundant: nil
      }
    }
    /// For updated paths, the destination's pixels (see `before`).
    private var replaced: SHA256Digest? {
      switch anchor {
      case .image(let list):
        outcome == .updated ? list.images.path(at: Int(imageIndex)).replaced : nil
      case .replaced(let replaced): replaced.digest
      case .details(let details): details.replaced
      }
    }
    /// The pixel digest the decision lands or keeps: the chosen image's.
    public var after: SHA256Digest? {
      guard let list else { return details?.chosen?.image.pixelSHA256 }
      return list.images.path(at: Int(imageIndex)).record.pixels
    }
  }

  /// An item's chosen image's source's list, and what else it has, by reference: one word in
  /// the item.
  enum Anchor: Sendable {
    /// The usual added or unchanged path.
    case image(SourceImages)
    /// An updated path with nothing else: the destination's pixel digest.
    case replaced(Replaced)
    /// Everything else.
    case details(Details)
  }

  /// An update's chosen image's source's list and its replaced pixel digest (`Item.before`).
  final class Replaced: Sendable {
    let list: SourceImages
    let digest: SHA256Digest

    init(list: SourceImages, digest: SHA256Digest) {
      self.list = list
      self.digest = digest
    }
  }

  /// What few items have beyond their chosen image, shared by reference.
  final class Details: Sendable {
    /// The chosen image's source's list, or nil for an item built from values.
    let list: SourceImages?
    /// The path of an item built from values.
    let path: String?
    /// The chosen candidate of an item built from values.
    let chosen: Candidate?
    let rivals: [Candidate]
    let conflictingPixels: Int?
    let resolvedByNewest: Bool
    /// For updated paths, the destination's pixels (see `Item.before`).
    let replaced: SHA256Digest?

    init(
      list: SourceImages?, path: String?, chosen: Candidate?, rivals: [Candidate],
      conflictingPixels: Int?, resolvedByNewest: Bool, replaced: SHA256Digest?
    ) {
      self.list = list
      self.path = path
      self.chosen = chosen
      self.rivals = rivals
      self.conflictingPixels = conflictingPixels
      self.resolvedByNewest = resolvedByNewest
      self.replaced = replaced
    }

    /// A copy of `details` (or empty ones) with another count of conflicting pixels.
    convenience init(
      _ details: Details?, list: SourceImages?, conflictingPixels: Int?, replaced: SHA256Digest?
    ) {
      self.init(
        list: list, path: details?.path, chosen: details?.chosen, rivals: details?.rivals ?? [],
        conflictingPixels: conflictingPixels,
        resolvedByNewest: details?.resolvedByNewest ?? false, replaced: replaced)
    }
  }

  /// One source's images, moved out of its inventory: shared by the items that chose one.
  final class SourceImages: Sendable {
    /// The source's index into `inventories`.
    let source: Int32
    /// Its images, sorted by path.
    let images: SourceInventory.ImageList

    init(source: Int32, images: SourceInventory.ImageList) {
      self.source = source
      self.images = images
    }
  }

  /// Every image the plan's sources hold, source by source: each source's list is moved in,
  /// not copied, so planning never holds an image twice.
  struct ReadImages {
    /// Each source's images, by index into `inventories`.
    let lists: [SourceImages]

    /// Moves the images out of `inventories`, leaving their lists empty.
    init(movingFrom inventories: inout [SourceInventory]) {
      var lists: [SourceImages] = []
      lists.reserveCapacity(inventories.count)
      for index in inventories.indices {
        lists.append(SourceImages(source: Int32(index), images: inventories[index].images))
        inventories[index].images = []
      }
      self.lists = lists
    }

    /// The image at a place.
    subscript(place: Place) -> SourceInventory.Image {
      lists[Int(place.source)].images[Int(place.image)]
    }

    /// The path of the image at a place, without copying the image.
    func path(at place: Place) -> PooledPath {
      lists[Int(place.source)].images.path(at: Int(place.image))
    }

    /// The image at a place, with its source.
    func candidate(at place: Place) -> Candidate {
      Candidate(sourceIndex: Int(place.source), image: self[place])
    }

    /// Calls `body` with each path's places in path order; a path's places in source order.
    func forEachPath(_ body: ([Place]) -> Void) {
      ReaderQueue.forEachPath(inLists: lists.map(\.images.count), path: path(at:), body)
    }

    /// How many paths the images are of.
    var pathCount: Int {
      var count = 0
      forEachPath { _ in count += 1 }
      return count
    }
  }

  /// Where an image is in `ReadImages`.
  struct Place: Sendable, Equatable {
    var source: Int32
    var image: Int32
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
