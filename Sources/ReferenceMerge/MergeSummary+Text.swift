import Foundation
import ReferenceContracts

/// The summary as `merge-refs` prints it for people.
extension MergeSummary {
  /// How many entries each list shows unless verbose: a merge of any size prints a log of a
  /// few hundred lines at most, its counts and problems first and last; `--json` and
  /// `--verbose` list every path.
  public static let listLimit = 20

  /// The report for a terminal or a log: the sources, the conflicts, the changes, warnings,
  /// errors, then one summary line.
  /// - Parameter verbose: List every source with its image count and worker, instead of one
  ///   line counting them, and every path of every list, instead of the first `listLimit`.
  public func text(verbose: Bool = false) -> String {
    var lines: [String] = []
    forEachTextLine(verbose: verbose) { lines.append($0) }
    return lines.joined(separator: "\n")
  }

  /// The lines of `text(verbose:)`, one at a time, without building the whole text. Each part
  /// is a section of its own, in the order printed, so a new kind of line has one place to go.
  public func forEachTextLine(verbose: Bool = false, _ body: (String) -> Void) {
    sourceLines(verbose: verbose, body)
    problemLines(verbose: verbose, body)
    changeGroupLines(body)
    changeLines(verbose: verbose, body)
    skippedLines(verbose: verbose, body)
    supersededLines(verbose: verbose, body)
    for warning in warnings { body("warning: \(warning)") }
    for error in errors { body("error: \(error)") }
    if let report { body("review report: \(report)") }
    if let pruneCommand, orphans > 0 || redundant != nil, pruned == 0 {
      body(
        "to delete the \(redundant == nil ? "orphans" : orphans > 0 ? "orphans and redundant variants" : "redundant variants"): \(pruneCommand)"
      )
    }
    if let variants { body(variantLine(variants)) }
    if let compacted {
      body(
        "compacted \(compacted.compacted) of \(compacted.files) landed references: "
          + "\(compacted.bytesBefore) → \(compacted.bytesAfter) bytes")
    }
    if let store {
      body(
        "store: \(store.uploaded) object\(store.uploaded == 1 ? "" : "s") uploaded to "
          + "\(store.name); the references are pointers (.png.ref)")
    }
    body(summaryLine)
  }

  /// With many changes, the groups of references changed the same way first, so a reviewer
  /// sees "recoloured #16A34A → #9333EA: 312 references" before 312 paths.
  private func changeGroupLines(_ body: (String) -> Void) {
    let lines = ChangeGroup.leadingLines(changeGroups, changeCount: added + updated)
    guard !lines.isEmpty else { return }
    body("changed the same way (the review report's change kinds):")
    for line in lines { body("  " + line) }
  }

  /// "by variant: base 11 added, 40 unchanged; linux-arm64 2 added, 1 redundant": each
  /// variant's non-zero counts, so a reviewer sees which platform's files changed.
  private func variantLine(_ counts: [VariantCounts]) -> String {
    let parts = counts.map { counts in
      let figures = [
        (counts.added, "added"), (counts.updated, "updated"), (counts.unchanged, "unchanged"),
        (counts.conflicts, "conflicts"), (counts.unstable, "unstable"),
        (counts.orphans, "orphans"), (counts.redundant, "redundant"),
        (counts.matchingFallback, "equal to the fallback"),
      ]
      .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
      return "\(counts.variant) \(figures.isEmpty ? "nothing" : figures.joined(separator: ", "))"
    }
    return "by variant: " + parts.joined(separator: "; ")
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
    // Counted by their reason: a report's earlier references are neither complete nor not.
    let incomplete = sources.count { $0.incompleteReason != nil }
    if incomplete > 0 { line += ", \(incomplete) incomplete or refused" }
    if sources.count > 1 { line += " (--verbose lists each)" }
    body(line)
  }

