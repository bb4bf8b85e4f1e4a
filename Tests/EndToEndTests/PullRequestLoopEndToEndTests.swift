import Foundation
import XCTest

/// The daily loop of a team, through the CI recipe's `verify` job run by
/// `Scripts/run-workflow-job` and the review page in Chromium (Playwright): a pull request
/// changes 2 of 52 renders; verify fails with its summary, annotations and one artifact; a
/// reviewer accepts one change and rejects the other; the artifact's command lands exactly the
/// accepted one; a stale approval is refused with nothing written; after the commit, verify
/// passes. A failure elsewhere (another test, the build) claims nothing about images.
final class PullRequestLoopEndToEndTests: XCTestCase {
  private let checkout = FixturePackage.checkout
  private let warm = "Tests/SwatchTests/__References__/SwatchTests/swatch-07.png"
  private let dark = "Tests/SwatchTests/__References__/SwatchTests/swatch-33.png"
  /// The verify job of the recipe's first platform (matrix job 0), first attempt.
  private static let artifactName = "reference-verify-ubuntu-24.04-1"

  func testPullRequest_failedVerifyIsReviewedAndLandedWithoutRenderingAgain() throws {
    let folder = try makeTemporaryFolder(self)
    let repository = try makeFixtureRepository("LoopFixture", in: folder)
    let root = folder.appendingPathComponent("runner")
    let recipe = try WorkflowRunner(
      workflow: checkout.appendingPathComponent(".github/workflows/reference-images.yml"),
      repository: repository, root: root)

    // main: every reference, rendered once in the runner's workspace, whose build folder the
    // verify jobs then restore, as a recipe's generation run leaves it.
    try seedReferencesAndBuildCache(repository: repository, root: root, scratch: folder)
    XCTAssertEqual(try references(in: repository).count, 52)
    let main = try references(in: repository)

    // The pull request moves swatches 7 and 33.
    try setChangedSwatches("[7: 0, 33: 0]", in: repository, message: "pull request")
    let failed = try recipe.run(job: "verify", runID: 2001, matrixIndex: 0, event: "pull_request")
    XCTAssertEqual(failed.result, "failure", failed.output)
    XCTAssertEqual(failed.outcome(of: "Test"), "failure", failed.output)
    XCTAssertEqual(failed.outcome(of: "Explain the failure"), "success", failed.output)
    XCTAssertEqual(
      failed.outcome(of: "Upload the failed images and their review"), "success", failed.output)
    for line in ["0 added, 2 updated", warm, dark, Self.artifactName, "36 of 576 pixels differ"] {
      XCTAssertTrue(
        failed.summary.contains(line), "\(line) not in the job summary:\n\(failed.summary)")
    }
    XCTAssertLessThan(failed.summary.utf8.count, 64 * 1024)
    let annotations = failed.output.split(separator: "\n").filter { $0.hasPrefix("::error file=") }
    XCTAssertEqual(annotations.count, 2, failed.output)
    XCTAssertTrue(
      annotations.allSatisfy { $0.contains("file=Tests/SwatchTests/SwatchTests.swift,line=") },
      "\(annotations)")
    let artifact = recipe.artifacts(runID: 2001).appendingPathComponent(Self.artifactName)
    let review = try driveReview(
      artifact.appendingPathComponent("reference-review/index.html"), scratch: folder)
    XCTAssertEqual(review.cards, 2, "the report shows exactly the two changed images")
    XCTAssertEqual(review.errors, [])
    let decisions = try XCTUnwrap(review.exports["decided"]).text

    // A stale approval: a new push renders swatch 7 differently after the review; the new
    // artifact with the old decisions is refused by name, and nothing is written.
    try setChangedSwatches("[7: 90, 33: 0]", in: repository, message: "another push")
    let again = try recipe.run(job: "verify", runID: 2002, matrixIndex: 0, event: "pull_request")
    XCTAssertEqual(again.result, "failure", again.output)
    let stale = try land(
      recipe.artifacts(runID: 2002).appendingPathComponent(Self.artifactName),
      decisions: decisions, in: repository)
    XCTAssertEqual(stale.exitStatus, .refusedInput, stale.all)
    XCTAssertTrue(stale.output.contains("\(warm) changed since review"), stale.all)
    XCTAssertEqual(try references(in: repository), main, "nothing written")
    try git(["reset", "--quiet", "--hard", "HEAD~1"], in: repository)
    try FileManager.default.removeItem(at: repository.appendingPathComponent("reference-verify"))

    // The reviewed artifact's command lands exactly the accepted image.
    let landed = try land(artifact, decisions: decisions, in: repository)
    XCTAssertEqual(landed.exitStatus, .success, landed.all)
    XCTAssertTrue(landed.output.contains("0 added, 1 updated"), landed.output)
    let after = try references(in: repository)
    XCTAssertEqual(Set(after.keys), Set(main.keys))
    XCTAssertEqual(after.filter { main[$0.key] != $0.value }.map(\.key), [warm])

    // The author fixes the rejected change and commits the landed reference: verify passes.
    try FileManager.default.removeItem(at: repository.appendingPathComponent("reference-verify"))
    try FileManager.default.removeItem(
      at: repository.appendingPathComponent("reference-decisions.txt"))
    try setChangedSwatches("[7: 0]", in: repository, message: "reference and fix")
    let passed = try recipe.run(job: "verify", runID: 2003, matrixIndex: 0, event: "pull_request")
    XCTAssertEqual(passed.result, "success", passed.output)
    XCTAssertEqual(passed.outcome(of: "Upload the failed images and their review"), "skipped")
    // A failure that compared no image claims nothing about images and uploads nothing.
    try setChangedSwatches("[7: 0, 99: 1]", in: repository, message: "break the legend")
    let legend = try recipe.run(job: "verify", runID: 2004, matrixIndex: 0, event: "pull_request")
    XCTAssertEqual(legend.result, "failure", legend.output)
    XCTAssertEqual(legend.outcome(of: "Test"), "failure", legend.output)
    XCTAssertTrue(
      legend.summary.contains("The tests failed, and no image comparison did"), legend.summary)
    XCTAssertFalse(legend.summary.contains("updated"), legend.summary)
    XCTAssertFalse(
      FileManager.default.fileExists(
        atPath: recipe.artifacts(runID: 2004).appendingPathComponent(Self.artifactName).path))
    try String("let changedSwatches = [").write(
      to: repository.appendingPathComponent("Tests/SwatchTests/Broken.swift"), atomically: true,
      encoding: .utf8)
    try commitEverything("break the build", in: repository)
    let build = try recipe.run(job: "verify", runID: 2005, matrixIndex: 0, event: "pull_request")
    XCTAssertEqual(build.result, "failure", build.output)
    XCTAssertEqual(build.outcome(of: "Test"), "skipped", build.output)
    XCTAssertTrue(build.summary.contains("failed before the tests ran"), build.summary)
    XCTAssertEqual(
      build.outcome(of: "Upload the failed images and their review"), "skipped", build.output)

    // A figure, not a bound: the machine's load decides it.
    print(
      String(
        format: "pull-request loop: failing verify job with its report %.1f s, passing %.1f s "
          + "(%.2fx)", failed.seconds, passed.seconds, failed.seconds / passed.seconds))
  }

