"""Slide decks (.pptx, .odp: ingest.slides) and OpenDocument spreadsheets (.ods: ingest.ods), written here with
zipfile, read by the parser and the real engine.

Before, all three were among the 'kinds Sift does not read': a lecture's slides and speaker notes were never found."""
from __future__ import annotations

import io
import os
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from ingest.chunk import chunk_document
from ingest.document import Skip
from ingest.kinds import kind_of
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

PNS = ('xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
       'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
RELS = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"'
NOTES_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide"


def text_body(paragraphs) -> str:
    return "<p:txBody><a:bodyPr/>" + "".join(f"<a:p><a:r><a:t>{p}</a:t></a:r></a:p>" for p in paragraphs) + \
        "</p:txBody>"


def shape(paragraphs, kind: str | None = None, at: tuple[int, int] | None = None) -> str:
    """A text shape: a placeholder of ``kind`` ('title', 'body', '' a body of no type) or, without, a text box at
    ``at`` (x, y)."""
    ph = "" if kind is None else f'<p:ph type="{kind}"/>' if kind else '<p:ph idx="1"/>'
    place = f'<a:xfrm><a:off x="{at[0]}" y="{at[1]}"/><a:ext cx="100" cy="100"/></a:xfrm>' if at else ""
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr>'
            f'<p:spPr>{place}</p:spPr>{text_body(paragraphs)}</p:sp>')


def group(shapes: list[str], at: tuple[int, int]) -> str:
    return (f'<p:grpSp><p:nvGrpSpPr><p:cNvPr id="9" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr>'
            f'<a:xfrm><a:off x="{at[0]}" y="{at[1]}"/></a:xfrm></p:grpSpPr>{"".join(shapes)}</p:grpSp>')


def table(rows: list[list[str]], at: tuple[int, int]) -> str:
    body = "".join("<a:tr>" + "".join(f"<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>{c}</a:t></a:r></a:p></a:txBody>"
                                      "</a:tc>" for c in row) + "</a:tr>" for row in rows)
    return (f'<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="t"/><p:cNvGraphicFramePr/><p:nvPr/>'
            f'</p:nvGraphicFramePr><p:xfrm><a:off x="{at[0]}" y="{at[1]}"/></p:xfrm><a:graphic><a:graphicData>'
            f'<a:tbl>{body}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>')


def slide(shapes: list[str], hidden: bool = False) -> str:
    show = ' show="0"' if hidden else ""
    return f'<p:sld {PNS}{show}><p:cSld><p:spTree>{"".join(shapes)}</p:spTree></p:cSld></p:sld>'


def pptx(slides: list[tuple[str, list[str] | None]], title: str | None = None) -> bytes:
    """A deck of (slide XML, its speaker notes or None), the slides' parts named in reverse (slide3.xml is the
    first): the presentation's slide list, not the parts' numbers, says their order."""
    out = io.BytesIO()
    count = len(slides)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        listed = "".join(f'<p:sldId id="{255 + n}" r:id="rId{n}"/>' for n in range(1, count + 1))
        package.writestr("ppt/presentation.xml", f'<p:presentation {PNS}><p:sldIdLst>{listed}</p:sldIdLst>'
                         '</p:presentation>')
        rels = "".join(f'<Relationship Id="rId{n}" Type="x/slide" Target="slides/slide{count + 1 - n}.xml"/>'
                       for n in range(1, count + 1))
        package.writestr("ppt/_rels/presentation.xml.rels", f"<Relationships {RELS}>{rels}</Relationships>")
        for n, (xml, notes) in enumerate(slides, 1):
            part = count + 1 - n
            package.writestr(f"ppt/slides/slide{part}.xml", xml)
            if notes is not None:
                package.writestr(f"ppt/slides/_rels/slide{part}.xml.rels", f'<Relationships {RELS}><Relationship '
                                 f'Id="rId2" Type="{NOTES_TYPE}" Target="../notesSlides/notesSlide{part}.xml"/>'
                                 '</Relationships>')
                package.writestr(f"ppt/notesSlides/notesSlide{part}.xml", slide(
                    [shape(["Slide image"], "sldImg"), shape(notes, "body"), shape(["7"], "sldNum")]))
        if title is not None:
            package.writestr("docProps/core.xml", '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/'
                             'package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">'
                             f'<dc:title>{title}</dc:title></cp:coreProperties>')
    return out.getvalue()


def with_sections(deck: bytes, sections: list[tuple[str, list[int]]]) -> bytes:
    """``deck`` with PowerPoint's sections (p14:sectionLst in ppt/presentation.xml's extLst) over its slides' ids."""
    lists = "".join(f'<p14:section name="{name}" id="{{S{n}}}"><p14:sldIdLst>'
                    + "".join(f'<p14:sldId id="{255 + i}"/>' for i in ids) + "</p14:sldIdLst></p14:section>"
                    for n, (name, ids) in enumerate(sections))
    ext = ('<p:extLst><p:ext uri="{521415D9-36F7-43E2-AB2F-B90AF26B5E84}"><p14:sectionLst xmlns:p14="http://schemas.'
           f'microsoft.com/office/powerpoint/2010/main">{lists}</p14:sectionLst></p:ext></p:extLst>')
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(deck)) as source, zipfile.ZipFile(out, "w") as package:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "ppt/presentation.xml":
                data = data.replace(b"</p:presentation>", ext.encode() + b"</p:presentation>")
            package.writestr(item, data)
    return out.getvalue()


def test_a_slide_is_headed_by_its_powerpoint_section():
    """A deck's sections ('Method', 'Results': PowerPoint's Add Section) head their slides' passages; PowerPoint's
    'Default Section' (before the first its author added) heads none. They were left out."""
    deck = with_sections(lecture(), [("Default Section", [1]), ("Measures", [2, 3]), ("Backup", [4])])
    doc = parse_file("lecture.pptx", deck)
    assert [s.heading_path for s in doc.sections] == [
        ["Lecture 5: Evaluation", "Slide 1: Evaluating search engines"],
        ["Lecture 5: Evaluation", "Measures", "Slide 2: Precision"],
        ["Lecture 5: Evaluation", "Measures", "Slide 3: Costs"],
        ["Lecture 5: Evaluation", "Backup", "Slide 4 (hidden): Backup: kappa"]], doc.sections
    from ingest.slides import slides_text
    assert slides_text(deck, "lecture.pptx").lines == slides_text(lecture(), "lecture.pptx").lines


