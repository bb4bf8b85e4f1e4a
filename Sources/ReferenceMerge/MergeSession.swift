import CSystemCalls
import Foundation
import ReferenceArchive
import ReferenceContracts
import ReferenceImageCore

/// One whole `merge-refs` run: expand the sources, plan, check the rules that stop a merge,
/// apply, and summarise. The command line only parses arguments and prints.
public struct MergeSession: Sendable {
  /// How a run ended: its summary, exit code and problems (`MergePlan.Outcome` is a path's).
  public struct Conclusion: Sendable {
    /// The summary to print.
    public var summary: MergeSummary
    /// The documented exit code: 0, 1, 2 or 3 (4 is the caller's, for `--check`).
    public var exitCode: Int32
    /// Whether the plan would change the destination.
    public var hasChanges: Bool
    /// The plan, for reports.
    public var plan: MergePlan?
    /// Every problem met, in the order met; their kinds decided `exitCode`.
    public var problems: [MergeProblem]
    /// Whether the problems or conflicts stop the merge before anything is written.
    public var stopsBeforeWriting: Bool
    /// With a portable program (a report for a CI artifact): the command that lands the
    /// decisions exported from the report's page, as one shell line.
    public var landCommand: String?
  }

  let options: MergeOptions
  let destination: URL
  let writesNothing: Bool
  let progress: MergeProgress
  let reportURL: URL?
  /// The program the review page's command line runs: `merge-refs` unless set.
  public var program = "merge-refs"
  /// The words of the program the page's command runs instead, such as `swift run merge-refs`,
  /// for a report that travels in a CI artifact: the command then names the sources and the
  /// destination as given, relative ones staying relative to where the reader runs it.
  public var portableProgram: [String]?
  /// A check of the runs read that may stop the merge before anything is written, such as
  /// `--require-shards`; the planner takes it in (`MergePlanner.check`), and its problems count
  /// like any other.
  public var planCheck: (@Sendable ([SourceInventory]) -> PlanCheck)?
  /// What the inputs' own records prove wrong before any source is read, such as
  /// `--require-shards`' records (a listed archive missing or changed, a planned shard missing,
  /// two records of one shard): when it finds problems, the merge stops there, having read,
  /// staged and written nothing.
  public var recordCheck: (@Sendable () -> [MergeProblem])?
  /// Writes the review report's cards for the finished plan to the `reportURL` the session was
  /// made with, before anything is applied; the session finishes it with what applying did.
  /// `merge-refs` sets `ReviewReport.write(_:request:)` from the `ReferenceReview` module, so
  /// the merge itself never carries the page. A session given a report URL and no writer
  /// reports `MergeProblem.reportNotWritten`. The writer throws an error of its own kind
  /// (`ReviewError`), which the problem keeps as its text.
  public var report: (@Sendable (MergePlan, ReportRequest) throws -> UnfinishedReport)?
  /// The system calls the destination is reached through; tests replace some.
  package var fileCalls = FileCalls.system

  /// Creates a session.
  /// - Parameters:
  ///   - options: The merge options.
  ///   - destination: The package root.
  ///   - writesNothing: For `--dry-run` and `--check`.
  ///   - progress: Receives progress updates.
  ///   - reportURL: Where to write the review report, if anywhere: a folder, or one file for a
  ///     path ending in `.html`.
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

  /// The destination as the command line gave it, for a portable land command.
  public var destinationPath = "."

  /// Runs the merge.
  /// - Parameter sourcePaths: The SOURCE arguments.
  /// - Returns: The summary and exit code.
  public func run(sourcePaths: [String]) -> Conclusion {
    var outcome = merge(sourcePaths: sourcePaths)
    if portableProgram != nil, reportURL != nil {
      let command = landCommand(sourcePaths: sourcePaths)
      outcome.landCommand =
        (command.program + ["--include-from", ReportRequest.decisionFileName]
        + command.arguments).map(ShellWord.quoted).joined(separator: " ")
    }
    return outcome
  }

  /// The merge in its steps: read and plan, write the report's cards, stop or apply, then end
  /// the report with what was done.
  private func merge(sourcePaths: [String]) -> Conclusion {
    if let problems = recordCheck?(), !problems.isEmpty { return refusedBeforeReading(problems) }
    let (sources, unlistable) = expand(sourcePaths)
    if let refusal = unfinishedRunsRefusal(sources) { return refusal }
    let destination: Destination
    do {
      destination = try Destination(root: self.destination, calls: fileCalls)
      destination.storedReferences?.compacts = options.compact
    } catch {
      return unreachable(error, unlistable: unlistable)
    }
    // Dry runs write nothing, not even the hidden staging folder. Staging only spares a second
    // read of the sources: a destination where it cannot be created is reported when applying.
    let staging = writesNothing ? nil : try? MergeStaging(destination: destination)
    defer { staging?.remove() }
    let plan = makePlan(sources, unlistable: unlistable, destination, staging)
    var problems = plan.problems
    let report = startReport(plan, &problems, sourcePaths: sourcePaths, destination)
    if writesNothing || Conclusion.stops(plan, problems, options) {
      let ending = ReportRequest.Ending(
        changes: writesNothing ? .pending : .stopped, problems: problems.map(\.description))
      return finish(report, ending) { more, page in
        Conclusion(
          plan: plan, problems: problems + more, warnings: plan.warnings, report: page,
          options: options, dryRun: writesNothing)
      }
    }
    return apply(plan, problems: problems, report: report, destination, staging)
  }

