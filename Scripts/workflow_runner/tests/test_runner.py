import contextlib
import io
import json
import os
import subprocess
import sys

from workflow_runner.errors import StepFailure, Unsupported
from workflow_runner.runner import Job, read_key_values

from .support import TemporaryFolderTestCase, job_arguments, make_repository

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "run-workflow-job")


class JobTestCase(TemporaryFolderTestCase):
    """Runs jobs of a workflow written by the test on a one-commit repository."""

    def setUp(self):
        super().setUp()
        self.repository = make_repository(self.folder)
        self.root = os.path.join(self.folder, "runner")

    def job(self, workflow, name, run_id="1", **options):
        path = self.write("workflow.yml", workflow)
        return Job(job_arguments(path, name, self.repository, self.root, run_id, **options))

    def run_job(self, workflow, name, run_id="1", **options):
        """The job after running, and what it printed."""
        job = self.job(workflow, name, run_id, **options)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            job.run()
        return job, printed.getvalue()


class JobTests(JobTestCase):
    def test_steps_envOutputsSummaryAndStatusFunctions(self):
        job, printed = self.run_job("""\
            on: push
            env:
              LEVEL: workflow
            jobs:
              job:
                strategy:
                  matrix:
                    shard: [a, b]
                env:
                  LEVEL: job
                steps:
                  - id: first
                    env:
                      LEVEL: step
                    run: |
                      echo "seen=$LEVEL ${{ matrix.shard }}" >> "$GITHUB_OUTPUT"
                      echo "ADDED=yes" >> "$GITHUB_ENV"
                      echo "summary line" >> "$GITHUB_STEP_SUMMARY"
                  - run: test "${{ steps.first.outputs.seen }} $LEVEL $ADDED" = "step b job yes"
                  - run: exit 3
                  - name: skipped after a failure
                    run: echo never
                  - name: on failure
                    if: failure()
                    run: echo "failure seen" >> "$GITHUB_STEP_SUMMARY"
            """, "job", matrix_index=1)
        self.assertEqual(job.status, "failure", printed)
        self.assertEqual([step["outcome"] for step in job.step_records],
                         ["success", "success", "failure", "skipped", "success"])
        self.assertEqual(job.label, "job-1")
        self.assertEqual(job.summary, "summary line\nfailure seen\n")
        self.assertIn("::error::Process completed with exit code 3.", printed)
        summary = os.path.join(self.root, "summaries", "1", "job-1.md")
        self.assertEqual(self.read(summary), job.summary)

    def test_continueOnError_keepsTheJobGreen(self):
        job, _ = self.run_job("""\
            on: push
            jobs:
              job:
                steps:
                  - id: flaky
                    continue-on-error: true
                    run: exit 1
                  - run: test "${{ steps.flaky.outcome }} ${{ steps.flaky.conclusion }}" = "failure success"
            """, "job")
        self.assertEqual(job.status, "success")

    def test_jobIf_falseSkipsTheJob(self):
        job, printed = self.run_job("""\
            on: push
            jobs:
              job:
                if: github.event_name == 'pull_request'
                steps:
                  - run: exit 1
            """, "job")
        self.assertEqual(job.status, "skipped")
        self.assertIn("job job skipped: its if: is false", printed)

    def test_whatIsNotEmulated_isUnsupported(self):
        for workflow, message in (
                ("on: push\njobs:\n  job:\n    services: {}\n", "keys this runner does not"),
                ("on: push\njobs:\n  job:\n    steps:\n      - name: neither\n",
                 "exactly one of run, uses"),
        ):
            with self.assertRaisesRegex(Unsupported, message):
                self.run_job(workflow, "job")
        with self.assertRaisesRegex(Unsupported, "has no job 'other'"):
            self.job("on: push\njobs:\n  job: {}\n", "other")
        with self.assertRaisesRegex(Unsupported, "the matrix has 1 jobs"):
            self.job("on: push\njobs:\n  job: {}\n", "job", matrix_index=3)

    def test_aptGetShim_checksPackagesInsteadOfInstalling(self):
        job, _ = self.run_job("""\
            on: push
            jobs:
              job:
                container: swift:6.3
                steps:
                  - run: apt-get update >/dev/null
                  - run: apt-get install -y surely-not-a-package-name 2>/dev/null
            """, "job")
        self.assertEqual([step["outcome"] for step in job.step_records], ["success", "failure"])


class KeyValueTests(TemporaryFolderTestCase):
    def test_readKeyValues_linesAndHeredocs(self):
        path = self.write("output", "a=1\nb=x=y\n\nlong<<EOF\nline 1\nline 2\nEOF\n")
        self.assertEqual(read_key_values(path), {"a": "1", "b": "x=y", "long": "line 1\nline 2"})

    def test_readKeyValues_malformed_failsTheStep(self):
        with self.assertRaisesRegex(StepFailure, "no closing EOF"):
            read_key_values(self.write("output", "long<<EOF\nline\n"))
        with self.assertRaisesRegex(StepFailure, "want name=value"):
            read_key_values(self.write("other", "just words\n"))


class CommandLineTests(JobTestCase):
    """Scripts/run-workflow-job: its exit statuses and its report."""

    def run_script(self, workflow, job, *extra):
        path = self.write("workflow.yml", workflow)
        report = os.path.join(self.folder, "report.json")
        result = subprocess.run(
            [sys.executable, SCRIPT, "--workflow", path, "--job", job, "--repository",
             self.repository, "--runner-root", self.root, "--run-id", "5", "--report", report,
             *extra], capture_output=True, text=True)
        body = None
        if os.path.exists(report):
            with open(report, encoding="utf-8") as handle:
                body = json.load(handle)
            os.remove(report)
        return result, body

    def test_exitStatus_successFailureSkippedAndUnsupported(self):
        workflow = """\
            on: push
            jobs:
              good:
                steps:
                  - run: exit 0
              bad:
                steps:
                  - run: exit 1
              never:
                if: false
                steps:
                  - run: exit 0
              odd:
                steps:
                  - uses: actions/setup-node@v4
            """
        for job, status, result in (("good", 0, "success"), ("bad", 1, "failure"),
                                    ("never", 3, "skipped")):
            process, report = self.run_script(workflow, job)
            self.assertEqual(process.returncode, status, process.stdout + process.stderr)
            self.assertEqual(report["result"], result)
            self.assertIn(f"job {job}: {result}", process.stdout)
        process, report = self.run_script(workflow, "odd")
        self.assertEqual(process.returncode, 2)
        self.assertIsNone(report)
        self.assertIn("run-workflow-job: error: the action actions/setup-node@v4 is not "
                      "emulated", process.stderr)

    def test_badArguments_exitTwo(self):
        process = subprocess.run([sys.executable, SCRIPT, "--workflow", "x.yml"],
                                 capture_output=True, text=True)
        self.assertEqual(process.returncode, 2)
        self.assertIn("missing --job, --repository, --runner-root", process.stderr)

    def test_extractRunBlocks_printsTheScripts(self):
        path = self.write("ci.yml", "on: push\njobs:\n  j:\n    steps:\n      - run: echo\n")
        process = subprocess.run(
            [sys.executable, SCRIPT, "--workflow", path, "--extract-run-blocks",
             os.path.join(self.folder, "blocks")], capture_output=True, text=True)
        self.assertEqual(process.returncode, 0, process.stderr)
        self.assertEqual(os.path.basename(process.stdout.strip()), "ci.j.1-run.sh")
