import contextlib
import io
import os
import subprocess

from workflow_runner.actions import emulate
from workflow_runner.errors import StepFailure, Unsupported

from .support import TemporaryFolderTestCase, make_repository


class FakeJob:
    """What an action sees of its job: folders, the run, the commit."""

    def __init__(self, folder, run_id="1", repository=None):
        self.root = os.path.join(folder, "runner")
        self.workspace = os.path.join(self.root, "work", "Fixture", "Fixture")
        os.makedirs(self.workspace, exist_ok=True)
        self.run_id = run_id
        self.repository = repository
        self.sha = None
        if repository:
            self.sha = subprocess.run(["git", "-C", repository, "rev-parse", "HEAD"],
                                      check=True, capture_output=True, text=True).stdout.strip()

    def workspace_path(self, path):
        return os.path.normpath(os.path.join(self.workspace, os.path.expanduser(path.strip())))


class ActionTestCase(TemporaryFolderTestCase):
    def setUp(self):
        super().setUp()
        self.job = FakeJob(self.folder)

    def run_action(self, uses, job=None, **inputs):
        """The action's outputs and what it printed."""
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            outputs = emulate(uses, {key.replace("_", "-"): value
                                     for key, value in inputs.items()}, job or self.job)
        return outputs, printed.getvalue()

    def make_files(self, job, *names):
        for name in names:
            path = os.path.join(job.workspace, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(name)

    def files(self, folder):
        return sorted(os.path.relpath(os.path.join(parent, name), folder)
                      for parent, _, names in os.walk(folder) for name in names)


class InputTests(ActionTestCase):
    def test_unknownActionAndInputs_areUnsupported(self):
        with self.assertRaisesRegex(Unsupported, "actions/setup-node@v4 is not emulated"):
            self.run_action("actions/setup-node@v4")
        with self.assertRaisesRegex(Unsupported, "'if-no-file-found' is not an input"):
            self.run_action("actions/upload-artifact@v7", path="x", if_no_file_found="error")
        with self.assertRaisesRegex(Unsupported, "'run-id' is not emulated"):
            self.run_action("actions/download-artifact@v8", run_id="12")

    def test_inputsWithoutEffectHere_areAccepted(self):
        self.make_files(self.job, "out/a.txt")
        outputs, _ = self.run_action("actions/upload-artifact@v7", name="a", path="out",
                                     retention_days="1")
        self.assertEqual(outputs["artifact-id"], "a")


class CheckoutTests(ActionTestCase):
    def test_checkout_replacesTheWorkspaceWithTheCommit(self):
        job = FakeJob(self.folder, repository=make_repository(self.folder))
        self.make_files(job, "left-over.txt")
        outputs, _ = self.run_action("actions/checkout@v4", job, persist_credentials="false")
        self.assertEqual(outputs["commit"], job.sha)
        self.assertEqual(sorted(os.listdir(job.workspace)), [".git", "file.txt"])

    def test_checkout_cleanFalse_isUnsupported(self):
        with self.assertRaisesRegex(Unsupported, "clean: false"):
            self.run_action("actions/checkout@v4", clean="false")


class ArtifactTests(ActionTestCase):
    def test_upload_folderRootHiddenFilesLeftOutAndExclusions(self):
        self.make_files(self.job, "out/sub/a.txt", "out/.hidden", "out/b.log", "out/c.txt")
        self.run_action("actions/upload-artifact@v7", name="part", path="out/\n!out/*.log")
        stored = os.path.join(self.job.root, "artifacts", "1", "part")
        self.assertEqual(self.files(stored), ["c.txt", "sub/a.txt"])

    def test_upload_includeHiddenFilesAndSingleFile(self):
        self.make_files(self.job, "out/.hidden", "one.txt")
        self.run_action("actions/upload-artifact@v7", name="hidden", path="out",
                        include_hidden_files="true")
        self.run_action("actions/upload-artifact@v7", name="single", path="one.txt")
        store = os.path.join(self.job.root, "artifacts", "1")
        self.assertEqual(self.files(os.path.join(store, "hidden")), [".hidden"])
        self.assertEqual(self.files(os.path.join(store, "single")), ["one.txt"])

    def test_upload_sameNameTwice_failsUnlessOverwrite(self):
        self.make_files(self.job, "out/a.txt")
        self.run_action("actions/upload-artifact@v7", name="a", path="out")
        with self.assertRaisesRegex(StepFailure, "already exists on the workflow run: a"):
            self.run_action("actions/upload-artifact@v7", name="a", path="out")
        self.run_action("actions/upload-artifact@v7", name="a", path="out", overwrite="true")

    def test_upload_noFiles_warnsByDefaultAndFailsOnError(self):
        _, printed = self.run_action("actions/upload-artifact@v7", name="a", path="missing/")
        self.assertIn("::warning::No files were found", printed)
        with self.assertRaisesRegex(StepFailure, "No files were found"):
            self.run_action("actions/upload-artifact@v7", name="a", path="missing/",
                            if_no_files_found="error")
        self.assertEqual(self.run_action("actions/upload-artifact@v7", name="a",
                                         path="missing/", if_no_files_found="ignore")[0], {})

    def test_download_patternApartOrMerged_andByName(self):
        for index in range(2):
            self.make_files(self.job, f"out{index}/sub/same.txt")
            self.run_action("actions/upload-artifact@v7", name=f"part-{index}",
                            path=f"out{index}/")
        self.run_action("actions/download-artifact@v8", pattern="part-*", path="apart")
        self.assertEqual(self.files(self.job.workspace_path("apart")),
                         ["part-0/sub/same.txt", "part-1/sub/same.txt"])
        self.run_action("actions/download-artifact@v8", pattern="part-*", path="merged",
                        merge_multiple="true")
        self.assertEqual(self.files(self.job.workspace_path("merged")), ["sub/same.txt"])
        outputs, _ = self.run_action("actions/download-artifact@v8", name="part-1", path="one")
        self.assertEqual(self.files(outputs["download-path"]), ["sub/same.txt"])
        with self.assertRaisesRegex(StepFailure, "Artifact not found for name: part-9"):
            self.run_action("actions/download-artifact@v8", name="part-9")

    def test_artifacts_belongToTheirRun(self):
        self.make_files(self.job, "out/a.txt")
        self.run_action("actions/upload-artifact@v7", name="a", path="out")
        other = FakeJob(self.folder, run_id="2")
        with self.assertRaisesRegex(StepFailure, "Artifact not found"):
            self.run_action("actions/download-artifact@v8", other, name="a")


class CacheTests(ActionTestCase):
    def save(self, value, key):
        with open(self.job.workspace_path("value.txt"), "w") as handle:
            handle.write(value)
        return self.run_action("actions/cache/save@v5", path="value.txt", key=key)

    def restore(self, key, restore_keys=""):
        os.remove(self.job.workspace_path("value.txt"))
        outputs, _ = self.run_action("actions/cache/restore@v5", path="value.txt", key=key,
                                     restore_keys=restore_keys)
        path = self.job.workspace_path("value.txt")
        return outputs, (self.read(path) if os.path.exists(path) else None)

    def test_cache_exactKeyThenNewestPrefix_andAKeyIsWrittenOnce(self):
        self.save("1", "value-1")
        self.save("2", "value-2")
        _, printed = self.save("3", "value-2")
        self.assertIn("Unable to reserve cache with key value-2", printed)
        outputs, value = self.restore("value-1", "value-")
        self.assertEqual((outputs["cache-hit"], value), ("true", "1"))
        outputs, value = self.restore("value-none", "value-")
        self.assertEqual((outputs["cache-hit"], outputs["cache-matched-key"], value),
                         ("false", "value-2", "2"))
        outputs, value = self.restore("other")
        self.assertEqual((outputs.get("cache-hit"), value), (None, None))

    def test_cache_missWithFailOnCacheMiss_failsTheStep(self):
        with self.assertRaisesRegex(StepFailure, "fail-on-cache-miss"):
            self.run_action("actions/cache/restore@v5", path="x", key="k",
                            fail_on_cache_miss="true")

    def test_cache_pathsOutsideTheWorkspaceOrWildcards_areUnsupported(self):
        for path in ("/tmp/x", "*.txt", "~/x"):
            with self.assertRaisesRegex(Unsupported, "only paths inside the workspace"):
                self.run_action("actions/cache/save@v5", path=path, key="k")

    def test_cacheSave_nothingToSave_warns(self):
        _, printed = self.run_action("actions/cache/save@v5", path="missing", key="k")
        self.assertIn("Path Validation Error", printed)
        self.assertFalse(os.path.exists(os.path.join(self.job.root, "caches")))
