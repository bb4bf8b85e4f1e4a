import Foundation

/// One regeneration: the generation run of the package's tests, then the merge.
struct Regeneration {
  let request: RegenerationRequest
  let package: URL
  let mergeRefs: URL
  let referenceShards: URL

  /// Runs the tests (unless sources were given) and the merge.
  /// - Returns: merge-refs' exit status, or 0 when no test stored an image.
  func perform() throws -> Int32 {
    let archives: [String]
    var proof: [String] = []
    if let sources = request.sources {
      archives = [sources.path]
    } else if request.filter == nil {
      // Every test, run as the shards of `reference-shards`: the merge proves that each ran,
      // sees the skipped ones, and so may look for orphans.
      archives = try generateShards()
      proof = ["--require-shards"]
    } else {
      // The plugin's own folder, emptied for each run: the archives and log of the last run
      // stay there to look at, and no other run's archives are ever merged.
      let output = scratch.appendingPathComponent("archives")
      if FileManager.default.fileExists(atPath: output.path) {
        try FileManager.default.removeItem(at: output)
      }
      try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
      try generate(into: output)
      archives = try writtenArchives(in: output)
      if archives.isEmpty {
        print("no archive was written: no test stored an image (mode \(request.mode))")
        return 0
      }
    }
    let report =
      request.report ?? package.appendingPathComponent(".build/reference-review")
    // Shards are merged by their folders, each holding its workers' archives.
    let sources = proof.isEmpty ? "archive(s)" : "shard folder(s)"
    print("== merging \(archives.count) \(sources) into \(package.path)")
    // Orphans found without --prune are printed with the command that deletes exactly them:
    // the merge of these shard folders again, which prunes what this run proved and nothing
    // less (running the tests again could skip a test this run's environment enabled).
    let pruneCommand = proof.isEmpty ? request.pruneCommand : mergeAgainCommand(archives)
    let pruning = request.prune ? ["--prune"] : ["--prune-command", pruneCommand]
    // Run in the package root with its paths relative to it, so that the page's command is
    // `swift run merge-refs … .`, which works when pasted there, not this plugin's build path.
    do {
      return try run(
        mergeRefs,
        (request.dryRun ? ["--dry-run"] : []) + (request.compact ? ["--compact"] : []) + pruning
          + proof
          + ["--report", report.path, "--report-program", "swift run merge-refs"]
          + archives.map(relativeToPackage) + ["."], in: package)
    } catch let interrupted as Interruption.Interrupted {
      throw MergeInterrupted(signal: interrupted.signal)
    }
  }

  /// A path inside the package relative to its root; any other path as it is.
  private func relativeToPackage(_ path: String) -> String {
    let root = package.standardizedFileURL.path + "/"
    return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
  }

  /// `swift run merge-refs --require-shards --prune SHARD… .`, pasted into the package root:
  /// the shard folders relative to it, as this run left them.
  private func mergeAgainCommand(_ folders: [String]) -> String {
    let words = ["swift", "run", "merge-refs", "--require-shards", "--prune"]
    return (words + folders.map(relativeToPackage) + ["."])
      .map(RegenerationRequest.shellQuoted).joined(separator: " ")
  }

  /// The scratch folder of the child `swift` commands: not `.build`, which `swift package`
  /// keeps locked while this plugin runs.
  private var scratch: URL { package.appendingPathComponent(".build/regenerate-references") }

  /// Builds the tests, then runs them with the generation environment and parallel workers,
  /// their log in `output/test-log.txt`; with `--repeat N`, N times, each run's log numbered.
  private func generate(into output: URL) throws {
    try build()
    for run in 1...request.repeatCount {
      try runTests(into: output, run: run)
    }
  }

