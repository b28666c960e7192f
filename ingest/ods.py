"""OpenDocument spreadsheets (.ods: LibreOffice Calc, Google Sheets' download) read as an Excel workbook is
(ingest.xlsx): a sheet each under its name, its rows through ingest.table's rules.

An .ods is a zip whose content.xml holds every sheet (table:table) and its rows, read as it unzips (ElementTree's
iterparse, a row let go once read). A cell is its value as xlsx gives it: a number's office:value (a currency's and
a percentage's too), a date's office:date-value (ISO), a boolean TRUE/FALSE, else its text (its paragraphs). Calc
writes a run of equal rows or cells once, with how many it stands for (``table:number-rows-repeated``,
``table:number-columns-repeated``): a sheet's empty rows to its end, 1,048,576 of them, are one element, and never
made into rows; repeated rows that hold a value are made up to the rows parse_table reads, repeated cells up to
MAX_COLUMNS. A password-protected spreadsheet, a broken zip or XML and a zip bomb are skipped with the reason."""
from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from ingest import table
from ingest.document import Document, Skip
from ingest.zipped import OPENED_BYTES, opened_odf

OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
CELLS = (TABLE + "table-cell", TABLE + "covered-table-cell")
MAX_COLUMNS = 1024  # of a row's cells made: a value repeated across a sheet's 16,384 columns is no table's width
# of the copies a sheet's repeated cells and rows make (and empty cells before a value): past it a repeated cell or
# row is read once, a row's cells after a longer gap left out. Made whole, a 3 KB file of one value repeated over
# 1,024 columns and 10,000 rows was 10 million cells, and took 40 s to find it a data set (0.7 s with the cap)
MAX_COPIES = 200_000


def parse_ods(path: str, data: bytes) -> Document:
    from ingest.xlsx import sheets_text
    sheets, created = _spreadsheet(data)
    read, sections, meta = sheets_text(sheets, path, created)
    return Document(kind="text", title=read.title, sections=sections, meta=meta)


def ods_text(data: bytes, path: str = ""):
    from ingest.xlsx import sheets_text
    return sheets_text(_sheets(data), path)[0]


def _sheets(data: bytes) -> list[tuple[str, list[list[str]]]]:
    """(name, rows of cell texts) of each sheet in order, rows without a value left out."""
    return _spreadsheet(data)[0]


def _spreadsheet(data: bytes) -> tuple[list[tuple[str, list[list[str]]]], str]:
    """(_sheets, its meta.xml's creation date as front matter writes a date (ingest.odt.creation_date), or '': a
    broken meta.xml too, the sheets are what is read)."""
    from ingest.odt import creation_date, flat_bytes
    if (flat := flat_bytes(data, "OpenDocument spreadsheet")) is not None:
        try:  # a flat .fods: one XML file, its office:document's body read as it comes
            return _read(io.BytesIO(flat)), ""
        except ET.ParseError as error:
            from ingest.unreadable import not_readable
            raise Skip(not_readable(error, "OpenDocument spreadsheet", ".ods")[:500]) from None
    with opened_odf(data, "OpenDocument spreadsheet", ".ods") as parts:
        with parts.open("content.xml") as stream:
            sheets = _read(stream)
        try:
            return sheets, creation_date(parts.xml("meta.xml"))
        except ET.ParseError:
            return sheets, ""


def _read(stream) -> list[tuple[str, list[list[str]]]]:
    most = table.MAX_ROWS + 3  # what parse_table reads of a sheet (xlsx._rows), its header and title line counted
    sheets: list[tuple[str, list[list[str]]]] = []
    open_: list = []  # the elements open, outermost first: a row is let go from its parent once read
    depth = 0  # of tables open: a table inside a cell (rare) is read as that cell's text, not as rows
    from ingest.odt import bounded_iterparse  # a cell's text past a line's bound not held (one of 50 MB took 1 GB)
    for event, element in bounded_iterparse(stream, "OpenDocument spreadsheet", OPENED_BYTES, ("start", "end"),
                                            cut=True):
        if event == "start":
            open_.append(element)
            if element.tag == TABLE + "table":
                depth += 1
                if depth == 1:
                    copies = [MAX_COPIES]  # left to make in this sheet
                    number = len(sheets) + 1
                    sheets.append((" ".join((element.get(TABLE + "name") or f"Sheet{number}").split()), []))
            continue
        open_.pop()
        if element.tag == TABLE + "table":
            depth -= 1
        elif element.tag == TABLE + "table-row" and depth == 1:
            rows = sheets[-1][1]
            if len(rows) < most:
                cells = _cells(element, copies)
                if cells:
                    repeat = min(_int(element.get(TABLE + "number-rows-repeated")), most - len(rows),
                                 1 + max(copies[0], 0) // len(cells))
                    copies[0] -= (repeat - 1) * len(cells)
                    rows.extend([cells] * repeat)  # one list: nothing changes a row
            if open_:
                open_[-1].remove(element)
    return sheets


def _cells(row, copies: list[int]) -> list[str]:
    """A row's cell texts, its repeated cells made up to MAX_COLUMNS (and while ``copies[0]``, the copies its sheet
    may still make, lasts), the empty ones at its end left out."""
    cells: list[str] = []
    empty = 0  # empty cells not made yet: only a value after them makes them
    for cell in row:
        if cell.tag not in CELLS:
            continue
        repeat = _int(cell.get(TABLE + "number-columns-repeated"))
        text = _value(cell) if cell.tag == TABLE + "table-cell" else ""
        if not text:
            empty += repeat
            continue
        room = MAX_COLUMNS - len(cells)
        if empty >= room or empty > copies[0] + 1:  # a gap the sheet has no copies left for: the row read to it
            break
        cells += [""] * empty
        copies[0] -= max(empty - 1, 0)
        made = min(repeat, room - empty, 1 + max(copies[0], 0))
        copies[0] -= made - 1
        cells += [text] * made
        empty = 0
        if len(cells) >= MAX_COLUMNS:
            break
    return cells


def _value(cell) -> str:
    kind = cell.get(OFFICE + "value-type")
    if kind in ("float", "percentage", "currency"):
        try:
            return f"{float(cell.get(OFFICE + 'value') or ''):.15g}"
        except ValueError:
            pass
    elif kind == "date" and cell.get(OFFICE + "date-value"):
        value = cell.get(OFFICE + "date-value") or ""
        return value[:10] if value.endswith("T00:00:00") else value.replace("T", " ")
    elif kind == "boolean":
        return "TRUE" if cell.get(OFFICE + "boolean-value") == "true" else "FALSE"
    # its own paragraphs: not a comment's (office:annotation holds paragraphs of its own)
    return " ".join(" ".join("".join(p.itertext()).split()) for p in cell.findall(TEXT + "p")).strip()


def _int(value: str | None) -> int:
    return int(value) if value and value.isdigit() and int(value) > 0 else 1
