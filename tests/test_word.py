"""Word documents (.docx, ingest.word): real files made with python-docx, read by the parser and the real engine.

Before, .docx was among the 'kinds Sift does not read': none of these searches found its answer."""
from __future__ import annotations

import io
import os
import re
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from ingest.document import Skip
from ingest.kinds import kind_of
from ingest.links import converted_pdfs
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

try:
    import docx
except ImportError:  # .odt needs no package: its tests run
    docx = None
NEEDS_DOCX = pytest.mark.skipif(docx is None, reason="python-docx is not installed (scripts/setup installs it): "
                                                     "Word documents are not read without it")
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def report(title: str = "") -> bytes:
    """A meeting report: a Title, headings two deep, lists, a table, a footnote-free comment, a layout box."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    d = docx.Document()
    d.core_properties.title = title
    d.add_paragraph("Harbour Study Minutes", style="Title")
    d.add_heading("Attendees", 1)
    d.add_paragraph("Ingrid Halvorsen chaired the meeting.")
    d.add_paragraph("Tomas Brenner", style="List Bullet")
    d.add_paragraph("his deputy", style="List Bullet 2")
    d.add_heading("Budget", 1)
    d.add_heading("Dredging costs", 2)
    table = d.add_table(rows=3, cols=3)
    for i, row in enumerate([["Item", "Owner", "Cost"], ["Sonar survey", "Okonkwo", "4,000"],
                             ["Silt | sludge removal", "Varga", "12,500"]]):
        for j, value in enumerate(row):
            table.cell(i, j).text = value
    after = d.add_paragraph("The council approves the dredging in May.")
    d.add_comment(after.runs[0], text="Confirm with the Lindqvist office", author="Ana")
    box = d.add_table(rows=1, cols=1)  # a layout box: its text a paragraph
    box.cell(0, 0).text = "Boxed reminder about the ferry timetable"
    # a paragraph with its own outline level (no Heading style): a heading at level 1
    chapter = d.add_paragraph("Risks and outlook")
    props = chapter._p.get_or_add_pPr()
    level = OxmlElement("w:outlineLvl")
    level.set(qn("w:val"), "0")
    props.append(level)
    d.add_paragraph("Storm surges threaten the quay.")
    deleted = d.add_paragraph("Kept words ")
    gone = OxmlElement("w:del")
    run = OxmlElement("w:r")
    text = OxmlElement("w:delText")
    text.text = "withdrawn clause"
    run.append(text)
    gone.append(run)
    deleted._p.append(gone)
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


@NEEDS_DOCX
def test_a_docx_is_a_note_by_its_headings_with_lists_tables_and_comments():
    doc = parse_file("minutes/harbour.docx", report())
    assert kind_of("Report.DOCX") == "note" and doc.kind == "note"
    assert doc.title == "Harbour Study Minutes", doc.title  # no core title: the Title paragraph
    parts = {" > ".join(s.heading_path): s for s in doc.sections}
    assert list(parts) == ["Harbour Study Minutes > Attendees", "Harbour Study Minutes > Budget > Dredging costs",
                           "Harbour Study Minutes > Risks and outlook"], list(parts)
    attendees = parts["Harbour Study Minutes > Attendees"].text.split("\n")
    assert attendees == ["Harbour Study Minutes", "Attendees", "Ingrid Halvorsen chaired the meeting.",
                         "- Tomas Brenner", "  - his deputy"], attendees
    costs = parts["Harbour Study Minutes > Budget > Dredging costs"]
    lines = costs.text.split("\n")
    assert lines[2:6] == ["| Item | Owner | Cost |", "| --- | --- | --- |", "| Sonar survey | Okonkwo | 4,000 |",
                          "| Silt \\| sludge removal | Varga | 12,500 |"], lines
    start, end = costs.atomic[0]
    assert costs.text[start:end] == "\n".join(lines[2:6])  # the table kept whole, its header row carried
    assert lines[6] == "The council approves the dredging in May.[^c0]", lines
    assert doc.footnotes == {"c0": "Ana: Confirm with the Lindqvist office"}, doc.footnotes
    assert lines[7] == "Boxed reminder about the ferry timetable", lines
    risks = parts["Harbour Study Minutes > Risks and outlook"].text.split("\n")
    assert risks == ["Risks and outlook", "Storm surges threaten the quay.", "Kept words",
                     "[^c0]: Ana: Confirm with the Lindqvist office"], risks  # deleted words out; notes last
    # lines are numbered through the document, a paragraph or a row each: the sections tile them
    assert [(s.start_line, s.end_line) for s in doc.sections] == [(1, 5), (6, 13), (14, 17)]


BOX = ('<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
       'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
       'xmlns:v="urn:schemas-microsoft-com:vml"><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing>'
       '<w:txbxContent><w:p><w:r><w:t>Sidebar: tide tables from Bergen</w:t></w:r></w:p></w:txbxContent>'
       '</w:drawing></mc:Choice><mc:Fallback><w:pict><v:textbox><w:txbxContent><w:p><w:r>'
       '<w:t>Sidebar: tide tables from Bergen</w:t></w:r></w:p></w:txbxContent></v:textbox></w:pict></mc:Fallback>'
       '</mc:AlternateContent></w:r>')


@NEEDS_DOCX
def test_a_style_based_on_a_heading_is_one_and_a_text_box_is_read_once():
    """A house style ('Chapter Part', based on Heading 2) heads its section as Heading 2 does; a text box, which Word
    writes twice (DrawingML, and VML for old readers), is its paragraph after the one holding it, once."""
    from docx.enum.style import WD_STYLE_TYPE
    from docx.oxml import parse_xml
    d = docx.Document()
    d.add_heading("Field work", 1)
    part = d.styles.add_style("Chapter Part", WD_STYLE_TYPE.PARAGRAPH)
    part.base_style = d.styles["Heading 2"]
    d.add_paragraph("Tides", style="Chapter Part")
    holder = d.add_paragraph("See the box.")
    holder._p.append(parse_xml(BOX))
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Station", "Note"
    table.cell(1, 0).text = "Bergen"
    table.cell(1, 1)._tc.append(parse_xml(f'<w:p xmlns:w="{W[1:-1]}">{BOX}</w:p>'))
    out = io.BytesIO()
    d.save(out)
    doc = parse_file("field.docx", out.getvalue())
    assert [s.heading_path for s in doc.sections] == [["Field work", "Tides"]], doc.sections
    lines = doc.sections[0].text.split("\n")
    assert lines == ["Field work", "Tides", "See the box.", "Sidebar: tide tables from Bergen", "| Station | Note |",
                     "| --- | --- |", "| Bergen | Sidebar: tide tables from Bergen |"], lines  # in a cell: once too


@NEEDS_DOCX
def test_a_docx_title_is_its_core_title_else_its_file_name():
    assert parse_file("a/harbour.docx", report("Harbour 2024")).title == "Harbour 2024"
    d = docx.Document()
    d.add_paragraph("Only a paragraph.")
    out = io.BytesIO()
    d.save(out)
    doc = parse_file("a/Budget notes.docx", out.getvalue())
    assert doc.title == "Budget notes" and doc.sections[0].text == "Only a paragraph.", doc


@NEEDS_DOCX
def test_a_title_or_date_a_program_wrote_is_none():
    """python-docx titles a .docx without docProps/core.xml 'Word Document', and its template dates every document
    23 December 2013: before, such a report was titled 'Word Document' and dated 2013."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(report()), "r") as source, zipfile.ZipFile(out, "w") as copy:
        for item in source.infolist():
            part = source.read(item.filename)
            if item.filename == "_rels/.rels":  # no relationship to it either, as a file some writers make
                part = re.sub(rb'<Relationship [^>]*core-properties[^>]*/>', b"", part)
            if item.filename != "docProps/core.xml":
                copy.writestr(item, part)
    doc = parse_file("minutes/harbour.docx", out.getvalue())
    assert doc.title == "Harbour Study Minutes", doc.title  # its Title paragraph
    assert parse_file("a/harbour.docx", report("Untitled document")).title == "Harbour Study Minutes"
    assert parse_file("a/harbour.docx", report("harbour.docx")).title == "Harbour Study Minutes"
    for own in ("Word documents of 2024", "Untitled Goose Game review"):
        assert parse_file("a/harbour.docx", report(own)).title == own
    assert "created" not in parse_file("a/harbour.docx", report()).meta  # the template's date is no date
    d = docx.Document()
    d.core_properties.created = datetime(2024, 3, 5, 9, 0)
    d.add_paragraph("Dated.")
    d.save(out := io.BytesIO())
    assert parse_file("a/dated.docx", out.getvalue()).meta["created"].startswith("2024-03-05")


