"""Reads of links: the PDFs a note links to, a collection's PDFs, and the files that link to a target."""
from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Iterable

from search.index.collection_reads import VISIBLE


def linked_pdfs(conn: sqlite3.Connection, file_id: int, limit: int = -1) -> tuple[list[str], int]:
    """(the first ``limit`` PDFs, by path, that one file version links to, how many it links to in all)."""
    rows = conn.execute("SELECT target, COUNT(*) OVER () FROM links WHERE file = ? "
                        "AND lower(substr(target, -4)) = '.pdf' ORDER BY target LIMIT ?", (file_id, limit)).fetchall()
    return [r[0] for r in rows], rows[0][1] if rows else 0


def pdf_paths(conn: sqlite3.Connection, collection_id: int) -> list[tuple[str, bool]]:
    """(path, indexed?) of the collection's PDFs as published: the PDFs indexed and the attachments of published
    notes (a PDF whose same-stem note stands for it is not indexed itself), then those its published generation
    failed or skipped."""
    rows = conn.execute(
        "SELECT f.path, 1 FROM files f JOIN collections c ON c.id = f.collection WHERE f.collection = ? "
        f"AND {VISIBLE} AND f.kind = 'pdf' "
        "UNION SELECT a.value, 1 FROM files f JOIN collections c ON c.id = f.collection "
        "JOIN json_each(f.meta, '$.attachments') a "
        f"WHERE f.collection = ? AND {VISIBLE} AND f.kind = 'note' AND f.meta LIKE '%\"attachments\"%' "
        "AND json_valid(f.meta) "
        "UNION SELECT p.path, 0 FROM progress p INDEXED BY progress_trouble JOIN collections c "
        "ON c.id = ? AND p.generation = c.published WHERE p.state IN ('failed', 'skipped') "
        "AND lower(substr(p.path, -4)) = '.pdf'",
        (collection_id, collection_id, collection_id)).fetchall()
    return [(r[0], bool(r[1])) for r in rows]


def link_targets(conn: sqlite3.Connection, firsts: Iterable[str]) -> list[str]:
    """Every target a file of any collection or version links to that starts with one of the characters
    ``firsts``, once each (ranges of the targets' index)."""
    firsts = sorted(set(firsts))
    if not firsts:
        return []
    ranges = " UNION ".join(["SELECT target FROM links WHERE target >= ? AND target < ?"] * len(firsts))
    return [r[0] for r in conn.execute(ranges, [bound for c in firsts for bound in (c, chr(ord(c) + 1))])]


def linking_files(conn: sqlite3.Connection, collection_id: int, targets: tuple[str, ...], limit: int = -1,
                  besides: str | None = None) -> tuple[list[str], int]:
    """(the first ``limit`` published files of the collection, by path, that link to any of ``targets``,
    how many there are in all), the file at path ``besides`` left out of both."""
    marks = ", ".join("?" * len(targets))
    rows = conn.execute(
        f"SELECT path, COUNT(*) OVER () FROM (SELECT DISTINCT f.path FROM links l JOIN files f ON f.id = l.file "
        f"JOIN collections c ON c.id = f.collection WHERE l.target IN ({marks}) AND f.collection = ? "
        f"AND f.path IS NOT ? AND {VISIBLE}) ORDER BY path LIMIT ?",
        (*targets, collection_id, besides, limit)).fetchall()
    return [r[0] for r in rows], rows[0][1] if rows else 0


def linking_files_any_case(conn: sqlite3.Connection, collection_id: int, names: Iterable[str], limit: int = -1,
                           besides: str | None = None) -> tuple[list[str], int]:
    """As ``linking_files``, for the targets that are one of ``names`` in any case and either Unicode normal form
    (``folded_name``), as Obsidian reads a link ([[garden shed]] is a link to Garden Shed.md, [[paper.PDF]] to
    paper.pdf): the index keeps the targets as written; those starting with a name's first character in either
    case and either normal form are looked at (a letter's other case may be two characters, 'İ' lowered 'i̇', 'ß'
    raised 'SS': the first of them)."""
    names = [name for name in names if name]
    folded = {folded_name(name) for name in names}
    firsts = {form[0] for name in names
              for spelled in (unicodedata.normalize("NFC", name), unicodedata.normalize("NFD", name))
              for form in (spelled[0], spelled[0].lower(), spelled[0].upper(), spelled[0].casefold())}
    targets = tuple(t for t in link_targets(conn, firsts) if folded_name(t) in folded)
    if not targets:
        return [], 0
    return linking_files(conn, collection_id, targets, limit, besides)


def folded_name(name: str) -> str:
    """A link's or a note's name as Obsidian compares them: in any case and either Unicode normal form (a file macOS
    named in NFD, 'Café.md', and a link typed in NFC, [[Café]])."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
