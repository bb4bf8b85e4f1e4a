#!/usr/bin/env python3
"""Regenerates the fixtures of ReferenceImageCoreTests. Dev-time only; the tests never run Python.

    pip install pypng Pillow pixelmatch
    python3 Tests/ReferenceImageCoreTests/__Fixtures__/generate.py

png/: PNG files written with pypng in every colour type, bit depth, palette, transparency and
interlacing, each with `<name>.rgba` holding the expected RGBA8 pixels. The expectation comes
from pypng's own reader (an independent decoder) turned into RGBA8 by the PNG specification's
rules: 16-bit samples keep their high byte, sub-8-bit grey is scaled by bit replication (1-bit 1
is 255, 2-bit 1 is 85), palette entries take their alpha from tRNS, and a grey or RGB sample
equal to the tRNS colour gets alpha 0 (its colour kept). png/manifest.json lists them.
Also malformed/ files that the decoder must reject.

perceptual/: image pairs and perceptual/expected.json with differing-pixel counts. Opaque pairs
are counted by the PyPI `pixelmatch` package (the oracle); translucent pairs by pixelmatch7.py,
a port of mapbox/pixelmatch 7.x that this script first checks against the PyPI package on every
opaque pair.
"""

import json
import os
import random
import struct
import sys
import zlib

import png  # pypng
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from pixelmatch import pixelmatch as pypi_pixelmatch

sys.dont_write_bytecode = True  # keep __pycache__ out of the fixtures
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pixelmatch7  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PNG_DIR = os.path.join(HERE, "png")
MALFORMED_DIR = os.path.join(HERE, "malformed")
PERCEPTUAL_DIR = os.path.join(HERE, "perceptual")


# ---------------------------------------------------------------------------------------------
# Decoding fixtures


def samples(rng, count, bitdepth):
    top = (1 << bitdepth) - 1
    # Always include the extremes so scaling of 0 and the maximum is exercised.
    values = [0, top] + [rng.randint(0, top) for _ in range(max(count - 2, 0))]
    return values[:count]


def write_png(name, width, height, rows, **options):
    path = os.path.join(PNG_DIR, name + ".png")
    with open(path, "wb") as file:
        png.Writer(width, height, **options).write(file, rows)
    return path


def expected_rgba(path):
    """Decodes with pypng and applies the specification's conversion to RGBA8 by hand."""
    reader = png.Reader(filename=path)
    width, height, rows, info = reader.read()
    bitdepth = info["bitdepth"]
    planes = info["planes"]
    palette = info.get("palette")
    transparent = info.get("transparent")
    if isinstance(transparent, int):
        transparent = (transparent,)
    top = (1 << bitdepth) - 1

    def to8(value):
        if bitdepth == 16:
            return value >> 8
        if bitdepth == 8:
            return value
        return value * 255 // top  # equals bit replication for 1, 2 and 4 bits

    out = bytearray()
    for row in rows:
        row = list(row)
        assert len(row) == width * planes
        for x in range(width):
            pixel = row[x * planes:(x + 1) * planes]
            if palette is not None:
                entry = palette[pixel[0]]
                out += bytes(entry[:3]) + bytes([entry[3] if len(entry) == 4 else 255])
                continue
            if planes in (1, 2):
                grey = to8(pixel[0])
                alpha = to8(pixel[1]) if planes == 2 else 255
                if planes == 1 and transparent is not None and tuple(pixel) == transparent:
                    alpha = 0
                out += bytes([grey, grey, grey, alpha])
            else:
                rgb = [to8(v) for v in pixel[:3]]
                alpha = to8(pixel[3]) if planes == 4 else 255
                if planes == 3 and transparent is not None and tuple(pixel) == transparent:
                    alpha = 0
                out += bytes(rgb + [alpha])
    assert len(out) == width * height * 4
    return bytes(out)