@NEEDS_DOCX
def test_a_broken_or_encrypted_docx_is_skipped_with_its_reason():
    with pytest.raises(Skip, match=r"^not a Word document \(its contents are not a \.docx zip\): save it again from "
                                   r"Word as \.docx$"):
        parse_file("a.docx", b"this is not a zip at all")
    with pytest.raises(Skip, match="password-protected"):
        parse_file("a.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)
    damaged = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(report())) as whole, zipfile.ZipFile(damaged, "w") as cut:
        for info in whole.infolist():
            data = whole.read(info)
            cut.writestr(info, data[: len(data) // 2] if info.filename == "word/document.xml" else data)
    with pytest.raises(Skip, match="not a readable Word document"):
        parse_file("a.docx", damaged.getvalue())


def docx_of(body: str, styles: str = "", content_type: str = "") -> bytes:
    """A python-docx document whose body is ``body`` (WordprocessingML), ``styles`` added to its styles and its main
    part's content type ``content_type`` when given: what Word, Google Docs or LibreOffice write."""
    d = docx.Document()
    whole = io.BytesIO()
    d.save(whole)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(whole.getvalue())) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/document.xml":
                text = data.decode()
                data = text[:text.index("<w:body>") + 8] + body + text[text.index("</w:body>"):]
            elif info.filename == "word/styles.xml":
                data = data.decode().replace("</w:styles>", styles + "</w:styles>")
            elif info.filename == "[Content_Types].xml" and content_type:
                data = data.decode().replace(
                    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml", content_type)
            dst.writestr(info, data)
    return out.getvalue()


def para(text: str, style: str = "") -> str:
    styled = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    return f'<w:p>{styled}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


@NEEDS_DOCX
def test_a_form_cell_in_a_content_control_is_read():
    """A form's filled-in cell is a content control around the cell (w:sdt > w:sdtContent > w:tc): its text was
    lost, the row read as '| Applicant |  |'."""
    cell = lambda text: f"<w:tc>{para(text)}</w:tc>"  # noqa: E731
    body = (f"<w:tbl><w:tr>{cell('Field')}{cell('Answer')}</w:tr><w:tr>{cell('Applicant')}"
            f'<w:sdt><w:sdtPr><w:alias w:val="Name"/></w:sdtPr><w:sdtContent>{cell("Zebulon Quartermain")}'
            "</w:sdtContent></w:sdt></w:tr></w:tbl>")
    lines = parse_file("form.docx", docx_of(body)).sections[0].text.split("\n")
    assert lines[-1] == "| Applicant | Zebulon Quartermain |", lines
    # a field left empty shows its placeholder: a prompt, not the form's text (in a cell, a paragraph, a run)
    prompt = "Click or tap here to enter text."
    empty = body.replace('<w:alias w:val="Name"/>', '<w:alias w:val="Name"/><w:showingPlcHdr/>').replace(
        "Zebulon Quartermain", prompt)
    inline = (f'<w:p><w:r><w:t xml:space="preserve">Date: </w:t></w:r><w:sdt><w:sdtPr><w:showingPlcHdr/></w:sdtPr>'
              f'<w:sdtContent><w:r><w:t>{prompt}</w:t></w:r></w:sdtContent></w:sdt></w:p>'
              f'<w:sdt><w:sdtPr><w:showingPlcHdr/></w:sdtPr><w:sdtContent>{para(prompt)}</w:sdtContent></w:sdt>')
    text = parse_file("form.docx", docx_of(empty + inline)).sections[0].text
    assert prompt not in text and text.split("\n")[2:] == ["| Applicant |  |", "Date:"], text


@NEEDS_DOCX
def test_a_heading_style_named_in_another_language_or_not_defined_is_a_heading():
    """Google Docs, LibreOffice and pandoc name heading styles 'Heading1' by id; the name shown may be the
    writer's language ('Überschrift 1', no outline level), or the style not defined at all: such headings were
    body text, the document one section with no heading path."""
    styles = ('<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="Überschrift 1"/>'
              '<w:basedOn w:val="Normal"/></w:style>')
    body = (para("Einleitung", "Heading1") + para("Der Hafen wird vertieft.") + para("Kosten", "Heading2")
            + para("Zwölf Millionen.") + para("Fragen per e"))
    body = body.replace("per e", "per e</w:t></w:r><w:r><w:noBreakHyphen/><w:t>mail")
    doc = parse_file("bericht.docx", docx_of(body, styles))
    assert [s.heading_path for s in doc.sections] == [["Einleitung"], ["Einleitung", "Kosten"]], doc.sections
    assert doc.title == "Einleitung"
    assert doc.sections[1].text.endswith("per e-mail"), doc.sections[1].text  # a non-breaking hyphen is one


@NEEDS_DOCX
def test_a_document_whose_headings_are_bold_lines_is_cut_by_them():
    """No heading style, its headings typed as bold lines: the whole document was one section with no heading path,
    a hit in it named nothing. A bold sentence, or a single bold line, is emphasis, not a heading."""
    d = docx.Document()
    d.add_paragraph("Quay memo", style="Title")  # a Title is no heading style of the text's parts
    for head, body in [("Background", "The quay was built in 1962."), ("Findings", "Three pilings are cracked.")]:
        d.add_paragraph().add_run(head).bold = True
        d.add_paragraph(body)
    d.add_paragraph().add_run("Do not publish this before June.").bold = True
    out = io.BytesIO()
    d.save(out)
    doc = parse_file("memo.docx", out.getvalue())
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (["Quay memo", "Background"], "Quay memo\nBackground\nThe quay was built in 1962."),
        (["Quay memo", "Findings"], "Findings\nThree pilings are cracked.\nDo not publish this before June.")], \
        doc.sections
    d = docx.Document()
    d.add_heading("Summary", 1)
    d.add_paragraph().add_run("Bold aside").bold = True
    d.add_paragraph().add_run("Another").bold = True
    out = io.BytesIO()
    d.save(out)
    assert [s.heading_path for s in parse_file("styled.docx", out.getvalue()).sections] == [["Summary"]]


@NEEDS_DOCX
@pytest.mark.parametrize("content_type", [
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",  # .dotx
    "application/vnd.ms-word.document.macroEnabled.main+xml",  # .docm
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml"])  # .dotm
def test_a_template_or_macro_document_named_docx_is_read(content_type):
    """A .dotx or .docm renamed .docx was skipped ('is not a Word file, content type is …'): it is the same
    WordprocessingML (its macros are not read)."""
    doc = parse_file("letter.docx", docx_of(para("Dear committee, the quay repairs begin in June."),
                                            content_type=content_type))
    assert doc.sections[0].text == "Dear committee, the quay repairs begin in June."


def test_without_python_docx_a_docx_is_skipped_for_now_saying_what_to_install(monkeypatch):
    """Skipped for now (SkipForNow: installing it changes the answer, not the file), not failed for good."""
    from ingest.document import SkipForNow
    import sys
    monkeypatch.setitem(sys.modules, "docx", None)  # as if it were not installed: importing it raises ImportError
    with pytest.raises(SkipForNow, match="python-docx is not installed"):
        parse_file("a.docx", b"PK\x03\x04")


def test_a_docx_or_odt_beside_its_pdf_export_stands_for_it():
    """report.pdf is what Word exported from report.docx: read as well, its text was found twice."""
    assert converted_pdfs({"report.pdf", "report.docx", "memo.odt", "memo.pdf"}) == \
        {"report.docx": "report.pdf", "memo.odt": "memo.pdf"}


@NEEDS_DOCX
def test_word_documents_are_searched_and_read_by_their_lines_and_headings(immediate, tmp_path, monkeypatch):
    """Searched by a name, a table's cell and a comment, a broken one a visible failure costing nothing else, Word's
    owner file (~$…) not a file at all; read_file shows the lines search names, and a section by its heading."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "work", {"notes/plan.md": "# Plan\n\nThe ferry runs hourly.\n"})
    (root / "minutes").mkdir()
    (root / "minutes" / "harbour.docx").write_bytes(report())
    (root / "minutes" / "broken.docx").write_bytes(b"PK\x03\x04 truncated")
    (root / "minutes" / "lagoon.odt").write_bytes(odt())
    (root / "minutes" / "~$harbour.docx").write_bytes(b"\x05Ana  " + b"\0" * 100)  # Word's owner file
    published = ingest(root, "work")["published"]
    assert ".docx" not in published["unread"], published
    failed = {f["path"]: f for f in published["failures"]}
    assert list(failed) == ["minutes/broken.docx"], published["failures"]
    assert "not a readable Word document" in str(failed["minutes/broken.docx"]), failed
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")

    def found(query: str):
        return [(h.path, h.heading_path, h.start_line, h.end_line)
                for h in engine.search(query, mode="keyword").hits]

    assert found("Okonkwo")[0][:2] == ("minutes/harbour.docx", "Harbour Study Minutes > Budget > Dredging costs")
    assert found("Lindqvist office")[0][0] == "minutes/harbour.docx"  # a comment, embedded with its passage
    assert found("Halvorsen")[0][:2] == ("minutes/harbour.docx", "Harbour Study Minutes > Attendees")
    assert found("ferry")[0][0] in ("notes/plan.md", "minutes/harbour.docx")
    assert not any("~$" in path for path, *_ in found("Ana"))
    _, _, first, last = found("Halvorsen")[0]
    sift = Sift(load())
    shown, data = reading.read(sift, "work/minutes/harbour.docx", first, last, None)
    assert "Ingrid Halvorsen chaired the meeting." in shown and "a Word document" in shown, shown
    assert (data["start_line"], data["end_line"], data["total_lines"]) == (first, last, 17), data
    shown, data = reading.read(sift, "work/minutes/harbour.docx", None, None, None, heading="Dredging costs")
    assert (data["start_line"], data["end_line"]) == (7, 13), data
    assert "| Sonar survey | Okonkwo | 4,000 |" in shown and "Storm surges" not in shown, shown
    shown, data = reading.read(sift, "harbour.docx#Dredging costs", None, None, None)  # an Obsidian link to it
    assert (data["start_line"], data["end_line"]) == (7, 13) and "as a link to the note" in shown, shown
    assert found("Kvarven")[0][:2] == ("minutes/lagoon.odt", "Lagoon Survey > Survey > Stations")
    shown, data = reading.read(sift, "work/minutes/lagoon.odt", None, None, None, heading="Stations")
    assert (data["start_line"], data["end_line"]) == (6, 13) and "| Kvarven | 14 m |" in shown, shown


@NEEDS_DOCX
def test_a_long_thesis_parses_in_one_pass(tmp_path):
    """300 pages: 60 chapters of 5 sections, each of paragraphs and a table; read whole, every section kept."""
    d = docx.Document()
    for chapter in range(60):
        d.add_heading(f"Chapter {chapter}", 1)
        for section in range(5):
            d.add_heading(f"Section {chapter}.{section}", 2)
            for n in range(8):
                d.add_paragraph(f"Paragraph {n} of section {chapter}.{section} discusses sediment transport "
                                "in estuaries, with measurements taken at low and high tide. " * 3)
        table = d.add_table(rows=6, cols=4)
        for row in table.rows:
            for cell in row.cells:
                cell.text = "value"
    out = io.BytesIO()
    d.save(out)
    doc = parse_file("thesis.docx", out.getvalue())
    assert len(doc.sections) == 60 * 5, len(doc.sections)
    assert doc.sections[-1].heading_path == ["Chapter 59", "Section 59.4"]
    # a chapter: its heading, 5 sections of a heading and 8 paragraphs, a table of a header, its rule and 5 rows
    assert doc.sections[-1].end_line == 60 * (1 + 5 * 9 + 7), doc.sections[-1].end_line


ODT_CONTENT = """<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
<office:automatic-styles><style:style style:name="P1" style:family="paragraph" style:parent-style-name="Title"/>
</office:automatic-styles>
<office:body><office:text>
<text:tracked-changes><text:changed-region><text:deletion><text:p>withdrawn clause</text:p></text:deletion>
</text:changed-region></text:tracked-changes>
<text:table-of-content><text:index-body><text:p>Survey 1</text:p></text:index-body></text:table-of-content>
<text:p text:style-name="P1">Lagoon Survey</text:p>
<text:h text:outline-level="1">Survey</text:h>
<text:p>Led by Sigrun<text:s text:c="2"/>Aasen<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation>
<text:note-body><text:p>Funded by the Hordaland grant.</text:p></text:note-body></text:note> in June.</text:p>
<text:list><text:list-item><text:p>boats</text:p><text:list><text:list-item><text:p>the red one</text:p>
</text:list-item></text:list></text:list-item></text:list>
<text:h text:outline-level="2">Stations</text:h>
<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>Station</text:p></table:table-cell>
<table:table-cell><text:p>Depth</text:p></table:table-cell></table:table-row></table:table-header-rows>
<table:table-row><table:table-cell><text:p>Kvarven</text:p></table:table-cell><table:table-cell><text:p>14 m</text:p>
</table:table-cell></table:table-row></table:table>
<text:p>Checked<office:annotation><dc:creator>Per</dc:creator><text:p>Recheck Kvarven depth</text:p></office:annotation>
 twice.<draw:frame><draw:text-box><text:p>Boxed: bring waders</text:p></draw:text-box></draw:frame></text:p>
</office:text></office:body></office:document-content>"""
ODT_META = """<?xml version="1.0" encoding="UTF-8"?>
<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta>{}</office:meta></office:document-meta>"""


def odt(content: str = ODT_CONTENT, title: str = "", manifest: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        package.writestr("content.xml", content)
        package.writestr("meta.xml", ODT_META.format(f"<dc:title>{title}</dc:title>" if title else ""))
        package.writestr("META-INF/manifest.xml", manifest or "<manifest/>")
    return out.getvalue()


def test_an_odt_is_read_as_a_word_document_is():
    """OpenDocument text (LibreOffice, Google Docs' download) was a kind Sift does not read."""
    doc = parse_file("field/lagoon.odt", odt())
    assert kind_of("a.ODT") == "note" and doc.title == "Lagoon Survey", doc.title
    assert [(s.heading_path, s.start_line, s.end_line) for s in doc.sections] == [
        (["Lagoon Survey", "Survey"], 1, 5), (["Lagoon Survey", "Survey", "Stations"], 6, 13)], doc.sections
    assert doc.sections[0].text.split("\n") == ["Lagoon Survey", "Survey", "Led by Sigrun Aasen[^1] in June.",
                                                "- boats", "  - the red one"], doc.sections[0].text
    assert doc.sections[1].text.split("\n") == [
        "Stations", "| Station | Depth |", "| --- | --- |", "| Kvarven | 14 m |", "Checked[^c1] twice.",
        "Boxed: bring waders", "[^1]: Funded by the Hordaland grant.", "[^c1]: Per: Recheck Kvarven depth"], \
        doc.sections[1].text  # no deleted text, no table of contents
    assert doc.footnotes == {"1": "Funded by the Hordaland grant.", "c1": "Per: Recheck Kvarven depth"}
    assert parse_file("x.odt", odt(title="Lagoon 2024")).title == "Lagoon 2024"
    with pytest.raises(Skip, match="password-protected"):
        parse_file("x.odt", odt(manifest="<manifest:encryption-data/>"))
    with pytest.raises(Skip, match="not a readable OpenDocument text"):
        parse_file("x.odt", odt(content="<office:document-content"))
    with pytest.raises(Skip, match="not a readable OpenDocument text"):
        parse_file("x.odt", b"PK\x03\x04 cut")


def test_an_odt_tables_cell_holds_its_note_and_nested_table_once():
    cells = ('<table:table-row><table:table-cell><text:p>Site</text:p></table:table-cell><table:table-cell><text:p>'
             'Notes</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>Askøy'
             '<text:note><text:note-body><text:p>Surveyed twice</text:p></text:note-body></text:note></text:p>'
             '</table:table-cell><table:table-cell><table:table><table:table-row><table:table-cell><text:p>inner a'
             '</text:p></table:table-cell><table:table-cell><text:p>inner b</text:p></table:table-cell>'
             '</table:table-row></table:table></table:table-cell></table:table-row>')
    head, _, rest = ODT_CONTENT.partition("<office:body><office:text>")
    content = head + f"<office:body><office:text><table:table>{cells}</table:table></office:text></office:body>" \
        "</office:document-content>"
    lines = parse_file("t.odt", odt(content)).sections[0].text.split("\n")
    assert lines == ["| Site | Notes |", "| --- | --- |", "| Askøy[^1] | inner a inner b |",
                     "[^1]: Surveyed twice"], lines


def test_an_odt_nested_past_the_stack_is_skipped_with_its_reason():
    head, _, rest = ODT_CONTENT.partition("<office:body><office:text>")
    deep = "<text:span>" * 100_000 + "x" + "</text:span>" * 100_000
    content = head + f"<office:body><office:text><text:p>{deep}</text:p></office:text></office:body>" \
        "</office:document-content>"
    with pytest.raises(Skip, match="nested too deeply"):
        parse_file("deep.odt", odt(content))


def test_an_odt_whose_meta_xml_is_a_zip_bomb_is_skipped_unread(monkeypatch):
    """Only content.xml's size was checked: a 600 KB .odt whose meta.xml unzipped to 600 MB took 12 s and 1.8 GB
    to read. Every part read counts (a small limit here stands for the real 128 MiB)."""
    import ingest.zipped
    monkeypatch.setattr(ingest.zipped, "OPENED_BYTES", 50_000)
    assert parse_file("fine.odt", odt()).title == "Lagoon Survey"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("content.xml", ODT_CONTENT)
        package.writestr("meta.xml", ODT_META.format("<dc:title>Bomb</dc:title>" + " " * 60_000))
    with pytest.raises(Skip, match="a zip bomb"):
        parse_file("bomb.odt", out.getvalue())


@NEEDS_DOCX
def test_a_docx_zip_bomb_is_skipped_and_a_zip_slip_name_is_never_written(monkeypatch, tmp_path):
    """A part unzipping past the limit (a small one here stands for the real 128 MiB) is skipped as a zip bomb; a
    part named '../../slip.txt' is never written anywhere (nothing is extracted), the document read as usual."""
    import ingest.zipped
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "a" / "b")
    slipped = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(docx_of(para("Quay inspection notes."))), "r") as src, \
            zipfile.ZipFile(slipped, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        dst.writestr("../../slip.txt", "x" * 200_000)
    assert parse_file("slip.docx", slipped.getvalue()).sections[0].text == "Quay inspection notes."
    assert [p.name for p in tmp_path.rglob("*")] == ["a", "b"]
    monkeypatch.setattr(ingest.zipped, "OPENED_BYTES", 100_000)
    with pytest.raises(Skip, match="a zip bomb"):
        parse_file("slip.docx", slipped.getvalue())


@NEEDS_DOCX
def test_a_pdf_a_word_document_or_a_tex_file_stands_for_is_said_to_be_its_export(immediate, tmp_path, monkeypatch):
    """list_files and read_file named cover.docx beside cover.pdf 'the note … (taken for its conversion)': a Word
    document called a note, and the PDF called what it was made from, when the PDF is its export. They name the
    Word document or the LaTeX source, and the PDF its export or what LaTeX typeset; a Markdown note stays a note."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "work", {"thesis/main.tex": "\\section{Methods}\nBuoys near the reef.\n",
                                          "notes/siege.md": "# Siege\n\nMy notes on the siege.\n"})
    (root / "letters").mkdir()
    (root / "letters/cover.docx").write_bytes(report())
    for pdf in ("letters/cover.pdf", "thesis/main.pdf", "notes/siege.pdf"):
        (root / pdf).write_bytes(b"%PDF-1.4\n%%EOF\n")
    assert ingest(root, "work")["published"]["failures"] == []
    sift = Sift(load())
    listed = {f["path"]: f["reason"] for f in Tools(sift).list_files(glob="*.pdf").structured_content["files"]}
    assert listed["work/letters/cover.pdf"].startswith(
        "not indexed itself: the Word document work/letters/cover.docx beside it, of the same name, stands for it "
        "(the PDF taken for its export, so"), listed
    assert listed["work/thesis/main.pdf"].startswith(
        "not indexed itself: the LaTeX source work/thesis/main.tex beside it"), listed
    assert "what LaTeX typeset from it" in listed["work/thesis/main.pdf"], listed
    assert listed["work/notes/siege.pdf"].startswith("not indexed itself: the note work/notes/siege.md beside it")
    assert "taken for its conversion" in listed["work/notes/siege.pdf"], listed
    with pytest.raises(Problem, match="the Word document work/letters/cover.docx beside it.*its export.*read that "
                                      "Word document"):
        reading.read(sift, "work/letters/cover.pdf", None, None, 1)


def flat(content: str = ODT_CONTENT, title: str = "Lagoon 2024") -> bytes:
    """``content`` as LibreOffice's flat .fodt holds it: one office:document, its meta and a picture in base64 in it."""
    body = content.replace("office:document-content", "office:document").replace(
        "<office:automatic-styles>", f"<office:meta><dc:title>{title}</dc:title></office:meta><office:automatic-styles>")
    picture = ('<text:p><draw:frame><draw:image><office:binary-data>iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ'
               '</office:binary-data></draw:image></draw:frame></text:p>')
    return body.replace("</office:text>", picture + "</office:text>").encode()


def test_a_flat_fodt_and_a_macro_docm_are_read_as_word_documents():
    """LibreOffice's flat .fodt (one XML file) and Word's macro-enabled .docm were kinds Sift does not read."""
    doc = parse_file("field/lagoon.fodt", flat())
    assert kind_of("field/lagoon.fodt") == kind_of("minutes.docm") == "note"
    assert doc.title == "Lagoon 2024"
    assert doc.sections == parse_file("field/lagoon.odt", odt(title="Lagoon 2024")).sections  # the picture unread
    with pytest.raises(Skip, match="not a readable OpenDocument text"):
        parse_file("x.fodt", b"<office:document")
    if docx is not None:
        macro = docx_of(para("The quay repairs begin in June."),
                        content_type="application/vnd.ms-word.document.macroEnabled.main+xml")
        assert parse_file("minutes.docm", macro).sections[0].text == "The quay repairs begin in June."


def test_an_old_binary_doc_named_docx_is_told_from_a_password_protected_one():
    """Both are OLE compound files: the reason said 'password-protected …, or an old binary .doc', not which."""
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600
    with pytest.raises(Skip, match=r"an old binary Word document \(\.doc, Word 97-2003\) named \.docx: .*save it as"):
        parse_file("a.docx", ole + "WordDocument".encode("utf-16-le") + b"\0" * 100)
    with pytest.raises(Skip, match=r"^password-protected \(encrypted\) Word document: Sift reads \.docx files saved"):
        parse_file("a.docx", ole + "EncryptedPackage".encode("utf-16-le") + b"\0" * 100)


@NEEDS_DOCX
def test_html_a_document_shows_in_its_place_is_read():
    """An HTML-to-Word converter or a report generator puts its HTML in a part of its own, shown where w:altChunk
    stands: all of that text was lost (a document of one altChunk read as empty)."""
    chunk = ('<html><head><title>x</title></head><body><h2>Sampling plan</h2><p>Okonkwo takes the silt cores.</p>'
             '<ul><li>twice a week</li></ul></body></html>')
    data = docx_of(para("Harbour report", "Heading1") + '<w:altChunk r:id="rIdChunk" xmlns:r="http://schemas.'
                   'openxmlformats.org/officeDocument/2006/relationships"/>' + para("Signed by Halvorsen."))
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            raw = src.read(info)
            if info.filename == "word/_rels/document.xml.rels":
                raw = raw.decode().replace("</Relationships>", '<Relationship Id="rIdChunk" Type="http://schemas.'
                                           'openxmlformats.org/officeDocument/2006/relationships/aFChunk" '
                                           'Target="chunk1.html"/></Relationships>')
            elif info.filename == "[Content_Types].xml":
                raw = raw.decode().replace("</Types>", '<Override PartName="/word/chunk1.html" '
                                           'ContentType="text/html"/></Types>')
            dst.writestr(info, raw)
        dst.writestr("word/chunk1.html", chunk)
    doc = parse_file("report.docx", out.getvalue())
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (["Harbour report", "Sampling plan"], "Harbour report\nSampling plan\nOkonkwo takes the silt cores.\n"
                                              "twice a week\nSigned by Halvorsen.")], doc.sections


def _locked(data: bytes) -> bytes:
    """``data``, a zip, its parts flagged encrypted in its central directory: a zip saved with a password."""
    out, at = bytearray(data), 0
    while (at := out.find(b"PK\x01\x02", at)) >= 0:
        out[at + 8] |= 0x1
        at += 4
    return bytes(out)


@NEEDS_DOCX
def test_a_zip_saved_with_a_password_or_an_old_doc_renamed_is_skipped_with_the_reason():
    """Each zip-based reader held its own guard: an .odt or .xlsx whose zip was saved with a password raised
    RuntimeError (zipfile's 'password required for extraction', no reason recorded), a .docx too (python-docx let it
    through); an old binary .doc named .odt or .epub said 'BadZipFile: File is not a zip file'. One guard
    (ingest.zipped) says why for every one."""
    from tests.test_epub import book
    from tests.test_xlsx import cell, sheet, workbook
    files = {"a.docx": docx_of(para("Quay inspection notes.")), "a.odt": odt(), "a.epub": book(),
             "a.xlsx": workbook({"Sheet1": sheet([cell("A1", "Name")])})}
    for name, data in files.items():
        with pytest.raises(Skip, match=r"password-protected \(encrypted\) .* is encrypted in the zip"):
            parse_file(name, _locked(data))
    doc = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "WordDocument".encode("utf-16-le") + b"\0" * 600
    for name in ("a.odt", "a.epub"):
        with pytest.raises(Skip, match=r"an old binary Word document \(\.doc"):
            parse_file(name, doc)


@NEEDS_DOCX
def test_a_paragraph_over_a_million_characters_is_refused_as_a_text_files_line_is():
    """A 5 MB paragraph (a dump pasted into a document) was 3,189 passages in 8 s; a text file's line of it is
    refused (ingest.parse.check_lines): a document's paragraph is too, with the reason."""
    huge = "word " * 220_000  # 1.1 M characters
    d = docx.Document()
    d.add_paragraph("Intro.")
    d.add_paragraph(huge)
    d.save(out := io.BytesIO())
    with pytest.raises(Skip, match=r"a line of 1,\d{3},\d{3} characters \(over 1,000,000\)"):
        parse_file("dump.docx", out.getvalue())
    content = ODT_CONTENT.replace("<text:p>Led by Sigrun", f"<text:p>{huge}</text:p><text:p>Led by Sigrun")
    with pytest.raises(Skip, match=r"a line of over 1,000,000 characters"):  # counted as parsed (ingest.odt)
        parse_file("dump.odt", odt(content))
    assert parse_file("fine.odt", odt(ODT_CONTENT.replace("Led by Sigrun", "word " * 100_000))).sections


@NEEDS_DOCX
def test_a_docx_is_opened_once_to_ask_whether_it_is_a_memotrace_chat(monkeypatch):
    """Each .docx was opened, and its document's first 64 KiB read, twice to ask whether it is MemoTrace's export
    of a WeChat chat (ingest.wechat_docx): by parse_word, then again by the word_text it calls. Once now."""
    from ingest import wechat_docx
    asked, real = [], wechat_docx.read_memotrace_docx
    monkeypatch.setattr(wechat_docx, "read_memotrace_docx", lambda path, data: asked.append(path) or real(path, data))
    doc = parse_file("minutes/harbour.docx", report())
    assert asked == ["minutes/harbour.docx"] and doc.title == "Harbour Study Minutes", (asked, doc.title)
