"""index.db replaced by a rename over it (`mv rebuilt.db index.db`, a restore from backup) while the server runs,
again and again: each time the server's connections and its engine go to the new file (db.identity: device and
inode), and none is left holding an old one (its disk space not given back, its descriptors piling up)."""
from __future__ import annotations

import gc
import os
import shutil
import sqlite3

import pytest

from tests.conftest import write_tree
from tests.test_index_remade import NEW, OLD, _build, _delete


def _copy(index, to):
    """A consistent copy of the index (its WAL folded in), as a backup tool makes one."""
    source, copy = sqlite3.connect(index), sqlite3.connect(to)
    source.backup(copy)
    source.close()
    copy.close()
    return to


def _held(index) -> list[str]:
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            held.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    return [f for f in held if f.startswith(str(index))]


@pytest.mark.timeout(300)
def test_an_index_renamed_over_again_and_again_is_read_anew_and_let_go(immediate, sift_env, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from mcp_server.service import Sift
    from search.index import status
    from search.settings import load
    index = _build(write_tree(tmp_path / "old", OLD), "old")
    old = _copy(index, tmp_path / "old.db")
    _delete(index)
    _build(write_tree(tmp_path / "new", NEW), "new")
    new = _copy(index, tmp_path / "new.db")
    sift = Sift(load())
    gc.disable()  # what only a full collection would close is not counted
    try:
        for turn in range(12):
            name, made = ("old", old) if turn % 2 else ("new", new)
            shutil.copy(made, tmp_path / "swap.db")
            os.replace(tmp_path / "swap.db", index)
            found = sift.engine().search("aardvark pangolin", mode="keyword").hits
            assert [h.collection for h in found] == [name], (turn, found)
            assert [c["name"] for c in status.collect(sift.conn())["collections"]] == [name], turn
            held = _held(index)
            assert not [f for f in held if f.endswith("(deleted)")], (turn, held)
            assert len(held) <= 6, (turn, held)  # the engine's and this thread's: the file and its -wal, -shm
    finally:
        gc.enable()
