import ArgumentParser
import Foundation
import ReferenceContracts
import ReferenceMerge
import ReferenceReview
import ReferenceShards

/// `merge-refs`: lands generation archives in the reference folders. Parsing, validation and
/// printing only; the decisions live in the libraries: the plan and its apply in
/// `ReferenceMerge`, the shard proof in `ReferenceShards`, the review page in `ReferenceReview`.
@main
struct MergeRefs: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge-refs",
    abstract: "Land reference images from generation archives in the reference folders.",
    usage: "merge-refs [options] SOURCE... DESTINATION",
    discussion: """
      Each SOURCE is an archive written by an IMAGE_GENERATION_MODE run, a zip of such archives \
      (a CI artifact download), a folder of such archives, or a folder holding an unpacked \
      archive or the staging folder of a run that crashed. DESTINATION is the package root the \
      archive paths are relative to.

      Content decides, never time stamps: a reference with identical pixels is left untouched. \
      Sources that disagree about a path are a conflict: nothing is written unless \
      --on-conflict newest is given.

      In a package that declares variants (ReferenceVariants.json), a variant's render lands \
      as its own file (name@@variant.png) only where its test's own comparison finds it \
      different from what its fallback chain gives; a variant file that no longer differs is \
      redundant: listed, and deleted only with --prune. An archive of renders of a platform the \
      file does not declare is refused.

      \(ExitStatus.helpBlock)
      """,
    version: ToolVersion.number)

  @Argument(
    help: ArgumentHelp(
      "Each source, then the destination folder (the package root).", valueName: "path"))
  var paths: [String] = []

  @Option(
    name: .customLong("on-conflict"), help: "What to do when sources disagree: fail or newest.")
  var onConflict: MergeOptions.ConflictPolicy = .fail

  @Flag(
    help:
      ArgumentHelp(
        "Delete orphans (references in the used folders that no run produced or verified, "
          + "looked for only when the runs prove that every test ran, never among what a "
          + "skipped test may own) and redundant "
          + "variant files (their variant now renders what the fallback holds)."))
  var prune = false

  @Option(
    name: .customLong("prune-command"),
    help: ArgumentHelp(
      "The command to print for deleting the orphans and redundant variant files found, instead of this merge again with "
        + "--prune (for a tool that runs merge-refs, such as the regenerate-references plugin).",
      valueName: "COMMAND"))
  var pruneCommandLine: String?

  @Flag(
    name: .customLong("require-complete"),
    help: "Refuse sources from cut-short runs or without a manifest.")
  var requireComplete = false

  @Flag(
    name: .customLong("keep-going"),
    help: "Apply the good sources and paths when some are corrupt, refused or stale.")
  var keepGoing = false

  @Option(
    help: ArgumentHelp(
      "Land only paths matching this glob (*, ?, ** for folders); repeatable. Other changes are "
        + "listed as skipped and never pruned.", valueName: "PATTERN"))
  var include: [String] = []

  @Option(
    name: .customLong("include-from"),
    help: ArgumentHelp(
      "Land only paths matching a line of FILE (one path or glob per line, # comments), such as "
        + "the review page's download, whose lines also bind each path to the pixels reviewed "
        + "(PATH<TAB>BEFORE<TAB>AFTER): a path whose pixels changed since is refused.",
      valueName: "FILE"))
  var includeFrom: String?

  @Flag(name: .customLong("dry-run"), help: "Print the plan; write nothing.")
  var dryRun = false

  @Flag(
    help: ArgumentHelp(
      "Write nothing; exit \(ExitStatus.checkFoundChanges.rawValue) if the merge would change "
        + "anything (a CI gate)."))
  var check = false

  @Flag(help: "Print the summary as JSON instead of text.")
  var json = false

  @Flag(
    help: "List every source with its image count and worker (by default one line counts them).")
  var verbose = false

  @Option(
    help: ArgumentHelp(
      "Write a review page (before, after, difference, changed regions), where each change can "
        + "be accepted or rejected and the decision exported for --include-from: a folder "
        + "(open DIR/index.html; images load as you scroll), or one self-contained file when "
        + "the name ends in .html (for small merges).",
      valueName: "DIR|FILE.html"))
  var report: String?

  @Option(
    name: .customLong("report-program"),
    help: ArgumentHelp(
      "The program the --report page's land command runs, as words (such as \"swift run "
        + "merge-refs\"); the command then names SOURCE and DESTINATION as given here, for a "
        + "report that travels in a CI artifact.", valueName: "WORDS"))
  var reportProgram: String?

  @Flag(
    name: .customLong("require-shards"),
    help: ArgumentHelp(
      "Each SOURCE is a folder written by `reference-shards run`: refuse "
        + "(exit \(ExitStatus.refusedInput.rawValue), nothing written) unless they cover every "
        + "shard of one plan and their archives and event streams, as the records list them, "
        + "prove that every planned test ran once."))
  var requireShards = false

  @Option(
    name: .customLong("timings-output"),
    help: ArgumentHelp(
      "Write the shards' combined per-test durations, for the next plan's --timings.",
      valueName: "FILE"))
  var timingsOutput: String?

  @Option(
    name: .customLong("summary-markdown"),
    help: ArgumentHelp(
      "Append a Markdown summary (counts, shards, changes, problems), e.g. to "
        + "\"$GITHUB_STEP_SUMMARY\".", valueName: "FILE"))
  var summaryMarkdown: String?

  @Flag(
    name: .customLong("github-annotations"),
    help: "Print at most 10 ::error::/::warning:: lines for conflicts and missing work.")
  var githubAnnotations = false

  mutating func validate() throws {
    guard paths.count >= 2 else {
      throw ValidationError("give at least one SOURCE and the DESTINATION folder")
    }
    let destination = paths[paths.count - 1]
    if destination.lowercased().hasSuffix(".zip") {
      throw ValidationError(
        "the last argument, \(destination), is a zip file; it must be the destination folder "
          + "(the package root), as in: merge-refs archive.zip .")
    }
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: destination, isDirectory: &isFolder),
      isFolder.boolValue
    else {
      throw ValidationError("the destination \(destination) is not an existing folder")
    }
    for source in paths.dropLast() where !FileManager.default.fileExists(atPath: source) {
      throw ValidationError("the source \(source) does not exist")
    }
    if let includeFrom {
      do {
        include += try IncludeFilter.read(fileAt: URL(fileURLWithPath: includeFrom)).patterns
      } catch {
        throw ValidationError("\(error)")
      }
    }
  }

  func run() throws {
    // libarchive converts each entry's time stamp with localtime(3), and glibc checks
    // /etc/localtime for changes on every call unless TZ is set: thousands of stat calls.
    setenv("TZ", ":/etc/localtime", 0)
    var options = MergeOptions()
    options.onConflict = onConflict
    options.prune = prune
    options.requireComplete = requireComplete
    options.keepGoing = keepGoing
    // Shard batches run selected tests by design; the records prove the plan whole instead.
    if requireShards { options.orphanProof = .shardRecords }
    if includeFrom != nil || !include.isEmpty {
      // Read again for its bound lines: `validate` checked the file and took its patterns.
      let approvals = try includeFrom.map {
        try IncludeFilter.read(fileAt: URL(fileURLWithPath: $0)).approvals
      }
      options.include = IncludeFilter(patterns: include, approvals: approvals ?? [])
    }
    var session = MergeSession(
      options: options,
      destination: URL(fileURLWithPath: paths[paths.count - 1]).standardizedFileURL,
      writesNothing: dryRun || check, progress: TerminalProgress(enabled: !json && isatty(1) == 1),
      reportURL: report.map { URL(fileURLWithPath: $0).standardizedFileURL })
    session.report = ReviewReport.write(_:request:)
    session.program = invocationName
    // Built in this folder's package (`swift run merge-refs`): the page says so too, with the
    // paths as typed here, rather than the build path.
    let words = invocationWords(destination: paths[paths.count - 1])
    let typed = words.count > 1 ? words : nil
    session.portableProgram =
      reportProgram.map { $0.split(separator: " ").map(String.init) } ?? typed
    session.destinationPath = paths[paths.count - 1]
    let sourcePaths = Array(paths.dropLast())
    let shards = ShardInputs(sourcePaths: sourcePaths, requireAll: requireShards)
    if requireShards { session.planCheck = { shards.proof(of: $0) } }
    var outcome = session.run(sourcePaths: sourcePaths)
    if !prune && (outcome.summary.orphans > 0 || outcome.summary.redundant != nil) {
      outcome.summary.pruneCommand = pruneCommandLine ?? pruneCommand()
    }
    if json {
      // Streamed: a merge of many archives has a summary too large to build as one string.
      outcome.summary.writeJSON(toDescriptor: 1)
    } else {
      // Line by line: the whole text of a merge of many archives would be a peak of its own.
      outcome.summary.forEachTextLine(verbose: verbose) { print($0) }
    }
    let exitCode: Int32 =
      check && outcome.exitCode == 0 && outcome.hasChanges
      ? ExitStatus.checkFoundChanges.rawValue : outcome.exitCode
    try report(outcome, shards: shards, exitCode: exitCode)
    if exitCode != 0 { throw ExitCode(exitCode) }
  }

  /// The CI outputs: timings for the next plan, the job summary, the annotations.
  private func report(_ outcome: MergeSession.Conclusion, shards: ShardInputs, exitCode: Int32)
    throws
  {
    if let timingsOutput, !shards.sources.isEmpty {
      do {
        try shards.writeTimings(to: timingsOutput)
      } catch {
        printError("could not write the timings to \(timingsOutput): \(error)")
        throw ExitCode(ExitStatus.writeFailed.rawValue)
      }
    }
    let summary = outcome.summary
    let conflicts = summary.changes.lazy.filter { $0.outcome == .conflict }.map {
      "conflict\(Self.ofVariant($0)): sources disagree about \($0.path) "
        + "(\($0.sources.joined(separator: " vs ")))"
    }
    let unstable = summary.changes.lazy.filter { $0.outcome == .unstable }.map {
      "unstable\(Self.ofVariant($0)): replicated runs rendered \($0.path) differently "
        + "(\($0.workers.joined(separator: " vs ")))"
    }
    let errors = summary.errors + conflicts + unstable
    if let summaryMarkdown {
      let rows = shards.summaryShards(outcome.plan)
      var markdown = JobSummary(
        outcome: summary.summaryLine, exitCode: exitCode,
        shards: rows,
        changeCount: summary.changes.count,
        changes: AnySequence(
          summary.changes.lazy.map {
            .init(outcome: $0.outcome, path: $0.path, detail: $0.failedComparison.map(detail))
          }),
        problems: errors, warnings: summary.warnings)
      markdown.balance = ShardPlan.balance(rows.map(\.seconds))
      markdown.landCommand = outcome.landCommand
      markdown.writesNothing = dryRun || check
      markdown.variants = summary.variants ?? []
      do {
        let file = try LineAppender(path: summaryMarkdown)
        var failure: Error?
        markdown.write { line in
          guard failure == nil else { return }
          do { try file.append(line) } catch { failure = error }
        }
        if let failure { throw failure }
        try file.close()
      } catch {
        printError("could not write the Markdown summary to \(summaryMarkdown): \(error)")
        throw ExitCode(ExitStatus.writeFailed.rawValue)
      }
    }
    if githubAnnotations {
      let located = summary.changes.lazy.compactMap { change in
        change.failedComparison.map {
          Annotations.Located(
            file: $0.record.file, line: $0.record.line,
            title: "Reference image \(change.outcome)\(Self.ofVariant(change)): \(change.path)",
            message: detail($0))
        }
      }
      for line in Annotations.lines(
        located: Array(located.prefix(Annotations.defaultLimit)), errors: errors,
        warnings: summary.warnings)
      {
        print(line)
      }
    }
  }

  /// This merge again with `--prune`: the options that decide what lands and what counts as an
  /// orphan, the sources and the destination as they were typed, each word shell-quoted; the
  /// options that only change what is printed or written beside (`--json`, `--report`, …) and
  /// those that write nothing (`--dry-run`, `--check`) are left out.
  private func pruneCommand() -> String {
    var words = invocationWords(destination: paths[paths.count - 1])
    if onConflict != .fail { words += ["--on-conflict", onConflict.rawValue] }
    if requireComplete { words.append("--require-complete") }
    if keepGoing { words.append("--keep-going") }
    if requireShards { words.append("--require-shards") }
    // `validate` added the file's patterns to `include`; the file is named instead.
    let fromFile = includeFrom.flatMap {
      try? IncludeFilter.read(fileAt: URL(fileURLWithPath: $0)).patterns.count
    }
    for pattern in include.dropLast(fromFile ?? 0) { words += ["--include", pattern] }
    if let includeFrom { words += ["--include-from", includeFrom] }
    return ShellWord.line(words + ["--prune"] + paths)
  }

  /// " (variant linux-arm64)" for a variant file's change; empty for the base.
  private static func ofVariant(_ change: MergeSummary.Change) -> String {
    change.variant.map { " (variant \($0))" } ?? ""
  }

  /// A failed comparison in a few words: "test T, exact: 12 of 480000 pixels differ".
  private func detail(_ failure: SourceInventory.FailedComparison) -> String {
    let record = failure.record
    let figures =
      record.differingPixels.map { "\($0) of \(record.totalPixels) pixels differ" }
      ?? record.verdict
    let test = failure.test.map { "test \($0), " } ?? ""
    return "\(test)\(record.comparison) comparison at \(record.file):\(record.line): \(figures)"
  }

  private func printError(_ message: String) {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
  }
}

/// How this program was started, absolute when it was given as a path, so the review page's
/// command runs from any folder.
private var invocationName: String {
  let name = CommandLine.arguments.first ?? "merge-refs"
  return name.contains("/") ? URL(fileURLWithPath: name).standardizedFileURL.path : name
}

/// How a person runs this program again: `swift run merge-refs` when it is the build of the
/// package it lands in, run from that package's root (under its `.build`, as `swift run` and
/// the plugin's copy are), which works where a build path would go stale; else
/// `invocationName`, which works from any folder.
private func invocationWords(destination: String) -> [String] {
  let path = invocationName
  let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
  let names = ["merge-refs", "merge-refs-tool"]
  guard path.hasPrefix(here.path + "/.build/"),
    names.contains((path as NSString).lastPathComponent),
    URL(fileURLWithPath: destination).standardizedFileURL.path == here.path
  else { return [path] }
  return ["swift", "run", "merge-refs"]
}

extension MergeOptions.ConflictPolicy: ExpressibleByArgument {}
