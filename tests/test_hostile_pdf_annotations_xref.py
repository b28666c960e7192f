"""A PDF with 10,000 annotations on its page, and PDFs whose cross-reference table is wrong: each offset 7 bytes
off (a file edited by hand or by a tool that did not write it again), or a startxref past the file's end. pypdf
finds the objects again by scanning the file; the text is indexed (bench/hostile.py: annotations.pdf 0.12 s,
45 MB; xref-shifted.pdf, xref-lost.pdf 0.09 s)."""
from __future__ import annotations

import re

from ingest import pdf

FONT = "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>"


def _raw(objects: list[str]) -> bytes:
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _page(text: str, extra: str = "", more: list[str] = ()) -> bytes:
    stream = f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET"
    return _raw(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                 f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R {extra} /Resources {FONT} >>",
                 f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream", *more])


def _text(data: bytes) -> str:
    return "\n".join(section.text for section in pdf.parse_pdf("x.pdf", data).sections)


def test_a_page_with_ten_thousand_annotations_is_indexed():
    links = [f"<< /Type /Annot /Subtype /Link /Rect [{i % 200} 0 {i % 200 + 1} 1] /A << /S /URI /URI "
             f"(https://example.org/{i}) >> >>" for i in range(10_000)]
    annots = "[" + " ".join(f"{6 + i} 0 R" for i in range(10_000)) + "]"
    assert "the tapir under ten thousand links" in _text(_page("the tapir under ten thousand links", "/Annots 5 0 R",
                                                               [annots, *links]))


def test_a_cross_reference_table_off_by_some_bytes_or_lost_is_read_around():
    good = _page("the tapir behind a broken table")
    head, _, table = good.rpartition(b"xref\n")
    shifted = head + b"xref\n" + re.sub(rb"(\d{10}) 00000 n", lambda m: b"%010d 00000 n" % (int(m[1]) + 7), table)
    lost = re.sub(rb"startxref\n\d+", b"startxref\n999999", good)
    for data in (shifted, lost):
        assert "the tapir behind a broken table" in _text(data)
