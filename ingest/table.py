"""CSV and TSV files: windows of rows under the table's column names.

A Notion database is exported as CSV beside its pages (``Tasks 1a2b….csv``, and ``Tasks 1a2b…_all.csv`` with every
row); a team's task list, a reading list or a contact sheet is often one too. Each row is a section of one line,
its values ``' | '`` between, at the file's lines that hold it; the document's ``meta["columns"]`` is the header
row written so. The chunker (ingest.chunk.packed_rows) packs consecutive rows into passages under the model's token
limit, headed (and embedded) by the column names, rows never split: a passage a row made hundreds of short
passages that outranked the page a question was about ('where is the offsite' found the row 'Book the offsite
venue' first) and a table of thousands of rows as many passages to embed.

A data file — its cells mostly numbers, dates and times, no prose (DATA_SHARE) — is ``meta["data"]``: only its
first passage (the column names and the first rows) is indexed. A passage of numbers embeds as nothing a question
is near, and 5,000 rows of them were hundreds of passages for the worker to embed; the column names are what a
search for such a file finds it by; past MAX_ROWS rows the rest of it is not read. Its rows (``meta["rows"]``,
``meta["more_rows"]`` when it was not read to its end) let list_files say how few of them search finds. Any other table of more than
MAX_ROWS rows is a data set, not notes: it is skipped with the reason.
"""
from __future__ import annotations

import csv
import io
import itertools
import re
from collections import Counter

from ingest.document import Document, Section, Skip, title_from_name

MAX_ROWS = 10_000
# Notion writes a relation to a page as its title and its path: 'Billing migration (Projects%20…/Billing%20….md)'
RELATION = re.compile(r" \([^()\s]+\.(?:md|csv)\)(?=,|$)")
CELL_CHARS = 2_000  # of a value kept in its row's passage
SEPARATOR = " | "  # between a row's values in its passage
# Of the column names (the heading of every passage, counted again for each row packed), the first kept: a header
# of 100,000 columns (a 690 KB line) took 30 s to cut 100 short rows, about 50 min for 10,000.
COLUMNS_CHARS = 2_000
# A cell of data, not words: a number (signs, thousands separators, a decimal part, an exponent, a unit mark), a
# date, a time, or both
DATUM = re.compile(r"[-+]?[$€£]?(?:\d[\d,_' ]*)?\.?\d+(?:[eE][-+]?\d+)?\s*[%‰°]?[A-Za-z]{0,2}"
                   r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
                   r"|\d{1,2}[:/.]\d{1,2}(?:[:/.]\d{2,4})?(?:\.\d+)?|nan|NaN|NA|null|-|true|false|TRUE|FALSE")
DATA_SHARE = 0.8  # of a table's non-empty cells (below its header) that are data make it a data file
PROSE_WORDS = 4  # a cell of this many words or more is prose: its table is no data file
# The csv module's field limit (128 KiB, for the whole process) refused the whole file at a cell longer than that (a
# ticket's long description, a JSON blob an export keeps in a cell): every row was lost. A cell is as long as the
# file may be (64 MiB: ingest.files.MAX_FILE_BYTES, which imports this module); its first CELL_CHARS are kept.
csv.field_size_limit(max(csv.field_size_limit(), 64 * 1024 * 1024))


