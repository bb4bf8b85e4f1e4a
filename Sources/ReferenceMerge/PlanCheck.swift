/// What a check of the finished plan found, such as `--require-shards`' proof: problems that
/// stop the merge, and what its evidence says about the runs.
public struct PlanCheck: Sendable {
  /// Problems that stop the merge; they count like any other.
  public var problems: [MergeProblem]
  /// Tests the check's evidence records as skipped (Swift Testing's event streams, say).
  public var skippedTests: [String]
  /// The source file (`BadgeTests.swift`) of skipped tests whose evidence names it, by test.
  public var skippedTestFiles: [String: String]
  /// Tests the check's evidence records as failed: like skipped ones, they keep what they may
  /// own from the orphan search.
  public var failedTests: [String]
  /// The source file of failed tests whose evidence names it, by test.
  public var failedTestFiles: [String: String]
  /// Why orphans must not be looked for although nothing stops the merge (a shard whose tests
  /// failed, say), or nil.
  public var orphanRefusal: String?

  /// Creates a result; the defaults find nothing.
  public init(
    problems: [MergeProblem] = [], skippedTests: [String] = [],
    skippedTestFiles: [String: String] = [:], failedTests: [String] = [],
    failedTestFiles: [String: String] = [:], orphanRefusal: String? = nil
  ) {
    self.problems = problems
    self.skippedTests = skippedTests
    self.skippedTestFiles = skippedTestFiles
    self.failedTests = failedTests
    self.failedTestFiles = failedTestFiles
    self.orphanRefusal = orphanRefusal
  }
}
