"""Reading the workflow file: the keys emulated, matrices, `needs:`, shells and run blocks."""

import itertools
import os
import re

import yaml

from .errors import Unsupported

WORKFLOW_KEYS = {"name", "on", True, "permissions", "concurrency", "defaults", "env", "jobs",
                 "run-name"}
JOB_KEYS = {"name", "runs-on", "container", "if", "needs", "strategy", "env", "steps",
            "defaults", "permissions", "timeout-minutes", "concurrency", "outputs"}
STEP_KEYS = {"name", "id", "if", "run", "shell", "env", "working-directory", "uses", "with",
             "continue-on-error", "timeout-minutes"}


def check_keys(mapping, allowed, where):
    unknown = [key for key in mapping if key not in allowed]
    if unknown:
        raise Unsupported(f"{where} has keys this runner does not emulate: {unknown}")


def load_workflow(path):
    with open(path, encoding="utf-8") as handle:
        workflow = yaml.safe_load(handle)
    check_keys(workflow, WORKFLOW_KEYS, path)
    return workflow


def matrix_combinations(strategy):
    """The matrix's jobs in GitHub's order (the first key varies slowest)."""
    matrix = (strategy or {}).get("matrix")
    if not matrix:
        return [{}]
    if not isinstance(matrix, dict) or "include" in matrix or "exclude" in matrix:
        raise Unsupported("only a matrix of plain lists is emulated (no include or exclude)")
    keys = list(matrix)
    return [dict(zip(keys, values)) for values in itertools.product(*(matrix[k] for k in keys))]


def job_label(name, index, count):
    """A job's name in file names and messages: `job`, or `job-<index>` in a matrix."""
    return name + (f"-{index}" if count > 1 else "")


def needed_jobs(workflow, name):
    """The jobs `name` lists in `needs:` (a string or a list), each checked to exist."""
    needs = workflow["jobs"][name].get("needs")
    if needs is None:
        return []
    needs = [needs] if isinstance(needs, str) else needs
    if not isinstance(needs, list) or not all(isinstance(need, str) for need in needs):
        raise Unsupported(f"job {name}: needs: is a job name or a list of them, not {needs!r}")
    for need in needs:
        if need not in workflow["jobs"]:
            raise Unsupported(f"job {name} needs {need!r}, which is not a job of this "
                              f"workflow; it has {sorted(workflow['jobs'])}")
    return needs


def ancestors(workflow, name):
    """Every job `name` needs, directly or through others, in a stable order; a cycle is an
    error, as it is on GitHub."""
    found, visiting = [], []

    def visit(job):
        if job in visiting:
            cycle = visiting[visiting.index(job):] + [job]
            raise Unsupported(f"the jobs' needs: form a cycle: {' -> '.join(cycle)}")
        visiting.append(job)
        for need in needed_jobs(workflow, job):
            visit(need)
            if need not in found:
                found.append(need)
        visiting.pop()

    visit(name)
    return found


def shell_command(shell, script):
    """The command GitHub runs a `run:` block with, for a given `shell:` (None: the default)."""
    if shell is None:
        return ["bash", "-e", script]
    if shell == "bash":
        return ["bash", "--noprofile", "--norc", "-eo", "pipefail", script]
    if shell == "sh":
        return ["sh", "-e", script]
    if "{0}" in shell:
        return [part.replace("{0}", script) for part in shell.split()]
    raise Unsupported(f"the shell {shell!r} is not emulated")


def step_shell(step, job, workflow):
    for source in (step, ((job.get("defaults") or {}).get("run") or {}),
                   ((workflow.get("defaults") or {}).get("run") or {})):
        if source.get("shell"):
            return source["shell"]
    return None


# What each shell runs a script with, as a script's first lines (shellcheck reads the shebang).
SCRIPT_HEADERS = {
    None: "#!/usr/bin/env bash\nset -e\n",
    "bash": "#!/usr/bin/env bash\nset -eo pipefail\n",
    "sh": "#!/bin/sh\nset -e\n",
}


def extract_run_blocks(workflow_path, folder):
    """Writes each run: block as a script whose shebang and `set` line are the job's shell."""
    workflow = load_workflow(workflow_path)
    base = os.path.splitext(os.path.basename(workflow_path))[0]
    os.makedirs(folder, exist_ok=True)
    written = []
    for job_name, job in workflow["jobs"].items():
        for number, step in enumerate(job.get("steps", []), start=1):
            if "run" not in step:
                continue
            header = SCRIPT_HEADERS.get(step_shell(step, job, workflow))
            if header is None:
                raise Unsupported(f"job {job_name}, step {number}: no shellcheck dialect for "
                                  f"shell {step_shell(step, job, workflow)!r}")
            label = re.sub(r"[^a-z0-9]+", "-", (step.get("name") or "run").lower()).strip("-")
            name = os.path.join(folder, f"{base}.{job_name}.{number}-{label}.sh")
            # Expressions are not shell: stand a plain word in for each, as GitHub substitutes
            # them before the shell sees the script.
            body = re.sub(r"\$\{\{.*?\}\}", "GITHUB_EXPRESSION", step["run"])
            with open(name, "w", encoding="utf-8") as handle:
                handle.write(header + f"# {workflow_path}: job {job_name}, step {number}\n"
                             + body + ("\n" if not body.endswith("\n") else ""))
            written.append(name)
    return written
