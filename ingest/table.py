"""CSV and TSV files: a passage per row, each value under its column's name.

A Notion database is exported as CSV beside its pages (``Tasks 1a2b….csv``, and ``Tasks 1a2b…_all.csv`` with every
row); a team's task list, a reading list or a contact sheet is often one too. A row reads as
``Assignee: Lin Wei`` lines, so 'tasks for Lin' finds it; its passage is headed by its first value (the row's
name in Notion) and sits at the file's lines that hold it. A table of more than MAX_ROWS rows is a data set, not
notes: it is skipped with the reason (as many passages to embed would take the worker hours).
"""
from __future__ import annotations

import csv
import io
import re

from ingest.document import Document, Section, Skip, title_from_name

MAX_ROWS = 10_000
# Notion writes a relation to a page as its title and its path: 'Billing migration (Projects%20…/Billing%20….md)'
RELATION = re.compile(r" \([^()\s]+\.(?:md|csv)\)(?=,|$)")
CELL_CHARS = 2_000  # of a value kept in its row's passage
def parse_table(path: str, text: str) -> Document:
    name = path.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    delimiter = "\t" if name.lower().endswith(".tsv") else ","
    # lines as the file's are counted (str.splitlines also breaks at U+2028, form feeds … inside a cell)
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""), delimiter=delimiter)
    try:
        header = [" ".join(cell.split()) for cell in next(reader, [])]
        sections, start = [], reader.line_num + 1
        for row in reader:
            if len(sections) >= MAX_ROWS:
                raise Skip(f"a table of more than {MAX_ROWS:,} rows: a data set, not notes (Sift reads "
                           f"{MAX_ROWS:,} at most)")
            section = _row(header, row, start, reader.line_num)
            if section is not None:
                sections.append(section)
            start = reader.line_num + 1
    except csv.Error as error:
        raise Skip(f"not a readable {'TSV' if delimiter == chr(9) else 'CSV'} table: line {reader.line_num}: "
                   f"{error}") from None
    return Document(kind="text", title=title_from_name(stem), sections=sections)


def _row(header: list[str], row: list[str], first: int, last: int) -> Section | None:
    values = [RELATION.sub("", " ".join(value.split()))[:CELL_CHARS] for value in row]
    if not any(values):
        return None
    names = header + [""] * (len(values) - len(header))
    text = "\n".join(f"{name}: {value}" if name else value for name, value in zip(names, values) if value)
    head = next(value for value in values if value)
    return Section(text=text, heading_path=[head[:200]], start_line=first, end_line=max(first, last))
