"""Search latency and memory at about 10k and about 100k chunks.

Builds an index of scifact (and, with --with-notes, notes-en) through the
real pipeline (huey's immediate mode), measures, then adds copies of those
corpora as further collections until the index holds about 100k chunks and
measures again. The
copies are symlinked folders: their chunks are new rows, but the embedding
cache means nothing is embedded twice.

Each measurement runs in a fresh process that only serves searches: 200
queries per mode, after a warm-up pass, printing p50 and p95 (the hybrid and
semantic figures include embedding the query) and the process's peak RSS.

    .venv/bin/python bench/latency.py [--home DIR] [--target 100000]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from common import fresh_home, percentile, shared_data, use_all_cores

QUERIES = 200
NOTE_QUERIES = ["undo the last commit", "rebase interactive", "docker compose volumes", "postgres index",
                "vim macros", "react hooks state", "tmux split pane", "ruby hash default", "jq filter arrays",
                "rails migration rollback"]


def chunks(conn) -> int:
    from search.store import VISIBLE
    return conn.execute(f"SELECT count(*) FROM chunks ch JOIN files f ON f.id = ch.file "
                        f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE}").fetchone()[0]


def add_collection(conn, name: str, root: Path) -> None:
    from search import store
    from workers import tasks
    collection = store.ensure_collection(conn, name, str(root))
    if collection["published"] is None:
        tasks.discover(collection["id"])


def build(home: Path, target: int, with_notes: bool) -> list[int]:
    """Index the corpora, then copies; returns the chunk counts measured at."""
    from workers import runtime
    from workers.app import huey
    huey.immediate = True
    runtime.reset()
    conn = runtime.index()
    corpora = [("scifact", shared_data("scifact") / "docs")]
    if with_notes:
        corpora.append(("notes", shared_data("notes-en")))
    for name, root in corpora:
        add_collection(conn, name, root)
    sizes = [chunks(conn)]
    measure(home, sizes[-1])
    copies = home / "copies"
    copies.mkdir(exist_ok=True)
    n = 0
    while chunks(conn) < target:
        name, root = corpora[n % len(corpora)]
        link = copies / f"{name}-{n}"
        if not link.exists():
            link.symlink_to(root)
        add_collection(conn, f"{name}-copy-{n}", link)
        n += 1
    sizes.append(chunks(conn))
    measure(home, sizes[-1])
    return sizes


def measure(home: Path, size: int) -> None:
    print(f"\n--- {size} chunks ---", flush=True)
    subprocess.run([sys.executable, __file__, "--serve", "--home", str(home)], check=True, env=os.environ)


def serve(home: Path) -> None:
    """Run in a fresh process: only searching, so its peak memory is the server's."""
    os.environ["SIFT_HOME"] = str(home)
    from search.engine import from_settings
    from search.settings import load
    base = shared_data("scifact")
    claims = [line.split("\t", 1)[1].strip() for line in open(base / "queries.tsv", encoding="utf-8")]
    queries = (claims + NOTE_QUERIES * 20)[:QUERIES]
    engine = from_settings(load())
    engine.query_vectors_kept = 0  # every timed query is embedded
    started = time.perf_counter()
    engine.warm()
    print(f"loaded the keyword postings and vectors in {time.perf_counter() - started:.1f} s", flush=True)
    results = {}
    for mode in ("keyword", "semantic", "hybrid"):
        for query in queries[:20]:  # warm: model loaded, matrix in memory, pages cached
            engine.search(query, limit=10, mode=mode)
        times = []
        for query in queries:
            started = time.perf_counter()
            engine.search(query, limit=10, mode=mode)
            times.append((time.perf_counter() - started) * 1000)
        results[mode] = (percentile(times, 0.5), percentile(times, 0.95))
        print(f"{mode:<9} p50 {results[mode][0]:7.1f} ms   p95 {results[mode][1]:7.1f} ms", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of the serving process: {peak:.0f} MB", flush=True)
    baseline = fts5_baseline(engine, queries)
    print(f"baseline, keyword ranked by FTS5's bm25() itself: p50 {baseline[0]:7.1f} ms   p95 {baseline[1]:7.1f} ms"
          f"   (postings in memory: {baseline[0] / results['keyword'][0]:.0f}x faster at p50)", flush=True)
    after = after_publish(engine, home, queries[0])
    print(f"first hybrid search after a publish: median {after[0]:.1f} ms, worst {after[1]:.1f} ms "
          f"(catalog, new postings and vectors read)", flush=True)
    print(json.dumps({"modes": results, "peak_mb": peak, "after_publish_ms": after}), file=sys.stderr)


def fts5_baseline(engine, queries: list[str]) -> tuple[float, float]:
    """Keyword search as it was before the postings were held in memory: FTS5 ranks every match."""
    from search.engine import Engine
    plain = Engine(engine.index_path, keyword_postings=False)
    for query in queries[:20]:
        plain.search(query, limit=10, mode="keyword")
    times = []
    for query in queries:
        started = time.perf_counter()
        plain.search(query, limit=10, mode="keyword")
        times.append((time.perf_counter() - started) * 1000)
    return percentile(times, 0.5), percentile(times, 0.95)


def after_publish(engine, home: Path, query: str, rounds: int = 5) -> tuple[float, float]:
    """Edit a note in a small collection of its own, publish it, and time the next search (median, worst).

    Runs after the peak memory is taken: the pipeline runs in this process (huey's immediate mode).
    """
    from search import store
    from workers import runtime, tasks
    from workers.app import huey
    huey.immediate = True
    runtime.reset()
    root = home / "scratch"
    root.mkdir(exist_ok=True)
    collection = store.ensure_collection(runtime.index(), "scratch", str(root))
    times = []
    for n in range(rounds + 1):
        (root / "note.md").write_text(f"# Scratch\n\nEdit number {n} at {time.time()}.\n", encoding="utf-8")
        tasks.discover(collection["id"])
        started = time.perf_counter()
        engine.search(query, limit=10, mode="hybrid")
        times.append((time.perf_counter() - started) * 1000)
    times = times[1:]  # the first round adds the collection itself
    return percentile(times, 0.5), max(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="build (or reuse) the index here")
    parser.add_argument("--target", type=int, default=100_000)
    parser.add_argument("--with-notes", action="store_true", help="also index notes-en (3.5k chunks to embed)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.home)
        return
    if args.home:
        args.home.mkdir(parents=True, exist_ok=True)
        os.environ["SIFT_HOME"] = str(args.home)
        home = args.home
        if not os.environ.get("SIFT_MODEL"):
            fresh_home("unused")
            os.environ["SIFT_HOME"] = str(home)
    else:
        home = fresh_home("bench-latency")
    use_all_cores()
    started = time.perf_counter()
    sizes = build(home, args.target, args.with_notes)
    print(f"\nbuilt {sizes} chunks in {time.perf_counter() - started:.0f} s ({home})")


if __name__ == "__main__":
    main()