def lecture() -> bytes:
    return pptx([
        (slide([shape(["Evaluating search engines"], "ctrTitle"), shape(["IR701, Spring 2026"], "subTitle")]), None),
        (slide([shape(["Footer text"], "ftr"), shape(["Precision"], "title"),
                shape(["The fraction of retrieved documents that are relevant", "Precision at k"], ""),
                shape(["Right box"], None, (5000, 100)), shape(["Top box"], None, (100, 50))]),
         ["Remind them that precision ignores recall.", "Ask for an example"]),
        (slide([shape(["Costs"], "title"),
                table([["Item", "Cost"], ["Assessors", "4,000"], ["Pooling runs", "1,200"]], (0, 9000)),
                group([shape(["Second in group"], None, (10, 500)), shape(["First in group"], None, (10, 20))],
                      (0, 200))]), None),
        (slide([shape(["Backup: kappa"], "title"), shape(["Cohen's kappa corrects agreement for chance"], "")],
               hidden=True), ["Only if asked"]),
    ], title="Lecture 5: Evaluation")


def test_a_deck_is_read_a_slide_a_heading_in_reading_order_with_its_notes():
    assert kind_of("talk.pptx") == "note" and kind_of("talk.odp") == "note" and kind_of("budget.ods") == "text"
    assert kind_of("talk.ppsx") == "note" and parse_file("talk.ppsx", lecture()).title == "Lecture 5: Evaluation"
    from ingest.slides import slides_text
    read = slides_text(lecture(), "lecture.pptx")
    assert read.title == "Lecture 5: Evaluation"
    assert read.lines == [
        "Slide 1: Evaluating search engines", "IR701, Spring 2026",
        "Slide 2: Precision", "The fraction of retrieved documents that are relevant", "Precision at k",
        "Top box", "Right box",  # text boxes by position: top to bottom; the footer placeholder left out
        "Speaker notes: Remind them that precision ignores recall.", "Ask for an example",
        "Slide 3: Costs", "First in group", "Second in group",
        "| Item | Cost |", "| --- | --- |", "| Assessors | 4,000 |", "| Pooling runs | 1,200 |",
        "Slide 4 (hidden): Backup: kappa", "Cohen's kappa corrects agreement for chance",
        "Speaker notes: Only if asked"], read.lines
    doc = parse_file("talks/lecture.pptx", lecture())
    assert doc.kind == "note" and doc.title == "Lecture 5: Evaluation"
    paths = [(s.heading_path, s.start_line, s.end_line) for s in doc.sections]
    assert paths[1] == (["Lecture 5: Evaluation", "Slide 2: Precision"], 3, 9), paths
    chunks = chunk_document(doc, lambda text: len(text.split()), 200, 20)
    assert any("precision ignores recall" in c.text and "Slide 2: Precision" in c.heading_path for c in chunks)
    # no title of its own: the first slide's
    untitled = pptx([(slide([shape(["Kick-off"], "title")]), None)])
    assert parse_file("a.pptx", untitled).title == "Kick-off"
    # a title PowerPoint's template wrote is no title: the first slide's (each passage is headed by it)
    generic = pptx([(slide([shape(["Kick-off"], "title")]), None)], title="PowerPoint Presentation")
    assert parse_file("a.pptx", generic).title == "Kick-off"


ODP = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
       'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
       'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
       'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
       'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
       'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
       'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
       'xmlns:dc="http://purl.org/dc/elements/1.1/"')


def frame(paragraphs, kind: str | None = None, at: tuple[str, str] = ("1cm", "1cm")) -> str:
    cls = f' presentation:class="{kind}"' if kind else ""
    ps = "".join(f"<text:p>{p}</text:p>" for p in paragraphs)
    return f'<draw:frame{cls} svg:x="{at[0]}" svg:y="{at[1]}"><draw:text-box>{ps}</draw:text-box></draw:frame>'