  /// The sources the arguments name, and the errors of those that could not be listed.
  private func expand(_ sourcePaths: [String]) -> ([MergeSource], [MergeError]) {
    var sources: [MergeSource] = []
    var unlistable: [MergeError] = []
    for path in sourcePaths {
      do {
        sources += try MergeSource.expand(
          path, limits: options.limits, destination: destination)
      } catch {
        unlistable.append(error)
      }
    }
    return (MergeSource.crossChecked(sources), unlistable)
  }

  /// The conclusion when the destination cannot even be opened.
  private func unreachable(_ error: MergeError, unlistable: [MergeError]) -> Conclusion {
    Conclusion(
      plan: emptyPlan,
      problems: unlistable.map { .unlistableSource($0) } + [.writeFailed(error)], warnings: [],
      report: nil, options: options, dryRun: writesNothing)
  }

  /// The conclusion when the records refuse the merge before anything is read.
  /// Each problem the records prove refuses one input (a lost archive, a missing shard), and
  /// the summary counts them.
  private func refusedBeforeReading(_ problems: [MergeProblem]) -> Conclusion {
    var conclusion = Conclusion(
      plan: emptyPlan, problems: problems, warnings: [], report: nil, options: options,
      dryRun: writesNothing)
    conclusion.summary.refused += problems.count
    return conclusion
  }

  /// With `--require-complete`, the refusal the manifests alone decide (a run cut short, or
  /// one that could not write every image), before any image is read or staged; nil when
  /// they decide none.
  private func unfinishedRunsRefusal(_ sources: [MergeSource]) -> Conclusion? {
    guard options.requireComplete else { return nil }
    let unfinished = DeclaredCompletion.unfinished(sources)
    guard !unfinished.isEmpty else { return nil }
    var plan = emptyPlan
    plan.inventories = unfinished
    let warnings = unfinished.map {
      "\($0.source.description) is incomplete: "
        + ($0.incompleteReason(listing: MergeSummary.listLimit) ?? "")
    }
    return Conclusion(
      plan: plan, problems: [.incompleteSources], warnings: warnings, report: nil,
      options: options, dryRun: writesNothing)
  }

  /// The plan of a merge that read nothing.
  private var emptyPlan: MergePlan {
    MergePlan(
      destination: destination, inventories: [], badSources: [], destinationProblems: [],
      items: [], orphanSearchDone: false)
  }

  /// Reads the sources and plans, with progress.
  private func makePlan(
    _ sources: [MergeSource], unlistable: [MergeError], _ destination: Destination,
    _ staging: MergeStaging?
  ) -> MergePlan {
    let progress = progress
    let plan = MergePlanner(options: options, check: planCheck).plan(
      sources: sources, unlistable: unlistable, destination: destination, staging: staging
    ) {
      progress.update("reading sources", $0, $1)
    }
    progress.clear()
    // What reading the sources needed (their lists of images, buffers) is freed by now; its
    // pages go back to the system instead of adding to what applying needs.
    ri_release_free_memory()
    return plan
  }

  /// Writes the review report's cards, when a report was asked for, before applying, so
  /// "before" shows the references as they were. A report that cannot be written is a problem
  /// of its own, which stops the merge.
  private func startReport(
    _ plan: MergePlan, _ problems: inout [MergeProblem], sourcePaths: [String],
    _ destination: Destination
  ) -> UnfinishedReport? {
    guard let reportURL else { return nil }
    do {
      guard let report else {
        throw MergeError.io(
          operation: "write the review report", path: reportURL.path,
          message: "this program was built without the review report")
      }
      // Landed exactly when the merge goes on to apply: the same rule decides.
      let stops = Conclusion.stops(plan, problems, options)
      let request = ReportRequest(
        url: reportURL, limits: options.limits,
        landCommand: landCommand(sourcePaths: sourcePaths),
        problems: problems.map(\.description), warnings: plan.warnings,
        destination: destination,
        changes: writesNothing ? .pending : stops ? .stopped : .landed)
      return try report(plan, request)
    } catch {
      problems.append(.reportNotWritten("\(error)"))
      return nil
    }
  }

