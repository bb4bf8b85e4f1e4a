import Foundation
import XCTest

/// Runs jobs of a GitHub Actions workflow file on this machine with `Scripts/run-workflow-job`,
/// which reads the file and runs one job as its YAML says, so a test never restates the steps.
/// The runner root holds the job's workspace (always the same path), the artifact store and
/// the cache store, which carry files between jobs as GitHub's services would.
struct WorkflowRunner {
  /// What one job did, from the runner's report.
  struct JobRun: Decodable {
    /// One step's outcome.
    struct Step: Decodable {
      var number: Int
      var name: String
      var outcome: String
    }

    /// `success`, `failure` or `skipped`.
    var result: String
    var steps: [Step]
    /// The job summary: what the steps wrote to `$GITHUB_STEP_SUMMARY`.
    var summary: String
    /// Everything the job printed, for failure messages.
    var output = ""
    /// How long the job took, runner included.
    var seconds = 0.0

    private enum CodingKeys: String, CodingKey { case result, steps, summary }

    /// The outcome of the step with this name.
    func outcome(of name: String) -> String? { steps.first { $0.name == name }?.outcome }
  }

  let workflow: URL
  let repository: URL
  let root: URL
  /// What each `runs-on:` label stands for on this machine: the label, its `runner.arch` and
  /// `NAME=VALUE` variables of its environment (`--runner-label`); empty, every label is this
  /// machine.
  let runnerLabels: [[String]]
  private let python: URL

  /// - Throws: `XCTSkip` when the dev-time Python tools (PyYAML) are not installed.
  init(workflow: URL, repository: URL, root: URL, runnerLabels: [[String]] = []) throws {
    self.workflow = workflow
    self.repository = repository
    self.root = root
    self.runnerLabels = runnerLabels
    python = try Self.devToolsPython()
  }

  /// The Python of the dev-time tools' venv, which has PyYAML (the system `python3` may not).
  /// - Throws: `XCTSkip` saying "PyYAML is not installed", which Scripts/test-summary knows
  ///   Scripts/test installs: in CI that skip fails the run.
  static func devToolsPython() throws -> URL {
    let python = FixturePackage.checkout.appendingPathComponent(".build/dev-tools/venv/bin/python")
    guard FileManager.default.isExecutableFile(atPath: python.path) else {
      throw XCTSkip(
        "PyYAML is not installed (no \(python.path)): run Scripts/install-dependencies "
          + "--python-tools")
    }
    return python
  }

  /// The job's workspace, where checkout clones the repository: the same path for every job.
  var workspace: URL {
    let name = repository.lastPathComponent
    return root.appendingPathComponent("work/\(name)/\(name)")
  }

  /// The artifacts a run uploaded, one folder each.
  func artifacts(runID: Int) -> URL {
    root.appendingPathComponent("artifacts/\(runID)")
  }

  /// The keys of the saved caches.
  func cacheKeys() throws -> [String] {
    let folder = root.appendingPathComponent("caches")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return try names.sorted().compactMap { name in
      let entry = folder.appendingPathComponent("\(name)/entry.json")
      guard FileManager.default.fileExists(atPath: entry.path) else { return nil }
      let object = try JSONSerialization.jsonObject(with: Data(contentsOf: entry))
      return (object as? [String: Any])?["key"] as? String
    }
  }

  /// Runs one job (one matrix job when `matrixIndex` is given) of the run `runID`, started by
  /// `event`.
  /// - Throws: When the runner cannot start or does not emulate what the workflow uses.
  func run(
    job: String, runID: Int, matrixIndex: Int? = nil, event: String = "workflow_dispatch"
  ) throws -> JobRun {
    let report = root.appendingPathComponent("report-\(UUID().uuidString.prefix(8)).json")
    var arguments = [
      FixturePackage.checkout.appendingPathComponent("Scripts/run-workflow-job").path,
      "--workflow", workflow.path, "--job", job, "--repository", repository.path,
      "--runner-root", root.path, "--run-id", String(runID), "--event", event,
      "--report", report.path,
    ]
    if let matrixIndex { arguments += ["--matrix-index", String(matrixIndex)] }
    for label in runnerLabels { arguments += ["--runner-label"] + label }
    let started = Date()
    let process = try runProcess(python.path, arguments, timeout: 1800)
    guard let data = try? Data(contentsOf: report) else {
      throw FixtureError(
        message: "run-workflow-job \(job) exited \(process.status) without a report:\n"
          + process.all)
    }
    var run = try JSONDecoder().decode(JobRun.self, from: data)
    run.output = process.all
    run.seconds = Date().timeIntervalSince(started)
    print(
      "recipe job \(job)\(matrixIndex.map { "-\($0)" } ?? "") of run \(runID): \(run.result) in "
        + String(format: "%.1f s", run.seconds))
    return run
  }
}
