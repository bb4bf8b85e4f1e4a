"""References in a store (issue 56) against references in git, measured in one run, with the
ratio of each figure to its peer and the target it is held to. Run by Scripts/benchmark-store,
which builds the tools (release) and the GenerationBench package.

    benchmark_store.py TOOLS REPOSITORY WORK TEST_BINARY [--runs R] [--generations G]
                       [--fleet-tests T] [--fleet-icons K] [--shards S] [--skip-fleet]

TOOLS holds the release merge-refs, reference-store and reference-shards; TEST_BINARY is
GenerationBench's release test binary, whose package is TEST_BINARY's package (its references
are written into it). WORK keeps the repositories, stores and caches; the fleet is
Scripts/benchmark-fleet's, under REPOSITORY/.build-benchmark (--fleet-work), reused.

1. History: GenerationBench's 2,000 renders of mixed sizes (64 x 64 icons to 1600 x 1200
   screenshot-like scenes, encoded by the package; GENERATION_BENCH_SIZES=mixed) regenerated G
   times (GENERATION_BENCH_GENERATION=1...G, each changing 400 references, 20%), each run's
   archive landed by the real `merge-refs` in two git repositories, one without a store (PNGs
   in the tree) and one with a folder store (pointers), and committed. Each repository's
   packed size (`git gc`, `git count-objects -v`'s size-pack) and a dependent's clone
   (`git clone --no-local file://...`: bytes of its .git, seconds). Target: pointers <= 2% of
   PNGs.
2. Verify with every reference matching: the test binary run directly on the last
   generation's tree, with its PNGs and with its pointers, in turns; CPU (user + system),
   medians. During the pointer runs the store folder is renamed away and the cache is a new
   empty folder: the run must pass and the cache stay empty. Target: <= 1.05 x.
3. A failing verify on a cold cache: N tests' 20 renders changed (GENERATION_BENCH_CHANGED_
   PERCENT), the store in place, an empty cache; the objects in the cache afterwards must be
   exactly the failing references' objects.
4. A first merge of the fleet (Scripts/benchmark_fleet.py's package: T tests x K icons of 16 x
   16 in S shards by `reference-shards run`, 100 x 500 = 50,000 images by default) into an
   empty package with a folder store and into one without (the in-git merge), in turns, fresh
   each time; CPU and wall, medians. Target: <= 1.5 x. The store's objects are counted against
   the distinct PNGs of the archives (each uploaded once).
5. Migration both ways: `reference-store migrate` then `reference-store restore` (from an
   empty cache, so every object is read from the store) on Examples/ChartRenderer's
   references and on the last generation's 2,000, each file compared with `cmp`; seconds each.
"""
import argparse
import filecmp
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchmark_fleet  # noqa: E402

REFERENCES = os.path.join("Tests", "GenerationBenchTests", "__References__")
# Where a test's renders are, below REFERENCES.
SCENES = "SceneTests"


def log(message):
    print(f"== {message}", file=sys.stderr, flush=True)


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def timed(command, **options):
    """Runs a command; returns (status, wall seconds, CPU seconds of it and its children, user
    CPU seconds alone). System time on a busy disk varies several-fold between runs of one
    binary (file creation waits in the kernel), so user time is kept apart too."""
    before = os.times()
    started = time.monotonic()
    result = subprocess.run(command, **options)
    wall = time.monotonic() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return result.returncode, wall, cpu, after.children_user - before.children_user


def quiet(command, **options):
    return subprocess.run(command, check=True, stdout=subprocess.DEVNULL, **options)


def files_below(folder, suffix):
    return sorted(
        os.path.relpath(os.path.join(root, name), folder)
        for root, _, names in os.walk(folder) for name in names if name.endswith(suffix))


def write_configuration(package, store):
    with open(os.path.join(package, "ReferenceStore.json"), "w") as out:
        json.dump({"version": 1, "store": "folder", "folder": store}, out)


def write_http_configuration(package, url):
    with open(os.path.join(package, "ReferenceStore.json"), "w") as out:
        json.dump({"version": 1, "store": "http", "url": url}, out)


