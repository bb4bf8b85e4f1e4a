"""Fixtures and timings for Scripts/benchmark-merge (run that script, not this file).

    python3 Scripts/benchmark_merge.py MERGE_REFS WORK_FOLDER RUNS [--strace | --memory-only]

Generates the archives once into WORK_FOLDER (cached by GENERATOR_VERSION; never timed), then
times merge-refs against plain extraction in the same run and prints one table with ratios:

  (1) merge-refs of 8 archives x 250 PNGs (37-116 KB, with manifests) into an empty tree
  (2) bsdtar -xf of the same archives, one after another, into an empty tree
  (3) unzip -o -q of the same archives, one after another, into an empty tree
  (4) merge-refs again into the up-to-date tree (everything unchanged)
  (5) merge-refs of one zip of 60,000 small PNGs without a manifest, into an empty tree
  (6) bsdtar -xf of that zip into an empty tree
  (7) merge-refs of the same icons with distinct bytes (a tEXt chunk numbers each file), so no
      file repeats another and every entry is decoded
  and the peak memory (max RSS) of merge-refs for 10 and for 100 archives of 500 small PNGs,
  and, with --strace, the system calls per landed file of (5) from `strace -c -f`.
With --memory-only, only the peak memory is measured (no timings, no icons zip).

With --fleet, the fleet-size cases instead, on the 100 archives x 500 PNGs (50,000 files):
  (F1) merge-refs into an empty tree          (F2) again, everything unchanged
  (F3) merge-refs --dry-run, empty tree       (F4) --dry-run --report DIR, empty tree (50,000
                                                   added cards, their images copied)
and the floors beside them: (F5) merge-refs --version (start-up alone), (F6) a bsdtar -xf loop
of the same archives into an empty tree (writing 50,000 files), and (F7) reading the archives
(cat > /dev/null). Targets: (F2) <= 0.1 x (F1); (F4) <= 2 x (F3).
"""
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
import zlib


from benchmark_archives import children_cpu, encode, render
from benchmark_archives import write_archive as write_coordinator_archive

binary, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
GENERATOR_VERSION = "6"






def realistic_image(seed):
    """An image of 300x200 to 500x400 whose PNG weighs 37-116 KB."""
    rng = random.Random(seed)
    width, height = rng.randrange(300, 501), rng.randrange(200, 401)
    target = rng.uniform(40_000, 112_000)
    fraction = (target / (width * height) - 0.085) / 2.6
    for _ in range(5):
        pixels = render(width, height, min(max(fraction, 0.0), 0.95), seed)
        png = encode(pixels)
        if 37_000 <= len(png) <= 116_000:
            return png, width, height, pixels.tobytes()
        fraction *= target / len(png)
    sys.exit(f"could not make image {seed} weigh 37-116 KB ({len(png)} bytes)")


def generate():
    stamp = os.path.join(work, "generated-v" + GENERATOR_VERSION)
    if os.path.exists(stamp):
        return
    shutil.rmtree(os.path.join(work, "realistic"), ignore_errors=True)
    shutil.rmtree(os.path.join(work, "small"), ignore_errors=True)
    os.makedirs(os.path.join(work, "realistic"))
    os.makedirs(os.path.join(work, "small"))
    started = time.time()
    print("== generating 8 archives x 250 PNGs of 37-116 KB (once; not timed)", file=sys.stderr)
    for archive in range(8):
        images = []
        for index in range(250):
            png, width, height, rgba = realistic_image(archive * 1000 + index)
            path = f"Tests/Suite{index % 6}Tests/__References__/Worker{archive}/image{index:03}.png"
            images.append((path, png, width, height, rgba))
        write_coordinator_archive(os.path.join(work, "realistic", f"worker-{archive}.zip"),
                                  f"worker-{archive}", images, "benchmark-merge")
    print("== generating 100 archives x 500 PNGs of 64x64 (once; not timed)", file=sys.stderr)
    # The same 500 images under other paths in every archive: memory depends on paths and
    # sizes, not on whether bytes repeat.
    small = []
    for index in range(500):
        pixels = render(64, 64, 0.3, 10_000_000 + index)
        small.append((encode(pixels), pixels.tobytes()))
    for archive in range(100):
        images = [(f"Tests/Many{index % 10}Tests/__References__/Worker{archive}/small{index:03}.png",
                   png, 64, 64, rgba) for index, (png, rgba) in enumerate(small)]
        write_coordinator_archive(os.path.join(work, "small", f"worker-{archive:03}.zip"),
                                  f"small-{archive}", images, "benchmark-merge")
    print(f"   generated in {time.time() - started:.0f} s", file=sys.stderr)
    open(stamp, "w").close()


