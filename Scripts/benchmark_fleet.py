"""The fleet benchmark: a generated package whose tests render many icons, generated in many
shards by the real `reference-shards run`, then merged by `merge-refs --require-shards
--require-complete` into an empty, built package (a `.build` folder, where the digest cache
lives), as a CI fleet would.

    benchmark_fleet.py MERGE_REFS REFERENCE_SHARDS REPOSITORY WORK [--tests T] [--icons K]
                       [--shards S] [--scales 1,10]

For each scale N the package has N*T test methods of K icons each (16 x 16, distinct pixels),
split into S shards. Measured with /usr/bin/time -v, stdout to a file as in a CI log:
  - first merge: CPU (user+sys), peak memory, lines and bytes printed;
  - the up-to-date rerun: the same;
  - a tenth of the references changed in the package (each overwritten with its neighbour's
    bytes), merged again: the same, and the count of updates it reports;
  - every reference but the last changed the same way, merged again: the same (the hard case:
    every file hashed, decoded and replaced);
  - one listed archive deleted from one shard: exit status, CPU and wall time until the
    refusal, lines printed.
The table ends with each figure's ratio to the smallest scale's. The generated package and
its shard folders are kept under WORK (a rerun reuses them).
"""
import argparse
import atexit
import os
import re
import shutil
import subprocess
import sys
import time

TESTS_PER_FILE = 50


# Timed runs never follow a large deletion. On ext4 without a journal (this machine's disk),
# creating a file skips every inode of its block group deleted in the last 60-360 s, one
# buffer lookup each (`recently_deleted` in the kernel's `find_inode_bit`, seen with `perf
# record -g`): a merge run right after `rm -rf` of the last run's 50,000 files paid several
# times its system time, and more at each scale. Old trees are renamed into a trash folder and
# deleted when the benchmark ends.
_trash = []


def set_aside(path):
    """Moves a tree out of the way without deleting it (see above); gone at exit."""
    if not os.path.lexists(path):
        return
    trash = os.path.join(os.path.dirname(os.path.abspath(path)), ".trash")
    os.makedirs(trash, exist_ok=True)
    target = os.path.join(trash, f"{os.path.basename(path)}-{os.getpid()}-{len(_trash)}")
    os.rename(path, target)
    _trash.append(target)


def _empty_trash():
    for path in _trash:
        shutil.rmtree(path, ignore_errors=True)


atexit.register(_empty_trash)


def package_swift(repository):
    return f"""// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Fleet",
  platforms: [.macOS(.v13)],
  dependencies: [.package(name: "ReferenceImages", path: "{repository}")],
  targets: [
    .testTarget(
      name: "FleetTests",
      dependencies: [.product(name: "ReferenceImageTesting", package: "ReferenceImages")],
      exclude: ["__References__"])
  ]
)
"""


HELPER = """import ReferenceImageCore
import ReferenceImageTesting
import XCTest

/// A 16 x 16 icon whose pixels only (test, icon) decide.
func icon(_ test: Int, _ index: Int) throws -> RGBAImage {
  var state = UInt64(test &* 7919 &+ index &* 104_729 &+ 1) &* 0x9E37_79B9_7F4A_7C15
  var pixels = [UInt8](repeating: 255, count: 16 * 16 * 4)
  for byte in pixels.indices where byte % 4 != 3 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    pixels[byte] = UInt8(truncatingIfNeeded: state)
  }
  return try RGBAImage(width: 16, height: 16, pixels: pixels)
}

extension XCTestCase {
  /// Each icon is a reference of its own, in the calling test file's folder.
  func assertIcons(
    _ test: Int, count: Int, fileID: String = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    for index in 0..<count {
      assertImage(
        try icon(test, index), named: "test\\(test)-icon\\(index)", fileID: fileID,
        filePath: filePath, line: line)
    }
  }
}
"""


def test_file(number, first, count, icons):
    methods = "\n".join(
        f"  func testIcons{t}() throws {{ try assertIcons({t}, count: {icons}) }}"
        for t in range(first, first + count))
    return f"import XCTest\n\nfinal class Fleet{number}Tests: XCTestCase {{\n{methods}\n}}\n"


def write_package(folder, repository, tests, icons):
    marker = os.path.join(folder, ".generated")
    if os.path.exists(marker) and open(marker).read() == f"{tests} {icons}":
        return
    sources = os.path.join(folder, "Tests", "FleetTests")
    shutil.rmtree(sources, ignore_errors=True)
    os.makedirs(os.path.join(sources, "__References__"))
    open(os.path.join(folder, "Package.swift"), "w").write(package_swift(repository))
    open(os.path.join(sources, "Icons.swift"), "w").write(HELPER)
    for number, first in enumerate(range(0, tests, TESTS_PER_FILE)):
        count = min(TESTS_PER_FILE, tests - first)
        open(os.path.join(sources, f"Fleet{number}Tests.swift"), "w").write(
            test_file(number, first, count, icons))
    open(marker, "w").write(f"{tests} {icons}")


