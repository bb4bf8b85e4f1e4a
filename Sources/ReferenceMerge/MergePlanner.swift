import Foundation
import ReferenceArchive
import ReferenceImageCore

/// Decides, for every destination path, what a merge does. It reads each source once, keeps
/// only hashes, and looks at a destination file's pixels only when its bytes differ.
public struct MergePlanner: Sendable {
  /// The options.
  public var options: MergeOptions

  /// Creates a planner.
  public init(options: MergeOptions) {
    self.options = options
  }

  /// Builds the plan.
  /// - Parameters:
  ///   - sources: The sources, in command-line order.
  ///   - destination: The package root the archive paths are relative to.
  ///   - progress: Called with (sources read, total) as reading advances.
  /// - Returns: The plan; bad sources are listed in it (and, without `keepGoing`, the caller
  ///   must not apply it).
  public func plan(
    sources: [MergeSource], destination: URL,
    progress: @escaping @Sendable (Int, Int) -> Void = {
      _, _ in
    }
  ) -> MergePlan {
    do {
      return plan(
        sources: sources, destination: try Destination(root: destination), staging: nil,
        progress: progress)
    } catch {
      return MergePlan(
        destination: destination, inventories: [], badSources: [],
        destinationProblems: [error], items: [], orphanSearchDone: false)
    }
  }

  /// Builds the plan, keeping entries that will probably be written in `staging`.
  func plan(
    sources: [MergeSource], destination: Destination, staging: MergeStaging?,
    progress: @escaping @Sendable (Int, Int) -> Void
  ) -> MergePlan {
    var (inventories, bad) = read(
      sources, destination: destination, staging: staging, progress: progress)
    // Runs before paths: a render a later run used again is no candidate at all.
    let runs = RunLedger(inventories, limits: options.limits).decide(&inventories)
    var (items, unarchivedChanged, changedSinceComparison) = decide(
      inventories, destination: destination)
    destination.forgetDigests()
    // The items hold what the rest of the merge needs of each image: the inventories' lists
    // are let go, so a merge of many archives does not hold every image twice.
    for index in inventories.indices { inventories[index].images = [] }
    var destinationProblems: [ArchiveError] = []
    for item in items {
      do {
        try destination.checkWritable(item.path)
      } catch {
        destinationProblems.append(error)
      }
    }
    // Updating a pointer would hide that the real image was never fetched, and its "before"
    // is unknown: the session refuses these paths, naming `git lfs pull`.
    let gitLFSPointers = items.filter { $0.outcome == .updated }.map(\.path)
      .filter(destination.isGitLFSPointer)
    items = countConflictingPixels(items, inventories: inventories)
    let skippedTests = Set(inventories.flatMap { $0.manifest?.skippedTests ?? [] }).sorted()
    let refusal = OrphanSearch.refusal(
      inventories: inventories, refusedSources: bad.count, skippedTests: skippedTests,
      proof: options.orphanProof)
    let orphanSearch = refusal == nil
    if orphanSearch {
      // Orphans are found by searching the paths the runs produced.
      sortByPath(&items)
      items += orphans(inventories, produced: items, destination: destination)
    }
    // A path two tests use lands nothing; it stays out of the orphan search above, which must
    // not call it unused.
    let shared = Set(runs.shared.map(\.path))
    if !shared.isEmpty { items.removeAll { shared.contains($0.path) } }
    sortByPath(&items)
    var plan = MergePlan(
      destination: destination.root, inventories: inventories, badSources: bad,
      destinationProblems: destinationProblems, items: items, orphanSearchDone: orphanSearch)
    plan.gitLFSPointers = gitLFSPointers
    plan.unarchivedChanged = unarchivedChanged
    plan.changedSinceComparison = changedSinceComparison
    plan.orphanSearchRefusal = refusal
    plan.skippedTests = skippedTests
    plan.superseded = runs.superseded
    plan.sharedReferences = runs.shared
    return plan
  }