def make_decoding_fixtures():
    os.makedirs(PNG_DIR, exist_ok=True)
    rng = random.Random(20240611)
    manifest = []

    def add(name, width, height, planes, bitdepth, note, transparent=None, palette=None,
            interlace=False, alpha=False, greyscale=False):
        rows = [samples(rng, width * planes, bitdepth) for _ in range(height)]
        if palette is not None:
            rows = [[v % len(palette) for v in row] for row in rows]
            rows[0][0] = 0  # make sure entry 0 (the transparent one when tRNS) is used
        if transparent is not None:
            # Put the transparent colour in the image, several times.
            for y in range(0, height, 2):
                x = (y * 3) % width
                rows[y][x * planes:(x + 1) * planes] = (
                    [transparent] if isinstance(transparent, int) else list(transparent))
        options = dict(bitdepth=bitdepth, interlace=interlace)
        if palette is not None:
            options["palette"] = palette
        else:
            options["greyscale"] = greyscale
            options["alpha"] = alpha
        if transparent is not None:
            options["transparent"] = transparent
        path = write_png(name, width, height, rows, **options)
        # Sanity: pypng reads back exactly what it was given.
        _, _, back, _ = png.Reader(filename=path).read()
        assert [list(r) for r in back] == rows, name
        with open(os.path.join(PNG_DIR, name + ".rgba"), "wb") as file:
            file.write(expected_rgba(path))
        manifest.append({"name": name, "width": width, "height": height, "note": note})

    for depth in (1, 2, 4, 8, 16):
        add(f"grey{depth}_7x5", 7, 5, 1, depth, f"greyscale {depth}-bit", greyscale=True)
    add("grey1_33x17", 33, 17, 1, 1, "greyscale 1-bit, width not a multiple of 8",
        greyscale=True)
    add("grey8_1x1", 1, 1, 1, 8, "greyscale 8-bit, one pixel", greyscale=True)
    add("greyalpha8_7x5", 7, 5, 2, 8, "greyscale+alpha 8-bit", greyscale=True, alpha=True)
    add("greyalpha16_7x5", 7, 5, 2, 16, "greyscale+alpha 16-bit", greyscale=True, alpha=True)
    add("rgb8_33x17", 33, 17, 3, 8, "RGB 8-bit")
    add("rgb16_7x5", 7, 5, 3, 16, "RGB 16-bit")
    add("rgb8_1x1", 1, 1, 3, 8, "RGB 8-bit, one pixel")
    add("rgba8_33x17", 33, 17, 4, 8, "RGBA 8-bit", alpha=True)
    add("rgba16_7x5", 7, 5, 4, 16, "RGBA 16-bit", alpha=True)
    add("rgba8_1x1", 1, 1, 4, 8, "RGBA 8-bit, one pixel", alpha=True)

    def palette_of(count, translucent):
        entries = []
        for index in range(count):
            rgb = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
            if translucent:
                alpha = 0 if index == 0 else (128 if index == 1 else rng.randrange(256))
                entries.append(rgb + (alpha,))
            else:
                entries.append(rgb)
        return entries

    for depth in (1, 2, 4, 8):
        count = min(1 << depth, 200)
        add(f"palette{depth}_7x5", 7, 5, 1, depth, f"palette {depth}-bit",
            palette=palette_of(count, False))
    add("palette8_trns_33x17", 33, 17, 1, 8, "palette 8-bit with tRNS (alpha 0, 128, others)",
        palette=palette_of(40, True))
    add("palette2_trns_7x5", 7, 5, 1, 2, "palette 2-bit with tRNS",
        palette=palette_of(4, True))
    add("palette4_short_7x5", 7, 5, 1, 4, "palette 4-bit with only 5 entries",
        palette=palette_of(5, False))
    add("grey8_trns_7x5", 7, 5, 1, 8, "greyscale 8-bit with tRNS", greyscale=True,
        transparent=77)
    add("grey2_trns_7x5", 7, 5, 1, 2, "greyscale 2-bit with tRNS", greyscale=True,
        transparent=1)
    add("grey16_trns_7x5", 7, 5, 1, 16, "greyscale 16-bit with tRNS", greyscale=True,
        transparent=40000)
    add("rgb8_trns_7x5", 7, 5, 3, 8, "RGB 8-bit with tRNS", transparent=(10, 200, 30))
    add("rgb16_trns_7x5", 7, 5, 3, 16, "RGB 16-bit with tRNS",
        transparent=(1000, 50000, 65535))

    add("adam7_grey1_33x17", 33, 17, 1, 1, "Adam7 greyscale 1-bit", greyscale=True,
        interlace=True)
    add("adam7_grey16_7x5", 7, 5, 1, 16, "Adam7 greyscale 16-bit", greyscale=True,
        interlace=True)
    add("adam7_greyalpha8_7x5", 7, 5, 2, 8, "Adam7 greyscale+alpha 8-bit", greyscale=True,
        alpha=True, interlace=True)
    add("adam7_rgb8_33x17", 33, 17, 3, 8, "Adam7 RGB 8-bit", interlace=True)
    add("adam7_rgba16_7x5", 7, 5, 4, 16, "Adam7 RGBA 16-bit", alpha=True, interlace=True)
    add("adam7_palette4_33x17", 33, 17, 1, 4, "Adam7 palette 4-bit",
        palette=palette_of(16, False), interlace=True)
    add("adam7_palette8_trns_7x5", 7, 5, 1, 8, "Adam7 palette 8-bit with tRNS",
        palette=palette_of(12, True), interlace=True)
    add("adam7_rgb8_trns_7x5", 7, 5, 3, 8, "Adam7 RGB 8-bit with tRNS",
        transparent=(0, 0, 0), interlace=True)
    add("adam7_rgba8_1x1", 1, 1, 4, 8, "Adam7 RGBA 8-bit, one pixel (six empty passes)",
        alpha=True, interlace=True)
    add("adam7_grey8_2x3", 2, 3, 1, 8, "Adam7 greyscale 8-bit, smaller than a block",
        greyscale=True, interlace=True)

    with open(os.path.join(PNG_DIR, "manifest.json"), "w") as file:
        json.dump(manifest, file, indent=1)
        file.write("\n")


