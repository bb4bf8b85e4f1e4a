"""Fixtures and timings of the review report, for Scripts/benchmark-merge --report.

    python3 Scripts/benchmark_report.py MERGE_REFS WORK_FOLDER RUNS [--count N] [--cards N]
                                        [--single-file]

Generates once into WORK_FOLDER (cached by GENERATOR_VERSION; never timed) 8 archives x 250
screenshot-like PNGs of 800x600 ("old", with riDG pixel digests and manifests) and the same
paths with a changed region ("new"), then measures, for 2,000 added images (the old archives
into an empty tree) and 2,000 updated images (the new archives into a tree holding the old
images):

  - merge-refs --dry-run without and with --report DIR (wall and CPU time, their ratio);
  - the peak memory (max RSS, /usr/bin/time -v) of the run with --report;
  - the size of index.html + review-data.js, and of the whole folder;
  - headless Chromium's time to render the first screen of DIR/index.html (a screenshot);
and, with --cards N, the time Chromium takes to open a page of N cards (N added images of
64x64, one archive). --single-file writes --report review.html instead of a folder (the only
form of merge-refs before the folder report, for a "before" figure).
"""
import hashlib
import io
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import zipfile
import zlib

import numpy
from PIL import Image

from benchmark_archives import children_cpu, write_archive as write_coordinator_archive

binary, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
count = int(sys.argv[sys.argv.index("--count") + 1]) if "--count" in sys.argv else 250
cards = int(sys.argv[sys.argv.index("--cards") + 1]) if "--cards" in sys.argv else 0
single_file = "--single-file" in sys.argv
GENERATOR_VERSION = "2"
ARCHIVES = 8
WIDTH, HEIGHT = 800, 600
CHROMIUM = "/usr/bin/chromium"


def chunk(kind, data):
    return (len(data).to_bytes(4, "big") + kind + data
            + zlib.crc32(kind + data).to_bytes(4, "big"))


def with_pixel_digest(png, rgba):
    """The PNG with a riDG chunk before its first IDAT, as PNGEncoder writes it: version 1,
    the SHA-256 of the IDAT data, the SHA-256 of the RGBA8 pixels."""
    position, idat, first_idat = 8, b"", None
    while position < len(png):
        length = int.from_bytes(png[position:position + 4], "big")
        kind = png[position + 4:position + 8]
        if kind == b"IDAT":
            first_idat = position if first_idat is None else first_idat
            idat += png[position + 8:position + 8 + length]
        position += 12 + length
    digest = bytes([1]) + hashlib.sha256(idat).digest() + hashlib.sha256(rgba).digest()
    return png[:first_idat] + chunk(b"riDG", digest) + png[first_idat:]


def encode(pixels):
    buffer = io.BytesIO()
    Image.fromarray(pixels, "RGBA").save(buffer, "PNG", compress_level=1)
    return with_pixel_digest(buffer.getvalue(), pixels.tobytes())


def screenshot(seed):
    """A screenshot-like image: a smooth background, a header bar, panels and text-like noise
    rows; about 60-120 KB as PNG."""
    rng = numpy.random.default_rng(seed)
    y, x = numpy.mgrid[0:HEIGHT, 0:WIDTH].astype(numpy.float32)
    phase = rng.random() * 6.28
    image = numpy.empty((HEIGHT, WIDTH, 4), numpy.float32)
    image[..., 0] = 200 + 40 * numpy.sin(x / WIDTH * 3.1 + phase)
    image[..., 1] = 210 + 30 * numpy.cos(y / HEIGHT * 2.3 + phase)
    image[..., 2] = 220
    image[..., 3] = 255
    image[0:48, :, :3] = rng.integers(20, 120, 3)
    for _ in range(6):
        top, left = int(rng.integers(60, HEIGHT - 120)), int(rng.integers(0, WIDTH - 200))
        image[top:top + 100, left:left + 200, :3] = rng.integers(100, 255, 3)
        image[top + 10:top + 24, left + 10:left + 190, :3] += rng.normal(0, 40, (14, 180, 3))
    return numpy.clip(numpy.round(image), 0, 255).astype(numpy.uint8)


def changed(pixels, seed):
    """The same screenshot with one panel restyled: a box of a new colour."""
    rng = numpy.random.default_rng(seed)
    result = pixels.copy()
    top, left = int(rng.integers(48, HEIGHT - 80)), int(rng.integers(0, WIDTH - 160))
    result[top:top + 60, left:left + 140, :3] = rng.integers(0, 255, 3)
    return result






def generate():
    stamp = os.path.join(work, f"report-v{GENERATOR_VERSION}-{count}")
    if os.path.exists(stamp):
        return
    for name in ("old", "new"):
        shutil.rmtree(os.path.join(work, name), ignore_errors=True)
        os.makedirs(os.path.join(work, name))
    started = time.time()
    print(f"== generating {ARCHIVES} x {count} screenshots of {WIDTH}x{HEIGHT}, old and new "
          "(once; not timed)", file=sys.stderr)
    for archive in range(ARCHIVES):
        old, new = [], []
        for index in range(count):
            seed = archive * 1000 + index
            path = f"Tests/Suite{index % 6}Tests/__References__/Worker{archive}/screen{index:03}.png"
            before = screenshot(seed)
            after = changed(before, seed)
            old.append((path, encode(before), WIDTH, HEIGHT, before.tobytes()))
            new.append((path, encode(after), WIDTH, HEIGHT, after.tobytes()))
        for name, images in (("old", old), ("new", new)):
            write_coordinator_archive(os.path.join(work, name, f"worker-{archive}.zip"),
                                      f"{name}-{archive}", images, "benchmark-report")
    print(f"   generated in {time.time() - started:.0f} s", file=sys.stderr)
    open(stamp, "w").close()


