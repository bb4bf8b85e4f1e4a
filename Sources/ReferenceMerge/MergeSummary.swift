import Foundation
import ReferenceArchive

/// The outcome of a `merge-refs` run in a form for people (`text`) and machines (`json`).
public struct MergeSummary: Codable, Sendable {
  /// One source line.
  public struct Source: Codable, Sendable {
    public var name: String
    public var worker: String?
    public var images: Int
    public var complete: Bool
    public var incompleteReason: String?
  }

  /// One changed or conflicting path.
  public struct Change: Codable, Sendable {
    public var path: String
    /// The path's outcome, typed to the last printed line (its raw value in `--json`).
    public var outcome: MergePlan.Outcome
    /// The sources holding the chosen image, or every rival for conflicts.
    public var sources: [String]
    public var workers: [String]
    public var differingPixels: Int?
    public var resolvedByNewest: Bool
    /// For the render of a failed comparison: the test, the verdict and the assertion's place.
    public var failedComparison: SourceInventory.FailedComparison?
    /// True for an added, updated or orphan path that applying did not reach because a write
    /// failed first (the file is as it was); absent otherwise.
    public var notWritten: Bool?
  }

  public var destination: String
  public var dryRun: Bool
  /// Whether the plan was applied to its end.
  public var applied: Bool
  /// Files added; when applying failed, only those really written.
  public var added: Int
  /// Files updated; when applying failed, only those really written.
  public var updated: Int
  /// When applying failed: the planned writes and deletions it did not reach (those files
  /// are as they were). 0 otherwise.
  public var notWritten: Int
  public var unchanged: Int
  public var conflicts: Int
  /// Paths whose replicated renders differ: never written.
  public var unstable: Int
  public var orphans: Int
  public var pruned: Int
  public var refused: Int
  public var orphanSearchDone: Bool
  /// Why orphans were not looked for, when they were not.
  public var orphanSearchRefusal: String?
  /// The tests the runs recorded as skipped: they verified nothing, and their references stay.
  public var skippedTests: [String]
  public var sources: [Source]
  public var changes: [Change]
  /// Changes left out by `--include`, with the outcome they would have had.
  public var skipped: [Change]
  /// Renders that a later run superseded: never written.
  public var superseded: [Superseded]

  /// A render that a later run superseded (`MergePlan.Superseded`), as the summary shows it.
  public struct Superseded: Codable, Sendable, Equatable {
    /// The package-relative path.
    public var path: String
    /// The test that rendered it, when known.
    public var test: String?
    /// The source holding the render.
    public var source: String
    /// Whether the later run rendered the path again, rather than compared and passed.
    public var laterRunRenderedAgain: Bool
    /// When the later run started, ISO 8601.
    public var laterRunStart: String
  }
  public var errors: [String]
  public var warnings: [String]
  /// The review report written, if any.
  public var report: String?
  /// The command that deletes the orphans found, as the user would type it (the same
  /// sources and destination plus `--prune`); set by the program that ran the merge, and
  /// printed only when orphans were found and not pruned.
  public var pruneCommand: String?

