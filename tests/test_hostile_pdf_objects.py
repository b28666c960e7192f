"""PDFs whose structure is hostile (a page tree that holds itself: tests/test_hostile_pdf_tree.py): an object
stream that inflates to 80 MB, one that says it holds a hundred million objects, one that holds a great many. pypdf reads every object of an
object stream as it reads one of them and keeps them all: a 6.6 MB file of one stream of 1,000,000 objects took
14 s and 1.1 GB to give a page its font, one of 64 MiB would take minutes and gigabytes. Past
ingest.pdf.OBJECT_STREAM_OBJECTS they are refused first, saying why (bench/hostile.py measures the rest)."""
from __future__ import annotations

import struct
import zlib

import pytest

from ingest import pdf

TEXT = b"BT /F1 12 Tf 20 100 Td (the tapir in a strange pdf) Tj ET"
FONT = b"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>"


def _page(resources: bytes) -> list[bytes]:
    return [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources %s >>" % resources,
            b"<< /Length %d >>\nstream\n%s\nendstream" % (len(TEXT), TEXT)]


def _with_xref_stream(objects: list[bytes], streamed: dict[int, tuple[int, int]]) -> bytes:
    """``objects`` (numbered from 1) written plainly, and a cross-reference stream that places each of
    ``streamed`` (number: (object stream, index)) in an object stream."""
    out, offsets = bytearray(b"%PDF-1.7\n"), {}
    for number, body in enumerate(objects, 1):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_number = max(len(objects), *streamed, 0) + 1
    offsets[xref_number] = len(out)
    rows = b"".join(struct.pack(">BIH", 1, offsets[n], 0) if n in offsets else
                    struct.pack(">BIH", 2, *streamed[n]) if n in streamed else struct.pack(">BIH", 0, 0, 0)
                    for n in range(xref_number + 1))
    data = zlib.compress(rows)
    xref = len(out)
    out += (b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length %d >>\n"
            b"stream\n%s\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n" % (xref_number, xref_number + 1, len(data),
                                                                      data, xref))
    return bytes(out)


def _object_stream(said: int, header: bytes, body: bytes, spaces_mb: int = 0) -> bytes:
    """An object stream saying it holds ``said`` objects, followed by ``spaces_mb`` MB of spaces once inflated."""
    packer = zlib.compressobj(1)
    packed = packer.compress(header + body) + b"".join(packer.compress(b" " * (1 << 20)) for _ in range(spaces_mb))
    packed += packer.flush()
    return b"<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream" % (
        said, len(header), len(packed), packed)


def many_objects(count: int) -> bytes:
    """A page whose font is the first of ``count`` objects of one object stream (the others: '[1]')."""
    header = b"6 0 " + b"".join(b"%d %d " % (7 + i, len(FONT) + i * 3) for i in range(count - 1))
    stream = _object_stream(count, header, FONT + b"[1]" * (count - 1))
    return _with_xref_stream(_page(b"6 0 R") + [stream], {6 + i: (5, i) for i in range(count)})


def _text(data: bytes) -> str:
    return "\n".join(section.text for section in pdf.parse_pdf("x.pdf", data).sections)


def test_object_streams_holding_too_many_objects_are_refused_saying_why(monkeypatch):
    monkeypatch.setattr(pdf, "OBJECT_STREAM_OBJECTS", 1_000)
    assert "the tapir in a strange pdf" in _text(many_objects(1_000))
    with pytest.raises(ValueError, match="its object streams hold more than 1,000 objects"):
        pdf.parse_pdf("x.pdf", many_objects(1_001))


def test_an_object_stream_that_inflates_past_pypdfs_limit_or_says_it_holds_millions_is_refused():
    bomb = _object_stream(1, b"6 0 ", FONT, spaces_mb=80)  # 0.4 MB packed; pypdf inflates 75 MB at most
    with pytest.raises(ValueError, match="unreadable PDF: Limit reached while decompressing"):
        pdf.parse_pdf("x.pdf", _with_xref_stream(_page(b"6 0 R") + [bomb], {6: (5, 0)}))
    liar = _object_stream(100_000_000, b"6 0 ", FONT)
    with pytest.raises(ValueError, match="unreadable PDF: "):
        pdf.parse_pdf("x.pdf", _with_xref_stream(_page(b"6 0 R") + [liar], {6: (5, 0)}))
