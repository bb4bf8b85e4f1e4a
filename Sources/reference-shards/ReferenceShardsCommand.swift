import ArgumentParser
import Foundation
import ProcessSupport
import ReferenceContracts
import ReferenceShards

/// `reference-shards`: plans and runs one shard of a CI matrix. Parsing and printing only; the
/// plan, the run and the record live in `ReferenceShards`.
@main
struct ReferenceShardsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reference-shards",
    abstract: "Run one shard of the tests on a CI machine, and record what ran.",
    discussion: """
      Tests (not classes) are assigned to N shards deterministically: by recorded durations \
      when a timings file is given (longest first onto the least-loaded shard; a test without \
      a duration counts as the median), else by count. With --replicas 2, each test runs on two \
      different shards, so a render that differs from one run to the next shows. \
      `merge-refs --require-shards` later proves that every planned test ran exactly once in \
      each shard that planned it.
      """,
    version: ToolVersion.number,
    subcommands: [Run.self, Plan.self])
}

extension ReferenceShardsCommand {
  struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List the built tests, run this shard's tests, and write its record.",
      usage:
        "reference-shards run --index I --count N [--replicas R] [--timings FILE] [--output DIR] "
        + "[--commit SHA] [-- EXTRA_SWIFT_TEST_ARGS...]",
      discussion: """
        Run from the package root after `swift build --build-tests`. The shard's tests run with \
        `swift test --skip-build --parallel` in batches of exact, anchored filters, with \
        IMAGE_GENERATION_OUTPUT set to DIR/archives (and IMAGE_GENERATION_REPLICAS to R when R \
        is 2 or more); DIR/shard.json records the plan and what ran. Exit status: 0 when every batch passed, 1 when a test failed, 3 for a \
        failed or empty listing or an unusable timings file, 64 for bad arguments. Ctrl-C \
        (SIGINT), SIGTERM or SIGHUP stop the running `swift test`, which stops its test \
        processes; no record is written, and the status is 128 + the signal's number (130 for \
        Ctrl-C).
        """)

    @OptionGroup var shard: ShardOptions

    @Option(help: ArgumentHelp("The shard's output folder.", valueName: "DIR"))
    var output = ".build/reference-shard"

    @Option(
      help: ArgumentHelp(
        "The commit to record (default: $GITHUB_SHA, else `git rev-parse HEAD`).",
        valueName: "SHA"))
    var commit: String?

    @Option(
      name: .customLong("scratch-path"),
      help: ArgumentHelp(
        "The package's build folder, when not .build (as `swift build --scratch-path`).",
        valueName: "DIR"))
    var scratchPath: String?

    @Argument(
      parsing: .postTerminator,
      help: ArgumentHelp("Arguments added to every `swift test` command.", valueName: "args"))
    var extraArguments: [String] = []

    /// A `--filter` or `--skip` among the `swift test` arguments would be added to every
    /// batch's exact filters: it widens what runs instead of selecting, so a filter that
    /// matches nothing would still "pass". Refused by name.
    func validate() throws {
      let selecting = extraArguments.first { argument in
        ["--filter", "--skip"].contains { argument == $0 || argument.hasPrefix($0 + "=") }
      }
      if let selecting {
        throw ValidationError(
          "'\(selecting)' after -- cannot select tests: reference-shards runs exactly its "
            + "plan (every listed test, shard by shard), and a filter given to swift test would "
            + "be added to each batch's exact filters; to regenerate some tests, run the "
            + "plugin with --filter REGEX, or swift test --filter REGEX")
      }
    }

    func run() throws {
      let (index, count, replicas) = try shard.shard()
      let parent = ProcessInfo.processInfo.environment[ShardRunner.parentVariable]
        .flatMap { Int32($0) }
      Interruption.install(watchingParent: parent)
      let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
      do {
        let timings = try shard.loadTimings()
        var runner = ShardRunner(
          index: index, count: count, replicas: replicas, timings: timings,
          output: URL(fileURLWithPath: output, relativeTo: root).standardizedFileURL,
          commit: try commit ?? ShardRunner.currentCommit(in: root), packageRoot: root)
        runner.extraArguments = extraArguments
        runner.packageArguments = scratchPath.map { ["--scratch-path", $0] } ?? []
        runner.log = { FileHandle.standardError.write(Data("reference-shards: \($0)\n".utf8)) }
        let record = try runner.run()
        if record.swiftTestStatus != 0 { throw ExitCode(1) }
      } catch ShardError.interrupted(let signal) {
        FileHandle.standardError.write(
          Data("reference-shards: \(ShardError.interrupted(signal: signal))\n".utf8))
        throw ExitCode(Interruption.exitStatus(for: signal))
      } catch let error as ShardError {
        throw refuse(error)
      }
    }
  }

  struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print shard I's tests, one per line, and the plan's summary on stderr.")

    @OptionGroup var shard: ShardOptions

    @Option(
      help: ArgumentHelp(
        "Plan from a saved `swift test list` output instead of running it.", valueName: "FILE"))
    var list: String?

    func run() throws {
      let (index, count, replicas) = try shard.shard()
      do {
        let timings = try shard.loadTimings()
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let tests =
          try list.map { try TestListing.read(from: URL(fileURLWithPath: $0)) }
          ?? TestListing.list(in: root)
        let plan = try ShardPlanner(timings: timings).plan(
          tests: tests, count: count, replicas: replicas)
        var text = plan.shards[index].joined(separator: "\n")
        if !text.isEmpty { text += "\n" }
        FileHandle.standardOutput.write(Data(text.utf8))
        FileHandle.standardError.write(
          Data((ShardRunner.describe(plan, index: index, listed: tests.count) + "\n").utf8))
      } catch let error as ShardError {
        throw refuse(error)
      }
    }
  }
}
