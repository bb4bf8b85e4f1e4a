import Foundation

/// The Markdown a merge writes for the CI job's summary page (`$GITHUB_STEP_SUMMARY`): the
/// outcome counts, a table of the shards (tests, images, seconds, balance), the changed
/// references and the problems. Written line by line, and the list of changes stops well
/// under GitHub's 1 MiB per step, ending with "and N more".
public struct JobSummary {
  /// One shard's row: the figures of its record, and the images its archives hold.
  public struct Shard: Sendable {
    /// The shard's index, 0-based.
    public var index: Int
    /// How many shards the plan has.
    public var count: Int
    /// How many tests the plan gave it.
    public var planned: Int
    /// How many tests its record says ran.
    public var ran: Int
    /// How many of those ran exactly once.
    public var ranOnce: Int
    /// How many of its tests were skipped.
    public var skipped: Int
    /// The seconds its tests took.
    public var seconds: Double
    /// The exit status of its `swift test`.
    public var swiftTestStatus: Int32
    /// How many images its archives hold.
    public var images: Int
    /// The variant the shard ran as (`ReferenceVariants`); nil for the base.
    public var variant: String?

    /// Creates a row.
    public init(
      index: Int, count: Int, planned: Int, ran: Int, ranOnce: Int, skipped: Int,
      seconds: Double, swiftTestStatus: Int32, images: Int, variant: String? = nil
    ) {
      self.index = index
      self.count = count
      self.planned = planned
      self.ran = ran
      self.ranOnce = ranOnce
      self.skipped = skipped
      self.seconds = seconds
      self.swiftTestStatus = swiftTestStatus
      self.images = images
      self.variant = variant
    }
  }

  /// One changed reference.
  public struct Change: Sendable {
    /// `added`, `updated`, `conflict`, `unstable` or `orphan`.
    public var outcome: MergePlan.Outcome
    /// The package-relative path.
    public var path: String
    /// What a reviewer needs besides the path, such as a failed comparison's test and figures.
    public var detail: String?

    /// Creates a change.
    public init(outcome: MergePlan.Outcome, path: String, detail: String? = nil) {
      self.outcome = outcome
      self.path = path
      self.detail = detail
    }
  }

  /// The bytes the list of changes may take before it is cut short: a quarter of GitHub's
  /// 1 MiB per step, leaving room for the tables and problems.
  public static let defaultChangeBudget = 256 * 1024
  /// At most this many problems and warnings each are listed.
  public static let problemLimit = 50

  /// The merge's one-line outcome ("3 added, 1 updated, …").
  public var outcome: String
  /// The merge's exit code.
  public var exitCode: Int32
  /// The shards, by index; empty when the sources were not shard folders.
  public var shards: [Shard]
  /// How many references changed.
  public var changeCount: Int
  /// The changes, visited once while writing.
  public var changes: AnySequence<Change>
  /// The errors, each a sentence.
  public var problems: [String]
  /// The warnings.
  public var warnings: [String]
  /// The shards' balance: the slowest shard's seconds over the mean (`ShardPlan.balance`), 1
  /// when perfectly even.
  public var balance: Double = 1
  /// See `defaultChangeBudget`.
  public var changeBudget = defaultChangeBudget
  /// The command that lands the reviewed changes, when the report travels elsewhere (a CI
  /// artifact): shown under the changes.
  public var landCommand: String?
  /// For `--dry-run` and `--check`: the heading says nothing was written.
  public var writesNothing = false
  /// Each variant's counts (`MergeSummary.variants`), shown as a table; empty where the
  /// package declares no variants.
  public var variants: [MergeSummary.VariantCounts] = []
  /// The references the review report found changed the same way, largest first; listed
  /// before the changes when there are many of them.
  public var changeGroups: [ChangeGroup] = []

  /// Creates a summary.
  public init(
    outcome: String, exitCode: Int32, shards: [Shard], changeCount: Int,
    changes: AnySequence<Change>, problems: [String], warnings: [String]
  ) {
    self.outcome = outcome
    self.exitCode = exitCode
    self.shards = shards.sorted { $0.index < $1.index }
    self.changeCount = changeCount
    self.changes = changes
    self.problems = problems
    self.warnings = warnings
  }

  /// Writes the Markdown, one line at a time (each without its newline).
  public func write(_ line: (String) -> Void) {
    let verdict =
      exitCode != 0
      ? "not merged (exit \(exitCode))" : writesNothing ? "nothing written (dry run)" : "merged"
    line("## Reference images: \(verdict)")
    line("")
    line("**\(outcome)**")
    line("")
    writeShards(line)
    writeVariants(line)
    writeChangeGroups(line)
    writeChanges(line)
    writeList("Problems", problems, line)
    writeList("Warnings", warnings, line)
  }