def start_nginx(folder):
    """nginx from Debian with its WebDAV module on a free loopback port, as the tests start
    it (Tests/ReferenceStoreTests/LoopbackServer.swift); returns (process, base URL, root)."""
    import socket
    shutil.rmtree(folder, ignore_errors=True)
    for sub in ["root/objects", "temp"]:
        os.makedirs(os.path.join(folder, sub))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    configuration = f"""daemon off;
master_process off;
pid {folder}/nginx.pid;
error_log {folder}/error.log error;
load_module /usr/lib/nginx/modules/ngx_http_dav_ext_module.so;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {folder}/temp/body;
  proxy_temp_path {folder}/temp/proxy;
  fastcgi_temp_path {folder}/temp/fastcgi;
  uwsgi_temp_path {folder}/temp/uwsgi;
  scgi_temp_path {folder}/temp/scgi;
  client_max_body_size 0;
  server {{
    listen 127.0.0.1:{port};
    root {folder}/root;
    location /objects/ {{
      dav_methods PUT DELETE;
      dav_ext_methods PROPFIND OPTIONS;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }}
  }}
}}
"""
    path = os.path.join(folder, "nginx.conf")
    open(path, "w").write(configuration)
    process = subprocess.Popen(["/usr/sbin/nginx", "-p", folder, "-e", f"{folder}/error.log",
                                "-c", path])
    import socket as sockets
    for _ in range(100):
        try:
            sockets.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return process, f"http://127.0.0.1:{port}/objects/", os.path.join(folder, "root", "objects")


def objects_in(folder):
    return len(files_below(folder, "")) if os.path.isdir(folder) else 0


def ratio(value, peer):
    return value / peer if peer else float("inf")


class Table:
    def __init__(self):
        self.rows = []

    def add(self, measure, figure, peer, value_ratio, target, met):
        verdict = "—" if met is None else ("met" if met else "MISSED")
        self.rows.append((measure, figure, peer, value_ratio, target, verdict))

    def print(self):
        print("| measure | figure | peer | ratio | target | verdict |")
        print("| --- | --- | --- | --- | --- | --- |")
        for row in self.rows:
            print("| " + " | ".join(row) + " |")


# MARK: 1. History


def run_bench(binary, package, mode, generation, output, extra=None, cache=None, diff=None):
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith(("IMAGE_", "GENERATION_BENCH_"))}
    environment.update(
        IMAGE_GENERATION_MODE=mode, IMAGE_GENERATION_OUTPUT=output,
        GENERATION_BENCH_SIZES="mixed", GENERATION_BENCH_SCENES="screenshot",
        GENERATION_BENCH_IMAGES_PER_TEST="20", GENERATION_BENCH_GENERATION=str(generation),
        IMAGE_REFERENCE_CACHE=cache or os.path.join(output, "no-cache"),
        IMAGE_DIFF_DIR=diff or os.path.join(output, "diff"))
    environment.update(extra or {})
    shutil.rmtree(output, ignore_errors=True)
    os.makedirs(output)
    with open(output + ".log", "wb") as out:
        return timed([binary], cwd=package, env=environment, stdout=out, stderr=subprocess.STDOUT)


def new_repository(folder, store=None):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, ".build"))
    quiet(["git", "init", "-q", "-b", "main", folder])
    quiet(["git", "-C", folder, "config", "user.email", "bench@example.com"])
    quiet(["git", "-C", folder, "config", "user.name", "benchmark-store"])
    quiet(["git", "-C", folder, "config", "gc.auto", "0"])
    open(os.path.join(folder, ".gitignore"), "w").write(".build/\n")
    if store:
        write_configuration(folder, store)


def commit(folder, message):
    quiet(["git", "-C", folder, "add", "-A"])
    quiet(["git", "-C", folder, "commit", "-q", "-m", message])


def land(merge_refs, archives, repository, log_file):
    with open(log_file, "wb") as out:
        status, wall, cpu, _ = timed([merge_refs, archives, repository], stdout=out,
                                     stderr=subprocess.STDOUT)
    if status != 0:
        sys.exit(f"merge-refs into {repository} failed; see {log_file}")
    return wall, cpu, open(log_file, encoding="utf-8").read()


