"""The actions a recipe uses, emulated with folders in the runner root.

Each takes the job (its `workspace`, `root`, `run_id`, `repository`, `sha` and
`workspace_path()`) and the step's inputs (strings, expressions already evaluated), and returns
the step's outputs; it raises `StepFailure` where the real action fails the step, and
`Unsupported` for what is not emulated.

- actions/checkout: a fresh clone of the repository at the job's commit, in the workspace;
- actions/upload-artifact and actions/download-artifact: folders in `artifacts/<run id>/<name>/`
  (name, path, pattern, merge-multiple, if-no-files-found, overwrite, include-hidden-files);
- actions/cache/restore and actions/cache/save: folders in `caches/` (key, exact then
  restore-keys prefix matching, newest first; a key is written once).
"""

import datetime
import fnmatch
import glob
import json
import os
import shutil
import subprocess
import uuid

from .errors import StepFailure, Unsupported

def checkout(job, inputs):
    """actions/checkout: the commit of the fixture repository, cloned into the workspace."""
    if inputs.get("clean", "true") != "true":
        raise Unsupported("actions/checkout: clean: false is not emulated")
    for name in os.listdir(job.workspace):
        path = os.path.join(job.workspace, name)
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(
            path)
    git = ["git", "-c", "advice.detachedHead=false"]
    for command in ([*git, "clone", "--quiet", "--no-checkout", job.repository, job.workspace],
                    [*git, "-C", job.workspace, "checkout", "--quiet", "--detach", job.sha]):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise StepFailure(f"{' '.join(command)} failed: {result.stderr.strip()}")
    # persist-credentials: nothing to persist, the clone needs no token.
    return {"commit": job.sha, "ref": "refs/heads/main"}


def artifact_store(job):
    return os.path.join(job.root, "artifacts", str(job.run_id))


def has_glob(pattern):
    return any(character in pattern for character in "*?[")


def literal_prefix(path):
    """The search path of a pattern: its folders before the first wildcard."""
    parts = path.split(os.sep)
    for index, part in enumerate(parts):
        if has_glob(part):
            return os.sep.join(parts[:index]) or os.sep
    return path


def upload_files(job, lines, include_hidden):
    """The files upload-artifact finds for its path lines, and the artifact's root folder."""
    includes, excludes = [], []
    for line in (line.strip() for line in lines.splitlines()):
        if line:
            (excludes if line.startswith("!") else includes).append(line.lstrip("!"))
    files, search_paths = set(), []
    for pattern in includes:
        absolute = job.workspace_path(pattern)
        search_paths.append(literal_prefix(absolute))
        matches = glob.glob(absolute, recursive=True, include_hidden=True) if has_glob(
            absolute) else ([absolute] if os.path.exists(absolute) else [])
        for match in matches:
            if os.path.isdir(match):
                for folder, _, names in os.walk(match):
                    files.update(os.path.join(folder, name) for name in names)
            else:
                files.add(match)
    for pattern in excludes:
        files -= {path for path in files if fnmatch.fnmatch(path, job.workspace_path(pattern))}
    if not include_hidden:
        files = {path for path in files if not any(
            part.startswith(".") for part in os.path.relpath(path, job.workspace).split(os.sep))}
    if len(files) == 1 and search_paths == list(files):
        return files, os.path.dirname(next(iter(files)))
    root = os.path.commonpath(search_paths) if search_paths else job.workspace
    if len(search_paths) == 1 and os.path.isfile(search_paths[0]):
        root = os.path.dirname(root)
    return files, root


