import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// Decides, for every destination path, what a merge does. It reads each source once, keeps
/// only hashes, and looks at a destination file's pixels only when its bytes differ.
public struct MergePlanner: Sendable {
  /// The options.
  public var options: MergeOptions
  /// A check of the runs read that may stop the merge, such as `--require-shards`' proof of the
  /// shard records against the manifests: an input to planning, whose problems, skipped tests
  /// and reasons against an orphan search the plan takes in.
  public var check: (@Sendable ([SourceInventory]) -> PlanCheck)?

  /// Creates a planner.
  public init(options: MergeOptions, check: (@Sendable ([SourceInventory]) -> PlanCheck)? = nil) {
    self.options = options
    self.check = check
  }

  /// Builds the finished plan.
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
  /// - Parameter unlistable: The errors of SOURCE arguments that could not even be listed:
  ///   they are the plan's first problems, and their tests may own references.
  func plan(
    sources: [MergeSource], unlistable: [MergeError] = [], destination: Destination,
    staging: MergeStaging?, progress: @escaping @Sendable (Int, Int) -> Void
  ) -> MergePlan {
    var (inventories, bad) = read(
      sources, destination: destination, staging: staging, progress: progress)
    // Runs before paths: a render a later run used again is no candidate at all.
    let ledger = RunLedger(inventories, limits: options.limits)
    let runs = ledger.decide(&inventories)
    let earlierRuns = ledger.earlierRunStarts(inventories)
    var paths = decidePaths(&inventories, destination: destination)
    let variants = Result { () throws(VariantError) in
      try ReferenceVariants.read(packageRoot: destination.root)
    }
    var matchingFallback: [String] = []
    if case .success(let declaration?) = variants {
      matchingFallback = decideVariants(
        &paths.items, declaration: declaration, inventories: inventories,
        destination: destination)
    }
    // Moved out, not shared: the plan's items are changed in place later, and a second
    // reference to them would make that a copy of every item.
    let items = countConflictingPixels(paths.items, inventories: inventories)
    paths.items = []
    let destinationProblems = unwritable(items, destination: destination)
    destination.forgetDigests()
    // Updating a pointer would hide that the real image was never fetched, and its "before"
    // is unknown: these paths are refused, naming `git lfs pull`. A file whose pixels were
    // read (`before`) is no pointer, so only the others are read again.
    let gitLFSPointers: [String] = items.lazy.filter { $0.outcome == .updated && $0.before == nil }
      .map(\.path).filter(destination.isGitLFSPointer)
    var plan = MergePlan(
      destination: destination.root, inventories: inventories, badSources: bad,
      destinationProblems: destinationProblems, items: consume items, orphanSearchDone: false)
    plan.gitLFSPointers = gitLFSPointers
    plan.unarchivedChanged = paths.unarchivedChanged
    plan.changedSinceComparison = paths.changedSinceComparison
    plan.superseded = runs.superseded
    plan.earlierRuns = earlierRuns
    plan.sharedReferences = runs.shared
    plan.matchingFallback = matchingFallback
    plan.variants = try? variants.get()
    finish(
      &plan, unlistable: unlistable, check: check?(inventories) ?? PlanCheck(),
      variants: variants, destination: destination)
    return plan
  }

  /// The errors of the paths that cannot be written safely (a symbolic link on the way).
  private func unwritable(_ items: MergePlan.ItemList, destination: Destination) -> [MergeError] {
    var errors: [MergeError] = []
    for item in items {
      do {
        try destination.checkWritable(
          item.path, knownRegularFile: item.chosen?.image.destinationHeldIt == true)
      } catch {
        errors.append(error)
      }
    }
    return errors
  }

  /// Reads every source; the readable ones' inventories and the others' errors, in
  /// command-line order whatever order the reads finished in, so the plan is the same.
  private func read(
    _ sources: [MergeSource], destination: Destination, staging: MergeStaging?,
    progress: @escaping @Sendable (Int, Int) -> Void
  ) -> ([SourceInventory], [MergePlan.BadSource]) {
    var inventories: [SourceInventory] = []
    // Sized once: a merge of 5,000 archives held up to twice its inventories (352 bytes each).
    inventories.reserveCapacity(sources.count)
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
  func sortByPath(_ items: inout MergePlan.ItemList) {
    var previous: MergePlan.Item?
    let sorted = items.allSatisfy { item in
      defer { previous = item }
      return previous.map { $0.pathPrecedes(item) } ?? true
    }
    if !sorted { items = MergePlan.ItemList(items.sorted { $0.pathPrecedes($1) }) }
  }

  /// Reads every source once, on every core; results come back in the sources' order.
  private func scan(
    _ sources: [MergeSource], destination: Destination, staging: MergeStaging?,
    progress: @escaping @Sendable (Int, Int) -> Void
  ) -> [Result<SourceInventory, MergeError>] {
    let finished = FinishedCount()
    let limits = options.limits
    let imageSpill = ImageSpill.make()
    let sharedValues = SharedValues()
    return ConcurrentSlots.perform(sources.count) { position in
      var scanner = InventoryScanner(limits: limits)
      scanner.destination = destination
      scanner.staging = staging
      scanner.imageSpill = imageSpill
      scanner.sharedValues = sharedValues
      let result = Result { () throws(MergeError) in try scanner.scan(sources[position]) }
      progress(finished.increment(), sources.count)
      return result
    }
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