  // MARK: - Steps

  /// Runs a one-job workflow in the recipe's runner root: it builds the fixture, renders every
  /// reference in generation mode, lands them with merge-refs, uploads them as a patch, and
  /// saves the build folder under the key the verify job restores. The patch is committed.
  private func seedReferencesAndBuildCache(repository: URL, root: URL, scratch: URL) throws {
    let recipe = try String(
      contentsOf: checkout.appendingPathComponent(".github/workflows/reference-images.yml"),
      encoding: .utf8)
    // The same pinned actions as the recipe.
    func pin(_ action: String) throws -> String {
      let line = try XCTUnwrap(
        recipe.split(separator: "\n").first { $0.contains("uses: \(action)@") }, action)
      return String(line.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(
        in: .whitespaces)
    }
    let key =
      "swift-build-${{ runner.os }}-${{ runner.arch }}-"
      + "${{ hashFiles('Package.swift', 'Package.resolved') }}"
    let workflow = """
      on: pull_request
      permissions:
        contents: read
      defaults:
        run:
          shell: bash
      jobs:
        seed:
          runs-on: ubuntu-latest
          steps:
            - uses: \(try pin("actions/checkout"))
              with:
                persist-credentials: false
            - name: Key
              id: build-cache
              uses: \(try pin("actions/cache/restore"))
              with:
                path: .build
                key: \(key)-seed
            - name: Build
              run: swift build --build-tests && swift build --product merge-refs
            - name: References
              run: |
                IMAGE_GENERATION_MODE=1 IMAGE_GENERATION_OUTPUT=.build/seed swift test --skip-build
                swift run --skip-build merge-refs .build/seed .
                mkdir seed
                git add --all -- ':(glob)**/__References__/**'
                git diff --cached --binary >seed/references.patch
            - uses: \(try pin("actions/cache/save"))
              with:
                path: .build
                key: ${{ steps.build-cache.outputs.cache-primary-key }}
            - uses: \(try pin("actions/upload-artifact"))
              with:
                name: seed
                path: seed/
                if-no-files-found: error
      """
    let file = scratch.appendingPathComponent("seed.yml")
    try workflow.write(to: file, atomically: true, encoding: .utf8)
    let runner = try WorkflowRunner(workflow: file, repository: repository, root: root)
    let seed = try runner.run(job: "seed", runID: 2000, event: "pull_request")
    XCTAssertEqual(seed.result, "success", seed.output)
    let patch = runner.artifacts(runID: 2000).appendingPathComponent("seed/references.patch")
    try git(["apply", "--index", patch.path], in: repository)
    try commitEverything("references", in: repository)
  }

  /// Edits `changedSwatches` in Palette.swift and commits everything, as a push would.
  private func setChangedSwatches(_ value: String, in repository: URL, message: String) throws {
    let palette = repository.appendingPathComponent("Tests/SwatchTests/Palette.swift")
    let text = try String(contentsOf: palette, encoding: .utf8)
    let edited = text.replacingOccurrences(
      of: #"let changedSwatches: \[Int: UInt8\] = .*"#,
      with: "let changedSwatches: [Int: UInt8] = \(value)", options: .regularExpression)
    try edited.write(to: palette, atomically: true, encoding: .utf8)
    try commitEverything(message, in: repository)
  }

  /// What a developer does with the artifact: unzips it as `reference-verify` in the package
  /// root, saves the page's decision file there, and runs the command the file names. The
  /// command is `swift run merge-refs …`; this checkout's built merge-refs (the same code) runs
  /// its arguments, so the test does not build the tool a second time.
  private func land(_ artifact: URL, decisions: String, in repository: URL) throws -> ProcessOutput
  {
    let unpacked = repository.appendingPathComponent("reference-verify")
    try? FileManager.default.removeItem(at: unpacked)
    try FileManager.default.copyItem(at: artifact, to: unpacked)
    try decisions.write(
      to: repository.appendingPathComponent("reference-decisions.txt"), atomically: true,
      encoding: .utf8)
    let command = try XCTUnwrap(
      decisions.split(separator: "\n").first { $0.hasPrefix("# swift run merge-refs ") },
      decisions)
    let words = command.dropFirst("# swift run merge-refs ".count).split(separator: " ")
      .map(String.init)
    XCTAssertEqual(
      words, ["--include-from", "reference-decisions.txt", "reference-verify", "."],
      "the page's command names the artifact as the summary says")
    return try runProcess(try mergeRefsBinary().path, words, in: repository)
  }

  /// Opens the review page, accepts the first card (swatch 7) and rejects the second
  /// (swatch 33), and downloads the decision file.
  private func driveReview(_ index: URL, scratch: URL) throws -> ReviewResult {
    try PageTools.drive(
      index, steps: Data(#"[{"press": ["a", "r"]}, {"export": "decided"}]"#.utf8),
      checkout: checkout, work: scratch)
  }

  struct ReviewResult: Decodable {
    struct Export: Decodable { var text: String }
    var cards: Int
    var errors: [String]
    var exports: [String: Export]
  }

  /// Every reference file of the package, by package-relative path.
  private func references(in repository: URL) throws -> [String: Data] {
    let folder = repository.appendingPathComponent("Tests/SwatchTests/__References__")
    var files: [String: Data] = [:]
    guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [:] }
    while let path = walker.nextObject() as? String {
      guard path.hasSuffix(".png") else { continue }
      files["Tests/SwatchTests/__References__/" + path] = try Data(
        contentsOf: folder.appendingPathComponent(path))
    }
    return files
  }
}
