"""The peers' side of `Benchmarks --decode-peers`: writes the images with other encoders and
times the decoders and comparers a user could pick instead of this package, from PyPI.

    python benchmark_decode_peers.py prepare DIR --photo JPEG
    python benchmark_decode_peers.py time DIR --repetitions N

`prepare` reads every NAME.rgba (with NAME.json holding width and height) in DIR, makes
photo.rgba from a JPEG resampled to the size of the others, and writes NAME.pillow.png (Pillow,
zlib level 6, adaptive filters), NAME.fpng.png (fpng) and NAME.magick.png (ImageMagick's
`convert`, when installed). `time` reads DIR/cases.json, written by the benchmark, and prints
one JSON object of median seconds. Dev-time only: the package never runs Python.
"""

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

# blazediff reads PNGs with its own codec only when asked.
os.environ["BLAZEDIFF_PNG_ENABLED"] = "1"

import blazediff  # noqa: E402
import fpng_py  # noqa: E402
import numpy  # noqa: E402
import pixelhog  # noqa: E402
import pyspng  # noqa: E402
from PIL import Image  # noqa: E402


def size_of(folder, name):
    with open(os.path.join(folder, name + ".json")) as handle:
        size = json.load(handle)
    return size["width"], size["height"]


def prepare(folder, photo):
    names = sorted(f[: -len(".rgba")] for f in os.listdir(folder) if f.endswith(".rgba"))
    width, height = size_of(folder, "screenshot")
    if photo and "photo" not in names:
        image = Image.open(photo).convert("RGBA").resize((width, height), Image.LANCZOS)
        with open(os.path.join(folder, "photo.rgba"), "wb") as handle:
            handle.write(image.tobytes())
        with open(os.path.join(folder, "photo.json"), "w") as handle:
            json.dump({"width": width, "height": height}, handle)
        names.append("photo")
    magick = shutil.which("convert")
    for name in names:
        width, height = size_of(folder, name)
        with open(os.path.join(folder, name + ".rgba"), "rb") as handle:
            raw = handle.read()
        image = Image.frombytes("RGBA", (width, height), raw)
        image.save(os.path.join(folder, name + ".pillow.png"), compress_level=6)
        with open(os.path.join(folder, name + ".fpng.png"), "wb") as handle:
            handle.write(fpng_py.fpng_encode_image_to_memory(raw, width, height, 4))
        if magick:
            subprocess.run(
                [magick, "-size", f"{width}x{height}", "-depth", "8",
                 "rgba:" + os.path.join(folder, name + ".rgba"),
                 os.path.join(folder, name + ".magick.png")],
                check=True)
    print(json.dumps({"photo": "photo" in names, "imagemagick": bool(magick)}))


def median_time(repetitions, body):
    body()
    samples = []
    for _ in range(repetitions):
        start = time.perf_counter()
        body()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def time_cases(folder, repetitions):
    with open(os.path.join(folder, "cases.json")) as handle:
        cases = json.load(handle)
    result = {"decode": {}, "pairs": {}}
    for name in cases["decode"]:
        data = read(os.path.join(folder, name))
        figures = {
            "pyspng": median_time(repetitions, lambda: pyspng.load(data)),
            "pillow": median_time(
                repetitions,
                lambda: numpy.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))),
        }
        if ".fpng." in name:
            figures["fpng"] = median_time(
                repetitions, lambda: fpng_py.fpng_decode_from_memory(data, 4))
        result["decode"][name] = figures
    for a, b in cases["pairs"]:
        path_a, path_b = os.path.join(folder, a), os.path.join(folder, b)

        def hog():
            return pixelhog.Comparison(read(path_a), read(path_b)).diff_count(threshold=0.1)

        def blaze():
            return blazediff.compare(path_a, path_b, None, threshold=0.1, antialiasing=True)

        result["pairs"][a + " " + b] = {
            "pixelhog": median_time(repetitions, hog),
            "pixelhog_count": hog(),
            "blazediff": median_time(repetitions, blaze),
            "blazediff_count": blaze().diff_count,
        }
    print(json.dumps(result))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["prepare", "time"])
    parser.add_argument("folder")
    parser.add_argument("--photo")
    parser.add_argument("--repetitions", type=int, default=5)
    arguments = parser.parse_args()
    if arguments.command == "prepare":
        prepare(arguments.folder, arguments.photo)
    else:
        time_cases(arguments.folder, arguments.repetitions)


if __name__ == "__main__":
    sys.exit(main())