  /// Builds the tests in the plugin's scratch folder, its output in a log: what a person reads
  /// of it is `BuildLogDigest`'s (SwiftPM's warnings, the compiler's counted, errors).
  private func build() throws {
    let place = ["--package-path", package.path, "--scratch-path", scratch.path]
    print("== building \(package.path) (scratch folder \(scratch.path))")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let log = scratch.appendingPathComponent("build-log.txt")
    let build = try run(swiftURL, ["swift", "build", "--build-tests"] + place, log: log)
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    let digest = BuildLogDigest(log: text, packageRoot: package.standardizedFileURL.path)
    for line in digest.lines(logPath: log.path, succeeded: build == 0) { print(line) }
    guard build == 0 else {
      throw RegenerationError(
        message: "building the tests failed (exit \(build)); the errors are above, the whole "
          + "output in \(log.path)")
    }
  }

  /// Builds the tests, then runs every test `--repeat` times as the shards of one plan of
  /// `reference-shards` (one shard per run, each running every test, so a repeat is a
  /// replica), each into its own folder with its log.
  /// - Returns: The shard folders.
  private func generateShards() throws -> [String] {
    let output = scratch.appendingPathComponent("shards")
    if FileManager.default.fileExists(atPath: output.path) {
      try FileManager.default.removeItem(at: output)
    }
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    try build()
    let count = request.repeatCount
    var folders: [String] = []
    for index in 0..<count {
      let folder = output.appendingPathComponent("shard-\(index)")
      print(
        "== running tests with IMAGE_GENERATION_MODE=\(request.mode), parallel workers"
          + (count > 1 ? ", run \(index + 1) of \(count)" : "") + "; shard folder "
          + folder.path)
      var environment = ProcessInfo.processInfo.environment
      environment[GenerationContract.modeVariable] = request.mode.rawValue
      // ShardRunner.parentVariable: reference-shards stops when this process is gone.
      environment["REFERENCE_SHARDS_PARENT"] = "\(getpid())"
      let log = output.appendingPathComponent("test-log-\(index + 1).txt")
      let status = try run(
        referenceShards,
        [
          "run", "--index", "\(index)", "--count", "\(count)", "--replicas", "\(count)",
          "--output", folder.path, "--commit", "regenerate-references", "--scratch-path",
          scratch.path,
        ], environment: environment, log: log, in: package)
      printHighlights(of: log, succeeded: status == 0)
      if status == ExitStatus.refusedInput.rawValue
        || status == ExitStatus.invalidArguments.rawValue
      {
        throw RegenerationError(
          message: "reference-shards could not run the tests (exit \(status)); see \(log.path)")
      }
      if status != 0 { noteFailedTests(log: log) }
      folders.append(folder.path)
    }
    return folders
  }

  /// One run of the tests with parallel workers.
  private func runTests(into output: URL, run: Int) throws {
    let repeated = request.repeatCount > 1
    print(
      "== running tests with IMAGE_GENERATION_MODE=\(request.mode), parallel workers"
        + (repeated ? ", run \(run) of \(request.repeatCount)" : "") + "; archives in "
        + output.path)
    let log = output.appendingPathComponent(repeated ? "test-log-\(run).txt" : "test-log.txt")
    var environment = ProcessInfo.processInfo.environment
    environment[GenerationContract.modeVariable] = request.mode.rawValue
    environment[GenerationContract.outputVariable] = output.path
    // The archives say their tests run more than once on purpose: merge-refs then calls one
    // test's renders that differ unstable instead of a conflict.
    environment[GenerationContract.replicasVariable] = repeated ? "\(request.repeatCount)" : nil
    let filter = request.filter.map { ["--filter", $0] } ?? []
    let place = ["--package-path", package.path, "--scratch-path", scratch.path]
    let status = try self.run(
      swiftURL, ["swift", "test", "--skip-build", "--parallel"] + place + filter,
      environment: environment, log: log)
    printHighlights(of: log, succeeded: status == 0)
    if let filter = request.filter, Self.ranNoTest(log: log) {
      throw RegenerationError(
        message: "--filter '\(filter)' selects no test of \(package.path), so nothing was "
          + "regenerated; `swift test list` prints the names it is matched against (a Swift "
          + "Testing test's also end with /File.swift:line:column, which `(/|$)` after the "
          + "name matches); full log: \(log.path)")
    }
    if status != 0 { noteFailedTests(log: log) }
  }

