"""A compound a PDF breaks at a line end ('beta-' / 'blocker') keeps its hyphen where the document writes each half
as a word and never the two joined (ingest.pdf._both_words): it was indexed as 'betablocker', which neither
'beta-blocker' nor 'beta blocker' finds. A word broken into syllables ('treat-' / 'ment') is still joined."""
from __future__ import annotations

from ingest.pdf import parse_pdf
from tests.pdf_writer import RESOURCES, raw_pdf, stream

LINES = ["Start a beta-", "blocker after the dose-", "adjustment; treat-", "ment with metfor-", "min is once-",
         "daily. Some-", "thing else.", "A beta blocker blocks beta receptors: a dose adjustment, once daily,",
         "for something like treatment."]


def _page_of_lines(lines: list[str]) -> bytes:
    """One page drawing ``lines`` one under another (T*), as a guideline's narrow column is drawn."""
    body = "BT /F1 10 Tf 72 720 Td 12 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
    return raw_pdf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                    f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources {RESOURCES} >>",
                    stream(body)])


def test_a_compound_broken_at_a_line_end_keeps_its_hyphen_a_broken_word_is_joined():
    text = " ".join(section.text for section in parse_pdf("guideline.pdf", _page_of_lines(LINES)).sections)
    for compound in ("beta-blocker", "dose-adjustment", "once-daily"):
        assert compound in text
    for word in ("treatment with metformin", "Something else"):  # syllables; a word written whole elsewhere
        assert word in text