def opendocument(mime: str, body: str, styles: str = "", title: str | None = None, manifest: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", mime)
        package.writestr("content.xml", f'<office:document-content {ODP}><office:automatic-styles>{styles}'
                         f'</office:automatic-styles><office:body>{body}</office:body></office:document-content>')
        if title is not None:
            package.writestr("meta.xml", f'<office:document-meta {ODP}><office:meta><dc:title>{title}</dc:title>'
                             '</office:meta></office:document-meta>')
        package.writestr("META-INF/manifest.xml", f"<manifest>{manifest}</manifest>")
    return out.getvalue()


def impress() -> bytes:
    styles = ('<style:style style:name="dp2" style:family="drawing-page"><style:drawing-page-properties '
              'presentation:visibility="hidden"/></style:style>')
    pages = (
        '<draw:page draw:name="p1" draw:style-name="dp1">' + frame(["Field trip"], "title")
        + frame(["Lower right"], None, ("10cm", "12cm")) + frame(["Upper left"], None, ("2cm", "3cm"))
        + frame(["Bring boots", "Meet at 8"], "outline")
        + '<draw:frame svg:x="20cm" svg:y="1cm"><draw:image xlink:href="Pictures/1.png" '
          'xmlns:xlink="http://www.w3.org/1999/xlink"/><svg:title>Map</svg:title>'
          '<svg:desc>The tide pools at the north end of the beach</svg:desc></draw:frame>'
        + '<office:annotation><dc:creator>Ana</dc:creator><text:p>Reviewer comment</text:p></office:annotation>'
        + '<presentation:notes><draw:page-thumbnail/>' + frame(["Check the tide table"], "notes")
        + '</presentation:notes></draw:page>'
        + '<draw:page draw:name="p2" draw:style-name="dp2">' + frame(["Spare"], "title")
        + frame(["Plan B: the museum"], "outline") + '</draw:page>')
    return opendocument("application/vnd.oasis.opendocument.presentation",
                        f"<office:presentation>{pages}</office:presentation>", styles)


def test_an_impress_deck_is_read_as_a_pptx_is():
    from ingest.slides import slides_text
    read = slides_text(impress(), "trip.odp")
    assert read.lines == ["Slide 1: Field trip", "Bring boots", "Meet at 8", "Upper left", "Lower right",
                          "Picture: The tide pools at the north end of the beach",
                          "Speaker notes: Check the tide table", "Comment (Ana): Reviewer comment",
                          "Slide 2 (hidden): Spare", "Plan B: the museum"], read.lines
    assert read.title == "trip"  # no meta.xml title, and the first slide a slide of bullets: the file's name
    assert [h for _, _, h in read.headings] == ["Slide 1: Field trip", "Slide 2 (hidden): Spare"]


def calc(sheets: dict[str, str], manifest: str = "") -> bytes:
    body = "".join(f'<table:table table:name="{name}">{rows}</table:table>' for name, rows in sheets.items())
    return opendocument("application/vnd.oasis.opendocument.spreadsheet",
                        f"<office:spreadsheet>{body}</office:spreadsheet>", manifest=manifest)


def row(*cells: str, repeat: int = 1) -> str:
    attr = f' table:number-rows-repeated="{repeat}"' if repeat > 1 else ""
    return f"<table:table-row{attr}>{''.join(cells)}</table:table-row>"


def c(value=None, repeat: int = 1) -> str:
    attr = f' table:number-columns-repeated="{repeat}"' if repeat > 1 else ""
    if value is None:
        return f"<table:table-cell{attr}/>"
    if isinstance(value, float):
        return (f'<table:table-cell{attr} office:value-type="currency" office:value="{value}">'
                f'<text:p>{value:,.2f} €</text:p></table:table-cell>')
    return f'<table:table-cell{attr} office:value-type="string"><text:p>{value}</text:p></table:table-cell>'


def test_a_spreadsheet_is_read_as_a_workbook_and_its_repeated_empty_rows_cost_nothing():
    date = ('<table:table-cell office:value-type="date" office:date-value="2026-03-14T00:00:00">'
            '<text:p>14/03/26</text:p></table:table-cell>')
    commented = ('<table:table-cell office:value-type="string"><office:annotation><text:p>Check with Ana</text:p>'
                 '</office:annotation><text:p>Sonar survey</text:p></table:table-cell>')
    budget = (row(c("Item"), c("Cost"), c("Due")) + row(commented, c(4000.0), date)
              + row(c(), repeat=3) + row(c("Silt removal"), c(None, 2), c("pending"))
              + row(c(None, 16384), repeat=1048570))  # Calc's empty rows to the sheet's end
    data = calc({"Costs 2024": budget, "Contacts": row(c("Name"), c("Email"))
                 + row(c("Ingrid Halvorsen"), c("ingrid@harbour.example"), c(None, 16381))})
    tracemalloc.start()
    doc = parse_file("finance/budget.ods", data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20_000_000, peak  # not a row made of each of the 1,048,570
    from ingest.ods import ods_text
    lines = ods_text(data, "finance/budget.ods").lines
    assert lines == ["Costs 2024", "Item | Cost | Due", "Sonar survey | 4000 | 2026-03-14",
                     "Silt removal |  |  | pending", "Contacts", "Name | Email",
                     "Ingrid Halvorsen | ingrid@harbour.example"], lines
    assert doc.kind == "text" and doc.title == "budget"
    assert [(s.heading_path, s.start_line) for s in doc.sections][-1] == (
        ["budget", "Contacts", "Name | Email"], 7), doc.sections
    # a value repeated across the rows and columns is made no wider or longer than what is read
    from ingest import ods, table
    wide = calc({"S": row(c("x", 16384), repeat=1_000_000)})
    (name, rows), = ods._sheets(wide)
    assert len(rows[0]) == ods.MAX_COLUMNS and sum(map(len, rows)) <= ods.MAX_COPIES + 2 * ods.MAX_COLUMNS, len(rows)
    assert len(ods_text(wide, "wide.ods").lines) == 1 + len(rows)  # it took 40 s, making 10 million cells
    tall = ods._sheets(calc({"S": row(c("Total"), c(0.0), repeat=1_000_000)}))[0][1]
    assert len(tall) == table.MAX_ROWS + 3, len(tall)  # a column filled down: its rows, up to parse_table's


def test_broken_encrypted_or_bomb_decks_and_spreadsheets_are_skipped_with_the_reason(monkeypatch):
    for name in ("broken.pptx", "broken.odp", "broken.ods"):
        with pytest.raises(Skip, match="not a readable"):
            parse_file(name, b"PK\x03\x04 truncated")
    with pytest.raises(Skip, match="password-protected"):
        parse_file("locked.pptx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)
    locked = '<manifest:encryption-data/>'
    with pytest.raises(Skip, match="password-protected"):
        parse_file("locked.ods", calc({"S": row(c("x"))}, manifest=locked))
    with pytest.raises(Skip, match="no ppt/presentation.xml"):
        parse_file("a.pptx", calc({"S": row(c("x"))}))
    import ingest.zipped
    monkeypatch.setattr(ingest.zipped, "OPENED_BYTES", 50_000)
    big = pptx([(slide([shape(["word " * 20_000], "")]), None)])
    with pytest.raises(Skip, match="a zip bomb"):
        parse_file("bomb.pptx", big)
    with pytest.raises(Skip, match="a zip bomb"):
        parse_file("bomb.ods", calc({"S": row(c("word " * 20_000))}))


def test_decks_and_spreadsheets_are_searched_and_read_by_their_slides(immediate, tmp_path, monkeypatch):
    """Searched by a slide's text and its speaker notes, a deck standing for its PDF export, a broken deck a visible
    failure costing nothing else; read_file shows the lines search names, and a slide by its heading."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "work", {"notes/plan.md": "# Plan\n\nThe ferry runs hourly.\n"})
    (root / "talks").mkdir()
    (root / "talks" / "lecture.pptx").write_bytes(lecture())
    (root / "talks" / "lecture.pdf").write_bytes(b"%PDF-1.4 the handout, not read: the deck stands for it")
    (root / "talks" / "trip.odp").write_bytes(impress())
    (root / "talks" / "broken.pptx").write_bytes(b"PK\x03\x04 truncated")
    (root / "budget.ods").write_bytes(calc({"Costs": row(c("Item"), c("Cost")) + row(c("Sonar survey"), c(4000.0))}))
    published = ingest(root, "work")["published"]
    for ext in (".pptx", ".odp", ".ods"):
        assert ext not in published["unread"], published
    failed = {f["path"]: f for f in published["failures"]}
    assert list(failed) == ["talks/broken.pptx"], published["failures"]
    assert "not a readable PowerPoint deck" in str(failed["talks/broken.pptx"]), failed
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    hits = [(h.path, h.heading_path, h.start_line, h.end_line)
            for h in engine.search("precision ignores recall", mode="keyword").hits]
    assert hits[0] == ("talks/lecture.pptx", "Lecture 5: Evaluation > Slide 2: Precision", 3, 9), hits
    assert engine.search("tide table", mode="keyword").hits[0].path == "talks/trip.odp"
    assert engine.search("sonar survey", mode="keyword").hits[0].path == "budget.ods"
    assert engine.search("handout", mode="keyword").hits == []  # the PDF is the deck's attachment, not read
    sift = Sift(load())
    shown, data = reading.read(sift, "work/talks/lecture.pptx", 8, 9, None)
    assert "Speaker notes: Remind them" in shown and "a slide deck" in shown, shown
    shown, data = reading.read(sift, "work/talks/lecture.pptx", None, None, None, heading="Slide 3")
    assert (data["start_line"], data["end_line"]) == (10, 16), data
    assert "| Assessors | 4,000 |" in shown and "Precision" not in shown, shown
    shown, data = reading.read(sift, "work/talks/lecture.pptx", None, None, None, heading="Costs")
    assert (data["start_line"], data["end_line"]) == (10, 16), data
    shown, data = reading.read(sift, "work/budget.ods", None, None, None, heading="Costs")
    assert "Sonar survey | 4000" in shown and "a spreadsheet" in shown, shown
    with pytest.raises(Exception, match="the slide deck work/talks/lecture.pptx beside it.*stands for it"):
        reading.read(sift, "work/talks/lecture.pdf", None, None, None)


def test_a_slide_is_found_by_its_number_among_thirty():
    """read_file(heading='Slide 3') in a deck of 31 slides: 'Slide 3' is held by 'Slide 30' and 'Slide 31' too,
    and the answer was 'several headings holding'."""
    from ingest.links import WikiLink, linked_lines
    from ingest.slides import slides_text
    read = slides_text(pptx([(slide([shape([f"Topic {n}"], "title"), shape([f"Point {n}"], "")]), None)
                             for n in range(1, 32)]), "long.pptx")
    text = "\n".join(read.lines)
    assert linked_lines(text, WikiLink("long", ("Slide 3",), None), True, read.headings) == (5, 6)
    assert linked_lines(text, WikiLink("long", ("slide 30",), None), True, read.headings) == (59, 60)
    assert "several headings" in linked_lines(text, WikiLink("long", ("Topic",), None), True, read.headings)


def test_a_question_in_other_words_finds_the_slide_and_its_speaker_notes(immediate, tmp_path, embedder):
    """Semantic search (the session's model, MiniLM) over a deck beside notes: a question worded unlike the slide
    finds the slide whose speaker notes answer it, headed by its number and title."""
    from tests.conftest import indexed_engine
    root = write_tree(tmp_path / "work", {"notes/garden.md": "# Garden\n\nPrune the apple trees in February.\n",
                                          "notes/ferry.md": "# Ferry\n\nThe ferry leaves hourly from pier 3.\n"})
    (root / "talks").mkdir()
    (root / "talks" / "lecture.pptx").write_bytes(lecture())
    engine = indexed_engine(root, "work", embedder)
    hits = engine.search("what chance-corrected statistic measures agreement between judges", mode="semantic",
                         limit=3).hits
    assert (hits[0].path, hits[0].heading_path) == ("talks/lecture.pptx",
                                                    "Lecture 5: Evaluation > Slide 4 (hidden): Backup: kappa"), \
        [(h.path, h.heading_path) for h in hits]


def test_an_old_binary_ppt_named_pptx_is_said_to_be_one():
    """The decks' guard said 'a password-protected deck, or an old binary Office file renamed' of any OLE file; the
    Word and Excel readers' said which it is (ingest.zipped.ole_reason, now the one guard's): a .ppt's stream too."""
    ppt = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "PowerPoint Document".encode("utf-16-le") + b"\0" * 600
    with pytest.raises(Skip, match=r"an old binary PowerPoint deck \(\.ppt, PowerPoint 97-2003\) named \.pptx"):
        parse_file("talk.pptx", ppt)
    with pytest.raises(Skip, match=r"password-protected \(encrypted\) PowerPoint deck: Sift reads \.pptx files"):
        parse_file("talk.pptx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "EncryptedPackage".encode("utf-16-le"))


CHART_NS = ('xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" '
            'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"')
DGM_NS = ('xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" '
          'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"')
P188 = "http://schemas.microsoft.com/office/powerpoint/2018/8/main"
TYPES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


def rich(text: str) -> str:
    return f"<c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>{text}</a:t></a:r></a:p></c:rich></c:tx>"


def cache(values: list[str], kind: str = "str") -> str:
    points = "".join(f'<c:pt idx="{n}"><c:v>{v}</c:v></c:pt>' for n, v in enumerate(values))
    return f"<c:{kind}Ref><c:f>Sheet1!$A$1</c:f><c:{kind}Cache><c:ptCount val=\"{len(values)}\"/>{points}" \
        f"</c:{kind}Cache></c:{kind}Ref>"


def chart_part() -> str:
    """A clustered column chart as PowerPoint writes it (ppt/charts/chart1.xml): a title, two series, four
    quarters, an axis title; its numbers in the cache of the embedded workbook's cells."""
    series = "".join(
        f'<c:ser><c:idx val="{n}"/><c:order val="{n}"/><c:tx>{cache([name])}</c:tx><c:invertIfNegative val="0"/>'
        f'<c:cat>{cache(["Q1", "Q2", "Q3", "Q4"])}</c:cat><c:val>{cache(values, "num")}</c:val></c:ser>'
        .replace(f"<c:tx>{cache(['Rollout'])}</c:tx>", "<c:tx><c:v>Rollout</c:v></c:tx>")  # a name in place
        for n, (name, values) in enumerate([("Pilots", ["4.3", "2.5", "3.5", "4.5"]),
                                            ("Rollout", ["2.4", "4.4", "1.8", "2.8"])]))
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><c:chartSpace {CHART_NS}><c:chart><c:title>'
            f'{rich("Kelp survey sites per quarter")}<c:overlay val="0"/></c:title><c:autoTitleDeleted val="0"/>'
            f'<c:plotArea><c:layout/><c:barChart><c:barDir val="col"/><c:grouping val="clustered"/>{series}'
            '<c:axId val="1"/><c:axId val="2"/></c:barChart><c:catAx><c:axId val="1"/></c:catAx><c:valAx>'
            f'<c:axId val="2"/><c:title>{rich("Sites surveyed")}</c:title></c:valAx></c:plotArea></c:chart>'
            '</c:chartSpace>')


def diagram_part() -> str:
    """A SmartArt hierarchy's data model (ppt/diagrams/data1.xml): the document point, three nodes under it (the
    last under the first), transition and presentation points holding no text, the order the links say."""
    def point(id_: str, text: str | None, kind: str = "") -> str:
        type_ = f' type="{kind}"' if kind else ""
        body = (f"<dgm:t><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>{text}</a:t></a:r></a:p></dgm:t>"
                if text is not None else "")
        return f'<dgm:pt modelId="{{{id_}}}"{type_}><dgm:prSet/><dgm:spPr/>{body}</dgm:pt>'

    def link(src: str, dest: str, order: int, kind: str = "") -> str:
        type_ = f' type="{kind}"' if kind else ""
        return f'<dgm:cxn modelId="{{L{src}{dest}}}"{type_} srcId="{{{src}}}" destId="{{{dest}}}" srcOrd="{order}"' \
            ' destOrd="0"/>'
    points = (point("D", "", "doc") + point("C", "Permits") + point("T1", None, "parTrans")
              + point("A", "Survey the reef") + point("B", "Count the kelp") + point("PR", "", "pres"))
    links = (link("D", "C", 1) + link("D", "A", 0) + link("A", "B", 0) + link("A", "PR", 0, "presOf"))
    return f'<dgm:dataModel {DGM_NS}><dgm:ptLst>{points}</dgm:ptLst><dgm:cxnLst>{links}</dgm:cxnLst></dgm:dataModel>'


def frame_of(data: str, at: tuple[int, int]) -> str:
    return (f'<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="f"/><p:cNvGraphicFramePr/><p:nvPr/>'
            f'</p:nvGraphicFramePr><p:xfrm><a:off x="{at[0]}" y="{at[1]}"/><a:ext cx="10" cy="10"/></p:xfrm>'
            f'<a:graphic>{data}</a:graphic></p:graphicFrame>')


def picture(descr: str, at: tuple[int, int]) -> str:
    return (f'<p:pic><p:nvPicPr><p:cNvPr id="7" name="Picture 6" descr="{descr}"/><p:cNvPicPr><a:picLocks '
            'noChangeAspect="1"/></p:cNvPicPr><p:nvPr/></p:nvPicPr><p:blipFill><a:blip r:embed="rId9"/>'
            f'</p:blipFill><p:spPr><a:xfrm><a:off x="{at[0]}" y="{at[1]}"/><a:ext cx="10" cy="10"/></a:xfrm>'
            '</p:spPr></p:pic>')


def field_deck() -> bytes:
    """A deck of a picture, a chart, a SmartArt and comments (the old kind and 2018's modern kind, a reply)."""
    chart = frame_of('<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart"><c:chart '
                     'xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="rId3"/>'
                     '</a:graphicData>', (100, 3000))
    smart = frame_of('<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/diagram"><dgm:relIds '
                     'xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" r:dm="rId4" r:lo="rId5" '
                     'r:qs="rId6" r:cs="rId7"/></a:graphicData>', (100, 100))
    data = pptx([(slide([shape(["Field season"], "title"), picture(
        "Map of the harbour with the three survey sites marked&#xA;&#xA;Description automatically generated",
        (100, 9000)), chart]), None), (slide([shape(["Plan"], "title"), smart]), None)])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as package:
        for item in source.infolist():
            package.writestr(item, source.read(item))
        rel = '<Relationship Id="{}" Type="{}" Target="{}"/>'
        package.writestr("ppt/slides/_rels/slide2.xml.rels", f"<Relationships {RELS}>" + "".join(
            rel.format(*r) for r in [("rId3", TYPES + "chart", "../charts/chart1.xml"),
                                     ("rId2", TYPES + "comments", "../comments/comment1.xml")]) + "</Relationships>")
        package.writestr("ppt/slides/_rels/slide1.xml.rels", f"<Relationships {RELS}>" + "".join(
            rel.format(*r) for r in [("rId4", TYPES + "diagramData", "../diagrams/data1.xml"),
                                     ("rId5", TYPES + "diagramLayout", "../diagrams/layout1.xml"),
                                     ("rId8", "http://schemas.microsoft.com/office/2018/10/relationships/comments",
                                      "../comments/modernComment_101_3F5A1B2C.xml")]) + "</Relationships>")
        package.writestr("ppt/charts/chart1.xml", chart_part())
        package.writestr("ppt/diagrams/data1.xml", diagram_part())
        package.writestr("ppt/commentAuthors.xml", f'<p:cmAuthorLst {PNS}><p:cmAuthor id="0" name="Ana Ruiz" '
                         'initials="AR" lastIdx="1" clrIdx="0"/></p:cmAuthorLst>')
        package.writestr("ppt/comments/comment1.xml", f'<p:cmLst {PNS}><p:cm authorId="0" dt="2026-03-01T10:00:00" '
                         'idx="1"><p:pos x="10" y="10"/><p:text>Are the Q3 numbers final?</p:text></p:cm></p:cmLst>')
        body = '<p188:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:t>{}</a:t></a:r></a:p></p188:txBody>'
        package.writestr("ppt/authors.xml", f'<p188:authorLst xmlns:p188="{P188}"><p188:author id="{{A1}}" '
                         'name="Ben Okafor" initials="BO" userId="ben" providerId="AD"/></p188:authorLst>')
        package.writestr("ppt/comments/modernComment_101_3F5A1B2C.xml", (
            f'<p188:cmLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p188="{P188}">'
            '<p188:cm id="{C1}" authorId="{A1}" created="2026-03-02T09:00:00"><p188:replyLst><p188:reply id="{R1}" '
            f'authorId="{{A9}}" created="2026-03-02T10:00:00">{body.format("Permits filed in May")}</p188:reply>'
            f'</p188:replyLst>{body.format("Who files the permits?")}</p188:cm></p188:cmLst>'))
    return out.getvalue()


def test_a_decks_pictures_charts_smartart_and_comments_are_read():
    """A picture's alt text, a chart's title, series, categories and numbers, a SmartArt's text and the slides'
    comments were all left out: a search for 'kelp' or 'permits' found nothing of this deck."""
    from ingest.slides import slides_text
    read = slides_text(field_deck(), "field.pptm")
    assert read.lines == [
        "Slide 1: Field season",
        "Chart: Kelp survey sites per quarter", "Axes: Sites surveyed",
        "|  | Pilots | Rollout |", "| --- | --- | --- |", "| Q1 | 4.3 | 2.4 |", "| Q2 | 2.5 | 4.4 |",
        "| Q3 | 3.5 | 1.8 |", "| Q4 | 4.5 | 2.8 |",
        "Picture: Map of the harbour with the three survey sites marked",
        "Comment (Ana Ruiz): Are the Q3 numbers final?",
        "Slide 2: Plan", "- Survey the reef", "  - Count the kelp", "- Permits",
        "Comment (Ben Okafor): Who files the permits?", "Comment: Permits filed in May"], read.lines
    for ext in (".pptm", ".ppsm", ".potx", ".potm"):
        doc = parse_file("deck" + ext, field_deck())  # the same XML: .pptx's reader
        assert kind_of("deck" + ext) == "note" and doc.title == "deck" and len(doc.sections) == 2, ext


def flat(mime: str, body: str, title: str) -> bytes:
    """A flat OpenDocument (.fodp, .fods) as LibreOffice saves it: one XML file, no zip."""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document {ODP} '
            'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.3" '
            f'office:mimetype="{mime}"><office:meta><dc:title>{title}</dc:title><meta:creation-date>'
            '2026-02-03T09:15:00</meta:creation-date></office:meta><office:automatic-styles/>'
            f'<office:body>{body}</office:body></office:document>').encode()


def test_flat_impress_and_calc_files_are_read(immediate, tmp_path, monkeypatch):
    """.fodp and .fods (LibreOffice's 'Flat XML' saves) were kinds Sift does not read; a broken one is a failure."""
    from ingest.slides import slides_text
    deck = flat("application/vnd.oasis.opendocument.presentation",
                '<office:presentation><draw:page draw:name="p1">' + frame(["Tide tables"], "title")
                + frame(["Spring tides at new moon"], "outline") + '</draw:page></office:presentation>', "Tides")
    assert kind_of("t.fodp") == "note" and kind_of("b.fods") == "text"
    read = slides_text(deck, "tides.fodp")
    assert read.lines == ["Slide 1: Tide tables", "Spring tides at new moon"] and read.title == "Tides", read.lines
    sheet = flat("application/vnd.oasis.opendocument.spreadsheet", '<office:spreadsheet><table:table '
                 'table:name="Costs">' + row(c("Item"), c("Cost")) + row(c("Sonar survey"), c(4000.0))
                 + row(c(), repeat=1048570) + '</table:table></office:spreadsheet>', "Budget")
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "work"
    root.mkdir()
    (root / "tides.fodp").write_bytes(deck)
    (root / "budget.fods").write_bytes(sheet)
    (root / "broken.fods").write_bytes(b'<?xml version="1.0"?><office:document><unclosed>')
    published = ingest(root, "work")["published"]
    assert [f["path"] for f in published["failures"]] == ["broken.fods"], published["failures"]
    assert "not a readable OpenDocument spreadsheet" in str(published["failures"]), published["failures"]
    from search.query.engine import Engine
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert engine.search("spring tides", mode="keyword").hits[0].path == "tides.fodp"
    assert engine.search("sonar survey", mode="keyword").hits[0].path == "budget.fods"
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    shown, _ = reading.read(Sift(load()), "work/budget.fods", None, None, None, heading="Costs")
    assert "Sonar survey | 4000" in shown and "a spreadsheet" in shown, shown
    shown, _ = reading.read(Sift(load()), "work/tides.fodp", None, None, None)
    assert "Spring tides at new moon" in shown and "a slide deck" in shown, shown


def box(paragraphs, x: int, y: int, cx: int, cy: int) -> str:
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="3" name="TextBox 2"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr>'
            f'<a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm></p:spPr>{text_body(paragraphs)}'
            '</p:sp>')


def test_text_boxes_in_two_columns_are_read_a_column_at_a_time():
    """A slide of text boxes (no placeholders): a heading across it, two columns of a heading box and a text box
    each (the right one's 0.1 mm higher), a source line across the foot. Read by their tops alone, the columns
    interleaved: 'Pros', 'Cons', then both lists."""
    from ingest.slides import slides_text
    deck = pptx([(slide([
        box(["Sources: the 2025 survey"], 457200, 6096000, 8229600, 300000),
        box(["Cons"], 4800600, 1599000, 3886200, 400000),
        box(["Costly to run", "Needs a boat"], 4800600, 2100000, 3886200, 3000000),
        box(["Sonar or divers?"], 457200, 300000, 8229600, 800000),
        box(["Pros"], 457200, 1600000, 3886200, 400000),
        box(["Covers the whole bay", "Works in murky water"], 457200, 2100000, 3886200, 2000000)]), None)])
    assert slides_text(deck, "d.pptx").lines == [
        "Slide 1", "Sonar or divers?", "Pros", "Covers the whole bay", "Works in murky water",
        "Cons", "Costly to run", "Needs a boat", "Sources: the 2025 survey"]


def test_a_damaged_chart_or_comments_part_leaves_the_deck_read_without_it():
    from ingest.slides import slides_text
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(field_deck())) as source, zipfile.ZipFile(out, "w") as package:
        for item in source.infolist():
            damaged = item.filename in ("ppt/charts/chart1.xml", "ppt/commentAuthors.xml")
            package.writestr(item, b"<c:chartSpace><unclosed" if damaged else source.read(item))
    lines = slides_text(out.getvalue(), "field.pptx").lines
    assert "Chart: Kelp survey sites per quarter" not in lines and "Comment: Are the Q3 numbers final?" in lines
    assert "Picture: Map of the harbour with the three survey sites marked" in lines and "- Permits" in lines


