"""queue.db held by another process (a write left open in an `sqlite3` shell, a backup) for longer than the queue
waits: `ingest enqueue` (and the refresh tool, and sift-mcp --root) said 'the index at …/index.db is busy: another
process holds a long write', naming the file that was free. Now they name the queue."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import VENV_BIN, run_ingest, write_tree

HOLD = ("import sqlite3, sys, time\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('BEGIN EXCLUSIVE')\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n")
# seconds the queue waits for the holder here (SIFT_FAULT_QUEUE_WAIT; 30 s unset): each refusal waited them out,
# 39 and 32 s for the two tests at load 10
WAIT = 2


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_enqueue_names_the_queue_when_another_process_holds_it(sift_env, tmp_path):
    env = {**sift_env, "SIFT_EMBEDDINGS": "off", "SIFT_FAULT_QUEUE_WAIT": str(WAIT)}
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe aardvark\n"})
    first = run_ingest(env, "enqueue", str(root), "--name", "notes")  # makes index.db and queue.db
    assert first.returncode == 0, first.stderr
    queue = Path(env["SIFT_HOME"]) / "queue.db"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(queue)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        # a second folder: its scan is queued whatever waits (the first's would be found waiting, not queued)
        other = write_tree(tmp_path / "other", {"b.md": "# B\n\nthe badger\n"})
        done = subprocess.run([str(VENV_BIN / "ingest"), "enqueue", str(other), "--name", "other"],
                              env=env, capture_output=True, text=True, timeout=240)
    finally:
        holder.communicate("")
    assert done.returncode != 0
    assert done.stderr.startswith(f"ingest: error: the queue at {queue} is busy ("), done.stderr
    assert f"for longer than the queue waits ({WAIT} s)" in done.stderr, done.stderr
    assert "index.db" not in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_scan_queued_by_hand_names_the_queue_when_another_process_holds_it(sift_env, tmp_path, monkeypatch,
                                                                               request):
    """What the refresh tool and sift-mcp --root meet in a server whose queue was opened before the hold."""
    from search.index import store
    from workers import rescan, runtime
    from workers.app import huey
    from workers.queues import QueueUnavailable
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe aardvark\n"})
    collection = store.ensure_collection(runtime.index(), "notes", str(root))
    queue = Path(huey.storage.filename)
    # this process's queue, opened again before the hold as SIFT_FAULT_QUEUE_WAIT would have opened it
    monkeypatch.setenv("SIFT_FAULT_QUEUE_WAIT", str(WAIT))
    monkeypatch.setattr(huey.storage, "_timeout", WAIT)
    huey.storage.close()
    request.addfinalizer(huey.storage.close)  # the next test's connection waits its 30 s again
    assert huey.storage.conn is not None
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(queue)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(QueueUnavailable) as refused:
            rescan.queue_scan(collection["id"])
    finally:
        holder.communicate("")
    assert str(refused.value).startswith(f"the queue at {queue} is busy ("), refused.value
    assert f"for longer than the queue waits ({WAIT} s)" in str(refused.value), refused.value
    assert rescan.queue_scan(collection["id"]) is None  # queued, once the other process has let go
