"""Excel workbooks (.xlsx, ingest.xlsx): small workbooks written with zipfile, read by the parser and the real engine.

Before, .xlsx was among the 'kinds Sift does not read': a budget's or an inventory's rows were never found."""
from __future__ import annotations

import io
import os
import re
import zipfile
from pathlib import Path

import pytest

from ingest.chunk import chunk_document
from ingest.document import Skip
from ingest.kinds import kind_of
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree
from tests.test_page_or_template import env  # noqa: F401 - the keyword-only index fixture

NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
RNS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
STYLES = (f'<styleSheet {NS}><numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/></numFmts>'
          '<cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="4"/></cellXfs></styleSheet>')


def cell(ref: str, value, style: int = 0) -> str:
    """A cell: a str an inline string, ('s', n) a shared string, a number, a bool."""
    if isinstance(value, tuple):
        return f'<c r="{ref}" t="s"><v>{value[1]}</v></c>'
    if isinstance(value, bool):
        return f'<c r="{ref}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, (int, float)):
        return f'<c r="{ref}" s="{style}"><v>{value}</v></c>'
    return f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>'


def sheet(rows: list[str]) -> str:
    body = "".join(f'<row r="{n}">{row}</row>' for n, row in enumerate(rows, 1))
    return f'<worksheet {NS}><sheetData>{body}</sheetData></worksheet>'


def workbook(sheets: dict[str, str], strings: list[str] = (), settings: str = "") -> bytes:
    """A workbook of these sheets (name: its XML), the parts named in reverse (sheet3.xml holds the first sheet):
    the relationships, not the parts' numbers, say which is which."""
    names = list(sheets)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        listed = "".join(f'<sheet name="{name}" sheetId="{n}" r:id="rId{n}"/>' for n, name in enumerate(names, 1))
        package.writestr("xl/workbook.xml", f'<workbook {NS} {RNS}>{settings}<sheets>{listed}</sheets></workbook>')
        rels = "".join(f'<Relationship Id="rId{n}" Target="worksheets/sheet{len(names) + 1 - n}.xml" Type="x"/>'
                       for n in range(1, len(names) + 1))
        package.writestr("xl/_rels/workbook.xml.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/'
                         f'package/2006/relationships">{rels}</Relationships>')
        for n, name in enumerate(names, 1):
            package.writestr(f"xl/worksheets/sheet{len(names) + 1 - n}.xml", sheets[name])
        items = "".join(f"<si><t>{s}</t></si>" for s in strings)
        package.writestr("xl/sharedStrings.xml", f"<sst {NS}>{items}</sst>")
        package.writestr("xl/styles.xml", STYLES)
    return out.getvalue()


def budget() -> bytes:
    """Two sheets: a budget (shared strings, a formula's number, a date, a gap in a row) and contacts."""
    costs = sheet([cell("A1", ("s", 0)) + cell("B1", ("s", 1)) + cell("C1", "Due"),
                   cell("A2", "Sonar survey of the harbour") + cell("B2", 4000) + cell("C2", 45352, 1),
                   cell("A3", "Silt removal") + cell("B3", 12500.5, 2) + cell("D3", True),
                   cell("A5", "Dredging permit fees") + cell("C5", "pending")])
    people = sheet([cell("A1", "Name") + cell("B1", "Email"),
                    cell("A2", "Ingrid Halvorsen") + cell("B2", "ingrid@harbour.example")])
    return workbook({"Costs 2024": costs, "Contacts": people}, strings=["Item", "Cost"])


def test_a_workbook_is_its_sheets_rows_under_their_column_names():
    doc = parse_file("finance/Harbour budget.xlsx", budget())
    assert kind_of("Budget.XLSX") == "text" and doc.title == "Harbour budget"
    rows = [(s.heading_path, s.text, s.start_line) for s in doc.sections]
    assert rows == [
        (["Harbour budget", "Costs 2024", "Item | Cost | Due"], "Sonar survey of the harbour | 4000 | 2024-03-01", 3),
        (["Harbour budget", "Costs 2024", "Item | Cost | Due"], "Silt removal | 12500.5 |  | TRUE", 4),
        (["Harbour budget", "Costs 2024", "Item | Cost | Due"], "Dredging permit fees |  | pending", 5),
        (["Harbour budget", "Contacts", "Name | Email"], "Ingrid Halvorsen | ingrid@harbour.example", 8)], rows
    chunks = chunk_document(doc, lambda text: len(text.split()), 256, 0)
    assert [(c.heading_path, c.start_line, c.end_line) for c in chunks] == [
        (["Harbour budget", "Costs 2024", "Item | Cost | Due"], 3, 5),
        (["Harbour budget", "Contacts", "Name | Email"], 8, 8)], chunks  # a passage never holds two sheets


