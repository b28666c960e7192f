"""index.db restored (renamed over) while the -wal beside it holds pages of the file that was there before: every
connection is refused (db._refuse_stale_wal), and only a worker's next job (close_replaced) cleared it, up to a
minute later; with that process killed instead, nothing ever did, and `ingest enqueue`, `ingest stats` and the
server stayed refused until the user deleted the files by hand. Now a connection moves the -wal aside itself
(index.db-wal-replaced) once no process reads through it (no lock on its -shm), and while one does, says which
and when it lets go. And a reader that opened the restored file sharing the old, empty -wal, deleted under it by
the worker, opens the file again (db.replaced) instead of missing every later change."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from search.index import db
from tests.conftest import REPO, run_ingest, write_tree
from tests.test_hostile_index_restored import _names, _quick_check
from tests.test_index_remade import NEW, OLD, _build, _delete
from tests.test_index_swapped import _copy

HOLD = """
import sys
from search.index import db
conn = db.connect(sys.argv[1])
conn.execute("PRAGMA wal_autocheckpoint = 0")
conn.execute("UPDATE files SET path = path")
conn.execute("UPDATE chunks SET text = text")
print("holding", flush=True)
sys.stdin.readline()
"""


def old_index_and_new_backup(tmp_path):
    """(index.db, a backup of it): the backup holds the collection 'new'; the index was deleted and built again as
    'old', so its -wal holds pages of the old file: restoring the backup over it is the restore these tests make."""
    index = _build(write_tree(tmp_path / "new", NEW), "new")
    backup = _copy(index, tmp_path / "backup.db")
    _delete(index)
    _build(write_tree(tmp_path / "old", OLD), "old")
    return index, backup


@pytest.mark.timeout(180)
def test_the_replaced_files_wal_is_moved_aside_once_no_process_holds_it(immediate, sift_env, tmp_path, monkeypatch,
                                                                        caplog):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    index, backup = old_index_and_new_backup(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(index)], cwd=REPO, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert holder.stdout.readline() == "holding\n"  # a worker killed mid-build, or one still running
        held = os.path.getsize(f"{index}-wal")
        assert held > db.WAL_HEADER_BYTES
        os.replace(backup, index)  # the restore
        for readonly in (True, False):  # while that process is alive it may still copy them into its file: left
            with pytest.raises(db.IndexUnavailable, match="still has that file open.* next job"):
                db.connect(index, readonly=readonly)
        assert os.path.getsize(f"{index}-wal") == held
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    shown = run_ingest({**sift_env, "SIFT_EMBEDDINGS": "off"}, "stats", timeout=120)  # the CLI, no worker anywhere
    assert shown.returncode == 0, shown.stderr
    assert "new" in shown.stdout and "old" not in shown.stdout
    assert "moved it aside to index.db-wal-replaced" in shown.stderr
    assert os.path.getsize(f"{index}{db.WAL_SET_ASIDE}") == held  # kept whole, for the file it belongs to
    assert _names(index, readonly=False) == ["new"] and _quick_check(index) == ["ok"]  # nothing of it mixed in


@pytest.mark.timeout(120)
def test_a_reader_sharing_the_replaced_files_emptied_wal_opens_the_index_again(immediate, sift_env, tmp_path,
                                                                              monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from mcp_server.service import Sift
    from search.index import store
    from search.settings import load
    from workers import runtime
    index, backup = old_index_and_new_backup(tmp_path)
    worker = runtime.index()
    worker.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the -wal at its header: the restored file is not refused
    os.replace(backup, index)
    service = Sift(load())
    reader = service.conn()  # opened on the restored file, through the old file's -wal and -shm
    assert [r["name"] for r in reader.execute("SELECT name FROM collections")] == ["new"]
    assert runtime.index() is not worker  # the worker's next job: the swap found, the old -wal and -shm deleted
    store.ensure_collection(runtime.index(), "later", str(tmp_path / "later"))
    assert sorted(r["name"] for r in service.conn().execute("SELECT name FROM collections")) == ["later", "new"]
    runtime.reset()
