"""What the unit tests share: temporary folders, a one-commit repository, a job's arguments."""

import argparse
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest


class TemporaryFolderTestCase(unittest.TestCase):
    """A test case with a fresh temporary folder, `self.folder`, removed afterwards."""

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="workflow-runner-")
        self.addCleanup(shutil.rmtree, self.folder, ignore_errors=True)

    def write(self, relative, text):
        path = os.path.join(self.folder, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(text))
        return path

    def read(self, path):
        with open(path, encoding="utf-8") as handle:
            return handle.read()


def make_repository(folder):
    """A git repository with one commit of `file.txt`; returns its path."""
    repository = os.path.join(folder, "Fixture")
    os.makedirs(repository)
    with open(os.path.join(repository, "file.txt"), "w", encoding="utf-8") as handle:
        handle.write("tracked\n")
    git = ["git", "-C", repository, "-c", "user.name=fixture", "-c",
           "user.email=fixture@localhost"]
    for arguments in (["init", "--quiet", "--initial-branch=main"], ["add", "--all"],
                      ["commit", "--quiet", "--message", "fixture"]):
        subprocess.run(git + arguments, check=True, capture_output=True)
    return repository


def job_arguments(workflow, job, repository, root, run_id="1", matrix_index=None,
                  event="workflow_dispatch", runner_label=None):
    """The arguments Scripts/run-workflow-job passes to `Job`."""
    return argparse.Namespace(workflow=workflow, job=job, repository=repository,
                              runner_root=root, run_id=run_id, sha=None,
                              matrix_index=matrix_index, event=event, report=None,
                              runner_label=runner_label)
