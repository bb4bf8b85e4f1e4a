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
    public var outcome: String
    /// The sources holding the chosen image, or every rival for conflicts.
    public var sources: [String]
    public var workers: [String]
    public var differingPixels: Int?
    public var resolvedByNewest: Bool
    /// For the render of a failed comparison: the test, the verdict and the assertion's place.
    public var failedComparison: SourceInventory.FailedComparison?
  }

  public var destination: String
  public var dryRun: Bool
  public var applied: Bool
  public var added: Int
  public var updated: Int
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
  public var errors: [String]
  public var warnings: [String]
  /// The review report written, if any.
  public var report: String?

  /// Summarises a plan and, when it was applied, what happened.
  public init(
    plan: MergePlan, applied: MergeApplier.Result?, dryRun: Bool, errors: [String],
    warnings: [String], report: String? = nil
  ) {
    self.report = report
    let counts = plan.counts
    destination = plan.destination.path
    self.dryRun = dryRun
    self.applied = applied != nil
    added = counts[.added] ?? 0
    updated = counts[.updated] ?? 0
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
        path: item.path, outcome: item.outcome.rawValue,
        sources: sole.map { soleName[$0] } ?? holders.map { names[$0.sourceIndex] },
        workers: sole.map { soleWorker[$0] } ?? holders.map { workers[$0.sourceIndex] },
        differingPixels: item.conflictingPixels, resolvedByNewest: item.resolvedByNewest,
        failedComparison: item.chosen?.image.failedComparison)
    }
    // Visited in place and sized once: a filtered copy of the plan's items, or an array grown
    // by doubling, would be a peak of their own.
    let changed = plan.items.lazy.filter { $0.outcome != .unchanged }
    changes = []
    changes.reserveCapacity(changed.count)
    changes.append(contentsOf: changed.map(change))
    skipped = plan.skipped.map(change)
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
    json.key("orphanSearchDone")
    json.bool(orphanSearchDone)
    if let orphanSearchRefusal { json.member("orphanSearchRefusal", orphanSearchRefusal) }
    json.member("orphans", orphans)
    json.member("pruned", pruned)
    json.member("refused", refused)
    if let report { json.member("report", report) }
    json.key("skipped")
    write(skipped, to: &json)
    json.member("skippedTests", strings: skippedTests)
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
      json.member("outcome", change.outcome)
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

  /// The report for a terminal: sources, every change, warnings, errors, then one summary line.
  public func text() -> String {
    var lines: [String] = []
    forEachTextLine { lines.append($0) }
    return lines.joined(separator: "\n")
  }

  /// The lines of `text()`, one at a time, without building the whole text.
  public func forEachTextLine(_ body: (String) -> Void) {
    body("sources (\(sources.count)):")
    for source in sources {
      var line = "  \(source.name): \(source.images) image\(source.images == 1 ? "" : "s")"
      if let worker = source.worker { line += ", \(worker)" }
      if let reason = source.incompleteReason { line += " — INCOMPLETE: \(reason)" }
      body(line)
    }
    let conflictList = changes.lazy.filter { $0.outcome == "conflict" }
    if !conflictList.isEmpty {
      body("conflicts (sources disagree; nothing was written):")
      for change in conflictList {
        body("  \(change.path): \(describe(change))")
      }
    }
    let unstableList = changes.lazy.filter { $0.outcome == "unstable" }
    if !unstableList.isEmpty {
      body("unstable (replicated runs of one test rendered different pixels; not written):")
      for change in unstableList {
        body("  \(change.path): \(describe(change))")
      }
    }
    for outcome in ["added", "updated", "orphan"] {
      let list = changes.lazy.filter { $0.outcome == outcome }
      guard !list.isEmpty else { continue }
      body(outcome == "orphan" ? "orphans (no test produced or verified them):" : "\(outcome):")
      for change in list {
        var line = "  \(change.path)"
        if change.resolvedByNewest { line += " (conflict resolved by newest: \(describe(change)))" }
        if let failure = change.failedComparison?.record {
          line += " (failed at \(failure.file):\(failure.line): \(failure.verdict))"
        }
        body(line)
      }
    }
    if !skipped.isEmpty {
      body("skipped (not included; left as they are):")
      for change in skipped { body("  \(change.path) (\(change.outcome))") }
    }
    if !skippedTests.isEmpty {
      body("tests skipped (they verified nothing; references they may own are kept):")
      for test in skippedTests.prefix(20) { body("  \(test)") }
      if skippedTests.count > 20 { body("  … and \(skippedTests.count - 20) more") }
    }
    for warning in warnings { body("warning: \(warning)") }
    for error in errors { body("error: \(error)") }
    if let report { body("review report: \(report)") }
    body(summaryLine)
  }

  /// "3 added, 1 updated, 40 unchanged, 0 conflicts, 2 orphans, 0 refused".
  public var summaryLine: String {
    var line =
      "\(added) added, \(updated) updated, \(unchanged) unchanged, \(conflicts) conflicts, "
      + "\(orphans) orphans\(pruned > 0 ? " (\(pruned) pruned)" : ""), \(refused) refused"
    if !skipped.isEmpty { line += ", \(skipped.count) skipped" }
    if unstable > 0 { line += ", \(unstable) unstable" }
    if !skippedTests.isEmpty {
      line += ", \(skippedTests.count) test\(skippedTests.count == 1 ? "" : "s") skipped"
    }
    if dryRun {
      line += " (dry run: nothing written)"
    } else if !applied {
      line += " (nothing written)"
    }
    return line
  }

  private func describe(_ change: Change) -> String {
    let holders = zip(change.sources, change.workers).map { "\($0) [\($1)]" }
    var text = holders.joined(separator: " vs ")
    if let pixels = change.differingPixels { text += ", \(pixels) pixels differ" }
    return text
  }
}
