"""Weeks of daily use, compressed: does anything grow with every publish?

    .venv/bin/python bench/soak.py [--cycles 200] [--notes 200] [--every 20] [--no-switch] [--keep]

A folder of small notes under a real ``huey_consumer workers.app.huey -k process -w 2``, the watcher
(``python -m workers.watch``) and ``sift-mcp --no-worker`` driven by the real MCP client. Each cycle changes the
folder the way a day does (an edit, a new note, a rename, a deletion; every ``--every`` cycles a folder deleted
and made again), waits for the watcher's scan to be published and searches it over MCP. Midway the collection is
removed and added again; the model is switched minilm → e5 → minilm (``--no-switch`` leaves it). Every
``--every`` cycles it prints the sizes of index.db / queue.db and their -wal files, the home, the logs, the rows
of each table, SQLite's free pages, and each process's RSS, descriptors, threads (and the watcher's inotify
watches), and how long `ingest stats` takes and how many lines it prints.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import BIN, REPO, consumer, group_pids, stop

TABLES = ("generations", "progress", "progress_counts", "files", "chunks", "chunks_fts_data", "vectors",
          "remembered", "working", "models", "links")
WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()


def main() -> int:
    args = parse_args()
    base = Path(tempfile.mkdtemp(prefix="sift-soak-"))
    home, notes, logs = base / "home", base / "notes", base / "logs"
    logs.mkdir()
    make_notes(notes, args.notes)
    env = dict(os.environ, SIFT_HOME=str(home), SIFT_MODEL="minilm", PYTHONUNBUFFERED="1")
    print(f"soak: {args.cycles} cycles over {args.notes} notes in {base}", flush=True)
    try:
        asyncio.run(soak(args, home, notes, logs, env))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--every", type=int, default=20, help="cycles between samples (and folder re-makes)")
    parser.add_argument("--no-switch", action="store_true", help="keep minilm throughout")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (home, notes, logs)")
    return parser.parse_args()


def make_notes(notes: Path, count: int) -> None:
    for i in range(count):
        write_note(notes / f"area{i % 10}" / f"note{i:04d}.md", i, 0)


def write_note(path: Path, i: int, cycle: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(i * 7919 + cycle)
    body = " ".join(rng.choice(WORDS) for _ in range(60))
    path.write_text(f"# Note {i}\n\nEdited in cycle {cycle}. {body}\n\n## Details\n\n{body[::-1]}\n")


async def soak(args, home: Path, notes: Path, logs: Path, env: dict) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    worker = consumer("workers.app.huey", env, logs / "worker.log")
    watcher = subprocess.Popen([str(BIN / "python"), "-m", "workers.watch"], cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=open(logs / "watch.log", "ab"),
                               start_new_session=True)
    try:
        ingest(env, "enqueue", str(notes), "--name", "notes", "--wait")
        params = StdioServerParameters(command=str(BIN / "sift-mcp"), args=["--no-worker"], env=env)
        async with stdio_client(params, errlog=open(logs / "server.log", "ab")) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            server = find_server()
            rng = random.Random(1)
            started = time.monotonic()
            print(header(), flush=True)
            for cycle in range(1, args.cycles + 1):
                if cycle == args.cycles // 2:
                    ingest(env, "remove", "notes")
                    ingest(env, "enqueue", str(notes), "--name", "notes", "--wait")  # waits for its publish
                elif not args.no_switch and cycle in (args.cycles // 3, 2 * args.cycles // 3):
                    model = "e5" if cycle == args.cycles // 3 else "minilm"
                    stop(worker)
                    env["SIFT_MODEL"] = model
                    worker = consumer("workers.app.huey", env, logs / "worker.log")
                    before = published(home)
                    ingest(env, "enqueue", str(notes), "--name", "notes")
                    wait_published(home, before, timeout=600)
                else:
                    before = published(home)
                    change(notes, rng, cycle, args.every)
                    wait_published(home, before)
                await session.call_tool("search", {"query": f"cycle {cycle} {rng.choice(WORDS)}"})
                if cycle % args.every == 0 or cycle == 1:
                    await session.call_tool("stats", {})
                    print(sample(cycle, home, logs, env, worker, watcher, server, time.monotonic() - started),
                          flush=True)
            print("server's descriptors at the end:", fd_kinds(server), flush=True)
    finally:
        stop(worker)
        stop(watcher)


def fd_kinds(pid: int | None) -> str:
    """What a process's descriptors point at, counted (index.db, sockets, pipes, …)."""
    kinds: dict[str, int] = {}
    for fd in Path(f"/proc/{pid}/fd").iterdir() if pid else ():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        name = target.split(":", 1)[0] + ":" if ":" in target and not target.startswith("/") else Path(target).name
        kinds[name] = kinds.get(name, 0) + 1
    return ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))


