/// What a check of the finished plan found, such as `--require-shards`' proof: problems that
/// stop the merge, and what its evidence says about the runs.
public struct PlanCheck: Sendable {
  /// Problems that stop the merge; they count like any other.
  public var problems: [MergeProblem]
  /// Tests the check's evidence records as skipped (Swift Testing's event streams, say).
  public var skippedTests: [String]
  /// Why orphans must not be looked for although nothing stops the merge (a shard whose tests
  /// failed, say), or nil.
  public var orphanRefusal: String?

  /// Creates a result; the defaults find nothing.
  public init(
    problems: [MergeProblem] = [], skippedTests: [String] = [], orphanRefusal: String? = nil
  ) {
    self.problems = problems
    self.skippedTests = skippedTests
    self.orphanRefusal = orphanRefusal
  }
}
