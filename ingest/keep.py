"""Google Keep's notes as Google Takeout exports them: ``Takeout/Keep/<title>.json`` a note (``title``, ``textContent``
or a checklist's ``listContent``, ``labels``, ``createdTimestampUsec``, ``userEditedTimestampUsec``, ``isTrashed``,
``isArchived``, ``annotations``: its links, ``attachments``), beside a ``<title>.html`` of the same note. The JSON
was read as code, by its lines of JSON, and the HTML as a page: each note twice, neither as a note.

The JSON is read as a note: titled by its title (else its text's first line, else its file's name), its text or its
checklist (``[x] Buy milk``, ``[ ] Call Bo``) headed by when it was created (as ingest.enex writes it), its labels
(``Labels: recipes``; they are its tags too: ``#recipes`` finds it) and whether it is archived, then the links it
holds and the attachments it names. Its passage is dated by its creation (ingest.passage_dates). A note in Keep's
trash is not indexed (``Skip``: it was deleted), and the ``.html`` of a note's stem beside its JSON is not either: the
JSON stands for it, as a slide deck stands for the PDF of its stem (``html_beside``).
"""
from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

from ingest.document import Document, Section, Skip, title_from_name
from ingest.enex import written
from ingest.passage_dates import moment

# what a Keep note's JSON holds, two of them at least (and nothing more is looked at in a file without them)
MARKS = ("createdTimestampUsec", "userEditedTimestampUsec")
TEXT_KEYS = ("textContent", "listContent", "title")
CHECKBOX = re.compile(r"^\[[x ]\] ")
HEAD_BYTES = 1 << 16  # of a .json beside an .html, what is looked at to tell a Keep note
TITLE_CHARS = 1000  # of a title, what heads its passage (Keep allows 1,000)


def is_keep_note(text: str) -> bool:
    """Whether a .json file's text is a Google Keep note (Takeout's): an object with its timestamps and its text."""
    if not any(mark in text[:HEAD_BYTES * 4] for mark in MARKS):
        return False
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and any(mark in value for mark in MARKS) and any(key in value for key in TEXT_KEYS)


def parse_keep(path: str, text: str) -> Document:
    note = json.loads(text)
    if note.get("isTrashed") is True:
        raise Skip("a Google Keep note in Keep's trash (isTrashed): deleted there")
    body = _text(note)
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    title = " ".join(str(note.get("title") or "")[:TITLE_CHARS].split()) or next(
        (CHECKBOX.sub("", " ".join(line.split())) for line in body.split("\n") if line.strip()), "")[:100] \
        or title_from_name(stem)
    created, edited = _when(note.get("createdTimestampUsec")), _when(note.get("userEditedTimestampUsec"))
    head = []
    if created is not None:
        head.append(f"Created: {written(created)}")
    if edited is not None and (created is None or abs((edited - created).total_seconds()) >= 60):
        head.append(f"Edited: {written(edited)}")
    labels = [" ".join(str(label.get("name", "")).split()) for label in note.get("labels") or []
              if isinstance(label, dict)]
    labels = [label for label in dict.fromkeys(labels) if label]
    if labels:
        head.append("Labels: " + ", ".join(labels))
    if note.get("isArchived") is True:
        head.append("Archived in Google Keep")
    links = [_link(item) for item in note.get("annotations") or [] if isinstance(item, dict) and item.get("url")]
    attached = [str(item.get("filePath")) for item in note.get("attachments") or []
                if isinstance(item, dict) and item.get("filePath")]
    tail = (["Links: " + "; ".join(links)] if links else []) + (["Attachments: " + "; ".join(attached)]
                                                                if attached else [])
    text_ = "\n\n".join(part for part in ("\n".join(head), body, "\n".join(tail)) if part)
    lines = text.count("\n") + (not text.endswith("\n"))
    sections = [Section(text=text_, heading_path=[title], start_line=1, end_line=max(1, lines),
                        dated=moment(created))] if body or links or attached else []
    meta = {"tags": labels} if labels else {}
    return Document(kind="note", title=title, sections=sections, meta=meta)


def _text(note: dict) -> str:
    """A note's text, or its checklist an item a line ('[x] Buy milk')."""
    if isinstance(note.get("listContent"), list):
        return "\n".join(f"[{'x' if item.get('isChecked') else ' '}] {' '.join(str(item.get('text', '')).split())}"
                         for item in note["listContent"] if isinstance(item, dict) and str(item.get("text", "")).strip())
    return str(note.get("textContent") or "").replace("\r\n", "\n").strip()


def _link(item: dict) -> str:
    said = " ".join(str(item.get("title") or "").split())
    return f"{said} <{item['url']}>" if said else str(item["url"])


def _when(usec) -> datetime | None:
    """A Keep timestamp (microseconds since 1970, a number or its digits) as a datetime; None for none."""
    try:
        return datetime.fromtimestamp(int(usec) / 1_000_000, tz=timezone.utc) if usec else None
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def html_beside(full: Path) -> str | None:
    """The name of the Keep note's JSON beside an .html of its stem, which stands for it; None for another file."""
    if full.suffix.lower() not in (".html", ".htm"):
        return None
    twin = full.with_suffix(".json")
    try:
        with open(twin, "rb") as handle:
            head = handle.read(HEAD_BYTES).decode("utf-8", "ignore")
    except OSError:
        return None
    return twin.name if MARKS[0] in head and os.path.isfile(twin) else None
