import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// The last steps of planning: the rules that refuse paths or the whole merge, the orphan
/// search, and the inputs that narrow what lands (`--include` and its approvals). They run in
/// this order because each one's answer depends on the ones before it: orphans are looked for
/// only when nothing was refused, and approvals are checked on what `--include` kept.
extension MergePlanner {
  /// Finishes `plan`: its problems, orphans, narrowing and warnings.
  /// - Parameter variants: The destination's variant declaration, nil when it has none, or
  ///   why it cannot be read.
  func finish(
    _ plan: inout MergePlan, unlistable: [MergeError], check: PlanCheck,
    variants: Result<ReferenceVariants?, VariantError>, destination: Destination
  ) {
    plan.skippedTests = Set(recordedSkips(plan) + check.skippedTests).sorted()
    plan.failedTests = Set(
      plan.inventories.flatMap { $0.manifest?.failedTests?.map(\.test) ?? [] } + check.failedTests
    ).sorted()
    plan.problems = refusals(plan, unlistable: unlistable, check: check)
    if case .failure(let error) = variants { plan.problems.append(.invalidVariants(error)) }
    let declaration = try? variants.get()
    searchOrphans(
      &plan, unlistable: unlistable.count, check: check, variants: declaration,
      destination: destination)
    // A path two tests use lands nothing; it stays out of the orphan search above, which must
    // not call it unused.
    let shared = Set(plan.sharedReferences.map(\.path))
    if !shared.isEmpty { plan.items.removeAll { shared.contains($0.path) } }
    sortByPath(&plan.items)
    leaveOutExcluded(&plan)
    plan.problems += staleApprovals(&plan)
    let pointers = Set(plan.gitLFSPointers)
    let updatedPointers: [String] = plan.items.lazy.filter { $0.outcome == .updated }.map(\.path)
      .filter(pointers.contains)
    plan.problems += updatedPointers.map {
      .gitLFSPointer(path: plan.destination.appendingPathComponent($0).path)
    }
    plan.warnings = plan.incompleteSources.map {
      "\($0.source.description) is incomplete: "
        + ($0.incompleteReason(listing: MergeSummary.listLimit) ?? "")
    }
    if let warning = OrphanSearch.warning(for: plan) { plan.warnings.append(warning) }
    if options.requireComplete && !plan.incompleteSources.isEmpty {
      plan.problems.append(.incompleteSources)
    }
  }

  /// The file of each failed test whose records name one: the manifests' and the check's.
  private func failedTestFiles(_ plan: MergePlan, check: PlanCheck) -> [String: String] {
    var files = check.failedTestFiles
    for record in plan.inventories.flatMap({ $0.manifest?.failedTests ?? [] }) {
      if let file = record.file, files[record.test] == nil { files[record.test] = file }
    }
    return files
  }

  /// The tests the manifests record as skipped.
  private func recordedSkips(_ plan: MergePlan) -> [String] {
    plan.inventories.flatMap { $0.manifest?.skippedTests ?? [] }
  }

  /// The problems the sources, the check, the destination and the runs' records raise, in the
  /// order the summary lists them. Paths `--include` leaves out raise none.
  private func refusals(_ plan: MergePlan, unlistable: [MergeError], check: PlanCheck)
    -> [MergeProblem]
  {
    let included = { (path: String) in options.include?.includes(path) ?? true }
    let path = { (relative: String) in plan.destination.appendingPathComponent(relative).path }
    var problems: [MergeProblem] = unlistable.map { .unlistableSource($0) }
    problems += plan.badSources.map { .refusedSource($0.error) }
    problems += check.problems
    problems += plan.destinationProblems.map { .unsafeDestination($0) }
    problems += plan.sharedReferences.map { .sharedReference(path: $0.path, owners: $0.owners) }
    problems += undeclaredPlatforms(plan)
    problems += plan.unarchivedChanged.filter(included).map {
      .unarchivedImageChanged(path: path($0))
    }
    problems += plan.changedSinceComparison.filter { included($0.path) }.map {
      .changedSinceComparison(
        path: path($0.path),
        compared: $0.compared.map { "sha256 \($0.hex)" } ?? "none: there was no reference",
        now: $0.now.map { "sha256 \($0.hex)" } ?? "none: the reference is gone")
    }
    return problems
  }