  /// Summarises a plan and, when it was applied, what happened.
  public init(
    plan: MergePlan, applied: MergeApplier.Result?, dryRun: Bool, errors: [String],
    warnings: [String], report: String? = nil
  ) {
    self.report = report
    let counts = plan.counts
    destination = plan.destination.path
    self.dryRun = dryRun
    self.applied = applied != nil && applied?.failure == nil
    // A failed apply counts what it wrote, never what it meant to write.
    let unreached = Set(applied?.notReached ?? [])
    let unwritten = { (outcome: MergePlan.Outcome) in
      unreached.isEmpty
        ? 0 : plan.items.count { $0.outcome == outcome && unreached.contains($0.path) }
    }
    added = (counts[.added] ?? 0) - unwritten(.added)
    updated = (counts[.updated] ?? 0) - unwritten(.updated)
    notWritten = unreached.count
    unchanged = counts[.unchanged] ?? 0
    conflicts = counts[.conflict] ?? 0
    unstable = counts[.unstable] ?? 0
    orphans = counts[.orphan] ?? 0
    pruned = applied?.deleted.count ?? 0
    refused = plan.badSources.count + plan.destinationProblems.count
    orphanSearchDone = plan.orphanSearchDone
    orphanSearchRefusal = plan.orphanSearchDone ? nil : plan.orphanSearchRefusal
    skippedTests = plan.skippedTests
    sources =
      plan.inventories.map {
        Source(
          name: $0.source.description, worker: $0.manifest?.worker.summary,
          images: $0.imageCount, complete: $0.isComplete, incompleteReason: $0.incompleteReason)
      }
      + plan.badSources.map {
        Source(
          name: $0.source.description, worker: nil, images: 0, complete: false,
          incompleteReason: "refused: \($0.error)")
      }
    // Built once per source and shared by every change it holds: a merge of many archives
    // otherwise held two new strings per changed path, and two new arrays for the one holder
    // most changes have.
    let names = plan.inventories.map(\.source.description)
    let workers = plan.inventories.map(\.workerSummary)
    let soleName = names.map { [$0] }
    let soleWorker = workers.map { [$0] }
    let change = { (item: MergePlan.Item) in
      let holders = item.chosen.map { [$0] } ?? item.rivals
      let sole = holders.count == 1 ? holders[0].sourceIndex : nil
      return Change(
        path: item.path, outcome: item.outcome,
        sources: sole.map { soleName[$0] } ?? holders.map { names[$0.sourceIndex] },
        workers: sole.map { soleWorker[$0] } ?? holders.map { workers[$0.sourceIndex] },
        differingPixels: item.conflictingPixels, resolvedByNewest: item.resolvedByNewest,
        failedComparison: item.chosen?.image.failedComparison,
        notWritten: !unreached.isEmpty && unreached.contains(item.path) ? true : nil)
    }
    // Visited in place and sized once: a filtered copy of the plan's items, or an array grown
    // by doubling, would be a peak of their own.
    let changed = plan.items.lazy.filter { $0.outcome != .unchanged }
    changes = []
    changes.reserveCapacity(changed.count)
    changes.append(contentsOf: changed.map(change))
    skipped = plan.skipped.map(change)
    let formatter = ISO8601DateFormatter()
    superseded = plan.superseded.map {
      Superseded(
        path: $0.path, test: $0.test, source: $0.source,
        laterRunRenderedAgain: $0.laterRunRenderedAgain,
        laterRunStart: formatter.string(from: $0.laterRunStart))
    }
    self.errors = errors
    self.warnings = warnings
  }

  /// Indented JSON with sorted keys; nil values are left out.
  public func json() -> String {
    let output = BufferedOutput()
    writeJSON(to: output)
    try? output.finish()
    return String(decoding: output.collected, as: UTF8.self)
  }

  /// Writes `json()` and a new line to an open file descriptor (1 for standard output) as it
  /// is made, change by change, never holding the whole text.
  /// - Parameter descriptor: The descriptor; it stays open.
  /// - Returns: Whether every write succeeded.
  @discardableResult
  public func writeJSON(toDescriptor descriptor: Int32) -> Bool {
    let output = BufferedOutput(descriptor: descriptor, name: "standard output")
    writeJSON(to: output)
    output.write("\n")
    return (try? output.finish()) != nil
  }

  func writeJSON(to output: BufferedOutput) {
    var json = JSONStream(output)
    json.beginObject()
    json.member("added", added)
    json.key("applied")
    json.bool(applied)
    json.key("changes")
    write(changes, to: &json)
    json.member("conflicts", conflicts)
    json.member("destination", destination)
    json.key("dryRun")
    json.bool(dryRun)
    json.member("errors", strings: errors)
    json.member("notWritten", notWritten)
    json.key("orphanSearchDone")
    json.bool(orphanSearchDone)
    if let orphanSearchRefusal { json.member("orphanSearchRefusal", orphanSearchRefusal) }
    json.member("orphans", orphans)
    if let pruneCommand { json.member("pruneCommand", pruneCommand) }
    json.member("pruned", pruned)
    json.member("refused", refused)
    if let report { json.member("report", report) }
    json.key("skipped")
    write(skipped, to: &json)
    json.member("skippedTests", strings: skippedTests)
    json.key("superseded")
    json.beginArray()
    for item in superseded {
      json.beginObject()
      json.member("laterRunStart", item.laterRunStart)
      json.key("laterRunRenderedAgain")
      json.bool(item.laterRunRenderedAgain)
      json.member("path", item.path)
      json.member("source", item.source)
      if let test = item.test { json.member("test", test) }
      json.endObject()
    }
    json.endArray()
    json.key("sources")
    json.beginArray()
    for source in sources {
      json.beginObject()
      json.key("complete")
      json.bool(source.complete)
      json.member("images", source.images)
      if let reason = source.incompleteReason { json.member("incompleteReason", reason) }
      json.member("name", source.name)
      if let worker = source.worker { json.member("worker", worker) }
      json.endObject()
    }
    json.endArray()
    json.member("unchanged", unchanged)
    json.member("unstable", unstable)
    json.member("updated", updated)
    json.member("warnings", strings: warnings)
    json.endObject()
  }