# ---------------------------------------------------------------------------------------------
# Malformed and hostile files


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


SIGNATURE = b"\x89PNG\r\n\x1a\n"


def ihdr(width, height, depth, colour, interlace=0):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace))


def make_malformed_fixtures():
    os.makedirs(MALFORMED_DIR, exist_ok=True)

    def save(name, data):
        with open(os.path.join(MALFORMED_DIR, name), "wb") as file:
            file.write(data)

    # A header declaring 100000 x 100000 RGBA pixels (40 GB decoded), valid CRCs, tiny IDAT.
    save("huge_dimensions.png",
         SIGNATURE + ihdr(100000, 100000, 8, 6) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
         + chunk(b"IEND", b""))
    # A 3000 x 3000 greyscale image of zeros: a few kilobytes that inflate to 9 MB of samples
    # (36 MB as RGBA8). Valid, but beyond a small custom limit.
    raw = b"".join(b"\0" + b"\0" * 3000 for _ in range(3000))
    save("inflates_large.png",
         SIGNATURE + ihdr(3000, 3000, 8, 0) + chunk(b"IDAT", zlib.compress(raw, 9))
         + chunk(b"IEND", b""))
    # A 4 x 4 image whose zTXt chunk inflates to 8 MB of text.
    tiny = b"".join(b"\0" + b"\x80" * 4 for _ in range(4))
    bomb = b"Comment\0\0" + zlib.compress(b"A" * (8 << 20), 9)
    save("ztxt_bomb.png",
         SIGNATURE + ihdr(4, 4, 8, 0) + chunk(b"zTXt", bomb) + chunk(b"IDAT", zlib.compress(tiny))
         + chunk(b"IEND", b""))
    # An IDAT stream that inflates to too few bytes for the declared size.
    short = b"".join(b"\0" + b"\x80" * 4 for _ in range(2))
    save("short_idat.png",
         SIGNATURE + ihdr(4, 4, 8, 0) + chunk(b"IDAT", zlib.compress(short)) + chunk(b"IEND", b""))
    # An invalid bit depth for the colour type (RGB at 4 bits).
    save("bad_bit_depth.png",
         SIGNATURE + ihdr(4, 4, 4, 2) + chunk(b"IDAT", zlib.compress(b"\0" * 40))
         + chunk(b"IEND", b""))
    # A palette image without a PLTE chunk.
    save("missing_plte.png",
         SIGNATURE + ihdr(4, 4, 8, 3) + chunk(b"IDAT", zlib.compress(b"\0" * 20))
         + chunk(b"IEND", b""))
    # A zero width.
    save("zero_width.png",
         SIGNATURE + ihdr(0, 4, 8, 0) + chunk(b"IDAT", zlib.compress(b"\0" * 4))
         + chunk(b"IEND", b""))
    # Random bytes after a valid signature.
    rng = random.Random(7)
    save("random_after_signature.png", SIGNATURE + bytes(rng.randrange(256) for _ in range(300)))


