"""queue.db deleted under a running consumer (the user's reset): the consumer takes its jobs from the new file.

A real ``huey_consumer`` (one worker process) on a keyword-only home; the queue is deleted with its ``-wal`` and
``-shm``, as docs/troubleshooting.md says to, then ``ingest enqueue`` queues a scan into the new file. Before, the
consumer kept the deleted file open and never read the new one: the scan waited for ever, and ``ingest stats``
asked "is a worker running?".
"""
from __future__ import annotations

import time

import pytest

from search.index import db
from search.query import reader
from tests.conftest import Consumer, run_ingest, wait_published, write_tree

NOTES = {f"n{i}.md": f"# Note {i}\n\nthe aardvark number {i} digs at night\n" for i in range(3)}


@pytest.fixture
def keyword_env(sift_env, monkeypatch) -> dict:
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    return {**sift_env, "SIFT_EMBEDDINGS": "off"}


@pytest.mark.timeout(600)
def test_a_running_worker_follows_a_deleted_queue(keyword_env, tmp_path):
    a = write_tree(tmp_path / "a", NOTES)
    home = tmp_path / "home"
    log = tmp_path / "consumer.log"
    worker = Consumer(keyword_env, workers=1, log=log)
    try:
        assert run_ingest(keyword_env, "enqueue", str(a), "--name", "a", "--wait").returncode == 0
        conn = db.connect(home / "index.db", readonly=True)
        first = conn.execute("SELECT published FROM collections WHERE name = 'a'").fetchone()[0]
        for name in ("queue.db", "queue.db-wal", "queue.db-shm"):
            (home / name).unlink(missing_ok=True)
        write_tree(a, {"late.md": "# Late\n\nthe aardvark came after the reset\n"})
        assert run_ingest(keyword_env, "enqueue", str(a), "--name", "a").returncode == 0
        wait_published(conn, "a", first, worker.proc, limit=300)  # a hang guard: before, it never published
        assert {r["path"] for r in reader.visible_files(conn, "a")} == set(NOTES) | {"late.md"}
        conn.close()
        stats = run_ingest(keyword_env, "stats")
        assert stats.returncode == 0, stats.stderr
        assert "queue.db was deleted " in stats.stdout and "ago under a running worker" in stats.stdout, stats.stdout
        assert "is a worker running?" not in stats.stdout, stats.stdout
        assert worker.proc.poll() is None
    finally:
        worker.stop()
    said = log.read_text(errors="replace")
    assert f"{home / 'queue.db'} was deleted or replaced while this worker ran" in said, said
    assert "Traceback" not in said, said
    # a consumer starting again forgets it
    again = Consumer(keyword_env, workers=1, log=tmp_path / "again.log")
    try:
        deadline = time.time() + 120  # a hang guard, not a speed assertion
        while "queue.db was deleted " in run_ingest(keyword_env, "stats").stdout:
            assert time.time() < deadline and again.proc.poll() is None
            time.sleep(0.5)
    finally:
        again.stop()
