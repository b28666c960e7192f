"""Zip-based files over the 64 MiB a file may be (a deck or a Word document of photographs) are read by the text
they unzip, from the open file, in bounded memory: they were skipped as 'larger than 64 MiB', their text with it."""
from __future__ import annotations

import io
import os
import struct
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest

from ingest.changes import sha256_file
from ingest.document import Skip
from ingest.files import MAX_FILE_BYTES, read_and_parse
from tests.conftest import ingest
from tests.test_slides import pptx, shape, slide

PICTURES, PICTURE_BYTES = 20, 10 * 1024 * 1024  # 200 MiB of photographs (random: they do not compress)


def add_pictures(path: Path, folder: str, count: int, size: int) -> None:
    """``count`` pictures of ``size`` random bytes each, stored (as a JPEG is), added to the zip at ``path``."""
    with zipfile.ZipFile(path, "a", zipfile.ZIP_STORED) as package:
        for n in range(1, count + 1):
            package.writestr(f"{folder}/image{n}.jpeg", os.urandom(size))


@pytest.fixture(scope="module")
def big_deck(tmp_path_factory) -> Path:
    """work/photos.pptx: 3 slides and 200 MiB of pictures, made once for the module."""
    root = tmp_path_factory.mktemp("big") / "work"
    root.mkdir()
    deck = root / "photos.pptx"
    deck.write_bytes(pptx([
        (slide([shape(["Field trip to the glacier"], "title"), shape(["Crevasse rescue drills at dawn"], "")]),
         ["Mention the weather window"]),
        (slide([shape(["Sampling"], "title"), shape(["Ice cores from three boreholes"], "")]), None),
        (slide([shape(["Thanks"], "title")]), None)], title="Glacier trip"))
    add_pictures(deck, "ppt/media", PICTURES, PICTURE_BYTES)
    assert deck.stat().st_size > 3 * MAX_FILE_BYTES
    return root


def test_a_deck_of_200_mb_of_photographs_is_read_by_its_slides_in_bounded_memory(big_deck):
    deck = big_deck / "photos.pptx"
    tracemalloc.start()
    try:
        parsed = read_and_parse(big_deck, "photos.pptx")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    text = "\n".join(s.text for s in parsed.doc.sections)
    assert parsed.doc.title == "Glacier trip"
    assert "Crevasse rescue drills at dawn" in text and "Ice cores from three boreholes" in text, text
    assert "Mention the weather window" in text, text
    # the whole file's hash and size, as a scan finds them (ingest.changes): the next scan sees it unchanged
    assert (parsed.sha256, parsed.size) == (sha256_file(deck), deck.stat().st_size)
    assert peak < 16 * 1024 * 1024, f"{peak:,} bytes held to read a {deck.stat().st_size:,}-byte deck"


def test_a_big_zip_bomb_broken_zip_or_encrypted_file_is_still_refused(big_deck, monkeypatch, tmp_path):
    import ingest.zipped
    monkeypatch.setattr(ingest.zipped, "OPENED_BYTES", 1000)  # its slides' XML now unzips past the limit
    with pytest.raises(Skip, match="a zip bomb"):
        read_and_parse(big_deck, "photos.pptx")
    monkeypatch.undo()
    big = MAX_FILE_BYTES + 1024
    with open(tmp_path / "broken.pptx", "wb") as f:  # sparse: no zip's directory at its end
        f.write(b"PK\x03\x04 cut short")
        f.truncate(big)
    with pytest.raises(Skip, match="not a readable PowerPoint deck"):
        read_and_parse(tmp_path, "broken.pptx")
    with open(tmp_path / "locked.docx", "wb") as f:  # Office's encryption: an OLE compound file
        f.write(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "EncryptedPackage".encode("utf-16-le"))
        f.truncate(big)
    with pytest.raises(Skip, match="password-protected"):
        read_and_parse(tmp_path, "locked.docx")


def png() -> bytes:
    """A 1×1 PNG: python-docx reads a picture's size when it is added."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0\0\0\0")) + chunk(b"IEND", b""))


def test_a_word_document_of_photographs_is_read_its_pictures_unread(tmp_path):
    """python-docx loads every part: the pictures are left empty in the copy it reads, and not counted as what
    unzips (a 200 MB document of photographs was a zip bomb, under 64 MiB held whole)."""
    docx = pytest.importorskip("docx")
    d = docx.Document()
    d.add_heading("Site survey", 1)
    d.add_paragraph("The north wall shows frost damage.")
    d.add_picture(io.BytesIO(png()))
    small = io.BytesIO()
    d.save(small)
    path = tmp_path / "survey.docx"
    with zipfile.ZipFile(small) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in source.infolist():  # its picture 70 MiB of a photograph's bytes
            if info.filename.startswith("word/media/"):
                copy.writestr(info.filename, os.urandom(MAX_FILE_BYTES + (6 << 20)), zipfile.ZIP_STORED)
            else:
                copy.writestr(info, source.read(info))
    tracemalloc.start()
    try:
        parsed = read_and_parse(tmp_path, "survey.docx")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024, f"{peak:,} bytes held to read a document of {path.stat().st_size:,} bytes"
    assert [(s.heading_path, s.text) for s in parsed.doc.sections] == [
        (["Site survey"], "Site survey\nThe north wall shows frost damage.")], parsed.doc.sections


def test_a_big_deck_is_searched_and_read_by_its_slides(big_deck, immediate, monkeypatch):
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    published = ingest(big_deck, "work")["published"]
    assert published["failures"] == [], published["failures"]
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert engine.search("ice cores borehole", mode="keyword").hits[0].path == "photos.pptx"
    shown, _ = reading.read(Sift(load()), "work/photos.pptx", None, None, None, heading="Sampling")
    assert "Ice cores from three boreholes" in shown, shown


def test_a_flat_opendocument_named_odt_is_still_read_from_the_file(tmp_path):
    """An .odt is opened as a zip on the file; one that is LibreOffice's flat XML named .odt is read whole, as it
    was from its bytes."""
    from tests.test_word import flat
    (tmp_path / "lagoon.odt").write_bytes(flat())
    assert read_and_parse(tmp_path, "lagoon.odt").doc.title == "Lagoon 2024"


def test_a_big_zip_of_a_huge_directory_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A zip's directory is read whole by zipfile: one over DIRECTORY_BYTES (millions of parts) is refused first,
    the bound a file read whole (64 MiB) had set."""
    import ingest.zipped
    deck = tmp_path / "parts.pptx"
    deck.write_bytes(pptx([(slide([shape(["Only slide"], "title")]), None)]))
    monkeypatch.setattr(ingest.zipped, "DIRECTORY_BYTES", 100)
    with open(deck, "rb") as f, pytest.raises(Skip, match="its zip's directory is .* bytes"):
        with ingest.zipped.opened(f, "PowerPoint deck", ".pptx"):
            pass
    monkeypatch.undo()
    with open(deck, "rb") as f, ingest.zipped.opened(f, "PowerPoint deck", ".pptx") as parts:
        assert "ppt/presentation.xml" in parts.names
