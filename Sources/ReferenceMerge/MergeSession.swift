import Foundation
import ReferenceArchive

/// One whole `merge-refs` run: expand the sources, plan, check the rules that stop a merge,
/// apply, and summarise. The command line only parses arguments and prints.
public struct MergeSession: Sendable {
  /// The outcome of a run.
  public struct Outcome: Sendable {
    /// The summary to print.
    public var summary: MergeSummary
    /// The documented exit code: 0, 1, 2 or 3 (4 is the caller's, for `--check`).
    public var exitCode: Int32
    /// Whether the plan would change the destination.
    public var hasChanges: Bool
    /// The plan, for reports.
    public var plan: MergePlan?
  }

  /// The exit codes `merge-refs` documents.
  public enum ExitCodes {
    public static let success: Int32 = 0
    public static let writeFailed: Int32 = 1
    public static let conflicts: Int32 = 2
    public static let refusedInput: Int32 = 3
    public static let checkFoundChanges: Int32 = 4
  }

  let options: MergeOptions
  let destination: URL
  let writesNothing: Bool
  let progress: MergeProgress
  let reportURL: URL?
  /// The program the review page's command line runs: `merge-refs` unless set.
  public var program = "merge-refs"

  /// Creates a session.
  /// - Parameters:
  ///   - options: The merge options.
  ///   - destination: The package root.
  ///   - writesNothing: For `--dry-run` and `--check`.
  ///   - progress: Receives progress updates.
  ///   - reportURL: Where to write the HTML review report, if anywhere.
  public init(
    options: MergeOptions, destination: URL, writesNothing: Bool,
    progress: some MergeProgress = SilentProgress(), reportURL: URL? = nil
  ) {
    self.reportURL = reportURL
    self.options = options
    self.destination = destination
    self.writesNothing = writesNothing
    self.progress = progress
  }

  /// Runs the merge.
  /// - Parameter sourcePaths: The SOURCE arguments.
  /// - Returns: The summary and exit code.
  public func run(sourcePaths: [String]) -> Outcome {
    var errors: [String] = []
    var sources: [MergeSource] = []
    for path in sourcePaths {
      do {
        sources += try MergeSource.expand(path, limits: options.limits)
      } catch {
        errors.append("\(error)")
      }
    }
    // Dry runs write nothing, not even the hidden staging folder.
    var staging: MergeStaging?
    if !writesNothing {
      do {
        staging = try MergeStaging(destination: destination)
      } catch {
        errors.append("\(error)")
      }
    }
    defer { staging?.remove() }
    var plan = MergePlanner(options: options).plan(
      sources: sources, destination: destination, staging: staging
    ) {
      progress.update("reading sources", $0, $1)
    }
    progress.clear()
    let expansionFailed = !errors.isEmpty
    if expansionFailed {
      // A source that could not even be listed may hold references: without it, orphans are
      // not known, and must never be pruned.
      plan.items.removeAll { $0.outcome == .orphan }
      plan.orphanSearchDone = false
    }
    options.include?.apply(to: &plan)
    errors += plan.badSources.map { "\($0.error)" }
    errors += plan.destinationProblems.map { "\($0)" }
    var warnings = plan.incompleteSources.map {
      "\($0.source.description) is incomplete: \($0.incompleteReason ?? "")"
    }
    if !plan.orphanSearchDone && !plan.inventories.isEmpty {
      warnings.append("orphans were not looked for: not every source is a complete run")
    }
    var reportPath: String?
    if let reportURL {
      // Written before applying, so "before" shows the references as they were.
      do {
        var report = ReviewReport(limits: options.limits)
        report.landCommand = landCommand(sourcePaths: sourcePaths)
        try report.write(plan, to: reportURL)
        reportPath = reportURL.path
      } catch {
        errors.append("could not write the review report: \(error)")
      }
    }
    let hasChanges = plan.hasChanges(prune: options.prune)
    let code = stopCode(
      plan: plan,
      expandErrors: errors.count - plan.badSources.count - plan.destinationProblems.count)
    if let code {
      if code == ExitCodes.refusedInput && options.requireComplete
        && !plan.incompleteSources.isEmpty
      {
        errors.append("--require-complete refuses the incomplete sources listed above")
      }
      return Outcome(
        summary: MergeSummary(
          plan: plan, applied: nil, dryRun: writesNothing, errors: errors, warnings: warnings,
          report: reportPath),
        exitCode: code, hasChanges: hasChanges, plan: plan)
    }
    if writesNothing {
      return Outcome(
        summary: MergeSummary(
          plan: plan, applied: nil, dryRun: true, errors: errors, warnings: warnings,
          report: reportPath),
        exitCode: badSourcesCode(plan, expansionFailed: expansionFailed), hasChanges: hasChanges,
        plan: plan)
    }
    do {
      let result = try MergeApplier(options: options).apply(plan, staging: staging) {
        progress.update("writing", $0, $1)
      }
      progress.clear()
      warnings += result.leftoversRemoved.map { "removed \($0), left by an interrupted merge" }
      return Outcome(
        summary: MergeSummary(
          plan: plan, applied: result, dryRun: false, errors: errors, warnings: warnings,
          report: reportPath),
        exitCode: badSourcesCode(plan, expansionFailed: expansionFailed), hasChanges: hasChanges,
        plan: plan)
    } catch {
      progress.clear()
      errors.append("\(error); files written so far are complete, rerun the same command to finish")
      return Outcome(
        summary: MergeSummary(
          plan: plan, applied: nil, dryRun: false, errors: errors, warnings: warnings,
          report: reportPath),
        exitCode: ExitCodes.writeFailed, hasChanges: hasChanges, plan: plan)
    }
  }

  /// The command that lands this merge again, for the review page to add its decision to: the
  /// options that shape the result, every source and the destination, as absolute paths.
  private func landCommand(sourcePaths: [String]) -> [String] {
    var command = [program]
    if options.onConflict == .newest { command += ["--on-conflict", "newest"] }
    if options.prune { command.append("--prune") }
    if options.requireComplete { command.append("--require-complete") }
    if options.keepGoing { command.append("--keep-going") }
    command += sourcePaths.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    return command + [destination.path]
  }

  /// The exit code that stops the merge before anything is written, or nil to go on.
  private func stopCode(plan: MergePlan, expandErrors: Int) -> Int32? {
    let refused = !plan.badSources.isEmpty || expandErrors > 0
    if (refused && !options.keepGoing) || !plan.destinationProblems.isEmpty {
      return ExitCodes.refusedInput
    }
    if options.requireComplete && !plan.incompleteSources.isEmpty { return ExitCodes.refusedInput }
    if !plan.items(.conflict).isEmpty { return ExitCodes.conflicts }
    return nil
  }

  /// With `--keep-going`, a run that skipped bad sources still reports them in its exit code.
  private func badSourcesCode(_ plan: MergePlan, expansionFailed: Bool) -> Int32 {
    plan.badSources.isEmpty && !expansionFailed ? ExitCodes.success : ExitCodes.refusedInput
  }
}

/// Receives progress of long merges.
public protocol MergeProgress: Sendable {
  /// Reports that `done` of `total` steps of a stage are finished.
  func update(_ stage: String, _ done: Int, _ total: Int)
  /// Clears the progress display.
  func clear()
}

/// Reports nothing.
public struct SilentProgress: MergeProgress {
  /// Creates a silent reporter.
  public init() {}
  public func update(_ stage: String, _ done: Int, _ total: Int) {}
  public func clear() {}
}
