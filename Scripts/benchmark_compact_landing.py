"""Fixtures and timings for Scripts/benchmark-compact-landing (run that script, not this file).

    python3 Scripts/benchmark_compact_landing.py RELEASE_FOLDER WORK_FOLDER RUNS
"""
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

from PIL import Image

from benchmark_archives import children_cpu, encode, render, write_archive

release, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
GENERATOR_VERSION = "1"
CASES = [("daily loop, 10 changed", 10, "screens"), ("daily loop, 100 changed", 100, "screens"),
         ("fleet merge, 2,000 mixed", 2000, "mixed")]


def sizes(count, kind, seed):
    rng = random.Random(seed)
    if kind == "screens":
        return [(800, 600)] * count
    return [rng.choice([(64, 64), (64, 64), (200, 150), (400, 300), (800, 600)])
            for _ in range(count)]


def generate(name, count, kind):
    """An archive of `count` renders encoded by the package's fast encoder; cached."""
    folder = os.path.join(work, f"{kind}-{count}-v{GENERATOR_VERSION}")
    archive = os.path.join(folder, "run.zip")
    if os.path.exists(archive):
        return archive
    shutil.rmtree(folder, ignore_errors=True)
    drawn = os.path.join(folder, "drawn")
    fast = os.path.join(folder, "fast")
    os.makedirs(drawn)
    print(f"== generating {name} (once; not timed)", file=sys.stderr)
    files = []
    for index, (width, height) in enumerate(sizes(count, kind, count)):
        # A tenth of the renders are the hard case: a fifth of their rows noisy.
        noisy = 0.2 if index % 10 == 0 else 0.02
        path = os.path.join(drawn, f"render{index:04}.png")
        with open(path, "wb") as file:
            file.write(encode(render(width, height, noisy, 1000 * count + index)))
        files.append(path)
    for start in range(0, len(files), 200):
        chunk = [argument for path in files[start:start + 200] for argument in ("--file", path)]
        subprocess.run([os.path.join(release, "Benchmarks"), "--encode-only", "--setting", "fast",
                        "--write", fast] + chunk, check=True)
    images = []
    for index, path in enumerate(files):
        png = open(os.path.join(fast, os.path.basename(path)), "rb").read()
        with Image.open(path) as image:
            rgba = image.convert("RGBA")
            images.append((f"Tests/Suite{index % 7}Tests/__References__/Render/{index:04}.png",
                           png, rgba.width, rgba.height, rgba.tobytes()))
    write_archive(archive, f"{kind}-{count}", images, "benchmark-compact-landing")
    shutil.rmtree(drawn)
    shutil.rmtree(fast)
    return archive


def merge(archive, compact):
    """One merge into an empty tree: (wall seconds, CPU seconds, bytes landed)."""
    destination = os.path.join(work, "package")
    shutil.rmtree(destination, ignore_errors=True)
    os.makedirs(os.path.join(destination, ".build"))
    command = [os.path.join(release, "merge-refs")] + (["--compact"] if compact else [])
    cpu = children_cpu()
    started = time.perf_counter()
    subprocess.run(command + [archive, destination], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    cpu = children_cpu() - cpu
    landed = 0
    for folder, _, names in os.walk(destination):
        if folder.startswith(os.path.join(destination, ".build")):
            continue
        landed += sum(os.path.getsize(os.path.join(folder, name)) for name in names)
    return wall, cpu, landed


def main():
    rows = []
    for name, count, kind in CASES:
        archive = generate(name, count, kind)
        fast, compact = [], []
        for _ in range(runs):
            fast.append(merge(archive, False))
            compact.append(merge(archive, True))
        rows.append((name, fast, compact))
    load = open("/proc/loadavg").read().split()[:3]
    print(f"merge-refs into an empty tree, without and with --compact: median of {runs}, "
          f"{os.cpu_count()} cores, load {' '.join(load)}")
    print(f"{'case':28} {'wall':>14} {'CPU':>14} {'extra wall':>11} {'bytes landed':>26}")
    for name, fast, compact in rows:
        median = lambda values, field: statistics.median(value[field] for value in values)
        wall_f, wall_c = median(fast, 0), median(compact, 0)
        cpu_f, cpu_c = median(fast, 1), median(compact, 1)
        bytes_f, bytes_c = fast[0][2], compact[0][2]
        print(f"{name:28} {wall_f:5.2f} → {wall_c:5.2f} s {cpu_f:5.2f} → {cpu_c:5.2f} s "
              f"{wall_c - wall_f:9.2f} s {bytes_f:>11,} → {bytes_c:>11,} "
              f"({bytes_c / bytes_f:.2f}x)")


main()
