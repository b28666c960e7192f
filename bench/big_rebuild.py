"""The build that publishes a big file after its background job: how long it takes, and how much of it reading,
parsing and cutting the file again would be (README, Known limits: "A big file's own build …").

In one process, huey's immediate mode, the configured model (the default one if SIFT_MODEL is unset), ``--runs``
times: a note of ``--sections`` sections (one chunk each, as bench/background.py writes it; its words differ from
run to run, so none of its vectors is cached) is added to a new collection; its build hands it to the background,
whose job embeds it (zero vectors instead of the model's: their values do not matter here, and the model would
take a quarter of an hour); then the build that publishes it, every vector cached, is timed, with the worker's
remembered token counts forgotten first (``tasks._counts``: the worker that handed the file on counted them,
perhaps another worker, or long ago). Apart from it, reading and parsing the note, and cutting it into chunks
(counts forgotten too), are timed. Prints the medians.

    .venv/bin/python bench/big_rebuild.py [--sections 2000] [--runs 3]
"""
from __future__ import annotations

import argparse
import time

from common import fresh_home, median


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    home = fresh_home("big-rebuild")
    import numpy as np
    from ingest.chunk import chunk_document
    from ingest.files import read_and_parse
    from search.index import store, work_reads
    from search.model.info import dimension_of
    from workers import runtime, tasks
    from workers.app import huey
    huey.immediate = True
    conn, settings = runtime.index(), runtime.settings()
    embedder, size = runtime.embedder(), dimension_of(runtime.model_id())
    embedder.embed = lambda texts, kind="passage": np.zeros((len(texts), size), np.float32)
    limit, counter = tasks._counting(runtime.model_id(), settings)
    builds, parses, cuts, chunks = [], [], [], 0
    for run in range(1, args.runs + 1):
        root = home / f"notes{run}"
        root.mkdir()
        (root / "small.md").write_text("# Small\n\nThe pelican sings at dawn.\n")
        collection = store.ensure_collection(conn, f"notes{run}", str(root))["id"]
        tasks.discover(collection)
        (root / "big.md").write_text("".join(f"# Part {i}\n\n" + " ".join(
            f"Line {j} of part {i} of the long log tells of narwhal {run}.{i}.{j} and where it travelled that "
            "season." for j in range(12)) + "\n\n" for i in range(args.sections)))
        tasks.discover(collection)  # hands big.md on; its job embeds it (immediate mode); its scan finds a build on
        [row] = work_reads.background(conn, collection)
        assert row["done"] == row["total"], dict(row)
        tasks._counts.clear()
        started = time.monotonic()
        tasks.discover(collection)  # the build that publishes it
        builds.append(time.monotonic() - started)
        assert work_reads.background(conn, collection) == [], "published"
        started = time.monotonic()
        parsed = read_and_parse(root, "big.md")
        parses.append(time.monotonic() - started)
        tasks._counts.clear()
        started = time.monotonic()
        chunks = len(chunk_document(parsed.doc, counter, limit, min(settings.chunk_overlap, limit // 2), None))
        cuts.append(time.monotonic() - started)
    print(f"note of {args.sections} sections ({(root / 'big.md').stat().st_size / 1e6:.1f} MB, {chunks:,} chunks), "
          f"model {runtime.model_id()}, median of {args.runs}: the build that publishes it, every vector cached, "
          f"{median(builds):.2f} s; reading and parsing it {median(parses):.2f} s, cutting it {median(cuts):.2f} s",
          flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