  /// Reads every source; the readable ones' inventories and the others' errors, in
  /// command-line order whatever order the reads finished in, so the plan is the same.
  private func read(
    _ sources: [MergeSource], destination: Destination, staging: MergeStaging?,
    progress: @escaping @Sendable (Int, Int) -> Void
  ) -> ([SourceInventory], [MergePlan.BadSource]) {
    var inventories: [SourceInventory] = []
    var bad: [MergePlan.BadSource] = []
    let scanned = scan(sources, destination: destination, staging: staging, progress: progress)
    for (source, result) in zip(sources, scanned) {
      switch result {
      case .success(let inventory): inventories.append(inventory)
      case .failure(let error): bad.append(.init(source: source, error: error))
      }
    }
    return (inventories, bad)
  }

  /// Sorts items by path unless they already are, as decided items come: sorting needs a
  /// copy of the plan, which for a merge of many archives would be a peak of its own.
  private func sortByPath(_ items: inout [MergePlan.Item]) {
    let sorted = items.indices.dropFirst().allSatisfy { items[$0 - 1].path < items[$0].path }
    if !sorted { items.sort { $0.path < $1.path } }
  }

  /// Reads every source once, on every core; results come back in the sources' order.
  private func scan(
    _ sources: [MergeSource], destination: Destination, staging: MergeStaging?,
    progress: @escaping @Sendable (Int, Int) -> Void
  ) -> [Result<SourceInventory, ArchiveError>] {
    let finished = FinishedCount()
    let limits = options.limits
    return ConcurrentSlots.perform(sources.count) { position in
      var scanner = InventoryScanner(limits: limits)
      scanner.destination = destination
      scanner.staging = staging
      let result = Result { () throws(ArchiveError) in try scanner.scan(sources[position]) }
      progress(finished.increment(), sources.count)
      return result
    }
  }

  // MARK: Decisions

  /// Every path's item, and apart the paths whose chosen image was recorded unchanged but
  /// whose destination no longer holds its pixels (see `MergePlan.unarchivedChanged`), and
  /// those whose render was kept by a failed comparison with a reference the destination no
  /// longer holds (`MergePlan.changedSinceComparison`).
  private func decide(_ inventories: [SourceInventory], destination: Destination)
    -> ([MergePlan.Item], [String], [MergePlan.ReferenceChange])
  {
    // Every image of every source, by position, sorted by path: each path's candidates are
    // then one run of neighbours. A table of candidate lists per path cost a merge of many
    // archives an array and a table slot for every image.
    let total = inventories.reduce(0) { $0 + $1.images.count }
    var positions: [(source: Int32, image: Int32)] = []
    positions.reserveCapacity(total)
    for (source, inventory) in inventories.enumerated() {
      for image in inventory.images.indices { positions.append((Int32(source), Int32(image))) }
    }
    let image = { (position: (source: Int32, image: Int32)) in
      inventories[Int(position.source)].images[Int(position.image)]
    }
    // Stable, and each inventory is already sorted: a single source costs one pass.
    positions.sort { image($0).path < image($1).path }
    let isFirstOfPath = { (index: Int) in
      index == 0 || image(positions[index]).path != image(positions[index - 1]).path
    }
    // Sized once: an array grown by doubling would hold up to twice the plan.
    var items: [MergePlan.Item] = []
    items.reserveCapacity(positions.indices.lazy.filter(isFirstOfPath).count)
    var unarchivedChanged: [String] = []
    var changedSinceComparison: [MergePlan.ReferenceChange] = []
    var start = 0
    while start < positions.count {
      var end = start + 1
      while end < positions.count && !isFirstOfPath(end) { end += 1 }
      let candidates = positions[start..<end].map {
        MergePlan.Candidate(sourceIndex: Int($0.source), image: image($0))
      }
      let item = decide(candidates, inventories: inventories, destination: destination)
      if let chosen = item.chosen, !chosen.image.isArchived, item.outcome != .unchanged {
        unarchivedChanged.append(item.path)
      } else if let change = referenceChange(item, destination: destination) {
        changedSinceComparison.append(change)
      } else {
        items.append(item)
      }
      start = end
    }
    return (items, unarchivedChanged, changedSinceComparison)
  }

