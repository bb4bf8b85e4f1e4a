import json
import os
import subprocess
import sys

from workflow_runner.errors import Unsupported
from workflow_runner.runners import parse_labels, resolve, this_machine_arch

from .test_runner import SCRIPT, JobTestCase

PLATFORMS = [["ubuntu-24.04", "X64", "IMAGE_REFERENCE_VARIANT=base"],
             ["ubuntu-24.04-arm", "ARM64", "IMAGE_REFERENCE_VARIANT=linux-arm64", "EMPTY="]]

# Two platforms × two shards, as the recipe's generate job has them.
MATRIX_WORKFLOW = """\
    on: workflow_dispatch
    jobs:
      generate:
        runs-on: ${{ matrix.platform }}
        strategy:
          matrix:
            platform: [ubuntu-24.04, ubuntu-24.04-arm]
            shard: [0, 1]
        steps:
          - id: s
            run: |
              {
                echo "seen=${{ matrix.platform }} ${{ matrix.shard }}"
                echo "index=${{ strategy.job-index }} of ${{ strategy.job-total }}"
                echo "arch=${{ runner.arch }} $RUNNER_ARCH"
                echo "variant=$IMAGE_REFERENCE_VARIANT [${EMPTY-unset}]"
              } >> "$GITHUB_OUTPUT"
    """


class RunnerLabelParsingTests(JobTestCase):
    def test_parseLabels_archAndEnvironment(self):
        self.assertEqual(parse_labels(PLATFORMS), {
            "ubuntu-24.04": ("X64", {"IMAGE_REFERENCE_VARIANT": "base"}),
            "ubuntu-24.04-arm": ("ARM64", {"IMAGE_REFERENCE_VARIANT": "linux-arm64",
                                           "EMPTY": ""}),
        })
        self.assertEqual(parse_labels(None), {})

    def test_parseLabels_badOptions_areUnsupported(self):
        for option, message in [
            (["alone"], "want LABEL ARCH"),
            (["label", "SPARC"], "architecture 'SPARC' is none of"),
            (["label", "X64", "no-equals"], "'no-equals' is not NAME=VALUE"),
            (["label", "X64", "1BAD=x"], "is not NAME=VALUE"),
        ]:
            with self.subTest(option=option), self.assertRaisesRegex(Unsupported, message):
                parse_labels([option])
        with self.assertRaisesRegex(Unsupported, "--runner-label a is given twice"):
            parse_labels([["a", "X64"], ["a", "ARM64"]])

    def test_resolve_withoutLabels_isThisMachine(self):
        self.assertEqual(resolve("anything", {}, {}, "job j"),
                         ("anything", this_machine_arch(), {}))

    def test_resolve_severalLabelsOrAGroup_areUnsupported(self):
        labels = parse_labels(PLATFORMS)
        self.assertEqual(resolve(["ubuntu-24.04"], {}, labels, "job j")[1], "X64")
        with self.assertRaisesRegex(Unsupported, "several labels"):
            resolve(["self-hosted", "linux"], {}, labels, "job j")
        with self.assertRaisesRegex(Unsupported, "a group"):
            resolve({"group": "big"}, {}, labels, "job j")


class RunsOnTests(JobTestCase):
    def test_twoDimensionalMatrix_githubOrderRunsOnAndLabelEnvironment(self):
        outputs = []
        for index in range(4):
            job, printed = self.run_job(MATRIX_WORKFLOW, "generate", matrix_index=index,
                                        runner_label=PLATFORMS)
            self.assertEqual(job.status, "success", printed)
            self.assertEqual(job.report()["label"], f"generate-{index}")
            self.assertEqual(job.report()["runsOn"], job.context["matrix"]["platform"])
            self.assertIn("::notice::runs-on", printed)
            outputs.append(job.steps["s"]["outputs"])
        # The first key varies slowest: both shards of one platform, then the other's.
        self.assertEqual([o["seen"] for o in outputs], [
            "ubuntu-24.04 0", "ubuntu-24.04 1", "ubuntu-24.04-arm 0", "ubuntu-24.04-arm 1"])
        self.assertEqual([o["index"] for o in outputs],
                         ["0 of 4", "1 of 4", "2 of 4", "3 of 4"])
        self.assertEqual([o["arch"] for o in outputs],
                         ["X64 X64", "X64 X64", "ARM64 ARM64", "ARM64 ARM64"])
        self.assertEqual([o["variant"] for o in outputs],
                         ["base [unset]", "base [unset]", "linux-arm64 []", "linux-arm64 []"])

    def test_jobEnvironment_overridesTheLabels(self):
        job, printed = self.run_job("""\
            on: push
            jobs:
              j:
                runs-on: ubuntu-24.04
                env:
                  IMAGE_REFERENCE_VARIANT: from-job
                steps:
                  - run: test "$IMAGE_REFERENCE_VARIANT" = from-job
            """, "j", runner_label=PLATFORMS)
        self.assertEqual(job.status, "success", printed)

    def test_unknownLabel_isRefusedByName(self):
        with self.assertRaisesRegex(
                Unsupported, r"job j: runs-on 'macos-15' is not a runner label of this run "
                             r"\(known: ubuntu-24.04, ubuntu-24.04-arm\); say what it stands "
                             r"for with --runner-label macos-15 ARCH"):
            self.job("""\
                on: push
                jobs:
                  j:
                    runs-on: macos-15
                    steps:
                      - run: "true"
                """, "j", runner_label=PLATFORMS)

    def test_unknownLabelFromTheMatrix_isRefusedByName(self):
        workflow = MATRIX_WORKFLOW.replace("ubuntu-24.04-arm]", "windows-2025]")
        self.assertEqual(self.job(workflow, "generate", matrix_index=1,
                                  runner_label=PLATFORMS).runs_on, "ubuntu-24.04")
        with self.assertRaisesRegex(Unsupported, r"job generate-2: runs-on 'windows-2025'"):
            self.job(workflow, "generate", matrix_index=2, runner_label=PLATFORMS)

    def test_commandLine_runnerLabelOption(self):
        path = self.write("workflow.yml", MATRIX_WORKFLOW)
        report = os.path.join(self.folder, "report.json")
        common = [sys.executable, SCRIPT, "--workflow", path, "--job", "generate",
                  "--repository", self.repository, "--runner-root", self.root,
                  "--matrix-index", "3", "--report", report]
        labels = [arg for option in PLATFORMS for arg in ["--runner-label"] + option]
        done = subprocess.run(common + labels, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        with open(report, encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["runsOn"], "ubuntu-24.04-arm")
        refused = subprocess.run(common + labels[:3], capture_output=True, text=True)
        self.assertEqual(refused.returncode, 2, refused.stdout + refused.stderr)
        self.assertIn("runs-on 'ubuntu-24.04-arm' is not a runner label of this run",
                      refused.stderr)

