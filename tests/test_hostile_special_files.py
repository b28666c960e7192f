"""What is named like a note and is none, made for real: a socket and a FIFO, a sparse file of 16 GB and a link
to it, a link to /dev/zero. The walk reports each as skipped, never opening it (a FIFO would block it, /dev/zero
never end); a note that turns into a socket or a FIFO between the walk and its read is skipped saying what it is
(a socket failed as '[Errno 6] No such device or address', a FIFO as 'not a regular file'); nothing is read of
the sparse file, which is refused by its size at once, and the note beside them is indexed."""
from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import pytest

from ingest.discover import walk
from ingest.document import Skip
from ingest.files import read_and_parse
from search.index import db
from search.query import reader
from tests.conftest import ingest, write_tree

pytestmark = pytest.mark.timeout(120)  # a FIFO opened to read would block


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as bound:  # the name stays once it is closed
        bound.bind(str(path))


def _sparse(path: Path, size: int = 16 << 30) -> None:
    with open(path, "wb") as handle:
        handle.truncate(size)


def test_sockets_fifos_sparse_giants_and_links_to_dev_zero_are_skipped_saying_what_they_are(immediate, tmp_path):
    root = write_tree(tmp_path / "notes", {"note.md": "# Note\n\nthe tapir sleeps\n"})
    _socket(root / "socket.md")
    os.mkfifo(root / "pipe.md")
    _sparse(root / "sparse.md")
    os.symlink("sparse.md", root / "link-to-sparse.md")
    os.symlink("/dev/zero", root / "zero.md")
    published = ingest(root)["published"]
    reasons = {f["path"]: (f["state"], f["reason"]) for f in published["failures"]}
    assert reasons == {
        "socket.md": ("skipped", "a socket, not a regular file: not read"),
        "pipe.md": ("skipped", "a named pipe (FIFO), not a regular file: not read"),
        "sparse.md": ("skipped", "larger than 64 MiB"),
        "link-to-sparse.md": ("skipped", "larger than 64 MiB"),
        "zero.md": ("skipped", "symbolic link to a file outside the collection root: not followed"),
    }
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert {r["path"] for r in reader.visible_files(conn)} == {"note.md"}


@pytest.mark.parametrize("made", ["socket", "fifo"])
def test_a_note_turned_into_a_socket_or_fifo_after_the_walk_is_skipped_saying_what_it_is(tmp_path, made):
    root = write_tree(tmp_path / "notes", {"note.md": "# Note\n\nsoon no file\n"})
    assert [f.path for f in walk(root)] == ["note.md"]
    (root / "note.md").unlink()
    _socket(root / "note.md") if made == "socket" else os.mkfifo(root / "note.md")
    what = "a socket" if made == "socket" else "a named pipe (FIFO)"
    with pytest.raises(Skip, match=rf"^{re.escape(what)}, not a regular file: not read$"):
        read_and_parse(root, "note.md")


def test_a_note_grown_to_a_sparse_giant_after_the_walk_is_refused_before_a_byte_is_read(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "notes", {"note.md": "# Note\n\nsoon huge\n"})
    assert [f.path for f in walk(root)] == ["note.md"]
    _sparse(root / "note.md")
    reads = []
    real = open

    def counting(file, *args, **kwargs):
        handle = real(file, *args, **kwargs)
        reads.append(file)
        return handle
    monkeypatch.setattr("builtins.open", counting)
    with pytest.raises(Skip, match="larger than 64 MiB"):
        read_and_parse(root, "note.md")
    assert reads == []


def test_a_note_cut_short_or_made_a_socket_between_the_walk_and_its_read(immediate, tmp_path):
    """The walk saw a long note and a short one; before they are read, the long one is cut to a line and the short
    one made a socket. The cut note is indexed as it is now (its size the bytes read, its lost lines not found), the
    socket is skipped saying so, and the note indexed before it changed stays as it was until a scan sees it."""
    from search.index import store
    from search.query.engine import Engine
    from tests.test_hostile import begin, collection_report, found_by
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", {"long.md": "# Long\n\n" + "the heron wades\n" * 5_000,
                                           "short.md": "# Short\n\nthe crane stands\n"})
    ingest(root)
    write_tree(root, {"long.md": "# Long\n\n" + "the ibis flies\n" * 5_000})
    conn = runtime.index()
    collection, gen = begin(conn, root, {"long.md": "changed", "short.md": "changed"})
    (root / "long.md").write_text("# Long\n\nonly the egret is left\n")  # cut short after the walk
    (root / "short.md").unlink()
    _socket(root / "short.md")
    tasks.parse.call_local(tasks.Batch(gen, collection, ["long.md", "short.md"]))
    assert store.try_publish(conn, gen)
    files = {row["path"]: row for row in reader.visible_files(conn, "notes")}
    assert files["long.md"]["size"] == len("# Long\n\nonly the egret is left\n")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert found_by(engine, "egret", "notes") == ["long.md"] and found_by(engine, "ibis", "notes") == []
    assert found_by(engine, "crane", "notes") == ["short.md"]  # the version indexed before stays
    failures = {f["path"]: (f["state"], f["reason"]) for f in collection_report(conn, "notes")["published"]["failures"]}
    assert failures == {"short.md": ("skipped", "a socket, not a regular file: not read")}


@pytest.mark.parametrize("name", ["deck.pptx", "letter.docx"])
def test_a_sparse_giant_named_like_an_office_file_is_refused_before_it_is_hashed(tmp_path, monkeypatch, name):
    """A zip-based file is read from the file by what it unzips (ingest.files.read_zip_file), not refused by its
    size; a 4 GB sparse one was hashed whole before its zip was found missing (40 s; 64 GB: ten minutes). Its zip
    is looked for first now."""
    import hashlib
    _sparse(tmp_path / name, 256 << 20)
    hashed = []
    real = hashlib.sha256

    def counting(*args):
        made = real(*args)
        hashed.append(made)
        return made
    monkeypatch.setattr(hashlib, "sha256", counting)
    # said in words since ingest.unreadable: 'not a PowerPoint deck (its contents are not a .pptx zip): save it again …'
    with pytest.raises(Skip, match=r"its contents are not a \.(pptx|docx) zip"):
        read_and_parse(tmp_path, name)
    assert all(digest.digest() == real().digest() for digest in hashed)  # nothing of it hashed
