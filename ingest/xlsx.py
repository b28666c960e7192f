"""Excel workbooks (.xlsx: a budget, an inventory, a contact list) read as CSV tables are (ingest.table), a sheet
each under its name. An .xlsx is a zip of XML: xl/workbook.xml names the sheets, xl/sharedStrings.xml holds their
text, xl/worksheets/sheetN.xml their cells; the standard library reads it (zipfile and ElementTree). openpyxl would
read the same cells and more (charts, formulas' styles) at some 10 MB of installed package and seconds a big sheet
to load every cell as an object; a sheet's values are all a search needs.

Each sheet's rows go through ingest.table.parse_table as a TSV's would: its first row the column names where it
looks like a header, a row a passage's line under them (packed by the chunker, headed by the workbook's title, the
sheet's name and its column names), a sheet of numbers and dates a data sheet (its first passage indexed), a sheet of
more than table.MAX_ROWS other rows a data set (the workbook skipped with the reason). A cell is its shared or inline
string, its number (a date's serial number as its date when its style is a date format), TRUE/FALSE, or its error
('#DIV/0!'); a formula's cached value.

A workbook has no lines: its "lines" are those of ``WordText.lines`` (read_file shows them, as a Word document's):
a sheet's name, then its rows that hold a value, a line each, their values ' | ' between. A password-protected
workbook (an OLE compound file, not a zip), a broken zip or XML and a zip bomb are skipped with the reason.
"""
from __future__ import annotations

import bisect
import csv
import io
import re
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta

from ingest.document import Document, Section, Skip, title_from_name
from ingest.passage_dates import property_date
from ingest import table
from ingest.table import SEPARATOR, parse_table
from ingest.zipped import opened

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PACKAGE_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
DCTERMS = "{http://purl.org/dc/terms/}"
COLUMN = re.compile(r"[A-Z]+")
MERGED = re.compile(r"([A-Z]{1,3})([0-9]{1,7}):([A-Z]{1,3})([0-9]{1,7})")  # a merged range: 'A2:B5'
MAX_MERGED = 100_000  # merged ranges read of a sheet (each fills at most the rows read: table.MAX_ROWS and a few)
SPACES = re.compile(r"\s+")
# Excel's built-in date and time formats (ECMA-376 18.8.30); a custom one is a date when it holds a day, month or
# year code outside quotes and brackets
DATE_FORMATS = {14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47}
DATE_CODE = re.compile(r"[dy]|m(?!s)", re.IGNORECASE)
# a percentage: shown as Excel shows it ('25%', not the 0.25 stored: what a reader and a search for '25%' look for);
# Excel's built-in '0%' and '0.00%', a custom one with a '%' outside quotes (its decimals the zeros after the point)
PERCENT_FORMATS = {9: 0, 10: 2}
PERCENT = re.compile(r"[0#?]+(?:\.([0#?]+))?\s*%")
QUOTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')
EPOCH = datetime(1899, 12, 30)  # serial 1 is 1900-01-01 (Excel's 1900 leap-year bug counted in)
EPOCH_1904 = datetime(1904, 1, 1)  # a workbook of the 1904 date system (old Excel for Mac): serial 0 is 1904-01-01


def parse_xlsx(path: str, data: bytes) -> Document:
    read, sections, meta = xlsx_text(data, path)
    return Document(kind="text", title=read.title, sections=sections, meta=meta)


def xlsx_text(data: bytes, path: str = ""):
    """(WordText of the workbook's lines and its sheets as headings, its passages' sections, its meta: with its
    properties' created date, as a Word document's, ingest.passage_dates). Raises Skip when it is no readable
    workbook."""
    sheets, created = _sheets(data)
    return sheets_text(sheets, path, created)


def sheets_text(sheets, path: str = "", created: str = ""):
    """xlsx_text of a workbook's (name, rows) ``sheets``: an Excel workbook's or an OpenDocument spreadsheet's
    (ingest.ods); ``created`` its properties' created date (ingest.passage_dates.property_date) or ''."""
    from ingest.word import WordText
    name = path.rsplit("/", 1)[-1]
    read = WordText(title=title_from_name(name.rsplit(".", 1)[0] if "." in name[1:] else name))
    sections, data_sheets, counted, sheet_rows = [], [], {}, []
    for sheet, rows in sheets:
        heading = len(read.lines)
        read.lines.append(sheet)
        read.headings.append((heading, 1, sheet))
        text = "".join(_tsv_line(row) for row in rows)
        try:
            table = parse_table(f"{sheet}.tsv", text)
        except Skip as why:
            raise Skip(f"its sheet {sheet!r}: {why}") from None
        read.lines.extend(SEPARATOR.join(" ".join(cell.split()) for cell in row) for row in rows)
        columns = table.meta["columns"]
        if table.meta["data"]:
            data_sheets.append(sheet)
            counted = {"data": True, "rows": table.meta["rows"], "more_rows": table.meta["more_rows"]}
            sheet_rows.append([sheet, table.meta["rows"], table.meta["more_rows"]])
        for section in table.sections:
            sections.append(Section(text=section.text, heading_path=[read.title, sheet] + ([columns] if columns
                                                                                          else []),
                                    start_line=heading + 1 + section.start_line, end_line=heading + 1 +
                                    section.end_line))
    # a workbook of one sheet, of data (an export of readings): its rows counted as a data CSV's, for list_files to
    # say how few of them search finds ('first 7 of 5,000 rows indexed'); its first passage is all that is indexed
    # of it, as of such a CSV (ingest.chunk). Those of a workbook of more sheets are counted a data sheet each
    # ('sheet_rows': [sheet, rows, more rows unread]), list_files saying how few of each search finds.
    one_sheet = len(read.headings) == 1
    return read, sections, {"columns": "", "data_sheets": data_sheets,
                            **(counted if one_sheet else {"sheet_rows": sheet_rows} if sheet_rows else {}),
                            **({"created": created} if created else {})}


