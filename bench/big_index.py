"""`bench/big_index.py`: what a user of a big published index waits for when nothing else runs.

Takes a home built by `bench/scale.py --keep-home` (its 200 texts in nested folders, 1,000 files per
`area-NNN/`) and measures, with no worker running:

- a real `sift-mcp --no-worker` over stdio (the real MCP client): the time from starting it to its first
  search answering, to the model being loaded and to the keyword postings being read; then, once they are,
  search p50/p95 for a set of queries (common words, a rare word, a proper noun, a six-word query), keyword
  and hybrid, without and with a folder filter (a query repeated: the engine keeps its last query vectors, so
  the hybrid figures leave out embedding the query, 5-20 ms with MiniLM);
  `list_files` without and with a folder filter, `read_file`, `similar`; the server's RSS;
- with `--profile`, the same keyword searches in this process under cProfile (the top functions);
- with `--rescan` (instead), the scans a worker runs (see ``rescans``); with `--start`, only the start;
- with `--filters` (instead), searches with a folder or a glob that match few files, in this process (see
  ``filtered``): the first with each filter, then p50, with the postings in memory and from FTS5 alone;
- with `--during` (instead), a keyword search a second while `engine.warm()` runs in a thread, until the postings
  are read (FTS5 answers them meanwhile): wall and CPU of each, in this process;
- with `--saves N` (instead), N saved notes, each scanned as the watcher queued it before and now (``saves``).

    .venv/bin/python bench/big_index.py --home /tmp/sift-scale/home-XXXX [--repeat 20] [--profile]
        [--top10 FILE] [--rescan] [--start] [--filters] [--during] [--saves N [--live CODE]]

``--top10 FILE`` writes the top 10 of every query (mode, filter) as JSON, to compare before/after a change.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path

from common import percentile

# The scale corpus: 200 texts of ~100 words ('ledger invoice contract …'), each title ending in its number.
QUERIES = {
    "common word": "invoice",
    "two common words": "payment contract",
    "rare word (1 text in 200)": "137",
    "proper noun (absent)": "Okonkwo",
    "six words": "quarterly budget forecast for the supplier",
}
FOLDER = "area-042"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _server_pid(ppid: int) -> int:
    """The sift-mcp process the client started (a child of this process)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == ppid and b"sift-mcp" in cmdline:
            return int(stat.parent.name)
    return 0


