"""queue.db kept locked by another process against readers too (an `sqlite3` shell that ran `PRAGMA
locking_mode=EXCLUSIVE` and read it): `ingest stats` waited SQLite's 30 s at each of its reads of the queue (74 s,
then 'is busy … held a write'), and so did the MCP stats tool. Now a read that waits a second says the queue is
held, and stats answers at once with the rest: the collections, what the index holds."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_tree

HOLD_EXCLUSIVE = ("import sqlite3, sys\n"
                  "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                  "conn.execute('PRAGMA locking_mode = EXCLUSIVE')\n"
                  "conn.execute('SELECT count(*) FROM task').fetchall()\n"
                  "print('held', flush=True)\n"
                  "sys.stdin.read()\n")


@pytest.mark.timeout(60)
def test_stats_says_at_once_that_a_queue_locked_against_readers_is_held(sift_env, tmp_path):
    from mcp_server import report
    from mcp_server.service import Sift
    from search.index import store
    from search.settings import load
    from workers import rescan, runtime
    from workers.app import huey
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe aardvark\n"})
    collection = store.ensure_collection(runtime.index(), "notes", str(root))
    assert rescan.queue_scan(collection["id"]) is None
    huey.storage.close()  # a connection open on a WAL file keeps every other from locking it exclusively
    holder = subprocess.Popen([sys.executable, "-c", HOLD_EXCLUSIVE, huey.storage.filename], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        text, _ = report.stats(Sift(load()))
    finally:
        holder.communicate("")
    queue = Path(huey.storage.filename)
    assert f"jobs in queue: unknown (the queue cannot be read: the queue at {queue} is held by another process" in text
    assert "notes" in text and "30 s" not in text, text