def parse_table(path: str, text: str) -> Document:
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    delimiter, text, first = _delimiter(name, text.lstrip("\ufeff"))
    records = _records(text, delimiter, first=first)
    cells = data = 0
    prose = more = False
    # the first record holding a value (blank lines before it read as an empty header, and the header as a row)
    header, header_line, _ = next((r for r in records if any(value.strip() for value in r[0])), ([], 1, 1))
    sections, titled = [], 0
    below = next((r for r in records if any(value.strip() for value in r[0])), None)
    if below is not None and _filled(header[:1]) == _filled(header) == 1 and _filled(below[0]) > 1 \
            and not any(DATUM.fullmatch(value.strip()) for value in below[0]):  # below, column names: no data
        after = next((r for r in records if any(value.strip() for value in r[0])), None)
        if after is None or _filled(after[0]) == _filled(below[0]):  # a title line above the header: its passage
            title = " ".join(" ".join(header).split())[:CELL_CHARS]
            sections.append(Section(text=title, start_line=header_line, end_line=header_line))
            titled = 1
            (header, header_line, _), below = below, None
        records = itertools.chain([r for r in (below, after) if r is not None], records)
    elif below is not None:
        records = itertools.chain([below], records)
    header = [" ".join(cell.split()) for cell in header]
    for row, start, end in records:
        if len(sections) - titled >= MAX_ROWS:
            if _data(cells, data, prose):  # its first passage is all that is indexed of it: read no further
                more = True
                break
            raise Skip(f"a table of more than {MAX_ROWS:,} rows: a data set, not notes (Sift reads "
                       f"{MAX_ROWS:,} at most)")
        values = [RELATION.sub("", " ".join(value.split()))[:CELL_CHARS] for value in row]
        while values and not values[-1]:
            values.pop()
        if values:
            filled = [value for value in values if value]
            cells += len(filled)
            data += sum(bool(DATUM.fullmatch(value)) for value in filled)
            prose = prose or any(len(value.split()) >= PROSE_WORDS for value in filled)
            sections.append(Section(text=SEPARATOR.join(values), start_line=start, end_line=end))
    meta = {"columns": _columns(header), "data": _data(cells, data, prose)}
    if meta["data"]:  # how many rows it has, for list_files to say how few of them search finds (search.query.listing)
        meta.update(rows=len(sections) - titled, more_rows=more)
    if not sections and meta["columns"]:  # a header alone (a table not filled in yet, a line of values): its passage
        sections.append(Section(text=meta["columns"], start_line=header_line, end_line=header_line))
    return Document(kind="text", title=title_from_name(stem), sections=sections, meta=meta)


# Excel writes a CSV with the separator of its locale: ';' where a comma is the decimal mark (most of Europe), the
# file perhaps begun by a line 'sep=;' saying so
EXCEL_SEPARATOR = re.compile(r"sep=(.)\r?\n?$")
SAMPLE_LINES, SAMPLE_CHARS = 50, 64 * 1024  # of a CSV's first records, read for its delimiter
# A CSV of one column of sentences is read with a delimiter no text holds (the unit separator): its commas separate
# nothing. It is one when under STEADY_TABLE of its records are of as many cells as most, and SPACED_MARKS of its
# commas are followed by a space.
ONE_COLUMN, STEADY_TABLE, SPACED_MARKS = "\x1f", 0.8, 0.8


def _delimiter(name: str, text: str) -> tuple[str, str, int]:
    """(the delimiter, the text from the table's first line, that line's number) of a table file: a TSV's tab; a
    CSV's comma, or the ';' or tab its first line names ('sep=;') or that cuts more of its first records than commas
    into as many cells as most of them. Read with commas, Excel's 'Name;Assignee;Status' was one column and
    '1,5;2,3' three cells, so a file of readings was no data file, and past MAX_ROWS rows it was skipped. Chosen by
    the first line alone, a comma table under a title 'Budget 2024; draft' was read by ';', each row one cell."""
    if name.lower().endswith(".tsv"):
        return "\t", text, 1
    line = text[:text.find("\n") + 1 or len(text)]
    said = EXCEL_SEPARATOR.match(line)
    if said:
        return said.group(1), text[len(line):], 2
    sample = text[:SAMPLE_CHARS]
    sample = sample[:sample.rfind("\n") + 1 or len(sample)]
    mark = max((",", ";", "\t"), key=lambda mark: (_steady(sample, mark), mark == ","))
    return (ONE_COLUMN if _one_column(sample, mark) else mark), text, 1


def _one_column(sample: str, mark: str) -> bool:
    """Whether a CSV is one column of sentences, their commas no separators: its first line holds none, the lines
    below hold them unsteadily (not as many in most), each followed by a space as prose writes it. 'Quotes' above
    'Hello, world' had 'Hello | world' as its column names, the first line a title, each sentence cut at its
    commas."""
    lines = [line for line in sample.splitlines()[:SAMPLE_LINES] if line.strip()]
    if not lines or mark in lines[0] or _steady("\n".join(lines[1:]), mark) >= STEADY_TABLE:
        return False
    marks = sum(line.count(mark) for line in lines)
    return marks > 0 and sum(line.count(mark + " ") for line in lines) >= SPACED_MARKS * marks


def _steady(sample: str, mark: str) -> float:
    """The share of the records ``sample`` holds, read with the delimiter ``mark``, of as many cells as most of them
    (0 if most are of one cell): a quoted cell's own marks, on its line or several, separate nothing."""
    counts: Counter = Counter()
    try:
        for row in itertools.islice(csv.reader(io.StringIO(sample, newline=""), delimiter=mark), SAMPLE_LINES):
            if any(value.strip() for value in row):
                counts[len(row)] += 1
    except csv.Error:  # a cell cut at the sample's end, or past the field limit: what was read
        pass
    usual = max(counts, key=lambda n: (counts[n], n), default=0)
    return counts[usual] / sum(counts.values()) if usual > 1 else 0.0


