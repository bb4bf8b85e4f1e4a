#!/usr/bin/env python3
"""Writes a review report folder shaped like `merge-refs --report DIR` output, for driving the
review page without merge-refs: the page files copied from Sources/ReferenceMerge/ReviewPage,
review-data.js (interface version 1) and a few PNGs that many cards share.

    make_review_data.py OUT_DIR [--cards N] [--page PAGE_DIR]

Of N cards: about 60% updated (half of them one identical change, a group), 25% added, and the
rest split between a size change, conflicts and orphans. Images are small drawn charts, encoded
here with zlib, so 10,000 cards cost a handful of files.
"""
import argparse
import json
import os
import shutil
import struct
import zlib

W, H = 320, 200


def png(width, height, pixels):
    """RGBA8 PNG bytes; `pixels` is a bytearray of width*height*4."""
    raw = bytearray()
    stride = width * 4
    for y in range(height):
        raw.append(0)
        raw += pixels[y * stride:(y + 1) * stride]

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b""))


def canvas(width, height, colour=(255, 255, 255, 255)):
    return bytearray(bytes(colour) * (width * height))


def fill(pixels, width, x, y, w, h, colour):
    row = bytes(colour) * w
    for yy in range(y, y + h):
        start = (yy * width + x) * 4
        pixels[start:start + w * 4] = row


def chart(width, heights, colour=(28, 126, 214, 255), accent=None):
    pixels = canvas(width, H)
    fill(pixels, width, 20, H - 20, width - 40, 2, (73, 80, 87, 255))  # axis
    for index, bar in enumerate(heights):
        x = 30 + index * 45
        fill(pixels, width, x, H - 20 - bar, 30, bar, accent if accent and index == 2 else colour)
    return pixels


def difference(width, before, after, before_width):
    """Faded after, changed pixels red: like ImageComparison's difference image."""
    out = canvas(width, H)
    changed = []
    for y in range(H):
        for x in range(width):
            i = (y * width + x) * 4
            a = after[i:i + 4]
            b = before[(y * before_width + x) * 4:(y * before_width + x) * 4 + 4] if x < before_width else None
            if b is not None and a == b:
                grey = 255 - (255 - (a[0] * 30 + a[1] * 59 + a[2] * 11) // 100) // 10
                out[i:i + 4] = bytes((grey, grey, grey, 255))
            else:
                out[i:i + 4] = bytes((255, 0, 0, 255))
                changed.append((x, y))
    return out, changed


def bounding(changed):
    if not changed:
        return []
    xs = [x for x, _ in changed]
    ys = [y for _, y in changed]
    return [[min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--cards", type=int, default=40)
    parser.add_argument("--page", default=os.path.join(
        os.path.dirname(__file__), "../../../../Sources/ReferenceMerge/ReviewPage"))
    arguments = parser.parse_args()
    out = arguments.out
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    for name in ("index.html", "review.css", "review.js"):
        shutil.copyfile(os.path.join(arguments.page, name), os.path.join(out, name))

    heights = [60, 120, 90, 150, 40, 110]
    base = chart(W, heights)
    grouped_after = chart(W, heights, accent=(240, 140, 0, 255))  # one bar recoloured
    taller = heights[:]
    taller[4] = 130
    single_after = chart(W, taller)
    wide_after = chart(W + 40, heights + [70])
    files = {}

    def save(name, width, pixels):
        with open(os.path.join(out, "images", name), "wb") as handle:
            handle.write(png(width, H, pixels))
        files[name] = {"src": "images/" + name, "width": width, "height": H}
        return files[name]

    save("before.png", W, base)
    save("after-group.png", W, grouped_after)
    save("after-single.png", W, single_after)
    save("after-wide.png", W + 40, wide_after)
    save("added.png", W, chart(W, [100, 30, 70, 20, 150, 90], colour=(43, 138, 62, 255)))
    save("rival.png", W, chart(W, [10, 20, 30, 40, 50, 60], colour=(201, 42, 42, 255)))
    regions = {}
    for name, after, width in (("group", grouped_after, W), ("single", single_after, W),
                               ("wide", wide_after, W + 40)):
        pixels, changed = difference(width, base, after, W)
        save(f"difference-{name}.png", width, pixels)
        regions[name] = (bounding(changed), len(changed))

    n = arguments.cards
    cards = []
    counts = {"added": 0, "updated": 0, "unchanged": 7, "conflict": 0, "orphan": 0, "skipped": 0}
    group_key = "a1" * 32 + "->" + "b2" * 32
    for index in range(n):
        kind = index % 20
        folder = f"Tests/ChartTests/__References__/Suite{index % 7}"
        card = {"id": index, "path": f"{folder}/chart-{index:05d}.png", "group": None,
                "before": None, "after": None, "difference": None, "changedPixels": None,
                "totalPixels": None, "maxChannelDifference": None, "regions": [],
                "meta": [f"from run-{index % 4}.zip (host pid {100 + index % 4}), written 2026-11-23T14:00:00Z"],
                "rivals": []}
        if kind < 6:
            name, outcome = "group", "updated"
        elif kind < 12:
            name, outcome = "single", "updated"
        elif kind == 12:
            name, outcome = "wide", "updated"
        elif kind < 18:
            name, outcome = None, "added"
        elif kind == 18:
            name, outcome = None, "conflict"
        else:
            name, outcome = None, "orphan"
        card["outcome"] = outcome
        counts[outcome] += 1
        if outcome == "updated":
            boxes, changed = regions[name]
            card["before"] = files["before.png"]
            card["after"] = files[{"group": "after-group.png", "single": "after-single.png",
                                   "wide": "after-wide.png"}[name]]
            card["difference"] = files[f"difference-{name}.png"]
            card["group"] = group_key if name == "group" else f"{index:064x}->{index + 1:064x}"
            card["regions"] = boxes
            card["changedPixels"] = changed
            card["totalPixels"] = card["difference"]["width"] * H
            card["maxChannelDifference"] = 214
            card["meta"].insert(0, f"{changed} pixels differ")
        elif outcome == "added":
            card["after"] = files["added.png"]
        elif outcome == "conflict":
            card["before"] = files["before.png"]
            card["rivals"] = [{"label": "run-1.zip (host pid 101)", "image": files["after-single.png"]},
                              {"label": "run-2.zip (host pid 102)", "image": files["rival.png"]}]
            card["meta"] = ["run-1.zip and run-2.zip wrote different pixels on the same day"]
        else:
            card["before"] = files["before.png"]
            card["meta"] = ["no complete run produced or verified this reference"]
        cards.append(card)

    report = {
        "version": 1,
        "id": f"generated-{n}",
        "destination": "/work/example package",
        "generatedAt": "2026-11-23T14:00:00Z",
        "decisionFile": "reference-decisions.txt",
        "command": ["merge-refs", "--include-from", "reference-decisions.txt",
                    "artifacts/run 0.zip", "artifacts/run-1.zip", "/work/example package"],
        "counts": counts,
        "sources": [{"name": f"run-{i}.zip", "images": n // 4, "worker": f"host pid {100 + i}",
                     "incomplete": None} for i in range(4)],
        "problems": [],
        "warnings": [],
        "cards": cards,
    }
    with open(os.path.join(out, "review-data.js"), "w", encoding="utf-8") as handle:
        handle.write("window.REFERENCE_REVIEW = ")
        json.dump(report, handle, separators=(",", ":"))
        handle.write(";\n")


if __name__ == "__main__":
    main()