  private func write(_ changes: [Change], to json: inout JSONStream) {
    json.beginArray()
    for change in changes {
      json.beginObject()
      if let pixels = change.differingPixels { json.member("differingPixels", pixels) }
      if let failure = change.failedComparison { write(failure, to: &json) }
      if change.notWritten == true {
        json.key("notWritten")
        json.bool(true)
      }
      json.member("outcome", change.outcome.rawValue)
      json.member("path", change.path)
      json.key("resolvedByNewest")
      json.bool(change.resolvedByNewest)
      json.member("sources", strings: change.sources)
      json.member("workers", strings: change.workers)
      json.endObject()
    }
    json.endArray()
  }

  private func write(_ failure: SourceInventory.FailedComparison, to json: inout JSONStream) {
    let record = failure.record
    json.key("failedComparison")
    json.beginObject()
    json.member("comparison", record.comparison)
    if let pixels = record.differingPixels { json.member("differingPixels", pixels) }
    json.member("file", record.file)
    json.member("line", record.line)
    if let digest = record.referencePixelSHA256 { json.member("referencePixelSHA256", digest) }
    if let test = failure.test { json.member("test", test) }
    json.member("totalPixels", record.totalPixels)
    json.member("verdict", record.verdict)
    json.endObject()
  }

  /// The report for a terminal: the sources, every change, warnings, errors, then one summary
  /// line.
  /// - Parameter verbose: List every source with its image count and worker, instead of one
  ///   line counting them.
  public func text(verbose: Bool = false) -> String {
    var lines: [String] = []
    forEachTextLine(verbose: verbose) { lines.append($0) }
    return lines.joined(separator: "\n")
  }

  /// The lines of `text(verbose:)`, one at a time, without building the whole text. Each part
  /// is a section of its own, in the order printed, so a new kind of line has one place to go.
  public func forEachTextLine(verbose: Bool = false, _ body: (String) -> Void) {
    sourceLines(verbose: verbose, body)
    problemLines(body)
    changeLines(body)
    skippedLines(body)
    supersededLines(verbose: verbose, body)
    for warning in warnings { body("warning: \(warning)") }
    for error in errors { body("error: \(error)") }
    if let report { body("review report: \(report)") }
    if let pruneCommand, orphans > 0, pruned == 0 {
      body("to delete the orphans: \(pruneCommand)")
    }
    body(summaryLine)
  }

  /// Every source on a line of its own when verbose; otherwise one line counting them (the
  /// incomplete and refused ones are named by the warnings and errors).
  private func sourceLines(verbose: Bool, _ body: (String) -> Void) {
    if verbose {
      body("sources (\(sources.count)):")
      for source in sources {
        var line = "  \(source.name): \(source.images) image\(source.images == 1 ? "" : "s")"
        if let worker = source.worker { line += ", \(worker)" }
        if let reason = source.incompleteReason { line += " — INCOMPLETE: \(reason)" }
        body(line)
      }
      return
    }
    let images = count(sources.reduce(0) { $0 + $1.images }, "image", "images")
    var line = "\(count(sources.count, "source", "sources")): \(images)"
    if sources.count > 1 { line += " in \(sources.count { $0.images > 0 }) of them" }
    let incomplete = sources.count { !$0.complete }
    if incomplete > 0 { line += ", \(incomplete) incomplete or refused" }
    if sources.count > 1 { line += " (--verbose lists each)" }
    body(line)
  }