  /// Whether a filtered `swift test --parallel` ran nothing: SwiftPM warns that no XCTest case
  /// matched, and Swift Testing, when it ran at all, ran 0 tests. A run of nothing is never a
  /// success.
  static func ranNoTest(log: URL) -> Bool {
    guard let text = try? String(contentsOf: log, encoding: .utf8),
      text.contains("No matching test cases were run")
    else { return false }
    let swiftTestingRan = text.split(separator: "\n").contains { line in
      guard let range = line.range(of: "Test run with ") else { return false }
      return !line[range.upperBound...].hasPrefix("0 tests")
    }
    return !swiftTestingRan
  }

  /// Says what failed tests mean for this run; the digest above named them and the log.
  private func noteFailedTests(log: URL) {
    if request.mode == .all {
      printError(
        "warning: tests failed in mode all; merging what they wrote (what a failed test may own "
          + "is never an orphan)")
    } else {
      print(
        "note: tests failed, as expected in mode \(request.mode) for missing or changed images")
    }
  }

  /// The archives the workers wrote, and the staging folder of any worker that crashed
  /// (merge-refs reads it and flags it incomplete); with them, the run records of passing
  /// processes (`GenerationContract.runRecordSuffix`), which name the tests that verified a
  /// reference, so a shared one is caught. Records alone mean no test stored an image: none.
  private func writtenArchives(in output: URL) throws -> [String] {
    let files = FileManager.default
    let names = try files.contentsOfDirectory(atPath: output.path).sorted()
    let zips = names.filter { $0.hasSuffix(".zip") }.map { output.appendingPathComponent($0).path }
    let records = names.filter { $0.hasSuffix(GenerationContract.runRecordSuffix) }
      .map { output.appendingPathComponent($0).path }
    let staging = output.appendingPathComponent(GenerationContract.stagingFolderName)
    let leftovers = ((try? files.contentsOfDirectory(atPath: staging.path)) ?? []).sorted()
      .map { staging.appendingPathComponent($0).path }
    guard !zips.isEmpty || !leftovers.isEmpty else { return [] }
    return zips + records + leftovers
  }

  /// What a person reads of the test log (`TestLogDigest`): the lines about the run, each once
  /// and cut at a width, how many tests failed and which, and the whole log's path.
  private func printHighlights(of log: URL, succeeded: Bool) {
    guard let text = try? String(contentsOf: log, encoding: .utf8) else { return }
    for line in TestLogDigest(log: text).lines(logPath: log.path, succeeded: succeeded) {
      print(line)
    }
  }

  private var swiftURL: URL { URL(fileURLWithPath: "/usr/bin/env") }

  /// Runs a program to the end; its output goes to ours, or to `log` when given. Once this
  /// process is interrupted, the program is interrupted too, and nothing more starts.
  /// - Throws: `Interruption.Interrupted` when this process was interrupted.
  private func run(
    _ program: URL, _ arguments: [String],
    environment: [String: String] = ProcessInfo.processInfo.environment, log: URL? = nil,
    in folder: URL? = nil
  ) throws -> Int32 {
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    process.environment = environment
    if let folder { process.currentDirectoryURL = folder }
    if let log {
      guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
        throw RegenerationError(message: "cannot create the test log \(log.path)")
      }
      let handle = try FileHandle(forWritingTo: log)
      process.standardOutput = handle
      process.standardError = handle
    }
    // Our output is buffered; flush it so lines appear in order.
    fflush(nil)
    return try Interruption.run(process)
  }

  private func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}

/// A failure of the generation step, with what to look at.
struct RegenerationError: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}
