"""One job of a workflow, run as GitHub's runner would: environment, conditions, steps."""

import os
import re
import shutil
import subprocess
import uuid

from .actions import emulate
from .errors import StepFailure, Unsupported
from .expressions import condition, interpolate, step_status, uses_status_function
from .results import Results
from .runners import parse_labels, resolve
from .workflow import (JOB_KEYS, STEP_KEYS, check_keys, job_label, load_workflow,
                       matrix_combinations, needed_jobs, shell_command, step_shell)


class Job:
    """One job (one matrix job) of one run, from the workflow file and the command line's
    arguments (workflow, job, repository, runner_root, run_id, sha, matrix_index, event)."""

    def __init__(self, arguments):
        self.arguments = arguments
        self.workflow_path = os.path.abspath(arguments.workflow)
        self.workflow = load_workflow(self.workflow_path)
        if arguments.job not in self.workflow["jobs"]:
            raise Unsupported(f"{arguments.workflow} has no job {arguments.job!r}; it has "
                              f"{sorted(self.workflow['jobs'])}")
        self.name = arguments.job
        self.job = self.workflow["jobs"][arguments.job]
        check_keys(self.job, JOB_KEYS, f"job {arguments.job}")
        self.needs = needed_jobs(self.workflow, self.name)
        self.root = os.path.abspath(arguments.runner_root)
        self.run_id = str(arguments.run_id)
        self.repository = os.path.abspath(arguments.repository)
        name = os.path.basename(self.repository.rstrip("/"))
        self.workspace = os.path.join(self.root, "work", name, name)
        self.temp = os.path.join(self.root, "temp")
        self.sha = arguments.sha or subprocess.run(
            ["git", "-C", self.repository, "rev-parse", "HEAD"], check=True,
            capture_output=True, text=True).stdout.strip()
        combinations = matrix_combinations(self.job.get("strategy"))
        self.index = arguments.matrix_index or 0
        if not 0 <= self.index < len(combinations):
            raise Unsupported(f"--matrix-index {self.index}: the matrix has "
                              f"{len(combinations)} jobs")
        self.total = len(combinations)
        self.label = job_label(arguments.job, self.index, self.total)
        self.results = Results(self.root, self.run_id)
        self.status = "success"
        self.outputs = {}
        self.steps = {}
        self.step_records = []
        self.added_env = {}
        self.added_path = []
        self.summary = ""
        self.context = {
            "github": {
                "sha": self.sha, "run_id": self.run_id, "run_number": "1",
                "run_attempt": "1", "event_name": arguments.event, "ref": "refs/heads/main",
                "ref_name": "main", "repository": f"local/{name}", "workspace": self.workspace,
                "job": arguments.job, "workflow": self.workflow.get("name", ""),
                "server_url": "https://github.com", "repository_owner": "local",
            },
            "runner": {"os": "Linux", "arch": None, "temp": self.temp, "name": "local"},
            "matrix": combinations[self.index],
            "strategy": {"job-index": self.index, "job-total": self.total,
                         "fail-fast": (self.job.get("strategy") or {}).get("fail-fast", True),
                         "max-parallel": self.total},
            "steps": self.steps,
            "needs": {},
            "env": {},
            "job": {"status": "success"},
        }
        # runs-on: may read the matrix (a platform per matrix job); the label decides
        # runner.arch and the environment the machine it stands for has.
        self.runs_on, arch, self.label_env = resolve(
            self.job.get("runs-on"), self.context,
            parse_labels(getattr(arguments, "runner_label", None)), f"job {self.label}")
        self.context["runner"]["arch"] = arch

    # Environment

    def base_environment(self):
        """A hosted runner's environment: this machine's PATH and HOME, GitHub's variables."""
        keep = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "SHELL")
        environment = {key: os.environ[key] for key in keep if key in os.environ}
        environment["PATH"] = os.pathsep.join(
            self.added_path + [os.path.join(self.root, "bin"), environment.get("PATH", "")])
        github = self.context["github"]
        environment.update({
            "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": self.workspace,
            "GITHUB_SHA": self.sha, "GITHUB_RUN_ID": github["run_id"],
            "GITHUB_RUN_NUMBER": "1", "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_EVENT_NAME": github["event_name"], "GITHUB_REF": github["ref"],
            "GITHUB_REF_NAME": "main", "GITHUB_REPOSITORY": github["repository"],
            "GITHUB_JOB": github["job"], "GITHUB_WORKFLOW": github["workflow"],
            "GITHUB_SERVER_URL": github["server_url"], "RUNNER_OS": "Linux",
            "RUNNER_ARCH": self.context["runner"]["arch"], "RUNNER_TEMP": self.temp,
            "GIT_CONFIG_GLOBAL": os.path.join(self.temp, "gitconfig"),
        })
        environment.update(self.label_env)
        return environment

    def evaluated_env(self, mapping):
        result = {}
        for key, value in (mapping or {}).items():
            result[str(key)] = interpolate(value, self.context)
        self.context["env"].update(result)
        return result

    def job_environment(self):
        self.context["env"] = {}
        environment = self.base_environment()
        environment.update(self.evaluated_env(self.workflow.get("env")))
        environment.update(self.evaluated_env(self.job.get("env")))
        environment.update(self.added_env)
        self.context["env"].update(self.added_env)
        return environment

    # Setup

    def prepare(self):
        shutil.rmtree(self.workspace, ignore_errors=True)
        os.makedirs(self.workspace)
        shutil.rmtree(self.temp, ignore_errors=True)
        os.makedirs(self.temp)
        with open(os.path.join(self.temp, "gitconfig"), "w", encoding="utf-8") as handle:
            handle.write("[user]\n\tname = runner\n\temail = runner@localhost\n")
        self.write_apt_shim()
        stands_for = " ".join(f"{key}={value}" for key, value in self.label_env.items())
        print(f"::notice::runs-on {self.runs_on!r}: this machine, as "
              f"{self.context['runner']['arch']}" + (f" with {stands_for}" if stands_for else ""),
              flush=True)
        if "container" in self.job:
            print(f"::notice::container {self.job['container']!r} skipped: this machine has "
                  "the toolchain", flush=True)

    def write_apt_shim(self):
        folder = os.path.join(self.root, "bin")
        os.makedirs(folder, exist_ok=True)
        shim = os.path.join(folder, "apt-get")
        with open(shim, "w", encoding="utf-8") as handle:
            handle.write(APT_SHIM)
        os.chmod(shim, 0o755)

    # Running

    def run(self):
        """Runs the job, unless its `if:` (with the implied success() over the jobs it needs)
        skips it, and records its result for the jobs that need it."""
        self.prepare()
        if not self.should_run():
            self.status = "skipped"
        else:
            for number, step in enumerate(self.job.get("steps", []), start=1):
                self.run_step(number, step)
            self.outputs = self.job_outputs()
            self.write_summary()
        self.results.write(self.name, self.label, self.index, self.total, self.status,
                           self.outputs)

    def should_run(self):
        needs, status, notes, results = self.results.needs(self.workflow, self.name)
        self.context["needs"] = needs
        for note in notes:
            print(f"::notice::{note}", flush=True)
        if condition(self.job.get("if"), self.context, status):
            return True
        unsuccessful = {job: result for job, result in results.items() if result != "success"}
        if not uses_status_function(self.job.get("if") or "") and unsuccessful:
            listed = ", ".join(f"{job} ({result})" for job, result in unsuccessful.items())
            print(f"job {self.label} skipped: a job it needs did not succeed: {listed}",
                  flush=True)
        else:
            print(f"job {self.label} skipped: its if: is false", flush=True)
        return False

    def job_outputs(self):
        """The job's `outputs:`, evaluated when its steps are done."""
        return {str(key): interpolate(value, self.context)
                for key, value in (self.job.get("outputs") or {}).items()}

    def run_step(self, number, step):
        check_keys(step, STEP_KEYS, f"job {self.label}, step {number}")
        if ("run" in step) == ("uses" in step):
            raise Unsupported(f"job {self.label}, step {number} needs exactly one of run, uses")
        title = step.get("name") or step.get("run", step.get("uses", "")).splitlines()[0]
        self.context["job"]["status"] = self.status
        environment = self.job_environment()
        if not condition(step.get("if"), self.context, step_status(self.status)):
            print(f"== step {number}: {title} (skipped)", flush=True)
            self.record(step, number, title, "skipped", {})
            return
        print(f"== step {number}: {title}", flush=True)
        environment.update(self.evaluated_env(step.get("env")))
        outputs = {}
        try:
            if "run" in step:
                outputs = self.run_script(number, step, environment)
            else:
                inputs = {str(key): interpolate(value, self.context)
                          for key, value in (step.get("with") or {}).items()}
                outputs = emulate(step["uses"], inputs, self)
            outcome = "success"
        except StepFailure as failure:
            print(f"::error::{failure}", flush=True)
            outcome = "failure"
        conclusion = outcome
        if outcome == "failure" and interpolate(step.get("continue-on-error", False),
                                                self.context) == "true":
            conclusion = "success"
        if conclusion == "failure":
            self.status = "failure"
        self.record(step, number, title, outcome, outputs, conclusion)

    def record(self, step, number, title, outcome, outputs, conclusion=None):
        conclusion = conclusion or outcome
        if step.get("id"):
            self.steps[step["id"]] = {"outputs": outputs, "outcome": outcome,
                                      "conclusion": conclusion}
        self.step_records.append({"number": number, "name": title, "outcome": outcome,
                                  "conclusion": conclusion})

    def run_script(self, number, step, environment):
        files = {name: os.path.join(self.temp, f"{name.lower()}_{number}")
                 for name in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH",
                              "GITHUB_STEP_SUMMARY")}
        for name, path in files.items():
            open(path, "w").close()
            environment[name] = path
        script = os.path.join(self.temp, f"step_{number}_{uuid.uuid4().hex[:8]}.sh")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(interpolate(step["run"], self.context))
        folder = os.path.join(self.workspace, interpolate(
            step.get("working-directory") or ((self.job.get("defaults") or {}).get("run") or {})
            .get("working-directory") or ".", self.context))
        command = shell_command(step_shell(step, self.job, self.workflow), script)
        timeout = step.get("timeout-minutes")
        try:
            status = subprocess.run(command, cwd=folder, env=environment,
                                    stdin=subprocess.DEVNULL,
                                    timeout=float(timeout) * 60 if timeout else None).returncode
        except subprocess.TimeoutExpired:
            raise StepFailure(f"the step ran longer than {timeout} minutes")
        outputs = read_key_values(files["GITHUB_OUTPUT"])
        self.added_env.update(read_key_values(files["GITHUB_ENV"]))
        with open(files["GITHUB_PATH"], encoding="utf-8") as handle:
            self.added_path = [line.strip() for line in handle if line.strip()] + self.added_path
        with open(files["GITHUB_STEP_SUMMARY"], encoding="utf-8") as handle:
            self.summary += handle.read()
        if status != 0:
            raise StepFailure(f"Process completed with exit code {status}.")
        return outputs

    def write_summary(self):
        folder = os.path.join(self.root, "summaries", self.run_id)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{self.label}.md"), "w", encoding="utf-8") as handle:
            handle.write(self.summary)

    def report(self):
        return {"job": self.name, "label": self.label, "result": self.status,
                "runsOn": self.runs_on, "matrix": self.context["matrix"],
                "runId": self.run_id, "workspace": self.workspace,
                "steps": self.step_records, "summary": self.summary,
                "summaryFile": os.path.join(self.root, "summaries", self.run_id,
                                            f"{self.label}.md"),
                "outputs": self.outputs, "resultFile": self.results.path(self.label)}

    # Paths

    def workspace_path(self, path):
        path = os.path.expanduser(path.strip())
        return os.path.normpath(os.path.join(self.workspace, path))