  private func problemLines(_ body: (String) -> Void) {
    let conflictList = changes.lazy.filter { $0.outcome == .conflict }
    if !conflictList.isEmpty {
      body("conflicts (sources disagree; nothing was written):")
      for change in conflictList {
        body("  \(change.path): \(describe(change))")
      }
    }
    let unstableList = changes.lazy.filter { $0.outcome == .unstable }
    if !unstableList.isEmpty {
      body("unstable (replicated runs of one test rendered different pixels; not written):")
      for change in unstableList {
        body("  \(change.path): \(describe(change))")
      }
    }
  }

  /// Added, updated and orphan paths; when applying failed, the paths it did not reach are
  /// listed apart, so no heading claims a file that was not written.
  private func changeLines(_ body: (String) -> Void) {
    for outcome in [MergePlan.Outcome.added, .updated, .orphan] {
      let list = changes.lazy.filter { $0.outcome == outcome && $0.notWritten != true }
      guard !list.isEmpty else { continue }
      body(outcome == .orphan ? "orphans (no test produced or verified them):" : "\(outcome):")
      for change in list {
        var line = "  \(change.path)"
        if change.resolvedByNewest { line += " (conflict resolved by newest: \(describe(change)))" }
        if let failure = change.failedComparison?.record {
          line += " (failed at \(failure.file):\(failure.line): \(failure.verdict))"
        }
        body(line)
      }
    }
    let unreached = changes.lazy.filter { $0.notWritten == true }
    if !unreached.isEmpty {
      body("not written (a write failed first; these files are as they were):")
      for change in unreached { body("  \(change.path) (\(change.outcome))") }
    }
  }

  /// The superseded renders: a later run of the same tests passed or rendered them again.
  private func supersededLines(verbose: Bool, _ body: (String) -> Void) {
    guard !superseded.isEmpty else { return }
    body("superseded (a later run used these paths again; the earlier renders do not land):")
    let shown = verbose ? superseded[...] : superseded.prefix(10)
    for item in shown {
      let why = item.laterRunRenderedAgain ? "rendered again" : "compared again and passed"
      body(
        "  \(item.path)\(item.test.map { " (\($0))" } ?? ""): \(why) by the run of "
          + item.laterRunStart)
    }
    if shown.count < superseded.count {
      body("  … and \(superseded.count - shown.count) more (--verbose lists them)")
    }
  }

  private func skippedLines(_ body: (String) -> Void) {
    if !skipped.isEmpty {
      body("skipped (not included; left as they are):")
      for change in skipped { body("  \(change.path) (\(change.outcome))") }
    }
    if !skippedTests.isEmpty {
      body("tests skipped (they verified nothing; references they may own are kept):")
      for test in skippedTests.prefix(20) { body("  \(test)") }
      if skippedTests.count > 20 { body("  … and \(skippedTests.count - 20) more") }
    }
  }

  /// "3 added, 1 updated, 40 unchanged, 0 conflicts, 2 orphans, 0 refused".
  public var summaryLine: String {
    var line =
      "\(added) added, \(updated) updated, \(unchanged) unchanged, \(conflicts) conflicts, "
      + "\(orphans) orphans\(pruned > 0 ? " (\(pruned) pruned)" : ""), \(refused) refused"
    if !skipped.isEmpty { line += ", \(skipped.count) skipped" }
    if unstable > 0 { line += ", \(unstable) unstable" }
    if !superseded.isEmpty { line += ", \(superseded.count) superseded" }
    if !skippedTests.isEmpty {
      line += ", \(skippedTests.count) test\(skippedTests.count == 1 ? "" : "s") skipped"
    }
    if notWritten > 0 { line += ", \(notWritten) not written" }
    // Only a failed apply leaves paths not written; what it did write stays counted.
    if dryRun {
      line += " (dry run: nothing written)"
    } else if notWritten > 0 && added + updated + pruned > 0 {
      line += " (stopped by a failed write)"
    } else if !applied {
      line += " (nothing written)"
    }
    return line
  }

  private func count(_ number: Int, _ one: String, _ many: String) -> String {
    "\(number) \(number == 1 ? one : many)"
  }

  private func describe(_ change: Change) -> String {
    let holders = zip(change.sources, change.workers).map { "\($0) [\($1)]" }
    var text = holders.joined(separator: " vs ")
    if let pixels = change.differingPixels { text += ", \(pixels) pixels differ" }
    return text
  }
}