async def over_mcp(home: Path, repeat: int, top10: dict, start_only: bool = False) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    env = {**os.environ, "SIFT_HOME": str(home)}
    command = str(Path(sys.executable).parent / "sift-mcp")
    started = time.perf_counter()
    params = StdioServerParameters(command=command, args=["--no-worker"], env=env)
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        ready = time.perf_counter() - started
        first = await session.call_tool("search", {"query": "invoice", "mode": "keyword"})
        print(f"sift-mcp start → initialized {ready:.2f} s → first keyword search answered "
              f"{time.perf_counter() - started:.2f} s{' (error)' if first.is_error else ''}", flush=True)
        if start_only:
            return
        pid = _server_pid(os.getpid())
        for _ in range(1200):  # until the model and the postings are loaded
            stats = await session.call_tool("stats", {})
            if stats.structured_content["model"]["state"] in ("ready", "failed"):
                break
            await asyncio.sleep(0.5)
        await session.call_tool("search", {"query": "warm", "mode": "hybrid"})
        print(f"model ready after {time.perf_counter() - started:.1f} s; RSS {_rss_mb(pid):.0f} MB", flush=True)
        for _ in range(240):  # until the keyword postings are read (FTS5 answers meanwhile, much slower)
            answer = await session.call_tool("search", {"query": "invoice", "mode": "keyword"})
            took = re.search(r"\(keyword, ([0-9.]+) ms", answer.content[0].text)
            if took and float(took.group(1)) < 50:
                break
            await asyncio.sleep(0.5)
        print(f"keyword postings read after {time.perf_counter() - started:.1f} s; RSS {_rss_mb(pid):.0f} MB",
              flush=True)
        print(f"{'query':<28}{'mode':<9}{'filter':<10}{'p50 ms':>9}{'p95 ms':>9}{'hits':>6}", flush=True)
        for mode in ("keyword", "hybrid"):
            for label, query in QUERIES.items():
                for folder in (None, FOLDER):
                    args = {"query": query, "mode": mode, "limit": 10}
                    if folder:
                        args["path_prefix"] = folder
                    times, result = [], None
                    for _ in range(repeat):
                        t = time.perf_counter()
                        result = await session.call_tool("search", args)
                        times.append((time.perf_counter() - t) * 1000)
                    hits = (result.structured_content or {}).get("results", [])
                    top10[f"{mode}|{query}|{folder}"] = [(h["path"], h.get("start_line")) for h in hits]
                    print(f"{label:<28}{mode:<9}{folder or '-':<10}{percentile(times, 0.5):>9.1f}"
                          f"{percentile(times, 0.95):>9.1f}{len(hits):>6}", flush=True)
        listed = await session.call_tool("list_files", {"limit": 50, "sort": "path"})
        path = listed.structured_content["files"][0]["path"]
        calls = {
            "list_files (newest 50)": ("list_files", {"limit": 50}),
            "list_files by path": ("list_files", {"limit": 50, "sort": "path"}),
            f"list_files {FOLDER}/": ("list_files", {"limit": 50, "path_prefix": FOLDER}),
            "list_files glob *-1234*": ("list_files", {"limit": 50, "glob": "**/note-*1234*.md"}),
            "read_file": ("read_file", {"path": path}),
            "similar": ("similar", {"path": path}),
            "stats": ("stats", {}),
        }
        for label, (name, args) in calls.items():
            times = []
            for _ in range(max(3, repeat // 2)):
                t = time.perf_counter()
                result = await session.call_tool(name, args)
                times.append((time.perf_counter() - t) * 1000)
                if result.is_error:
                    print(f"{label}: error {result.content[0].text[:200]}")
                    break
            print(f"{label:<38}p50 {percentile(times, 0.5):8.1f} ms  p95 {percentile(times, 0.95):8.1f} ms",
                  flush=True)
        print(f"sift-mcp RSS after the calls: {_rss_mb(pid):.0f} MB", flush=True)


def profile(home: Path) -> None:
    import cProfile
    import pstats
    os.environ["SIFT_HOME"] = str(home)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from search.query.engine import from_settings
    from search.query.filters import Filters
    from search.settings import load
    engine = from_settings(load())
    t = time.perf_counter()
    engine.warm()
    print(f"\nin process: engine.warm() {time.perf_counter() - t:.1f} s", flush=True)
    for folder in (None, FOLDER):
        filters = Filters(path_prefix=folder)
        for query in QUERIES.values():
            engine.search(query, limit=10, mode="keyword", filters=filters)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(5):
            for query in QUERIES.values():
                engine.search(query, limit=10, mode="keyword", filters=filters)
        prof.disable()
        print(f"--- cProfile, 5 x {len(QUERIES)} keyword searches, filter {folder} ---")
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


FILTERS = {"-": {}, "path_prefix=area-042": {"path_prefix": FOLDER}, "glob=**/note-*1234*.md":
           {"glob": "**/note-*1234*.md"}, "glob=area-044/**/*.md": {"glob": "area-044/**/*.md"}}


def filtered(home: Path, repeat: int, top10: dict) -> None:
    """Searches with a folder or a glob matching few files, in this process: per query, mode and filter, the
    first search with that filter (its mask over the 200,000 paths is made then and kept), then the p50 of
    ``repeat`` more; keyword searches again on an engine that never reads the postings (FTS5 answers, as in the
    seconds after a start). The query vectors are embedded before the clock starts."""
    os.environ["SIFT_HOME"] = str(home)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from search.query.engine import Engine, from_settings
    from search.query.filters import Filters
    from search.settings import load
    engine = from_settings(load())
    engine.warm()
    fts = Engine(load().index_path, None, keyword_postings=False)
    for query in QUERIES.values():
        engine.search(query, limit=10, mode="hybrid")
    print(f"{'query':<28}{'mode':<9}{'filter':<26}{'first ms':>9}{'p50 ms':>9}{'hits':>6}", flush=True)
    for label, query in QUERIES.items():
        for mode, on in (("keyword", engine), ("hybrid", engine), ("keyword", fts)):
            for name, given in FILTERS.items():
                filters = Filters(**given)
                t = time.perf_counter()
                answer = on.search(query, limit=10, mode=mode, filters=filters)
                first = (time.perf_counter() - t) * 1000
                times = []
                for _ in range(repeat):
                    t = time.perf_counter()
                    answer = on.search(query, limit=10, mode=mode, filters=filters)
                    times.append((time.perf_counter() - t) * 1000)
                shown = mode if on is engine else "fts5"
                top10[f"{shown}|{query}|{name}"] = [(h.path, h.start_line, h.score) for h in answer.hits]
                print(f"{label:<28}{shown:<9}{name:<26}{first:>9.1f}{percentile(times, 0.5):>9.1f}"
                      f"{len(answer.hits):>6}", flush=True)
        engine._catalog[1]._masks.clear()  # the next query's first search with each filter makes its mask again


def during(home: Path) -> None:
    """``invoice`` (keyword) searched every second from the start of ``engine.warm()`` (in a thread) until the
    postings are read: the wall and CPU (this thread's) of each, and their median."""
    import threading
    os.environ["SIFT_HOME"] = str(home)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    started = time.perf_counter()
    warming = threading.Thread(target=engine.warm, daemon=True)
    warming.start()
    walls, cpus = [], []
    while engine._postings is None and warming.is_alive():
        time.sleep(1)
        wall, cpu = time.perf_counter(), time.thread_time()
        engine.search("invoice", limit=10, mode="keyword")
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.thread_time() - cpu) * 1000)
        print(f"{time.perf_counter() - started:5.1f} s: {walls[-1]:7.1f} ms wall, {cpus[-1]:6.1f} ms CPU", flush=True)
    warming.join()
    print(f"warm() done after {time.perf_counter() - started:.1f} s; {len(walls)} searches meanwhile: wall median "
          f"{percentile(walls, 0.5):.0f} ms (max {max(walls, default=0):.0f}), CPU median "
          f"{percentile(cpus, 0.5):.0f} ms", flush=True)


