"""A PDF with 10,000 annotations on its page, and PDFs whose cross-reference table is wrong: each offset 7 bytes
off (a file edited by hand or by a tool that did not write it again), or a startxref past the file's end. pypdf
finds the objects again by scanning the file; the text is indexed (bench/hostile.py: annotations.pdf 0.12 s,
45 MB; xref-shifted.pdf, xref-lost.pdf 0.09 s)."""
from __future__ import annotations

from ingest import pdf
from tests.pdf_writer import annotated_pdf, broken_xref, page_pdf


def _text(data: bytes) -> str:
    return "\n".join(section.text for section in pdf.parse_pdf("x.pdf", data).sections)


def test_a_page_with_ten_thousand_annotations_is_indexed():
    assert "the tapir under ten thousand links" in _text(annotated_pdf(10_000))


def test_a_cross_reference_table_off_by_some_bytes_or_lost_is_read_around():
    good = page_pdf("the tapir behind a broken table")
    for data in (broken_xref(good, 7), broken_xref(good, 0)):
        assert data != good
        assert "the tapir behind a broken table" in _text(data)
