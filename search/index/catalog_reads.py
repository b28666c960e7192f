"""What the search catalog (search.query.catalog) loads of the published index: its files and chunks, and the
dates the passages are about."""
from __future__ import annotations

import sqlite3

from search.index.collection_reads import VISIBLE
from search.index.schema import version


def catalog_files(conn: sqlite3.Connection) -> list[tuple]:
    """(file id, collection, path, kind, mtime) of every published file, by id, as tuples (a third of the time
    of sqlite3.Row for 50k files)."""
    plain = conn.cursor()
    plain.row_factory = None
    return plain.execute(f"SELECT f.id, c.name, f.path, f.kind, f.mtime FROM files f "
                         f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE} ORDER BY f.id").fetchall()


def catalog_chunks(conn: sqlite3.Connection) -> tuple[str | None, str | None]:
    """The published chunks as two comma-separated lists (fast at 100k chunks): their ids, ascending, and the
    file of each (None, None: no chunk)."""
    return tuple(conn.execute(
        f"SELECT group_concat(id), group_concat(file) FROM (SELECT ch.id, ch.file FROM chunks ch "
        f"JOIN files f ON f.id = ch.file JOIN collections c ON c.id = f.collection "
        f"WHERE {VISIBLE} ORDER BY ch.id)").fetchone())


def passage_dates_kept(conn: sqlite3.Connection) -> bool:
    """Whether the index keeps the date each passage is about (chunks.dated, V20): a reader opens an index without
    migrating it, and one an older Sift wrote has none (its passages go by their file's mtime)."""
    return version(conn) >= 20


def any_dated(conn: sqlite3.Connection) -> bool:
    """Whether any passage of the index has a date of its own (from the index of dated chunks alone: one row)."""
    return passage_dates_kept(conn) and conn.execute(
        "SELECT 1 FROM chunks INDEXED BY chunks_dated WHERE dated IS NOT NULL LIMIT 1").fetchone() is not None


def catalog_dates(conn: sqlite3.Connection) -> tuple[str | None, str | None]:
    """The chunks that have a date of their own (``passage_dates_kept``), published or not (a chunk's date never
    changes: the catalog keeps those of its chunks), as two comma-separated lists: their ids and their dates (whole
    seconds since 1970), from the index of dated chunks alone; (None, None): none. Read with the files joined and as
    REAL, the dates of 200,000 passages took 250-400 ms, against 0.7 s for the rest of the catalog."""
    if not passage_dates_kept(conn):
        return None, None
    return tuple(conn.execute("SELECT group_concat(id), group_concat(CAST(dated AS INTEGER)) FROM chunks "
                              "INDEXED BY chunks_dated WHERE dated IS NOT NULL").fetchone())