  /// Ends the report with what the merge did and concludes with its page; a report that
  /// cannot be finished is a problem of its own (the merge is done by then).
  /// - Parameter conclude: The conclusion, given more problems and the page.
  private func finish(
    _ report: UnfinishedReport?, _ ending: ReportRequest.Ending,
    conclude: ([MergeProblem], String?) -> Conclusion
  ) -> Conclusion {
    guard let report else { return conclude([], nil) }
    var conclusion: Conclusion
    do {
      conclusion = conclude([], try report.finish(ending).path)
    } catch {
      conclusion = conclude([.reportNotWritten("\(error)")], nil)
    }
    // What the report's cards found, for the summaries to lead with.
    conclusion.summary.changeGroups = report.changeGroups
    conclusion.summary.changes.regionKinds = report.regionKinds
    return conclusion
  }

  /// Applies the plan. A failed write comes back with what was written before it, so the
  /// summary and the report count only files really written.
  private func apply(
    _ plan: MergePlan, problems: [MergeProblem], report: UnfinishedReport?,
    _ destination: Destination, _ staging: MergeStaging?
  ) -> Conclusion {
    let progress = progress
    let result = MergeApplier(options: options).apply(plan, to: destination, staging: staging) {
      progress.update("writing", $0, $1)
    }
    progress.clear()
    let warnings =
      plan.warnings + result.leftoversRemoved.map { "removed \($0), left by an interrupted merge" }
    let all = problems + (result.failure.map { [.writeFailed($0)] } ?? [])
    return finish(report, Self.ending(result, problems: all)) { more, page in
      Conclusion(
        plan: plan, problems: all + more, warnings: warnings, report: page, options: options,
        dryRun: false, applied: result)
    }
  }

  /// What the report ends with after applying: landed when a file was written or nothing
  /// failed, with the paths a failed write did not reach; failed when nothing was written.
  private static func ending(_ result: MergeApplier.Result, problems: [MergeProblem])
    -> ReportRequest.Ending
  {
    let wroteSomething = !result.writtenItems.isEmpty || !result.deleted.isEmpty
    return ReportRequest.Ending(
      changes: result.failure == nil || wroteSomething ? .landed : .failed,
      notWritten: result.notReached, problems: problems.map(\.description))
  }

  /// The command that lands this merge again, for the review page to add its decision to: the
  /// options that shape the result, every source and the destination, as absolute paths.
  private func landCommand(sourcePaths: [String]) -> LandCommand {
    var command = options.landingWords
    if let portableProgram {
      return .init(program: portableProgram, arguments: command + sourcePaths + [destinationPath])
    }
    command += sourcePaths.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    return .init(program: [program], arguments: command + [destination.path])
  }
}

extension MergeSession.Conclusion {
  /// The one place a run's result is built: the exit code follows from the kinds of the
  /// problems, the conflicts and the options, never from counting messages.
  init(
    plan: MergePlan, problems: [MergeProblem], warnings: [String], report: String?,
    options: MergeOptions, dryRun: Bool, applied: MergeApplier.Result? = nil
  ) {
    let blocking = problems.filter { !(options.keepGoing && $0.isSkippable) }
    let conflicts = !plan.items(.conflict).isEmpty
    self.problems = problems
    stopsBeforeWriting = Self.stops(plan, problems, options)
    exitCode =
      if blocking.contains(where: { $0.kind == .refusedInput }) {
        ExitStatus.refusedInput.rawValue
      } else if problems.contains(where: { $0.kind == .writeFailed }) {
        ExitStatus.writeFailed.rawValue
      } else if conflicts {
        ExitStatus.conflicts.rawValue
      } else if !problems.isEmpty {
        // Sources skipped with --keep-going still show in the exit code.
        ExitStatus.refusedInput.rawValue
      } else if !plan.items(.unstable).isEmpty {
        ExitStatus.unstableRenders.rawValue
      } else {
        ExitStatus.success.rawValue
      }
    hasChanges = plan.hasChanges(prune: options.prune)
    self.plan = plan
    summary = MergeSummary(
      plan: plan, applied: applied, dryRun: dryRun, errors: problems.map(\.description),
      warnings: warnings, report: report)
    summary.refused += problems.count(where: Self.refusedWhileListed)
  }

  /// Whether a problem is a source refused for what it holds while it was listed (a result
  /// bundle whose object graph is refused, a zipped bundle): it never became one of the plan's
  /// sources, and is refused all the same. A path that cannot be found or read is an error,
  /// not a refusal.
  private static func refusedWhileListed(_ problem: MergeProblem) -> Bool {
    guard case .unlistableSource(let error) = problem else { return false }
    if case .io = error { return false }
    return true
  }
}

extension MergeSession.Conclusion {
  /// Whether the problems (those `--keep-going` cannot skip) or conflicts stop the merge
  /// before anything is written: the one rule, for the conclusion and the report alike.
  static func stops(_ plan: MergePlan, _ problems: [MergeProblem], _ options: MergeOptions)
    -> Bool
  {
    problems.contains { !(options.keepGoing && $0.isSkippable) }
      || plan.items.contains { $0.outcome == .conflict }
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
