import os
import unittest

from workflow_runner.errors import Unsupported
from workflow_runner.workflow import (ancestors, extract_run_blocks, job_label, load_workflow,
                                      matrix_combinations, needed_jobs, shell_command,
                                      step_shell)

from .support import TemporaryFolderTestCase


class WorkflowFileTests(TemporaryFolderTestCase):
    def test_loadWorkflow_unknownTopLevelKey_isUnsupported(self):
        path = self.write("workflow.yml", "on: push\njobs: {}\nservices: {}\n")
        with self.assertRaisesRegex(Unsupported, r"keys this runner does not emulate: \['services'\]"):
            load_workflow(path)

    def test_extractRunBlocks_shebangPerShellAndExpressionsReplaced(self):
        path = self.write("ci.yml", """\
            on: push
            defaults:
              run:
                shell: bash
            jobs:
              build:
                steps:
                  - uses: actions/checkout@v4
                  - name: Say It
                    run: echo "${{ github.sha }}"
                  - shell: sh
                    run: echo plain
            """)
        written = extract_run_blocks(path, os.path.join(self.folder, "blocks"))
        self.assertEqual([os.path.basename(name) for name in written],
                         ["ci.build.2-say-it.sh", "ci.build.3-run.sh"])
        first = self.read(written[0])
        self.assertTrue(first.startswith("#!/usr/bin/env bash\nset -eo pipefail\n"), first)
        self.assertIn('echo "GITHUB_EXPRESSION"\n', first)
        self.assertTrue(self.read(written[1]).startswith("#!/bin/sh\nset -e\n"))

    def test_extractRunBlocks_shellWithoutADialect_isUnsupported(self):
        path = self.write("ci.yml", "on: push\njobs:\n  j:\n    steps:\n"
                                    "      - shell: pwsh\n        run: echo\n")
        with self.assertRaisesRegex(Unsupported, "no shellcheck dialect"):
            extract_run_blocks(path, os.path.join(self.folder, "blocks"))


class MatrixTests(unittest.TestCase):
    def test_matrixCombinations_firstKeyVariesSlowest(self):
        self.assertEqual(matrix_combinations({"matrix": {"os": ["a", "b"], "n": [1, 2]}}),
                         [{"os": "a", "n": 1}, {"os": "a", "n": 2},
                          {"os": "b", "n": 1}, {"os": "b", "n": 2}])
        self.assertEqual(matrix_combinations(None), [{}])

    def test_matrixCombinations_includeOrExclude_isUnsupported(self):
        with self.assertRaisesRegex(Unsupported, "no include or exclude"):
            matrix_combinations({"matrix": {"n": [1], "include": [{"n": 2}]}})

    def test_jobLabel_hasAnIndexOnlyInAMatrix(self):
        self.assertEqual(job_label("build", 0, 1), "build")
        self.assertEqual(job_label("build", 2, 4), "build-2")


class ShellTests(unittest.TestCase):
    def test_shellCommand_asGitHubRunsEachShell(self):
        self.assertEqual(shell_command(None, "s"), ["bash", "-e", "s"])
        self.assertEqual(shell_command("bash", "s"),
                         ["bash", "--noprofile", "--norc", "-eo", "pipefail", "s"])
        self.assertEqual(shell_command("sh", "s"), ["sh", "-e", "s"])
        self.assertEqual(shell_command("python3 -u {0}", "s"), ["python3", "-u", "s"])
        with self.assertRaisesRegex(Unsupported, "the shell 'pwsh'"):
            shell_command("pwsh", "s")

    def test_stepShell_stepThenJobThenWorkflowDefaults(self):
        workflow = {"defaults": {"run": {"shell": "sh"}}}
        job = {"defaults": {"run": {"shell": "bash"}}}
        self.assertEqual(step_shell({"shell": "python3 {0}"}, job, workflow), "python3 {0}")
        self.assertEqual(step_shell({}, job, workflow), "bash")
        self.assertEqual(step_shell({}, {}, workflow), "sh")
        self.assertIsNone(step_shell({}, {}, {}))


class NeedsTests(unittest.TestCase):
    workflow = {"jobs": {
        "build": {},
        "test": {"needs": "build"},
        "lint": {},
        "deploy": {"needs": ["test", "lint"]},
    }}

    def test_neededJobs_stringOrList(self):
        self.assertEqual(needed_jobs(self.workflow, "build"), [])
        self.assertEqual(needed_jobs(self.workflow, "test"), ["build"])
        self.assertEqual(needed_jobs(self.workflow, "deploy"), ["test", "lint"])

    def test_neededJobs_aJobNotInTheWorkflow_isUnsupported(self):
        workflow = {"jobs": {"merge": {"needs": ["generate"]}}}
        with self.assertRaisesRegex(Unsupported, "needs 'generate', which is not a job"):
            needed_jobs(workflow, "merge")
        with self.assertRaisesRegex(Unsupported, "a job name or a list"):
            needed_jobs({"jobs": {"merge": {"needs": {"a": 1}}}}, "merge")

    def test_ancestors_transitiveInOrder_andACycleIsAnError(self):
        self.assertEqual(ancestors(self.workflow, "deploy"), ["build", "test", "lint"])
        cycle = {"jobs": {"a": {"needs": "b"}, "b": {"needs": "a"}}}
        with self.assertRaisesRegex(Unsupported, "cycle: a -> b -> a"):
            ancestors(cycle, "a")


if __name__ == "__main__":
    unittest.main()