def test_a_date_is_counted_from_the_workbooks_date_system():
    """Old Excel for Mac counts days from 1904: the same serial number is four years and a day later."""
    dated = sheet([cell("A1", "Event") + cell("B1", "Day"), cell("A2", "Quay opening") + cell("B2", 45352, 1)])
    assert parse_file("a.xlsx", workbook({"S": dated})).sections[0].text == "Quay opening | 2024-03-01"
    mac = workbook({"S": dated}, settings='<workbookPr date1904="1"/>')
    assert parse_file("a.xlsx", mac).sections[0].text == "Quay opening | 2028-03-02"


def test_a_data_sheet_is_indexed_by_its_first_passage_and_a_big_text_sheet_skips_the_workbook(monkeypatch):
    """A sheet of readings is a data file's sheet (its first passage only), the other sheets read whole; a sheet of
    more than MAX_ROWS rows of words is a data set: the workbook skipped saying which sheet."""
    readings = sheet([cell("A1", "Hour") + cell("B1", "Depth")]
                     + [cell(f"A{n}", n) + cell(f"B{n}", n * 0.25) for n in range(2, 400)])
    notes = sheet([cell("A1", "Note")] + [cell(f"A{n}", f"inspection note {n} about the quay wall")
                                          for n in range(2, 200)])
    doc = parse_file("gauge.xlsx", workbook({"Readings": readings, "Notes": notes}))
    assert doc.meta["data_sheets"] == ["Readings"], doc.meta
    chunks = chunk_document(doc, lambda text: len(text.split()), 256, 0)
    sheets = [c.heading_path[1] for c in chunks]
    assert sheets.count("Readings") == 1 and sheets.count("Notes") > 1, sheets
    assert "inspection note 199" in chunks[-1].text
    import ingest.table
    monkeypatch.setattr(ingest.table, "MAX_ROWS", 100)
    with pytest.raises(Skip, match="its sheet 'Notes': a table of more than 100 rows"):
        parse_file("gauge.xlsx", workbook({"Readings": readings, "Notes": notes}))
    from ingest.xlsx import xlsx_lines
    lines = xlsx_lines(workbook({"Readings": readings}), "gauge.xlsx")  # read no further than parse_table does
    assert lines[:3] == ["Readings", "Hour | Depth", "2 | 0.5"] and len(lines) == 1 + 103, len(lines)


