"""The jobs' results, kept in the runner root so that a later job's `needs:` can read them.

One file per job run, `results/<run id>/<job>[-<index>].json` (the index only in a matrix),
written when the job ends: its result (success, failure or skipped) and its outputs. A needed
job's result is read as GitHub reports it: a matrix job succeeded only when every one of its
matrix jobs (as many as the workflow's matrix has) succeeded; it failed when any failed;
anything else (skipped, or some matrix jobs not run in this run) reads as skipped. A job not
run at all in this run reads as skipped, and the runner says so.
"""

import datetime
import json
import os

from .expressions import Status
from .workflow import ancestors, job_label, matrix_combinations, needed_jobs


class Results:
    """The results of the jobs of one run."""

    def __init__(self, root, run_id):
        self.folder = os.path.join(root, "results", str(run_id))
        self.run_id = run_id

    def path(self, label):
        return os.path.join(self.folder, f"{label}.json")

    def write(self, job, label, index, total, result, outputs):
        """Records one job run's result and outputs; a rerun replaces them."""
        os.makedirs(self.folder, exist_ok=True)
        record = {"job": job, "label": label, "matrixIndex": index, "matrixTotal": total,
                  "result": result, "outputs": outputs,
                  "finished": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        staging = self.path(label) + ".writing"
        with open(staging, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=2)
        os.replace(staging, self.path(label))

    def read(self, label):
        try:
            with open(self.path(label), encoding="utf-8") as handle:
                return json.load(handle)
        except FileNotFoundError:
            return None

    def job(self, workflow, name):
        """What `needs.<name>` says: {"result", "outputs"}, and a note when the result stands
        for jobs that did not run in this run (None otherwise).

        Outputs: every name the job's `outputs:` declares, empty unless set; in a matrix, the
        matrix job that finished last and set an output gives its value (as on GitHub, the
        last to finish wins)."""
        total = len(matrix_combinations(workflow["jobs"][name].get("strategy")))
        labels = [job_label(name, index, total) for index in range(total)]
        records = {label: self.read(label) for label in labels}
        missing = [label for label, record in records.items() if record is None]
        results = [record["result"] for record in records.values() if record is not None]
        if "failure" in results:
            result = "failure"
        elif not missing and all(value == "success" for value in results):
            result = "success"
        else:
            result = "skipped"
        outputs = {str(key): "" for key in (workflow["jobs"][name].get("outputs") or {})}
        finished = sorted((record for record in records.values() if record is not None),
                          key=lambda record: record["finished"])
        for record in finished:
            outputs.update({key: value for key, value in record["outputs"].items() if value})
        note = None
        if missing:
            note = (f"{', '.join(missing)} did not run in run {self.run_id}"
                    + (f" (of {total} matrix jobs)" if total > 1 else "")
                    + f": {name} reads as {result}")
        return {"result": result, "outputs": outputs}, note

    def needs(self, workflow, name):
        """The job's `needs` context, its status for success() and failure() in its `if:`, and
        notes on needed jobs that did not run.

        As on GitHub, the status covers every job it needs, directly or through others:
        success() holds when all of them succeeded, failure() when any of them failed."""
        context, notes, results = {}, [], {}
        for ancestor in ancestors(workflow, name):
            value, note = self.job(workflow, ancestor)
            results[ancestor] = value["result"]
            if note:
                notes.append(note)
            if ancestor in needed_jobs(workflow, name):
                context[ancestor] = value
        status = Status(success=all(result == "success" for result in results.values()),
                        failure=any(result == "failure" for result in results.values()))
        return context, status, notes, results
