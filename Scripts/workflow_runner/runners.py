"""Which machine a job's `runs-on:` stands for: this one, with the label's architecture and
environment.

GitHub picks a runner by its labels (`ubuntu-24.04`, `ubuntu-24.04-arm`); here every job runs
on this machine, so a test says what each label stands for with `--runner-label LABEL ARCH
[NAME=VALUE ...]`: `runner.arch` and `RUNNER_ARCH` become ARCH, and each NAME=VALUE is set in
the job's environment as the machine's own (a variant standing for a platform's renders, say,
so the result does not depend on this machine's architecture). With any label given, a job
whose `runs-on:` names another is refused by name; with none, every label runs here, as
this machine.
"""

import platform
import re

from .errors import Unsupported
from .expressions import interpolate

# runner.arch's values on GitHub, and this machine's name for each.
ARCHITECTURES = {"X86": ("i386", "i686", "x86"), "X64": ("x86_64", "amd64"),
                 "ARM": ("armv7l", "arm"), "ARM64": ("aarch64", "arm64")}


def this_machine_arch():
    """This machine's architecture as `runner.arch` names it."""
    machine = platform.machine().lower()
    for arch, names in ARCHITECTURES.items():
        if machine in names:
            return arch
    raise Unsupported(f"this machine's architecture {machine!r} has no runner.arch value")


def parse_labels(options):
    """`--runner-label` options (each a list: LABEL ARCH NAME=VALUE...) as a mapping from
    label to (arch, environment)."""
    labels = {}
    for option in options or []:
        if len(option) < 2:
            raise Unsupported(f"--runner-label {' '.join(option)}: want LABEL ARCH "
                              "[NAME=VALUE ...]")
        label, arch, assignments = option[0], option[1], option[2:]
        if arch not in ARCHITECTURES:
            raise Unsupported(f"--runner-label {label}: architecture {arch!r} is none of "
                              f"{sorted(ARCHITECTURES)}")
        if label in labels:
            raise Unsupported(f"--runner-label {label} is given twice")
        environment = {}
        for assignment in assignments:
            match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", assignment, re.S)
            if not match:
                raise Unsupported(f"--runner-label {label}: {assignment!r} is not NAME=VALUE")
            environment[match.group(1)] = match.group(2)
        labels[label] = (arch, environment)
    return labels


def resolve(runs_on, context, labels, where):
    """The label a job runs on (its `runs-on:` with expressions evaluated), its `runner.arch`
    and the environment the label adds."""
    if isinstance(runs_on, list):
        if len(runs_on) != 1:
            raise Unsupported(f"{where}: runs-on with several labels {runs_on!r} is not "
                              "emulated")
        runs_on = runs_on[0]
    if runs_on is not None and not isinstance(runs_on, str):
        raise Unsupported(f"{where}: runs-on {runs_on!r} (a group) is not emulated")
    label = interpolate(runs_on, context) if runs_on is not None else None
    if not labels:
        return label, this_machine_arch(), {}
    if label not in labels:
        raise Unsupported(f"{where}: runs-on {label!r} is not a runner label of this run "
                          f"(known: {', '.join(sorted(labels))}); say what it stands for "
                          f"with --runner-label {label or 'LABEL'} ARCH [NAME=VALUE ...]")
    arch, environment = labels[label]
    return label, arch, environment
