"""queue.db kept locked by another process against readers too (an `sqlite3` shell that ran `PRAGMA
locking_mode=EXCLUSIVE` and read it): `ingest stats` waited SQLite's 30 s at each of its reads of the queue (74 s,
then 'is busy … held a write'), and so did the MCP stats tool. Now a read that waits a second says the queue is
held, and stats answers at once with the rest: the collections, what the index holds."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_ingest, write_tree

HOLD_EXCLUSIVE = ("import sqlite3, sys\n"
                  "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                  "conn.execute('PRAGMA locking_mode = EXCLUSIVE')\n"
                  "conn.execute('SELECT count(*) FROM task').fetchall()\n"
                  "print('held', flush=True)\n"
                  "sys.stdin.read()\n")


@pytest.mark.timeout(90)
def test_stats_says_at_once_that_a_queue_locked_against_readers_is_held(sift_env, tmp_path):
    """`ingest stats` of its own process (this one's huey keeps connections on its queue, which an exclusive lock
    must not meet): the report says the queue is held and goes on with the collections."""
    env = {**sift_env, "SIFT_EMBEDDINGS": "off"}
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe aardvark\n"})
    first = run_ingest(env, "enqueue", str(root), "--name", "notes")  # makes index.db and queue.db, a scan waits
    assert first.returncode == 0, first.stderr
    queue = Path(env["SIFT_HOME"]) / "queue.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_EXCLUSIVE, str(queue)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        shown = run_ingest(env, "stats", timeout=80)
    finally:
        holder.communicate("")
    assert shown.returncode == 0, shown.stderr
    assert f"jobs in queue: unknown (the queue cannot be read: the queue at {queue} is held by another process" \
        in shown.stdout, shown.stdout
    assert "notes" in shown.stdout and "30 s" not in shown.stdout, shown.stdout


def test_stats_while_another_thread_is_still_importing_the_queue(monkeypatch, tmp_path):
    """sift-mcp's worker thread imports workers.app while the first stats call may already run: the module is in
    sys.modules without its huey yet, and stats failed ('partially initialized module … has no attribute
    huey'). It reads the settings' queue then."""
    import types

    from search.settings import load
    from workers import stats

    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "home"))
    monkeypatch.setitem(sys.modules, "workers.app", types.ModuleType("workers.app"))  # no huey yet
    assert stats._queue_held(load()) is None  # no queue.db: nothing holds it
