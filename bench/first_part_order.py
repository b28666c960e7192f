"""Which files a first build's first part holds (workers.tasks.first_part), by path (before) and the most recently
modified first (after): a copy of notes-en whose mtimes a seeded random makes up, spread over ``--years``, with
``--recent`` notes of the git, tmux and vim folders (a person's current work) modified in the last week. Walks the
copy as a scan does and plans the first part both ways, without building it; prints how many of the recent notes
and of the 100 most recently modified files it holds, its folders and its bytes (what its build reads), for
``--seeds`` seeds, and once more for a copy of no kept mtimes (``cp`` without ``-p``: every file of one minute).

    .venv/bin/python bench/first_part_order.py [--first-part 100] [--recent 15] [--seeds 5] [--builds 0]

``--builds N``: also build the first part of seed 0's copy N times each way (this process runs the queue's jobs, a
fresh home each, a subprocess each; SIFT_MODEL as set, the default model if unset) and print the median seconds from
the first scan to the first part published, and the ratio after / before.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import fresh_home, shared_data

CURRENT = ("git", "tmux", "vim")  # the folders of the made-up person's current work


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-part", type=int, default=100)
    parser.add_argument("--recent", type=int, default=15, help="notes of git/, tmux/, vim/ modified this week")
    parser.add_argument("--years", type=float, default=3.0)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--builds", type=int, default=0)
    parser.add_argument("--build-one", nargs=2, metavar=("ROOT", "ORDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_one:
        print(build_first_part(Path(args.build_one[0]), args.first_part, args.build_one[1]))
        return 0
    copy = Path(tempfile.mkdtemp(prefix="sift-first-order-")) / "notes-en"
    shutil.copytree(shared_data("notes-en"), copy)
    try:
        rows = []
        for seed in range(args.seeds):
            recent = made_up_mtimes(copy, seed, args.recent, args.years)
            rows.append(measure(copy, args.first_part, recent, f"seed {seed}"))
        for i, name in enumerate(("before (by path)", "after (recent first)")):
            print(f"median of {args.seeds} seeds, {name}: {statistics.median(r[i][0] for r in rows):g} of "
                  f"{args.recent} recent notes, {statistics.median(r[i][1] for r in rows):g} of the 100 most "
                  f"recently modified files, {statistics.median(r[i][2] for r in rows) / 1024:.0f} KB")
        if args.builds:
            made_up_mtimes(copy, 0, args.recent, args.years)
            took = {order: [] for order in ("path", "recent")}
            for _ in range(args.builds):
                for order in took:
                    out = subprocess.run([sys.executable, __file__, "--first-part", str(args.first_part),
                                          "--build-one", str(copy), order], check=True, capture_output=True, text=True)
                    took[order].append(float(out.stdout.split()[-1]))
                    print(f"seed 0, the first part by {order}: built and published in {took[order][-1]:.1f} s")
            before, after = statistics.median(took["path"]), statistics.median(took["recent"])
            print(f"median of {args.builds} builds: by path {before:.1f} s, recent first {after:.1f} s "
                  f"(after / before {after / before:.2f})")
        now = time.time()  # a copy that kept no mtimes: every file of this minute, as a copy writes them
        for path in copy.rglob("*"):
            os.utime(path, (now, now))
        same = measure(copy, args.first_part, set(), "a copy of no kept mtimes")
        print(f"a copy of no kept mtimes: the first part holds the same files both ways: {same[0] == same[1]}")
    finally:
        shutil.rmtree(copy.parent)
    return 0


def made_up_mtimes(root: Path, seed: int, recent: int, years: float) -> set[str]:
    """Every file an mtime uniform over the last ``years``; ``recent`` notes of CURRENT one in the last week.
    Returns those recent notes' paths."""
    rng, now = random.Random(seed), time.time()
    files = sorted(p for p in root.rglob("*") if p.is_file())
    for path in files:
        t = now - rng.uniform(7 * 86400, years * 365 * 86400)
        os.utime(path, (t, t))
    current = [p for p in files if p.relative_to(root).parts[0] in CURRENT]
    chosen = rng.sample(current, recent)
    for path in chosen:
        t = now - rng.uniform(0, 7 * 86400)
        os.utime(path, (t, t))
    return {p.relative_to(root).as_posix() for p in chosen}


def measure(root: Path, most: int, recent: set[str], label: str) -> tuple[tuple, tuple]:
    """Plan the first part by path and by recency; print, and return for each (recent notes held, of the 100 newest
    files held, bytes, the files)."""
    from ingest.discover import walk
    from search.settings import load
    from workers.tasks import _heavy, first_part
    found = walk(root)
    paths = sorted(f.path for f in found)
    mtimes, sizes = {f.path: f.mtime for f in found}, {f.path: f.size for f in found}
    newest = set(sorted(paths, key=lambda p: -mtimes[p])[:100])
    heavy = lambda: _heavy(found, load(home=Path(tempfile.gettempdir())), root)  # noqa: E731
    unpublished = {"published": None}
    figures = []
    for name, given in (("before (by path)", None), ("after (recent first)", mtimes)):
        now, later = first_part(None, unpublished, paths, set(), most, heavy, given)
        folders = Counter(p.split("/")[0] if "/" in p else "(top)" for p in now)
        held = (len(recent & set(now)), len(newest & set(now)), sum(sizes[p] for p in now))
        figures.append(held + (frozenset(now),))
        print(f"{label}, {name}: {len(now)} files now, {len(later)} later; {held[0]} of {len(recent)} recent "
              f"notes, {held[1]} of the 100 most recently modified files, {held[2] / 1024:.0f} KB; folders: "
              + ", ".join(f"{f} {n}" for f, n in folders.most_common(6)) + (" …" if len(folders) > 6 else ""))
    return tuple(figures)


def build_first_part(root: Path, most: int, order: str) -> float:
    """Seconds from the first scan to the first part of ``root`` published, in a fresh home, this process running
    the queue's jobs (two workers would halve it; only the ratio of the two orders is meant); ``order``: 'path' (the
    old way: recent_first replaced by a sort by path) or 'recent'."""
    fresh_home("first-part-order")
    os.environ["SIFT_FIRST_PART"] = str(most)
    from search.index import collection_reads, store
    from workers import runtime, tasks
    from workers.app import huey
    if order == "path":
        tasks.recent_first = lambda paths, mtimes: sorted(paths)
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    began = time.perf_counter()
    tasks.discover(cid)
    while collection_reads.get_collection(conn, cid)["published"] is None:
        task = huey.dequeue()
        if task is None:
            raise SystemExit("the queue ran dry before the first part was published")
        huey.execute(task)
    return time.perf_counter() - began


if __name__ == "__main__":
    raise SystemExit(main())