def _records(text: str, delimiter: str, quoting: int = csv.QUOTE_MINIMAL, first: int = 1):
    """(values, first line, last line) of each record of the table ``text`` whose first line is the file's line
    ``first``, lines counted as the file's (str.splitlines also breaks at U+2028, form feeds … inside a cell). A
    quote opened at a cell's start and never closed ('"so good' in a TSV of tweets) held every line after it: cut to
    CELL_CHARS, or past the csv module's field limit the whole file refused. The rest of the file, from that record
    on, is read with quotes as plain marks. Raises Skip."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=quoting)
    held, start, width, lines = None, 1, 0, None
    try:
        for row in reader:
            if held is not None:
                yield from _unquoted(held, width, lines, delimiter, first)
            width = width or len(row)  # the header's
            held = (row, start + first - 1, max(start, reader.line_num) + first - 1)
            if reader.line_num - start >= 2 and lines is None:  # a cell over three lines or more: perhaps stray
                lines = io.StringIO(text, newline="").readlines()
            start = reader.line_num + 1
    except csv.Error as error:
        if quoting == csv.QUOTE_NONE or "field larger than field limit" not in str(error):
            raise Skip(f"not a readable {'TSV' if delimiter == chr(9) else 'CSV'} table: line "
                       f"{reader.line_num + first - 1}: {error}") from None
        if held is not None:
            yield from _unquoted(held, width, lines, delimiter, first)
    else:
        if held is None:
            return
        if held[2] == held[1] or quoting == csv.QUOTE_NONE or not _unclosed(_from_line(text, held[1] - first + 1),
                                                                           delimiter):
            yield from _unquoted(held, width, lines, delimiter, first)
            return
        start = held[1] - first + 1
    yield from _records(_from_line(text, start), delimiter, csv.QUOTE_NONE, start + first - 1)


def _unquoted(record: tuple, width: int, lines: list[str] | None, delimiter: str, first: int):
    """``record``, or the records its lines are when two stray quotes made it: a record over three lines or more,
    each of them as many cells as the header (three or more: of two, a quoted description of lines of a comma each
    would pass) read with quotes as plain marks ('TV,"55,Big screen' … 'Phone,6",small': the rows between the quotes
    were one cell of one row, a search for 'Monitor' finding a row of TVs)."""
    row, start, end = record
    if end - start < 2 or width < 3 or lines is None:
        yield record
        return
    own = lines[start - first:end - first + 1]
    rows = list(csv.reader(own, delimiter=delimiter, quoting=csv.QUOTE_NONE))
    if len(rows) != len(own) or any(len(cells) != width for cells in rows):
        yield record
        return
    for at, cells in enumerate(rows):
        yield cells, start + at, start + at


def _from_line(text: str, line: int) -> str:
    """``text`` from its line ``line`` (counted as the csv module counts them) on."""
    return "".join(io.StringIO(text, newline="").readlines()[line - 1:])


def _unclosed(text: str, delimiter: str) -> bool:
    """Whether the table ``text`` ends inside a quoted cell."""
    try:
        for _ in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True):
            pass
    except csv.Error as error:
        return "unexpected end of data" in str(error)
    return False


def _columns(header: list[str]) -> str:
    """The column names as a passage's heading: ``' | '`` between, up to the last whole one within COLUMNS_CHARS
    (and ' | …' after it) when they are longer; a single name longer than that is cut."""
    names = SEPARATOR.join(header).strip()
    if len(names) <= COLUMNS_CHARS:
        return names
    cut = names.rfind(SEPARATOR, 0, COLUMNS_CHARS - len(SEPARATOR) - 1)
    return (names[:cut] if cut > 0 else names[:COLUMNS_CHARS - len(SEPARATOR) - 1]) + SEPARATOR + "…"


def _filled(values: list[str]) -> int:
    return sum(bool(value.strip()) for value in values)


def _data(cells: int, data: int, prose: bool) -> bool:
    """Whether a table of ``cells`` non-empty cells, ``data`` of them numbers, dates or times, is a data file."""
    return not prose and data >= DATA_SHARE * cells > 0