def impress_chart() -> str:
    """An embedded chart's content.xml as Impress writes it ('Object 1/content.xml'): a title, an axis title and
    its local table, a header row of the series' names, a row a category."""
    cells = ('<table:table-row><table:table-cell office:value-type="string"><text:p>{}</text:p></table:table-cell>'
             '<table:table-cell office:value-type="float" office:value="{}"><text:p>{}</text:p></table:table-cell>'
             '</table:table-row>')
    rows = "".join(cells.format(month, value, value) for month, value in [("June", 12), ("July", 31)])
    return (f'<office:document-content {ODP} xmlns:chart="urn:oasis:names:tc:opendocument:xmlns:chart:1.0">'
            '<office:body><office:chart><chart:chart chart:class="chart:bar"><chart:title><text:p>Seal pups '
            'counted</text:p></chart:title><chart:plot-area><chart:axis chart:dimension="y"><chart:title><text:p>'
            'Pups</text:p></chart:title></chart:axis></chart:plot-area><table:table table:name="local-table">'
            '<table:table-header-rows><table:table-row><table:table-cell><text:p/></table:table-cell>'
            '<table:table-cell office:value-type="string"><text:p>North beach</text:p></table:table-cell>'
            f'</table:table-row></table:table-header-rows><table:table-rows>{rows}</table:table-rows></table:table>'
            '</chart:chart></office:chart></office:body></office:document-content>')


