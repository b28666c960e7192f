"""What loading the passages' own dates (chunks.dated, for date_after / date_before) adds to a reader's catalog.

Writes a synthetic index of 200,000 passages in 20,000 files (real schema, SQLite rows written directly), a share of
them dated, and loads search.query.catalog.Catalog from it, with the dates and without (catalog_reads.catalog_dates
answering none), interleaved, nine times each: the medians.

    .venv/bin/python bench/catalog_dates.py [--share 0 0.1 1] [--dir DIR]
"""
from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from search.index import catalog_reads, db
from search.query.catalog import Catalog

FILES, PASSAGES = 20_000, 200_000


def build(path: Path, share: float) -> None:
    conn = db.connect(path)
    conn.execute("INSERT INTO collections(id, name, root, published, created) VALUES (1, 'c', '/x', 1, 0)")
    conn.execute("INSERT INTO generations(id, collection, state, started) VALUES (1, 1, 'published', 0)")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO files(id, collection, path, kind, size, mtime, sha256, gen_from) "
                     "VALUES (?, 1, ?, 'note', 1, ?, 'x', 1)", [(i, f"f{i}.md", 1.7e9 + i) for i in range(1, FILES + 1)])
    per_file = PASSAGES // FILES
    conn.executemany("INSERT INTO chunks(file, ordinal, heading_path, text, tokens, text_hash, dated) "
                     "VALUES (?, ?, '', 'passage text', 2, 'h', ?)",
                     [(1 + i // per_file, i % per_file, 1.6e9 + i if random.random() < share else None)
                      for i in range(PASSAGES)])
    conn.execute("COMMIT")
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--share", type=float, nargs="+", default=[0.0, 0.1, 1.0])
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    real = catalog_reads.catalog_dates
    for share in args.share:
        folder = Path(tempfile.mkdtemp(dir=args.dir))
        build(folder / "index.db", share)
        reader = db.connect(folder / "index.db", readonly=True)
        times = {"without dates": [], "with dates": []}
        for _ in range(9):
            for name, dates in (("without dates", lambda conn: (None, None)), ("with dates", real)):
                catalog_reads.catalog_dates = dates
                start = time.perf_counter()
                Catalog.load(reader)
                times[name].append(time.perf_counter() - start)
        catalog_reads.catalog_dates = real
        print(f"{share:.0%} of {PASSAGES:,} passages dated: " + ", ".join(
            f"{name} {statistics.median(t) * 1000:.0f} ms" for name, t in times.items()))


if __name__ == "__main__":
    main()