def change(notes: Path, rng: random.Random, cycle: int, every: int) -> None:
    """One day's change to the folder: mostly edits, some adds, renames and deletions; a folder re-made."""
    existing = sorted(notes.rglob("*.md"))
    pick = rng.random()
    if cycle % every == every // 2:  # a whole folder deleted and made again (a checkout, a sync)
        folder = notes / f"area{rng.randrange(10)}"
        kept = {p.name: p.read_text() for p in folder.glob("*.md")}
        shutil.rmtree(folder)
        time.sleep(0.2)
        folder.mkdir()
        for name, text in kept.items():
            (folder / name).write_text(text + f"\nRestored in cycle {cycle}.\n")
    elif pick < 0.6 or len(existing) < 50:
        for path in rng.sample(existing, 3):
            write_note(path, int(path.stem[4:]), cycle)
    elif pick < 0.75:
        write_note(notes / f"area{rng.randrange(10)}" / f"note{1000 + cycle:04d}.md", 1000 + cycle, cycle)
    elif pick < 0.9:
        path = rng.choice(existing)
        path.rename(notes / f"area{rng.randrange(10)}" / f"note{2000 + cycle:04d}.md")
    else:
        rng.choice(existing).unlink()


def ingest(env: dict, *argv: str) -> str:
    done = subprocess.run([str(BIN / "ingest"), *argv], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"ingest {' '.join(argv)} failed: {done.stderr}")
    return done.stdout


def read(home: Path, sql: str):
    conn = sqlite3.connect(f"file:{home / 'index.db'}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def published(home: Path) -> int:
    rows = read(home, "SELECT max(id) FROM generations WHERE state = 'published'")
    return rows[0][0] or 0


def wait_published(home: Path, before: int, timeout: float = 120) -> None:
    """Until a generation newer than ``before`` is published and none is being built."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if published(home) > before and not read(home, "SELECT 1 FROM generations WHERE state = 'building'"):
            return
        time.sleep(0.2)
    print(f"  (no new generation within {timeout:.0f} s)", flush=True)


def find_server() -> int | None:
    for stat in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            cmd = stat.read_bytes().split(b"\0")
        except OSError:
            continue
        if any(part.endswith(b"sift-mcp") for part in cmd[:2]) and b"--no-worker" in cmd:
            return int(stat.parent.name)
    return None


def proc(pid: int | None) -> tuple[int, int, int, int]:
    """(RSS in MB, open descriptors, threads, inotify watches) of a process; zeros when it is gone."""
    if pid is None:
        return 0, 0, 0, 0
    try:
        status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return 0, 0, 0, 0
    watches = 0
    for fd in fds:
        try:
            if os.readlink(fd) == "anon_inode:inotify":
                watches += Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text().count("inotify wd:")
        except OSError:
            pass
    return int(status["VmRSS"].split()[0]) // 1024, len(fds), int(status["Threads"]), watches


def size(path: Path) -> float:
    return path.stat().st_size / 1e6 if path.exists() else 0.0


def tree_size(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def header() -> str:
    return ("cycle  min   index MB (wal) free%  queue MB (wal) jobs sched kv  home MB  logs KB  "
            "gens progress counts files chunks fts vectors  worker RSS/fd/thr  watcher RSS/fd/thr/watches  "
            "server RSS/fd/thr  stats ms/lines")


def sample(cycle: int, home: Path, logs: Path, env: dict, worker, watcher, server, elapsed: float) -> str:
    counts = {t: read(home, f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    pages, free = read(home, "PRAGMA page_count")[0][0], read(home, "PRAGMA freelist_count")[0][0]
    q = sqlite3.connect(f"file:{home / 'queue.db'}?mode=ro", uri=True, timeout=30)
    jobs, sched, kv = (q.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("task", "schedule", "kv"))
    q.close()
    w = [proc(pid) for pid in group_pids(worker.pid)]
    worker_fig = f"{sum(x[0] for x in w)}/{sum(x[1] for x in w)}/{sum(x[2] for x in w)}"
    t = time.monotonic()
    out = subprocess.run([str(BIN / "ingest"), "stats"], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=120).stdout
    stats_ms = (time.monotonic() - t) * 1000
    log_kb = sum(p.stat().st_size for p in logs.iterdir()) / 1e3
    wa, se = proc(watcher.pid), proc(server)
    return (f"{cycle:5d} {elapsed / 60:4.1f}  {size(home / 'index.db'):6.2f} ({size(home / 'index.db-wal'):5.2f}) "
            f"{100 * free / max(pages, 1):4.0f}  {size(home / 'queue.db'):6.2f} ({size(home / 'queue.db-wal'):5.2f}) "
            f"{jobs:4d} {sched:5d} {kv:2d}  {tree_size(home):7.1f}  {log_kb:7.0f}  "
            f"{counts['generations']:4d} {counts['progress']:8d} {counts['progress_counts']:6d} "
            f"{counts['files']:5d} {counts['chunks']:6d} {counts['chunks_fts_data']:3d} {counts['vectors']:7d}  "
            f"{worker_fig:>17}  {wa[0]}/{wa[1]}/{wa[2]}/{wa[3]:<14}  {se[0]}/{se[1]}/{se[2]:<10}  "
            f"{stats_ms:.0f}/{len(out.splitlines())}")


if __name__ == "__main__":
    sys.exit(main())
