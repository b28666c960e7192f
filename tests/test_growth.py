"""Weeks of use in a few dozen publishes: what the index keeps must not grow with every publish.

Each test edits a small folder again and again (huey's immediate mode, the real model and SQLite) and asserts a
bound after N cycles that does not depend on N. ``bench/soak.py`` does the same with real processes and prints
the figures."""
from __future__ import annotations

import time

import pytest

from tests.conftest import ingest, run_ingest, write_tree

CYCLES = 30
NOTES = {f"area{i % 3}/note{i}.md": f"# Note {i}\n\nThe otter number {i} swims in the river.\n" for i in range(12)}


def _rows(conn) -> dict[str, int]:
    return {table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("generations", "progress", "progress_counts", "files", "chunks", "vectors")}


def _edit(notes, cycle: int) -> None:
    (notes / f"area{cycle % 3}/note{cycle % 12}.md").write_text(
        f"# Note {cycle % 12}\n\nEdited in cycle {cycle}: the otter naps on a warm stone.\n")


def test_superseded_generations_and_their_progress_go_once_a_newer_one_is_published(immediate, sift_env,
                                                                                     tmp_path, monkeypatch):
    """Before: every publish left its generation row, a progress row per file it planned (and per file skipped or
    failed as before, marked again in each generation) and their counts, for ever. The vectors no chunk uses are
    kept up to a bound (store.UNUSED_VECTORS_KEPT, 5 here), then all go."""
    from search.index import store
    from workers import runtime
    monkeypatch.setattr(store, "UNUSED_VECTORS_KEPT", 5)
    notes = write_tree(tmp_path / "notes", NOTES)
    (notes / "broken.pdf").write_bytes(b"not a pdf")  # failed, carried into each generation
    (notes / "app.min.js").write_text("var a=1;\n")  # skipped, likewise
    ingest(notes)
    conn = runtime.index()
    first = _rows(conn)
    for cycle in range(1, CYCLES + 1):
        _edit(notes, cycle)
        report = ingest(notes)
    rows = _rows(conn)
    assert report["published"]["id"] >= CYCLES + 1, "a generation per cycle"
    assert rows["generations"] == 1, rows  # the published one: nothing is being built
    # the published generation's own rows: the file edited, the failed and the skipped one
    assert rows["progress"] == 3, rows
    assert rows["progress_counts"] <= 8, rows  # per (change, stage, state) it went through
    assert (rows["files"], rows["chunks"]) == (first["files"], first["chunks"])
    used = conn.execute("SELECT count(*) FROM vectors WHERE text_hash IN (SELECT text_hash FROM chunks)").fetchone()[0]
    assert used == first["vectors"] and rows["vectors"] <= used + 5, rows
    failures = {f["path"]: f["state"] for f in report["published"]["failures"]}
    assert failures == {"broken.pdf": "failed", "app.min.js": "skipped"}, "stats still says why, as before"


def test_a_superseded_generation_of_a_model_no_longer_used_goes_with_its_vectors(immediate, sift_env, tmp_path,
                                                                                 other_model_path, monkeypatch):
    from search.model.info import read_model_info
    from workers import runtime
    notes = write_tree(tmp_path / "notes", NOTES)
    ingest(notes)
    conn = runtime.index()
    first_model = conn.execute("SELECT model FROM generations").fetchone()[0]
    monkeypatch.setenv("SIFT_MODEL", str(other_model_path))
    runtime.reset()
    ingest(notes)
    conn = runtime.index()
    second = read_model_info(other_model_path).model_id
    assert [r[0] for r in conn.execute("SELECT DISTINCT model FROM vectors")] == [second]
    assert [tuple(r) for r in conn.execute("SELECT state, model FROM generations")] == [("published", second)]
    assert first_model != second


def test_an_empty_note_read_by_a_generation_since_dropped_is_still_said_to_be_indexed(immediate, sift_env,
                                                                                     tmp_path):
    """similar said why a file has no passages from the newest generation that planned it; with superseded
    generations dropped, an empty note read long ago would have been 'no scan has read it yet'."""
    from search.query.answer import SearchError
    from search.query.engine import from_settings
    from search.settings import load
    notes = write_tree(tmp_path / "notes", {**NOTES, "empty.md": ""})
    ingest(notes)
    for cycle in range(1, 4):
        _edit(notes, cycle)
        ingest(notes)
    try:
        from_settings(load()).similar(path=("notes", "empty.md"))
    except SearchError as exc:
        assert str(exc).endswith("it is indexed, but holds no text to compare"), exc
    else:
        raise AssertionError("an empty note has no passages to compare")


