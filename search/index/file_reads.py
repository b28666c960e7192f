"""Reads of files: the published files by collection, name or folder, a file version with what of it is not
indexed (its meta's gaps, a data file's rows), a mail thread's files, the files of the generation being built
(``current_files``) and the outcomes remembered of those skipped or failed."""
from __future__ import annotations

import json
import sqlite3

from search.index.collection_reads import VISIBLE
from search.index.remembered import AWAY, Basis, Outcome


def visible_files(conn: sqlite3.Connection, collection: str | None = None) -> list[sqlite3.Row]:
    """The published files (``collection`` and every column of files), from one snapshot, by collection and path."""
    from search.index.db import snapshot
    sql = (f"SELECT c.name AS collection, f.* FROM files f JOIN collections c ON c.id = f.collection "
           f"WHERE {VISIBLE}" + (" AND c.name = ?" if collection else "") + " ORDER BY c.name, f.path")
    with snapshot(conn):
        return conn.execute(sql, (collection,) if collection else ()).fetchall()


def newest_files(conn: sqlite3.Connection, after: tuple[float, str, str] | None, limit: int) -> list[sqlite3.Row]:
    """The first ``limit`` published files of every collection, newest first (by mtime, then collection name and
    path), after the position ``after`` (mtime, collection name, path) in that order: ``collection``, ``path``,
    ``kind``, ``size`` and ``mtime``. A position, not an offset: a file published meanwhile takes no place of one
    not yet listed."""
    since = "AND (f.mtime < :mtime OR f.mtime = :mtime AND (c.name, f.path) > (:name, :path)) " if after else ""
    mtime, name, path = after or (None, None, None)
    return conn.execute(f"SELECT c.name AS collection, f.path, f.kind, f.size, f.mtime FROM files f "
                        f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE} {since}"
                        "ORDER BY f.mtime DESC, c.name, f.path LIMIT :limit",
                        {"mtime": mtime, "name": name, "path": path, "limit": limit}).fetchall()


def visible_file(conn: sqlite3.Connection, collection: str, path: str) -> sqlite3.Row | None:
    """The published version of one file (every column of files, and its collection's ``published``)."""
    return conn.execute(f"SELECT f.*, c.published FROM files f JOIN collections c ON c.id = f.collection "
                        f"WHERE c.name = ? AND f.path = ? AND {VISIBLE}", (collection, path)).fetchone()


def visible_by_name(conn: sqlite3.Connection, name: str) -> list[tuple[str, str]]:
    """(collection, path) of every published file whose file name is ``name``."""
    rows = conn.execute(f"SELECT c.name, f.path FROM files f JOIN collections c ON c.id = f.collection "
                        f"WHERE {VISIBLE} AND (f.path = ? OR substr(f.path, -length(?) - 1) = '/' || ?)",
                        (name, name, name)).fetchall()
    return [(r[0], r[1]) for r in rows]