def upload_artifact(job, inputs):
    name = inputs.get("name") or "artifact"
    if "path" not in inputs:
        raise StepFailure("actions/upload-artifact: Input required and not supplied: path")
    files, root = upload_files(job, inputs["path"], inputs.get("include-hidden-files") == "true")
    if inputs.get("archive", "true") == "false":
        if len(files) != 1:
            raise StepFailure(f"archive: false uploads exactly one file; {len(files)} matched")
        name = os.path.basename(next(iter(files)))
    if not files:
        rule = inputs.get("if-no-files-found", "warn")
        message = f"No files were found with the provided path: {inputs['path'].strip()}. " \
                  "No artifacts will be uploaded."
        if rule == "error":
            raise StepFailure(message)
        if rule == "warn":
            print(f"::warning::{message}", flush=True)
        return {}
    target = os.path.join(artifact_store(job), name)
    if os.path.exists(target):
        if inputs.get("overwrite", "false") != "true":
            raise StepFailure(f"Failed to CreateArtifact: an artifact with this name already "
                              f"exists on the workflow run: {name}")
        shutil.rmtree(target)
    staging = target + ".uploading"
    shutil.rmtree(staging, ignore_errors=True)
    for path in sorted(files):
        destination = os.path.join(staging, os.path.relpath(path, root))
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        shutil.copy2(path, destination)
    os.replace(staging, target)
    print(f"Artifact {name} has been successfully uploaded ({len(files)} files)", flush=True)
    return {"artifact-id": name, "artifact-url": f"file://{target}"}


def download_artifact(job, inputs):
    store = artifact_store(job)
    destination = job.workspace_path(inputs.get("path") or ".")
    available = sorted(os.listdir(store)) if os.path.isdir(store) else []
    available = [name for name in available if not name.endswith(".uploading")]
    if inputs.get("name"):
        if inputs["name"] not in available:
            raise StepFailure(f"Unable to download artifact(s): Artifact not found for name: "
                              f"{inputs['name']}")
        chosen, single = [inputs["name"]], True
    else:
        pattern = inputs.get("pattern")
        chosen = [name for name in available
                  if not pattern or fnmatch.fnmatchcase(name, pattern)]
        single = False
        print(f"Found {len(chosen)} artifact(s) matching {pattern or '*'}", flush=True)
    merge = inputs.get("merge-multiple", "false") == "true"
    for name in chosen:
        target = destination if single or merge else os.path.join(destination, name)
        shutil.copytree(os.path.join(store, name), target, dirs_exist_ok=True)
        print(f"Artifact {name} downloaded to {target}", flush=True)
    return {"download-path": destination}


def cache_store(job):
    return os.path.join(job.root, "caches")


def cache_entries(job):
    """The saved caches, newest first."""
    folder = cache_store(job)
    entries = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        meta = os.path.join(folder, name, "entry.json")
        if os.path.exists(meta):
            with open(meta, encoding="utf-8") as handle:
                entries.append(dict(json.load(handle), folder=os.path.join(folder, name)))
    return sorted(entries, key=lambda entry: entry["sequence"], reverse=True)


def cache_paths(job, inputs):
    paths = [line.strip() for line in inputs.get("path", "").splitlines() if line.strip()]
    if not paths:
        raise StepFailure("Input required and not supplied: path")
    for path in paths:
        if has_glob(path) or path.startswith("!") or os.path.isabs(os.path.expanduser(path)):
            raise Unsupported(f"cache path {path!r}: only paths inside the workspace, without "
                              "wildcards, are emulated")
    return paths


def copy_tree(source, destination):
    """cp -a: keeps modification times, so a restored build folder stays up to date."""
    if os.path.isdir(destination) and not os.path.islink(destination):
        shutil.rmtree(destination)
    elif os.path.lexists(destination):
        os.remove(destination)
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    subprocess.run(["cp", "-a", source, destination], check=True)


def cache_restore(job, inputs):
    key = inputs.get("key", "")
    if not key:
        raise StepFailure("Input required and not supplied: key")
    paths = cache_paths(job, inputs)
    restore_keys = [line.strip() for line in inputs.get("restore-keys", "").splitlines()
                    if line.strip()]
    entries = cache_entries(job)
    matched = next((entry for entry in entries if entry["key"] == key), None)
    for prefix in restore_keys if matched is None else []:
        matched = next((entry for entry in entries if entry["key"].startswith(prefix)), None)
        if matched:
            break
    if matched is None or matched["paths"] != paths:
        if inputs.get("fail-on-cache-miss") == "true":
            raise StepFailure(f"Failed to restore cache entry. Exiting as fail-on-cache-miss is "
                              f"set. Input key: {key}")
        print(f"Cache not found for input keys: {', '.join([key] + restore_keys)}", flush=True)
        return {"cache-primary-key": key}
    if inputs.get("lookup-only") != "true":
        for index, path in enumerate(paths):
            saved = os.path.join(matched["folder"], "files", str(index))
            if os.path.lexists(saved):
                copy_tree(saved, job.workspace_path(path))
    print(f"Cache restored from key: {matched['key']}", flush=True)
    return {"cache-hit": "true" if matched["key"] == key else "false",
            "cache-primary-key": key, "cache-matched-key": matched["key"]}


