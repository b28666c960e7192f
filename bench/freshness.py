"""Freshness: how long from saving a note to finding it, and what keeping watch costs when idle.

Indexes a copy of ../shared/data/notes-en (1,873 notes) with the real processes, then:

1. edits, adds, renames and deletes notes, one at a time, and measures each save → searchable
   latency (a keyword search from this process sees the change), printing the median and the
   worst of ``--repeat`` tries per kind;
2. leaves everything idle for ``--idle`` seconds and prints the CPU time the server, the
   consumer (with its worker processes) and the watcher used, as a percentage of one core,
   read from /proc/<pid>/stat (utime + stime) before and after.

``--mode mcp`` (the default) runs ``sift-mcp --root COPY``, which starts the consumer and the
watcher as its children; ``--mode consumer`` runs ``huey_consumer`` and ``python -m
workers.watch`` side by side, with the consumer flags sift-mcp uses.

    .venv/bin/python bench/freshness.py [--mode mcp|consumer] [--repeat 5] [--idle 60]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import fresh_home, median, shared_data, wait, watched


def main() -> int:
    args = parse_args()
    source = shared_data("notes-en")
    os.environ.setdefault("SIFT_WORKERS", "2")  # the product's default, not the one-process benchmark setting
    home = fresh_home("freshness")
    root = home / "notes-en"
    shutil.copytree(source, root)
    with watched(args.mode, root, home) as procs:
        from search.query.engine import Engine
        engine = Engine(home / "index.db")
        started = time.monotonic()
        wait(lambda: settled(home) and paths(engine, "git"), "the first generation")
        print(f"mode {args.mode}: {count_files(home)} files indexed in {time.monotonic() - started:.0f} s "
              f"(logs: {home / 'processes.log'})", flush=True)
        measure_latencies(engine, root, args.repeat, home)
        measure_idle(procs, args.idle, home)
    return 0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["mcp", "consumer"], default="mcp")
    parser.add_argument("--repeat", type=int, default=5, help="tries per kind of change")
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idle CPU measurement")
    return parser.parse_args()


def measure_latencies(engine, root: Path, repeat: int, home: Path) -> None:
    """Save → searchable, per kind of change; one change at a time, each settled before the next."""
    notes = sorted(p for p in root.rglob("*.md") if p.stat().st_size < 20_000)
    edit(engine, notes[0], "warmupzz", home)  # each worker process loads the model on its first job
    edit(engine, notes[1], "warmupyy", home)
    results: dict[str, list[float]] = {"edit": [], "add": [], "rename": [], "delete": []}
    added = root / "bench-added"
    added.mkdir()
    for n in range(repeat):
        word = f"freshmark{n}q"
        results["edit"].append(edit(engine, notes[10 + n], f"editmark{n}q", home))
        results["add"].append(timed(lambda: (added / f"note-{n}.md").write_text(f"# Added {n}\n\n{word} here.\n"),
                                    lambda: paths(engine, word) == {f"bench-added/note-{n}.md"}, home))
        results["rename"].append(timed(lambda: (added / f"note-{n}.md").rename(added / f"renamed-{n}.md"),
                                       lambda: paths(engine, word) == {f"bench-added/renamed-{n}.md"}, home))
        results["delete"].append(timed(lambda: (added / f"renamed-{n}.md").unlink(),
                                       lambda: not paths(engine, word), home))
    print(f"\nsave → searchable, seconds ({repeat} tries each, one change at a time):")
    for kind, values in results.items():
        print(f"  {kind:<7} median {median(values):5.2f}   worst {max(values):5.2f}   "
              f"all {' '.join(f'{v:.2f}' for v in values)}")


def edit(engine, note: Path, word: str, home: Path) -> float:
    rel = note.relative_to(home / "notes-en").as_posix()
    return timed(lambda: note.write_text(note.read_text() + f"\n\nAn edit: {word}.\n"),
                 lambda: rel in paths(engine, word), home)


def timed(change, visible, home: Path) -> float:
    wait(lambda: settled(home), "quiet before the change")
    time.sleep(1.0)  # let the watcher's quiet period pass, so changes are measured one by one
    began = time.monotonic()
    change()
    wait(visible, "the change searchable", interval=0.02)
    return time.monotonic() - began


# --- idle CPU -------------------------------------------------------------------------------------

def measure_idle(procs: list[subprocess.Popen], seconds: float, home: Path) -> None:
    wait(lambda: settled(home), "quiet before the idle measurement")
    time.sleep(5)
    pids = descendants([p.pid for p in procs])
    before = {pid: cpu_ticks(pid) for pid in pids}
    time.sleep(seconds)
    after = {pid: cpu_ticks(pid) for pid in pids}
    tick = os.sysconf("SC_CLK_TCK")
    print(f"\nidle for {seconds:.0f} s, CPU as % of one core (/proc/<pid>/stat utime+stime):")
    total = 0.0
    for pid in pids:
        if before[pid] is None or after[pid] is None:
            continue
        share = (after[pid] - before[pid]) / tick / seconds * 100
        total += share
        print(f"  {pid:>7} {share:6.2f}%  {command(pid)}")
    print(f"  total   {total:6.2f}%")


def descendants(roots: list[int]) -> list[int]:
    """The given processes and all their descendants."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = list(roots), list(roots)
    while frontier:
        children = [pid for pid, ppid in parents.items() if ppid in frontier]
        found += children
        frontier = children
    return found


def cpu_ticks(pid: int) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def command(pid: int) -> str:
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    return " ".join(a.decode(errors="replace") for a in args if a)[:90]


# --- the index ------------------------------------------------------------------------------------

def settled(home: Path) -> bool:
    """Something is published, nothing is being built or waiting for a scan, the queue is empty."""
    from search.index import db
    try:
        conn = db.connect(home / "index.db", readonly=True)
    except db.IndexUnavailable:
        return False
    try:
        row = conn.execute("SELECT count(*) AS n, sum(published IS NULL) AS unpublished, "
                           "coalesce(sum(changes_noticed), 0) AS noticed FROM collections").fetchone()
        building = conn.execute("SELECT count(*) FROM generations WHERE state = 'building'").fetchone()[0]
    except Exception:
        return False  # not migrated yet
    finally:
        conn.close()
    from workers.app import huey
    return row["n"] > 0 and not row["unpublished"] and not row["noticed"] and not building \
        and not huey.pending_count()


def count_files(home: Path) -> int:
    from search.index import db
    from search.query import reader
    conn = db.connect(home / "index.db", readonly=True)
    return len(reader.visible_files(conn))


def paths(engine, word: str) -> set[str]:
    from search.index.db import IndexUnavailable
    try:
        return {hit.path for hit in engine.search(word, limit=50, mode="keyword").hits}
    except IndexUnavailable:
        return set()


if __name__ == "__main__":
    sys.exit(main())