def xlsx_lines(data: bytes, path: str = "") -> list[str]:
    return xlsx_text(data, path)[0].lines


def _tsv_line(row: list[str]) -> str:
    """A row as a TSV line parse_table reads back as these values (a cell's tabs and line breaks as spaces)."""
    out = io.StringIO()
    csv.writer(out, delimiter="\t", lineterminator="\n").writerow([SPACES.sub(" ", cell).strip() for cell in row])
    return out.getvalue()


def _sheets(data: bytes):
    """((name, rows of cell texts) of each sheet in the workbook's order, rows without a value left out; its
    created date: docProps/core.xml's dcterms:created, as front matter writes a date, or '')."""
    with opened(data, "Excel workbook", ".xlsx") as parts:
        if "xl/workbook.xml" not in parts.names:
            raise Skip("not a readable Excel workbook: no xl/workbook.xml in it")
        workbook = parts.xml("xl/workbook.xml")
        if workbook.tag != MAIN + "workbook":  # Strict Open XML ('purl.oclc.org/ooxml/…'): none of its names
            raise Skip("not a readable Excel workbook: saved as Strict Open XML (Sift reads Excel's usual .xlsx: "
                       "save it as 'Excel Workbook')")
        targets = _targets(parts)
        strings = _shared_strings(parts)
        formats = _number_styles(parts)
        settings = workbook.find(MAIN + "workbookPr")
        epoch = EPOCH_1904 if settings is not None and settings.get("date1904") in ("1", "true") else EPOCH
        found = []
        for number, sheet in enumerate(workbook.iter(MAIN + "sheet"), 1):
            part = targets.get(sheet.get(REL + "id") or "", f"xl/worksheets/sheet{number}.xml")
            if part not in parts.names:
                continue
            name = " ".join((sheet.get("name") or f"Sheet{number}").split())
            with parts.open(part) as stream:
                found.append((name, _rows(stream, strings, formats, epoch)))
        return found, _created(parts)


def _created(parts) -> str:
    """docProps/core.xml's dcterms:created, as front matter writes a date; '' for none or a broken core.xml (the
    sheets are what is read)."""
    try:
        core = parts.xml("docProps/core.xml")
    except ET.ParseError:
        return ""
    created = core.find(DCTERMS + "created") if core is not None else None
    return property_date(created.text) if created is not None else ""


def _targets(parts) -> dict[str, str]:
    """The workbook's relationship ids and the parts they name ('rId1': 'xl/worksheets/sheet1.xml')."""
    rels = parts.xml("xl/_rels/workbook.xml.rels")
    if rels is None:
        return {}
    found = {}
    for rel in rels.iter(PACKAGE_REL + "Relationship"):
        target = rel.get("Target") or ""
        found[rel.get("Id") or ""] = target.lstrip("/") if target.startswith("/") else "xl/" + target
    return found


def _shared_strings(parts) -> list[str]:
    strings = parts.xml("xl/sharedStrings.xml")
    return [_text(item) for item in strings.iter(MAIN + "si")] if strings is not None else []


def _text(item) -> str:
    """A string item's text: its runs', not their phonetic readings' (rPh, Japanese furigana)."""
    return "".join(t.text or "" for t in item.iter(MAIN + "t")
                   if all(t not in ph.iter(MAIN + "t") for ph in item.iter(MAIN + "rPh")))


def _number_styles(parts) -> dict[int, str | int]:
    """The cell styles (cellXfs, by index) whose number format is a date or a time ('date') or a percentage (its
    decimals: 0 for '0%', 2 for '0.00%')."""
    styles = parts.xml("xl/styles.xml")
    if styles is None:
        return {}
    kinds: dict[int, str | int] = {n: "date" for n in DATE_FORMATS} | PERCENT_FORMATS
    for number_format in styles.iter(MAIN + "numFmt"):
        code = QUOTED.sub("", (number_format.get("formatCode") or "").split(";")[0])
        found = PERCENT.search(code)
        kind = "date" if DATE_CODE.search(code) else len(found.group(1) or "") if found else None
        if kind is not None:
            kinds[int(number_format.get("numFmtId") or -1)] = kind
    xfs = styles.find(MAIN + "cellXfs")
    return {n: kinds[id_] for n, xf in enumerate(xfs if xfs is not None else ())
            if (id_ := int(xf.get("numFmtId") or 0)) in kinds}


