"""Archives as the coordinator writes them, for the merge and report benchmarks' fixtures.

Imported by Scripts/benchmark_merge.py and Scripts/benchmark_report.py; not run on its own.
"""
import hashlib
import json
import os
import resource
import zipfile

STAMP = (2024, 1, 1, 0, 10, 0)


def manifest(host, images, tool):
    """The coordinator's manifest (format version 1) for `images`: (path, png bytes, w, h, rgba),
    with the run and the uses of references the coordinator records."""
    return json.dumps({
        "formatVersion": 1, "toolVersion": tool, "runID": host,
        "worker": {"host": host, "pid": 1, "os": "Linux", "swiftVersion": "6", "ci": {}},
        "mode": "all", "startedAt": "2024-01-01T00:00:00Z", "endedAt": "2024-01-01T00:10:00Z",
        "completion": "finished", "tests": ["BenchmarkTests.testImages()"],
        "images": sorted(({
            "path": path, "test": "BenchmarkTests.testImages()", "width": width,
            "height": height, "byteCount": len(png),
            "pngSHA256": hashlib.sha256(png).hexdigest(),
            "pixelSHA256": hashlib.sha256(rgba).hexdigest(),
        } for path, png, width, height, rgba in images), key=lambda record: record["path"]),
        "verifiedReferences": sorted(path for path, _, _, _, _ in images),
        # As reference-shards' workers record them: one run for the whole plan, and each
        # assertion's use of its reference.
        "run": "shards:benchmark:1",
        "referenceUses": [{
            "path": path, "test": "BenchmarkTests.testImages()",
            "file": "Tests/BenchmarkTests/BenchmarkTests.swift", "line": 12, "verdict": "recorded",
        } for path, _, _, _, _ in images],
    }, indent=2, sort_keys=True).encode()


def write_archive(url, host, images, tool):
    """As the coordinator writes them: the manifest first (deflated), then the PNGs (stored)."""
    with zipfile.ZipFile(url + ".partial", "w") as archive:
        archive.writestr(zipfile.ZipInfo("ReferenceImages-manifest.json", date_time=STAMP),
                         manifest(host, images, tool), compress_type=zipfile.ZIP_DEFLATED)
        for path, png, _, _, _ in images:
            archive.writestr(zipfile.ZipInfo(path, date_time=STAMP), png,
                             compress_type=zipfile.ZIP_STORED)
    os.rename(url + ".partial", url)


def children_cpu():
    """User and system seconds of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
