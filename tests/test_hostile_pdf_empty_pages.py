"""A PDF of 100,000 empty pages took 12 s of CPU and 330 MB to be skipped as 'no text layer': pypdf reads every
page object as the page list is opened (90 µs and 2.5 KB each), a 64 MB file of them a minute and 1.7 GB. A PDF of
over ingest.pdf.SAMPLE_FROM pages is now sampled first (its first pages, some spread through the rest, its last):
none with text, it is skipped without reading the rest (1.2 s, 91 MB); one with text, read whole as before."""
from __future__ import annotations

import pytest

from ingest import pdf
from ingest.document import Skip


def _pdf(pages: int, text_on: tuple[int, ...] = (), branch: int = 0, empty: bytes = b"") -> bytes:
    """A PDF of ``pages`` empty pages but those of ``text_on`` (0-based), each a line of text; ``branch``: pages
    per branch of the page tree (0: one flat /Kids), written by hand (pypdf's writer takes minutes for many);
    ``empty``: what an empty page's dictionary holds besides (its /Resources)."""
    objs = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    number, leaves = 4, []
    branches = -(-pages // branch) if branch else 0
    first_branch, number = number, number + branches
    for index in range(pages):
        parent = first_branch + index // branch if branch else 2
        page, number = number, number + 1
        if index in text_on:
            stream = b"BT /F1 12 Tf 72 720 Td (page %d tells of the okapi) Tj ET" % (index + 1)
            objs[number] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
            objs[page] = (b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> "
                          b">> /Contents %d 0 R >>" % (parent, number))
            number += 1
        else:
            objs[page] = b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] %s>>" % (parent, empty)
        leaves.append(page)
    if branch:
        for k in range(branches):
            kids = leaves[k * branch:(k + 1) * branch]
            objs[first_branch + k] = b"<< /Type /Pages /Parent 2 0 R /Count %d /Kids [%s] >>" % (
                len(kids), b" ".join(b"%d 0 R" % kid for kid in kids))
        top = range(first_branch, first_branch + branches)
    else:
        top = leaves
    objs[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objs[2] = b"<< /Type /Pages /Count %d /Kids [%s] >>" % (pages, b" ".join(b"%d 0 R" % kid for kid in top))
    out, offsets = bytearray(b"%PDF-1.4\n"), {}
    for key in sorted(objs):
        offsets[key] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (key, objs[key])
    xref, size = len(out), max(objs) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size + b"".join(b"%010d 00000 n \n" % offsets[key]
                                                                  for key in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


PAGES = pdf.SAMPLE_FROM + 1


@pytest.mark.parametrize("branch", [0, 100])
def test_many_empty_pages_are_skipped_from_a_sample(branch):
    with pytest.raises(Skip) as skipped:
        pdf.parse_pdf("empty.pdf", _pdf(PAGES, branch=branch))
    reason = str(skipped.value)
    assert reason.startswith(pdf.NO_TEXT)
    assert reason.endswith(f"spread to its end, of {PAGES:,}")  # decided by the sample, not by reading every page


@pytest.mark.parametrize("text_on", [(PAGES - 3, PAGES - 1), (pdf.SAMPLE_HEAD - 1,)])
def test_a_scan_with_a_text_layer_at_its_end_or_start_is_read_whole(text_on):
    doc = pdf.parse_pdf("book.pdf", _pdf(PAGES, text_on=text_on, branch=100))
    assert doc.meta["pages"] == PAGES and doc.meta["pages_without_text"] == PAGES - len(text_on)
    text = "\n".join(section.text for section in doc.sections)
    assert all(f"page {page + 1} tells of the okapi" in text for page in text_on)


def test_a_short_pdf_without_text_is_read_whole_as_before():
    with pytest.raises(Skip) as skipped:
        pdf.parse_pdf("short.pdf", _pdf(pdf.SAMPLE_FROM))
    assert str(skipped.value) == pdf.NO_TEXT
