"""An EPUB book of more chapters than one file may make passages is skipped with why, before they are read.

An .epub of 100,000 short chapters (bench/hostile.py's ``chapters.epub``, 17 MB) was read whole, each chapter parsed
as an HTML page and made a section: 6.8 s and 240 MB to be refused at chunk (``more than 10,000 chunks``). Past
ingest.epub.MAX_CHAPTERS it is skipped once its package document is read."""
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


def test_a_book_of_more_chapters_than_a_file_makes_passages_is_skipped_with_why():
    with pytest.raises(Skip, match=r"an EPUB book of 10,001 chapters \(over 10,000\)"):
        parse_file("site.epub", _book(10_001))


def test_a_book_of_as_many_chapters_as_the_bound_is_read(monkeypatch):
    monkeypatch.setattr(ingest.epub, "MAX_CHAPTERS", 40)
    assert len(parse_file("book.epub", _book(40)).sections) == 40
    with pytest.raises(Skip, match="an EPUB book of 41 chapters"):
        parse_file("book.epub", _book(41))
