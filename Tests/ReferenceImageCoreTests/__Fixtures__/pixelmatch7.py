"""A small Python port of mapbox/pixelmatch 7.x (index.js), for producing expected counts.

Dev-time only: the Swift tests never run Python. This port exists because the `pixelmatch`
package on PyPI follows an older pixelmatch that blends translucent pixels with white, while 7.x
blends them over a checkerboard and returns a signed delta. For opaque images the two agree;
generate.py checks that this port gives exactly the PyPI package's counts on every opaque pair
before it trusts the port for the translucent ones.
"""


def color_delta(img1, img2, k, m, y_only=False):
    r1, g1, b1, a1 = img1[k], img1[k + 1], img1[k + 2], img1[k + 3]
    r2, g2, b2, a2 = img2[m], img2[m + 1], img2[m + 2], img2[m + 3]
    dr = r1 - r2
    dg = g1 - g2
    db = b1 - b2
    da = a1 - a2
    if not dr and not dg and not db and not da:
        return 0
    if a1 < 255 or a2 < 255:
        # 7.x: blend over a checkerboard picked by the byte offset k (JS `x | 0` truncates).
        rb = 48 + 159 * (k % 2)
        gb = 48 + 159 * (int(k / 1.618033988749895) % 2)
        bb = 48 + 159 * (int(k / 2.618033988749895) % 2)
        dr = (r1 * a1 - r2 * a2 - rb * da) / 255
        dg = (g1 * a1 - g2 * a2 - gb * da) / 255
        db = (b1 * a1 - b2 * a2 - bb * da) / 255
    y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
    if y_only:
        return y
    i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189
    q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694
    delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    return -delta if y > 0 else delta


def word(img, index):
    return tuple(img[index * 4:index * 4 + 4])


def has_many_siblings(img, x1, y1, width, height):
    x0 = max(x1 - 1, 0)
    y0 = max(y1 - 1, 0)
    x2 = min(x1 + 1, width - 1)
    y2 = min(y1 + 1, height - 1)
    value = word(img, y1 * width + x1)
    zeroes = 1 if (x1 == x0 or x1 == x2 or y1 == y0 or y1 == y2) else 0
    for x in range(x0, x2 + 1):
        for y in range(y0, y2 + 1):
            if x == x1 and y == y1:
                continue
            if value == word(img, y * width + x):
                zeroes += 1
            if zeroes > 2:
                return True
    return False


def antialiased(img, x1, y1, width, height, a32, b32):
    x0 = max(x1 - 1, 0)
    y0 = max(y1 - 1, 0)
    x2 = min(x1 + 1, width - 1)
    y2 = min(y1 + 1, height - 1)
    pos = y1 * width + x1
    zeroes = 1 if (x1 == x0 or x1 == x2 or y1 == y0 or y1 == y2) else 0
    lo = hi = 0
    min_x = min_y = max_x = max_y = 0
    for x in range(x0, x2 + 1):  # x outer, y inner, as in 7.x
        for y in range(y0, y2 + 1):
            if x == x1 and y == y1:
                continue
            delta = color_delta(img, img, pos * 4, (y * width + x) * 4, True)
            if delta == 0:
                zeroes += 1
                if zeroes > 2:
                    return False
            elif delta < lo:
                lo, min_x, min_y = delta, x, y
            elif delta > hi:
                hi, max_x, max_y = delta, x, y
    if lo == 0 or hi == 0:
        return False
    return (
        has_many_siblings(a32, min_x, min_y, width, height)
        and has_many_siblings(b32, min_x, min_y, width, height)
    ) or (
        has_many_siblings(a32, max_x, max_y, width, height)
        and has_many_siblings(b32, max_x, max_y, width, height)
    )


def pixelmatch(img1, img2, width, height, threshold=0.1, include_aa=False):
    """Returns the number of differing pixels, as 7.x's pixelmatch() does."""
    assert len(img1) == len(img2) == width * height * 4
    if bytes(img1) == bytes(img2):
        return 0
    max_delta = 35215 * threshold * threshold
    diff = 0
    for y in range(height):
        for x in range(width):
            i = y * width + x
            pos = i * 4
            delta = 0 if word(img1, i) == word(img2, i) else color_delta(img1, img2, pos, pos)
            if abs(delta) > max_delta:
                if not include_aa and (
                    antialiased(img1, x, y, width, height, img1, img2)
                    or antialiased(img2, x, y, width, height, img2, img1)
                ):
                    continue
                diff += 1
    return diff