# ---------------------------------------------------------------------------------------------
# Perceptual pairs


def supersampled(width, height, draw_function, scale=4, background=(255, 255, 255, 255)):
    """Draws at `scale` times the size and downsamples: genuinely anti-aliased edges."""
    big = Image.new("RGBA", (width * scale, height * scale), background)
    draw_function(ImageDraw.Draw(big), scale)
    return big.resize((width, height), Image.Resampling.BOX)


def make_perceptual_pairs():
    os.makedirs(PERCEPTUAL_DIR, exist_ok=True)
    rng = random.Random(99)
    pairs = []  # (name, image A, image B, translucent)
    width, height = 64, 48

    def circle(offset, colour=(30, 60, 200, 255)):
        def draw(d, s):
            d.ellipse([(12 * s + offset, 8 * s + offset), (52 * s + offset, 40 * s)], fill=colour)
        return draw

    # The same anti-aliased circle, moved by a quarter pixel: almost all differences are AA.
    pairs.append(("aa_circle_shift", supersampled(width, height, circle(0)),
                  supersampled(width, height, circle(1)), False))
    # Anti-aliased circle in another colour: real differences inside, AA on the edge.
    pairs.append(("aa_circle_recolour", supersampled(width, height, circle(0)),
                  supersampled(width, height, circle(0, (200, 60, 30, 255))), False))

    # Text-like edges: FreeType anti-aliased text, then the same text half a pixel lower
    # (supersampled), and a different word.
    font = ImageFont.load_default(size=13 * 4)

    def text(words, dy):
        def draw(d, s):
            d.text((2 * s, 10 * s + dy), words, fill=(20, 20, 20, 255), font=font)
        return draw

    pairs.append(("text_subpixel", supersampled(width, height, text("Ag 42", 0)),
                  supersampled(width, height, text("Ag 42", 2)), False))
    pairs.append(("text_changed", supersampled(width, height, text("Ag 42", 0)),
                  supersampled(width, height, text("Ag 47", 0)), False))

    # Noise of several amplitudes over a gradient.
    base = Image.new("RGBA", (width, height))
    base.putdata([(x * 4, y * 5, (x + y) * 2, 255) for y in range(height) for x in range(width)])
    noisy = base.copy()
    noisy.putdata([
        tuple(min(255, max(0, c + rng.randint(-a, a))) for c in p[:3]) + (255,)
        for p, a in zip(zip(*[iter(base.tobytes())] * 4), [rng.choice((2, 8, 20, 60)) for _ in range(width * height)])
    ])
    pairs.append(("noise", base, noisy, False))

    # One-pixel lines shifted by one pixel (aliased: no AA tolerance possible on flat lines).
    def lines(shift):
        image = Image.new("RGBA", (width, height), (240, 240, 240, 255))
        d = ImageDraw.Draw(image)
        for x in range(4, width, 9):
            d.line([(x + shift, 2), (x + shift, height - 3)], fill=(0, 0, 0, 255))
        d.line([(0, 20 + shift), (width - 1, 20 + shift)], fill=(200, 0, 0, 255))
        return image

    pairs.append(("lines_shift", lines(0), lines(1), False))

    # Blurred (anti-aliased) diagonal lines shifted by one pixel.
    def soft_lines(shift):
        return lines(shift).filter(ImageFilter.GaussianBlur(0.7))

    pairs.append(("soft_lines_shift", soft_lines(0), soft_lines(1), False))

    # Flat blocks with colour shifts of graded size, around the 0.05 / 0.1 / 0.3 thresholds.
    def blocks(shifted):
        image = Image.new("RGBA", (width, height), (128, 128, 128, 255))
        d = ImageDraw.Draw(image)
        steps = [1, 2, 3, 5, 8, 12, 18, 25, 35, 50, 70, 100]
        for index, step in enumerate(steps):
            x = (index % 6) * 10 + 2
            y = (index // 6) * 20 + 4
            for channel in range(3):
                colour = [128, 128, 128, 255]
                if shifted:
                    colour[channel] += step if index % 2 else -step
                d.rectangle([(x, y + channel * 5), (x + 7, y + channel * 5 + 3)],
                            fill=tuple(colour))
        return image

    pairs.append(("colour_steps", blocks(False), blocks(True), False))

    # Translucent pairs: alpha changes, colour changes under alpha, and AA over transparency.
    def translucent_circle(alpha, colour=(30, 60, 200)):
        return supersampled(width, height, circle(0, colour + (alpha,)),
                            background=(0, 0, 0, 0))

    pairs.append(("translucent_alpha_change", translucent_circle(160), translucent_circle(120),
                  True))
    pairs.append(("translucent_recolour", translucent_circle(128),
                  translucent_circle(128, (60, 90, 170)), True))
    fade_a = Image.new("RGBA", (width, height))
    fade_a.putdata([(200, 100, 50, (x * 4) % 256) for y in range(height) for x in range(width)])
    fade_b = Image.new("RGBA", (width, height))
    fade_b.putdata([
        (200, 100, 50, min(255, (x * 4) % 256 + rng.randint(0, 40)))
        for y in range(height) for x in range(width)
    ])
    pairs.append(("translucent_fade_noise", fade_a, fade_b, True))
    clear_a = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    clear_b = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    clear_b.putdata([
        (255, 255, 255, 0) if (x + y) % 3 else (0, 0, 0, 0)
        for y in range(height) for x in range(width)
    ])
    pairs.append(("translucent_invisible_colour", clear_a, clear_b, True))

    thresholds = [0, 0.05, 0.1, 0.3]
    expected = []
    for name, a, b, translucent in pairs:
        a.save(os.path.join(PERCEPTUAL_DIR, name + "_a.png"))
        b.save(os.path.join(PERCEPTUAL_DIR, name + "_b.png"))
        data_a = list(a.tobytes())
        data_b = list(b.tobytes())
        assert translucent or all(v == 255 for v in data_a[3::4] + data_b[3::4]), name
        for threshold in thresholds:
            for include_aa in (False, True):
                port = pixelmatch7.pixelmatch(data_a, data_b, width, height, threshold, include_aa)
                oracle = "pixelmatch7.py"
                if not translucent:
                    pypi = pypi_pixelmatch(data_a, data_b, width, height, threshold=threshold,
                                           includeAA=include_aa)
                    assert pypi == port, (name, threshold, include_aa, pypi, port)
                    oracle = "pixelmatch (PyPI)"
                expected.append({
                    "pair": name, "threshold": threshold, "includeAntiAliasing": include_aa,
                    "differingPixels": port, "oracle": oracle,
                })
                print(f"{name:30} t={threshold:<5} includeAA={include_aa!s:5} -> {port}")

    with open(os.path.join(PERCEPTUAL_DIR, "expected.json"), "w") as file:
        json.dump(expected, file, indent=1)
        file.write("\n")


if __name__ == "__main__":
    make_decoding_fixtures()
    make_malformed_fixtures()
    make_perceptual_pairs()
