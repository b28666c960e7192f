"""An EPUB book of more chapters than one file may make passages is skipped with why, before they are read.

An .epub of 100,000 short chapters (bench/hostile.py's ``chapters.epub``, 17 MB) was read whole, each chapter parsed
as an HTML page and made a section: 6.8 s and 240 MB to be refused at chunk (``more than 10,000 chunks``). Past
the passages one file may make (SIFT_MAX_FILE_CHUNKS: ingest.epub.most_chapters) it is skipped once its package
document is read; a keyword-only index, which has no such limit, reads it."""
from __future__ import annotations

import io
import zipfile

import pytest

import ingest.epub
from ingest.document import Skip
from ingest.parse import parse_file

CONTAINER = ("<?xml version='1.0'?><container xmlns='urn:oasis:names:tc:opendocument:xmlns:container'><rootfiles>"
             "<rootfile full-path='content.opf' media-type='application/oebps-package+xml'/></rootfiles></container>")


def _book(chapters: int) -> bytes:
    items = "".join(f"<item id='c{i}' href='c{i}.xhtml' media-type='application/xhtml+xml'/>" for i in range(chapters))
    spine = "".join(f"<itemref idref='c{i}'/>" for i in range(chapters))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", "application/epub+zip")
        package.writestr("META-INF/container.xml", CONTAINER)
        package.writestr("content.opf", "<?xml version='1.0'?><package xmlns='http://www.idpf.org/2007/opf'><manifest>"
                         f"{items}</manifest><spine>{spine}</spine></package>")
        for i in range(chapters):
            package.writestr(f"c{i}.xhtml", f"<html><body><h1>Chapter {i}</h1><p>the tapir sleeps</p></body></html>")
    return out.getvalue()


def test_a_book_of_more_chapters_than_a_file_makes_passages_is_skipped_with_why(monkeypatch):
    monkeypatch.delenv("SIFT_MAX_FILE_CHUNKS", raising=False)
    monkeypatch.delenv("SIFT_EMBEDDINGS", raising=False)
    with pytest.raises(Skip, match=r"an EPUB book of 10,001 chapters, each a passage at least: more than the 10,000 "
                                   r"passages one file may make \(SIFT_MAX_FILE_CHUNKS\); raise it"):
        parse_file("site.epub", _book(10_001))


def test_the_bound_is_the_passages_the_settings_let_a_file_make(monkeypatch):
    """SIFT_MAX_FILE_CHUNKS is the bound: a fixed 10,000 refused a book the setting had been raised for, saying it
    made more passages than one file may make."""
    monkeypatch.delenv("SIFT_EMBEDDINGS", raising=False)
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "40")
    assert len(parse_file("book.epub", _book(40)).sections) == 40
    with pytest.raises(Skip, match="an EPUB book of 41 chapters, each a passage at least: more than the 40 passages"):
        parse_file("book.epub", _book(41))
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "41")
    assert len(parse_file("book.epub", _book(41)).sections) == 41


def test_a_keyword_only_index_reads_a_book_of_any_chapters(monkeypatch):
    """A keyword-only index embeds nothing, so no passage limit applies (workers.tasks.chunk): nor does one here."""
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "40")
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    assert ingest.epub.most_chapters() is None
    assert len(parse_file("book.epub", _book(41)).sections) == 41


def test_a_book_skipped_by_the_fixed_bound_is_read_again_after_the_upgrade():
    """A skipped file is remembered until it or what parses it changes (ingest.parser_versions): a book the fixed
    10,000 skipped in a keyword-only index, which reads it now, is read again by the next scan."""
    from ingest import parser_versions
    parser_versions.versions.cache_clear()
    assert parser_versions.parsers("Books/site.epub") == f"epub/{parser_versions.EPUB}"
    assert parser_versions.EPUB >= 1
