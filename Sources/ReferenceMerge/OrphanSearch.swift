import ReferenceContracts

/// When a merge may call references orphans: only when every test that could own one ran. A
/// reference that no run produced may belong to a test that was filtered out, on a missing
/// shard or in a refused source; calling it an orphan would let `--prune` delete it. A skipped
/// test ran, and verified nothing: the references it may own are left out of the search
/// (`SkippedTestScope`), the rest are searched.
public enum OrphanSearch {
  /// What proves that the runs covered every test.
  public enum Proof: Sendable {
    /// Each manifest says what its process ran (`coverage`): only runs of a whole XCTest
    /// bundle prove it.
    case manifests
    /// `--require-shards`: the shard records prove that every planned test ran; the session
    /// drops the orphans when that proof fails.
    case shardRecords
  }

  /// Why orphans must not be looked for, or nil when they may. Skipped tests do not stop the
  /// search: the references they may own are left out of it (`SkippedTestScope`).
  /// - Parameters:
  ///   - inventories: The sources read.
  ///   - refusedSources: How many sources were refused or could not be listed.
  ///   - proof: What proves the runs whole.
  /// - Returns: A sentence for the summary ("orphans were not looked for: …"), or nil.
  static func refusal(
    inventories: [SourceInventory], refusedSources: Int, proof: Proof
  ) -> String? {
    if inventories.isEmpty { return "no source was read" }
    if refusedSources > 0 {
      return "\(refusedSources) source(s) were refused, and their tests may own references"
    }
    if !inventories.allSatisfy(\.isComplete) { return "not every source is a complete run" }
    guard proof == .manifests else { return nil }
    return manifestRefusal(inventories.map { $0.manifest?.coverage })
  }

  /// Why the manifests' own coverage does not prove the runs whole, or nil.
  private static func manifestRefusal(_ coverages: [ArchiveManifest.Coverage?]) -> String? {
    let unknown = coverages.filter { $0 == nil }.count
    if unknown > 0 {
      return "\(count(unknown, "archive does", "archives do")) not say which tests ran "
        + "(written by an older version)"
    }
    let scopes = coverages.compactMap { $0?.scope }
    let selected = coverages.compactMap { $0 }.filter { $0.scope == .selectedTests }
    if let first = selected.first {
      let arguments = first.arguments.joined(separator: " ")
      return "\(count(selected.count, "run", "runs")) ran selected tests only (first: "
        + "\(arguments.isEmpty ? "no arguments" : arguments)), as a --filter or the one-test "
        + "workers of `swift test --parallel` do; \(provingHint)"
    }
    let unobserved = scopes.filter { $0 == .unobserved }.count
    if unobserved > 0 {
      // Even a run of every test cannot prove it: `swift test` runs Swift Testing's tests in a
      // process of their own, which sees no test it did not run.
      return "\(count(unobserved, "run is a Swift Testing run", "runs are Swift Testing runs")),"
        + " which cannot see skipped or filtered-out tests; \(shardsHint)"
    }
    let besideSwiftTesting = coverages.filter { $0?.swiftTestingTestsNotRun == true }.count
    if besideSwiftTesting > 0 {
      return "\(count(besideSwiftTesting, "XCTest run", "XCTest runs")) did not run the Swift "
        + "Testing tests of the same bundle (`swift test` runs them in a process of their own), "
        + "and those may own references; \(shardsHint)"
    }
    return nil
  }

  private static let provingHint =
    "to find orphans, run every test in one `swift test` process, or \(provingWithShards)"
  private static let shardsHint = "to find orphans, \(provingWithShards)"
  private static let provingWithShards =
    "prove the run with `reference-shards run` and `merge-refs --require-shards`"

  private static func count(_ number: Int, _ one: String, _ many: String) -> String {
    "\(number) \(number == 1 ? one : many)"
  }
}
