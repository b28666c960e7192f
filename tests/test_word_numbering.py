"""A Word document's own numbering (ingest/word_numbering.py): contracts number their clauses with Word's lists and
numbered heading styles, so '2.2' and '(b)' are in no run of text. They were read as '- ' items and bare headings:
'Section 2.2(b)' found nothing of a contract showing it, and read_file showed '- ' where Word shows '2.2'."""
from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from ingest.word import word_headings, word_lines
from search.query.engine import Engine
from tests.conftest import ingest_keyword_only

docx = pytest.importorskip("docx")

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
LEVELS = [("decimal", "%1."), ("decimal", "%1.%2"), ("lowerLetter", "(%3)"), ("lowerRoman", "(%4)")]


def contract() -> bytes:
    """Headings numbered by their style ('1.', '2.'), clauses by the same list's deeper levels ('2.2', '(a)')."""
    from docx.oxml import parse_xml
    d = docx.Document()
    levels = "".join(f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/><w:lvlText w:val="{text}"/>'
                     f'</w:lvl>' for i, (fmt, text) in enumerate(LEVELS))
    numbering = d.part.numbering_part.element
    numbering.insert(0, parse_xml(f'<w:abstractNum {W} w:abstractNumId="90">{levels}</w:abstractNum>'))
    numbering.append(parse_xml(f'<w:num {W} w:numId="90"><w:abstractNumId w:val="90"/></w:num>'))
    heading = d.styles["Heading 1"].element
    heading.get_or_add_pPr().append(parse_xml(f'<w:numPr {W}><w:ilvl w:val="0"/><w:numId w:val="90"/></w:numPr>'))

    def clause(text: str, level: int) -> None:
        p = d.add_paragraph(text)
        p._p.get_or_add_pPr().append(parse_xml(
            f'<w:numPr {W}><w:ilvl w:val="{level}"/><w:numId w:val="90"/></w:numPr>'))

    d.add_heading("Definitions", 1)
    clause('"Confidential Information" means all information disclosed.', 1)
    d.add_heading("Liability", 1)
    clause("Nothing limits liability for fraud.", 1)
    clause("Subject to the above:", 1)
    clause("total liability shall not exceed EUR 250,000; and", 2)
    clause("the cap shall not apply to a breach of confidence.", 2)
    clause("in any case", 3)
    d.add_heading("Governing Law", 1)
    clause("English law governs this Agreement.", 1)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def test_a_contracts_clauses_are_read_with_the_numbers_word_shows():
    data = contract()
    assert word_lines(data, "nda.docx") == [
        "1. Definitions", '  1.1 "Confidential Information" means all information disclosed.',
        "2. Liability", "  2.1 Nothing limits liability for fraud.", "  2.2 Subject to the above:",
        "    (a) total liability shall not exceed EUR 250,000; and",
        "    (b) the cap shall not apply to a breach of confidence.", "      (i) in any case",
        "3. Governing Law", "  3.1 English law governs this Agreement."]
    assert [h[2] for h in word_headings(data, "nda.docx")[1]] == ["1. Definitions", "2. Liability", "3. Governing Law"]


def test_a_clause_number_word_shows_finds_its_clause(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "firm"
    root.mkdir()
    (root / "nda.docx").write_bytes(contract())
    ingest_keyword_only(root, "firm")
    hits = Engine(Path(os.environ["SIFT_HOME"]) / "index.db").search("2.2(b) cap", mode="keyword").hits
    assert hits and "(b) the cap" in hits[0].snippet.replace("*", ""), hits


def test_a_hostile_lists_numbers_stay_small():
    """A start of a billion in letters, or of 5,000 digits, is read as a number, not as a billion letters; a start
    int() refuses ('--5', a superscript '²') is none, not a ValueError that failed the document."""
    from docx.oxml import parse_xml
    d = docx.Document()
    numbering = d.part.numbering_part.element
    for id_, start, fmt in (("91", "999999999", "lowerLetter"), ("92", "9" * 5000, "upperRoman"),
                             ("93", "--5", "decimal"), ("94", "²", "decimal")):
        numbering.insert(0, parse_xml(f'<w:abstractNum {W} w:abstractNumId="{id_}"><w:lvl w:ilvl="0"><w:start '
                                      f'w:val="{start}"/><w:numFmt w:val="{fmt}"/><w:lvlText w:val="%1)"/></w:lvl>'
                                      f'</w:abstractNum>'))
        numbering.append(parse_xml(f'<w:num {W} w:numId="{id_}"><w:abstractNumId w:val="{id_}"/></w:num>'))
        p = d.add_paragraph(f"item of list {id_}")
        p._p.get_or_add_pPr().append(parse_xml(f'<w:numPr {W}><w:ilvl w:val="0"/><w:numId w:val="{id_}"/></w:numPr>'))
    out = io.BytesIO()
    d.save(out)
    assert word_lines(out.getvalue(), "hostile.docx") == ["999999999) item of list 91", "I) item of list 92",
                                                          "1) item of list 93", "1) item of list 94"]


def vertrag() -> bytes:
    """An employment contract's sections headed '§ 5 Vergütung', their paragraphs numbered by hand ('(2) …')."""
    d = docx.Document()
    for heading, paragraphs in (("§ 5 Vergütung", ["(1) Das Gehalt beträgt 4.000 EUR brutto im Monat.",
                                                    "(2) Überstunden werden mit 25 % Zuschlag vergütet."]),
                                ("§ 6 Urlaub", ["(1) Der Urlaub beträgt 30 Arbeitstage.",
                                                "(2) Er ist bis zum 31. März des Folgejahres zu nehmen."])):
        d.add_heading(heading, 1)
        for paragraph in paragraphs:
            d.add_paragraph(paragraph)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


@pytest.mark.parametrize("query, heading, text", [
    ("§ 5 Abs. 2", "§ 5 Vergütung > § 5 Abs. 2", "Überstunden"),
    ("Section 2.2(b)", "2. Liability > 2.2(b)", "(b) the cap")])
def test_a_contracts_own_paragraph_is_found_by_its_reference(immediate, tmp_path, monkeypatch, query, heading, text):
    """A contract's '(2)' under '§ 5 Vergütung', or '(b)' under clause '2.2', writes no '§ 5 Abs. 2' or '2.2(b)':
    a mail citing other paragraphs, its words apart, ranked first. The paragraph is headed by its reference now
    (ingest.legal_paragraphs), and found by it."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "firm"
    root.mkdir()
    (root / "arbeitsvertrag.docx").write_bytes(vertrag())
    (root / "nda.docx").write_bytes(contract())
    (root / "mail.txt").write_text("Nach Art. 6 Abs. 1 und Abs. 5 DSGVO, Klausel 2 Abs. 3; see Section 2.2 and "
                                   "Section 5, (b) and b.\n", encoding="utf-8")
    ingest_keyword_only(root, "firm")
    hits = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", keyword_postings=False).search(
        query, mode="keyword").hits
    assert hits and hits[0].heading_path.endswith(heading) and text in hits[0].snippet.replace("*", ""), \
        [(h.path, h.heading_path) for h in hits]
