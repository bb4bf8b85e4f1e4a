import json
import os

from workflow_runner.expressions import Status
from workflow_runner.results import Results

from .support import TemporaryFolderTestCase

WORKFLOW = {"jobs": {
    "build": {"strategy": {"matrix": {"n": [0, 1, 2]}}, "outputs": {"tag": "x", "path": "y"}},
    "test": {"needs": "build"},
    "deploy": {"needs": ["test"]},
}}


class ResultsTests(TemporaryFolderTestCase):
    def setUp(self):
        super().setUp()
        self.results = Results(self.folder, "9")

    def record(self, label, index, result, outputs=None, finished=None):
        self.results.write(label.split("-")[0], label, index, 3, result, outputs or {})
        if finished:
            path = self.results.path(label)
            with open(path, encoding="utf-8") as handle:
                record = json.load(handle)
            record["finished"] = finished
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(record, handle)

    def test_write_keepsOneFilePerJobRunInTheRunsFolder(self):
        self.record("build-1", 1, "success", {"tag": "v1"})
        self.assertEqual(os.listdir(os.path.join(self.folder, "results", "9")), ["build-1.json"])
        self.assertEqual(self.results.read("build-1")["outputs"], {"tag": "v1"})
        self.assertIsNone(self.results.read("build-0"))

    def test_matrixJob_succeededOnlyWhenEveryMatrixJobDid(self):
        for index in range(3):
            self.record(f"build-{index}", index, "success")
        self.assertEqual(self.results.job(WORKFLOW, "build")[0]["result"], "success")
        self.record("build-2", 2, "failure")
        self.assertEqual(self.results.job(WORKFLOW, "build")[0]["result"], "failure")

    def test_matrixJob_withMatrixJobsMissing_readsAsSkippedWithANote(self):
        self.record("build-0", 0, "success")
        value, note = self.results.job(WORKFLOW, "build")
        self.assertEqual(value["result"], "skipped")
        self.assertEqual(note, "build-1, build-2 did not run in run 9 (of 3 matrix jobs): "
                               "build reads as skipped")
        self.assertEqual(self.results.job(WORKFLOW, "test"),
                         ({"result": "skipped", "outputs": {}},
                          "test did not run in run 9: test reads as skipped"))

    def test_outputs_declaredNamesReadEmpty_andTheLastToFinishWins(self):
        self.record("build-0", 0, "success", {"tag": "late", "path": ""}, "2026-01-01T00:00:03")
        self.record("build-1", 1, "success", {"tag": "early", "path": "p"}, "2026-01-01T00:00:01")
        self.record("build-2", 2, "success", {"tag": "", "path": ""}, "2026-01-01T00:00:05")
        self.assertEqual(self.results.job(WORKFLOW, "build")[0]["outputs"],
                         {"tag": "late", "path": "p"})

    def test_needs_contextHoldsDirectNeeds_statusCoversEveryAncestor(self):
        for index in range(3):
            self.record(f"build-{index}", index, "failure" if index == 1 else "success")
        self.results.write("test", "test", 0, 1, "success", {})
        context, status, notes, results = self.results.needs(WORKFLOW, "deploy")
        self.assertEqual(list(context), ["test"])
        self.assertEqual(status, Status(success=False, failure=True))
        self.assertEqual(notes, [])
        self.assertEqual(results, {"build": "failure", "test": "success"})
        self.assertEqual(self.results.needs(WORKFLOW, "build")[1],
                         Status(success=True, failure=False))