  /// Adds the orphans, when nothing says that the runs may not have covered every test.
  private func searchOrphans(
    _ plan: inout MergePlan, unlistable: Int, check: PlanCheck,
    variants declaration: ReferenceVariants??, destination: Destination
  ) {
    plan.orphanSearchRefusal = orphanRefusal(plan, unlistable: unlistable, check: check)
    plan.orphanSearchDone = plan.orphanSearchRefusal == nil
    guard plan.orphanSearchDone else { return }
    // Orphans are found by searching the paths the runs produced.
    sortByPath(&plan.items)
    let variants = (declaration ?? nil).map { ($0, plan.matchingFallback) }
    // A failed test may have stopped before it stored its images: like a skipped one, it keeps
    // what it may own.
    let scope = SkippedTestScope(
      skipped: Array(Set(plan.skippedTests + plan.failedTests)),
      files: check.skippedTestFiles.merging(failedTestFiles(plan, check: check)) { a, _ in a },
      suiteFiles: plan.inventories.reduce(into: [:]) { files, inventory in
        files.merge(inventory.suiteFiles) { $0.union($1) }
      },
      uses: plan.inventories.flatMap { $0.manifest?.referenceUses ?? [] })
    let found = orphans(
      plan.inventories, produced: plan.items, destination: destination, variants: variants,
      scope: scope)
    plan.keptForSkippedTests = found.kept
    plan.abandonedFolders = abandonedFolders(
      found.abandoned, orphans: found.orphans, produced: plan.items,
      destination: destination)
    plan.items += found.orphans
  }

  /// Why orphans must not be looked for, or nil: first what the runs' own records say, then a
  /// source that could not be listed, a refused merge, or a check that proves less than the
  /// manifests seemed to.
  private func orphanRefusal(_ plan: MergePlan, unlistable: Int, check: PlanCheck) -> String? {
    if let refusal = OrphanSearch.refusal(
      inventories: plan.inventories, refusedSources: plan.badSources.count,
      proof: options.orphanProof)
    {
      return refusal
    }
    // A source that could not even be listed may hold references of tests of its own.
    if unlistable > 0 {
      return "\(unlistable) source(s) could not be read, and their tests may own references"
    }
    if !plan.problems.isEmpty { return "the merge is refused, so the runs prove nothing" }
    return check.orphanRefusal
  }

  /// Moves every change outside `--include`'s patterns (added, updated, conflict, orphan) to the
  /// skipped items. Unchanged paths stay: nothing happens to them either way.
  private func leaveOutExcluded(_ plan: inout MergePlan) {
    guard let include = options.include else { return }
    var kept: MergePlan.ItemList = []
    for item in plan.items {
      if item.outcome == .unchanged || include.includes(item.path) {
        kept.append(item)
      } else {
        plan.skipped.append(item)
      }
    }
    plan.items = kept
  }

  /// The approvals of the decision file whose pixels are not the ones reviewed, as problems.
  /// With `--keep-going` their paths leave the plan, so the rest lands and they do not.
  private func staleApprovals(_ plan: inout MergePlan) -> [MergeProblem] {
    let stale = options.include?.staleApprovals(in: plan) ?? []
    guard !stale.isEmpty else { return [] }
    if options.keepGoing {
      let paths = Set(stale.map(\.path))
      plan.skipped += plan.items.filter { paths.contains($0.path) }
      plan.items.removeAll { paths.contains($0.path) }
    }
    return stale.map { .changedSinceReview(path: $0.path, reason: $0.reason) }
  }
}
