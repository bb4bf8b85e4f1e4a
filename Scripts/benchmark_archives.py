"""Archives as the coordinator writes them, for the merge and report benchmarks' fixtures.

Imported by Scripts/benchmark_merge.py and Scripts/benchmark_report.py; not run on its own.
"""
import hashlib
import io
import json
import os
import resource
import zipfile

import numpy
from PIL import Image

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


def encode(pixels):
    buffer = io.BytesIO()
    # zlib level 1 keeps generation fast; the sizes, not the level, matter to a merge.
    Image.fromarray(pixels, "RGBA").save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def render(width, height, noisy_fraction, seed):
    """A screenshot-like image: smooth gradients, with a band of sensor-like noise covering
    `noisy_fraction` of the rows. The PNG weighs about (0.085 + 2.6 * fraction) bytes per pixel."""
    rng = numpy.random.default_rng(seed)
    y, x = numpy.mgrid[0:height, 0:width].astype(numpy.float32)
    phase = rng.random() * 6.28
    image = numpy.empty((height, width, 4), numpy.float32)
    image[..., 0] = 127 + 100 * numpy.sin(x / width * 3.1 + phase)
    image[..., 1] = 127 + 100 * numpy.cos(y / height * 2.3 + phase)
    image[..., 2] = (x + y) / (width + height) * 255
    image[..., 3] = 255
    rows = int(height * noisy_fraction)
    top = int(rng.integers(0, height - rows + 1))
    image[top:top + rows, :, :3] += rng.normal(0, 6, (rows, width, 3))
    return numpy.clip(numpy.round(image), 0, 255).astype(numpy.uint8)