  private func problemLines(verbose: Bool, _ body: (String) -> Void) {
    let conflictList = changes.matching(.conflict)
    if !conflictList.isEmpty {
      body("conflicts (sources disagree; nothing was written):")
      list(conflictList, verbose: verbose, body) { "  \($0.path): \(describe($0))" }
    }
    let unstableList = changes.matching(.unstable)
    if !unstableList.isEmpty {
      body("unstable (replicated runs of one test rendered different pixels; not written):")
      list(unstableList, verbose: verbose, body) { "  \($0.path): \(describe($0))" }
    }
  }

  /// The first `listLimit` lines of a list, then how many more there are; every line when
  /// verbose.
  private func list<Items: Collection>(
    _ items: Items, verbose: Bool, _ body: (String) -> Void,
    _ line: (Items.Element) -> String
  ) {
    var shown = 0
    for item in items {
      guard verbose || shown < Self.listLimit else { break }
      body(line(item))
      shown += 1
    }
    let more = verbose ? 0 : items.count - shown
    if more > 0 { body("  … and \(more) more (--json or --verbose lists them)") }
  }

  /// Added, updated and orphan paths; when applying failed, the paths it did not reach are
  /// listed apart, so no heading claims a file that was not written.
  private func changeLines(verbose: Bool, _ body: (String) -> Void) {
    for outcome in [MergePlan.Outcome.added, .updated, .orphan, .redundant] {
      let changed = changes.matching(outcome, notWritten: false)
      guard !changed.isEmpty else { continue }
      body(heading(outcome))
      list(changed, verbose: verbose, body, changeLine)
    }
    let unreached = changes.matching(nil, notWritten: true)
    if !unreached.isEmpty {
      body("not written (a write failed first; these files are as they were):")
      list(unreached, verbose: verbose, body) { "  \($0.path) (\($0.outcome))" }
    }
  }

  /// A changed path, with where it came from when that is not the obvious, and with a review
  /// report what kinds of change it is.
  private func changeLine(_ change: Change) -> String {
    var line = "  \(change.path)"
    if let start = change.earlierRunStart {
      line += " (from an earlier run, started \(start), not the newest merged)"
    }
    if change.resolvedByNewest { line += " (conflict resolved by newest: \(describe(change)))" }
    if let failure = change.failedComparison?.record {
      line += " (failed at \(failure.file):\(failure.line): \(failure.verdict))"
    }
    if let kinds = change.kindsText { line += " — \(kinds)" }
    return line
  }

  /// The superseded renders: a later run of the same tests passed or rendered them again.
  private func supersededLines(verbose: Bool, _ body: (String) -> Void) {
    guard !superseded.isEmpty else { return }
    body("superseded (a later run used these paths again; the earlier renders do not land):")
    // Several archives of earlier runs can hold one path's render: each line once, counted.
    var counts: [String: Int] = [:]
    var lines: [String] = []
    for item in superseded {
      let why = item.laterRunRenderedAgain ? "rendered again" : "compared again and passed"
      let line =
        "  \(item.path)\(item.test.map { " (\($0))" } ?? ""): \(why) by the run of "
        + item.laterRunStart
      if counts[line] == nil { lines.append(line) }
      counts[line, default: 0] += 1
    }
    list(lines, verbose: verbose, body) { line in
      let count = counts[line] ?? 1
      return count > 1 ? "\(line) (\(count) earlier renders)" : line
    }
  }

  private func skippedLines(verbose: Bool, _ body: (String) -> Void) {
    if !skipped.isEmpty {
      body("skipped (not included; left as they are):")
      list(skipped, verbose: verbose, body) { "  \($0.path) (would be \(wouldBe($0.outcome)))" }
    }
    if !skippedTests.isEmpty {
      body("tests skipped (they verified nothing; references they may own are kept):")
      list(skippedTests, verbose: verbose, body) { "  \($0)" }
    }
    if !failedTests.isEmpty {
      body(
        "tests failed (they may have stopped before storing their images; references they may "
          + "own are kept):")
      list(failedTests, verbose: verbose, body) { "  \($0)" }
    }
    if let first = keptForSkippedTests.first {
      body(
        "  \(count(keptForSkippedTests.count, "reference", "references")) no run used kept "
          + "for them, in their tests' folders (first: \(first))")
    }
    abandonedFolderLines(verbose: verbose, body)
  }

