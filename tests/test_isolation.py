"""The tests of one process touch no state another process's tests (pytest-xdist's workers, another checkout's
tests on the same machine) or the user's own Sift share."""
from __future__ import annotations

from pathlib import Path



def test_the_in_process_queue_is_this_test_sessions_own(tmp_path_factory):
    """workers.app's huey keeps the queue of the home it was imported with, and test modules import it as they
    are collected: that was ~/.sift/queue.db, which every test process emptied (``sift_env``) while the others
    had jobs in it. It is a queue in this session's temporary folder now."""
    from workers.app import huey
    queue = Path(huey.storage.filename).resolve()
    assert not queue.is_relative_to((Path.home() / ".sift").resolve()), queue
    assert queue.is_relative_to(tmp_path_factory.getbasetemp().resolve()), queue
