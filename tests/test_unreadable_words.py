"""Why a file a reader skips is skipped, in words its reader can act on (ingest.unreadable): what is wrong with the
file and what to do. A .docx that was no zip read 'not a readable Word document: BadZipFile: File is not a zip
file' in `ingest stats`, `ingest files` (list_files) and search's freshness line; a damaged .odt 'ParseError: …';
a deck's broken slide '[not readable: ppt/slides/slide2.xml: ParseError: …]'. Python's class name goes to the
log (sift.ingest), for a bug report, as the workers' own failures' do (tests/test_failure_words.py)."""
from __future__ import annotations

import io
import logging
import re
import zipfile

from ingest.parse import parse_file
from tests.conftest import ingest, write_tree
from tests.odt_writer import zipped_odt

CLASS_NAME = re.compile(r"\b(?:BadZipFile|ParseError|KeyError|ValueError|EOFError|XMLSyntaxError|Error):")


def _cut_zip() -> bytes:
    """A deck's zip cut at half its length, its directory (at the end) lost: a download or copy not finished."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as deck:
        deck.writestr("[Content_Types].xml", "<Types/>")
        deck.writestr("ppt/presentation.xml", "<p:presentation/>" + " " * 2000)
    return out.getvalue()[:len(out.getvalue()) // 2]


def _workbook() -> bytes:
    """An Excel workbook's zip, its main part a workbook's (saved as .docx by mistake, or renamed)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as book:
        book.writestr("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                      'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
                      'relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/'
                      'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>')
        book.writestr("_rels/.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                      'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
                      '2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
        book.writestr("xl/workbook.xml", '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>')
    return out.getvalue()


def _deck_with_a_broken_slide() -> bytes:
    """A .pptx of two slides, the second's XML broken off."""
    P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
    R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"'
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide"
    slide = (f'<p:sld {P} {A}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>the heron waits by the weir</a:t>'
             '</a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as deck:
        deck.writestr("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                      'content-types"><Override PartName="/ppt/presentation.xml" ContentType="application/'
                      'vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>')
        deck.writestr("ppt/presentation.xml", f'<p:presentation {P} {R}><p:sldIdLst><p:sldId id="256" r:id="rId1"/>'
                      '<p:sldId id="257" r:id="rId2"/></p:sldIdLst></p:presentation>')
        deck.writestr("ppt/_rels/presentation.xml.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/'
                      f'package/2006/relationships"><Relationship Id="rId1" Type="{rel}" Target="slides/slide1.xml"/>'
                      f'<Relationship Id="rId2" Type="{rel}" Target="slides/slide2.xml"/></Relationships>')
        deck.writestr("ppt/slides/slide1.xml", slide)
        deck.writestr("ppt/slides/slide2.xml", slide[:120])
    return out.getvalue()


def test_a_skipped_file_says_what_is_wrong_with_it_and_what_to_do_without_a_class_name(immediate, tmp_path,
                                                                                       monkeypatch, capsys, caplog):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"heron.md": "# Heron\n\nthe heron waits by the weir\n",
                                           "minutes.docx": "these are my minutes, typed as plain text"})
    (root / "talk.pptx").write_bytes(_cut_zip())
    (root / "budget.docx").write_bytes(_workbook())
    (root / "plan.odt").write_bytes(zipped_odt("<office:document-content><office:body><text:p>cut"))
    with caplog.at_level(logging.INFO, logger="sift.ingest"):
        ingest(root)
    from ingest import cli
    assert cli.main(["stats"]) == 0
    stats = capsys.readouterr().out
    assert ("    minutes.docx: skipped at parse: not a Word document (its contents are not a .docx zip): save it again "
            "from Word as .docx\n") in stats, stats
    assert ("    budget.docx: skipped at parse: not a Word document (it is an Excel workbook named .docx): rename it "
            "to .xlsx\n") in stats, stats
    assert ("    talk.pptx: skipped at parse: not a readable PowerPoint deck: its zip is cut short (no directory at "
            "its end: a copy or download not finished?): copy it again, or save it again from PowerPoint as "
            ".pptx\n") in stats, stats
    assert ("    plan.odt: skipped at parse: not a readable OpenDocument text: its XML is damaged (unbound prefix: "
            "line 1, column 0): save it again from LibreOffice as .odt, or index a copy that opens\n") in stats, stats
    assert not CLASS_NAME.search(stats), stats
    logged = " ".join(r.getMessage() for r in caplog.records if r.name == "sift.ingest")
    assert "BadZipFile: File is not a zip file" in logged and "ParseError: unbound prefix" in logged, logged


def test_a_slide_that_cannot_be_read_says_why_in_words():
    doc = parse_file("talk.pptx", _deck_with_a_broken_slide())
    assert doc.sections[0].text.endswith("the heron waits by the weir"), doc.sections[0].text
    said = doc.sections[1].text.split("\n")[1]
    assert said == "[not readable: ppt/slides/slide2.xml: its XML is damaged (unclosed token: line 1, column 0)]", said
    assert doc.meta["cut_short"].startswith("slide 2 of 2 not readable (ppt/slides/slide2.xml: its XML is damaged ("), \
        doc.meta
    assert not CLASS_NAME.search(doc.sections[1].text + doc.meta["cut_short"]), doc.meta