  private func writeShards(_ line: (String) -> Void) {
    guard !shards.isEmpty else { return }
    let planned = shards.reduce(0) { $0 + $1.planned }
    let ran = shards.reduce(0) { $0 + $1.ran }
    let once = shards.reduce(0) { $0 + $1.ranOnce }
    let skipped = shards.reduce(0) { $0 + $1.skipped }
    // Each variant (platform) runs the whole plan in shards of its own.
    let count = (shards.first?.count ?? 0) * Set(shards.map(\.variant)).count
    // A shard on record twice (one plan run on two platforms that declare no variants) is
    // counted once, and the records said apart, so the line never reads "4 of 2 shards".
    let distinct = Set(shards.map { ShardKey(variant: $0.variant, index: $0.index) }).count
    let records = distinct < shards.count ? " (\(shards.count) records)" : ""
    line(
      "\(distinct) of \(count) shards\(records), \(planned) tests planned, \(ran) on record "
        + "(\(once) exactly once\(skipped > 0 ? ", \(skipped) skipped" : "")), "
        + "\(shards.reduce(0) { $0 + $1.images }) images; balance "
        + "(max/mean seconds) \(String(format: "%.2f", balance))")
    line("")
    line("| shard | tests | images | seconds | swift test |")
    line("| ---: | ---: | ---: | ---: | --- |")
    for shard in shards {
      let status = shard.swiftTestStatus == 0 ? "passed" : "failed (\(shard.swiftTestStatus))"
      line(
        "| \(shard.index)\(shard.variant.map { " (\($0))" } ?? "") | \(shard.planned) | \(shard.images) | "
          + "\(String(format: "%.1f", shard.seconds)) | \(status) |")
    }
    line("")
  }

  /// One row per variant: which platform's files the merge changed.
  private func writeVariants(_ line: (String) -> Void) {
    guard !variants.isEmpty else { return }
    line(
      "| variant | added | updated | unchanged | conflicts | unstable | orphans | redundant | "
        + "equal to the fallback |")
    line("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for counts in variants {
      let figures = [
        counts.added, counts.updated, counts.unchanged, counts.conflicts, counts.unstable,
        counts.orphans, counts.redundant, counts.matchingFallback,
      ]
      line("| \(counts.variant) | " + figures.map(String.init).joined(separator: " | ") + " |")
    }
    line("")
  }

  private struct ShardKey: Hashable {
    var variant: String?
    var index: Int
  }

  private func writeChangeGroups(_ line: (String) -> Void) {
    let lines = ChangeGroup.leadingLines(changeGroups, changeCount: changeCount)
    guard !lines.isEmpty else { return }
    line("### Changed the same way (\(changeGroups.count) groups)")
    line("")
    for text in lines { line("- " + text) }
    line("")
  }

  private func writeChanges(_ line: (String) -> Void) {
    guard changeCount > 0 else { return }
    line("### Changed references (\(changeCount))")
    line("")
    var bytes = 0
    var written = 0
    for change in changes {
      var text = "- \(change.outcome) \(Self.code(change.path))"
      if let detail = change.detail {
        text += ": " + detail.replacingOccurrences(of: "\n", with: " ")
      }
      guard bytes + text.utf8.count + 1 <= changeBudget else { break }
      line(text)
      bytes += text.utf8.count + 1
      written += 1
    }
    if written < changeCount { line("- and \(changeCount - written) more") }
    line("")
    if let landCommand {
      line("Review them on the report's page, export the decisions, and land the accepted ones:")
      line("")
      line(Self.code(landCommand))
      line("")
    }
  }

  private func writeList(_ title: String, _ items: [String], _ line: (String) -> Void) {
    guard !items.isEmpty else { return }
    line("### \(title) (\(items.count))")
    line("")
    for item in items.prefix(Self.problemLimit) {
      line("- " + item.replacingOccurrences(of: "\n", with: " "))
    }
    if items.count > Self.problemLimit { line("- and \(items.count - Self.problemLimit) more") }
    line("")
  }

  /// A path as a Markdown code span, fenced with more backticks than it holds.
  static func code(_ text: String) -> String {
    var longest = 0
    var run = 0
    for character in text {
      run = character == "`" ? run + 1 : 0
      longest = max(longest, run)
    }
    let fence = String(repeating: "`", count: longest + 1)
    return longest == 0 ? "\(fence)\(text)\(fence)" : "\(fence) \(text) \(fence)"
  }
}
