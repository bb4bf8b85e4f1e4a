"""Runs one job of a GitHub Actions workflow on this machine: the parts of Scripts/run-workflow-job.

- `errors`: the two ways a job stops (`Unsupported`: exit 2; `StepFailure`: the step fails);
- `expressions`: `${{ }}` expressions (tokenizer, parser and evaluation, interpolation, `if:`);
- `workflow`: reading the workflow file (its keys, matrices, `needs:`, shells, run blocks);
- `results`: the jobs' results and outputs kept in the runner root, read back as `needs`;
- `actions`: the emulated actions (checkout, upload/download-artifact, cache restore/save);
- `runner`: the job itself (environment, steps, the apt-get shim, the report).

Scripts/run-workflow-job is the command line; its docstring says what is emulated.
"""
