"""workers.queue_reader.any_at_priorities: stats' test of whether a scan waits, before huey is imported to read
the scans (workers.queue_state.scans_waiting), asks only whether a job of a scan's priorities exists; counting
each one's jobs ahead is huey's read after it (20 ms at 100,000 jobs, bench/queue_waiting.py)."""
from __future__ import annotations

from huey.storage import SqliteStorage

from workers import queue_reader
from workers.queue_state import QUEUE_NAME, SCAN_PRIORITY, URGENT

PRIORITIES = (SCAN_PRIORITY, SCAN_PRIORITY + URGENT)


def _queue(path, priorities: list[int], name: str = QUEUE_NAME) -> None:
    storage = SqliteStorage(name, filename=str(path))
    for priority in priorities:
        storage.enqueue(b"job", priority)
    storage.close()


def test_a_scan_waits_at_either_priority_and_only_in_its_own_queue(tmp_path):
    path = tmp_path / "queue.db"
    assert queue_reader.any_at_priorities(str(path), QUEUE_NAME, PRIORITIES) is False  # no queue file
    _queue(path, [10, 20, 50, 130])  # a build's stages, urgent or not: no scan
    _queue(path, [SCAN_PRIORITY], name="sift-embed")  # another queue's job at a scan's priority
    assert queue_reader.any_at_priorities(str(path), QUEUE_NAME, PRIORITIES) is False
    _queue(path, [SCAN_PRIORITY + URGENT])  # a rescan
    assert queue_reader.any_at_priorities(str(path), QUEUE_NAME, PRIORITIES) is True
    assert len(queue_reader.at_priorities(str(path), QUEUE_NAME, PRIORITIES)) == 1  # the jobs, as huey reads them


def test_a_queue_file_without_huey_tables_holds_no_scan(tmp_path):
    path = tmp_path / "queue.db"
    import sqlite3
    sqlite3.connect(path).close()
    assert queue_reader.any_at_priorities(str(path), QUEUE_NAME, PRIORITIES) is False
