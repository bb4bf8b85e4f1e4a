#!/usr/bin/env python3
"""Writes the hostile and broken archives the merge tests feed to merge-refs.

The zips are committed beside this script, so the tests need neither Python nor network; rerun
it (plain python3, standard library only) after changing a case:

    python3 Tests/ReferenceMergeTests/__Fixtures__/make_hostile_archives.py

Output is deterministic (fixed time stamps, no randomness).
"""

import io
import os
import struct
import zipfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "hostile")
FOLDER = "Tests/Hostile/__References__"
STAMP = (2024, 1, 2, 3, 4, 6)


def png(width, height, shade):
    """A valid 8-bit RGBA PNG filled with one colour."""
    row = b"\x00" + bytes((shade, 255 - shade, 40, 255)) * width
    raw = row * height

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


GOOD = png(6, 4, 10)
OTHER = png(6, 4, 200)


def info(name, unix_mode=0o100644, compress=zipfile.ZIP_STORED):
    entry = zipfile.ZipInfo(name, date_time=STAMP)
    entry.create_system = 3  # Unix, so external_attr carries a file type
    entry.external_attr = unix_mode << 16
    entry.compress_type = compress
    return entry


def archive(entries):
    """A zip of (ZipInfo, bytes) pairs; duplicates and odd names are kept as given."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zip_file:
        for entry, data in entries:
            zip_file.writestr(entry, data)
    return buffer.getvalue()


def save(name, data):
    with open(os.path.join(OUT, name), "wb") as file:
        file.write(data)


def good_first(*rest):
    """Every hostile archive starts with a valid image, so a refusal must drop it too."""
    return archive([(info(f"{FOLDER}/good.png"), GOOD)] + list(rest))


def patch_sizes(data, name, size):
    """Rewrites the uncompressed size of `name` in its local header and central record."""
    encoded = name.encode()
    result = bytearray(data)
    local = result.find(b"PK\x03\x04")
    while local >= 0:
        name_length = struct.unpack_from("<H", result, local + 26)[0]
        if result[local + 30:local + 30 + name_length] == encoded:
            struct.pack_into("<I", result, local + 22, size)
        local = result.find(b"PK\x03\x04", local + 4)
    central = result.find(b"PK\x01\x02")
    while central >= 0:
        name_length = struct.unpack_from("<H", result, central + 28)[0]
        if result[central + 46:central + 46 + name_length] == encoded:
            struct.pack_into("<I", result, central + 24, size)
        central = result.find(b"PK\x01\x02", central + 4)
    return bytes(result)


def main():
    os.makedirs(OUT, exist_ok=True)
    save("traversal.zip", good_first((info("../escaped.png"), OTHER)))
    save("traversal-inner.zip", good_first((info("a/../../escaped.png"), OTHER)))
    save("absolute.zip", good_first((info("/tmp/refimg-hostile-escaped.png"), OTHER)))
    save("symlink.zip",
         good_first((info(f"{FOLDER}/link.png", unix_mode=0o120777), b"../../../../etc/passwd")))
    save("duplicate.zip", good_first((info(f"{FOLDER}/good.png"), OTHER)))
    save("not-png.zip", good_first((info(f"{FOLDER}/notes.txt"), b"not an image\n")))
    # A PNG signature and a plausible start, then garbage: only decoding can tell.
    broken = GOOD[:40] + bytes(range(256)) * 2
    save("invalid-png.zip", good_first((info(f"{FOLDER}/broken.png"), broken)))

    whole = archive([(info(f"{FOLDER}/good.png"), GOOD), (info(f"{FOLDER}/other.png"), OTHER)])
    save("truncated.zip", whole[:len(whole) * 6 // 10])
    # Flip one byte of the second stored PNG's data: the zip CRC no longer matches.
    corrupt = bytearray(whole)
    position = corrupt.rfind(OTHER[:16]) + 40
    corrupt[position] ^= 0xFF
    save("bad-crc.zip", bytes(corrupt))

    # A stored entry that claims to be 4 GiB: refused from its header, before reading.
    save("bomb-declared.zip",
         patch_sizes(good_first((info(f"{FOLDER}/bomb.png"), OTHER)), f"{FOLDER}/bomb.png",
                     0xFFFFFFF0))
    # 48 MiB of zeros deflated to about 48 KB: a compression ratio near 1000.
    save("bomb-deflated.zip",
         good_first((info(f"{FOLDER}/bomb.png", compress=zipfile.ZIP_DEFLATED),
                     b"\x89PNG\r\n\x1a\n" + bytes(48 << 20))))

    # A CI artifact download: a zip holding per-worker zips, one of them hostile.
    inner_good = archive([(info("Tests/Nested/__References__/fine.png"), GOOD)])
    inner_evil = good_first((info("../../escaped.png"), OTHER))
    save("nested-hostile.zip",
         archive([(info("artifacts/worker-1.zip"), inner_good),
                  (info("artifacts/worker-2.zip"), inner_evil)]))


if __name__ == "__main__":
    main()
