import Foundation
import XCTest

/// `Scripts/run-workflow-job` behaves as GitHub's runner and actions do in what the recipe
/// relies on, and refuses what it does not emulate: small workflows, no Swift build.
final class WorkflowRunnerTests: XCTestCase {
  /// A runner on a one-commit repository, with `workflow` as its workflow file.
  private func runner(_ workflow: String) throws -> WorkflowRunner {
    let folder = try makeTemporaryFolder(self)
    let repository = folder.appendingPathComponent("Fixture")
    try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
    try "tracked\n".write(
      to: repository.appendingPathComponent("file.txt"), atomically: true, encoding: .utf8)
    for arguments in [
      ["init", "--quiet", "--initial-branch=main"], ["add", "--all"],
      [
        "-c", "user.name=fixture", "-c", "user.email=fixture@localhost", "commit", "--quiet",
        "--message", "fixture",
      ],
    ] {
      let git = try runProcess("/usr/bin/env", ["git"] + arguments, in: repository)
      XCTAssertEqual(git.status, 0, git.all)
    }
    let file = folder.appendingPathComponent("workflow.yml")
    try workflow.write(to: file, atomically: true, encoding: .utf8)
    return try WorkflowRunner(
      workflow: file, repository: repository, root: folder.appendingPathComponent("runner"))
  }

  func testRunner_envOutputsSummaryAndConditions_flowAsOnGitHub() throws {
    let runner = try runner(
      """
      on: workflow_dispatch
      defaults:
        run:
          shell: bash
      env:
        LEVEL: workflow
        TOP: top
      jobs:
        job:
          strategy:
            matrix:
              shard: [a, b, c]
          env:
            LEVEL: job
            PLACE: ${{ strategy.job-index }}/${{ strategy.job-total }}/${{ matrix.shard }}
          steps:
            - uses: actions/checkout@0000000000000000000000000000000000000000
            - id: first
              env:
                LEVEL: step
              run: |
                echo "seen=$TOP $LEVEL $PLACE $(cat file.txt)" >> "$GITHUB_OUTPUT"
                echo "ADDED=from-env-file" >> "$GITHUB_ENV"
                echo "## shard $PLACE" >> "$GITHUB_STEP_SUMMARY"
            - run: |
                test "${{ steps.first.outputs.seen }}" = "top step 1/3/b tracked"
                test "$LEVEL $ADDED" = "job from-env-file"
                test "${{ runner.os }} ${{ github.event_name }}" = "Linux workflow_dispatch"
            - name: pipefail
              run: false | true
            - name: after a failure
              run: echo never
            - name: on failure
              if: failure()
              run: echo "failure seen" >> "$GITHUB_STEP_SUMMARY"
            - name: default shell has no pipefail
              if: always()
              shell: bash -e {0}
              run: false | true
      """)
    let job = try runner.run(job: "job", runID: 1, matrixIndex: 1)
    XCTAssertEqual(job.result, "failure", job.output)
    XCTAssertEqual(
      job.steps.map(\.outcome),
      ["success", "success", "success", "failure", "skipped", "success", "success"], job.output)
    XCTAssertEqual(job.summary, "## shard 1/3/b\nfailure seen\n")
  }

  func testRunner_artifacts_namesUniqueFoldersApartAndNoFilesAnError() throws {
    let runner = try runner(
      """
      on: workflow_dispatch
      jobs:
        upload:
          strategy:
            matrix:
              shard: [0, 1]
          steps:
            - run: mkdir -p out/sub && echo "${{ matrix.shard }}" > out/sub/same.txt && touch out/.hidden
            - uses: actions/upload-artifact@v7
              with:
                name: part-${{ strategy.job-index }}
                path: out/
                if-no-files-found: error
            - name: same name again
              uses: actions/upload-artifact@v7
              with:
                name: part-${{ strategy.job-index }}
                path: out/
        empty:
          steps:
            - name: nothing to upload
              uses: actions/upload-artifact@v7
              with:
                name: empty
                path: missing/
                if-no-files-found: error
        download:
          steps:
            - uses: actions/download-artifact@v8
              with:
                pattern: part-*
                path: apart
            - uses: actions/download-artifact@v8
              with:
                pattern: part-*
                path: merged
                merge-multiple: true
            - run: |
                test "$(cat apart/part-0/sub/same.txt) $(cat apart/part-1/sub/same.txt)" = "0 1"
                test ! -e apart/part-0/.hidden
                test "$(find merged -type f)" = merged/sub/same.txt
      """)
    for index in 0..<2 {
      let upload = try runner.run(job: "upload", runID: 7, matrixIndex: index)
      XCTAssertEqual(upload.result, "failure", upload.output)
      XCTAssertEqual(upload.outcome(of: "same name again"), "failure", upload.output)
    }
    let empty = try runner.run(job: "empty", runID: 7)
    XCTAssertEqual(empty.outcome(of: "nothing to upload"), "failure", empty.output)
    let download = try runner.run(job: "download", runID: 7)
    XCTAssertEqual(download.result, "success", download.output)
  }

