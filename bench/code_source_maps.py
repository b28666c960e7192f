"""How long a minified frame takes to read through its source map, and how much memory, as the map grows.

Writes source maps of 1, 10 and 50 MB (most of a real map is its sources' text, ``sourcesContent``; here half
of it is mappings, a bundle of one long line per 64 KB of code, the worst case: every segment before the frame is
decoded) and looks up a frame at the start and at the end of the bundle, the farthest place. Prints the median of
five lookups and the peak of Python's allocations (tracemalloc) during one, beside the map's size: a map whose
mappings before the frame are over MAX_MAPPINGS_READ is refused.

    python bench/code_source_maps.py
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from search.query import source_maps  # noqa: E402

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _vlq(number: int) -> str:
    number = (-number << 1) | 1 if number < 0 else number << 1
    digits = ""
    while True:
        digit, number = number & 31, number >> 5
        digits += B64[digit | (32 if number else 0)]
        if not number:
            return digits


def write_map(folder: Path, megabytes: int) -> tuple[Path, int, int]:
    """A map of about ``megabytes``, half mappings, half sources' text; (the map, the bundle's last line, a column
    on it)."""
    rng = random.Random(1)
    lines, size, line = [], 0, 0
    source_line = 0
    while size < megabytes * 2**20 // 2:
        segments, column = [], 0
        for _ in range(4000):  # a bundle line of 4,000 segments
            step, down = rng.randint(1, 30), rng.randint(-3, 4)
            segments.append(_vlq(step) + "A" + _vlq(down) + _vlq(rng.randint(-8, 8)))
            column, source_line = column + step, source_line + down
        encoded = ",".join(segments)
        lines.append(encoded)
        size += len(encoded) + 1
        line += 1
    text = "x" * (megabytes * 2**20 // 2)
    path = folder / f"main{megabytes}.js.map"
    path.write_text(json.dumps({"version": 3, "sources": ["src/app.ts"], "sourcesContent": [text],
                                "names": [], "mappings": ";".join(lines)}))
    return path, line, column


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="sift-maps-") as folder:
        print("map MB | mappings MB | frame at | median of 5 (s) | peak Python memory (MB) | found")
        for megabytes in (1, 10, 30, 50):
            path, line, column = write_map(Path(folder), megabytes)
            for where, (at_line, at_column) in (("start", (1, 200)), ("end", (line, column))):
                times, found = [], None
                for _ in range(5):
                    start = time.perf_counter()
                    try:
                        found = source_maps.original([("c", folder)], path.name.removesuffix(".map"), at_line,
                                                     at_column)
                    except source_maps.Refused as refused:
                        found = refused
                    times.append(time.perf_counter() - start)
                tracemalloc.start()
                try:
                    source_maps.original([("c", folder)], path.name.removesuffix(".map"), at_line, at_column)
                except source_maps.Refused:
                    pass
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                said = "refused" if isinstance(found, source_maps.Refused) else f"{found.source}:{found.line}" if found else "-"
                print(f"{path.stat().st_size / 2**20:6.1f} | {megabytes / 2:11.1f} | {where:8} | "
                      f"{statistics.median(times):15.2f} | {peak / 2**20:23.1f} | {said}")


if __name__ == "__main__":
    main()