def fresh(folder):
    """An empty package root: nothing but the `.build` folder a built package has (where
    merge-refs keeps its digest cache)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, ".build"))




def timed(command):
    """Runs a command; returns (wall seconds, CPU seconds, output)."""
    cpu, started = children_cpu(), time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed, cpu = time.perf_counter() - started, children_cpu() - cpu
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed ({result.returncode}): {result.stdout.decode()[-2000:]}"
                 f"{result.stderr.decode()[-2000:]}")
    return elapsed, cpu, result.stdout.decode()


def timed_loop(commands):
    """Runs commands one after another; returns (wall seconds, CPU seconds)."""
    cpu, started = children_cpu(), time.perf_counter()
    for command in commands:
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if result.returncode != 0:
            sys.exit(f"{command} failed: {result.stderr.decode()}")
    return time.perf_counter() - started, children_cpu() - cpu


def peak_rss(sources, destination):
    fresh(destination)
    result = subprocess.run(["/usr/bin/time", "-v", binary, *sources, destination],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"merge-refs failed: {result.stderr.decode()[-2000:]}")
    for line in result.stderr.decode().splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[1]) / 1024
    sys.exit("no maximum resident set size in /usr/bin/time's output")


def small_archives():
    folder = os.path.join(work, "small")
    return sorted(os.path.join(folder, name) for name in os.listdir(folder))


def print_memory(rss_10, rss_100):
    met = rss_100 <= 60 and rss_100 <= 1.5 * rss_10
    print("merge-refs peak memory (max RSS), archives of 500 PNGs of 64x64:")
    print(f"  10 archives:  {rss_10:6.1f} MB")
    print(f"  100 archives: {rss_100:6.1f} MB  ({rss_100 / rss_10:.2f}x for 10x the archives; "
          f"target <= 60 MB and <= 1.5x: {'met' if met else 'MISSED'})")


ICON_COUNT = 60_000


def generate_icons():
    """One zip of 60,000 small PNGs (a design system's icons) without a manifest, written by
    Python's zipfile like a hand-made archive: every entry must be decoded to learn its pixels."""
    stamp = os.path.join(work, "icons-v" + GENERATOR_VERSION)
    if os.path.exists(stamp):
        return
    print(f"== generating one zip of {ICON_COUNT} PNGs of 16-32 px (once; not timed)",
          file=sys.stderr)
    os.makedirs(os.path.join(work, "icons"), exist_ok=True)
    url = os.path.join(work, "icons", "icons.zip")
    shapes = []
    for index in range(64):
        size = 16 + (index % 3) * 8
        shapes.append(encode(render(size, size, 0.5, 20_000_000 + index)))
    with zipfile.ZipFile(url + ".partial", "w") as archive:
        for index in range(ICON_COUNT):
            # 64 distinct images under 60,000 paths: merge-refs decodes each distinct file once
            # and writes every entry; case (7) makes every file distinct.
            path = f"Icons/Set{index // 1000:02}/icon{index:05}.png"
            archive.writestr(zipfile.ZipInfo(path, date_time=(2024, 1, 1, 0, 10, 0)),
                             shapes[index % 64], compress_type=zipfile.ZIP_STORED)
    os.rename(url + ".partial", url)
    open(stamp, "w").close()


def generate_distinct_icons():
    """The icons zip with every file made distinct by a numbered tEXt chunk after IHDR: the
    pixels still repeat, but no two entries have the same bytes, so merge-refs cannot reuse one
    file's decoding for another (a real icon set rarely repeats a file)."""
    stamp = os.path.join(work, "icons-distinct-v" + GENERATOR_VERSION)
    if os.path.exists(stamp):
        return
    url = os.path.join(work, "icons", "icons-distinct.zip")
    with zipfile.ZipFile(icons) as source, zipfile.ZipFile(url + ".partial", "w") as archive:
        for number, info in enumerate(source.infolist()):
            png = source.read(info)
            text = b"Comment\0" + str(number).encode()
            chunk = (len(text).to_bytes(4, "big") + b"tEXt" + text
                     + zlib.crc32(b"tEXt" + text).to_bytes(4, "big"))
            archive.writestr(zipfile.ZipInfo(info.filename, date_time=info.date_time),
                             png[:33] + chunk + png[33:], compress_type=zipfile.ZIP_STORED)
    os.rename(url + ".partial", url)
    open(stamp, "w").close()


def syscalls_per_file(command, files):
    """Total system calls of `command` (strace -c -f), divided by the files it lands."""
    summary = os.path.join(work, "strace-summary.txt")
    result = subprocess.run(["strace", "-c", "-f", "-o", summary, *command],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode != 0:
        sys.exit(f"strace {command[0]} failed: {result.stderr.decode()[-2000:]}")
    lines = open(summary).read().splitlines()
    total = next(line for line in lines if line.rstrip().endswith("total"))
    calls = int(total.split()[3])
    top = [line.split() for line in lines[2:] if line and not line.startswith("-")
           and not line.rstrip().endswith("total")]
    top.sort(key=lambda fields: -int(fields[3]))
    names = ", ".join(f"{fields[-1]} {int(fields[3]) / files:.2f}" for fields in top[:6])
    return calls / files, names


def fleet():
    """The fleet-size cases (see the header), in turns, medians of `runs`."""
    small = small_archives()
    report = os.path.join(work, "fleet-review")
    files = 100 * 500
    cases = {}

    def run(name, command, expect=None, before=None):
        if before:
            before()
        measured = timed(command)
        if expect:
            assert expect in measured[2], measured[2][-800:]
        cases.setdefault(name, []).append(measured[:2])

    def empty_tree():
        fresh(destination)
        shutil.rmtree(report, ignore_errors=True)

    for number in range(runs):
        run("F1", [binary, *small, destination], f"{files} added", empty_tree)
        run("F2", [binary, *small, destination], f"{files} unchanged")
        run("F3", [binary, "--dry-run", *small, destination], f"{files} added", empty_tree)
        run("F4", [binary, "--dry-run", "--report", report, *small, destination],
            f"{files} added", empty_tree)
        run("F5", [binary, "--version"])
        empty_tree()
        started, cpu_before = time.perf_counter(), children_cpu()
        for archive in small:
            subprocess.run(["bsdtar", "-xf", archive, "-C", destination], check=True)
        cases.setdefault("F6", []).append(
            (time.perf_counter() - started, children_cpu() - cpu_before))
        run("F7", ["sh", "-c", 'cat "$@" > /dev/null', "cat", *small])
        print(f"   fleet run {number + 1}/{runs}: " + ", ".join(
            f"({name}) {values[-1][0] * 1000:.0f} ms" for name, values in cases.items()),
            file=sys.stderr)
    empty_tree()
    shutil.rmtree(report, ignore_errors=True)
    wall = {name: statistics.median(v[0] for v in values) for name, values in cases.items()}
    cpu = {name: statistics.median(v[1] for v in values) for name, values in cases.items()}
    labels = {
        "F1": "(F1) merge-refs, empty tree",
        "F2": "(F2) merge-refs again, all unchanged",
        "F3": "(F3) merge-refs --dry-run",
        "F4": "(F4) merge-refs --dry-run --report",
        "F5": "(F5) merge-refs --version",
        "F6": "(F6) bsdtar -xf loop, empty tree",
        "F7": "(F7) cat the archives > /dev/null",
    }
    filesystem = "tmpfs" if work.startswith("/dev/shm") else "disk"
    size = sum(os.path.getsize(archive) for archive in small) / 1e6
    print(f"fleet merge on {filesystem} ({work}): 100 archives x 500 PNGs of 64x64 ({size:.0f} MB),"
          f" median of {runs} runs in turns; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores")
    print(f"{'case':<40}{'median':>10}{'CPU':>9}")
    for name, label in labels.items():
        print(f"{label:<40}{wall[name] * 1000:>7.0f} ms{cpu[name] * 1000:>6.0f} ms")
    print()
    print(f"{'ratio':<34}{'wall':>8}{'CPU':>8}  target")
    rows = [
        ("(F2) / (F1), rerun", wall["F2"] / wall["F1"], cpu["F2"] / cpu["F1"], "<= 0.10"),
        ("(F4) / (F3), report of adds", wall["F4"] / wall["F3"], cpu["F4"] / cpu["F3"], "<= 2.00"),
        ("(F5) / (F2), start-up in the rerun", wall["F5"] / wall["F2"], cpu["F5"] / cpu["F2"],
         "(floor)"),
        ("((F4) - (F3)) / (F6), report's writing", (wall["F4"] - wall["F3"]) / wall["F6"],
         (cpu["F4"] - cpu["F3"]) / cpu["F6"], "(floor)"),
        ("(F1) / (F6), landing", wall["F1"] / wall["F6"], cpu["F1"] / cpu["F6"], "(info)"),
    ]
    for name, value, cpu_value, target in rows:
        print(f"{name:<34}{value:>8.2f}{cpu_value:>8.2f}  {target}")


generate()
destination = os.path.join(work, "destination")
if "--fleet" in sys.argv:
    fleet()
    sys.exit(0)
if "--memory-only" in sys.argv:
    small = small_archives()
    print_memory(peak_rss(small[:10], destination), peak_rss(small, destination))
    fresh(destination)
    sys.exit(0)
generate_icons()
archives = sorted(os.path.join(work, "realistic", name)
                  for name in os.listdir(os.path.join(work, "realistic")))
icons = os.path.join(work, "icons", "icons.zip")
generate_distinct_icons()
distinct_icons = os.path.join(work, "icons", "icons-distinct.zip")
total_bytes = sum(os.path.getsize(archive) for archive in archives)
cases = (1, 2, 3, 4, 5, 6, 7)
times = {case: [] for case in cases}
cpu = {case: [] for case in cases}


def record(case, measured):
    times[case].append(measured[0])
    cpu[case].append(measured[1])


for run in range(runs):
    fresh(destination)
    measured = timed([binary, *archives, destination])
    assert "2000 added, 0 updated, 0 unchanged" in measured[2], measured[2][-500:]
    record(1, measured)
    measured = timed([binary, *archives, destination])
    assert "0 added, 0 updated, 2000 unchanged" in measured[2], measured[2][-500:]
    record(4, measured)
    fresh(destination)
    record(2, timed_loop([["bsdtar", "-xf", archive, "-C", destination] for archive in archives]))
    fresh(destination)
    record(3, timed_loop([["unzip", "-o", "-q", archive, "-d", destination]
                          for archive in archives]))
    fresh(destination)
    measured = timed([binary, icons, destination])
    assert f"{ICON_COUNT} added" in measured[2], measured[2][-500:]
    record(5, measured)
    fresh(destination)
    record(6, timed_loop([["bsdtar", "-xf", icons, "-C", destination]]))
    fresh(destination)
    measured = timed([binary, distinct_icons, destination])
    assert f"{ICON_COUNT} added" in measured[2], measured[2][-500:]
    record(7, measured)
    print(f"   run {run + 1}/{runs}: " + ", ".join(
        f"({case}) {times[case][-1] * 1000:.0f} ms" for case in cases), file=sys.stderr)

median = {case: statistics.median(values) for case, values in times.items()}
median_cpu = {case: statistics.median(values) for case, values in cpu.items()}
small = small_archives()
rss_10 = peak_rss(small[:10], destination)
rss_100 = peak_rss(small, destination)
per_file = None
if "--strace" in sys.argv:
    fresh(destination)
    per_file = syscalls_per_file([binary, icons, destination], ICON_COUNT)
fresh(destination)

labels = {
    1: "(1) merge-refs, 8 x 250, empty tree",
    2: "(2) bsdtar -xf loop, empty tree",
    3: "(3) unzip -o -q loop, empty tree",
    4: "(4) merge-refs, up-to-date tree",
    5: "(5) merge-refs, 60,000 icons",
    6: "(6) bsdtar -xf, 60,000 icons",
    7: "(7) merge-refs, 60,000 distinct icons",
}
filesystem = "tmpfs" if work.startswith("/dev/shm") else "disk"
print(f"merge benchmark on {filesystem} ({work}): 8 archives x 250 PNGs, "
      f"{total_bytes / 1e6:.0f} MB; {ICON_COUNT} icons in one zip without a manifest; "
      f"median of {runs} runs; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
print(f"{'case':<40}{'median':>10}{'CPU':>9}   all runs (wall ms)")
for case in cases:
    runs_text = " ".join(f"{value * 1000:.0f}" for value in times[case])
    print(f"{labels[case]:<40}{median[case] * 1000:>7.0f} ms{median_cpu[case] * 1000:>6.0f} ms"
          f"   {runs_text}")
print("(CPU: user + system time of the processes; steadier than wall time on a busy machine)")
checks = [
    ("(1) / (2)", median[1] / median[2], median_cpu[1] / median_cpu[2], "<= 1.00",
     median[1] / median[2] <= 1.0),
    ("(4) / (1)", median[4] / median[1], median_cpu[4] / median_cpu[1], "<= 0.20",
     median[4] / median[1] <= 0.2),
    ("(5) / (6)", median[5] / median[6], median_cpu[5] / median_cpu[6], "<= 1.50",
     median[5] / median[6] <= 1.5),
    ("(7) / (6)", median[7] / median[6], median_cpu[7] / median_cpu[6], "(info)", True),
    ("(3) / (1)", median[3] / median[1], median_cpu[3] / median_cpu[1], "(info)", True),
]
print()
print(f"{'ratio':<12}{'wall':>8}{'CPU':>8}  {'target':<9}result (wall)")
for name, value, cpu_value, target, ok in checks:
    print(f"{name:<12}{value:>8.2f}{cpu_value:>8.2f}  {target:<9}{'met' if ok else 'MISSED'}")
print()
print_memory(rss_10, rss_100)
if per_file:
    print(f"system calls per landed file, case (5), strace -c -f: {per_file[0]:.2f} "
          f"(target <= 6: {'met' if per_file[0] <= 6 else 'MISSED'}); top: {per_file[1]}")
