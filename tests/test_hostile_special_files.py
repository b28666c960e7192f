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
