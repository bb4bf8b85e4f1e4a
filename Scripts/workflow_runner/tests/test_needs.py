import json
import os

from workflow_runner.errors import Unsupported

from .test_runner import JobTestCase

WORKFLOW = """\
    on: push
    jobs:
      generate:
        strategy:
          matrix:
            shard: [0, 1]
        outputs:
          version: ${{ steps.make.outputs.version }}
          unset: ${{ steps.make.outputs.other }}
        steps:
          - id: make
            run: echo "version=1.${{ matrix.shard }}" >> "$GITHUB_OUTPUT"
          - run: test ! -e "$RUNNER_TEMP/../fail-${{ matrix.shard }}"
      merge:
        needs: generate
        steps:
          - run: test "${{ needs.generate.outputs.version }}" = 1.1
      report:
        needs: [generate]
        if: always()
        steps:
          - run: echo "result=${{ needs.generate.result }}" >> "$GITHUB_OUTPUT"
            id: show
        outputs:
          seen: ${{ steps.show.outputs.result }}
      cleanup:
        needs: [generate, report]
        if: failure()
        steps:
          - run: exit 0
"""


class NeedsTests(JobTestCase):
    def run_generate(self, run_id, shards, fail_shard=None):
        os.makedirs(self.root, exist_ok=True)
        for name in os.listdir(self.root):
            if name.startswith("fail-"):
                os.remove(os.path.join(self.root, name))
        if fail_shard is not None:
            open(os.path.join(self.root, f"fail-{fail_shard}"), "w").close()
        for index in shards:
            job, printed = self.run_job(WORKFLOW, "generate", run_id, matrix_index=index)
            expected = "failure" if index == fail_shard else "success"
            self.assertEqual(job.status, expected, printed)

    def test_neededMatrixJobAllSucceeded_runsWithItsOutputs(self):
        self.run_generate("1", [0, 1])
        merge, printed = self.run_job(WORKFLOW, "merge", "1")
        self.assertEqual(merge.status, "success", printed)
        self.assertEqual(merge.context["needs"],
                         {"generate": {"result": "success",
                                       "outputs": {"version": "1.1", "unset": ""}}})
        cleanup, _ = self.run_job(WORKFLOW, "cleanup", "1")
        self.assertEqual(cleanup.status, "skipped")

    def test_oneMatrixJobFailed_skipsTheJobThatNeedsIt(self):
        self.run_generate("2", [0, 1], fail_shard=1)
        merge, printed = self.run_job(WORKFLOW, "merge", "2")
        self.assertEqual(merge.status, "skipped")
        self.assertEqual(merge.step_records, [])
        self.assertIn("job merge skipped: a job it needs did not succeed: generate (failure)",
                      printed)
        report, printed = self.run_job(WORKFLOW, "report", "2")
        self.assertEqual(report.status, "success", printed)
        self.assertEqual(report.outputs, {"seen": "failure"})
        cleanup, printed = self.run_job(WORKFLOW, "cleanup", "2")
        self.assertEqual(cleanup.status, "success", printed)

    def test_aMatrixJobThatDidNotRun_readsAsSkipped(self):
        self.run_generate("3", [0])
        merge, printed = self.run_job(WORKFLOW, "merge", "3")
        self.assertEqual(merge.status, "skipped")
        self.assertIn("::notice::generate-1 did not run in run 3 (of 2 matrix jobs): "
                      "generate reads as skipped", printed)
        self.assertIn("generate (skipped)", printed)
        report, _ = self.run_job(WORKFLOW, "report", "3")
        self.assertEqual(report.outputs, {"seen": "skipped"})

    def test_resultsBelongToTheirRun(self):
        self.run_generate("4", [0, 1])
        merge, printed = self.run_job(WORKFLOW, "merge", "5")
        self.assertEqual(merge.status, "skipped", printed)

    def test_results_areWrittenPerJobAndMatrixJob(self):
        self.run_generate("6", [0, 1], fail_shard=0)
        self.run_job(WORKFLOW, "merge", "6")
        folder = os.path.join(self.root, "results", "6")
        self.assertEqual(sorted(os.listdir(folder)),
                         ["generate-0.json", "generate-1.json", "merge.json"])
        with open(os.path.join(folder, "generate-0.json"), encoding="utf-8") as handle:
            record = json.load(handle)
        self.assertEqual(
            {key: record[key] for key in ("job", "label", "matrixIndex", "matrixTotal",
                                          "result", "outputs")},
            {"job": "generate", "label": "generate-0", "matrixIndex": 0, "matrixTotal": 2,
             "result": "failure", "outputs": {"version": "1.0", "unset": ""}})
        with open(os.path.join(folder, "merge.json"), encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["result"], "skipped")

    def test_success_coversJobsNeededThroughOthers(self):
        workflow = """\
            on: push
            jobs:
              first:
                steps:
                  - run: exit 1
              second:
                needs: first
                if: always()
                steps:
                  - run: exit 0
              third:
                needs: second
                steps:
                  - run: exit 0
              fourth:
                needs: second
                if: failure()
                steps:
                  - run: exit 0
              fifth:
                needs: second
                if: needs.second.result == 'success'
                steps:
                  - run: exit 0
            """
        for name, expected in (("first", "failure"), ("second", "success"),
                               ("third", "skipped"), ("fourth", "success"),
                               ("fifth", "skipped")):
            job, printed = self.run_job(workflow, name, "7")
            self.assertEqual(job.status, expected, f"{name}:\n{printed}")
        third, printed = self.run_job(workflow, "third", "7")
        self.assertIn("a job it needs did not succeed: first (failure)", printed)

    def test_neededJobSkippedByItsIf_skipsTheJobThatNeedsIt(self):
        workflow = """\
            on: push
            jobs:
              first:
                if: false
                steps:
                  - run: exit 0
              second:
                needs: first
                steps:
                  - run: exit 0
            """
        self.run_job(workflow, "first", "8")
        second, printed = self.run_job(workflow, "second", "8")
        self.assertEqual(second.status, "skipped")
        self.assertIn("first (skipped)", printed)

    def test_aNeededJobNotInTheWorkflow_isUnsupported(self):
        with self.assertRaisesRegex(Unsupported, "job merge needs 'generate', which is not a job"):
            self.job("on: push\njobs:\n  merge:\n    needs: [generate]\n    steps: []\n",
                     "merge")

    def test_needsOfAJobNotNeeded_isUnsupported(self):
        workflow = """\
            on: push
            jobs:
              first:
                steps:
                  - run: exit 0
              second:
                steps:
                  - run: echo "${{ needs.first.result }}"
            """
        with self.assertRaisesRegex(Unsupported, "the job does not need 'first'"):
            self.run_job(workflow, "second", "9")