APT_SHIM = """#!/usr/bin/env bash
# The job's container would install these packages; this machine already has them, so the
# step checks that they are installed instead of installing them.
set -euo pipefail
case "${1:-}" in
  update) echo "apt-get update: skipped by run-workflow-job (packages come from the host)";;
  install)
    shift
    missing=()
    for package in "$@"; do
      [[ "$package" == -* ]] && continue
      dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \\
        || missing+=("$package")
    done
    if ((${#missing[@]})); then
      echo "error: the host lacks ${missing[*]}: run Scripts/install-dependencies" >&2
      exit 100
    fi
    echo "apt-get install: $* already installed on the host";;
  *) echo "error: run-workflow-job's apt-get emulates update and install only" >&2; exit 2;;
esac
"""


def read_key_values(path):
    """`name=value` lines and `name<<DELIMITER` blocks, as $GITHUB_OUTPUT and $GITHUB_ENV hold."""
    values = {}
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip():
            continue
        heredoc = re.fullmatch(r"([^=]+)<<(.+)", line)
        if heredoc:
            body = []
            while index < len(lines) and lines[index] != heredoc.group(2):
                body.append(lines[index])
                index += 1
            if index == len(lines):
                raise StepFailure(f"{path}: no closing {heredoc.group(2)} for {line!r}")
            index += 1
            values[heredoc.group(1)] = "\n".join(body)
        elif "=" in line:
            key, value = line.split("=", 1)
            values[key] = value
        else:
            raise StepFailure(f"{path}: cannot read {line!r} (want name=value)")
    return values
