"""The two ways a job stops early."""


class Unsupported(Exception):
    """The workflow uses something this runner does not emulate: exit 2, loudly."""


class StepFailure(Exception):
    """An action step failed the way the real action would."""
