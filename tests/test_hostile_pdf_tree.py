"""A PDF's page tree read a page at a time (ingest.pdf_tree.PageTree), and a damaged one read as far as it goes.

pypdf's page list held every page object of a PDF to its end (20,000 pages of text: 75 MB of a 153 MB peak), and a
page tree that lists itself among its kids made pypdf refuse the whole file ('Detected cyclic page references').
Now the pages are walked one at a time, each let go once its text is read, and a branch that leads back up the
tree is left out and said (list_files shows it, as it shows a PDF cut short). The memory saved shows at scale
only (bench/hostile.py's long-text.pdf, 20,000 pages: 165 MB, 81 MB now); under 1,000 pages the text's own copies
outweigh the page objects, so it is checked here as what the walk keeps: no page list, no page's objects."""
from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from ingest import pdf, pdf_tree
from ingest.pdf_tree import PageTree

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _pdf(kids: dict[int, list[int]], pages: list[int]) -> bytes:
    """A PDF whose branches (object number: kids) and pages (object numbers, page n says 'page n …') are as
    given; object 2 is the root of the tree, 3 the font, each page's content stream is its number + 10,000."""
    objects = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    for branch, its in kids.items():
        objects[branch] = b"<< /Type /Pages /Count %d /Kids [%s] >>" % (len(its), b" ".join(b"%d 0 R" % k for k in its))
    for page in pages:
        text = b"BT /F1 12 Tf 72 720 Td (page %d tells of the okapi) Tj ET" % page
        objects[page] = (b"<< /Type /Page /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                         b"/Contents %d 0 R >>" % (page + 10_000))
        objects[page + 10_000] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text)
    out, offsets = bytearray(b"%PDF-1.4\n"), {}
    for key in sorted(objects):
        offsets[key] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (key, objects[key])
    xref, size = len(out), max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size + b"".join(
        b"%010d 00000 n \n" % offsets[key] if key in offsets else b"0000000000 65535 f \n" for key in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


def test_a_page_tree_that_holds_itself_is_read_as_far_as_it_goes_and_says_what_it_left_out():
    # the root lists page 10, itself, then a branch that lists the root again and pages 11 and 12
    doc = pdf.parse_pdf("loop.pdf", _pdf({2: [10, 2, 5], 5: [2, 11, 12]}, [10, 11, 12]))
    text = "\n".join(section.text for section in doc.sections)
    assert all(f"page {n} tells of the okapi" in text for n in (10, 11, 12))
    assert doc.meta["pages"] == 3
    assert doc.meta["cut_short"].startswith("page tree damaged: the text of the 3 pages it reaches is indexed")
    assert "a branch that lists one above it among its kids (object 2) (2 times)" in doc.meta["cut_short"]


def test_a_page_tree_that_reaches_no_page_fails_saying_why():
    with pytest.raises(ValueError, match="unreadable PDF: its page tree reaches no page; left out: a branch"):
        pdf.parse_pdf("loop.pdf", _pdf({2: [5], 5: [2]}, []))


def test_a_whole_page_tree_has_no_damage_said():
    doc = pdf.parse_pdf("fine.pdf", _pdf({2: [5, 6], 5: [10, 11], 6: [12]}, [10, 11, 12]))
    assert doc.meta["pages"] == 3 and "cut_short" not in doc.meta


def test_pages_are_walked_one_at_a_time_and_let_go():
    """Neither pypdf's page list is built nor the pages' own objects kept: memory is what one page needs."""
    pages = list(range(10, 610))
    reader = PdfReader(io.BytesIO(_pdf({2: [5, 6], 5: pages[:300], 6: pages[300:]}, pages)))
    tree = PageTree(reader)
    seen = 0
    for page in tree.pages():
        page.extract_text()
        tree.release(page)
        seen += 1
    assert seen == 600 and tree.numbers[pages[-1]] == 599
    assert reader.flattened_pages is None
    assert not any(number >= 10 for _, number in reader.resolved_objects)  # no page nor content stream kept


def test_parsing_a_pdf_builds_no_page_list(monkeypatch):
    """parse_pdf itself, not only the walk, asks pypdf for no page list (``reader.pages``, its outline's page
    numbers and page labels all build it: ``_flatten``), which is what holds the memory at 20,000 pages."""
    flattened, flatten = [], PdfReader._flatten
    monkeypatch.setattr(PdfReader, "_flatten", lambda self, *a, **k: (flattened.append(1), flatten(self, *a, **k))[1])
    doc = pdf.parse_pdf("fine.pdf", _pdf({2: [5, 6], 5: [10, 11], 6: [12]}, [10, 11, 12]))
    assert doc.meta["pages"] == 3 and "page 12 tells of the okapi" in "\n".join(s.text for s in doc.sections)
    assert flattened == []


def test_a_page_tree_past_its_bound_of_entries_is_read_to_it(monkeypatch):
    """pypdf refused a tree of over 100,000 entries whole; the pages before the bound are read now, and the rest
    is said to be left out (the bound made small here: a tree of 100,001 entries takes seconds to read)."""
    monkeypatch.setattr(pdf_tree, "MAX_ENTRIES", 4)
    doc = pdf.parse_pdf("big.pdf", _pdf({2: [5, 6], 5: [10, 11], 6: [12, 13]}, [10, 11, 12, 13]))
    assert doc.meta["pages"] == 2  # branch 5, pages 10 and 11, branch 6: four entries
    assert doc.meta["cut_short"].endswith("left out: the entries of its page tree past 4 (pypdf's bound)")


def test_list_files_shows_what_a_damaged_page_tree_left_out(immediate, sift_env, tmp_path, monkeypatch):
    from tests.conftest import ingest, run_ingest
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "papers"
    root.mkdir()
    (root / "loop.pdf").write_bytes(_pdf({2: [10, 2, 5], 5: [2, 11, 12]}, [10, 11, 12]))
    assert ingest(root)["published"]["failures"] == []
    listed = run_ingest({**sift_env, "SIFT_EMBEDDINGS": "off"}, "files").stdout
    assert "indexed: page tree damaged: the text of the 3 pages it reaches is indexed; left out: a branch" in listed