def history(arguments, tools, package):
    work = arguments.work
    png_repo, pointer_repo = os.path.join(work, "repo-png"), os.path.join(work, "repo-pointers")
    store = os.path.join(work, "store-history")
    shutil.rmtree(store, ignore_errors=True)
    new_repository(png_repo)
    new_repository(pointer_repo, store)
    shutil.rmtree(os.path.join(package, REFERENCES), ignore_errors=True)
    landings = {"png": [], "pointer": []}
    for generation in range(arguments.generations + 1):
        archives = os.path.join(work, "archives-history")
        status, wall, _, _ = run_bench(arguments.test_binary, package, "1", generation,
                                       archives)
        if status != 0:
            sys.exit(f"generation {generation} failed; see {archives}.log")
        archive = [os.path.join(archives, n) for n in os.listdir(archives) if n.endswith(".zip")]
        written = sum(n.endswith(".png") for n in zipfile.ZipFile(archive[0]).namelist())
        expected = 2000 if generation == 0 else 400
        if written != expected:
            sys.exit(f"generation {generation} archived {written} PNGs, expected {expected}")
        # The next generation compares with this one's references: the package keeps PNGs.
        quiet(["unzip", "-o", "-q", archive[0], "-x", "ReferenceImages-manifest.json",
               "-d", package])
        for kind, repository in [("png", png_repo), ("pointer", pointer_repo)]:
            landed = land(tools["merge-refs"], archives, repository,
                          os.path.join(work, f"land-{kind}-{generation}.log"))
            landings[kind].append(landed)
            commit(repository, f"Generation {generation}")
        log(f"generation {generation}: {written} PNGs rendered and landed in both repositories"
            f" ({wall:.1f} s to render); load {load()}")
    pointers = files_below(os.path.join(pointer_repo, REFERENCES), ".png.ref")
    pngs = files_below(os.path.join(png_repo, REFERENCES), ".png")
    if len(pointers) != 2000 or len(pngs) != 2000 or any(
            p != q + ".ref" for p, q in zip(pointers, pngs)):
        sys.exit(f"the repositories do not hold the same 2,000 references ({len(pngs)} PNGs, "
                 f"{len(pointers)} pointers)")
    sizes = {}
    repositories = {"png": png_repo, "pointer": pointer_repo}
    for kind, repository in repositories.items():
        quiet(["git", "-C", repository, "gc", "-q"])
        counts = subprocess.run(["git", "-C", repository, "count-objects", "-v"], check=True,
                                capture_output=True, text=True).stdout
        sizes[kind] = [int(re.search(r"size-pack: (\d+)", counts).group(1)) * 1024, 0, []]
    # A dependent's clone, the two repositories in turns.
    for run in range(arguments.runs):
        for kind in (["png", "pointer"] if run % 2 == 0 else ["pointer", "png"]):
            clone = os.path.join(work, f"clone-{kind}")
            shutil.rmtree(clone, ignore_errors=True)
            subprocess.run(["sync"])
            status, wall, _, _ = timed(["git", "clone", "-q", "--no-local",
                                        "file://" + repositories[kind], clone])
            assert status == 0
            sizes[kind][1] = int(subprocess.run(
                ["du", "-sb", os.path.join(clone, ".git")], check=True, capture_output=True,
                text=True).stdout.split()[0])
            sizes[kind][2].append(wall)
            shutil.rmtree(clone)
    for kind in sizes:
        sizes[kind][2] = statistics.median(sizes[kind][2])
    store_bytes = int(subprocess.run(["du", "-sb", store], check=True, capture_output=True,
                                     text=True).stdout.split()[0])
    return png_repo, pointer_repo, store, sizes, landings, store_bytes


# MARK: 2 and 3. Verify


