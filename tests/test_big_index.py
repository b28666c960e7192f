"""What a big index costs the one who searches it, counted rather than timed (bench/big_index.py times it at
200,000 files): the reads a search waits behind, the work a call does per file."""
from __future__ import annotations

import os
from pathlib import Path

from search.query.engine import Engine
from tests.conftest import ingest, write_tree

NOTES = {f"area-{i % 3}/note-{i:02d}.md": f"# Note {i}\n\nThe ledger of invoice {i} for the warehouse.\n"
         for i in range(12)}


def _engine(embedder) -> Engine:
    return Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)


def test_warm_lets_searches_in_between_slices_of_vectors(immediate, tmp_path, embedder):
    """sift-mcp's warm-up read every vector inside one snapshot holding the engine's connection: the first search
    after a start waited for all of them (13.8-19.6 s at 200,000 chunks). It reads them a slice at a time now,
    each in a snapshot of its own, and the answers are the same."""
    ingest(write_tree(tmp_path / "notes", NOTES))
    sliced, whole = _engine(embedder), _engine(embedder)
    sliced.warm_slice = 2
    begun = []
    sliced._connection().set_trace_callback(lambda sql: begun.append(sql) if sql == "BEGIN" else None)
    sliced.warm()
    assert len(begun) >= len(NOTES) // 2  # a snapshot per slice of two chunk ids, not two in all
    whole.warm()
    for mode in ("hybrid", "semantic", "keyword"):
        assert [(h.path, h.score) for h in sliced.search("warehouse ledger", mode=mode).hits] == \
            [(h.path, h.score) for h in whole.search("warehouse ledger", mode=mode).hits]