def test_a_broken_encrypted_or_bomb_workbook_is_skipped_with_its_reason(monkeypatch):
    with pytest.raises(Skip, match="not a readable Excel workbook"):
        parse_file("broken.xlsx", b"PK\x03\x04 truncated")
    with pytest.raises(Skip, match="password-protected"):
        parse_file("locked.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        package.writestr("xl/workbook.xml", '<workbook xmlns="http://purl.oclc.org/ooxml/spreadsheetml/main"/>')
    strict = out.getvalue()
    with pytest.raises(Skip, match="Strict Open XML"):
        parse_file("strict.xlsx", strict)  # was read as a workbook of no sheets: indexed, holding nothing
    import ingest.zipped
    monkeypatch.setattr(ingest.zipped, "OPENED_BYTES", 50_000)
    big = sheet([cell("A1", "Name")] + [cell(f"A{n}", "x" * 200) for n in range(2, 400)])
    with pytest.raises(Skip, match="a zip bomb"):
        parse_file("bomb.xlsx", workbook({"Sheet1": big}))


def test_workbooks_are_searched_and_read_by_their_rows_and_sheets(immediate, tmp_path, monkeypatch):
    """Searched by a cell, a broken one a visible failure costing nothing else, Excel's owner file (~$…) not a file
    at all; read_file shows the rows search names, and a sheet by its name."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "work", {"notes/plan.md": "# Plan\n\nThe ferry runs hourly.\n"})
    (root / "finance").mkdir()
    (root / "finance" / "budget.xlsx").write_bytes(budget())
    (root / "finance" / "broken.xlsx").write_bytes(b"PK\x03\x04 truncated")
    (root / "finance" / "~$budget.xlsx").write_bytes(b"\x05Ana  " + b"\0" * 100)  # Excel's owner file
    published = ingest(root, "work")["published"]
    assert ".xlsx" not in published["unread"], published
    failed = {f["path"]: f for f in published["failures"]}
    assert list(failed) == ["finance/broken.xlsx"], published["failures"]
    assert "not a readable Excel workbook" in str(failed["finance/broken.xlsx"]), failed
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    hits = [(h.path, h.heading_path, h.start_line, h.end_line)
            for h in engine.search("Halvorsen", mode="keyword").hits]
    assert hits[0] == ("finance/budget.xlsx", "budget > Contacts > Name | Email", 8, 8), hits
    assert engine.search("dredging permit", mode="keyword").hits[0].path == "finance/budget.xlsx"
    sift = Sift(load())
    shown, data = reading.read(sift, "work/finance/budget.xlsx", 8, 8, None)
    assert "Ingrid Halvorsen | ingrid@harbour.example" in shown and "an Excel workbook" in shown, shown
    assert data["total_lines"] == 8, data
    shown, data = reading.read(sift, "work/finance/budget.xlsx", None, None, None, heading="Costs 2024")
    assert (data["start_line"], data["end_line"]) == (1, 5), data
    assert "Silt removal | 12500.5 |  | TRUE" in shown and "Halvorsen" not in shown, shown


def test_a_percentage_is_shown_as_excel_shows_it_and_an_xlsm_is_read():
    """A cell of 0.25 in a '0%' format is '25%' in Excel: it was read '0.25', which neither a reader nor a search
    for '25%' takes for it. A currency or thousands format stays the number stored (12500.5: found as typed)."""
    styles = (f'<styleSheet {NS}><numFmts count="2"><numFmt numFmtId="164" formatCode="0.0%;[Red]-0.0%"/>'
              '<numFmt numFmtId="165" formatCode="&quot;€&quot;#,##0.00"/></numFmts><cellXfs count="5"><xf numFmtId="0"/>'
              '<xf numFmtId="9"/><xf numFmtId="10"/><xf numFmtId="164"/><xf numFmtId="165"/></cellXfs></styleSheet>')
    rates = sheet([cell("A1", "Item") + cell("B1", "Share") + cell("C1", "Growth") + cell("D1", "Margin")
                   + cell("E1", "Cost"),
                   cell("A2", "Sonar survey") + cell("B2", 0.25, 1) + cell("C2", 0.1234, 2) + cell("D2", -0.075, 3)
                   + cell("E2", 12500.5, 4)])
    data = workbook({"Rates": rates})
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, styles if info.filename == "xl/styles.xml" else src.read(info))
    assert kind_of("Budget.xlsm") == "text"  # macro-enabled: the same SpreadsheetML, its macros not read
    for name in ("rates.xlsx", "rates.xlsm"):
        assert [s.text for s in parse_file(name, out.getvalue()).sections] == [
            "Sonar survey | 25% | 12.34% | -7.5% | 12500.5"], name


def test_a_cell_merged_down_over_rows_is_each_rows_value():
    """Excel keeps a merged cell's value in its top cell: 'Hardware' merged over three rows of items read 'Laptop |
    1200' for the two below, their category lost to search and reader. A merge across columns (a title over the
    table) stays in its first cell."""
    rows = sheet([cell("A1", "Budget 2024"),
                  cell("A2", "Category") + cell("B2", "Item") + cell("C2", "Cost"),
                  cell("A3", "Hardware") + cell("B3", "Sonar unit") + cell("C3", "Bought in May"),
                  cell("B4", "Laptop") + cell("C4", "Leased from Halvorsen"),
                  cell("B5", "Tripod") + cell("C5", "Borrowed"),
                  cell("A6", "Travel") + cell("B6", "Ferry tickets") + cell("C6", "Paid by Okonkwo")])
    merged = rows.replace("</sheetData>", '</sheetData><mergeCells count="2"><mergeCell ref="A1:C1"/>'
                          '<mergeCell ref="A3:A5"/></mergeCells>')
    doc = parse_file("budget.xlsx", workbook({"Costs": merged}))
    assert [s.text for s in doc.sections] == [
        "Budget 2024", "Hardware | Sonar unit | Bought in May", "Hardware | Laptop | Leased from Halvorsen",
        "Hardware | Tripod | Borrowed", "Travel | Ferry tickets | Paid by Okonkwo"], doc.sections


LAUGHS = ('<!DOCTYPE {root} [<!ENTITY a "' + "a" * 40 + '">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)) + ']>')
XXE = '<!DOCTYPE {root} [<!ENTITY j SYSTEM "file:///etc/passwd">]>'


@pytest.mark.parametrize("entities", [LAUGHS, XXE], ids=["billion-laughs", "external-entity"])
def test_entities_in_any_readers_xml_are_refused_not_expanded_or_fetched(entities):
    """A workbook's, an .odt's, an EPUB's package document and a .docx's XML declaring a billion laughs (1e10
    characters from a few hundred bytes) or an external entity: expat and libxml2 refuse both, the file is skipped
    with the reason in a blink, no memory blown up and no file of the machine read into the index."""
    from tests.test_epub import OPF, book, with_opf
    from tests.test_word import ODT_CONTENT, docx_of, odt, para
    sheet_xml = sheet([cell("A1", "Item") + cell("B1", "Cost"), cell("A2", "Sonar &j;") + cell("B2", "x")])
    files = {"a.xlsx": workbook({"S": entities.format(root="worksheet") + sheet_xml}),
             "a.odt": odt(entities.format(root="office:document-content") + ODT_CONTENT.split("?>", 1)[1]
                          .replace("in June.", "in June &j;.")),
             "a.epub": with_opf(entities.format(root="package") + OPF.split("?>", 1)[1]
                                .format(title="<dc:title>T &j;</dc:title>"))}
    try:
        import docx  # noqa: F401
        whole = docx_of(para("Sonar &j;"))
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(whole)) as src, zipfile.ZipFile(out, "w") as dst:
            for info in src.infolist():
                raw = src.read(info)
                if info.filename == "word/document.xml":
                    text = raw.decode()
                    raw = entities.format(root="w:document") + text[text.index("<w:document"):]
                dst.writestr(info, raw)
        files["a.docx"] = out.getvalue()
    except ImportError:
        pass
    assert book()  # the helpers build readable files: only the entities make them unreadable
    for path, data in files.items():
        if entities == XXE and path == "a.docx":  # lxml, as python-docx calls it, leaves the entity unresolved
            assert [s.text for s in parse_file(path, data).sections] == ["Sonar"], path
            continue
        # an .odt's paragraph counted as it expands: refused at a line's bound, before expat's own limit
        refusal = "a line of over 1,000,000" if entities == LAUGHS and path == "a.odt" else "not a readable"
        with pytest.raises(Skip, match=refusal) as refused:
            parse_file(path, data)
        assert "root:" not in str(refused.value), path


def test_a_workbook_of_one_data_sheet_is_listed_with_how_few_of_its_rows_are_indexed(env, tmp_path):  # noqa: F811
    """An export of readings saved as .xlsx was listed as plain 'indexed', its later rows found by no search: it is
    listed as the same data in a CSV is ('first 12 of 3,000 rows indexed'). A workbook of more sheets was listed as
    plain 'indexed' too: its data sheets are each counted ("data sheet 'Readings': first 12 of 3,000 rows indexed");
    a workbook whose data sheets' passages hold all their rows is plain 'indexed'."""
    from tests.conftest import run_ingest
    readings = sheet([cell("A1", "Hour") + cell("B1", "Depth")]
                     + [cell(f"A{n}", n) + cell(f"B{n}", n * 0.25) for n in range(2, 3002)])
    notes = sheet([cell("A1", "Note"), cell("A2", "the gauge was moved in May")])
    root = tmp_path / "lab"
    root.mkdir()
    (root / "gauge.xlsx").write_bytes(workbook({"Readings": readings}))
    (root / "both.xlsx").write_bytes(workbook({"Readings": readings, "Notes": notes}))
    few = sheet([cell("A1", "Hour") + cell("B1", "Depth")] + [cell(f"A{n}", n) + cell(f"B{n}", n) for n in (2, 3)])
    (root / "small.xlsx").write_bytes(workbook({"Readings": few, "Notes": notes}))
    ingest(root, "lab")
    printed = run_ingest(env, "files", "--sort", "path", "--collection", "lab").stdout
    assert re.search(r"lab/gauge\.xlsx  text  .*  indexed: first \d+ of 3,000 rows indexed \(a data file", printed), \
        printed
    assert re.search(r"lab/both\.xlsx  text  .*  indexed: data sheet 'Readings': first \d+ of 3,000 rows indexed "
                     r"\(mostly numbers and dates", printed), printed
    assert re.search(r"lab/small\.xlsx  text  .*  indexed\n", printed), printed


def test_a_sheet_part_not_named_xml_counts_toward_the_zip_bomb_limit(monkeypatch):
    """Only the parts named .xml or .rels were counted: a workbook whose relationships name its sheet
    'xl/worksheets/sheet1.bin' unzipped it whole, however big. Every part read counts (ingest.zipped; a small limit
    here stands for the real 128 MiB)."""
    import ingest.zipped
    monkeypatch.setattr(ingest.zipped, "OPENED_BYTES", 50_000)
    big = sheet([cell("A1", "Name")] + [cell(f"A{n}", "x" * 200) for n in range(2, 400)])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(workbook({"Sheet1": big})), "r") as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info).replace(b"sheet1.xml", b"sheet1.bin")
            dst.writestr(info.filename.replace("sheet1.xml", "sheet1.bin"), data)
    with pytest.raises(Skip, match="a zip bomb"):
        parse_file("bomb.xlsx", out.getvalue())
