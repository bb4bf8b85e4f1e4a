import ArgumentParser
import Foundation
import ReferenceContracts
import ReferenceMerge
import ReferenceShards

/// What a merge leaves for CI besides its summary: the shards' timings for the next plan, the
/// Markdown job summary, and the annotations. Each is written from the conclusion alone.
struct CIOutputs {
  /// `--timings-output`.
  var timingsOutput: String?
  /// `--summary-markdown`.
  var summaryMarkdown: String?
  /// `--github-annotations`.
  var githubAnnotations: Bool
  /// `--dry-run` or `--check`.
  var writesNothing: Bool

  /// Writes every output asked for.
  /// - Throws: `ExitCode(writeFailed)` after naming the file that could not be written.
  func write(_ outcome: MergeSession.Conclusion, shards: ShardInputs, exitCode: Int32) throws {
    if let timingsOutput, !shards.sources.isEmpty {
      try writing("the timings", to: timingsOutput) { try shards.writeTimings(to: timingsOutput) }
    }
    let errors = problemLines(outcome.summary)
    if let summaryMarkdown {
      let markdown = jobSummary(outcome, shards: shards, exitCode: exitCode, errors: errors)
      try writing("the Markdown summary", to: summaryMarkdown) {
        try append(markdown, to: summaryMarkdown)
      }
    }
    if githubAnnotations {
      for line in annotations(outcome.summary, errors: errors) { print(line) }
    }
  }

  /// The summary's errors, then a line per conflict and per unstable render.
  private func problemLines(_ summary: MergeSummary) -> [String] {
    let conflicts = summary.changes.matching(.conflict).map {
      "conflict\(Self.ofVariant($0)): sources disagree about \($0.path) "
        + "(\($0.sources.joined(separator: " vs ")))"
    }
    let unstable = summary.changes.matching(.unstable).map {
      "unstable\(Self.ofVariant($0)): replicated runs rendered \($0.path) differently "
        + "(\($0.workers.joined(separator: " vs ")))"
    }
    return summary.errors + conflicts + unstable
  }

  private func jobSummary(
    _ outcome: MergeSession.Conclusion, shards: ShardInputs, exitCode: Int32, errors: [String]
  ) -> JobSummary {
    let summary = outcome.summary
    let rows = shards.summaryShards(outcome.plan)
    var markdown = JobSummary(
      outcome: summary.summaryLine, exitCode: exitCode, shards: rows,
      changeCount: summary.changes.count,
      changes: AnySequence(
        summary.changes.lazy.map {
          .init(outcome: $0.outcome, path: $0.path, detail: Self.detail($0))
        }),
      problems: errors, warnings: summary.warnings)
    markdown.balance = ShardPlan.balance(rows.map(\.seconds))
    markdown.landCommand = outcome.landCommand
    markdown.writesNothing = writesNothing
    markdown.variants = summary.variants ?? []
    markdown.changeGroups = summary.changeGroups
    return markdown
  }

  /// Appends the job summary line by line, as GitHub's step summary file is appended to.
  private func append(_ markdown: JobSummary, to path: String) throws {
    let file = try LineAppender(path: path)
    var failure: Error?
    markdown.write { line in
      guard failure == nil else { return }
      do { try file.append(line) } catch { failure = error }
    }
    if let failure { throw failure }
    try file.close()
  }

  /// At most `Annotations.defaultLimit` lines placed at the failed comparisons' assertions, then
  /// the errors and warnings.
  private func annotations(_ summary: MergeSummary, errors: [String]) -> [String] {
    let located = summary.changes.lazy.compactMap { change in
      change.failedComparison.map {
        Annotations.Located(
          file: $0.record.file, line: $0.record.line,
          title: "Reference image \(change.outcome)\(Self.ofVariant(change)): \(change.path)",
          message: Self.detail($0))
      }
    }
    return Annotations.lines(
      located: Array(located.prefix(Annotations.defaultLimit)), errors: errors,
      warnings: summary.warnings)
  }

  /// Runs `body`; a failure is printed naming `what` and `path`, and ends the run with
  /// `writeFailed`.
  private func writing(_ what: String, to path: String, _ body: () throws -> Void) throws {
    do {
      try body()
    } catch {
      FileHandle.standardError.write(
        Data("error: could not write \(what) to \(path): \(error)\n".utf8))
      throw ExitCode(ExitStatus.writeFailed.rawValue)
    }
  }

  /// " (variant linux-arm64)" for a variant file's change; empty for the base.
  private static func ofVariant(_ change: MergeSummary.Change) -> String {
    change.variant.map { " (variant \($0))" } ?? ""
  }

  /// A failed comparison in a few words: "test T, exact: 12 of 480000 pixels differ".
  /// A change's detail: its failed comparison's figures, then its regions' kinds when the
  /// review report found them ("moved by (2, 1), added"); nil when there is neither.
  private static func detail(_ change: MergeSummary.Change) -> String? {
    let parts = [change.failedComparison.map(detail), change.kindsText].compactMap { $0 }
    return parts.isEmpty ? nil : parts.joined(separator: "; ")
  }

  private static func detail(_ failure: SourceInventory.FailedComparison) -> String {
    let record = failure.record
    let figures =
      record.differingPixels.map { "\($0) of \(record.totalPixels) pixels differ" }
      ?? record.verdict
    let test = failure.test.map { "test \($0), " } ?? ""
    return "\(test)\(record.comparison) comparison at \(record.file):\(record.line): \(figures)"
  }
}