  func testRunner_cache_exactKeyThenNewestPrefixAndWrittenOnce() throws {
    let runner = try runner(
      """
      on: workflow_dispatch
      jobs:
        save:
          steps:
            - run: echo "${{ github.run_id }}" > value.txt
            - uses: actions/cache/save@v5
              with:
                path: value.txt
                key: value-${{ github.run_id }}
        restore:
          steps:
            - id: exact
              uses: actions/cache/restore@v5
              with:
                path: value.txt
                key: value-1
                restore-keys: value-
            - run: test "$(cat value.txt) ${{ steps.exact.outputs.cache-hit }}" = "1 true"
            - id: prefix
              uses: actions/cache/restore@v5
              with:
                path: value.txt
                key: value-none
                restore-keys: value-
            - run: |
                test "$(cat value.txt)" = 2
                test "${{ steps.prefix.outputs.cache-matched-key }}" = value-2
                test "${{ steps.prefix.outputs.cache-hit }}" = false
            - id: miss
              uses: actions/cache/restore@v5
              with:
                path: value.txt
                key: other
            - run: test "${{ steps.miss.outputs.cache-hit }}" = ""
      """)
    for runID in [1, 2, 2] {
      XCTAssertEqual(try runner.run(job: "save", runID: runID).result, "success")
    }
    XCTAssertEqual(try runner.cacheKeys(), ["value-1", "value-2"], "a key is written once")
    let restore = try runner.run(job: "restore", runID: 3)
    XCTAssertEqual(restore.result, "success", restore.output)
  }

  func testRunner_needs_aJobWhoseNeededJobFailedDoesNotRun() throws {
    let runner = try runner(
      """
      on: workflow_dispatch
      jobs:
        generate:
          strategy:
            matrix:
              shard: [0, 1]
          outputs:
            shard: ${{ steps.mark.outputs.shard }}
          steps:
            - id: mark
              run: echo "shard=${{ matrix.shard }}" >> "$GITHUB_OUTPUT"
            - name: shard 1 fails in run 4
              run: test "${{ matrix.shard }}-${{ github.run_id }}" != 1-4
        merge:
          needs: generate
          steps:
            - name: land
              run: echo "landed" >> "$GITHUB_STEP_SUMMARY"
        report:
          needs: [generate]
          if: always()
          steps:
            - run: |
                test "${{ needs.generate.result }}" = failure
                echo "needs: ${{ needs.generate.result }}" >> "$GITHUB_STEP_SUMMARY"
      """)
    XCTAssertEqual(try runner.run(job: "generate", runID: 4, matrixIndex: 0).result, "success")
    XCTAssertEqual(try runner.run(job: "generate", runID: 4, matrixIndex: 1).result, "failure")
    let merge = try runner.run(job: "merge", runID: 4)
    XCTAssertEqual(merge.result, "skipped", merge.output)
    XCTAssertEqual(merge.steps.count, 0, merge.output)
    XCTAssertTrue(
      merge.output.contains("a job it needs did not succeed: generate (failure)"), merge.output)
    let report = try runner.run(job: "report", runID: 4)
    XCTAssertEqual(report.result, "success", report.output)
    XCTAssertEqual(report.summary, "needs: failure\n")
    // In a run where every shard succeeded, the merge runs.
    for index in 0..<2 {
      XCTAssertEqual(
        try runner.run(job: "generate", runID: 5, matrixIndex: index).result, "success")
    }
    let landed = try runner.run(job: "merge", runID: 5)
    XCTAssertEqual(landed.result, "success", landed.output)
    XCTAssertEqual(landed.summary, "landed\n")
    let results = runner.root.appendingPathComponent("results/4")
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: results.path).sorted(),
      ["generate-0.json", "generate-1.json", "merge.json", "report.json"])
  }

  func testRunner_whatItDoesNotEmulate_failsLoudly() throws {
    let cases = [
      "uses: actions/setup-node@v4": "the action actions/setup-node@v4 is not emulated",
      "run: echo ${{ secrets.TOKEN }}": "the context 'secrets'",
      "run: echo ${{ github.actor }}": "github.actor is not defined",
      "run: echo ${{ toJSON(github) }}": "the function toJSON()",
      "uses: actions/upload-artifact@v7\n        with:\n          path: x\n          if-no-file-found: error":
        "'if-no-file-found' is not an input of this action",
      "uses: actions/download-artifact@v8\n        with:\n          run-id: 12":
        "'run-id' is not emulated",
    ]
    for (step, message) in cases {
      let runner = try runner("on: push\njobs:\n  job:\n    steps:\n      - \(step)\n")
      XCTAssertThrowsError(try runner.run(job: "job", runID: 1), step) { error in
        XCTAssertTrue("\(error)".contains(message), "\(step): \(error)")
      }
    }
  }
}
