"""What list_files' sort='dated' (newest first by the dates the files' passages are about) costs against the
modified-time order, with a date range and without.

The synthetic index of bench/catalog_dates.py (20,000 files, 200,000 passages, real schema, a share of the passages
dated), listed by search.query.listing.files (the first 50, as list_files does), each order in turn, nine times each:
the medians.

    .venv/bin/python bench/listing_dates.py [--share 0.1 1] [--dir DIR]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.catalog_dates import FILES, PASSAGES, build
from search.index import db
from search.query import listing
from search.query.scope import MCP, Scope

# the dates of catalog_dates' passages run from 1.6e9 on (September 2020), one second apart: a range over a third
RANGE = (1.6e9 + PASSAGES // 3, 1.6e9 + 2 * PASSAGES // 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--share", type=float, nargs="+", default=[0.1, 1.0])
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    for share in args.share:
        folder = Path(tempfile.mkdtemp(dir=args.dir))
        build(folder / "index.db", share)
        reader = db.connect(folder / "index.db", readonly=True)
        cases = {f"{sort}{' in a range' if dated else ''}": (sort, dated)
                 for dated in (None, RANGE) for sort in ("modified", "dated")}
        times = {name: [] for name in cases}
        for _ in range(9):
            for name, (sort, dated) in cases.items():
                start = time.perf_counter()
                listing.files(reader, Scope(None, None), None, sort, 50, {"c": "/x"}, MCP, lambda *_: "note",
                              dated=dated)
                times[name].append(time.perf_counter() - start)
        print(f"{share:.0%} of {PASSAGES:,} passages in {FILES:,} files dated: " + ", ".join(
            f"{name} {statistics.median(t) * 1000:.0f} ms" for name, t in times.items()))


if __name__ == "__main__":
    main()
