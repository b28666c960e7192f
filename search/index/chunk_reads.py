"""Reads of chunks (passages): their count, the published ones, a search hit's row, their lines and PDF
headings, and a file's or a chunk's passages for similar and read_file."""
from __future__ import annotations

import sqlite3

from search.index.catalog_reads import passage_dates_kept
from search.index.collection_reads import VISIBLE
from search.index.file_reads import DATA_ROWS
from search.index.schema import version


def chunk_count(conn: sqlite3.Connection) -> int:
    """Every chunk row, published or not (what keyword search weighs a term's commonness against)."""
    return conn.execute("SELECT count(*) FROM chunks").fetchone()[0]


def newest_chunk(conn: sqlite3.Connection) -> int:
    """The highest chunk id ever given out (it never goes down, even when that chunk is deleted)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").fetchone() \
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone() else None
    if row is not None:
        return row[0]
    return conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0]  # before schema V5


def visible_chunks(conn: sqlite3.Connection, collection: str | None = None) -> list[sqlite3.Row]:
    """The published chunks (every column, with ``collection``, ``generation`` and ``path``), from one snapshot,
    by collection, path and place in the file."""
    from search.index.db import snapshot
    sql = (f"SELECT c.name AS collection, c.published AS generation, f.path, ch.* FROM chunks ch "
           f"JOIN files f ON f.id = ch.file JOIN collections c ON c.id = f.collection WHERE {VISIBLE}"
           + (" AND c.name = ?" if collection else "") + " ORDER BY c.name, f.path, ch.ordinal")
    with snapshot(conn):
        return conn.execute(sql, (collection,) if collection else ()).fetchall()


# The number printed on a page of a PDF (its page label), where the parser recorded labels (ingest.pdf).
_PAGE_LABEL = ("CASE WHEN {page} IS NOT NULL AND f.kind = 'pdf' AND json_valid(f.meta) "
               "THEN json_extract(f.meta, '$.page_labels[' || ({page} - 1) || ']') END")


# The file's author, of any kind whose reader records one (a PDF's metadata, a note's front matter or Logseq page):
# a note's was searched (the title column holds it) but not shown, so a search for 'Anna' found her note with no word
# of why. The LIKE passes over most files' meta without parsing it.
AUTHOR = ("CASE WHEN f.meta LIKE '%\"author\"%' AND json_valid(f.meta) "
           "AND json_type(f.meta, '$.author') = 'text' THEN json_extract(f.meta, '$.author') END")


def hit_rows(conn: sqlite3.Connection, ids: list[int]) -> list[sqlite3.Row]:
    """What a search result shows of each chunk in ``ids``: the chunk, its file and collection (any order); of a
    PDF passage over more than one page, where each page starts in it and the file's page labels (JSON), which
    give the pages its snippet shows; the file's author, or NULL: a PDF's metadata's (``ingest.pdf``), a note's
    front matter ``author:`` or Logseq ``author::`` (``ingest.markdown``, ``ingest.logseq``); of a data file, its rows
    and the passage's (DATA_ROWS)."""
    marks = ",".join("?" * len(ids))
    starts = "ch.page_starts" if version(conn) >= 13 else "NULL AS page_starts"
    dated = "ch.dated" if passage_dates_kept(conn) else "NULL AS dated"
    return conn.execute(
        f"SELECT ch.id, ch.heading_path, ch.start_line, ch.end_line, ch.page, ch.end_page, {starts}, {dated}, ch.text, "
        f"f.id AS file_id, f.collection AS collection_id, f.path, f.title, f.kind, f.mtime, "
        f"c.name AS collection, c.published, "
        f"{_PAGE_LABEL.format(page='ch.page')} AS page_label, "
        f"{_PAGE_LABEL.format(page='ch.end_page')} AS end_page_label, "
        f"{AUTHOR} AS author, "
        f"{DATA_ROWS.format(f='f.', text='ch.text')}, "
        f"CASE WHEN f.kind = 'pdf' AND ch.page IS NOT NULL AND ch.end_page > ch.page AND json_valid(f.meta) "
        f"THEN json_extract(f.meta, '$.page_labels') END AS page_labels FROM chunks ch "
        f"JOIN files f ON f.id = ch.file JOIN collections c ON c.id = f.collection WHERE ch.id IN ({marks})",
        ids).fetchall()