def _scale_in_process(home: Path):
    """The home's index connection, its 'scale' collection and root, with huey in immediate mode (a scan and the
    build it queues run in this process)."""
    os.environ["SIFT_HOME"] = str(home)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from search.index import collection_reads
    from workers import runtime
    from workers.app import huey
    huey.immediate = True
    runtime.reset()
    conn = runtime.index()
    collection = next(r for r in collection_reads.collections(conn) if r["name"] == "scale")
    return conn, collection, Path(collection["root"])


def rescans(home: Path) -> None:
    """The scans a worker runs on the big collection, in this process (huey's immediate mode, so a change goes
    through the whole pipeline): CPU and wall seconds of a scan with nothing changed, one file edited, 1,000
    files touched (mtime only), and five folders of 1,000 files each renamed; every change is undone after."""
    conn, collection, root = _scale_in_process(home)
    from search.index import collection_reads
    from workers import tasks
    sample = root / "area-000/topic-00/note-000000.md"
    original = sample.read_bytes()
    touched = sorted(root.glob("area-001/*/*.md"))[:1000]
    folders = [root / f"area-{n:03d}" for n in range(10, 15)]

    def timed(label: str) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        tasks.discover(collection["id"])  # immediate mode: the scan and the build it queues, in this process
        gen = collection_reads.get_collection(conn, collection["id"])["published"]
        print(f"scan, {label:<40} CPU {time.process_time() - cpu:6.1f} s  wall {time.perf_counter() - wall:6.1f} s"
              f"  (published: generation {gen})", flush=True)

    timed("nothing changed")
    timed("nothing changed (again)")
    sample.write_bytes(original + b"\nOne more line about Okonkwo.\n")
    timed("1 file edited")
    sample.write_bytes(original)
    timed("that edit undone")
    for path in touched:
        os.utime(path, (time.time(), time.time() + 5))
    timed("1,000 files touched")
    for folder in folders:
        folder.rename(folder.with_name(folder.name + "-moved"))
    try:
        timed("5 folders of 1,000 renamed")
    finally:
        for folder in folders:
            folder.with_name(folder.name + "-moved").rename(folder)
    timed("renamed back")


