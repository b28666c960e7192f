"""How long a freed note's passages take to be planned for a new model's embedding (workers.freed_passages), as
its tables grow.

A note of N long tables (tests/freed_table_note.py: each table a header row and rows for a few passages, cut by
the real chunker at 64 plain tokens) is planned from its stored passages: each passage that starts among a
table's rows was first embedded with the table's header row, which is found by trying headers against the
stored hash. Prints the median of three plannings the way it is now (the nearest header before the passage
first) and, for the old way (every header seen so far, in order), one planning's time; and whether both give the
chunker's own texts.

    python bench/freed_passages.py
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent)]

from tests.freed_table_note import stored_chunks, table_note  # noqa: E402
from workers import freed_passages  # noqa: E402


def old_way(chunks, texts: dict[str, str]) -> None:
    """The planning before: every header the passages before showed tried in turn, the nearest not first."""
    notes, heads = freed_passages._footnotes(chunks), []
    for chunk in chunks:
        heads += [head for head in freed_passages._table_heads(chunk["text"]) if head not in heads]
        if chunk["text_hash"] not in texts:
            texts[chunk["text_hash"]] = freed_passages._as_first(chunk, heads, notes)


def main() -> None:
    print("tables | passages | now: median of 3 (s) | old way (s) | ratio | the chunker's texts (now, old)")
    for tables in (100, 300, 1000):
        rows, embedded = stored_chunks(table_note(tables))
        times, planned = [], {}
        for _ in range(3):
            planned = {}
            start = time.perf_counter()
            freed_passages.planned_rows(rows, planned)
            times.append(time.perf_counter() - start)
        old = {}
        start = time.perf_counter()
        old_way(rows, old)
        before = time.perf_counter() - start
        now = statistics.median(times)
        print(f"{tables:6} | {len(rows):8} | {now:20.3f} | {before:11.2f} | {before / now:5.0f}x | "
              f"{planned == embedded}, {old == embedded}")


if __name__ == "__main__":
    main()