  /// For a render kept by a failed comparison that would be written: the change, when the
  /// destination no longer holds the reference it was compared with (or now holds a file where
  /// there was none). Landing it would replace pixels nobody compared it with.
  private func referenceChange(_ item: MergePlan.Item, destination: Destination)
    -> MergePlan.ReferenceChange?
  {
    guard item.outcome == .added || item.outcome == .updated,
      let failure = item.chosen?.image.failedComparison
    else { return nil }
    let now: SHA256Digest?
    switch destination.pixelIdentity(item.path) {
    case .image(_, _, let pixelSHA256): now = SHA256Digest(hex: pixelSHA256)
    case nil: now = nil
    case .gitLFSPointer, .undecodable: return nil  // refused or reported by their own rules
    }
    guard now != failure.referencePixels else { return nil }
    return .init(path: item.path, compared: failure.referencePixels, now: now)
  }

  /// The decision for one path, from every source's image for it.
  private func decide(
    _ all: [MergePlan.Candidate], inventories: [SourceInventory], destination: Destination
  ) -> MergePlan.Item {
    let path = all[0].image.path
    // Newest first; among equals, the later source on the command line wins.
    let ordered = all.sorted {
      let (a, b) = (
        inventories[$0.sourceIndex].generatedAt, inventories[$1.sourceIndex].generatedAt
      )
      return a != b ? a > b : $0.sourceIndex > $1.sourceIndex
    }
    var rivals: [MergePlan.Candidate] = []
    for candidate in ordered
    where !rivals.contains(where: { $0.image.pixelSHA256 == candidate.image.pixelSHA256 }) {
      rivals.append(candidate)
    }
    // Replicas disagree: whatever the conflict policy, no render of a nondeterministic test is
    // a reference.
    if rivals.count > 1 && areReplicas(rivals, inventories: inventories) {
      return MergePlan.Item(
        path: path, outcome: .unstable, chosen: nil, rivals: rivals, conflictingPixels: nil,
        resolvedByNewest: false)
    }
    if rivals.count > 1 && options.onConflict == .fail {
      return MergePlan.Item(
        path: path, outcome: .conflict, chosen: nil, rivals: rivals,
        conflictingPixels: nil, resolvedByNewest: false)
    }
    let chosen = archivedIfAny(like: ordered[0], among: ordered)
    return MergePlan.Item(
      path: path, outcome: outcome(of: chosen.image, destination: destination),
      chosen: chosen,
      rivals: rivals.count > 1 ? rivals : [], conflictingPixels: nil,
      resolvedByNewest: rivals.count > 1)
  }

  /// `chosen`, or a candidate with the same pixels that holds them in its source: a run that
  /// recorded the image unchanged and one that archived it agree, and only the archived one
  /// can be written if the destination has changed since.
  private func archivedIfAny(like chosen: MergePlan.Candidate, among all: [MergePlan.Candidate])
    -> MergePlan.Candidate
  {
    guard !chosen.image.isArchived else { return chosen }
    return all.first {
      $0.image.isArchived && $0.image.pixelSHA256 == chosen.image.pixelSHA256
    } ?? chosen
  }

  /// Whether disagreeing renders are replicas: one test's renders from runs that repeat the
  /// tests on purpose (`reference-shards --replicas`, the plugin's `--repeat`). Other sources
  /// that disagree stay a conflict, which `--on-conflict newest` may resolve.
  private func areReplicas(_ rivals: [MergePlan.Candidate], inventories: [SourceInventory])
    -> Bool
  {
    guard let test = rivals[0].image.test else { return false }
    return rivals.allSatisfy {
      $0.image.test == test && (inventories[$0.sourceIndex].manifest?.replicas ?? 1) > 1
    }
  }