def cache_save(job, inputs):
    key = inputs.get("key", "")
    if not key:
        raise StepFailure("Input required and not supplied: key")
    paths = cache_paths(job, inputs)
    if any(entry["key"] == key for entry in cache_entries(job)):
        print(f"::warning::Failed to save: Unable to reserve cache with key {key}, another job "
              "may be creating this cache.", flush=True)
        return {}
    if not any(os.path.lexists(job.workspace_path(path)) for path in paths):
        print("::warning::Path Validation Error: Path(s) specified in the action for caching "
              "do(es) not exist, hence no cache is being saved.", flush=True)
        return {}
    folder = cache_store(job)
    os.makedirs(folder, exist_ok=True)
    sequence = max([entry["sequence"] for entry in cache_entries(job)] + [0]) + 1
    staging = os.path.join(folder, f".saving-{uuid.uuid4().hex[:8]}")
    for index, path in enumerate(paths):
        if os.path.lexists(job.workspace_path(path)):
            copy_tree(job.workspace_path(path), os.path.join(staging, "files", str(index)))
    os.makedirs(staging, exist_ok=True)
    with open(os.path.join(staging, "entry.json"), "w", encoding="utf-8") as handle:
        json.dump({"key": key, "paths": paths, "sequence": sequence,
                   "created": datetime.datetime.now(datetime.timezone.utc).isoformat()}, handle)
    os.replace(staging, os.path.join(folder, f"{sequence:06d}"))
    print(f"Cache saved with key: {key}", flush=True)
    return {}


ACTIONS = {
    "actions/checkout": checkout,
    "actions/upload-artifact": upload_artifact,
    "actions/download-artifact": download_artifact,
    "actions/cache/restore": cache_restore,
    "actions/cache/save": cache_save,
}

# Per action: inputs emulated, inputs accepted without effect here, and every input the
# action's action.yml declares at the pinned version, so a typo fails loudly.
ACTION_INPUTS = {
    "actions/checkout": (
        {"clean"}, {"persist-credentials", "fetch-depth", "show-progress", "set-safe-directory"},
        {"repository", "ref", "token", "ssh-key", "ssh-known-hosts", "ssh-strict", "ssh-user",
         "path", "filter", "sparse-checkout", "sparse-checkout-cone-mode", "fetch-tags", "lfs",
         "submodules", "github-server-url", "allow-unsafe-pr-checkout"}),
    "actions/upload-artifact": (
        {"name", "path", "if-no-files-found", "overwrite", "include-hidden-files", "archive"},
        {"retention-days", "compression-level"}, set()),
    "actions/download-artifact": (
        {"name", "path", "pattern", "merge-multiple"}, set(),
        {"artifact-ids", "github-token", "repository", "run-id", "skip-decompress",
         "digest-mismatch"}),
    "actions/cache/restore": (
        {"path", "key", "restore-keys", "fail-on-cache-miss", "lookup-only"},
        {"enableCrossOsArchive"}, set()),
    "actions/cache/save": ({"path", "key"}, {"upload-chunk-size", "enableCrossOsArchive"},
                           set()),
}


def emulate(uses, inputs, job):
    """Runs the step `uses:` names with its inputs, and returns its outputs."""
    action, _, ref = uses.partition("@")
    handler = ACTIONS.get(action)
    if handler is None:
        raise Unsupported(f"the action {uses} is not emulated")
    supported, ignored, known = ACTION_INPUTS[action]
    for key in inputs:
        if key in ignored:
            continue
        if key not in supported:
            raise Unsupported(
                f"{action}: input {key!r} is " + ("not emulated" if key in known
                                                  else "not an input of this action"))
    print(f"{action} at {ref}: {inputs}", flush=True)
    return handler(job, inputs) or {}