def generate_shards(folder, package, scratch, reference_shards, shards):
    done = os.path.join(folder, "shards", ".done")
    if os.path.exists(done) and open(done).read() == str(shards):
        return
    shutil.rmtree(os.path.join(folder, "shards"), ignore_errors=True)
    print(f"== building the fleet package in {package}", file=sys.stderr)
    subprocess.run(["swift", "build", "--build-tests", "--scratch-path", scratch], cwd=package,
                   check=True, stdout=subprocess.DEVNULL)
    environment = dict(os.environ, IMAGE_GENERATION_MODE="all")
    for index in range(shards):
        print(f"== reference-shards run --index {index} --count {shards}", file=sys.stderr)
        output = os.path.join(folder, "shards", f"shard-{index}")
        subprocess.run(
            [reference_shards, "run", "--index", str(index), "--count", str(shards),
             "--output", output, "--commit", "benchmark", "--scratch-path", scratch],
            cwd=package, env=environment, check=True, stdout=subprocess.DEVNULL)
    open(done, "w").write(str(shards))


def timed(command, log):
    """Runs under /usr/bin/time -v: (status, cpu seconds, wall seconds, peak MB, lines, bytes,
    user cpu seconds). System time on a loaded disk varies several-fold between runs of one
    binary (file creation waits in the kernel), so user time is printed apart as well."""
    with open(log, "wb") as out:
        started = time.monotonic()
        result = subprocess.run(["/usr/bin/time", "-v"] + command, stdout=out,
                                stderr=subprocess.PIPE)
        wall = time.monotonic() - started
    report = result.stderr.decode(errors="replace")

    def field(name):
        return float(re.search(re.escape(name) + r":\s*([\d.]+)", report).group(1))

    user = field("User time (seconds)")
    cpu = user + field("System time (seconds)")
    peak = field("Maximum resident set size (kbytes)") / 1024
    text = open(log, "rb").read()
    return result.returncode, cpu, wall, peak, text.count(b"\n"), len(text), user


def measure(folder, merge_refs):
    shards_folder = os.path.join(folder, "shards")
    shards = sorted(
        os.path.join(shards_folder, name) for name in os.listdir(shards_folder)
        if name.startswith("shard-"))
    destination = os.path.join(folder, "destination")
    set_aside(destination)
    # A built package, as `swift run merge-refs` leaves it: the digest cache lives in `.build`.
    os.makedirs(os.path.join(destination, ".build"))
    command = [merge_refs, "--require-shards", "--require-complete"]
    figures = {}
    figures["first"] = timed(command + shards + [destination], os.path.join(folder, "first.log"))
    figures["rerun"] = timed(command + shards + [destination], os.path.join(folder, "rerun.log"))
    changed = change_references(destination, every=10)
    figures["update"] = timed(command + shards + [destination], os.path.join(folder, "update.log"))
    check_updated(os.path.join(folder, "update.log"), changed)
    changed = change_references(destination, every=1)
    figures["all"] = timed(command + shards + [destination], os.path.join(folder, "all.log"))
    check_updated(os.path.join(folder, "all.log"), changed)
    # One listed archive lost: a copy of the shard folders with hard links, one archive removed.
    lost = os.path.join(folder, "lost")
    set_aside(lost)
    subprocess.run(["cp", "-al", shards_folder, lost], check=True)
    archives = os.path.join(lost, os.path.basename(shards[0]), "archives")
    os.remove(os.path.join(archives, sorted(os.listdir(archives))[0]))
    lost_shards = [os.path.join(lost, os.path.basename(s)) for s in shards]
    figures["lost"] = timed(command + lost_shards + [destination], os.path.join(folder, "lost.log"))
    set_aside(lost)
    figures["bsdtar"] = extract_all(folder, shards)
    return figures


def change_references(destination, every):
    """Overwrites every `every`-th reference (in path order, the last one aside) with the
    bytes the next one had, a valid PNG of other pixels, as a branch that changed many renders
    would: the merge must hash, decode and replace each. Returns how many were changed."""
    paths = sorted(
        os.path.join(root, name) for root, _, names in os.walk(os.path.join(destination, "Tests"))
        for name in names if name.endswith(".png"))
    changed = 0
    for index in range(0, len(paths) - 1, every):
        with open(paths[index + 1], "rb") as neighbour:
            other = neighbour.read()
        with open(paths[index], "wb") as out:
            out.write(other)
        changed += 1
    return changed


def check_updated(log, expected):
    """Refuses a figure measured on the wrong work: the merge's last line must count every
    changed reference as updated."""
    last = open(log, encoding="utf-8").read().strip().splitlines()[-1]
    match = re.search(r"(\d+) updated", last)
    if not match or int(match.group(1)) != expected:
        sys.exit(f"the update merge did not update the {expected} changed references: {last}")