def test_an_impress_chart_is_read_as_a_pptx_chart():
    from ingest.slides import slides_text
    page = ('<draw:page draw:name="p1">' + frame(["Seals"], "title")
            + '<draw:frame svg:x="2cm" svg:y="4cm" xmlns:xlink="http://www.w3.org/1999/xlink"><draw:object '
            'xlink:href="./Object 1" xlink:type="simple"/><draw:image xlink:href="./ObjectReplacements/Object 1"/>'
            '<svg:desc>A bar chart</svg:desc></draw:frame></draw:page>')
    deck = opendocument("application/vnd.oasis.opendocument.presentation",
                        f"<office:presentation>{page}</office:presentation>")
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(deck)) as source, zipfile.ZipFile(out, "w") as package:
        for item in source.infolist():
            package.writestr(item, source.read(item))
        package.writestr("Object 1/content.xml", impress_chart())
    assert slides_text(out.getvalue(), "seals.odp").lines == [
        "Slide 1: Seals", "Chart: Seal pups counted", "Axes: Pups",
        "|  | North beach |", "| --- | --- |", "| June | 12 |", "| July | 31 |"]


def test_list_files_says_what_of_a_deck_could_not_be_read(immediate, tmp_path, monkeypatch):
    """A deck with a broken slide or a broken speaker notes part was listed plain 'indexed' (cut_short was shown
    for PDFs alone), as was a mailbox whose text past 64 MiB was not read: the list_files tool now gives their
    cut_short as the reason, as a PDF's; a whole deck has none."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    from tests.test_hostile_new_readers import replaced
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "talks"
    root.mkdir()
    (root / "whole.pptx").write_bytes(lecture())
    (root / "broken.pptx").write_bytes(replaced(lecture(), {"ppt/slides/slide2.xml": b"<p:sld><oops"}))
    (root / "notes.odp").write_bytes(impress())
    (root / "lost notes.pptx").write_bytes(replaced(lecture(), {"ppt/notesSlides/notesSlide3.xml": b"<p:notes"}))
    (root / "inbox.mbox").write_bytes(b"".join(b"From a@b.c Mon Jan  1 00:00:00 2024\nFrom: a@b.c\nSubject: Note %d\n"
                                               b"\nthe okapi of message %d\n\n" % (n, n) for n in range(3)))
    monkeypatch.setattr("ingest.mail.MAX_TEXT_CHARS", 30)  # a mailbox's text past it is not read
    from tests.test_enex import CHESS, HEAD, TAX
    (root / "cut.enex").write_text(HEAD + TAX + CHESS[:60], encoding="utf-8")  # said once, in its notes' line
    assert ingest(root, "talks")["published"]["failures"] == []
    listed = Tools(Sift(load())).list_files(collection="talks").structured_content
    reasons = {f["path"].removeprefix("talks/"): (f["state"], f.get("reason")) for f in listed["files"]}
    assert reasons["broken.pptx"][0] == "indexed", reasons
    assert reasons["broken.pptx"][1].startswith("slide 3 of 4 not readable (ppt/slides/slide2.xml: its XML is damaged"), \
        reasons
    assert reasons["lost notes.pptx"][1].startswith("a part of slide 2 of 4 not readable (ppt/notesSlides/"), reasons
    assert "; the first message read, to line" in reasons["inbox.mbox"][1], reasons  # a mailbox too, after its count
    assert reasons["cut.enex"][1].startswith("1 note (an Evernote export") and \
        reasons["cut.enex"][1].count("the XML breaks off") == 1, reasons
    assert reasons["whole.pptx"] == ("indexed", None) and reasons["notes.odp"] == ("indexed", None), reasons


CX_NS = ('xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex" '
         'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
         'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')


def chartex_part(layout: str, title: str, dimensions: str, series: str = "Cash") -> str:
    """A 2016 chart kind as PowerPoint writes it (ppt/charts/chartEx1.xml): its data (cx:chartData) apart from the
    chart that names it by id, a title of rich text, an axis titled."""
    return (f'<cx:chartSpace {CX_NS}><cx:chartData><cx:externalData r:id="rId1" cx:autoUpdate="0"/>'
            f'<cx:data id="0">{dimensions}</cx:data></cx:chartData><cx:chart><cx:title pos="t" align="ctr" '
            f'overlay="0"><cx:tx><cx:txData><cx:v>{title}</cx:v></cx:txData></cx:tx><cx:txPr><a:bodyPr/><a:p><a:r>'
            f'<a:t>{title}</a:t></a:r></a:p></cx:txPr></cx:title><cx:plotArea><cx:plotAreaRegion><cx:series '
            f'layoutId="{layout}" uniqueId="{{1}}"><cx:tx><cx:txData><cx:f>Sheet1!$B$1</cx:f><cx:v>{series}</cx:v>'
            '</cx:txData></cx:tx><cx:dataId val="0"/></cx:series></cx:plotAreaRegion><cx:axis id="0"><cx:valScaling/>'
            '<cx:title><cx:tx><cx:txData><cx:v>Euros</cx:v></cx:txData></cx:tx></cx:title></cx:axis></cx:plotArea>'
            '</cx:chart></cx:chartSpace>')


def cx_dim(tag: str, kind: str, *levels: list[str]) -> str:
    lvls = "".join(f'<cx:lvl ptCount="{len(level)}">' + "".join(
        f'<cx:pt idx="{n}">{v}</cx:pt>' for n, v in enumerate(level) if v) + "</cx:lvl>" for level in levels)
    return f'<cx:{tag} type="{kind}"><cx:f>Sheet1!$A$2:$A$9</cx:f>{lvls}</cx:{tag}>'


def test_a_2016_chart_kind_is_read_as_an_older_chart():
    """A waterfall, a treemap (its categories in levels) and a histogram (values alone): 2016's chart kinds
    (cx:chart, a chartEx part) were left out whole, their titles and numbers unfound. Each is read as an older
    chart is: 'Chart: title', its axes' titles, its data as a table, a treemap's categories with their parents;
    the picture PowerPoint offers older readers instead (mc:Fallback) is not read."""
    from ingest.slides import slides_text
    frame = ('<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice '
             'xmlns:cx1="http://schemas.microsoft.com/office/drawing/2015/9/8/chartex" Requires="cx1">' + frame_of(
                 '<a:graphicData uri="http://schemas.microsoft.com/office/drawing/2014/chartex"><cx:chart xmlns:cx="'
                 'http://schemas.microsoft.com/office/drawing/2014/chartex" r:id="rId3"/></a:graphicData>',
                 (100, 100)) + '</mc:Choice><mc:Fallback>' + shape(["This chart isn't available"], None, (100, 100))
             + '</mc:Fallback></mc:AlternateContent>')
    parts = {
        "waterfall": chartex_part("waterfall", "Cash flow 2025", cx_dim("strDim", "cat", ["Start", "Sales", "Costs"])
                                  + cx_dim("numDim", "val", ["100", "40", "-25"])),
        "treemap": chartex_part("treemap", "Stock by shelf", cx_dim(
            "strDim", "cat", ["Apple", "Pear", "Leek"], ["Fruit", "", "Vegetable"]) + cx_dim(
            "numDim", "size", ["12", "7", "3"]), series="Crates"),
        "histogram": chartex_part("clusteredColumn", "Wait times", cx_dim("numDim", "val", ["3", "9", "4"])),
    }
    data = pptx([(slide([shape([kind.title()], "title"), frame]), None) for kind in parts])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as package:
        for item in source.infolist():
            package.writestr(item, source.read(item))
        for n, xml in enumerate(parts.values()):
            part = len(parts) - n  # pptx() names the first slide's part last
            package.writestr(f"ppt/slides/_rels/slide{part}.xml.rels", f'<Relationships {RELS}><Relationship '
                             'Id="rId3" Type="http://schemas.microsoft.com/office/2014/relationships/chartEx" '
                             f'Target="../charts/chartEx{part}.xml"/></Relationships>')
            package.writestr(f"ppt/charts/chartEx{part}.xml", xml)
    assert slides_text(out.getvalue(), "charts.pptx").lines == [
        "Slide 1: Waterfall", "Chart: Cash flow 2025", "Axes: Euros", "|  | Cash |", "| --- | --- |",
        "| Start | 100 |", "| Sales | 40 |", "| Costs | -25 |",
        "Slide 2: Treemap", "Chart: Stock by shelf", "Axes: Euros", "|  | Crates |", "| --- | --- |",
        "| Fruit > Apple | 12 |", "| Fruit > Pear | 7 |", "| Vegetable > Leek | 3 |",
        "Slide 3: Histogram", "Chart: Wait times", "Axes: Euros", "|  | Cash |", "| --- | --- |", "| 1 | 3 |",
        "| 2 | 9 |", "| 3 | 4 |"]


def test_an_impress_smartart_is_read_as_its_shapes_text():
    """Impress keeps a SmartArt (one imported from a .pptx) as a group of custom shapes: their text is read, each a
    line, a column at a time, as the README says (it said an .odp's SmartArt was left out)."""
    from ingest.slides import slides_text

    def custom(text: str, x: int, y: int) -> str:
        return (f'<draw:custom-shape svg:x="{x}cm" svg:y="{y}cm" svg:width="3cm" svg:height="2cm"><text:p>{text}'
                '</text:p><draw:enhanced-geometry draw:type="round-rectangle"/></draw:custom-shape>')
    diagram = ('<draw:g svg:name="diagram">' + custom("Plan", 1, 1) + custom("Budget", 1, 5)
               + '<draw:g>' + custom("Hire", 6, 1) + custom("Build", 6, 5) + '</draw:g></draw:g>')
    deck = opendocument("application/vnd.oasis.opendocument.presentation",
                        f'<office:presentation><draw:page draw:name="p1">{frame(["Steps"], "title")}{diagram}'
                        '</draw:page></office:presentation>')
    assert slides_text(deck, "steps.odp").lines == ["Slide 1: Steps", "Plan", "Budget", "Hire", "Build"]
