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
      archive or the staging folder of a run that crashed. A SOURCE can also be an Xcode result \
      bundle (.xcresult), a folder `xcrun xcresulttool export attachments` wrote, a worker's \
      swift-snapshot-testing __Snapshots__ tree, or a Swift Testing --attachments-path folder \
      holding that run's event stream: attached archives, the PNGs swift-snapshot-testing \
      recorded and the actual renders of failed comparisons land; what cannot is listed. \
      DESTINATION is the package root the archive paths are relative to.

      Content decides, never time stamps: a reference with identical pixels is left untouched. \
      Sources that disagree about a path are a conflict: nothing is written unless \
      --on-conflict newest is given.

      In a package that declares variants (ReferenceVariants.json), a variant's render lands \
      as its own file (name@@variant.png) only where its test's own comparison finds it \
      different from what its fallback chain gives; a variant file that no longer differs is \
      redundant: listed, and deleted only with --prune. An archive of renders of a platform the \
      file does not declare is refused.

      In a package whose references live in a store (ReferenceStore.json), each image that \
      lands is uploaded and checked there before its pointer (name.png.ref) is written; the \
      store's credentials come from the environment.

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

  @Flag(
    help: ArgumentHelp(
      "Land references in the smallest lossless form (compact-references' encoder, on every "
        + "core): about half the bytes in every clone, at about 100 times the encoding time."))
  var compact = false

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
    help: ArgumentHelp(
      "List every source with its image count and worker, and every path of every list (by "
        + "default one line counts the sources and each list shows its first "
        + "\(MergeSummary.listLimit), so a log stays readable at any size)."))
  var verbose = false

  @Option(
    help: ArgumentHelp(
      "Write a review page (before, after, difference, changed regions with their kinds of "
        + "change), where each change can be accepted or rejected and the decision exported for --include-from: a folder "
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

  @Flag(
    name: .customLong("print-moves"),
    help: ArgumentHelp(
      "With one path, the package root: print the `git mv` commands that move references kept "
        + "beside nested test files (Tests/T/Area/__References__/F/) into their target's root "
        + "(Tests/T/__References__/Area/F/), and write nothing; pipe them to sh to run them."))
  var printMoves = false

  func validate() throws {
    if printMoves {
      guard paths.count == 1 else {
        throw ValidationError(
          "--print-moves takes one path, the package root, as in: merge-refs --print-moves .")
      }
      return
    }
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
  }

  func run() throws {
    if printMoves { return try ReferenceMoves.print(packageRoot: paths[0]) }
    // libarchive converts each entry's time stamp with localtime(3), and glibc checks
    // /etc/localtime for changes on every call unless TZ is set: thousands of stat calls.
    setenv("TZ", ":/etc/localtime", 0)
    let invocation = try MergeInvocation(self)
    let read = ShardInputs(
      sourcePaths: invocation.sourcePaths, requireAll: invocation.requireShards)
    // The records' own proof comes first, before any archive is read for the merge.
    let recordProblems = invocation.requireShards ? read.recordProblems() : []
    let shards = recordProblems.isEmpty ? read.droppingProvenFileLists() : read
    var outcome = session(invocation, shards: shards, recordProblems: recordProblems)
      .run(sourcePaths: invocation.sourcePaths)
    if !prune && (outcome.summary.orphans > 0 || outcome.summary.redundant != nil) {
      outcome.summary.pruneCommand = pruneCommandLine ?? invocation.pruneCommand
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
    let outputs = CIOutputs(
      timingsOutput: timingsOutput, summaryMarkdown: summaryMarkdown,
      githubAnnotations: githubAnnotations, writesNothing: dryRun || check)
    try outputs.write(outcome, shards: shards, exitCode: exitCode)
    if exitCode != 0 { throw ExitCode(exitCode) }
  }

  /// The merge session this command line asks for.
  private func session(
    _ invocation: MergeInvocation, shards: ShardInputs, recordProblems: [MergeProblem]
  ) -> MergeSession {
    var session = MergeSession(
      options: invocation.options, destination: invocation.destination,
      writesNothing: dryRun || check, progress: TerminalProgress(enabled: !json && isatty(1) == 1),
      reportURL: report.map { URL(fileURLWithPath: $0).standardizedFileURL })
    session.report = ReviewReport.write(_:request:)
    session.program = invocationName
    // Built in this folder's package (`swift run merge-refs`): the page says so too, with the
    // paths as typed here, rather than the build path.
    let typed = invocation.program.count > 1 ? invocation.program : nil
    session.portableProgram =
      reportProgram.map { $0.split(separator: " ").map(String.init) } ?? typed
    session.destinationPath = invocation.destinationPath
    if requireShards {
      session.recordCheck = { recordProblems }
      session.planCheck = { shards.proof(of: $0) }
    }
    return session
  }
}

extension MergeOptions.ConflictPolicy: ExpressibleByArgument {}
