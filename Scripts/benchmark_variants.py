"""Fixtures and timings for Scripts/benchmark-variants (run that script, not this file).

    python3 Scripts/benchmark_variants.py MERGE_REFS WORK_FOLDER RUNS [IMAGES]

A suite of 500 images (or IMAGES) on 3 variants (the base, linux-arm64 and macos), where 10% render
differently on linux-arm64, each variant's run split into 4 shards: 12 archives of 125 images.
Measured in the same run, medians of RUNS:

  (A) merge-refs of the 12 archives into an empty package that declares the variants
  (B) merge-refs of 12 archives of as many images under plain paths, no declaration
  (C) merge-refs of linux-arm64's 4 archives into a package holding the base references as the
      runs wrote them (a render equal to its fallback has its bytes: no decoding)
  (D) merge-refs of the same 4 archives into the same package without the declaration
  (E) as (C), over base references another encoder wrote (Pillow at level 9, no pixel digest):
      no fallback file has the render's bytes, so each is decoded (the hard case)

and the references on disk after (A) against the base set alone, and the peak memory of (A).
"""
import io
import os
import shutil
import statistics
import subprocess
import sys
import time

from PIL import Image

from benchmark_archives import children_cpu, encode, render, write_archive

binary, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
IMAGES = int(sys.argv[4]) if len(sys.argv) > 4 else 500
SHARDS, DIFFERING = 4, IMAGES // 10
work = os.path.join(work, f"{IMAGES}-images")
GENERATOR_VERSION = "2"
VARIANTS = [None, "linux-arm64", "macos"]
DECLARATION = ('{"schemaVersion": 1, "base": "linux-x86_64", '
               '"variants": {"linux-arm64": [], "macos": []}}')


def base_path(index):
    return f"Tests/Suite{index % 5}Tests/__References__/Suite{index % 5}Tests/image{index:04}.png"


def variant_path(path, variant):
    return path if variant is None else path[:-len(".png")] + "@@" + variant + ".png"


def image(index, variant):
    """The render of image `index` on a variant: linux-arm64 draws the first 10% differently."""
    differs = variant == "linux-arm64" and index < DIFFERING
    pixels = render(240, 160, 0.15, index * 7 + (1_000_003 if differs else 0))
    png = encode(pixels)
    return png, 240, 160, pixels.tobytes()


def generate():
    stamp = os.path.join(work, "generated-v" + GENERATOR_VERSION)
    if os.path.exists(stamp):
        return
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    started = time.time()
    print("== generating 3 variants x 4 shards x 125 images (once; not timed)", file=sys.stderr)
    renders = {variant: [image(index, variant) for index in range(IMAGES)] for variant in VARIANTS}
    for variant in VARIANTS:
        name = variant or "base"
        os.makedirs(os.path.join(work, "variants", name))
        os.makedirs(os.path.join(work, "plain", name))
        for shard in range(SHARDS):
            chosen = range(shard, IMAGES, SHARDS)
            images = [(variant_path(base_path(index), variant), *renders[variant][index])
                      for index in chosen]
            write_archive(os.path.join(work, "variants", name, f"shard-{shard}.zip"),
                          f"{name}-{shard}", images, "benchmark-variants")
            plain = [(base_path(index).replace("image", f"{name}-image"), *renders[variant][index])
                     for index in chosen]
            write_archive(os.path.join(work, "plain", name, f"shard-{shard}.zip"),
                          f"plain-{name}-{shard}", plain, "benchmark-variants")
    for folder, level in (("base-references", None), ("base-references-other-encoder", 9)):
        for index in range(IMAGES):
            png, width, height, rgba = renders[None][index]
            path = os.path.join(work, folder, base_path(index))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as file:
                file.write(png if level is None else encode_at(rgba, width, height, level))
    print(f"   generated in {time.time() - started:.0f} s", file=sys.stderr)
    open(stamp, "w").close()


def encode_at(rgba, width, height, level):
    buffer = io.BytesIO()
    Image.frombytes("RGBA", (width, height), rgba).save(buffer, "PNG", compress_level=level)
    return buffer.getvalue()


def archives(kind, variants):
    return [os.path.join(work, kind, variant or "base", f"shard-{shard}.zip")
            for variant in variants for shard in range(SHARDS)]