def _rows(stream, strings: list[str], formats: dict[int, str | int], epoch: datetime) -> list[list[str]]:
    """A sheet's rows that hold a value, read as its XML streams (a row at a time, each let go once read), up to
    a few past table.MAX_ROWS: what parse_table reads of a sheet (a data sheet's more rows unread, any other one
    a data set). Parsed whole, a sheet of 200,000 rows took 11.5 s and 770 MB to read its first 10,000."""
    rows: list[list[str]] = []
    numbers: list[int] = []  # each row's number in the sheet (1-based)
    merged: list[str] = []  # the merged ranges' references ('A2:A5'), listed after the rows
    most = table.MAX_ROWS + 3  # its header, a title line above it, and one row more than read
    holder, number = None, 0
    for event, element in ET.iterparse(stream, events=("start", "end")):
        if event == "start":
            if element.tag == MAIN + "sheetData":
                holder = element
            continue
        if element.tag == MAIN + "mergeCell" and len(merged) < MAX_MERGED:
            merged.append(element.get("ref") or "")
        if element.tag != MAIN + "row":
            continue
        at_row = element.get("r") or ""
        number = int(at_row) if at_row.isdigit() else number + 1
        cells: list[str] = []
        for cell in element.iter(MAIN + "c"):
            place = COLUMN.match(cell.get("r") or "")
            at = _column(place.group()) if place else len(cells)
            if at >= len(cells):
                cells += [""] * (at - len(cells) + 1)
            cells[at] = _value(cell, strings, formats, epoch)
        while cells and not cells[-1].strip():
            cells.pop()
        if cells:
            rows.append(cells)
            numbers.append(number)
            if len(rows) >= most:
                break
        if holder is not None:
            holder.remove(element)
    _fill_merged(rows, numbers, merged)
    return rows


def _fill_merged(rows: list[list[str]], numbers: list[int], merged: list[str]) -> None:
    """A cell merged down over rows below it ('Hardware' over A2:A5, a category beside its items) given to each of
    those rows, in its first column: Excel keeps its value in the top cell only, and the rows below were read
    without it ('Laptop | 1200', whose category no search or reader saw). Merged across columns alone (a title
    over the table) it stays in its first cell."""
    at = {number: n for n, number in enumerate(numbers)}
    # ranges merged do not overlap: the cells they fill are no more than the rows' (overlapping ones, which only a
    # hostile file holds, stop there)
    budget = sum(len(cells) for cells in rows)
    for ref in merged:
        found = MERGED.fullmatch(ref)
        if not found:
            continue
        column, top, bottom = _column(found.group(1)), int(found.group(2)), int(found.group(4))
        first = at.get(top)
        if first is None or bottom <= top or column >= len(rows[first]) or not rows[first][column]:
            continue
        value = rows[first][column]
        start = bisect.bisect_right(numbers, top)
        end = bisect.bisect_right(numbers, bottom, lo=start)
        budget -= end - start
        if budget < 0:
            return
        for n in range(start, end):
            cells = rows[n]
            if column >= len(cells):
                cells += [""] * (column - len(cells) + 1)
            cells[column] = cells[column] or value


def _column(letters: str) -> int:
    """0-based: 'A' 0, 'Z' 25, 'AA' 26; Excel's last column is XFD (16,383)."""
    n = 0
    for letter in letters[:3]:
        n = n * 26 + ord(letter) - 64
    return n - 1


def _value(cell, strings: list[str], formats: dict[int, str | int], epoch: datetime = EPOCH) -> str:
    kind = cell.get("t") or "n"
    if kind == "inlineStr":
        item = cell.find(MAIN + "is")
        return _text(item) if item is not None else ""
    value = cell.find(MAIN + "v")
    text = (value.text or "") if value is not None else ""
    if kind == "s":
        return strings[int(text)] if text.isdigit() and int(text) < len(strings) else ""
    if kind == "b":
        return "TRUE" if text == "1" else "FALSE"
    if kind == "n" and text:
        try:
            number = float(text)
        except ValueError:
            return text
        style = formats.get(int(cell.get("s") or 0) if (cell.get("s") or "0").isdigit() else 0)
        if style == "date" and 0 <= number < 2958466:  # up to 9999-12-31
            moment = epoch + timedelta(days=number)
            return moment.strftime("%Y-%m-%d" if number == int(number) else
                                   "%H:%M:%S" if number < 1 else "%Y-%m-%d %H:%M:%S")
        if isinstance(style, int) and abs(number) < 1e15:
            return f"{number * 100:.{min(style, 15)}f}%"
        return f"{number:.15g}"
    return text  # a formula's string ('str'), an error ('e'), a date as ISO text ('d')