  /// Added, updated or unchanged, by content: equal bytes, else equal decoded pixels. A Git
  /// LFS pointer at the path is unchanged when it points at exactly the image's bytes, and
  /// otherwise updated (`gitLFSPointers` lists it, and the session refuses to write it).
  private func outcome(of image: SourceInventory.Image, destination: Destination)
    -> MergePlan.Outcome
  {
    guard let digest = destination.pngDigest(image.path) else { return .added }
    if digest == image.pngSHA256 { return .unchanged }
    switch destination.pixelIdentity(image.path) {
    case .image(let width, let height, let pixelSHA256):
      let samePixels =
        width == image.width && height == image.height
        && SHA256Digest(hex: pixelSHA256) == image.pixelSHA256
      return samePixels ? .unchanged : .updated
    case .gitLFSPointer(let pointer):
      return pointer.objectID == "sha256:\(image.pngSHA256.hex)" ? .unchanged : .updated
    case .undecodable, nil:
      return .updated
    }
  }

  /// Fills in how many pixels the first two rivals of each conflict differ by. Conflicts are
  /// rare, so decoding their images costs little.
  private func countConflictingPixels(
    _ items: [MergePlan.Item], inventories: [SourceInventory]
  ) -> [MergePlan.Item] {
    let requests = items.filter { $0.rivals.count > 1 }.flatMap { item in
      item.rivals.prefix(2).map {
        SourceFetcher.Request(sourceIndex: $0.sourceIndex, path: item.path)
      }
    }
    guard !requests.isEmpty else { return items }
    let images = SourceFetcher(limits: options.limits).images(requests, inventories: inventories)
    return items.map { item in
      guard item.rivals.count > 1 else { return item }
      var item = item
      let pair = item.rivals.prefix(2).map {
        images[SourceFetcher.Request(sourceIndex: $0.sourceIndex, path: item.path)]
      }
      if let first = pair[0], let second = pair[1], first.width == second.width,
        first.height == second.height
      {
        let result = ImageComparison.exact.compare(first, to: second)
        item.conflictingPixels = result.differences?.differingPixelCount ?? 0
      }
      return item
    }
  }

  // MARK: Orphans

  /// PNGs in the reference folders the runs used that no run produced or verified.
  /// - Parameter produced: The plan's items for the images of the runs, sorted by path: searched
  ///   instead of a set of every path, which a merge of many archives would pay for twice.
  private func orphans(
    _ inventories: [SourceInventory], produced: [MergePlan.Item], destination: Destination
  ) -> [MergePlan.Item] {
    var verified = Set<String>()
    for inventory in inventories {
      verified.formUnion(inventory.manifest?.verifiedReferences ?? [])
    }
    var folders = Set<String>()
    for item in produced { folders.insert(Destination.split(item.path).folder) }
    for path in verified { folders.insert(Destination.split(path).folder) }
    let isProduced = { (path: String) -> Bool in
      var low = 0
      var high = produced.count
      while low < high {
        let middle = (low + high) / 2
        if produced[middle].path < path { low = middle + 1 } else { high = middle }
      }
      return low < produced.count && produced[low].path == path
    }
    var orphans: [MergePlan.Item] = []
    for folder in folders.sorted() {
      for name in destination.pngFiles(in: folder) {
        let path = folder.isEmpty ? name : "\(folder)/\(name)"
        guard !verified.contains(path) && !isProduced(path) else { continue }
        orphans.append(
          .init(
            path: path, outcome: .orphan, chosen: nil, rivals: [], conflictingPixels: nil,
            resolvedByNewest: false))
      }
    }
    return orphans
  }
}

/// How many sources are read, for progress.
private final class FinishedCount: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  func increment() -> Int {
    lock.lock()
    defer { lock.unlock() }
    count += 1
    return count
  }
}