def chunk_lines(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, int | None, int | None]]:
    """(id, start line, end line) of each chunk in ``ids`` (any order): where a passage is, without its text."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    plain = conn.cursor()
    plain.row_factory = None
    return plain.execute(f"SELECT id, start_line, end_line FROM chunks WHERE id IN ({marks})", ids).fetchall()


def headings(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    """The heading path of each chunk in ``ids``, without its text: what code search reads of passages it only
    names (their text, read for every one, took a short query 2 to 6 ms more)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    plain = conn.cursor()
    plain.row_factory = None
    return dict(plain.execute(f"SELECT id, heading_path FROM chunks WHERE id IN ({marks})", ids).fetchall())


def pdf_headings(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    """The heading path of each PDF passage among ``ids`` that has one."""
    marks = ",".join("?" * len(ids))
    return dict(conn.execute(f"SELECT ch.id, ch.heading_path FROM chunks ch JOIN files f ON f.id = ch.file "
                             f"WHERE ch.id IN ({marks}) AND f.kind = 'pdf' AND ch.heading_path != ''", ids).fetchall())


def visible_chunk_file(conn: sqlite3.Connection, chunk_id: int) -> tuple[int, str, str] | None:
    """(file id, collection, path relative to its root) of a published chunk; None if it is not published."""
    row = conn.execute(f"SELECT ch.file, c.name, f.path FROM chunks ch JOIN files f ON f.id = ch.file "
                       f"JOIN collections c ON c.id = f.collection WHERE ch.id = ? AND {VISIBLE}",
                       (chunk_id,)).fetchone()
    return (row[0], row[1], row[2]) if row is not None else None


def message_chunks(conn: sqlite3.Connection, file_id: int, chunk_id: int) -> tuple[str, list[int], bool] | None:
    """(its heading, the ids of the chunks under it, whether it is a note) of the message ``chunk_id`` is a passage
    of, in a mailbox of several messages (ingest.mail: each headed by its Subject; a thread's replies share it), a
    chat of several (ingest.chat: a day each) or an Evernote export of several notes (ingest.enex: each headed by
    its title); None for another file."""
    row = conn.execute("SELECT ch.heading_path, CASE WHEN json_valid(f.meta) THEN json_extract(f.meta, '$.messages') "
                       "END, CASE WHEN json_valid(f.meta) THEN json_extract(f.meta, '$.notes') END "
                       "FROM chunks ch JOIN files f ON f.id = ch.file WHERE ch.id = ? AND f.id = ?",
                       (chunk_id, file_id)).fetchone()
    several = [count for count in (row[1], row[2]) if isinstance(count, int) and count >= 2] if row else []
    if row is None or not row[0] or not several:
        return None
    return row[0], [r[0] for r in conn.execute("SELECT id FROM chunks WHERE file = ? AND heading_path = ?",
                                               (file_id, row[0]))], row[1] is None


def visible_path_chunks(conn: sqlite3.Connection, collection: str, path: str) -> list[int]:
    """The ids of the published chunks of one file."""
    rows = conn.execute(f"SELECT ch.id FROM chunks ch JOIN files f ON f.id = ch.file "
                        f"JOIN collections c ON c.id = f.collection WHERE c.name = ? AND f.path = ? AND {VISIBLE}",
                        (collection, path)).fetchall()
    return [r[0] for r in rows]


def file_chunk_ids(conn: sqlite3.Connection, file_id: int) -> list[int]:
    """The ids of every chunk of one file version."""
    return [r[0] for r in conn.execute("SELECT id FROM chunks WHERE file = ?", (file_id,))]


def file_chunks(conn: sqlite3.Connection, file_id: int) -> list[sqlite3.Row]:
    """The ordinal, heading path, first line, pages (with where each page starts in the text) and text of each chunk
    of one file version, in order. An index a reader opened without migrating it (before V13) knows no page starts."""
    starts = "page_starts" if version(conn) >= 13 else "NULL AS page_starts"
    return conn.execute(f"SELECT ordinal, heading_path, start_line, page, end_page, {starts}, text FROM chunks "
                        "WHERE file = ? "
                        "ORDER BY ordinal", (file_id,)).fetchall()


def stored_passages(conn: sqlite3.Connection, file_id: int) -> list[sqlite3.Row]:
    """The ordinal, heading path, text and text hash of each chunk of one file version, in order: what a freed note's
    passages are embedded again from (workers.freed_passages), its bytes not being on this disk."""
    return conn.execute("SELECT ordinal, heading_path, text, tokens, text_hash FROM chunks WHERE file = ? "
                        "ORDER BY ordinal", (file_id,)).fetchall()