def verify_runs(arguments, package, png_repo, pointer_repo, store):
    work = arguments.work
    references = os.path.join(package, REFERENCES)
    trees = {"png": os.path.join(work, "tree-png"), "pointer": os.path.join(work, "tree-pointers")}
    for kind, repository in [("png", png_repo), ("pointer", pointer_repo)]:
        shutil.rmtree(trees[kind], ignore_errors=True)
        shutil.copytree(os.path.join(repository, REFERENCES), trees[kind])
    shutil.rmtree(references, ignore_errors=True)
    away = store + ".away"
    configuration = os.path.join(package, "ReferenceStore.json")
    figures = {"png": [], "pointer": []}
    generation = arguments.generations
    for run in range(arguments.runs):
        for kind in (["png", "pointer"] if run % 2 == 0 else ["pointer", "png"]):
            os.rename(trees[kind], references)
            cache = os.path.join(work, "cache-verify")
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache)
            if kind == "pointer":
                write_configuration(package, store)
                os.rename(store, away)
            try:
                status, wall, cpu, _ = run_bench(arguments.test_binary, package, "0",
                                              generation, os.path.join(work, f"verify-{kind}"),
                                              cache=cache)
            finally:
                if kind == "pointer":
                    os.rename(away, store)
                    os.remove(configuration)
                os.rename(references, trees[kind])
            if status != 0:
                sys.exit(f"verify with {kind}s failed; see {work}/verify-{kind}.log")
            cached = objects_in(cache)
            if cached:
                sys.exit(f"verify with {kind}s put {cached} objects in the cache")
            figures[kind].append((cpu, wall))
            log(f"verify with {kind}s, run {run + 1}: {cpu:.2f} s CPU, {wall:.2f} s wall;"
                f" load {load()}")
    # 3. Failing verifies on a cold cache, the store in place.
    failing = []
    os.rename(trees["pointer"], references)
    write_configuration(package, store)
    try:
        for tests in arguments.failing_tests:
            cache = os.path.join(work, "cache-failing")
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache)
            output = os.path.join(work, f"verify-failing-{tests}")
            status, wall, cpu, _ = run_bench(
                arguments.test_binary, package, "0", generation, output, cache=cache,
                extra={"GENERATION_BENCH_CHANGED_PERCENT": str(tests)})
            text = open(output + ".log", encoding="utf-8", errors="replace").read()
            failed_tests = len(set(re.findall(r"SceneTests\.(test\d+)'? failed", text)))
            expected = set()
            for test in range(tests):
                for image in range(20):
                    pointer = os.path.join(references, SCENES, f"t{test:03}", f"i{image:02}.png.ref")
                    body = open(pointer, encoding="utf-8").read()
                    expected.add(re.search(r"^object ([0-9a-f]+)$", body, re.M).group(1))
            cached = set(files_below(cache, "")) if os.path.isdir(cache) else set()
            cached_keys = {os.path.basename(path) for path in cached}
            failing.append(dict(references=tests * 20, status=status, failed_tests=failed_tests,
                                cached=len(cached), exact=cached_keys == expected, cpu=cpu,
                                wall=wall))
            log(f"verify with {tests * 20} references changed: exit {status}, "
                f"{len(cached)} objects cached; load {load()}")
    finally:
        os.remove(configuration)
        os.rename(references, trees["pointer"])
    return trees, figures, failing


# MARK: 4. The fleet's first merge


