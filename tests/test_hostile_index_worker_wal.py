"""Two workers (threads, each with its own connection: workers.runtime.index) and index.db restored under them.
The second opened the restored file while the replaced one's emptied -wal was still beside it, and so read and
wrote through that -wal; the first then found the swap and deleted it with its -shm (db.close_replaced). The
worker compared the index's (device, inode) only, not its -wal's as the server's readers do: the second went on
writing through the deleted -wal, its writes seen by no other connection (a collection it added was in no index
a reader opened). It now opens the file again, its writes kept (db.replaced)."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from search.index import db
from tests.test_hostile_index_restored import _names, _quick_check
from tests.test_hostile_index_restored_wal import old_index_and_new_backup


@pytest.mark.timeout(120)
def test_a_worker_on_the_replaced_files_deleted_wal_opens_the_index_again(immediate, sift_env, tmp_path,
                                                                            monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from search.index import store
    from workers import runtime
    index, backup = old_index_and_new_backup(tmp_path)
    first = runtime.index()
    first.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the -wal at its header: the restored file is not refused
    os.replace(backup, index)  # the restore
    other = ThreadPoolExecutor(max_workers=1)  # the second worker: one thread, its own connection
    try:
        second = other.submit(runtime.index).result()  # on the restored file, through the old file's -wal
        assert [r["name"] for r in second.execute("SELECT name FROM collections")] == ["new"]
        assert runtime.index() is not first  # the first worker's next job: the old -wal and -shm deleted

        def next_job():
            conn = runtime.index()
            store.ensure_collection(conn, "later", str(tmp_path / "later"))
            return conn
        now = other.submit(next_job).result()
        assert _names(index) == ["later", "new"]  # what it wrote is in the file every other connection reads
        assert now is not second
        other.submit(runtime.reset).result()
    finally:
        other.shutdown()
        runtime.reset()
    assert _names(index, readonly=False) == ["later", "new"] and _quick_check(index) == ["ok"]
    assert db.identity(f"{index}{db.WAL_SET_ASIDE}") is None  # no -wal of another file was left to set aside
