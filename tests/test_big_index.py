"""What a big index costs the one who searches it, counted rather than timed (bench/big_index.py times it at
200,000 files): the reads a search waits behind, the work a call does per file."""
from __future__ import annotations

import os
from pathlib import Path

from search.query.engine import Engine
from tests.conftest import ingest, ingest_keyword_only, write_tree

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


def test_warm_reads_the_vectors_on_a_connection_of_its_own(immediate, tmp_path, embedder):
    """The slices of vectors were read on the engine's connection, each holding it: a lock is not fair, so a keyword
    search in the seconds after a start (FTS5 answering) waited for several slices, 0.1-3.7 s at 200,000 chunks
    (bench/big_index.py --during). warm() reads them on a connection of its own now: the engine's connection
    runs no read of vectors, and the vectors are all held after."""
    ingest(write_tree(tmp_path / "notes", NOTES))
    engine = _engine(embedder)
    engine.warm_slice = 2
    vector_reads = []
    engine._connection().set_trace_callback(lambda sql: vector_reads.append(sql) if "JOIN vectors" in sql else None)
    engine.warm()
    assert vector_reads == []
    assert sum(index.rows.count for index in engine._vector_indexes.values()) == len(NOTES)
    assert engine.search("warehouse ledger", mode="semantic").hits


def test_a_scan_makes_no_path_objects_per_file(tmp_path):
    """A rescan of 200,000 unchanged notes took 8.3-8.6 s of CPU, over half of it pathlib: each file's kind
    was asked three times through a PurePosixPath, and its stem made, to find PDFs beside notes where there were
    none. The work pathlib does is counted here (its function calls, by sys.setprofile): per folder now, not per
    file. The kinds found are the same (test_discover, test_kinds)."""
    import sys

    from ingest.discover import walk
    from ingest.links import converted_pdfs
    files = {f"area-{i % 3}/topic-{i % 2}/note-{i:03d}.md": "# Note\n" for i in range(300)}
    root = write_tree(tmp_path / "notes", files)
    # a walk first, uncounted: the modules a walk imports on first use (ingest.code, ingest.parse …) were imported
    # inside the count when no test before it in this process had, through pytest's import hook, whose pathlib
    # calls (1,282 here, run first) are not the walk's
    converted_pdfs({f.path for f in walk(root)})
    calls = []

    def count(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.endswith("pathlib.py"):
            calls.append(frame.f_code.co_name)
    sys.setprofile(count)
    try:
        found = walk(root)
        attached = converted_pdfs({f.path for f in found})
    finally:
        sys.setprofile(None)
    assert sorted(f.path for f in found) == sorted(files) and {f.kind for f in found} == {"note"}
    assert attached == {}
    assert len(calls) < len(files)  # per folder only: 20,000 calls for these 300 files before


def test_list_files_unfiltered_never_stores_every_file(immediate, tmp_path):
    """list_files took 1.3 s a call at 200,000 files on a busy machine (214 ms of CPU): its one query stored every
    matching file in a temporary table, built an index on it to join the collections back, and sorted them all
    for the first 50. Unfiltered, it counts them in one query and takes the first ones in another now, neither storing
    the files (SQLite's plan: a co-routine, and a sorter that keeps only the rows asked for); the rows are the
    same. Both read the same snapshot."""
    from search.index import db, listing_reads
    ingest(write_tree(tmp_path / "notes", NOTES))
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db", readonly=True)
    ran = []
    conn.set_trace_callback(lambda sql: ran.append(sql) if "entries" in sql else None)
    with db.snapshot(conn):
        rows = listing_reads.listing(conn, None, "1", {}, True, 5)
    conn.set_trace_callback(None)
    assert rows[0]["total"] == len(NOTES) and len(rows) == 5 and [r["path"] for r in rows] == \
        sorted((r["path"] for r in rows), key=lambda p: (-(tmp_path / "notes" / p).stat().st_mtime, p))
    plans = [r[3] for sql in ran for r in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    assert ran and not [step for step in plans if "MATERIALIZE entries" in step or "AUTOMATIC COVERING" in step]


def test_keyword_search_from_fts5_asks_fts5_alone_when_every_chunk_is_published(immediate, tmp_path):
    """While the postings are read, FTS5 answers keyword searches: its query joined every passage holding a word
    to its chunk, file and collection to keep the published ones (70-180 ms of 200-500 for a common word at
    200,000 chunks). When every chunk row is published and nothing is filtered, FTS5 is asked alone: the same
    rows in the same order. A chunk written by a generation being built brings the joins back (it must not
    show)."""
    import time

    from search.index import store
    from search.query.filters import Filters
    from workers import runtime
    ingest_keyword_only(write_tree(tmp_path / "notes", NOTES))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", keyword_postings=False)
    ran = []
    engine._connection().set_trace_callback(lambda sql: ran.append(sql) if "bm25(" in sql else None)
    alone = engine.search("ledger invoice", mode="keyword", limit=20)
    assert len(ran) == 1 and "JOIN files" not in ran[0], ran
    ran.clear()
    joined = engine.search("ledger invoice", mode="keyword", limit=20, filters=Filters(kind="note"))
    assert len(ran) == 1 and "JOIN files" in ran[0], ran
    assert [(h.path, h.score) for h in alone.hits] == [(h.path, h.score) for h in joined.hits]
    assert len(alone.hits) == len(NOTES)

    conn = runtime.index()  # a generation being built writes a chunk that says 'ledger': not published
    collection = conn.execute("SELECT id FROM collections").fetchone()["id"]
    gen = store.begin_generation(conn, collection, None)
    store.record_plan(conn, gen, collection, {"new.md": "added"}, {}, len(NOTES) + 1)
    version = store.FileVersion("new.md", "note", 9, time.time(), "cd" * 32, "New")
    store.write_files(conn, gen, collection, [(version, [store.ChunkRow(0, "New", "The ledger.", 3, "n" * 32)])],
                      None, {}, {"new.md": 0})
    ran.clear()
    building = engine.search("ledger invoice", mode="keyword", limit=20)
    assert len(ran) == 1 and "JOIN files" in ran[0], ran
    assert [(h.path, h.score) for h in building.hits] == [(h.path, h.score) for h in alone.hits]
