"""Anki's plain-text export of notes (flashcards): a card a row, its fields ``' | '`` between, packed into passages
under the deck's name and its fields' names as a table's rows are (ingest.chunk.packed_rows).

Anki writes its header lines first (``#separator:tab``, ``#html:true``, ``#columns:Front	Back``, ``#tags column:3``,
``#deck column:…``, ``#guid column:…``), then a card a line; an export of Anki before 2.1.55 has no header, its lines
a card's fields between tabs. Read before as a .txt's one text (every card of a deck in one passage, its tags and
Anki's ids among the words) or, named .csv, as a table whose first card was taken for the column names, heading every
passage. Now each card is a row: its HTML as text (a cloze ``{{c1::Bayes::name}}`` as ``Bayes``), its tags the file's
tags (not its text), Anki's guid, note type and deck columns left out.
"""
from __future__ import annotations

import html
import re

from ingest.document import Document, Section, title_from_name

HEADER = re.compile(r"#(separator|html|tags column|columns|notetype column|deck column|guid column|notetype|deck"
                    r"|if matches):(.*)")
SEPARATORS = {"tab": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " ", "colon": ":"}
LEFT_OUT = ("guid column", "notetype column", "deck column")  # Anki's own columns: no card's words
TAG = re.compile(r"<br\s*/?>|</(?:div|p|li)>", re.IGNORECASE)
MARKUP = re.compile(r"<[^<>]{0,500}>|\[sound:[^\]]*\]")
CLOZE = re.compile(r"\{\{c\d+::(.*?)(?:::[^{}]*)?\}\}")
STEADY_LINES = 2  # an export without a header: at least so many lines, every one of as many tabs (one or two)


def is_anki_export(text: str, plain: bool) -> bool:
    """Whether ``text`` is Anki's export of notes: its header lines (``#separator:tab`` …), or, for a .txt
    (``plain``), lines all of one or two tabs, most fronts holding a letter (an older export, or a deck's cards
    written so)."""
    head = text.lstrip("\ufeff")
    if HEADER.match(head):
        return True
    if not plain:
        return False
    lines = [line for line in head.split("\n") if line.strip()]
    tabs = {line.count("\t") for line in lines}
    if len(lines) < STEADY_LINES or len(tabs) != 1 or not tabs <= {1, 2}:
        return False
    worded = sum(any(mark.isalpha() for mark in line.split("\t", 1)[0]) for line in lines)
    return worded * 2 >= len(lines)  # cards say something: a file of readings ('2024-03-01 09:00\t21.5') stays text


def parse_flashcards(path: str, text: str) -> Document:
    lines = text.lstrip("\ufeff").split("\n")
    settings, first = {}, 0
    while first < len(lines) and (named := HEADER.fullmatch(lines[first].rstrip("\r"))):
        settings[named.group(1)] = named.group(2).strip()
        first += 1
    mark = SEPARATORS.get(settings.get("separator", "tab"), settings.get("separator", "\t")[:1] or "\t")
    marked = settings.get("html", "true" if first else "false") == "true"
    position = {name: int(settings[name]) - 1 for name in ("tags column", *LEFT_OUT)
                if settings.get(name, "").isdigit()}
    names = settings["columns"].split(mark) if settings.get("columns") else []
    sections, tags = [], {}
    for at in range(first, len(lines)):
        fields = lines[at].rstrip("\r").split(mark)
        if not any(field.strip() for field in fields):
            continue
        if "tags column" in position and position["tags column"] < len(fields):
            tags.update(dict.fromkeys(fields[position["tags column"]].split()))
        kept = [_text(field, marked) for n, field in enumerate(fields) if n not in position.values()]
        row = " | ".join(field for field in kept if field)
        if row:
            sections.append(Section(text=row, start_line=at + 1, end_line=at + 1))
    kept_names = [name for n, name in enumerate(names) if n not in position.values()]
    meta = {"columns": " | ".join(kept_names) if kept_names else "Front | Back"}
    if tags:
        meta["tags"] = list(tags)
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return Document(kind="text", title=title_from_name(stem), sections=sections, meta=meta)


def _text(field: str, marked: bool) -> str:
    if field.startswith('"') and field.endswith('"') and len(field) > 1:
        field = field[1:-1].replace('""', '"')
    field = CLOZE.sub(r"\1", field)
    if marked:
        field = html.unescape(MARKUP.sub("", TAG.sub(" ", field)))
    return " ".join(field.split())
