"""The watcher with the queue's Redis out of reach (SIFT_QUEUE pointing at a Redis that is down or not started
yet): it ended with redis's 60-line traceback at its first scan request, and sift-mcp started it again to end
the same way every minute. It now says so in one line, once, and keeps watching until Redis answers. A real
watcher process; the Redis is a port nothing listens on."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from search.index import db
from tests.conftest import REPO, write_tree

PATIENCE = 120  # seconds: a safety net against a watcher that never gets so far, not a speed assertion


@pytest.mark.timeout(300)
def test_a_watcher_whose_redis_is_away_says_so_once_and_keeps_watching(sift_env, tmp_path):
    from search.index import store
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n"}).resolve()
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(sift_env, SIFT_QUEUE=f"redis://127.0.0.1:{port}/0")
    conn = db.connect(os.path.join(env["SIFT_HOME"], "index.db"))
    store.ensure_collection(conn, "notes", str(root))
    conn.close()
    log_path = tmp_path / "watcher.log"
    with open(log_path, "ab") as log:
        watcher = subprocess.Popen([sys.executable, "-m", "workers.watch"], cwd=REPO, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    said = f"request_scan failed, will try again: the queue's Redis at 127.0.0.1:{port}/0 cannot be used"
    try:
        deadline = time.monotonic() + PATIENCE
        while log_path.read_text().count(said) < 1 and watcher.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        (root / "b.md").write_text("# B\n")  # a change: the scan is asked for again, and refused again
        time.sleep(2)  # two of the watcher's ticks, each of which asks again
        text = log_path.read_text()
        assert watcher.poll() is None, f"the watcher ended:\n{text}"
        assert "Traceback" not in text, text
        assert text.count(said) == 1, f"said once while it lasts:\n{text}"
        assert "start Redis, or set SIFT_QUEUE to its URL" in text
    finally:
        if watcher.poll() is None:
            os.killpg(watcher.pid, signal.SIGTERM)
            watcher.wait(timeout=30)