def saves(home: Path, count: int) -> None:
    """What one saved note costs a worker, in this process (huey's immediate mode: the scan, and the build it
    queues, run here): ``count`` notes in different folders are saved one after another, each followed by the scan
    the watcher queues for it, as before (a walk of the whole collection) and as now (the saved path alone).
    Timed: from the save to the generation holding the edit being published (the watcher's QUIET_MS of quiet
    before it queues the scan comes on top), and the CPU of the scan and its build; each edit is then undone."""
    conn, collection, root = _scale_in_process(home)
    from workers import tasks
    tasks.discover(collection["id"])  # a copied tree's new ctimes are settled first (every file hashed once)
    notes = [f"area-{20 + n:03d}/topic-0{n % 10}/" for n in range(count)]
    notes = [folder + sorted(p.name for p in (root / folder).glob("*.md"))[0] for folder in notes]
    for how, named in (("walk of the collection (before)", False), ("the saved path alone (after)", True)):
        cpus, walls = [], []
        for n, rel in enumerate(notes):
            original = (root / rel).read_bytes()
            marker = f"Okonkwo{n}{'after' if named else 'before'}"
            for text in (original + f"\nA line about {marker}.\n".encode(), original):
                cpu, wall = time.process_time(), time.perf_counter()
                (root / rel).write_bytes(text)
                tasks.discover(collection["id"], **({"paths": [rel]} if named else {}))
                held = marker in _current_text(conn, collection["id"], rel)
                if text != original:
                    cpus.append(time.process_time() - cpu)
                    walls.append(time.perf_counter() - wall)
                    assert held, f"{rel}: the edit is not in the published generation"
        print(f"save → searchable, {how:<34} wall p50 {percentile(walls, 0.5):6.2f} s  max {max(walls):6.2f} s"
              f"   CPU per save p50 {percentile(cpus, 0.5):6.2f} s  max {max(cpus):6.2f} s  ({count} saves)",
              flush=True)


