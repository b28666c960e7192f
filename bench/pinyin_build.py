"""What recording the pinyin of the index's Chinese words (schema V27, search.query.pinyin) costs a build.

Builds ../shared/data/zh-retrieval (7,244 Chinese passages) keyword-only (SIFT_EMBEDDINGS=off: embedding would hide
the difference) through the real pipeline, huey in immediate mode, in one process, with the pinyin step and without
it (``store.pinyin_words`` returning nothing: the build before V26), alternately, RUNS times each; prints the median
build time, the index's size (checkpointed), the pinyin table's rows, what V29's fill of an older index costs, and
the time of a pinyin query ('ganmao') and others, with the query's pinyin step and without it, on the postings in
memory; first what loading pypinyin and jieba costs a worker process, and that an English build loads neither.

    .venv/bin/python bench/pinyin_build.py [--runs 3] [--imports]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import fresh_home, median, shared_data  # noqa: E402


def build(with_pinyin: bool) -> tuple[float, int, int, float]:
    """(seconds, index bytes, pinyin rows, CPU seconds of this process) of one keyword-only build of zh-retrieval."""
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    home = fresh_home("pinyin")
    kept = store.pinyin_words
    if not with_pinyin:
        store.pinyin_words = lambda texts, held=frozenset(): []
    try:
        runtime.reset()
        huey.immediate = True
        started, cpu = time.perf_counter(), time.process_time()
        conn = runtime.index()
        collection = store.ensure_collection(conn, "zh", str(shared_data("zh-retrieval") / "docs"))
        tasks.discover(collection["id"])
        took, cpu = time.perf_counter() - started, time.process_time() - cpu
        runtime.reset()
    finally:
        store.pinyin_words = kept
    db = sqlite3.connect(home / "index.db")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    rows = db.execute("SELECT count(*) FROM pinyin").fetchone()[0]
    db.close()
    size = (home / "index.db").stat().st_size
    if with_pinyin:
        os.environ["SIFT_PINYIN_BENCH_HOME"] = str(home)  # kept for the query timing
    else:
        shutil.rmtree(home, ignore_errors=True)
    return took, size, rows, cpu


def fill_time(home: Path) -> tuple[float, int]:
    """(seconds, rows) of schema V29's fill of the table from the index's passages and file titles
    (``schema._fill_pinyin``: what migrating an index built before V28 costs), on a copy of the built index."""
    from search.index import schema
    copy = home.parent / f"{home.name}-fill.db"
    source = sqlite3.connect(home / "index.db")
    target = sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.execute("DELETE FROM pinyin")
    target.commit()
    started = time.perf_counter()
    with target:
        schema._fill_pinyin(target)
    took = time.perf_counter() - started
    rows = target.execute("SELECT count(*) FROM pinyin").fetchone()[0]
    target.close()
    copy.unlink()
    return took, rows


def query_times(home: Path, queries: list[str], repeats: int = 20) -> dict[str, float]:
    """Median milliseconds of each keyword query, the postings in memory."""
    from search.query.engine import Engine
    engine = Engine(home / "index.db", None)
    engine.warm()
    times = {}
    for query in queries:
        engine.search(query, mode="keyword")  # once to warm
        runs = []
        for _ in range(repeats):
            started = time.perf_counter()
            answer = engine.search(query, mode="keyword")
            runs.append((time.perf_counter() - started) * 1000)
        times[query] = (median(runs), [h.path for h in answer.hits[:1]], answer.notes)
    engine.close()
    return times


JIEBA = "import logging, jieba; jieba.setLogLevel(logging.WARNING); {where}jieba.initialize(){after}"
IMPORTS = {"pypinyin": "import pypinyin.constants",
           "jieba": JIEBA.format(where="", after=""),  # from its cache file (the temp dir's jieba.cache), made if none
           # from its dict.txt, as with no cache file, then written to an empty folder: what the cache saves
           "jieba without its cache file": JIEBA.format(
               where="import shutil, tempfile; jieba.dt.tmp_dir = tempfile.mkdtemp(prefix='sift-bench-jieba-'); ",
               after="; shutil.rmtree(jieba.dt.tmp_dir)"),
           "the English word list": "from search.query import english_words; english_words.common('women')"}


def import_costs(runs: int = 5) -> None:
    """What a worker process pays once for the table's libraries (median seconds of ``runs`` fresh interpreters), and
    which of them an English build loads (none: search.query.pinyin imports each where a write has Chinese)."""
    import subprocess
    for name, code in IMPORTS.items():
        took = [subprocess.run([sys.executable, "-c", f"import time; t, c = time.perf_counter(), time.process_time(); "
                                f"{code}; print(time.perf_counter() - t, time.process_time() - c)"],
                               capture_output=True, text=True, check=True,
                               env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
                               ).stdout.split() for _ in range(runs)]
        print(f"  {name} loaded in a worker process: {median(float(w) for w, _ in took):.2f} s, "
              f"CPU {median(float(c) for _, c in took):.2f} s (medians of {runs})")
    english = Path(fresh_home("pinyin-english")) / "notes"
    for i in range(3):
        english.mkdir(exist_ok=True)
        (english / f"note{i}.md").write_text(f"# Note {i}\n\nCaches and databases, in English.\n")
    probe = ("import os, sys; from workers import runtime, tasks; from workers.app import huey; "
             "from search.index import store; huey.immediate = True; conn = runtime.index(); "
             f"c = store.ensure_collection(conn, 'notes', {str(english)!r}); tasks.discover(c['id']); "
             "print(sorted(m for m in ('pypinyin', 'jieba') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}).stdout
    print(f"  an English build's process loads of them: {loaded.strip()}")
    shutil.rmtree(english.parent, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--imports", action="store_true", help="only what loading pypinyin and jieba costs")
    args = parser.parse_args()
    os.environ["SIFT_EMBEDDINGS"] = "off"
    print("the table's libraries:")
    import_costs()
    if args.imports:
        return
    figures = {True: [], False: []}
    for _ in range(args.runs):
        for with_pinyin in (False, True):
            if with_pinyin and "SIFT_PINYIN_BENCH_HOME" in os.environ:
                shutil.rmtree(os.environ.pop("SIFT_PINYIN_BENCH_HOME"), ignore_errors=True)
            figures[with_pinyin].append(build(with_pinyin))
    before, after = figures[False], figures[True]
    t0, t1 = median([f[0] for f in before]), median([f[0] for f in after])
    s0, s1 = median([f[1] for f in before]), median([f[1] for f in after])
    print(f"zh-retrieval, keyword-only build, median of {args.runs}:")
    print(f"  without pinyin: {t0:.2f} s, index {s0 / 1e6:.1f} MB")
    print(f"  with pinyin:    {t1:.2f} s, index {s1 / 1e6:.1f} MB, {after[0][2]:,} pinyin rows")
    print(f"  ratio: time {t1 / t0:.3f}x, size {s1 / s0:.3f}x")
    c0, c1 = median([f[3] for f in before]), median([f[3] for f in after])
    print(f"  CPU time of the process (what a shared machine's load changes least): {c0:.2f} -> {c1:.2f} s, "
          f"{c1 / c0:.3f}x")
    home = Path(os.environ["SIFT_PINYIN_BENCH_HOME"])
    took, rows = fill_time(home)
    print(f"  V29's fill of an older index (passages and titles): {took:.2f} s, {rows:,} rows")
    from search.query import pinyin
    queries = ["感冒", "ganmao", "ganmao fashao", "cold fever", "huancun"]
    read = query_times(home, queries)
    kept, pinyin.searched = pinyin.searched, lambda *args: {}  # the query step left out: the search before V26
    try:
        plain = query_times(home, queries)
    finally:
        pinyin.searched = kept
    for query, (ms, first, notes) in read.items():
        print(f"  query {query!r}: {ms:.1f} ms, without the pinyin step {plain[query][0]:.1f} ms (medians of 20); "
              f"first {first}, notes {notes}")
    shutil.rmtree(os.environ.pop("SIFT_PINYIN_BENCH_HOME"), ignore_errors=True)


if __name__ == "__main__":
    main()