def visible_notes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(collection, path) of every published note."""
    rows = conn.execute(f"SELECT c.name, f.path FROM files f JOIN collections c ON c.id = f.collection "
                        f"WHERE {VISIBLE} AND f.kind = 'note'").fetchall()
    return [(r[0], r[1]) for r in rows]


def visible_note_aliases(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """(collection, path, meta JSON) of every published note whose meta holds aliases (front matter's, Logseq's
    'alias::', org-roam's): read_file finds a page by one."""
    rows = conn.execute(f"SELECT c.name, f.path, f.meta FROM files f JOIN collections c ON c.id = f.collection "
                        f"WHERE {VISIBLE} AND f.kind = 'note' AND f.meta LIKE '%\"aliases\"%'").fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def visible_folders(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(collection, folder) of every folder that holds a published file: '' for the root, else 'a/b/'."""
    rows = conn.execute(f"SELECT DISTINCT c.name, rtrim(f.path, replace(f.path, '/', '')) FROM files f "
                        f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE}").fetchall()
    return [(r[0], r[1]) for r in rows]


# What a file's meta says of what is not indexed: what of a file cut short was read (a PDF's, a deck's of its slides
# not readable, a mailbox's; an Evernote export's is export_cut), and how many of a PDF's pages have no text, of how
# many, and which.
_PDF_GAPS = ", ".join(f"CASE WHEN kind = 'pdf' AND json_valid(meta) THEN json_extract(meta, '$.{key}') END AS {key}"
                      for key in ("pages_without_text", "pages", "textless_pages")) + \
    (", CASE WHEN meta LIKE '%\"cut_short\"%' AND json_valid(meta) AND NOT (kind = 'note' AND path LIKE '%.enex') "
     "THEN json_extract(meta, '$.cut_short') END AS cut_short")
# A data file's (ingest.table: its first passage alone indexed): whether it is one, its rows, whether it was read to
# its end, and the rows of a passage ({text}: one a line), for list_files and a search hit to say how few are searched
# A JSON data set (ingest.data_sets: kind code, its first lines alone indexed) is one too: its records are its rows,
# and how many of them its first lines hold is in its meta (rows_indexed), not a line each.
_DATA_FILE = ("{f}kind IN ('text', 'code') AND {f}meta LIKE '%\"data\": true%' AND json_valid({f}meta) "
              "AND json_extract({f}meta, '$.data') = 1")
DATA_ROWS = (f"CASE WHEN {_DATA_FILE} THEN 1 END AS data_file, "
              f"CASE WHEN {_DATA_FILE} THEN json_extract({{f}}meta, '$.rows') END AS rows, "
              f"CASE WHEN {_DATA_FILE} THEN json_extract({{f}}meta, '$.more_rows') END AS more_rows, "
              f"CASE WHEN {_DATA_FILE} THEN coalesce(json_extract({{f}}meta, '$.rows_indexed'), "
              f"length({{text}}) - length(replace({{text}}, char(10), '')) + 1) END "
              "AS rows_indexed")
_FIRST_PASSAGE = "(SELECT ch.text FROM chunks ch WHERE ch.file = files.id ORDER BY ch.ordinal LIMIT 1)"
# A workbook of several sheets' data sheets (ingest.xlsx: each indexed by its first passage), [[sheet, rows, whether
# it was read to its end], …] (JSON), for list_files to say how few of their rows are searched
_SHEET_ROWS = ("CASE WHEN kind = 'text' AND meta LIKE '%\"sheet_rows\"%' AND json_valid(meta) "
               "THEN json_extract(meta, '$.sheet_rows') END AS sheet_rows")
# An Evernote export's (ingest.enex): how many notes it holds, and what of it was read when it was cut short
_EXPORT_NOTES = ("CASE WHEN kind = 'note' AND path LIKE '%.enex' AND json_valid(meta) "
                 "THEN json_extract(meta, '$.notes') END AS export_notes, "
                 "CASE WHEN kind = 'note' AND path LIKE '%.enex' AND json_valid(meta) "
                 "THEN json_extract(meta, '$.cut_short') END AS export_cut")
# A chat export's days and messages, and what export it is (ingest.chat), for list_files to say so
_CHAT_DAYS = ", ".join(f"CASE WHEN kind = 'note' AND meta LIKE '%\"chat_export\"%' AND json_valid(meta) "
                       f"THEN json_extract(meta, '$.{key}') END AS {name}"
                       for key, name in (("chat_export", "chat_export"), ("days", "chat_days"),
                                         ("messages", "chat_messages"), ("first_day", "chat_first_day")))
# A mail's or mailbox's attachments not read (ingest.mail: encrypted, over a bound): how many, and the first with why
# (JSON), for list_files to say so
_MAIL_GAPS = ", ".join(f"CASE WHEN kind = 'note' AND meta LIKE '%\"attachments_not_read\"%' AND json_valid(meta) "
                       f"THEN json_extract(meta, '$.{key}') END AS {key}"
                       for key in ("attachments_not_read", "attachments_not_read_why"))
# A mailbox's messages or an Evernote export's notes not readable (ingest.mail, ingest.enex: a message with no header,
# a note whose text failed): how many, of how many messages, and the first few with why (JSON), for list_files to say
_UNREADABLE = ", ".join(f"CASE WHEN kind = 'note' AND meta LIKE '%\"unreadable_%' AND json_valid(meta) "
                        f"THEN json_extract(meta, '$.{key}') END AS {name}"
                        for key, name in (("unreadable_notes", "unreadable_notes"),
                                          ("unreadable_messages", "unreadable_messages"),
                                          ("unreadable_why", "unreadable_why"), ("messages", "mail_messages")))


def mail_thread_of(conn: sqlite3.Connection, file_ids: list[int]) -> dict[int, tuple[str, str | None]]:
    """file version id -> (its thread's key, its Message-ID) of those of ``file_ids`` that are saved messages of a
    thread (ingest.mail.thread_meta)."""
    marks = ",".join("?" * len(file_ids))
    return {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT id, json_extract(meta, '$.mail_thread'), json_extract(meta, '$.message_id') FROM files "
        f"WHERE id IN ({marks}) AND meta LIKE '%\"mail_thread\"%' AND json_valid(meta)", file_ids)
        if r[1] is not None}


def mail_thread_files(conn: sqlite3.Connection, collection_id: int, keys: list[str], limit: int
                      ) -> list[sqlite3.Row]:
    """The published saved messages of a collection whose thread's key or Message-ID is one of ``keys``
    (ingest.mail.thread_meta): path, title, thread, message_id, date, by the time sent (ingest.mail.sent_time; a
    file indexed before it was kept, by its day) then path; at most ``limit``. Their meta alone is read (a LIKE
    narrows it to the files that have a thread), no file."""
    marks = ",".join("?" * len(keys))
    return conn.execute(
        "SELECT path, title, thread, message_id, date FROM (SELECT f.path, f.title, "
        "json_extract(f.meta, '$.mail_thread') AS thread, json_extract(f.meta, '$.message_id') AS message_id, "
        "json_extract(f.meta, '$.date') AS date, json_extract(f.meta, '$.mail_time') AS sent "
        "FROM files f JOIN collections c ON c.id = f.collection "
        f"WHERE f.collection = ? AND {VISIBLE} AND f.meta LIKE '%\"mail_thread\"%' AND json_valid(f.meta)) "
        f"WHERE thread IN ({marks}) OR message_id IN ({marks}) ORDER BY coalesce(sent, date, ''), path LIMIT ?",
        (collection_id, *keys, *keys, limit)).fetchall()


def first_passages(conn: sqlite3.Connection, file_id: int) -> list[tuple[str, str]]:
    """(heading path, text) of the first passage under each heading path of a file: a workbook's sheet's first."""
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT heading_path, text FROM chunks WHERE file = ? AND ordinal IN "
        "(SELECT min(ordinal) FROM chunks WHERE file = ? GROUP BY heading_path) ORDER BY ordinal",
        (file_id, file_id))]


def file_version(conn: sqlite3.Connection, file_id: int) -> sqlite3.Row | None:
    """The kind, size and mtime of one file version, for a PDF cut short what of it was indexed, and for a PDF
    with pages without text how many of how many, and which (JSON); for a data file its rows and those indexed."""
    return conn.execute(f"SELECT id, kind, size, mtime, {_PDF_GAPS}, {DATA_ROWS.format(f='', text=_FIRST_PASSAGE)}, "
                        f"{_SHEET_ROWS}, {_EXPORT_NOTES}, {_MAIL_GAPS}, {_CHAT_DAYS}, {_UNREADABLE} "
                        "FROM files WHERE id = ?",
                        (file_id,)).fetchone()


def dates_in(conn: sqlite3.Connection, file_id: int, after: float | None, before: float | None) -> sqlite3.Row:
    """The first and last of the dates file version ``file_id``'s passages are about that lie in ``after`` ..
    ``before`` (either None: open), and how many passages are dated there (``first``, ``last``, ``passages``)."""
    return conn.execute("SELECT min(dated) AS first, max(dated) AS last, count(*) AS passages FROM chunks "
                        "WHERE file = :file AND dated IS NOT NULL AND dated >= coalesce(:after, dated) "
                        "AND dated < coalesce(:before, dated + 1)",
                        {"file": file_id, "after": after, "before": before}).fetchone()


def retired_version(conn: sqlite3.Connection, gen: int, collection_id: int, path: str) -> sqlite3.Row | None:
    """The kind, size and mtime of the version of a file that generation ``gen`` retired (the file is gone)."""
    return conn.execute(f"SELECT id, kind, size, mtime, {_PDF_GAPS}, {DATA_ROWS.format(f='', text=_FIRST_PASSAGE)}, "
                        f"{_SHEET_ROWS}, {_EXPORT_NOTES}, {_MAIL_GAPS}, {_CHAT_DAYS}, {_UNREADABLE} "
                        "FROM files WHERE gen_to = ? AND collection = ? AND path = ?",
                        (gen, collection_id, path)).fetchone()


def unread_counts(conn: sqlite3.Connection, collection_id: int) -> dict[str, int]:
    """The newest scan's count of files of kinds Sift does not read, per extension (schema V8; {} if none)."""
    row = conn.execute("SELECT unread FROM generations WHERE collection = ? AND discovered IS NOT NULL "
                       "ORDER BY id DESC LIMIT 1", (collection_id,)).fetchone()
    return json.loads(row["unread"] or "{}") if row is not None else {}


def indexed_file(conn: sqlite3.Connection, collection_id: int, path: str) -> bool:
    """Whether the collection has a current version of the file ``path`` (relative): one seek."""
    row = conn.execute("SELECT 1 FROM files WHERE collection = ? AND gen_to IS NULL AND path = ? LIMIT 1",
                       (collection_id, path)).fetchone()
    return row is not None


def indexed_stat(conn: sqlite3.Connection, collection_id: int, path: str) -> tuple[int, float] | None:
    """(size, mtime) of the collection's current version of ``path`` (relative), or None: one seek."""
    row = conn.execute("SELECT size, mtime FROM files WHERE collection = ? AND gen_to IS NULL AND path = ? LIMIT 1",
                       (collection_id, path)).fetchone()
    return None if row is None else (row[0], row[1])


def indexed_under(conn: sqlite3.Connection, collection_id: int, folder: str) -> bool:
    """Whether the collection has a current file version below ``folder`` (relative, no trailing '/')."""
    row = conn.execute("SELECT 1 FROM files WHERE collection = ? AND gen_to IS NULL AND path > ? "
                       "AND path < ? LIMIT 1", (collection_id, folder + "/", folder + "0")).fetchone()
    return row is not None


def current_files(conn: sqlite3.Connection, collection_id: int) -> dict[str, sqlite3.Row]:
    """path → the newest version of each file that is not deleted (published or being built), with a note's
    same-stem PDF (``attachment``) as it was parsed."""
    rows = conn.execute("SELECT id, path, size, mtime, ctime, sha256, gen_from, "
                        "CASE WHEN kind = 'note' AND meta LIKE '%\"attachments\"%' AND json_valid(meta) "
                        "THEN json_extract(meta, '$.attachments[0]') END AS attachment FROM files "
                        "WHERE collection = ? AND gen_to IS NULL", (collection_id,))
    return {row["path"]: row for row in rows}


def current_files_at(conn: sqlite3.Connection, collection_id: int, paths) -> dict[str, sqlite3.Row]:
    """``current_files`` of the files at ``paths`` and below them (a path may be a folder): one seek per path,
    not a read of the collection's."""
    found = {}
    for path in paths:
        rows = conn.execute("SELECT id, path, size, mtime, ctime, sha256, gen_from, "
                            "CASE WHEN kind = 'note' AND meta LIKE '%\"attachments\"%' AND json_valid(meta) "
                            "THEN json_extract(meta, '$.attachments[0]') END AS attachment FROM files "
                            "WHERE collection = ? AND gen_to IS NULL AND path >= ? AND path < ?",
                            (collection_id, path, path + "0"))  # '0' sorts just after '/'
        found.update((row["path"], row) for row in rows if row["path"] == path or row["path"].startswith(path + "/"))
    return found


def current_count(conn: sqlite3.Connection, collection_id: int) -> int:
    """How many files ``current_files`` would return."""
    return conn.execute("SELECT count(*) FROM files WHERE collection = ? AND gen_to IS NULL",
                        (collection_id,)).fetchone()[0]


def remembered(conn: sqlite3.Connection, collection_id: int) -> dict[str, tuple[Basis, Outcome]]:
    """path → what the outcome of each skipped or failed file was decided on, and the outcome (writers only:
    the table is V9's, and readers do not migrate)."""
    rows = conn.execute("SELECT * FROM remembered WHERE collection = ? AND state != ?", (collection_id, AWAY))
    return {r["path"]: (Basis(r["size"], r["mtime"], r["ctime"], r["settings"]),
                        Outcome(r["stage"], r["state"], r["reason"], r["error"])) for r in rows}


def away_paths(conn: sqlite3.Connection, collection_id: int) -> set[str]:
    """The notes of the collection its last scan found not downloaded on this machine (store.record_away)."""
    return {r[0] for r in conn.execute("SELECT path FROM remembered WHERE collection = ? AND state = ?",
                                       (collection_id, AWAY))}


def away_count(conn: sqlite3.Connection, collection_id: int) -> int:
    """How many ``away_paths`` there are: for stats, a reader, which does not migrate (0 before schema V9)."""
    try:
        return conn.execute("SELECT count(*) FROM remembered WHERE collection = ? AND state = ?",
                            (collection_id, AWAY)).fetchone()[0]
    except sqlite3.OperationalError:  # no such table: an index a reader opened without migrating it
        return 0