def fleet(arguments, tools):
    work = arguments.fleet_work
    tests, icons, shards_count = arguments.fleet_tests, arguments.fleet_icons, arguments.shards
    folder = os.path.join(work, f"fleet-{tests}x{icons}")
    os.makedirs(folder, exist_ok=True)
    package = os.path.join(work, "fleet-package")
    scratch = os.path.join(work, "fleet-build")
    started = time.monotonic()
    benchmark_fleet.write_package(package, arguments.repository, tests, icons)
    benchmark_fleet.generate_shards(folder, package, scratch, tools["reference-shards"],
                                    shards_count)
    generated = time.monotonic() - started
    shards_folder = os.path.join(folder, "shards")
    shards = sorted(os.path.join(shards_folder, n) for n in os.listdir(shards_folder)
                    if n.startswith("shard-"))
    distinct, entries = set(), 0
    for shard in shards:
        archives = os.path.join(shard, "archives")
        for name in os.listdir(archives):
            with zipfile.ZipFile(os.path.join(archives, name)) as archive:
                for entry in archive.namelist():
                    if entry.endswith(".png"):
                        entries += 1
                        distinct.add(hashlib.sha256(archive.read(entry)).hexdigest())
    command = [tools["merge-refs"], "--require-shards", "--require-complete"] + shards
    kinds = ["git", "store"] + (["webdav"] if arguments.webdav else [])
    figures = {kind: [] for kind in kinds}
    store = os.path.join(arguments.work, "store-fleet")
    uploaded = stored = None
    nginx = None
    if arguments.webdav:
        nginx, base, dav_root = start_nginx(os.path.join(arguments.work, "nginx"))
    webdav = {}
    for run in range(arguments.runs):
        for kind in (kinds if run % 2 == 0 else kinds[::-1]):
            destination = os.path.join(arguments.work, f"fleet-destination-{kind}")
            # Renamed away, not deleted: see benchmark_fleet.set_aside.
            benchmark_fleet.set_aside(destination)
            os.makedirs(os.path.join(destination, ".build"))
            if kind == "store":
                benchmark_fleet.set_aside(store)
                write_configuration(destination, store)
            if kind == "webdav":
                benchmark_fleet.set_aside(dav_root)
                os.makedirs(dav_root)
                write_http_configuration(destination, base)
            subprocess.run(["sync"])
            log_file = os.path.join(arguments.work, f"fleet-{kind}.log")
            with open(log_file, "wb") as out:
                status, wall, cpu, user = timed(command + [destination], stdout=out,
                                                stderr=subprocess.STDOUT)
            if status != 0:
                sys.exit(f"the fleet merge ({kind}) failed; see {log_file}")
            text = open(log_file, encoding="utf-8").read()
            if kind == "webdav":
                match = re.search(r"store: (\d+) objects? uploaded", text)
                webdav = dict(uploaded=int(match.group(1)) if match else None,
                              stored=objects_in(dav_root))
            if kind == "store":
                match = re.search(r"store: (\d+) objects? uploaded", text)
                uploaded = int(match.group(1)) if match else None
                stored = objects_in(store)
                pointers = len(files_below(os.path.join(destination, "Tests"), ".png.ref"))
                if pointers != entries:
                    sys.exit(f"the store merge wrote {pointers} pointers for {entries} images")
            figures[kind].append((cpu, wall, user))
            log(f"fleet first merge into {kind}, run {run + 1}: {cpu:.1f} s CPU ({user:.1f} s"
                f" user), {wall:.1f} s"
                f" wall; load {load()}")
    for kind in kinds:
        benchmark_fleet.set_aside(os.path.join(arguments.work, f"fleet-destination-{kind}"))
    if nginx:
        nginx.terminate()
        nginx.wait()
    return dict(webdav=webdav, images=entries, distinct=len(distinct), shards=len(shards), figures=figures,
                uploaded=uploaded, stored=stored, generated=generated)


# MARK: 5. Migration


def migration(arguments, tools, name, source):
    """Migrates a copy of `source` (a folder of PNG references) into a new folder store and
    restores it from an empty cache; returns (files, migrate s, restore s, identical)."""
    work = os.path.join(arguments.work, f"migrate-{name}")
    shutil.rmtree(work, ignore_errors=True)
    package = os.path.join(work, "package")
    tree = os.path.join(package, "Tests")
    shutil.copytree(source, tree)
    store = os.path.join(work, "store")
    write_configuration(package, store)
    environment = dict(os.environ, IMAGE_REFERENCE_CACHE=os.path.join(work, "cache"))
    originals = files_below(source, ".png")
    status, migrate_wall, _, _ = timed(
        [tools["reference-store"], "migrate", "--package-path", package, tree],
        env=environment, stdout=subprocess.DEVNULL)
    moved = files_below(tree, ".png.ref") == [p + ".ref" for p in originals] and not files_below(
        tree, ".png")
    if status != 0 or not moved:
        sys.exit(f"reference-store migrate of {name} failed (exit {status})")
    status, restore_wall, _, _ = timed(
        [tools["reference-store"], "restore", "--package-path", package, tree],
        env=environment, stdout=subprocess.DEVNULL)
    if status != 0:
        sys.exit(f"reference-store restore of {name} failed (exit {status})")
    restored = files_below(tree, ".png")
    identical = restored == originals and not files_below(tree, ".png.ref") and all(
        subprocess.run(["cmp", "-s", os.path.join(source, p), os.path.join(tree, p)]).returncode
        == 0 for p in originals)
    size = sum(os.path.getsize(os.path.join(source, p)) for p in originals)
    shutil.rmtree(work)
    return len(originals), size, migrate_wall, restore_wall, identical