def generate_cards():
    """One archive of `cards` small PNGs: a page of that many cards."""
    url = os.path.join(work, "cards", f"cards-{cards}.zip")
    if os.path.exists(url):
        return url
    os.makedirs(os.path.dirname(url), exist_ok=True)
    images = []
    for index in range(cards):
        pixels = numpy.full((64, 64, 4), 255, numpy.uint8)
        pixels[index % 64, :, :3] = (index * 7 % 256, index * 13 % 256, 90)
        images.append((f"Tests/Many{index % 20}Tests/__References__/icon{index:05}.png",
                       encode(pixels), 64, 64, pixels.tobytes()))
    write_coordinator_archive(url, "cards", images, "benchmark-report")
    return url


def archives(name):
    folder = os.path.join(work, name)
    return sorted(os.path.join(folder, entry) for entry in os.listdir(folder))


def fresh(folder, with_old=False):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, ".build"))
    if with_old:
        for archive in archives("old"):
            with zipfile.ZipFile(archive) as opened:
                for info in opened.infolist():
                    if info.filename.endswith(".png"):
                        opened.extract(info, folder)




def timed(command, expect):
    cpu, started = children_cpu(), time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed, cpu = time.perf_counter() - started, children_cpu() - cpu
    output = result.stdout.decode()
    if result.returncode != 0 or expect not in output:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}): {output[-1500:]}"
                 f"{result.stderr.decode()[-1500:]}")
    return elapsed, cpu


def peak_rss(command):
    result = subprocess.run(["/usr/bin/time", "-v", *command], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    for line in result.stderr.decode().splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[1]) / 1024
    sys.exit("no maximum resident set size: " + result.stderr.decode()[-1500:])


def folder_size(folder):
    return sum(os.path.getsize(os.path.join(root, name))
               for root, _, names in os.walk(folder) for name in names)


def chromium_first_screen(page):
    """Seconds for headless Chromium to load the page and take a screenshot of the first
    screen, minus the same for an empty page (the browser's own start)."""
    def run(url):
        shot = os.path.join(work, "screen.png")
        started = time.perf_counter()
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                        "--window-size=1280,900", f"--screenshot={shot}", url],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        return time.perf_counter() - started
    empty = os.path.join(work, "empty.html")
    with open(empty, "w") as file:
        file.write("<!doctype html><title>empty</title>")
    baseline = min(run("file://" + empty) for _ in range(2))
    return min(run("file://" + page) for _ in range(max(runs, 1))) - baseline, baseline


def measure(label, sources, with_old, expect):
    destination = os.path.join(work, "destination")
    report = os.path.join(work, "review.html" if single_file else "review")
    page = report if single_file else os.path.join(report, "index.html")
    fresh(destination, with_old)
    plain = [timed([binary, "--dry-run", *sources, destination], expect) for _ in range(runs)]
    reported = [timed([binary, "--dry-run", "--report", report, *sources, destination], expect)
                for _ in range(runs)]
    rss = peak_rss([binary, "--dry-run", "--report", report, *sources, destination])
    index = (os.path.getsize(report) if single_file else
             sum(os.path.getsize(os.path.join(report, name))
                 for name in ("index.html", "review-data.js")))
    render, browser = (chromium_first_screen(page)
                       if os.path.exists(CHROMIUM) else (float("nan"), float("nan")))
    wall = (statistics.median(t for t, _ in plain), statistics.median(t for t, _ in reported))
    cpu = (statistics.median(c for _, c in plain), statistics.median(c for _, c in reported))
    return {"case": label, "plain": wall[0], "report": wall[1], "plain_cpu": cpu[0],
            "report_cpu": cpu[1], "rss": rss, "index": index,
            "folder": index if single_file else folder_size(report),
            "render": render, "browser": browser}


generate()
results = [
    measure(f"{ARCHIVES * count} added", archives("old"), False, f"{ARCHIVES * count} added"),
    measure(f"{ARCHIVES * count} updated", archives("new"), True,
            f"0 added, {ARCHIVES * count} updated"),
]
if cards:
    results.append(measure(f"{cards} cards (64x64 added)", [generate_cards()], False,
                           f"{cards} added"))
print(f"review report benchmark ({work}): median of {runs} runs; load average "
      f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
print(f"{'case':<26}{'dry run':>9}{'+report':>9}{'ratio':>7}{'CPU':>7}{'+report':>8}"
      f"{'ratio':>7}{'peak RSS':>10}{'index+data':>12}{'folder':>9}{'Chromium':>10}")
for r in results:
    print(f"{r['case']:<26}{r['plain']:>8.2f}s{r['report']:>8.2f}s"
          f"{r['report'] / r['plain']:>6.1f}x{r['plain_cpu']:>6.2f}s{r['report_cpu']:>7.2f}s"
          f"{r['report_cpu'] / r['plain_cpu']:>6.1f}x"
          f"{r['rss']:>8.0f}MB{r['index'] / 1e6:>10.2f}MB{r['folder'] / 1e6:>7.0f}MB"
          f"{r['render']:>9.2f}s")
print("(wall and CPU time, user + system, of merge-refs; Chromium: first screen's screenshot, "
      f"minus {results[0]['browser']:.2f} s for an empty page)")
