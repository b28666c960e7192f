"""The number printed on each page (a PDF's /PageLabels), read by Sift itself (ingest.pdf_labels): it came from
pypdf's private ``pypdf._page_labels``, which any pypdf release may change or drop, and pypdf's public
``reader.page_labels`` reads the whole page list in for its count of pages. The labels are what pypdf gave."""
from __future__ import annotations

import re
from pathlib import Path

from ingest import pdf
from ingest.pdf_labels import page_labels
from tests.pdf_writer import pages_pdf

PAGES = [f"page {i + 1} tells of the tapir" for i in range(10)]


def _labels(catalog: str) -> list[str] | None:
    return pdf.parse_pdf("book.pdf", pages_pdf(PAGES, catalog)).meta.get("page_labels")


def test_roman_front_matter_then_arabic_then_a_prefixed_appendix():
    book = "/PageLabels << /Nums [0 << /S /r >> 3 << /S /D >> 7 << /S /A /P (App. ) /St 1 >>] >>"
    assert _labels(book) == ["i", "ii", "iii", "1", "2", "3", "4", "App. A", "App. B", "App. C"]
    upper = "/PageLabels << /Nums [0 << /S /R /St 4 >> 2 << /S /D /St 40 >>] >>"
    assert _labels(upper) == ["IV", "V", "40", "41", "42", "43", "44", "45", "46", "47"]


def test_a_tree_of_ranges_in_kids_is_read_in_order():
    kids = ("/PageLabels << /Kids [<< /Limits [0 2] /Nums [0 << /S /r >>] >> "
            "<< /Limits [3 9] /Nums [3 << /S /a /St 25 >> 5 << /P (plate ) >>] >>] >>")
    assert _labels(kids) == ["i", "ii", "iii", "y", "z", "plate ", "plate ", "plate ", "plate ", "plate "]


def test_pages_a_label_cannot_name_go_by_their_place():
    """Before the first range, an unknown style, a range that is no dictionary: the page's place, as pypdf gave;
    labels that are all places are left out."""
    assert _labels("/PageLabels << /Nums [2 << /S /r >>] >>") == ["1", "2", *"i ii iii iv v vi vii viii".split()]
    assert _labels("/PageLabels << /Nums [0 << /S /Q >> 4 5] >>") is None
    assert _labels("/PageLabels 7") is None


def test_a_tree_that_holds_itself_or_numbers_past_what_a_style_writes_is_bounded():
    from pypdf import PdfReader
    import io
    data = pages_pdf(PAGES[:3], "/PageLabels 9 0 R",
                     ["<< /Kids [9 0 R << /Limits [0 9] /Nums [0 << /S /a /St 99999999999 >>] >>] >>"])
    reader = PdfReader(io.BytesIO(data))
    assert page_labels(reader.root_object, 3) == ["1", "2", "3"], "AAA... of 3.8 billion letters: not written"


def test_no_parser_imports_a_private_pypdf_module():
    ingest = Path(pdf.__file__).parent
    private = [f"{path.name}: {line.strip()}" for path in sorted(ingest.rglob("*.py"))
               for line in path.read_text().splitlines() if re.match(r"\s*(from|import) pypdf\._", line)]
    assert private == []
