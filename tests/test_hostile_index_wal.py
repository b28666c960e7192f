"""index.db renamed over (a restore, a rebuilt copy moved in) while the -wal beside it still holds pages written for
the file that was there: SQLite's WAL names no database, so it read those pages as the new file's and copied them
into it at the next checkpoint (checked: `ingest stats` and `ingest search` answered, and quick_check then found
'Bad ptr map entry', 'row 1 missing from index files_current'). Now every connection refuses it, saying what to
delete, and the new file is left as it was."""
from __future__ import annotations

import os
import shutil
import sqlite3

import pytest

from search.index import db
from tests.conftest import run_ingest, write_tree
from tests.test_index_remade import NEW, OLD, _build, _delete
from tests.test_index_swapped import _copy


def _held_open_with_changes(index):
    """A writer of the index holding pages in its -wal, as a running worker (or one killed mid-build) leaves it."""
    conn = db.connect(index)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("UPDATE files SET path = path")
    conn.execute("UPDATE chunks SET text = text")
    return conn


def _quick_check(path) -> list[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [row[0] for row in conn.execute("PRAGMA quick_check")]
    finally:
        conn.close()


@pytest.mark.timeout(120)
def test_an_index_renamed_over_while_its_wal_holds_pages_is_refused_not_mixed(immediate, sift_env, tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    index = _build(write_tree(tmp_path / "new", NEW), "new")
    new = _copy(index, tmp_path / "new.db")
    _delete(index)
    _build(write_tree(tmp_path / "old", OLD), "old")
    writer = _held_open_with_changes(index)
    try:
        assert os.path.getsize(f"{index}-wal") > db.WAL_HEADER_BYTES
        shutil.copy(new, tmp_path / "restored.db")
        os.replace(tmp_path / "restored.db", index)
        for readonly in (True, False):
            with pytest.raises(db.IndexUnavailable, match="was replaced .* delete index.db-wal and index.db-shm"):
                db.connect(index, readonly=readonly)
        shown = run_ingest({**sift_env, "SIFT_EMBEDDINGS": "off"}, "stats", timeout=120)
        assert shown.returncode != 0 and "was replaced (renamed over, restored)" in shown.stdout + shown.stderr
    finally:
        writer.close()
    assert _quick_check(index) == ["ok"]  # nothing of the old file's was copied in
    for end in ("-wal", "-shm"):  # as the message says
        if os.path.exists(f"{index}{end}"):
            os.unlink(f"{index}{end}")
    conn = db.connect(index, readonly=True)
    try:
        assert [r["name"] for r in conn.execute("SELECT name FROM collections")] == ["new"]
    finally:
        conn.close()


def test_a_wal_copied_with_its_index_or_left_by_a_crash_is_still_read(immediate, sift_env, tmp_path, monkeypatch):
    """Only a -wal the record names beside another index is refused: one copied along with its index (a new
    inode), or left by a writer that died on the same file, is SQLite's to recover."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    index = _build(write_tree(tmp_path / "old", OLD), "old")
    writer = _held_open_with_changes(index)
    try:
        db.connect(index, readonly=True).close()  # the same file, its own -wal
        home = tmp_path / "copied"
        home.mkdir()
        for end in ("", "-wal", db.WAL_OWNER):
            shutil.copy(f"{index}{end}", home / f"index.db{end}")
    finally:
        writer.close()
    conn = db.connect(home / "index.db", readonly=True)
    try:
        assert [r["name"] for r in conn.execute("SELECT name FROM collections")] == ["old"]
    finally:
        conn.close()