  /// Folders none of whose tests exist any more, with `git mv` advice for a renamed one.
  private func abandonedFolderLines(verbose: Bool, _ body: (String) -> Void) {
    guard !abandonedFolders.isEmpty else { return }
    body("folders no test uses any more (their files are orphans):")
    list(abandonedFolders, verbose: verbose, body, abandonedFolderLine)
  }

  private func abandonedFolderLine(_ folder: MergePlan.AbandonedFolder) -> String {
    var line = "  \(folder.path) (\(count(folder.orphans, "orphan", "orphans")))"
    if let movedTo = folder.movedTo {
      line += ": the same pixels as the images added in \(movedTo), a renamed test file or suite?"
      // Only before anything landed, and only while the new folder does not exist, does
      // `git mv` rename the old one (into an existing folder it would move it inside).
      if folder.movable && dryRun {
        line +=
          " To keep their history, land nothing and run: "
          + ShellWord.line(["git", "mv", folder.path, movedTo])
      }
    }
    return line
  }

  /// What a change left out would have been: "added", "updated", "deleted as an orphan".
  private func wouldBe(_ outcome: MergePlan.Outcome) -> String {
    switch outcome {
    case .orphan: "deleted as an orphan"
    case .redundant: "deleted as redundant"
    default: outcome.rawValue
    }
  }

  /// The heading of a list of changes.
  private func heading(_ outcome: MergePlan.Outcome) -> String {
    // Every source is a review's earlier references: what lands is put back, not updated.
    let restoring = !sources.isEmpty && sources.allSatisfy { $0.earlierReferences == true }
    switch outcome {
    case .added where restoring, .updated where restoring:
      return "restored (the earlier references a review kept, put back):"
    default: break
    }
    return switch outcome {
    case .orphan: "orphans (no test produced or verified them):"
    case .redundant: "redundant variants (their variant now renders what the fallback holds):"
    default: "\(outcome):"
    }
  }

  /// "3 added, 1 updated, 40 unchanged, 0 conflicts, 2 orphans, 0 refused".
  public var summaryLine: String {
    var line =
      "\(added) added, \(updated) updated, \(unchanged) unchanged, \(conflicts) conflicts, "
      + "\(orphans) orphans\(prunedNote(pruned - prunedRedundant)), \(refused) refused"
    if !skipped.isEmpty { line += ", \(skipped.count) skipped" }
    if unstable > 0 { line += ", \(unstable) unstable" }
    if let redundant { line += ", \(redundant) redundant\(prunedNote(prunedRedundant))" }
    if let matchingFallback {
      line +=
        ", \(matchingFallback) variant render\(matchingFallback == 1 ? "" : "s") equal to "
        + "the fallback"
    }
    if !superseded.isEmpty { line += ", \(superseded.count) superseded" }
    if !skippedTests.isEmpty {
      line += ", \(skippedTests.count) test\(skippedTests.count == 1 ? "" : "s") skipped"
    }
    if !failedTests.isEmpty {
      line += ", \(failedTests.count) test\(failedTests.count == 1 ? "" : "s") failed"
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

  /// The redundant variant files `--prune` deleted: it deletes them beside the orphans, each
  /// kind counted where the line names it. A deletion a failed write did not reach is not.
  private var prunedRedundant: Int {
    pruned == 0 ? 0 : changes.matching(.redundant, notWritten: false).count
  }

  /// " (2 pruned)", or nothing when none were.
  private func prunedNote(_ count: Int) -> String {
    count > 0 ? " (\(count) pruned)" : ""
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