def package(declared, with_base):
    folder = os.path.join(work, "package")
    shutil.rmtree(folder, ignore_errors=True)
    if with_base:
        shutil.copytree(os.path.join(work, with_base), folder)
    os.makedirs(os.path.join(folder, ".build"), exist_ok=True)
    if declared:
        with open(os.path.join(folder, "ReferenceVariants.json"), "w") as file:
            file.write(DECLARATION)
    return folder


def merge(sources, destination, measure_memory=False):
    command = [binary, *sources, destination]
    if measure_memory:
        command = ["/usr/bin/time", "-v", *command]
    cpu, started = children_cpu(), time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed, cpu = time.perf_counter() - started, children_cpu() - cpu
    if result.returncode != 0:
        sys.exit(f"merge-refs failed ({result.returncode}): {result.stdout.decode()[-2000:]}"
                 f"{result.stderr.decode()[-2000:]}")
    rss = None
    for line in result.stderr.decode().splitlines():
        if "Maximum resident set size" in line:
            rss = int(line.split(":")[1]) / 1024
    return elapsed, cpu, result.stdout.decode(), rss


def references(folder):
    """(count, bytes) of the PNGs under `folder`, and how many are variant files."""
    count = size = variants = 0
    for root, _, names in os.walk(folder):
        if "/.build" in root:
            continue
        for name in names:
            if name.endswith(".png"):
                count += 1
                size += os.path.getsize(os.path.join(root, name))
                variants += "@@" in name
    return count, size, variants


def case(label, sources, declared, with_base=None):
    walls, cpus = [], []
    for _ in range(runs):
        destination = package(declared, with_base)
        wall, cpu, output, _ = merge(sources, destination)
        walls.append(wall * 1000)
        cpus.append(cpu * 1000)
    return {"label": label, "wall": statistics.median(walls), "cpu": statistics.median(cpus),
            "runs": walls, "output": output.strip().splitlines()[-1]}


def main():
    generate()
    every = archives("variants", VARIANTS)
    arm = archives("variants", ["linux-arm64"])
    load = os.getloadavg()[0]
    a = case("(A) 3 variants x 4 shards, declared, empty tree", every, True)
    tree = os.path.join(work, "package")
    count, size, variant_files = references(tree)
    _, _, _, rss = merge(every, package(True, None), measure_memory=True)
    b = case("(B) the same archives' images under plain paths", archives("plain", VARIANTS), False)
    c = case("(C) linux-arm64's 4 shards over the base, declared", arm, True, "base-references")
    d = case("(D) the same 4 shards over the base, no declaration", arm, False, "base-references")
    e = case("(E) as (C), base written by another encoder", arm, True,
             "base-references-other-encoder")
    base_count, base_size, _ = references(os.path.join(work, "base-references"))
    print(f"variants benchmark: {IMAGES} images x 3 variants, {DIFFERING} differ on linux-arm64, "
          f"{SHARDS} shards each; median of {runs} runs; load average {load:.2f} on "
          f"{os.cpu_count()} cores")
    print(f"{'case':54} {'median':>8} {'CPU':>8}   all runs (wall ms)")
    for row in (a, b, c, d, e):
        runs_text = " ".join(f"{value:.0f}" for value in row["runs"])
        print(f"{row['label']:54} {row['wall']:6.0f} ms {row['cpu']:6.0f} ms   {runs_text}")
        print(f"    {row['output']}")
    print()
    print(f"{'ratio':16} {'wall':>6} {'CPU':>6}  target")
    print(f"{'(A) / (B)':16} {a['wall'] / b['wall']:6.2f} {a['cpu'] / b['cpu']:6.2f}  <= 1.20")
    print(f"{'(C) / (D)':16} {c['wall'] / d['wall']:6.2f} {c['cpu'] / d['cpu']:6.2f}  (info)")
    print(f"{'(E) / (D)':16} {e['wall'] / d['wall']:6.2f} {e['cpu'] / d['cpu']:6.2f}  (info)")
    ratio = size / base_size
    print(f"references on disk after (A): {count} files ({variant_files} variant files), "
          f"{size / 1e6:.1f} MB; the base set: {base_count} files, {base_size / 1e6:.1f} MB; "
          f"{ratio:.3f}x (target <= 1.15; every variant stored whole would be 3x)")
    print(f"peak memory (max RSS) of (A): {rss:.1f} MB")


main()