def extract_all(folder, shards):
    """The peer: what a user without merge-refs runs, `bsdtar -xf` of every archive into the
    package in turn (no checks, no provenance, later archives overwrite), under one
    /usr/bin/time, whose CPU and peak include every bsdtar it waited for."""
    peer = os.path.join(folder, "bsdtar-destination")
    set_aside(peer)
    os.makedirs(peer)
    archives = sorted(
        os.path.join(shard, "archives", name) for shard in shards
        for name in os.listdir(os.path.join(shard, "archives")))
    listing = os.path.join(folder, "archives.txt")
    with open(listing, "w") as out:
        out.write("\n".join(archives) + "\n")
    script = 'while IFS= read -r zip; do bsdtar -xf "$zip" -C "$1" || exit 1; done < "$2"'
    figures = timed(["sh", "-c", script, "sh", peer, listing], os.path.join(folder, "bsdtar.log"))
    set_aside(peer)
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("merge_refs")
    parser.add_argument("reference_shards")
    parser.add_argument("repository")
    parser.add_argument("work")
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--icons", type=int, default=100)
    parser.add_argument("--shards", type=int, default=100)
    parser.add_argument("--scales", default="1")
    arguments = parser.parse_args()
    scales = [int(s) for s in arguments.scales.split(",")]
    results = {}
    for scale in scales:
        tests = arguments.tests * scale
        folder = os.path.join(arguments.work, f"fleet-{tests}x{arguments.icons}")
        os.makedirs(folder, exist_ok=True)
        # One package and one build folder for every scale: only the tests change.
        package = os.path.join(arguments.work, "fleet-package")
        scratch = os.path.join(arguments.work, "fleet-build")
        write_package(package, arguments.repository, tests, arguments.icons)
        generate_shards(folder, package, scratch, arguments.reference_shards, arguments.shards)
        results[scale] = (tests * arguments.icons, measure(folder, arguments.merge_refs))
    base = scales[0]
    print(f"fleet: {arguments.shards} shards; load average {os.getloadavg()[0]:.1f}")
    header = "| | " + " | ".join(f"{scale}x ({results[scale][0]:,} images)" for scale in scales)
    print(header + (" | ratio |" if len(scales) > 1 else " |"))
    print("| --- " * (len(scales) + 1 + (len(scales) > 1)) + "|")
    rows = [
        ("first merge: CPU (user+sys)", "first", 1, "{:.1f} s"),
        ("first merge: CPU, user alone", "first", 6, "{:.1f} s"),
        ("first merge: peak memory", "first", 3, "{:.0f} MB"),
        ("first merge: lines printed", "first", 4, "{:,.0f}"),
        ("first merge: bytes printed", "first", 5, "{:,.0f}"),
        ("up-to-date rerun: CPU", "rerun", 1, "{:.1f} s"),
        ("up-to-date rerun: CPU, user alone", "rerun", 6, "{:.1f} s"),
        ("up-to-date rerun: peak memory", "rerun", 3, "{:.0f} MB"),
        ("up-to-date rerun: lines printed", "rerun", 4, "{:,.0f}"),
        ("a tenth changed, merged again: CPU", "update", 1, "{:.1f} s"),
        ("a tenth changed, merged again: CPU, user alone", "update", 6, "{:.1f} s"),
        ("a tenth changed, merged again: peak memory", "update", 3, "{:.0f} MB"),
        ("a tenth changed, merged again: lines printed", "update", 4, "{:,.0f}"),
        ("every reference changed, merged again: CPU", "all", 1, "{:.1f} s"),
        ("every reference changed, merged again: CPU, user alone", "all", 6, "{:.1f} s"),
        ("every reference changed, merged again: peak memory", "all", 3, "{:.0f} MB"),
        ("every reference changed, merged again: lines printed", "all", 4, "{:,.0f}"),
        ("one archive lost: exit status", "lost", 0, "{:.0f}"),
        ("one archive lost: wall time to the refusal", "lost", 2, "{:.2f} s"),
        ("one archive lost: CPU", "lost", 1, "{:.2f} s"),
        ("one archive lost: lines printed", "lost", 4, "{:,.0f}"),
        ("peer, bsdtar -xf of every archive: CPU", "bsdtar", 1, "{:.1f} s"),
        ("peer, bsdtar -xf of every archive: CPU, user alone", "bsdtar", 6, "{:.1f} s"),
        ("peer, bsdtar -xf of every archive: peak memory", "bsdtar", 3, "{:.0f} MB"),
    ]
    for label, case, index, form in rows:
        values = [results[scale][1][case][index] for scale in scales]
        cells = " | ".join(form.format(v) for v in values)
        ratio = ""
        if len(scales) > 1:
            ratio = " | " + (f"{values[-1] / values[0]:.2f}x" if values[0] else "–")
        print(f"| {label} | {cells}{ratio} |")
    first = results[base][1]
    print(f"rerun / first merge, CPU: {first['rerun'][1] / first['first'][1]:.2f}"
          f" (user alone: {first['rerun'][6] / first['first'][6]:.2f})")
    print(f"a tenth changed / first merge, CPU: {first['update'][1] / first['first'][1]:.2f}")
    print(f"every reference changed / first merge, CPU: {first['all'][1] / first['first'][1]:.2f}")
    for scale in scales:
        figures = results[scale][1]
        print(f"{scale}x, first merge / bsdtar: CPU {figures['first'][1] / figures['bsdtar'][1]:.2f}x,"
              f" peak memory {figures['first'][3] / figures['bsdtar'][3]:.2f}x")


if __name__ == "__main__":
    main()
