"""Files indexed before and left out now by a setting are not 'deleted': after SIFT_EXCLUDE='til/', `ingest stats`
said '4 files seen, 30 deleted', as if they were gone from disk. Real SQLite, huey's immediate mode, the real
`ingest stats`."""
from __future__ import annotations

import json

from tests.conftest import ingest, run_ingest, write_tree

NOTES = {"a.md": "# A\n\nalpha", "b.md": "# B\n\nbeta", "til/c.md": "# C\n\ngamma", "til/d.md": "# D\n\ndelta",
         "til/e.md": "# E\n\nepsilon"}


def _ingest_with(monkeypatch, root, **settings) -> dict:
    from workers import runtime
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    runtime.reset()
    return ingest(root, "notes")


def test_files_left_out_by_sift_exclude_are_not_said_deleted(immediate, sift_env, tmp_path, monkeypatch):
    from ingest import discover
    from search.index import status
    assert status.LEFT_OUT_NOW == discover.LEFT_OUT_NOW  # search/ does not import ingest/: one key, written twice
    root = write_tree(tmp_path / "notes", NOTES)
    assert _ingest_with(monkeypatch, root)["files"] == 5
    (root / "b.md").unlink()  # one file truly deleted
    c = _ingest_with(monkeypatch, root, SIFT_EXCLUDE="til/")
    assert c["files"] == 1, c
    assert c["published"]["changes"] == {"deleted": 1, "left out by SIFT_EXCLUDE (still on disk)": 3}, c["published"]
    assert c["published"]["unread"] == {}, "not files of a kind Sift does not read"
    out = run_ingest(sift_env, "stats").stdout
    assert "1 file seen, 1 deleted, 3 left out by SIFT_EXCLUDE (still on disk)" in out, out
    [notes] = json.loads(run_ingest(sift_env, "stats", "--json").stdout)["collections"]
    assert notes["published"]["changes"]["left out by SIFT_EXCLUDE (still on disk)"] == 3, notes["published"]
    # the next scan finds nothing changed: no generation of its own for the count it no longer knows of
    assert _ingest_with(monkeypatch, root, SIFT_EXCLUDE="til/")["published"]["id"] == c["published"]["id"]


def test_files_left_out_by_sift_include_say_so(immediate, sift_env, tmp_path, monkeypatch):
    root = write_tree(tmp_path / "notes", {**NOTES, "f.txt": "plain text"})
    _ingest_with(monkeypatch, root)
    c = _ingest_with(monkeypatch, root, SIFT_INCLUDE="*.md")
    assert c["published"]["changes"] == {"left out by SIFT_INCLUDE (still on disk)": 1}, c["published"]
