import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Carries out a plan: writes added and updated images (each atomically, in its own folder),
/// deletes orphans when pruning, and never touches anything outside the destination.
public struct MergeApplier: Sendable {
  /// The options the plan was made with.
  public var options: MergeOptions

  /// Creates an applier.
  public init(options: MergeOptions) {
    self.options = options
  }

  /// What applying did.
  public struct Result: Sendable {
    /// Files written (added or updated), in the order they were written.
    public var written: [String] { writtenItems.map { items[$0].path } }
    /// The written files' positions in `items`, as runs: a list of their paths would cost a
    /// large merge a string of each (`PathPool`), and a list of their positions 4 bytes each,
    /// where they mostly follow each other.
    var writtenItems = PositionRuns()
    /// The plan's items, shared.
    private let items: MergePlan.ItemList
    /// Orphans and redundant variant files deleted (`--prune`).
    public var deleted: [String] = []
    /// Temporary files of an earlier, interrupted merge that were removed.
    public var leftoversRemoved: [String] = []
    /// Why applying stopped before the end, if it did: `written` and `deleted` then hold only
    /// what was done before (each of those files complete), and every other path of the plan
    /// is as it was.
    public var failure: MergeError?
    /// When applying stopped: the paths it was to write or delete and did not reach.
    public var notReached: [String] = []
    /// For a package with a store: the store, and how many objects this merge uploaded to it
    /// (the others it wrote pointers to were there already).
    public var store: StoreUploads?
    /// With `--compact` in a package without a store: what compacting the landed files did.
    package var compaction: Destination.Compaction?

    init(items: MergePlan.ItemList) { self.items = items }
  }

  /// Applies a plan that has no unresolved conflict.
  /// - Parameters:
  ///   - plan: The plan from `MergePlanner`.
  ///   - progress: Called with (files done, total) as files are written.
  /// - Returns: What was written and deleted.
  /// - Throws: `MergeError` when a write fails (`.notWritten`, naming the file, the cause and
  ///   the fix) or a source changed since planning. Files already written stay (each is
  ///   complete), the others are as they were.
  public func apply(_ plan: MergePlan, progress: (Int, Int) -> Void = { _, _ in })
    throws(MergeError) -> Result
  {
    let result = apply(
      plan, to: try Destination(root: plan.destination), staging: nil, progress: progress)
    if let failure = result.failure { throw failure }
    return result
  }

  /// Applies a plan through the destination, renaming entries staged while planning into
  /// place and reading the sources again only for the rest. A failure stops applying and is
  /// returned with what was done before it, so a summary counts only files really written.
  func apply(
    _ plan: MergePlan, to destination: Destination, staging: MergeStaging?,
    progress: (Int, Int) -> Void
  ) -> Result {
    precondition(plan.items(.conflict).isEmpty, "a plan with conflicts must not be applied")
    var result = Result(items: plan.items)
    do throws(MergeError) {
      try apply(plan, to: destination, staging: staging, result: &result, progress: progress)
    } catch {
      result.failure = error
      let written = Set(result.writtenItems.lazy.map { Int32($0) })
      let deleted = Set(result.deleted)
      result.notReached = plan.items.indices.filter {
        let item = plan.items[$0]
        return item.outcome.writesFile
          ? !written.contains(Int32($0))
          : options.prune && item.outcome.isRemoval && !deleted.contains(item.path)
      }.map { plan.items[$0].path }
    }
    destination.saveDigests()
    if let stored = destination.storedReferences {
      result.store = StoreUploads(
        name: stored.configuration.storeName, uploaded: destination.uploadedObjects)
    }
    return result
  }