def _big_then_small_write(conn, table: str) -> None:
    conn.execute(f"CREATE TABLE {table} (blob BLOB)")
    conn.execute("BEGIN")
    conn.executemany(f"INSERT INTO {table} VALUES (randomblob(1000))", [()] * 20_000)  # 20 MB through the WAL
    conn.execute("COMMIT")
    conn.execute(f"DROP TABLE {table}")  # a big write too (its pages go to the free list)
    conn.execute(f"CREATE TABLE {table}_small (x)")  # a small one: it starts the WAL again, after the checkpoint


def test_the_wal_files_shrink_back_after_a_big_write(sift_env, tmp_path):
    """index.db-wal and queue.db-wal kept the size of the biggest write they ever held (an `ingest remove` of a big
    collection: one transaction), for ever: 31 MB after one 30 MB transaction."""
    from pathlib import Path

    from search.index import db
    from workers.app import QueueStorage
    home = Path(sift_env["SIFT_HOME"])
    index = db.connect(home / "index.db")
    _big_then_small_write(index, "scratch")
    assert (home / "index.db-wal").stat().st_size <= db.WAL_LIMIT_BYTES
    # a queue of this test's own, as the app makes it: the app's queue may be one a consumer of an earlier test
    # still reads, and a reader holding the WAL keeps it from starting over (and so from being cut back)
    queue = QueueStorage(name="sift", filename=str(home / "queue.db"))
    _big_then_small_write(queue.conn, "scratch")
    assert (home / "queue.db-wal").stat().st_size <= db.WAL_LIMIT_BYTES


def _two_collections(tmp_path, monkeypatch) -> None:
    """A big collection and a small one, keyword only (the passages alone make the size)."""
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    words = "otter river stone salmon reed heron willow".split()
    big = {f"n{i}.md": f"# Note {i}\n\n" + " ".join(words[(i + j) % 7] + str(j) for j in range(300)) + "\n"
           for i in range(80)}
    ingest(write_tree(tmp_path / "big", big), "big")
    ingest(write_tree(tmp_path / "small", NOTES), "small")


def test_removing_most_of_the_index_gives_the_disk_back(immediate, sift_env, tmp_path, monkeypatch):
    """SQLite reuses the pages a deletion frees, but never shrank the file: an `ingest remove` of the bigger of two
    collections left index.db as big as before."""
    from pathlib import Path

    from workers import runtime
    _two_collections(tmp_path, monkeypatch)
    conn = runtime.index()
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2, "a new index is made with incremental vacuum"
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = index.stat().st_size
    assert run_ingest(sift_env, "remove", "big").returncode == 0
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    after = index.stat().st_size
    pages, free = conn.execute("PRAGMA page_count").fetchone()[0], conn.execute("PRAGMA freelist_count").fetchone()[0]
    assert after < before / 2 and free * 4 <= pages, (before, after, pages, free)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_an_idle_worker_does_not_log_its_minutely_check(sift_env, consumer, tmp_path):
    """huey logged three lines about the periodic check every minute ('Enqueueing periodic task
    workers.rescan.rescan_due', 'Executing …', '… executed in'), for ever: 4,300 lines a day from an idle worker.
    What the check does (a rescan it queues) is still logged."""
    notes = write_tree(tmp_path / "notes", NOTES)
    sift_env["SIFT_RESCAN_MINUTES"] = "0.01"  # every check queues a rescan: the sign that a check ran
    # the check every 2 s, not each minute (huey's scheduler runs the same task, logging as it would each minute):
    # the test waited out up to a minute of an idle worker for one check
    sift_env["SIFT_PERIODIC_SECONDS"] = "2"
    worker = consumer()
    assert run_ingest(sift_env, "enqueue", str(notes), "--name", "notes", "--wait").returncode == 0
    log = tmp_path / "consumer.log"
    while log.read_text().count("periodic rescan of collection") < 2:  # two checks (a test timeout ends it)
        assert worker.proc.poll() is None, log.read_text()
        time.sleep(0.5)
    worker.stop()
    text = log.read_text()
    assert "Executing workers.tasks.discover" in text, "huey's lines about the work itself stay"
    assert "+ workers.rescan.rescan_due" in text, "the list of tasks at start-up stays"
    assert [line for line in text.splitlines() if "rescan_due" in line and not line.startswith("+ ")] == []