# MARK: Report


def median(values, index):
    return statistics.median(v[index] for v in values)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tools")
    parser.add_argument("repository")
    parser.add_argument("work")
    parser.add_argument("test_binary")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--generations", type=int, default=10)
    parser.add_argument("--failing-tests", default="1,10")
    parser.add_argument("--fleet-work", default=None)
    parser.add_argument("--fleet-tests", type=int, default=500)
    parser.add_argument("--fleet-icons", type=int, default=100)
    parser.add_argument("--shards", type=int, default=100)
    parser.add_argument("--skip-fleet", action="store_true")
    parser.add_argument("--webdav", action="store_true",
                        help="also merge the fleet into nginx WebDAV on the loopback interface")
    parser.add_argument("--only-fleet", action="store_true",
                        help="measure the fleet's first merges only")
    arguments = parser.parse_args()
    arguments.work = os.path.abspath(arguments.work)
    arguments.test_binary = os.path.abspath(arguments.test_binary)
    arguments.tools = os.path.abspath(arguments.tools)
    arguments.failing_tests = [int(n) for n in arguments.failing_tests.split(",")]
    # Scripts/benchmark-fleet's folder (.build-benchmark), whose fleet is reused.
    arguments.fleet_work = os.path.abspath(
        arguments.fleet_work or os.path.join(arguments.repository, ".build-benchmark"))
    tools = {name: os.path.join(arguments.tools, name)
             for name in ["merge-refs", "reference-store", "reference-shards"]}
    package = os.path.dirname(os.path.dirname(os.path.dirname(arguments.test_binary)))
    os.makedirs(arguments.work, exist_ok=True)
    loads = [load()]
    migrations = []
    if not arguments.only_fleet:
        png_repo, pointer_repo, store, sizes, landings, store_bytes = history(arguments, tools,
                                                                              package)
        loads.append(load())
        trees, verify, failing = verify_runs(arguments, package, png_repo, pointer_repo, store)
        loads.append(load())
        migrations = [
            ("Examples/ChartRenderer", migration(arguments, tools, "chart", os.path.join(
                arguments.repository, "Examples", "ChartRenderer", "Tests"))),
            ("the 2,000 mix (last generation)", migration(arguments, tools, "mix", trees["png"])),
        ]
        loads.append(load())
    fleet_figures = None if arguments.skip_fleet else fleet(arguments, tools)
    loads.append(load())

    table = Table()
    if not arguments.only_fleet:
        png, pointer = sizes["png"], sizes["pointer"]
        history_label = f"2,000 references, {arguments.generations} regenerations of 20%"
        r = ratio(pointer[0], png[0])
        table.add(f"{history_label}: packed repository (size-pack)", f"{pointer[0] / 1e6:.2f} MB",
                  f"{png[0] / 1e6:.1f} MB (PNGs in git)", f"{r * 100:.2f}%", "≤ 2%", r <= 0.02)
        r = ratio(pointer[1], png[1])
        table.add(f"{history_label}: a dependent's clone, .git bytes", f"{pointer[1] / 1e6:.2f} MB",
                  f"{png[1] / 1e6:.1f} MB", f"{r * 100:.2f}%", "≤ 2%", r <= 0.02)
        table.add(f"{history_label}: a dependent's clone, seconds, median of {arguments.runs}", f"{pointer[2]:.2f} s",
                  f"{png[2]:.2f} s", f"{ratio(pointer[2], png[2]) * 100:.1f}%", "—", None)
        table.add("the store's objects after the history (du -sb)", f"{store_bytes / 1e6:.1f} MB",
                  "", "", "—", None)
        for kind_label, index in [("first landing (2,000 added)", 0),
                                  ("a regeneration's landing (400 updated), median", None)]:
            if index is None:
                p = statistics.median(l[1] for l in landings["pointer"][1:])
                g = statistics.median(l[1] for l in landings["png"][1:])
            else:
                p, g = landings["pointer"][0][1], landings["png"][0][1]
            table.add(f"merge-refs, {kind_label}: CPU", f"{p:.2f} s", f"{g:.2f} s (in git)",
                      f"{ratio(p, g):.2f}×", "—", None)
        pc, gc = median(verify["pointer"], 0), median(verify["png"], 0)
        r = ratio(pc, gc)
        table.add(f"verify, 2,000 matching, median of {arguments.runs}: CPU (store moved away, "
                  "empty cache, passed, 0 objects read)", f"{pc:.2f} s", f"{gc:.2f} s (PNGs)",
                  f"{r:.3f}×", "≤ 1.05×", r <= 1.05)
        pw, gw = median(verify["pointer"], 1), median(verify["png"], 1)
        table.add("verify, 2,000 matching: wall", f"{pw:.2f} s", f"{gw:.2f} s", f"{ratio(pw, gw):.3f}×",
                  "—", None)
        for case in failing:
            table.add(f"failing verify, {case['references']} references changed, cold cache: "
                      f"objects fetched (exit {case['status']}, {case['failed_tests']} tests failed)",
                      f"{case['cached']}", f"{case['references']} failing references",
                      "exactly those" if case["exact"] else "NOT those", "= the failing ones",
                      case["exact"] and case["cached"] == case["references"])
    if fleet_figures:
        f = fleet_figures
        label = f"first merge, {f['shards']} shards, {f['images']:,} images"
        for what, index in [("CPU (user+sys)", 0), ("CPU, user alone", 2), ("wall", 1)]:
            s, g = median(f["figures"]["store"], index), median(f["figures"]["git"], index)
            r = ratio(s, g)
            table.add(f"{label}, median of {arguments.runs}: {what}", f"{s:.1f} s (folder store)",
                      f"{g:.1f} s (in git)", f"{r:.2f}×", "≤ 1.5×", r <= 1.5)
        if f["webdav"]:
            for what, index in [("CPU (user+sys)", 0), ("CPU, user alone", 2), ("wall", 1)]:
                s_, g = median(f["figures"]["webdav"], index), median(f["figures"]["git"], index)
                r = ratio(s_, g)
                table.add(f"{label}, median of {arguments.runs}: {what}",
                          f"{s_:.1f} s (nginx WebDAV, loopback)", f"{g:.1f} s (in git)",
                          f"{r:.2f}×", "≤ 3×", r <= 3)
            w = f["webdav"]
            table.add(f"{label}: objects on the WebDAV server / uploads reported",
                      f"{w['stored']:,} / {w['uploaded']:,}", f"{f['distinct']:,} distinct PNGs",
                      "", "each once", w["stored"] == f["distinct"] == w["uploaded"])
        table.add(f"{label}: objects in the store / uploads reported",
                  f"{f['stored']:,} / {f['uploaded']:,}", f"{f['distinct']:,} distinct PNGs",
                  "", "each once", f["stored"] == f["distinct"] == f["uploaded"])
    for label, (files, size, migrate_wall, restore_wall, identical) in migrations:
        table.add(f"migrate then restore, {label}: {files} files, {size / 1e6:.1f} MB",
                  f"{migrate_wall:.2f} s + {restore_wall:.2f} s", "", "",
                  "byte-identical (cmp)", identical)
    print(f"References in a store: load average at start, after the history, verify, "
          f"migration, fleet: {'; '.join(loads)} (2 cores)")
    table.print()
    if not arguments.only_fleet:
        print("all runs, CPU/wall seconds: verify with PNGs "
              + ", ".join(f"{c:.2f}/{w:.2f}" for c, w in verify["png"]) + "; with pointers "
              + ", ".join(f"{c:.2f}/{w:.2f}" for c, w in verify["pointer"]))
    if fleet_figures:
        print("fleet first merges: in git " + ", ".join(
            f"{c:.1f}/{w:.1f}" for c, w, _ in fleet_figures["figures"]["git"])
            + "; into the store " + ", ".join(
                f"{c:.1f}/{w:.1f}" for c, w, _ in fleet_figures["figures"]["store"])
            + "; into WebDAV " + ", ".join(
                f"{c:.1f}/{w:.1f}" for c, w, _ in fleet_figures["figures"].get("webdav", [])))


if __name__ == "__main__":
    main()