  private func apply(
    _ plan: MergePlan, to destination: Destination, staging: MergeStaging?,
    result: inout Result, progress: (Int, Int) -> Void
  ) throws(MergeError) {
    // Visited in place: a filtered copy of a large plan's items would be a peak of its own.
    let writes = plan.items.indices.lazy.filter { plan.items[$0].outcome.writesFile }
    var touchedFolders = Set(writes.map { Destination.split(plan.items[$0].path).folder })
    if options.prune {
      touchedFolders.formUnion(
        plan.items.filter(\.outcome.isRemoval).map { Destination.split($0.path).folder })
    }
    for folder in touchedFolders.sorted() {
      result.leftoversRemoved += destination.removeLeftovers(in: folder)
    }
    try writeImages(
      writes, count: writes.count, plan: plan, destination: destination, staging: staging,
      result: &result,
      progress: progress)
    // A store's objects are compacted as they are uploaded; files in the tree once landed,
    // together, on every core.
    if options.compact && destination.storedReferences == nil && !result.writtenItems.isEmpty {
      result.compaction = destination.compact(result.written)
    }
    if options.prune {
      for removal in plan.items where removal.outcome.isRemoval {
        try destination.remove(removal.path)
        result.deleted.append(removal.path)
      }
    }
  }

  /// Renames staged entries into place, and reads each source once more for the others.
  private func writeImages(
    _ writes: some Sequence<Int>, count: Int, plan: MergePlan,
    destination: Destination,
    staging: MergeStaging?, result: inout Result, progress: (Int, Int) -> Void
  ) throws(MergeError) {
    var wanted: [Int: [String: Int]] = [:]
    var done = 0
    for position in writes {
      let item = plan.items[position]
      guard let chosen = item.chosen else { continue }
      let source = plan.inventories[chosen.sourceIndex].source
      // Staged while the sources were read, and checked then: one rename puts it in place.
      let staged = try staging?.moveIntoPlace(
        source: source, path: item.path, digest: chosen.image.pngSHA256)
      if staged == true {
        result.writtenItems.append(position)
        done += 1
        progress(done, count)
      } else {
        wanted[chosen.sourceIndex, default: [:]][item.path] = position
      }
    }
    let reader = SourceReader(limits: options.limits)
    for sourceIndex in wanted.keys.sorted() {
      let inventory = plan.inventories[sourceIndex]
      var pending = wanted[sourceIndex] ?? [:]
      try reader.forEachEntry(of: inventory.source, wantsData: { pending[$0] != nil }) {
        (entry) throws(MergeError) in
        guard let position = pending.removeValue(forKey: entry.path) else { return }
        let digest = SHA256Digest(of: entry.bytes)
        guard digest == plan.items[position].chosen?.image.pngSHA256 else {
          throw .refusedEntry(
            source: inventory.source.description, entry: entry.path,
            reason: "it changed since it was read; rerun the merge")
        }
        try destination.write(entry.bytes, to: entry.path, digest: digest)
        result.writtenItems.append(position)
        done += 1
        progress(done, count)
      }
      if let missing = pending.keys.sorted().first {
        throw .refusedEntry(
          source: inventory.source.description, entry: missing,
          reason: "it disappeared since it was read; rerun the merge")
      }
    }
  }
}

/// Positions in the order they came: a position alone is 4 bytes, a run of positions that
/// follow each other 8.
struct PositionRuns: Sequence, Sendable {
  /// Each position that does not follow the one before it; after it, when the next ones do,
  /// minus how many follow.
  private var entries: [Int32] = []

  var isEmpty: Bool { entries.isEmpty }

  mutating func append(_ position: Int) {
    let position = Int32(position)
    let count = entries.count
    if let last = entries.last, last < 0, entries[count - 2] - last + 1 == position {
      entries[count - 1] -= 1
    } else if let last = entries.last, last >= 0, last + 1 == position {
      entries.append(-1)
    } else {
      entries.append(position)
    }
  }

  func makeIterator() -> some IteratorProtocol<Int> {
    var index = 0
    var start = 0
    var next = 0
    var end = 0
    return AnyIterator {
      if next < end {
        next += 1
        return next
      }
      guard index < entries.count else { return nil }
      let entry = Int(entries[index])
      index += 1
      if entry < 0 {
        (next, end) = (start + 1, start - entry)
        return next
      }
      start = entry
      return entry
    }
  }
}