def test_ingest_compact_gives_an_older_index_its_free_pages_back_and_makes_it_give_them_back_after(
        immediate, sift_env, tmp_path, monkeypatch):
    """An index made before schema V14 has no incremental vacuum: it kept its free pages for reuse, so a big
    collection removed left the file as big, and nothing documented gave the space back."""
    import sqlite3
    from pathlib import Path

    from workers import runtime
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    index.parent.mkdir(parents=True, exist_ok=True)
    old = sqlite3.connect(index)  # as an older Sift made it: auto_vacuum off
    old.execute("PRAGMA journal_mode = WAL")
    old.close()
    _two_collections(tmp_path, monkeypatch)
    conn = runtime.index()
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = index.stat().st_size
    assert run_ingest(sift_env, "remove", "big").returncode == 0
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert index.stat().st_size == before, "free pages are kept for reuse"
    done = run_ingest(sift_env, "compact")
    assert done.returncode == 0 and done.stdout.startswith("index: ") and " → " in done.stdout, done
    assert done.stdout.endswith("; free pages are given back after each clean-up from now on\n"), done.stdout
    assert index.stat().st_size < before / 2
    fresh = sqlite3.connect(index)  # (a connection opened before reads the setting it opened with)
    assert fresh.execute("PRAGMA auto_vacuum").fetchone()[0] == 2, "it gives them back from now on"
    fresh.close()
    assert run_ingest(sift_env, "search", "otter", "--mode", "keyword").returncode == 0
    again = run_ingest(sift_env, "compact")  # it said 'given back ... from now on' of an index that did already
    assert again.returncode == 0 and again.stdout.endswith(
        "; it gave free pages back after each clean-up already\n"), again.stdout


def _open_index_descriptors(index) -> int:
    import os
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}") == str(index)
        except OSError:  # the descriptor listdir itself used
            pass
    return count


def test_the_server_closes_a_thread_s_connection_when_the_thread_ends(immediate, sift_env, tmp_path):
    """The MCP tools run in worker threads, each with a read-only connection of its own; the threads end after a
    quiet while and new ones come. A connection is in a reference cycle of its own, so those of ended threads stayed
    open until a full garbage collection (a soak of 150 publishes: 7 connections for 4 threads, growing)."""
    import threading
    from pathlib import Path

    from mcp_server.service import Sift
    from search.settings import load
    ingest(write_tree(tmp_path / "notes", NOTES))
    index = (Path(sift_env["SIFT_HOME"]) / "index.db").resolve()
    sift = Sift(load())
    before = _open_index_descriptors(index)
    for _ in range(8):
        thread = threading.Thread(target=lambda: sift.conn().execute("SELECT count(*) FROM files").fetchone())
        thread.start()
        thread.join()
    assert _open_index_descriptors(index) <= before + 1, "at most the last thread's, on its way out"
    assert sift.conn().execute("SELECT count(*) FROM files").fetchone()[0] == len(NOTES), "a live thread's stays"


def test_giving_pages_back_while_another_connection_writes_leaves_them_for_later(tmp_path):
    """The clean-up after a publish gives free pages back after the publish committed: a lock held by another
    writer (or a full disk) there failed the publish job, which had done its work. It is best-effort now."""
    import sqlite3

    from search.index import db, store
    conn = db.connect(tmp_path / "index.db")
    conn.execute("CREATE TABLE filler (blob BLOB)")
    conn.executemany("INSERT INTO filler VALUES (?)", [(b"x" * 4000,) for _ in range(500)])
    conn.execute("DELETE FROM filler")
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    assert free * 4 > conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute("PRAGMA busy_timeout = 50")
    writer = sqlite3.connect(tmp_path / "index.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    store.reclaim_free_pages(conn)  # raised 'database is locked'
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == free, "left for the next clean-up"
    writer.execute("ROLLBACK")
    store.reclaim_free_pages(conn)
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] * 4 <= conn.execute("PRAGMA page_count").fetchone()[0]
