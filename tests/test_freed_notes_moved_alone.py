"""A note iCloud freed to a placeholder, then filed on the phone from one folder to another that both stay
('Inbox/todo.md' into 'Projects/'): its placeholder moves with it. ingest.freed_moves did not follow a note moved
alone (a note deleted on the phone while another of its name came freed elsewhere looks the same by the paths), so
the note left search until it was downloaded, then was read and embedded again. iCloud's placeholder records the
note's size: where that is the indexed version's, the note is followed, its passages and vectors as indexed."""
from __future__ import annotations

import os
import plistlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import ingest, write_tree

TODO = ("# Todo\n\nRenew the passport before March, and book the dentist for the crown that came loose.\n\n"
        "## Roof\n\nAsk the roofer about zinc gutters and the scaffolding before spring.\n")
NOTES = {"Inbox/todo.md": TODO, "Inbox/plan.md": "# Plan\n\nPaint the fence in May.\n",
         "Projects/garden.md": "# Garden\n\nPlant tomatoes along the south wall.\n"}
QUERIES = ("travel documents to renew", "fixing the roof", "garden vegetables")


def _free(root: Path, note: str, size: int | None = None) -> None:
    """``note`` freed as iCloud frees it: gone, a '.note.md.icloud' property list of its name and size beside."""
    folder, _, name = note.rpartition("/")
    size = (root / note).stat().st_size if size is None else size
    (root / note).unlink()
    (root / folder / f".{name}.icloud").write_bytes(plistlib.dumps(
        {"NSURLNameKey": name, "NSURLFileSizeKey": size, "NSURLFileResourceTypeKey": "NSURLFileResourceTypeRegular"},
        fmt=plistlib.FMT_BINARY))


def _vectors(home: Path, path: str) -> list[tuple[str, bytes]]:
    """(text hash, vector) of each passage of ``path`` as the index in ``home`` publishes it (its one collection)."""
    from search.index import file_reads
    with sqlite3.connect(home / "index.db") as conn:
        conn.row_factory = sqlite3.Row
        file = file_reads.current_files(conn, 1)[path]["id"]
        return [tuple(row) for row in conn.execute(
            "SELECT ch.text_hash, v.vec FROM chunks ch JOIN vectors v ON v.text_hash = ch.text_hash "
            "WHERE ch.file = ? ORDER BY ch.ordinal", (file,))]


def _ranking(home: Path) -> list[list[str]]:
    from search.query.engine import Engine
    from workers import runtime
    engine = Engine(home / "index.db", runtime.embedder)
    return [[hit.path for hit in engine.search(query, mode="semantic").hits] for query in QUERIES]


def test_a_freed_note_moved_alone_between_folders_that_stay_is_followed(immediate, tmp_path, monkeypatch):
    from search.index import collection_reads, file_reads
    from workers import runtime, tasks
    home = Path(os.environ["SIFT_HOME"])
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    collection = ingest(root)["id"]
    _free(root, "Inbox/todo.md")
    tasks.discover(collection)
    os.rename(root / "Inbox/.todo.md.icloud", root / "Projects/.todo.md.icloud")  # filed on the phone
    tasks.discover(collection)
    conn = runtime.index()
    assert set(file_reads.current_files(conn, collection)) == {"Projects/todo.md", "Inbox/plan.md",
                                                              "Projects/garden.md"}
    published = collection_reads.get_collection(conn, collection)["published"]
    row = conn.execute("SELECT change, state, embedded FROM progress WHERE generation = ? AND path = ?",
                       (published, "Projects/todo.md")).fetchone()
    assert tuple(row) == ("renamed", "done", 0), "moved as indexed: not read, nothing embedded"
    moved, ranked = _vectors(home, "Projects/todo.md"), _ranking(home)
    # a fresh build of the folder as the phone left it, the note downloaded: the same passages, vectors, ranking
    fresh = write_tree(tmp_path / "fresh", {**{k: v for k, v in NOTES.items() if k != "Inbox/todo.md"},
                                            "Projects/todo.md": TODO}).resolve()
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "fresh-home"))
    runtime.reset()
    ingest(fresh)
    assert moved and moved == _vectors(tmp_path / "fresh-home", "Projects/todo.md")
    assert ranked == _ranking(tmp_path / "fresh-home") and ranked[0][0] == "Projects/todo.md"


