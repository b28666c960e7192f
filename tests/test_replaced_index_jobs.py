"""Jobs of an index that was deleted (a user starting over: ``rm index.db*``) or replaced while they waited in the
queue, or while they ran. A fresh index numbers its collections and generations from 1 again, so a job of the old
one's generation 1 took the new one's for its own: `ingest enqueue --wait` said "107 of the 9 files seen are not
indexed", the old build's files failed in the new one, and a job whose connection the swap closed under it failed
with 'a bug in Sift' (ProgrammingError: Cannot operate on a closed database). Real SQLite, the real tasks, huey's
SQLite queue run job by job in this process (or in immediate mode), SIFT_FAULT_PAUSE_DISCOVER to hold a scan."""
from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.conftest import write_tree

BIG = {f"big/n{i}.md": f"# Note {i}\n\nwords of the old collection, note {i}\n" for i in range(12)}
SMALL = {f"small/s{i}.md": f"# Small {i}\n\nwords of the new collection, note {i}\n" for i in range(3)}
DEADLINE = 120  # seconds a held scan waits for the test at most


def _start_over(home: Path) -> None:
    """What a user starting over does: the index and its -wal and -shm deleted, the queue left as it was."""
    for path in home.glob("index.db*"):
        path.unlink()


def test_jobs_queued_for_a_deleted_index_are_dropped_not_counted_in_the_new_one(sift_env, tmp_path, monkeypatch):
    """The old build's parse job waits in the queue; the index is deleted and a new folder enqueued: its scan runs
    first (a second worker process takes it), then the old job. The new build counts its own 3 files only."""
    from ingest.cli import published_summary
    from search.index import collection_reads, status, store
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    write_tree(tmp_path, {**BIG, **SMALL})
    home = Path(sift_env["SIFT_HOME"])
    old = store.ensure_collection(runtime.index(), "big", str(tmp_path / "big"))["id"]
    tasks.scan(old)
    huey.execute(huey.dequeue())  # the old build's scan: its parse jobs wait
    stale = []
    while (task := huey.dequeue()) is not None:
        stale.append(task)
    assert stale
    runtime.reset()
    _start_over(home)
    conn = runtime.index()
    new = store.ensure_collection(conn, "small", str(tmp_path / "small"))["id"]
    assert new == old  # numbered from 1 again: what made the old jobs look like the new build's
    tasks.scan(new)
    huey.execute(huey.dequeue())  # the new scan, then the old jobs, then the rest
    for task in stale:
        huey.execute(task)
    while (task := huey.dequeue()) is not None:
        huey.execute(task)
    said = published_summary(conn, "small")
    assert said.startswith("published generation 1: 3 files, 3 chunks searchable"), said
    assert "not indexed" not in said, said
    c = next(c for c in status.collect(conn)["collections"] if c["name"] == "small")
    stages = c["published"]["stages"].values()
    assert sum(s["failed"] + s["skipped"] for s in stages) == 0, c
    assert collection_reads.get_collection(conn, new)["root"] == str(tmp_path / "small")


def test_the_index_deleted_while_a_scan_runs_ends_that_scan_quietly(sift_env, tmp_path, monkeypatch, immediate,
                                                                      caplog):
    """The scan is held (SIFT_FAULT_PAUSE_DISCOVER) after it began its generation; the index is deleted meanwhile.
    Its jobs, run at once (immediate mode), opened the file at the path anew, which closed the scan's connection
    under it: it failed as 'a bug' (ProgrammingError: Cannot operate on a closed database). It ends saying the index
    was replaced, and the next scan builds the new index whole."""
    from search.index import collection_reads, status, store
    from workers import runtime, tasks
    release = tmp_path / "release"
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    monkeypatch.setenv("SIFT_FAULT_PAUSE_DISCOVER", str(DEADLINE))
    monkeypatch.setenv("SIFT_FAULT_RELEASE_DISCOVER", str(release))
    runtime.reset()
    write_tree(tmp_path, SMALL)
    home = Path(sift_env["SIFT_HOME"])
    cid = store.ensure_collection(runtime.index(), "small", str(tmp_path / "small"))["id"]
    raised: list[BaseException] = []

    def scan() -> None:
        try:
            tasks.scan(cid)
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            raised.append(exc)
        finally:
            runtime.reset()  # this thread's connection

    worker = threading.Thread(target=scan, daemon=True)
    caplog.set_level("INFO", logger="sift.workers")
    worker.start()
    deadline = time.monotonic() + DEADLINE
    while not _building(home, cid) and time.monotonic() < deadline:
        time.sleep(0.05)
    _start_over(home)
    release.touch()
    worker.join(DEADLINE)
    assert not worker.is_alive() and not raised, raised
    assert "a bug" not in caplog.text and "closed database" not in caplog.text, caplog.text
    assert "replaced (restored, moved over or deleted) while this job ran" in caplog.text, caplog.text
    monkeypatch.delenv("SIFT_FAULT_PAUSE_DISCOVER")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "small", str(tmp_path / "small"))["id"]
    tasks.scan(cid)
    c = next(c for c in status.collect(conn)["collections"] if c["name"] == "small")
    assert c["files"] == 3 and collection_reads.get_collection(conn, cid)["published"] is not None, c


def _building(home: Path, cid: int) -> bool:
    """Whether the index at ``home`` has a generation being built for ``cid``, read on a connection of its own."""
    from search.index import db, generation_reads
    if not (home / "index.db").exists():
        return False
    conn = db.connect(home / "index.db", readonly=True)
    try:
        return generation_reads.building_generation(conn, cid) is not None
    finally:
        conn.close()
