"""Times the PyPI `pixelmatch` package (the Python port, not the JavaScript original) on the
raw RGBA pair Scripts/benchmark keeps, for Scripts/benchmark --with-python-pixelmatch.

    python pixelmatch-python-port.py ACTUAL.rgba REFERENCE.rgba

It shows that the counts agree with ours; its speed is pure Python's, not pixelmatch's.
"""

import math
import sys
import time

from pixelmatch import pixelmatch


def main() -> None:
    with open(sys.argv[1], "rb") as file:
        actual = file.read()
    with open(sys.argv[2], "rb") as file:
        reference = file.read()
    side = math.isqrt(len(actual) // 4)
    times = []
    count = 0
    for _ in range(3):
        start = time.perf_counter()
        count = pixelmatch(actual, reference, side, side, None, threshold=0.1)
        times.append(time.perf_counter() - start)
    median = sorted(times)[1]
    print(
        f"  differing pixels {count}; median {median * 1000:.0f} ms, "
        f"{side * side / median / 1e6:.2f} Mpx/s (pure Python: not pixelmatch's JavaScript speed)"
    )


if __name__ == "__main__":
    main()