def test_a_placeholder_of_another_size_or_saying_none_is_no_move(immediate, tmp_path):
    """A todo.md deleted on the phone while another todo.md came freed elsewhere: not taken for moved where the
    placeholder records another size, nor where it records none (Nextcloud's, or a list that cannot be read)."""
    from ingest.freed_moves import recorded_size
    from search.index import file_reads
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    collection = ingest(root)["id"]
    size = (root / "Inbox/todo.md").stat().st_size
    _free(root, "Inbox/todo.md")
    tasks.discover(collection)
    (root / "Inbox/.todo.md.icloud").unlink()  # deleted on the phone
    (root / "Projects/todo.md").write_text("# Todo\n\nSomething else entirely.\n")
    _free(root, "Projects/todo.md", size + 1)
    assert recorded_size(str(root), "Projects/todo.md") == size + 1
    tasks.discover(collection)
    assert "Projects/todo.md" not in file_reads.current_files(runtime.index(), collection)
    (root / "Projects/.todo.md.icloud").write_bytes(b"bplist00\x00")
    assert recorded_size(str(root), "Projects/todo.md") is None
    shutil.rmtree(root / "Inbox")
    (root / "Projects/.todo.md.icloud").unlink()
    assert recorded_size(str(root), "Projects/todo.md") is None


def test_a_cloud_only_note_moved_is_followed(immediate, tmp_path, monkeypatch):
    """A note macOS' File Provider keeps in the cloud under its own name (Dropbox, iCloud Drive, Google Drive on a
    Mac), moved on another device: no placeholder moves, the note itself does, its bytes still not here. It left
    the index (gone from its old path, skipped at its new one until downloaded). It is paired as a placeholder's
    note is: by the folders its paths end in alike, or, filed alone, by its stat's size and mtime. Linux sets no
    cloud-only flag: cloud_only is given the stat as macOS gives it (tests/test_sync_placeholders.py)."""
    from ingest import discover
    from search.index import collection_reads, file_reads
    from tests.test_sync_placeholders import _as_on
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {**NOTES, "bread/rye.md": "# Rye\n\nA dense loaf of rye and caraway.\n"})
    root = root.resolve()
    collection = ingest(root)["id"]
    away = {os.stat(root / path).st_ino for path in ("Inbox/todo.md", "bread/rye.md")}
    told = discover.cloud_only
    monkeypatch.setattr(discover, "cloud_only", lambda info: told(
        _as_on(info, st_flags=discover.SF_DATALESS if info.st_ino in away else 0)))
    tasks.discover(collection)
    os.rename(root / "Inbox/todo.md", root / "Projects/todo.md")  # filed alone; Inbox stays
    os.rename(root / "bread", root / "baking")  # a folder renamed
    tasks.discover(collection)
    conn = runtime.index()
    assert set(file_reads.current_files(conn, collection)) == {
        "Projects/todo.md", "baking/rye.md", "Inbox/plan.md", "Projects/garden.md"}
    published = collection_reads.get_collection(conn, collection)["published"]
    rows = conn.execute("SELECT path, change, state, reason FROM progress WHERE generation = ? AND path IN (?, ?)",
                        (published, "Projects/todo.md", "baking/rye.md")).fetchall()
    assert sorted(tuple(row) for row in rows) == [("Projects/todo.md", "renamed", "done", None),
                                                  ("baking/rye.md", "renamed", "done", None)], "not skipped"
    assert file_reads.away_paths(conn, collection) == {"Projects/todo.md", "baking/rye.md"}
    tasks.discover(collection)  # the next walk keeps them there, as any cloud-only note indexed
    assert {"Projects/todo.md", "baking/rye.md"} <= set(file_reads.current_files(conn, collection))
    (root / "Inbox/plan.md").unlink()  # deleted on the phone, while another plan.md came, never downloaded here
    (root / "Projects/plan.md").write_text("# Plan\n\nA plan of another size altogether.\n")
    away.add(os.stat(root / "Projects/plan.md").st_ino)
    tasks.discover(collection)
    assert not {"Inbox/plan.md", "Projects/plan.md"} & set(file_reads.current_files(conn, collection)), \
        "no move: its size and mtime are not the deleted note's"


@pytest.mark.timeout(60)
def test_a_placeholder_no_regular_file_in_the_folder_is_not_read(tmp_path):
    """A '.todo.md.icloud' that is a named pipe blocked the scan at its open (no writer ever comes), and one that is
    a link was read wherever it led, outside the collection's folder too: neither records a size."""
    from ingest.freed_moves import recorded_size
    root = tmp_path / "notes"
    (root / "Projects").mkdir(parents=True)
    outside = tmp_path / "elsewhere.plist"
    outside.write_bytes(plistlib.dumps({"NSURLNameKey": "todo.md", "NSURLFileSizeKey": 120}, fmt=plistlib.FMT_BINARY))
    (root / "Projects/.todo.md.icloud").symlink_to(outside)
    assert recorded_size(str(root), "Projects/todo.md") is None
    os.mkfifo(root / "Projects/.plan.md.icloud")
    assert recorded_size(str(root), "Projects/plan.md") is None
