"""Sizes of compact references beside zopflipng, Pillow optimize=True and oxipng, measured in
the same run, with ratios; and what compact files cost to write and to read.

    python benchmark_compact.py WORK_DIR

Run by Scripts/benchmark-compact, which builds the tools and makes the Python environment.
Corpora: the example package's 20 references as committed, and a mix (charts, screenshots
with a photo, icons, noise, a 16-bit gradient) drawn here with a fixed seed and written by
Pillow, ImageMagick and this package. Every compacted file is decoded by Pillow and by
ImageMagick and compared with the original's pixels.
"""

import glob
import io
import os
import random
import re
import shutil
import subprocess
import sys
import time

from PIL import Image, ImageDraw, ImageFont

try:
    import oxipng
except ImportError:
    oxipng = None

RELEASE = ".build-release/release"
PHOTO = sorted(glob.glob(
    "/root/.rustup/toolchains/*/share/doc/rust/html/embedded-book/assets/f3.jpg"))


def supersampled(width, height, draw, mode="RGBA", background=(0, 0, 0, 0), scale=4):
    """An image drawn at `scale` times the size and reduced, so edges are anti-aliased as a
    renderer's are."""
    image = Image.new(mode, (width * scale, height * scale), background)
    draw(ImageDraw.Draw(image), scale)
    return image.resize((width, height), Image.LANCZOS)


def chart(seed, width, height):
    rng = random.Random(seed)
    def draw(canvas, s):
        for y in range(40, height - 30, 40):
            canvas.line([(40 * s, y * s), ((width - 10) * s, y * s)], fill=(220, 220, 225), width=s)
        bars = rng.randint(5, 12)
        step = (width - 60) / bars
        for index in range(bars):
            top = rng.randint(50, height - 40)
            colour = [(66, 133, 244), (219, 68, 55), (244, 180, 0)][index % 3]
            canvas.rectangle([((50 + index * step) * s, top * s),
                              ((50 + index * step + step * 0.7) * s, (height - 30) * s)],
                             fill=colour)
        points = [((40 + x * (width - 50) / 20) * s, rng.randint(30, height - 40) * s)
                  for x in range(21)]
        canvas.line(points, fill=(30, 30, 30), width=2 * s, joint="curve")
    return supersampled(width, height, draw, "RGB", (255, 255, 255))


def screenshot_with_photo(seed, width, height):
    rng = random.Random(seed)
    image = Image.new("RGB", (width, height), (246, 246, 248))
    canvas = ImageDraw.Draw(image)
    canvas.rectangle([0, 0, width, 48], fill=(40, 44, 52))
    canvas.rectangle([0, 48, 180, height], fill=(232, 234, 238))
    font = ImageFont.load_default()
    for line in range(rng.randint(12, 20)):
        canvas.text((12, 60 + line * 22), f"Item {line} {rng.randint(100, 999)}", fill=(30, 30, 30), font=font)
    for line in range(8):
        canvas.text((200, 330 + line * 26), "The quick brown fox " * rng.randint(1, 3), fill=(60, 60, 70), font=font)
    if PHOTO:
        photo = Image.open(PHOTO[0]).convert("RGB").resize((width - 220, 250), Image.LANCZOS)
        image.paste(photo, (200, 64))
    return image


