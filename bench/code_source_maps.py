"""How long a minified frame takes to read through its source map, and how much memory, as the map grows.

Writes source maps of 1, 10 and 50 MB (most of a real map is its sources' text, ``sourcesContent``; here half
of it is mappings, a bundle of one long line per 64 KB of code, the worst case: every segment before the frame is
decoded) and looks up a frame at the start and at the end of the bundle, the farthest place, and a trace's
eight frames at its end, one by one (as each search did) and together (``source_maps.originals``, one pass).
Prints the median of five lookups and the peak of Python's allocations (tracemalloc) during one, beside the map's
size: a map whose mappings before the frame are over MAX_MAPPINGS_READ is refused. Then an index map (``sections``)
just under MAX_INDEX_MAP_BYTES, its two sections' maps written in it, a frame at the end of the second, beside the
same map read alone: an index map is parsed whole.

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

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent)]

from search.query import source_maps  # noqa: E402
from tests.source_map_writer import vlq  # noqa: E402

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
            segments.append(vlq(step) + "A" + vlq(down) + vlq(rng.randint(-8, 8)))
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
            eight_frames(folder, path, line, column)


def eight_frames(folder: str, path: Path, line: int, column: int) -> None:
    """A trace's eight frames near the bundle's end (its last eight lines), looked up one by one (each reading the
    mappings to its place, as every search did) and together (source_maps.originals: one pass)."""
    bundle = path.name.removesuffix(".map")
    frames = [(bundle, at, column) for at in range(max(1, line - 7), line + 1)]
    alone, together = [], []
    for _ in range(5):
        start = time.perf_counter()
        one_by_one = {}
        for frame in frames:
            try:
                one_by_one[frame] = source_maps.original([("c", folder)], *frame)
            except source_maps.Refused as refused:
                one_by_one[frame] = str(refused)
        alone.append(time.perf_counter() - start)
        start = time.perf_counter()
        found = source_maps.originals([("c", folder)], frames)
        together.append(time.perf_counter() - start)
    tracemalloc.start()
    source_maps.originals([("c", folder)], frames)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    same = all((str(found[frame]) if isinstance(found[frame], source_maps.Refused) else found[frame])
               == one_by_one[frame] for frame in frames)
    one, all_at_once = statistics.median(alone), statistics.median(together)
    print(f"{path.stat().st_size / 2**20:6.1f} | eight frames at the end: one by one {one:.2f} s, "
          f"together {all_at_once:.2f} s ({one / all_at_once:.1f}x), peak {peak / 2**20:.1f} MB, same places: {same}")


def index_map(folder: Path) -> None:
    """A frame at the end of an index map's second section (two maps of 3 MB written in it), and the same
    frame read through that map alone: the index map is parsed whole, the plain one read where its keys are."""
    path, line, column = write_map(folder, 3)
    inner = json.loads(path.read_text())
    index = folder / "index.js.map"
    index.write_text(json.dumps({"version": 3, "sections": [{"offset": {"line": 0, "column": 0}, "map": inner},
                                                            {"offset": {"line": line, "column": 0}, "map": inner}]}))
    for name, at_line in (("index", 2 * line), (path.name, line)):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            found = source_maps.original([("c", str(folder))], name.removesuffix(".map") if name != "index"
                                         else "index.js", at_line, column)
            times.append(time.perf_counter() - start)
        tracemalloc.start()
        source_maps.original([("c", str(folder))], "index.js" if name == "index" else path.name.removesuffix(".map"),
                             at_line, column)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        size = (index if name == "index" else path).stat().st_size / 2**20
        print(f"{'index map' if name == 'index' else 'plain map':9} {size:5.1f} MB: frame at the end "
              f"{statistics.median(times):.2f} s, peak {peak / 2**20:.1f} MB, {found.source}:{found.line}")


if __name__ == "__main__":
    main()
    with tempfile.TemporaryDirectory(prefix="sift-maps-") as folder:
        index_map(Path(folder))
