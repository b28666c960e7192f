"""How a scan decides a file changed (ingest.changes): edits that leave the size and the mtime as they were must
not be missed. Real SQLite, the session's model, huey's immediate mode.

A ctime read within RACY_SECONDS of its change is not kept (the next scan hashes the file again): the first two
tests set that window to 0, so that what they check is the ctime compared, not a file hashed for being new."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest import changes
from ingest.changes import Known, plan_changes, settled_ctime, sha256_file
from ingest.discover import FoundFile
from tests.conftest import ingest, write_tree


@pytest.fixture
def no_racy_window(monkeypatch):
    monkeypatch.setattr(changes, "RACY_SECONDS", 0.0)


def keyword_paths(query: str) -> list[str]:
    from search.query.engine import from_settings
    from search.settings import load
    return [h.path for h in from_settings(load()).search(query, limit=10, mode="keyword").hits]


def rewrite_keeping_times(path: Path, text: str) -> None:
    """Rewrite ``path`` in place, then set its mtime back as it was (``cp -p``, ``rsync -t``, sync tools)."""
    before = path.stat()
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_an_edit_of_the_same_size_with_the_mtime_set_back_is_indexed(immediate, no_racy_window, tmp_path):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron waits\n"})
    ingest(root)
    assert keyword_paths("heron") == ["a.md"]
    rewrite_keeping_times(root / "a.md", "# A\n\nthe walrus eats\n")
    assert (root / "a.md").stat().st_size == len("# A\n\nthe heron waits\n")
    ingest(root)
    assert keyword_paths("walrus") == ["a.md"], "the edit was missed for good: size and mtime as before"
    assert keyword_paths("heron") == []


def test_a_file_replaced_by_one_of_the_same_size_and_mtime_is_indexed(immediate, no_racy_window, tmp_path):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron waits\n"})
    ingest(root)
    prepared = tmp_path / "prepared.md"
    prepared.write_text("# A\n\nthe walrus eats\n", encoding="utf-8")
    old = (root / "a.md").stat()
    os.utime(prepared, ns=(old.st_atime_ns, old.st_mtime_ns))
    os.replace(prepared, root / "a.md")
    ingest(root)
    assert keyword_paths("walrus") == ["a.md"]


def test_an_unchanged_file_is_not_hashed_again_once_its_ctime_is_kept(immediate, no_racy_window, tmp_path):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron waits\n"})
    first = ingest(root)
    os.chmod(root / "a.md", 0o600)  # only the ctime changes: hashed once, the same, kept without a generation
    assert ingest(root)["published"]["id"] == first["published"]["id"]
    from workers import runtime
    conn = runtime.index()
    row = conn.execute("SELECT ctime FROM files WHERE path = 'a.md' AND gen_to IS NULL").fetchone()
    assert row["ctime"] == (root / "a.md").stat().st_ctime


def test_a_second_write_in_the_same_clock_tick_as_the_read_is_caught(tmp_path):
    """Write, read, write again the same length at once: on a file system whose times tick coarsely the second
    write leaves size, mtime and ctime as the read saw them. The ctime of a read that close to the change is not
    kept, so the next scan hashes the file."""
    path = write_tree(tmp_path, {"a.md": "the heron waits\n"}) / "a.md"
    read_at = path.stat().st_ctime  # read in the very tick of the write
    first = path.stat()
    known = {"a.md": Known(first.st_size, first.st_mtime, sha256_file(path),
                           ctime=settled_ctime(first.st_ctime, read_at))}
    path.write_text("the walrus eats\n", encoding="utf-8")
    os.utime(path, ns=(first.st_atime_ns, first.st_mtime_ns))  # the same tick: the stat the read saw
    same_tick = FoundFile("a.md", "note", first.st_size, first.st_mtime, first.st_ctime)
    assert plan_changes(tmp_path, [same_tick], known).changes == {"a.md": "changed"}
    settled = {"a.md": Known(first.st_size, first.st_mtime, sha256_file(path),
                             ctime=settled_ctime(first.st_ctime, read_at + 60))}
    assert settled["a.md"].ctime == first.st_ctime, "read a minute after its change: its ctime is kept"
