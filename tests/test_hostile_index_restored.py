"""index.db restored from a backup (renamed over: `mv backup.db index.db`) while a worker runs: its connection
stayed on the file it had opened, so every job after the restore wrote on to the replaced, unlinked file, and its
work was lost without a word (a collection added then was in no index). A worker now opens the file at the path
again when it is another one (workers.runtime.index, by db.identity); the server's readers do already
(tests/test_index_swapped.py)."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from search.index import db
from tests.conftest import ingest, write_tree
from tests.test_index_remade import NEW, OLD
from tests.test_index_swapped import _copy


def _names(index: Path, readonly: bool = True) -> list[str]:
    conn = db.connect(index, readonly=readonly)
    try:
        return sorted(row["name"] for row in conn.execute("SELECT name FROM collections"))
    finally:
        conn.close()


def _quick_check(index: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        return [row[0] for row in conn.execute("PRAGMA quick_check")]
    finally:
        conn.close()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("aside", [False, True])
def test_a_worker_writes_to_the_index_restored_in_place_of_the_one_it_opened(immediate, sift_env, tmp_path,
                                                                             monkeypatch, aside):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from workers import runtime
    ingest(write_tree(tmp_path / "old", OLD), "old")
    index = Path(os.environ["SIFT_HOME"]) / "index.db"
    backup = _copy(index, tmp_path / "backup.db")
    ingest(write_tree(tmp_path / "since", {"since.md": "# Since\n\nthe okapi hides\n"}), "since")
    opened = runtime.index()
    if aside:  # `mv index.db index.old; mv backup.db index.db`
        os.rename(index, tmp_path / "index.old")
    os.replace(backup, index)  # the restore, the worker's connection still open on the file it replaces
    ingest(write_tree(tmp_path / "new", NEW), "new")
    assert runtime.index() is not opened
    assert _names(index) == ["new", "old"]  # the restored file and what was indexed after the restore
    assert _quick_check(index) == ["ok"]
    if aside:  # what the worker wrote to the file moved aside is in it, whole
        assert _names(tmp_path / "index.old") == ["old", "since"]
        assert _quick_check(tmp_path / "index.old") == ["ok"]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("reading", [False, True])
def test_another_connection_still_on_the_old_file_keeps_to_it(immediate, sift_env, tmp_path, monkeypatch, reading):
    """Another process still on the replaced file (a second worker, a server's writer) shared the -wal and -shm
    left beside the new file with the connections opened on it: its checkpoint would copy their pages into the old
    file, and while it read, the new file was refused for the old pages in the -wal. The worker that finds the
    swap deletes them (still the old file's): each file has its own, and each connection's work stays in its file."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from search.index import store
    from workers import runtime
    ingest(write_tree(tmp_path / "old", OLD), "old")
    index = Path(os.environ["SIFT_HOME"]) / "index.db"
    backup = _copy(index, tmp_path / "backup.db")
    other = db.connect(index)
    try:
        other.execute("PRAGMA wal_autocheckpoint = 0")
        runtime.index().execute("UPDATE files SET path = path")  # pages in the -wal
        if reading:  # a read under way: no checkpoint passes it
            other.execute("BEGIN")
            other.execute("SELECT count(*) FROM files").fetchone()
        os.rename(index, tmp_path / "index.old")
        os.replace(backup, index)
        ingest(write_tree(tmp_path / "new", NEW), "new")
        if reading:
            other.execute("COMMIT")
        store.ensure_collection(other, "late", str(tmp_path / "late"))  # written on to the old file
        other.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        other.close()
    assert _names(index) == ["new", "old"] and _quick_check(index) == ["ok"]
    assert _names(tmp_path / "index.old") == ["late", "old"] and _quick_check(tmp_path / "index.old") == ["ok"]