def icon(seed, side):
    rng = random.Random(seed)
    colour = (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255), 255)
    def draw(canvas, s):
        canvas.ellipse([2 * s, 2 * s, (side - 2) * s, (side - 2) * s], fill=colour)
        canvas.rectangle([side * s // 3, side * s // 4, side * s * 2 // 3, side * s * 3 // 4],
                         fill=(255, 255, 255, 230))
    return supersampled(side, side, draw)


def noise(seed, side, mode):
    rng = random.Random(seed)
    return Image.frombytes(mode, (side, side), rng.randbytes(side * side * len(mode)))


def grey16(width, height):
    image = Image.new("I;16", (width, height))
    image.putdata([(x * 65535 // (width - 1)) ^ (y * 7) for y in range(height) for x in range(width)])
    return image


def mix_sources():
    images = {f"chart-{n}": chart(n, 800, 600) for n in range(3)}
    images.update({f"chart-small-{n}": chart(10 + n, 400, 260) for n in range(3)})
    images.update({f"screenshot-{n}": screenshot_with_photo(n, 800, 600) for n in range(3)})
    images.update({f"icon-{n}": icon(n, side) for n, side in enumerate([16, 24, 32, 48, 64, 128])})
    images["noise-rgba"] = noise(1, 128, "RGBA")
    images["noise-rgb"] = noise(2, 256, "RGB")
    images["grey16"] = grey16(300, 40)
    return images


def run(arguments, **options):
    return subprocess.run(arguments, check=True, capture_output=True, **options)


def imagemagick():
    for path in ["/usr/bin/convert", "/usr/bin/convert-im6.q16", "/usr/local/bin/magick"]:
        if os.access(path, os.X_OK):
            version = subprocess.run([path, "-version"], capture_output=True, text=True).stdout
            if "ImageMagick" in version:
                return path
    return None


def write_mix(folder, convert):
    """The mix written by Pillow, ImageMagick and this package: one folder each."""
    sources = mix_sources()
    for writer in ["pillow", "imagemagick", "package"]:
        os.makedirs(os.path.join(folder, writer), exist_ok=True)
    for name, image in sources.items():
        image.save(os.path.join(folder, "pillow", name + ".png"))
        if convert:
            run([convert, os.path.join(folder, "pillow", name + ".png"),
                 os.path.join(folder, "imagemagick", name + ".png")])
    files = sorted(glob.glob(os.path.join(folder, "pillow", "*.png")))
    run([f"{RELEASE}/Benchmarks", "--encode-only", "--setting", "fast",
         "--write", os.path.join(folder, "package")]
        + [argument for path in files if "grey16" not in path for argument in ["--file", path]])
    if not convert:
        os.rmdir(os.path.join(folder, "imagemagick"))


def rgba(data):
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGBA").tobytes() if image.mode != "I;16" else image.tobytes()


def sizes(files, work):
    """Each file's size as written, compacted by compact-references, and by the peers."""
    copy = os.path.join(work, "compacted")
    shutil.rmtree(copy, ignore_errors=True)
    os.makedirs(copy)
    for index, path in enumerate(files):
        shutil.copyfile(path, os.path.join(copy, f"{index:04}.png"))
    start = time.perf_counter()
    run([f"{RELEASE}/compact-references", "--include-other-tools", copy])
    compact_seconds = time.perf_counter() - start
    rows = []
    zopfli_seconds = 0.0
    for index, path in enumerate(files):
        data = open(path, "rb").read()
        compacted = open(os.path.join(copy, f"{index:04}.png"), "rb").read()
        start = time.perf_counter()
        run(["zopflipng", "-y", path, os.path.join(work, "zopfli.png")])
        zopfli_seconds += time.perf_counter() - start
        zopfli = os.path.getsize(os.path.join(work, "zopfli.png"))
        buffer = io.BytesIO()
        Image.open(path).save(buffer, "PNG", optimize=True)
        oxi = len(oxipng.optimize_from_memory(data)) if oxipng else None
        rows.append(dict(path=path, written=len(data), compact=len(compacted), zopfli=zopfli,
                         pillow=len(buffer.getvalue()), oxipng=oxi,
                         compacted=os.path.join(copy, f"{index:04}.png")))
    return rows, compact_seconds, zopfli_seconds


def pixels_equal(rows, convert):
    """How many compacted files Pillow and ImageMagick read as the original's pixels."""
    pillow = magick = 0
    for row in rows:
        original = open(row["path"], "rb").read()
        compacted = open(row["compacted"], "rb").read()
        pillow += rgba(original) == rgba(compacted)
        if convert:
            read = lambda path: run([convert, path, "-depth", "8", "RGBA:-"]).stdout
            magick += read(row["path"]) == read(row["compacted"])
    return pillow, magick


def table(title, rows, compact_seconds, zopfli_seconds, convert):
    total = {key: sum(row[key] or 0 for row in rows)
             for key in ["written", "compact", "zopfli", "pillow", "oxipng"]}
    larger = [row["path"] for row in rows if row["compact"] > row["written"]]
    pillow_equal, magick_equal = pixels_equal(rows, convert)
    ratio = lambda key: f"{total['compact'] / total[key]:.3f}×" if total[key] else "—"
    print(f"{title}: {len(rows)} files")
    print(f"  as written        {total['written']:>10,} B   compact ÷ this {ratio('written')}")
    print(f"  compact-references{total['compact']:>10,} B   {compact_seconds:.2f} s")
    print(f"  zopflipng         {total['zopfli']:>10,} B   compact ÷ this {ratio('zopfli')}"
          f"   {zopfli_seconds:.2f} s")
    print(f"  Pillow optimize   {total['pillow']:>10,} B   compact ÷ this {ratio('pillow')}")
    if oxipng:
        print(f"  oxipng (level 2)  {total['oxipng']:>10,} B   compact ÷ this {ratio('oxipng')}")
    else:
        print("  oxipng            not installed (pip install pyoxipng)")
    print(f"  files larger than as written: {len(larger)}; pixels equal in Pillow "
          f"{pillow_equal}/{len(rows)}, ImageMagick "
          + (f"{magick_equal}/{len(rows)}" if convert else "not installed"))
    return total


def decode_times(files, work):
    """Decoding each file's pixels written `.fast` and `.compact`, through the package."""
    timings = {}
    for setting in ["fast", "compact"]:
        folder = os.path.join(work, "decode-" + setting)
        run([f"{RELEASE}/Benchmarks", "--encode-only", "--setting", setting, "--write", folder]
            + [argument for path in files for argument in ["--file", path]])
        for path in files:
            name = os.path.basename(path)
            output = run([f"{RELEASE}/Benchmarks", "--repetitions", "21", "--decode-file",
                          os.path.join(folder, name)], text=True).stdout
            now = re.search(r" now: ([0-9.]+) (ms|µs)", output)
            value = float(now.group(1)) / (1000 if now.group(2) == "µs" else 1)
            timings.setdefault(name, {})[setting] = value
    print("decode, ms (median of 21, this package's reader): .fast file → compact file")
    for name, timing in timings.items():
        print(f"  {name:28} {timing['fast']:.3f} → {timing['compact']:.3f}  "
              f"({timing['compact'] / timing['fast']:.2f}×)")


def main():
    work = sys.argv[1]
    convert = imagemagick()
    examples = sorted(glob.glob("Examples/ChartRenderer/Tests/**/*.png", recursive=True))
    print(f"load average {open('/proc/loadavg').read().split()[:3]}; photo: "
          f"{PHOTO[0] if PHOTO else 'none (screenshots without a photo)'}")
    rows, seconds, zopfli_seconds = sizes(examples, work)
    table("Example references (Examples/ChartRenderer)", rows, seconds, zopfli_seconds, convert)
    mix = os.path.join(work, "mix")
    shutil.rmtree(mix, ignore_errors=True)
    write_mix(mix, convert)
    everything = []
    for writer in sorted(os.listdir(mix)):
        files = sorted(glob.glob(os.path.join(mix, writer, "*.png")))
        rows, seconds, zopfli_seconds = sizes(files, work)
        table(f"Mix written by {writer}", rows, seconds, zopfli_seconds, convert)
        everything += files
    rows, seconds, zopfli_seconds = sizes(everything, work)
    table("Mix, all writers", rows, seconds, zopfli_seconds, convert)
    decode_times(examples[:3] + sorted(glob.glob(os.path.join(mix, "pillow", "*-0.png"))), work)


if __name__ == "__main__":
    main()
