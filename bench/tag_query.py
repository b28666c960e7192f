"""What a '#tag' query's step (search.query.tags.tagged_first) and a catalog's tags cost, over a tagged vault.

Copies shared/data/notes-en's notes with front matter tags (til, the folder, lang/<folder> and two of six more; and
an inline '#inline/a'), adds 1,500 journal notes of three tags each, builds them keyword-only (the real pipeline, huey
immediate mode), then times, medians: Catalog.load alone and with its tags read (``load_tags``: what each load did
before they were read lazily), interleaved; and per query the time tagged_first took, keyword search, the in-memory
index and FTS5's, the first '#tag' query of a fresh engine (which reads the tags) and the next ones.

    .venv/bin/python bench/tag_query.py [--dir DIR]
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path


QUERIES = ["#til git", "#bash loop", "#project shed", "#lang/python list", "#nosuchtag word", "#todo"]
OTHER = ["todo", "review", "draft", "idea", "work", "home"]


def write_vault(vault: Path) -> int:
    from tests.conftest import shared_data
    source = shared_data() / "notes-en"
    random.seed(1)
    written = 0
    for path in sorted(source.rglob("*.md")):
        rel = path.relative_to(source)
        text = path.read_text(encoding="utf-8", errors="replace")
        if text.startswith("---"):
            continue
        folder = rel.parts[0] if len(rel.parts) > 1 else "misc"
        tags = ["til", folder, f"lang/{folder}", *random.sample(OTHER, 2)]
        out = vault / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(f"---\ntags: [{', '.join(tags)}]\n---\n{text}\n#inline/{random.choice('abc')}\n")
        written += 1
    for i in range(1500):
        out = vault / "journal" / f"day-{i:04d}.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        tags = random.sample([*OTHER, "garden", "project/sift", "project/shed"], 3)
        out.write_text(f"---\ntags: [{', '.join(tags)}]\n---\n# Day {i}\n\nWorked on the garden and the shed; wrote "
                       f"some git notes and a bash loop {i}.\n")
        written += 1
    return written


def build(vault: Path, home: Path) -> None:
    os.environ.update(SIFT_HOME=str(home), SIFT_EMBEDDINGS="off", SIFT_NICE="0")
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    huey.immediate = True
    conn = runtime.index()
    tasks.discover(store.ensure_collection(conn, "notes", str(vault))["id"])
    huey.immediate = False
    runtime.reset()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, help="where the vault and its index go (kept; default: a temporary one)")
    args = parser.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="sift-tags-"))
    if not (base / "home" / "index.db").exists():
        print(f"{write_vault(base / 'vault')} notes written; building …", flush=True)
        build(base / "vault", base / "home")
    from search.index import db
    from search.query import engine as engines
    from search.query.catalog import Catalog
    index = base / "home" / "index.db"
    conn = db.connect(index, readonly=True)
    rows = conn.execute("SELECT count(*) FROM tags").fetchone()[0]
    alone, with_tags = [], []
    for _ in range(15):
        started = time.perf_counter()
        Catalog.load(conn)
        alone.append(time.perf_counter() - started)
        started = time.perf_counter()
        catalog = Catalog.load(conn)
        getattr(catalog, "load_tags", lambda conn: None)(conn)
        with_tags.append(time.perf_counter() - started)
    print(f"{rows:,} tag rows; Catalog.load {statistics.median(alone) * 1000:.1f} ms, "
          f"with its tags {statistics.median(with_tags) * 1000:.1f} ms")
    spent: list[float] = []
    tagged_first = engines.tags.tagged_first

    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return tagged_first(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - started)
    engines.tags.tagged_first = timed
    for postings in (True, False):
        first, next_ones = [], {query: [] for query in QUERIES}
        for _ in range(3):
            engine = engines.Engine(index, keyword_postings=postings)
            engine.warm()
            engine.search("plain words", mode="keyword")
            spent.clear()
            engine.search("#garden work", mode="keyword")
            first.append(sum(spent))
            for _ in range(5):
                for query in QUERIES:
                    spent.clear()
                    engine.search(query, mode="keyword", limit=10)
                    next_ones[query].append(sum(spent))
        print(f"{'in-memory' if postings else 'FTS5'}: tagged_first, the first '#tag' query "
              f"{statistics.median(first) * 1000:.1f} ms; " + "; ".join(
                  f"{query!r} {statistics.median(times) * 1000:.1f}" for query, times in next_ones.items()))


if __name__ == "__main__":
    main()