def live(home: Path, count: int, code: Path) -> None:
    """``saves`` with the real processes: a huey consumer (one worker) and the watcher, of the Sift at ``code``
    (its folder is the processes' working directory and PYTHONPATH: another checkout measures the code before a
    change), on the home. After the watcher's start-up scan, ``count`` notes are saved one after another: the time
    from each save until its edit is in the published generation (polled every 50 ms), and the consumer's CPU
    (its worker included) from the save until 1 s after that; each edit is undone before the next."""
    import sqlite3
    import subprocess
    env = {**os.environ, "SIFT_HOME": str(home), "PYTHONPATH": str(code)}
    conn = sqlite3.connect(home / "index.db")
    collection, root = conn.execute("SELECT id, root FROM collections WHERE name = 'scale'").fetchone()
    root = Path(root)
    notes = [f"area-{40 + n:03d}/topic-0{n % 10}/" for n in range(count)]
    notes = [folder + sorted(p.name for p in (root / folder).glob("*.md"))[0] for folder in notes]
    started = time.time()
    procs = [subprocess.Popen([sys.executable, "-m", "huey.bin.huey_consumer", "workers.app.huey", "-k", "process",
                               "-w", "1", "-d", "0.1", "-m", "2", "-b", "1.5"], cwd=code, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True),
             subprocess.Popen([sys.executable, "-m", "workers.watch"], cwd=code, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        _until(lambda: _scanned_since(conn, collection, started), 600)  # the watcher's start-up walk
        time.sleep(3)
        cpus, walls = [], []
        for n, rel in enumerate(notes):
            original = (root / rel).read_bytes()
            marker = f"Okonkwo{n}live{int(started)}"
            cpu, wall = _tree_cpu(procs[0].pid), time.perf_counter()
            (root / rel).write_bytes(original + f"\nA line about {marker}.\n".encode())
            _until(lambda: marker in _current_text(conn, collection, rel), 600)
            walls.append(time.perf_counter() - wall)
            time.sleep(1)
            cpus.append(_tree_cpu(procs[0].pid) - cpu)
            (root / rel).write_bytes(original)
            _until(lambda: marker not in _current_text(conn, collection, rel), 600)
            time.sleep(2)
        print(f"live, {code}: save → searchable p50 {percentile(walls, 0.5):5.2f} s  max {max(walls):5.2f} s   "
              f"consumer CPU per save p50 {percentile(cpus, 0.5):5.2f} s  max {max(cpus):5.2f} s  ({count} saves)",
              flush=True)
    finally:
        for proc in procs:
            os.killpg(proc.pid, 2)
        for proc in procs:
            proc.wait(timeout=60)


def _until(done, most: float) -> None:
    end = time.monotonic() + most
    while not done():
        if time.monotonic() > end:
            raise TimeoutError("waited too long")
        time.sleep(0.05)


def _scanned_since(conn, collection: int, when: float) -> bool:
    row = conn.execute("SELECT scanned_unchanged, scan_started, (SELECT max(started) FROM generations WHERE "
                       "collection = c.id AND state = 'published') FROM collections c WHERE id = ?",
                       (collection,)).fetchone()
    return row[1] is None and max(t or 0 for t in (row[0], row[2])) > when


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of the process and its children, as /proc has them."""
    total = 0.0
    for proc in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{proc}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in task.read_text().split():
            found += [int(child), *_children(int(child))]
    return found


def _current_text(conn, collection: int, rel: str) -> str:
    """The published chunks' text of the file ``rel``."""
    rows = conn.execute("SELECT c.text FROM chunks c JOIN files f ON f.id = c.file WHERE f.collection = ? "
                        "AND f.path = ? AND f.gen_to IS NULL", (collection, rel)).fetchall()
    return " ".join(row[0] for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top10", type=Path)
    parser.add_argument("--rescan", action="store_true", help="only the scans (see rescans)")
    parser.add_argument("--start", action="store_true", help="only sift-mcp's start until its first search")
    parser.add_argument("--filters", action="store_true", help="only searches with a folder or glob (filtered)")
    parser.add_argument("--during", action="store_true", help="only keyword searches while warm() runs (during)")
    parser.add_argument("--saves", type=int, metavar="N", help="only N saves, each scanned as before and as now "
                        "(see saves)")
    parser.add_argument("--live", type=Path, metavar="CODE", help="with --saves: the saves through a real consumer "
                        "and watcher of the Sift checkout CODE (see live)")
    args = parser.parse_args()
    if args.saves and args.live:
        live(args.home.resolve(), args.saves, args.live.resolve())
        return
    if args.saves:
        saves(args.home.resolve(), args.saves)
        return
    if args.rescan:
        rescans(args.home.resolve())
        return
    if args.during:
        during(args.home.resolve())
        return
    top10: dict = {}
    if args.filters:
        filtered(args.home.resolve(), args.repeat, top10)
        if args.top10:
            args.top10.write_text(json.dumps(top10, indent=1, ensure_ascii=False))
        return
    asyncio.run(over_mcp(args.home.resolve(), args.repeat, top10, args.start))
    if args.top10:
        args.top10.write_text(json.dumps(top10, indent=1, ensure_ascii=False))
    if args.profile:
        profile(args.home.resolve())


if __name__ == "__main__":
    main()
