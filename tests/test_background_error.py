"""A big file's background embedding that fails for good records the class of its error (schema V31's
background.error), as a file embedded with its build does (V30's progress.error): it was said in words alone, and
`ingest stats --json` had no class for it, under `background` nor among a later build's failures.

huey in immediate mode with the real model; the job fails as tests/test_background.py makes it fail, for a model no
file holds (embedding.locate's ModelError).
"""
from __future__ import annotations

import json

from search.index import collection_reads, work_reads
from tests.conftest import run_ingest_here
from tests.test_background import big_note, failed_job, handed_on


def test_a_failed_background_job_records_its_error_class(immediate, sift_env, tmp_path, monkeypatch, capsys):
    from search.index import store
    from search.index.remembered import Basis
    from workers import runtime, tasks
    report, conn, root, big = handed_on(tmp_path, monkeypatch)
    tasks.discover(report["id"])
    failed_job(conn, report["id"])
    [row] = work_reads.background(conn, report["id"])
    assert row["failed"] and row["error"] == "ModelError", dict(row)
    [c] = json.loads(run_ingest_here(capsys, "stats", "--json").stdout)["collections"]
    [aside] = c["background"]
    assert (aside["state"], aside["error"]) == ("failed", "ModelError"), aside

    assert run_ingest_here(capsys, "retry-failed").returncode == 0
    [row] = work_reads.background(conn, report["id"])
    assert row["failed"] is None and row["error"] is None, dict(row)
    tasks.discover(report["id"])  # the scan retry-failed queued: big.md handed on again, embedded (immediate)
    tasks.discover(report["id"])  # the scan the finished job asked for: its build publishes big.md

    # a new version handed on by a build that did not write it, whose job fails: a later scan carries the failure
    # on into its build's progress row (stats names it under background), with the class
    big.write_text(big_note(41, "seal"))
    st = big.stat()
    store.begin_background(conn, report["id"], "big.md", Basis(st.st_size, st.st_mtime, st.st_ctime,
                           tasks._settings_print(runtime.model_id(), "big.md")), st.st_size, 41, 2.0)
    [row] = work_reads.background(conn, report["id"])
    assert row["failed"] is None and row["error"] is None, "a new hand-off forgets the last one's failure"
    failed_job(conn, report["id"], since=2.0)
    tasks.discover(report["id"])
    gen = collection_reads.get_collection(conn, report["id"])["published"]
    row = conn.execute("SELECT state, error FROM progress WHERE generation = ? AND path = 'big.md'", (gen,)).fetchone()
    assert tuple(row) == ("failed", "ModelError"), tuple(row)


def test_an_index_of_v30_is_read_without_the_column_and_migrated(immediate, sift_env, tmp_path, monkeypatch,
                                                                 capsys):
    """Stats read a failed row of V30 (no class: None) before a writer migrates it, which adds the column."""
    import os

    from search.index import db, working
    from tests.conftest import as_older_index
    report, conn, root, big = handed_on(tmp_path, monkeypatch)
    failed_job(conn, report["id"])
    path = as_older_index(dict(os.environ), "ALTER TABLE background DROP COLUMN error;", 30)
    reader = db.connect(path, readonly=True)
    try:
        [aside] = working.in_background(reader, report["id"])
    finally:
        reader.close()
    assert aside["state"] == "failed" and aside["reason"] and aside["error"] is None, aside
    writer = db.connect(path)  # the writer's connection migrates
    try:
        [row] = work_reads.background(writer, report["id"])
        version = writer.execute("PRAGMA user_version").fetchone()[0]
    finally:
        writer.close()
    assert version == 31 and row["failed"] == aside["reason"] and row["error"] is None, (version, dict(row))
