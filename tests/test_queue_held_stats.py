"""`ingest stats` and the stats tool while another process holds a write on queue.db (a write left open in an
`sqlite3` shell): stats waited huey's 30 s twice (61 s) to say 'jobs in queue: unknown (… busy …)', only because
opening the queue made its tables again, a no-op that takes the write lock. The queue is in WAL mode, where a read
waits on no writer: stats now reads it at once and says what waits. Writers still wait their 30 s
(test_queue_busy.py)."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import VENV_BIN, run_ingest, write_tree
from tests.test_queue_busy import HOLD


def hold(queue: Path) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(queue)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    return holder


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_stats_reads_a_queue_another_process_holds_without_waiting_for_it(sift_env, tmp_path):
    env = {**sift_env, "SIFT_EMBEDDINGS": "off"}
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe aardvark\n"})
    first = run_ingest(env, "enqueue", str(root), "--name", "notes")  # makes index.db and queue.db, a scan waits
    assert first.returncode == 0, first.stderr
    holder = hold(Path(env["SIFT_HOME"]) / "queue.db")
    try:
        started = time.monotonic()
        done = subprocess.run([str(VENV_BIN / "ingest"), "stats"], env=env, capture_output=True, text=True,
                              timeout=240)
        took = time.monotonic() - started
    finally:
        holder.communicate("")
    assert done.returncode == 0, done.stderr
    assert "jobs in queue: 1" in done.stdout and "busy" not in done.stdout, (took, done.stdout)
    assert "a scan is queued" in done.stdout, done.stdout


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_stats_tool_of_a_server_reads_a_held_queue(sift_env, tmp_path):
    """A server that opened the queue before the hold: its stats tool reads the queue too."""
    from mcp_server import report
    from mcp_server.service import Sift
    from search.index import store
    from search.settings import load
    from workers import rescan, runtime
    from workers.app import huey
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe aardvark\n"})
    collection = store.ensure_collection(runtime.index(), "notes", str(root))
    assert rescan.queue_scan(collection["id"]) is None
    holder = hold(Path(huey.storage.filename))
    try:
        text, _ = report.stats(Sift(load()))
    finally:
        holder.communicate("")
    assert "jobs in queue: 1" in text and "busy" not in text, text
