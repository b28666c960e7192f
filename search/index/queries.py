"""The index's read queries: every SELECT the search, MCP, worker and CLI modules ask, by name.

Each function takes a connection and answers one question; the SQL fragments they share (``VISIBLE``,
``IN_FLIGHT``) and the stages a file goes through are defined here once. No other module of ingest/, search/,
mcp_server/ or workers/ runs SQL, but these (tests/test_layers.py keeps it so):

- search/index/db.py: the connection itself (pragmas, the snapshot's BEGIN and COMMIT);
- search/index/schema.py: the migrations;
- search/index/store.py: the writer (collections, scans, generations, file versions, progress), the only module that
  changes the index;
- workers/app.py: a pragma of huey's own queue database (not the index).

Besides reads, this module creates and fills a connection's own temporary FTS5 tables (``search.query.postings``):
nothing of them is written to the index.
"""
from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections.abc import Iterable

from search.index.remembered import Basis, Outcome
from search.index.schema import version

# A published collection's current rows: join files f to collections c.
VISIBLE = "f.gen_from <= c.published AND (f.gen_to IS NULL OR f.gen_to > c.published)"
# A file of a generation whose jobs have not reached their end yet (a progress row).
IN_FLIGHT = "state NOT IN ('failed', 'skipped') AND NOT (stage = 'write' AND state = 'done')"
# The stages each changed file goes through, and the states that end it early.
STAGES = ("parse", "chunk", "embed", "write")
TERMINAL = ("failed", "skipped")


def rank(stage: str, state: str) -> int:
    """How far a file in ``stage``/``state`` has got: a file never moves to a lower rank; failed and skipped
    rank above everything."""
    finished = state != "queued"
    return STAGES.index(stage) * 2 + (1 if finished else 0) + (10 if state in TERMINAL else 0)


# --- collections ------------------------------------------------------------------


def collections(conn: sqlite3.Connection, name: str | None = None) -> list[sqlite3.Row]:
    """Every collection row (or the one called ``name``: none if unknown), by name."""
    return conn.execute("SELECT * FROM collections" + (" WHERE name = ?" if name else "") + " ORDER BY name",
                        (name,) if name else ()).fetchall()


def collections_published(conn: sqlite3.Connection, name: str | None = None) -> list[sqlite3.Row]:
    """Every collection row (or the one called ``name``) with ``finished``: when its published generation was
    finished (None: nothing published yet), by name."""
    return conn.execute("SELECT c.*, g.finished FROM collections c LEFT JOIN generations g ON g.id = c.published"
                        + (" WHERE c.name = ?" if name else "") + " ORDER BY c.name",
                        (name,) if name else ()).fetchall()


def collection_for_root(conn: sqlite3.Connection, root: str) -> sqlite3.Row | None:
    """The collection that indexes ``root``, or None."""
    return conn.execute("SELECT * FROM collections WHERE root = ?", (root,)).fetchone()


def get_collection(conn: sqlite3.Connection, collection_id: int) -> sqlite3.Row:
    """The collection row with id ``collection_id`` (LookupError if there is none)."""
    row = conn.execute("SELECT * FROM collections WHERE id = ?", (collection_id,)).fetchone()
    if row is None:
        raise LookupError(f"no collection with id {collection_id}")
    return row


def published_model(conn: sqlite3.Connection, collection_id: int) -> str | None:
    """The model the collection's published generation was embedded with (None: none published, or no model)."""
    row = conn.execute("SELECT g.model FROM collections c JOIN generations g ON g.id = c.published "
                       "WHERE c.id = ?", (collection_id,)).fetchone()
    return row["model"] if row else None


def published(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Each collection that has published a generation: its ``name``, ``published`` generation and the ``model``
    that generation was embedded with (None: built without embeddings)."""
    return conn.execute("SELECT c.name, c.published, g.model FROM collections c "
                        "JOIN generations g ON g.id = c.published").fetchall()


def published_models(conn: sqlite3.Connection) -> list[str]:
    """The models the published generations were embedded with, sorted, each once."""
    return sorted({r["model"] for r in published(conn) if r["model"] is not None})


# --- generations ------------------------------------------------------------------


def building_generation(conn: sqlite3.Connection, collection_id: int) -> sqlite3.Row | None:
    """The generation of the collection being built (its whole row), or None. There is at most one
    (``store.begin_generation`` starts one only when none is building)."""
    return conn.execute("SELECT * FROM generations WHERE collection = ? AND state = 'building' "
                        "ORDER BY id DESC LIMIT 1", (collection_id,)).fetchone()


def build_activity(conn: sqlite3.Connection, collection_id: int) -> float | None:
    """When the generation being built last moved (started, discovered, a file's progress); None: none building."""
    row = conn.execute(
        "SELECT max(g.started, coalesce(g.discovered, 0), "
        "coalesce((SELECT max(updated) FROM progress p WHERE p.generation = g.id), 0)) AS last "
        "FROM generations g WHERE g.collection = ? AND g.state = 'building' ORDER BY g.id DESC LIMIT 1",
        (collection_id,)).fetchone()
    return row["last"] if row else None


def generation_collections(conn: sqlite3.Connection, generations) -> set[int]:
    """The collections the given generations belong to."""
    gens = list(generations)
    if not gens:
        return set()
    rows = conn.execute(f"SELECT collection FROM generations WHERE id IN ({','.join('?' * len(gens))})", gens)
    return {row[0] for row in rows}


def generation(conn: sqlite3.Connection, gen: int) -> sqlite3.Row | None:
    """One generation's whole row (None: no such generation)."""
    return conn.execute("SELECT * FROM generations WHERE id = ?", (gen,)).fetchone()


def building_model(conn: sqlite3.Connection, collection_id: int) -> tuple[bool, str | None]:
    """(is a generation being built, the model it embeds with)."""
    row = conn.execute("SELECT model FROM generations WHERE collection = ? AND state = 'building'",
                       (collection_id,)).fetchone()
    return (row is not None, row["model"] if row else None)


def chunkings(conn: sqlite3.Connection, collection_id: int) -> tuple[str | None, str | None]:
    """How the collection's published and building generations cut their files (ingest.chunk.chunking; None:
    no such generation, or one made before schema V11)."""
    rows = conn.execute("SELECT state, chunking FROM generations WHERE collection = ? AND "
                        "(state = 'building' OR id = (SELECT published FROM collections WHERE id = ?))",
                        (collection_id, collection_id)).fetchall()
    found = {row["state"]: row["chunking"] for row in rows}
    return found.get("published"), found.get("building")


def model_paths(conn: sqlite3.Connection, model_id: str) -> list[str]:
    """The files recorded for ``model_id``, newest first (none before schema V6)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'models'").fetchone():
        return []
    return [r[0] for r in conn.execute("SELECT path FROM models WHERE id = ? ORDER BY recorded DESC", (model_id,))]

# --- a collection's scans (search.index.freshness) --------------------------------------


def unplanned_scan(conn: sqlite3.Connection, collection_id: int) -> float | None:
    """When the scan that claimed the collection started, if it has not recorded its plan yet; else None."""
    row = conn.execute(
        "SELECT scan_started FROM collections c WHERE id = ? AND scan_started IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM generations g WHERE g.collection = c.id AND g.discovered >= c.scan_started)",
        (collection_id,)).fetchone()
    return row[0] if row else None


def last_scan(conn: sqlite3.Connection, collection_id: int, latest: float | None = None) -> float:
    """When the newest scan of the collection started: its newest generation's, a later scan's that found
    nothing changed and made none (schema V12), or one that went on with a build begun earlier (the generation it
    published started then: once the generations it superseded are dropped, nothing else said a scan had just
    run); when it was registered if it was never scanned. Times after ``latest`` are left out: stamped before the
    system clock was set back, they said a scan had just run for as long as the clock was behind."""
    latest = float("inf") if latest is None else latest
    row = conn.execute("SELECT coalesce((SELECT max(started) FROM generations WHERE collection = c.id "
                       "AND started <= ?), CASE WHEN EXISTS (SELECT 1 FROM generations WHERE collection = c.id) "
                       "THEN NULL ELSE c.created END), c.scanned_unchanged, c.scan_started "
                       "FROM collections c WHERE c.id = ?", (latest, collection_id)).fetchone()
    return max((t for t in (row or ()) if t is not None and t <= latest), default=0.0)


def requested(conn: sqlite3.Connection) -> list[int]:
    """Collections with a scan asked for and not started yet."""
    return [row[0] for row in conn.execute("SELECT id FROM collections WHERE scan_requested IS NOT NULL")]


def root_missing_since(conn: sqlite3.Connection, collection_id: int) -> float | None:
    """When a scan first found the collection's root gone (None: it was there last time)."""
    return conn.execute("SELECT root_missing_since FROM collections WHERE id = ?", (collection_id,)).fetchone()[0]


# --- files ----------------------------------------------------------------------------


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
_DATA_ROWS = (f"CASE WHEN {_DATA_FILE} THEN 1 END AS data_file, "
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
    return conn.execute(f"SELECT id, kind, size, mtime, {_PDF_GAPS}, {_DATA_ROWS.format(f='', text=_FIRST_PASSAGE)}, "
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
    return conn.execute(f"SELECT id, kind, size, mtime, {_PDF_GAPS}, {_DATA_ROWS.format(f='', text=_FIRST_PASSAGE)}, "
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


def indexed_under(conn: sqlite3.Connection, collection_id: int, folder: str) -> bool:
    """Whether the collection has a current file version below ``folder`` (relative, no trailing '/')."""
    row = conn.execute("SELECT 1 FROM files WHERE collection = ? AND gen_to IS NULL AND path > ? "
                       "AND path < ? LIMIT 1", (collection_id, folder + "/", folder + "0")).fetchone()
    return row is not None


# Where the files of a collection are listed: its current versions, and what the generation being built has
# planned (a file not read yet has no version). A recursive walk of an index on path: each step seeks the first
# path below a next subfolder (its name + '0', which sorts just after name + '/'), so a folder costs one seek,
# not a read of its files, and the loop runs inside SQLite.
_HOLDERS = ("files WHERE collection = :id AND gen_to IS NULL",
            "progress WHERE generation = :building AND change != 'deleted'")
_SUBFOLDERS = """
WITH RECURSIVE seek(path) AS (
    SELECT (SELECT path FROM {holders} AND path >= :base {below} AND instr(substr(path, :cut), '/') > 0
            ORDER BY path LIMIT 1)
    UNION ALL
    SELECT (SELECT path FROM {holders} AND path >= substr(s.path, 1, :cut + instr(substr(s.path, :cut), '/') - 2) || '0'
            {below} AND instr(substr(path, :cut), '/') > 0 ORDER BY path LIMIT 1)
    FROM seek s WHERE s.path IS NOT NULL LIMIT :most)
SELECT path FROM seek WHERE path IS NOT NULL
"""
MOST_SUBFOLDERS = 10_000


def folders_ending(conn: sqlite3.Connection, collection: str, folder: str, most: int = 3) -> list[str]:
    """At most ``most`` folders of the collection whose path ends with ``folder`` ('tests': 'huey/tests',
    'src/app/tests'), each holding a file as the index has it, the shallowest first. A scan of the paths that
    hold it, asked only when the answer already says the folder is not at the root."""
    needle = "/" + folder.strip("/") + "/"
    found = set()
    for (path,) in conn.execute("SELECT f.path FROM files f JOIN collections c ON c.id = f.collection "
                                "WHERE c.name = ? AND f.gen_to IS NULL AND instr('/' || f.path, ?) > 0",
                                (collection, needle)):
        at = ("/" + path).find(needle)
        found.add(path[:at + len(needle) - 2])
    return sorted(found, key=lambda p: (p.count("/"), p))[:most]


def subfolders(conn: sqlite3.Connection, collection: str, parent: str) -> set[str]:
    """The names of the folders directly in ``parent`` ('' for the root, no trailing '/') that hold a file of
    the collection as the index has it: what a scan found, never an ignored folder or an empty one. A seek per
    folder (at most MOST_SUBFOLDERS of them); the files directly in ``parent`` are stepped over once."""
    row = conn.execute("SELECT c.id, g.id FROM collections c LEFT JOIN generations g ON g.collection = c.id "
                       "AND g.state = 'building' WHERE c.name = ?", (collection,)).fetchone()
    if row is None:
        return set()
    base = parent + "/" if parent else ""
    named = {"id": row[0], "building": row[1], "base": base, "cut": len(base) + 1, "hi": base[:-1] + "0",
             "most": MOST_SUBFOLDERS}
    below = "AND path < :hi" if base else ""
    names = set()
    for holders in _HOLDERS:
        for (path,) in conn.execute(_SUBFOLDERS.format(holders=holders, below=below), named):
            names.add(path[len(base):].split("/", 1)[0])
    return names


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
    rows = conn.execute("SELECT * FROM remembered WHERE collection = ?", (collection_id,))
    return {r["path"]: (Basis(r["size"], r["mtime"], r["ctime"], r["settings"]),
                        Outcome(r["stage"], r["state"], r["reason"])) for r in rows}


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


# --- progress ---------------------------------------------------------------------------


def progress_of(conn: sqlite3.Connection, gen: int, path: str) -> sqlite3.Row | None:
    """Where one file stands in generation ``gen``: its change, stage, state and reason."""
    return conn.execute("SELECT change, stage, state, reason FROM progress WHERE generation = ? AND path = ?",
                        (gen, path)).fetchone()


def latest_progress(conn: sqlite3.Connection, collection: str, path: str) -> sqlite3.Row | None:
    """The change, state, stage and reason of a file in the newest generation of its collection that planned it."""
    return conn.execute("SELECT p.change, p.state, p.stage, p.reason FROM progress p "
                        "JOIN generations g ON g.id = p.generation "
                        "JOIN collections c ON c.id = g.collection WHERE c.name = ? AND p.path = ? "
                        "ORDER BY p.generation DESC LIMIT 1", (collection, path)).fetchone()


def pending_paths(conn: sqlite3.Connection, gen: int) -> list[str]:
    """Files of the generation whose jobs have not finished (to queue again after a crash)."""
    rows = conn.execute(f"SELECT path FROM progress INDEXED BY progress_open WHERE generation = ? AND {IN_FLIGHT} "
                        "ORDER BY path", (gen,))
    return [row["path"] for row in rows]


def in_flight(conn: sqlite3.Connection, gens: list[int]) -> list[sqlite3.Row]:
    """(generation, path, updated) of every file in flight in generations ``gens``, in one statement through the
    progress_open index (workers.lost: at 200,000 files in flight, one read, not a query per path)."""
    if not gens:
        return []
    return conn.execute(
        f"SELECT generation, path, updated FROM progress INDEXED BY progress_open WHERE generation IN "
        f"({','.join('?' * len(gens))}) AND {IN_FLIGHT}", gens).fetchall()


def planned_building(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """(id, collection, moved) of the generations being built whose scan has recorded its plan: ``moved``, when
    the build last moved (as ``build_activity``)."""
    return conn.execute(
        "SELECT g.id, g.collection, max(g.started, g.discovered, "
        "coalesce((SELECT max(updated) FROM progress p WHERE p.generation = g.id), 0)) AS moved "
        "FROM generations g WHERE g.state = 'building' AND g.discovered IS NOT NULL").fetchall()


def not_past(conn: sqlite3.Connection, gen: int, paths, stage: str) -> list[str]:
    """Those of ``paths`` that have not got past ``stage``: not done with it, not failed or skipped.
    A job that fails for good marks these failed; the others are another job's or finished."""
    wanted, limit, found = sorted(set(paths)), rank(stage, "done"), []
    for i in range(0, len(wanted), 500):  # only these paths' rows, not the whole generation's
        part = wanted[i:i + 500]
        rows = conn.execute(f"SELECT path, stage, state FROM progress WHERE generation = ? AND path IN "
                            f"({','.join('?' * len(part))})", (gen, *part)).fetchall()
        found += [r["path"] for r in rows if rank(r["stage"], r["state"]) < limit]
    return sorted(found)


def generation_progress(conn, gen: int) -> tuple[int, int]:
    """(files the generation touches, files that reached their end), from the counts the triggers keep
    (schema V7), so stats and the freshness line cost the same at 200,000 files as at 20."""
    if not has_counts(conn):
        total, open_files = conn.execute(
            f"SELECT count(*), coalesce(sum({IN_FLIGHT}), 0) FROM progress WHERE generation = ?", (gen,)).fetchone()
        return total, total - open_files
    total, open_files = conn.execute(
        f"SELECT coalesce(sum(files), 0), coalesce(sum(CASE WHEN {IN_FLIGHT} THEN files END), 0) "
        "FROM progress_counts WHERE generation = ?", (gen,)).fetchone()
    return total, total - open_files


def has_counts(conn) -> bool:
    """The index keeps progress_counts, progress_open and generations.files/chunks (schema V7); a reader may
    meet an older index that no writer has migrated yet."""
    return conn.execute("PRAGMA user_version").fetchone()[0] >= 7


def progress_counts(conn, gen: int) -> list[sqlite3.Row]:
    """(change, stage, state, files, chunks, embedded) of the generation's files, one row per group."""
    return conn.execute("SELECT change, stage, state, files, chunks, embedded FROM progress_counts "
                        "WHERE generation = ? AND files > 0", (gen,)).fetchall()


# Why a file of a first build published in parts (workers.tasks.first_part) is not in this part: skipped at parse
# with this reason, it is read by a later part. Counted (``deferred``) to say a published part is partial.
DEFERRED = ("not read yet: the collection's first build is published in parts (SIFT_FIRST_PART), this file in a "
            "later one")


def deferred(conn, gen: int | None) -> int:
    """How many files the generation ``gen`` left to a later part of its collection's first build (0: none, or no
    generation): a published generation with some is partial."""
    if gen is None:
        return 0
    return conn.execute("SELECT count(*) FROM progress INDEXED BY progress_trouble WHERE generation = ? "
                        "AND state IN ('failed', 'skipped') AND reason = ?", (gen, DEFERRED)).fetchone()[0]


def partial(conn) -> list[int]:
    """The collections whose published generation is a part of a first build, with files left to a later one."""
    return [r[0] for r in conn.execute(
        "SELECT id FROM collections c WHERE published IS NOT NULL AND EXISTS (SELECT 1 FROM progress p "
        "INDEXED BY progress_trouble WHERE p.generation = c.published AND p.state IN ('failed', 'skipped') "
        "AND p.reason = ?)",
        (DEFERRED,)).fetchall()]


def not_read_yet(conn, collection: str | None = None) -> int:
    """How many files the published generations of every collection (or of the one named) leave to a later part of
    a first build."""
    return conn.execute(
        "SELECT count(*) FROM collections c JOIN progress p INDEXED BY progress_trouble ON p.generation = c.published "
        "WHERE p.state IN ('failed', 'skipped') AND p.reason = ? AND (? IS NULL OR c.name = ?)",
        (DEFERRED, collection, collection)).fetchone()[0]


def troubled(conn, gen: int) -> list[sqlite3.Row]:
    """The generation's failed and skipped files, by path (through the progress_trouble index)."""
    return conn.execute("SELECT path, stage, state, reason FROM progress INDEXED BY progress_trouble WHERE generation = ? "
                        "AND state IN ('failed', 'skipped') ORDER BY path", (gen,)).fetchall()


def progress_rows(conn: sqlite3.Connection, gen: int) -> list[sqlite3.Row]:
    """Every file's change, stage, state, reason, path, chunks and embedded in generation ``gen`` (for an index
    older than the counts of schema V7)."""
    return conn.execute("SELECT change, stage, state, reason, path, chunks, embedded FROM progress "
                        "WHERE generation = ?", (gen,)).fetchall()


def failures(conn: sqlite3.Connection, limit: int = 100) -> list[sqlite3.Row]:
    """The failed and skipped files (``collection``, path, stage, state, reason, generation) of each collection's
    newest generation, by collection and path."""
    return conn.execute(
        "SELECT c.name AS collection, p.path, p.stage, p.state, p.reason, p.generation FROM progress p "
        "JOIN generations g ON g.id = p.generation JOIN collections c ON c.id = g.collection "
        "WHERE p.state IN ('failed', 'skipped') AND g.id = (SELECT max(id) FROM generations WHERE collection = c.id) "
        "ORDER BY c.name, p.path LIMIT ?", (limit,)).fetchall()


def searchable(conn, collection_id: int, gen: int) -> tuple[int, int]:
    """(files, chunks) the published generation ``gen`` of the collection makes searchable: recorded at
    publish (schema V7), or counted from the rows for a generation published before."""
    row = conn.execute("SELECT files, chunks FROM generations WHERE id = ?", (gen,)).fetchone() \
        if has_counts(conn) else None
    if row is not None and row["files"] is not None:
        return row["files"], row["chunks"]
    return tuple(conn.execute(
        "SELECT count(DISTINCT f.id), count(ch.id) FROM files f LEFT JOIN chunks ch ON ch.file = f.id "
        "WHERE f.collection = ? AND f.gen_from <= ? AND (f.gen_to IS NULL OR f.gen_to > ?)",
        (collection_id, gen, gen)).fetchone())


_LISTING = """
WITH c AS (SELECT c.id, c.name, c.root, c.published, g.id AS building FROM collections c
           LEFT JOIN generations g ON g.collection = c.id AND g.state = 'building' {where_collection}),
entries AS (
    SELECT c.id AS collection, p.path, cur.id AS ref, c.building AS generation,
           CASE WHEN cur.id IS NOT NULL THEN cur.mtime
                WHEN p.state IN ('failed', 'skipped') OR p.change = 'deleted' THEN -1e300 ELSE 1e300 END AS sort_time,
           c.name, c.root, c.building, NULL AS stood_for
    FROM c JOIN progress p ON p.generation = c.building
    LEFT JOIN files cur ON cur.collection = c.id AND cur.path = p.path AND cur.gen_to IS NULL
    WHERE {match_p}
    UNION ALL
    SELECT c.id, f.path, f.id, NULL, f.mtime, c.name, c.root, c.building, NULL FROM c JOIN files f ON f.collection = c.id
    WHERE {visible} AND {match_f}
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.building AND b.path = f.path)
    UNION ALL
    SELECT c.id, p.path, NULL, c.published, -1e300, c.name, c.root, c.building, NULL FROM c
    JOIN progress p ON p.generation = c.published
    WHERE p.state IN ('failed', 'skipped') AND {match_p}
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.building AND b.path = p.path)
      AND NOT EXISTS (SELECT 1 FROM files f WHERE f.collection = c.id AND f.path = p.path AND f.gen_to IS NULL
                      AND f.gen_from <= c.published)
    UNION ALL
    SELECT c.id, a.value, NULL, NULL, -1e300, c.name, c.root, c.building, min(f.path) FROM c
    JOIN files f ON f.collection = c.id JOIN json_each(f.meta, '$.attachments') a
    WHERE {visible} AND f.kind = 'note' AND f.meta LIKE '%"attachments"%' AND json_valid(f.meta) AND {match_a}
      -- kind and LIKE as written in the partial index files_attached (schema V16), for SQLite to use it
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.building AND b.path = a.value)
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.published AND b.path = a.value
                      AND b.state IN ('failed', 'skipped'))
    GROUP BY c.id, a.value)
"""
# Four disjoint parts: the files the generation being built touches; the published files it does not; the failures
# of the published generation it has not touched again; the PDFs that a published note of the same name stands for
# (``stood_for``: the note's path), which have no version of their own, untouched too. Only the last is grouped:
# two notes of the PDF's stem beside it (lecture.pptx and lecture.odp by lecture.pdf) both stand for it, and it was
# listed twice, each row naming another; once now, naming the first by path (as read_file does).
# Newest first: a file with no time in the index yet is pending (it just changed) and comes first; failed, skipped
# or deleted come last, and so does a PDF a note stands for (listed as skipped, saying which note).
# Unfiltered, counted by one query and listed by another, each reading ``entries`` once: one query doing both
# stored every file in a temporary table, indexed and sorted them all (273 ms of CPU at 200,000 files, against
# 55 + 63 ms). A folder or a glob is matched by a Python function, which two queries would call twice a file:
# those matches are stored once and counted and listed from there (they are few, and no longer joined back).
_COUNT = "SELECT count(*) FROM entries"
_FIRST = "SELECT e.*, :total AS total FROM entries e ORDER BY {order} LIMIT :limit OFFSET :offset"
_STORED = ("SELECT e.*, (SELECT count(*) FROM {source}) AS total FROM {source} e ORDER BY {order} "
           "LIMIT :limit OFFSET :offset")
_BY_TIME = "sort_time DESC, name, path"
_BY_PATH = "name, path"
# list_files' date_after / date_before: a file the index holds a version of (``ref``; its mtime is ``sort_time``)
# with a passage about a date in the range, as search's date filters find passages: one with its own date there
# (chunks.dated, from the index of dated passages alone), or one without a date of its own in a file modified then
# (a file of no passages: its mtime). A mailbox of ten years is listed for each year one of its messages is dated.
_DATED = """, kept AS (SELECT * FROM entries e WHERE e.ref IS NOT NULL AND (
    e.ref IN (SELECT ch.file FROM chunks ch INDEXED BY chunks_dated WHERE ch.dated IS NOT NULL AND {own})
    OR ({mtime} AND (EXISTS (SELECT 1 FROM chunks ch WHERE ch.file = e.ref AND ch.dated IS NULL)
                     OR NOT EXISTS (SELECT 1 FROM chunks ch WHERE ch.file = e.ref)))))"""
_DATED_BEFORE_V20 = ", kept AS (SELECT * FROM entries e WHERE e.ref IS NOT NULL AND {mtime})"
# sort='dated': newest first by the newest date a file's passages are about (in the range, if any), else by its
# modified time (a file none of whose passages has a date of its own there). Daily notes all edited last week were
# listed for March in the order of those edits. From the index of passages by file: one look per file listed.
_BY_DATE = ("coalesce((SELECT max(ch.dated) FROM chunks ch WHERE ch.file = e.ref AND ch.dated IS NOT NULL AND {own}), "
            "e.sort_time) DESC, e.name, e.path")


def _within(when: str, after: float | None, before: float | None) -> str:
    """The condition that ``when`` lies in the range (:dated_after, :dated_before; either None: open)."""
    return " AND ".join([f"{when} >= :dated_after"] * (after is not None)
                        + [f"{when} < :dated_before"] * (before is not None)) or "1"


def _by_date(conn: sqlite3.Connection, after: float | None, before: float | None) -> str:
    """The order of sort='dated' (``_BY_DATE``); by the modified time in an index without passage dates (before V20)."""
    if not passage_dates_kept(conn):
        return _BY_TIME
    return _BY_DATE.format(own=_within("ch.dated", after, before))


def _dated(conn: sqlite3.Connection, after: float | None, before: float | None) -> str:
    """The CTE ``kept``: the entries that list_files' date range keeps (``_DATED``; by the mtime alone in an index
    without passage dates, before V20), bound to :dated_after and :dated_before."""
    def within(when: str) -> str:
        return _within(when, after, before)
    if not passage_dates_kept(conn):
        return _DATED_BEFORE_V20.format(mtime=within("e.sort_time"))
    return _DATED.format(own=within("ch.dated"), mtime=within("e.sort_time"))


def listing(conn: sqlite3.Connection, collection: str | None, match: str, params: dict, by_time: bool | str,
            limit: int, offset: int = 0, dated: tuple[float | None, float | None] | None = None,
            tags: tuple[str, ...] = ()) -> list[sqlite3.Row]:
    """``limit`` files, after the first ``offset``, of the collections (or of ``collection``) that the index knows, each once, with
    ``total`` (how many match): ``collection`` (its id), ``path``, ``ref`` (the current version's file id),
    ``generation`` (the one whose progress row says where it stands, None: published and untouched since),
    ``name``, ``root``, ``building`` and ``stood_for`` (of a PDF not indexed itself: the note that stands for it).
    ``match`` is a condition on ``{path}`` with named ``params``; sorted by modified time (``by_time`` True or
    'modified'), by collection and path (False or 'path'), or by the newest date its passages are about, in the range
    if there is one, else its modified time ('dated': ``_BY_DATE``). ``dated`` (after, before; unix times, either None): only the files the index holds a version
    of with a passage about a date in that range (``_DATED``). ``tags`` (casefolded names): only the files the index
    holds a version of that carry each, as their own or a passage's (``file_tag_condition``). Call it inside a
    snapshot: it runs two queries."""
    entries = _LISTING.format(where_collection="WHERE c.name = :collection" if collection else "", visible=VISIBLE,
                              match_p=match.format(path="p.path"), match_f=match.format(path="f.path"),
                              match_a=match.format(path="a.value"))
    named = {**params, "limit": limit, "offset": offset, **({"collection": collection} if collection else {})}
    order = _BY_TIME if by_time in (True, "modified") else _BY_PATH
    if dated is not None:
        entries, named = entries + _dated(conn, *dated), {**named, "dated_after": dated[0], "dated_before": dated[1]}
    if by_time == "dated":
        order = _by_date(conn, *(dated or (None, None)))
    source = "entries" if dated is None else "kept"
    if tags:
        entries += (f", tagged AS (SELECT * FROM {source} e WHERE e.ref IS NOT NULL AND "
                    f"{file_tag_condition(conn, tags, 'e.ref')})")
        source, named = "tagged", {**named, **tag_params(tags)}
    if match != "1" or dated is not None or tags:
        return conn.execute(entries + _STORED.format(order=order, source=source), named).fetchall()
    total = conn.execute(entries + _COUNT, named).fetchone()[0]
    return conn.execute(entries + _FIRST.format(order=order), {**named, "total": total}).fetchall()


# --- chunks ------------------------------------------------------------------------------


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


def hit_rows(conn: sqlite3.Connection, ids: list[int]) -> list[sqlite3.Row]:
    """What a search result shows of each chunk in ``ids``: the chunk, its file and collection (any order); of a
    PDF passage over more than one page, where each page starts in it and the file's page labels (JSON), which
    give the pages its snippet shows; of a PDF, its metadata's author (``ingest.pdf``), or NULL; of a data file,
    its rows and the passage's (_DATA_ROWS)."""
    marks = ",".join("?" * len(ids))
    starts = "ch.page_starts" if version(conn) >= 13 else "NULL AS page_starts"
    dated = "ch.dated" if passage_dates_kept(conn) else "NULL AS dated"
    return conn.execute(
        f"SELECT ch.id, ch.heading_path, ch.start_line, ch.end_line, ch.page, ch.end_page, {starts}, {dated}, ch.text, "
        f"f.id AS file_id, f.collection AS collection_id, f.path, f.title, f.kind, f.mtime, "
        f"c.name AS collection, c.published, "
        f"{_PAGE_LABEL.format(page='ch.page')} AS page_label, "
        f"{_PAGE_LABEL.format(page='ch.end_page')} AS end_page_label, "
        f"CASE WHEN f.kind = 'pdf' AND json_valid(f.meta) THEN json_extract(f.meta, '$.author') END AS author, "
        f"{_DATA_ROWS.format(f='f.', text='ch.text')}, "
        f"CASE WHEN f.kind = 'pdf' AND ch.page IS NOT NULL AND ch.end_page > ch.page AND json_valid(f.meta) "
        f"THEN json_extract(f.meta, '$.page_labels') END AS page_labels FROM chunks ch "
        f"JOIN files f ON f.id = ch.file JOIN collections c ON c.id = f.collection WHERE ch.id IN ({marks})",
        ids).fetchall()


def passage_tags_kept(conn: sqlite3.Connection) -> bool:
    """Whether the index keeps a passage's own tags (chunks.tags, V21): a reader opens an index without migrating
    it, and one an older Sift wrote has none (its passages have their file's tags alone)."""
    return version(conn) >= 21


def tags_indexed(conn: sqlite3.Connection) -> bool:
    """Whether the index keeps its tags a row each (the table tags, V22); before, they are JSON in files.meta and
    chunks.tags alone, read by ``tag_condition``'s function."""
    return version(conn) >= 22


# A tag asked for (:tag{i}, casefolded) or one nested in it ('project' holds 'project/sift'): every such tag lies in
# [tag, tag + '0') ('0' follows '/'), a range of the index, the rest of which ('project-x') the last test drops.
_TAG = "t.tag >= :tag{i} AND t.tag < :tag{i}_end AND (t.tag = :tag{i} OR substr(t.tag, 1, {n}) = :tag{i}_slash)"


def tag_params(tags) -> dict:
    """The named parameters of ``tag_condition`` and ``file_tag_condition`` for ``tags`` (casefolded names)."""
    return {name: value for i, tag in enumerate(tags)
            for name, value in ((f"tag{i}", tag), (f"tag{i}_end", tag + "0"), (f"tag{i}_slash", tag + "/"))}


def tag_condition(conn: sqlite3.Connection, tags) -> str:
    """The SQL condition that a passage (chunks ch of files f) carries every one of ``tags`` (``tag_params``): its
    file's or its own, or one nested in it. Checked per candidate from the indexes of a file's and a passage's
    tags; an index without them (before V22, not migrated yet) has its JSON read by a Python function."""
    return " AND ".join(_tagged(conn, i, tag) for i, tag in enumerate(tags))


def _tagged(conn: sqlite3.Connection, i: int, tag: str) -> str:
    """``tag_condition`` for the one tag :tag{i}."""
    if tags_indexed(conn):
        within = _TAG.format(i=i, n=len(tag) + 1)
        return (f"(EXISTS (SELECT 1 FROM tags t WHERE t.file = f.id AND t.chunk IS NULL AND {within}) "
                f"OR EXISTS (SELECT 1 FROM tags t WHERE t.chunk = ch.id AND {within}))")
    from search.index.names import tag_names
    conn.create_function("sift_tagged", 3, lambda held, own, wanted: any(
        name == wanted or name.startswith(wanted + "/") for name in tag_names(held) | tag_names(own)),
        deterministic=True)
    own = "ch.tags" if passage_tags_kept(conn) else "NULL"
    return f"sift_tagged(CASE WHEN json_valid(f.meta) THEN json_extract(f.meta, '$.tags') END, {own}, :tag{i})"


def file_tag_condition(conn: sqlite3.Connection, tags, ref: str) -> str:
    """The SQL condition that the file version ``ref`` (a column holding its id) carries every one of ``tags``: as
    its own, or as a tag of one of its passages (an export's note tagged 'recipe'), for list_files."""
    if tags_indexed(conn):
        return " AND ".join(f"EXISTS (SELECT 1 FROM tags t WHERE t.file = {ref} AND "
                            f"{_TAG.format(i=i, n=len(tag) + 1)})" for i, tag in enumerate(tags))
    return " AND ".join(f"EXISTS (SELECT 1 FROM chunks ch JOIN files f ON f.id = ch.file WHERE f.id = {ref} "
                        f"AND {_tagged(conn, i, tag)})" for i, tag in enumerate(tags))


def catalog_tags(conn: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """Every tag the index holds (published or not: a catalog keeps those of its chunks), with the files that hold
    it as their own and the passages that hold it as theirs, as comma-separated lists of ids ('' for none), read
    from the index of tags alone; before V22 from the JSON of every file and tagged passage."""
    if tags_indexed(conn):
        return {tag: (files or "", chunks or "") for tag, files, chunks in conn.execute(
            "SELECT tag, group_concat(CASE WHEN chunk IS NULL THEN file END), group_concat(chunk) FROM tags "
            "INDEXED BY tags_tag GROUP BY tag")}
    from search.index.names import tag_names
    found: dict[str, tuple[list, list]] = {}
    for file, held in conn.execute("SELECT id, json_extract(meta, '$.tags') FROM files WHERE json_valid(meta) "
                                   "AND json_extract(meta, '$.tags') IS NOT NULL"):
        for tag in tag_names(held):
            found.setdefault(tag, ([], []))[0].append(str(file))
    if passage_tags_kept(conn):
        for chunk, own in conn.execute("SELECT id, tags FROM chunks INDEXED BY chunks_tagged WHERE tags IS NOT NULL"):
            for tag in tag_names(own):
                found.setdefault(tag, ([], []))[1].append(str(chunk))
    return {tag: (",".join(files), ",".join(chunks)) for tag, (files, chunks) in found.items()}


def tag_counts(conn: sqlite3.Connection, collection: str | None = None, limit: int = -1) -> list[tuple[str, int]]:
    """(tag, how many published files hold it, as theirs or a passage's), the most held first (then by name), of
    every collection or ``collection``, ``limit`` of them (-1: all); [] before V22 (``tags_indexed``)."""
    if not tags_indexed(conn):
        return []
    return [(tag, count) for tag, count in conn.execute(
        f"SELECT t.tag, count(DISTINCT t.file) AS n FROM tags t JOIN files f ON f.id = t.file "
        f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE}" + (" AND c.name = ?" if collection else "")
        + " GROUP BY t.tag ORDER BY n DESC, t.tag LIMIT ?", (collection, limit) if collection else (limit,))]


def chunk_lines(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, int | None, int | None]]:
    """(id, start line, end line) of each chunk in ``ids`` (any order): where a passage is, without its text."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    plain = conn.cursor()
    plain.row_factory = None
    return plain.execute(f"SELECT id, start_line, end_line FROM chunks WHERE id IN ({marks})", ids).fetchall()


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


def vectors_between(conn: sqlite3.Connection, model: str, after: int, upto: int) -> list[tuple[int, bytes]]:
    """(chunk id, float32 vector bytes by ``model``) of the chunks with ids in (after, upto], by id; a chunk
    whose text has no vector by that model is left out."""
    return conn.execute("SELECT ch.id, v.vec FROM chunks ch "
                        "JOIN vectors v ON v.model = ? AND v.text_hash = ch.text_hash "
                        "WHERE ch.id > ? AND ch.id <= ? ORDER BY ch.id", (model, after, upto)).fetchall()


def cached_hashes(conn: sqlite3.Connection, model: str, hashes: list[str]) -> set[str]:
    """Those of ``hashes`` whose text already has a vector by ``model``."""
    found: set[str] = set()
    unique = sorted(set(hashes))
    for i in range(0, len(unique), 500):
        part = unique[i:i + 500]
        marks = ",".join("?" * len(part))
        rows = conn.execute(f"SELECT text_hash FROM vectors WHERE model = ? AND text_hash IN ({marks})",
                            [model, *part])
        found.update(row[0] for row in rows)
    return found

# --- keyword index (FTS5) ------------------------------------------------------------------


def term_documents(conn: sqlite3.Connection, term: str) -> int:
    """How many chunk rows of the keyword index hold ``term`` (a token as FTS5 stores it)."""
    row = conn.execute("SELECT doc FROM chunks_fts_vocab WHERE term = ?", (term,)).fetchone()
    return row[0] if row else 0


def keyword_search(conn: sqlite3.Connection, expression: str, weights: tuple[float, ...], where: str,
                   params: dict, limit: int) -> list[tuple[int, float]]:
    """[(chunk id, FTS5 bm25: lower is better)] of the published chunks that match the FTS5 ``expression``, best
    first, with column ``weights``; ``where``: more conditions on files f and collections c (' AND …'), with its
    named ``params``."""
    sql = (f"SELECT ch.id, bm25(chunks_fts, {', '.join(map(str, weights))}) AS score FROM chunks_fts "
           f"JOIN chunks ch ON ch.id = chunks_fts.rowid JOIN files f ON f.id = ch.file "
           f"JOIN collections c ON c.id = f.collection "
           f"WHERE chunks_fts MATCH :expression AND {VISIBLE}{where} ORDER BY score LIMIT :limit")
    named = {**params, "expression": expression, "limit": limit}
    return [(row[0], row[1]) for row in conn.execute(sql, named).fetchall()]


def keyword_search_every(conn: sqlite3.Connection, expression: str, weights: tuple[float, ...],
                         limit: int) -> list[tuple[int, float]]:
    """As ``keyword_search`` over every row of the keyword index, without the joins that keep the published ones:
    for when every chunk row is published and nothing is filtered (the joins cost 70-180 ms for a word in 112,000
    of 200,000 passages)."""
    sql = (f"SELECT rowid, bm25(chunks_fts, {', '.join(map(str, weights))}) AS score FROM chunks_fts "
           "WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?")
    return [(row[0], row[1]) for row in conn.execute(sql, (expression, limit)).fetchall()]


def matching(conn: sqlite3.Connection, expression: str, ids: list[int]) -> set[int]:
    """Those of the chunks ``ids`` whose keyword index row matches the FTS5 ``expression``: the rows matching it
    anywhere, kept where they are among ``ids``. Asked with 'rowid IN (ids)', FTS5 evaluated the expression once per
    id, reading each word's doclist again each time: 65 ms per hybrid search of 'how does StreamWriter write data to
    the stream' (200 candidates, 100,120 passages; 'title : (… AND …)'), against 0.5 ms for the whole index, where
    its AND skips through the doclists once (a title holding 'the' and 'a', in 3,280 rows: 10 → 8 ms)."""
    wanted = set(ids)
    return {row[0] for row in conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (expression,))
            if row[0] in wanted}


def fts_rowids(conn: sqlite3.Connection):
    """Every rowid of the keyword index, ascending (an iterator)."""
    return (r[0] for r in conn.execute("SELECT rowid FROM chunks_fts ORDER BY rowid"))


def fts_count_after(conn: sqlite3.Connection, after: int) -> int:
    """How many rows of the keyword index have a rowid above ``after``."""
    return conn.execute("SELECT count(*) FROM chunks_fts WHERE rowid > ?", (after,)).fetchone()[0]


def fts_rows(conn: sqlite3.Connection, after: int, upto: int) -> list[tuple]:
    """(rowid, title, headings, body) of the keyword index's rows with rowids in (after, upto], ascending."""
    rows = conn.execute("SELECT rowid, title, headings, body FROM chunks_fts WHERE rowid > ? AND rowid <= ? "
                        "ORDER BY rowid", (after, upto)).fetchall()
    return [tuple(r) for r in rows]


# This connection's own temporary tables (nothing is written to the index): an instance view of chunks_fts, and a
# scratch FTS5 table with the same columns and tokenizer, to tokenize new rows and query words as the index does.
INSTANCES, SCRATCH_INSTANCES = "sift_fts_instances", "sift_scratch_instances"


def make_scratch(conn: sqlite3.Connection, columns: tuple[str, ...]) -> None:
    """Create this connection's temporary tables (once): ``INSTANCES``, the scratch table and its instances."""
    from search.index.schema import TOKENIZER
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{INSTANCES} USING fts5vocab(main, chunks_fts, instance)")
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.sift_scratch USING fts5({', '.join(columns)}, "
                 f"tokenize = '{TOKENIZER}')")
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{SCRATCH_INSTANCES} "
                 f"USING fts5vocab(temp, sift_scratch, instance)")


def scratch_rows(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    """Put (rowid, title, headings, body) rows in the scratch table."""
    conn.executemany("INSERT INTO temp.sift_scratch(rowid, title, headings, body) VALUES (?, ?, ?, ?)", rows)


def scratch_words(conn: sqlite3.Connection, words: list[str]) -> None:
    """Put each word in the scratch table's body, as row 0, 1, 2 …"""
    conn.executemany("INSERT INTO temp.sift_scratch(rowid, body) VALUES (?, ?)", enumerate(words))


def clear_scratch(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM temp.sift_scratch")


def scratch_tokens(conn: sqlite3.Connection):
    """(row, token, offset) of every token in the scratch table (an iterator)."""
    return conn.execute(f"SELECT doc, term, offset FROM temp.{SCRATCH_INSTANCES}")


def instance_codes(conn: sqlite3.Connection, instances: str, bits: int):
    """Per term of an instance table (``INSTANCES`` or ``SCRATCH_INSTANCES``): (term, comma-separated codes), one
    code per occurrence: its row shifted left by ``bits``, plus the length of its column's name (an iterator)."""
    assert instances in (INSTANCES, SCRATCH_INSTANCES)
    return conn.execute(f"SELECT term, group_concat(doc * {2 ** bits} + length(col)) "
                        f"FROM temp.{instances} GROUP BY term")


def phrase_scores(conn: sqlite3.Connection, expression: str, weights: tuple[float, ...]) -> list[tuple[int, float]]:
    """[(rowid, BM25 score: higher is better)] of every row of the keyword index matching the FTS5 ``expression``
    (one phrase), by FTS5's bm25() with column ``weights``, in no order."""
    return conn.execute(f"SELECT rowid, -bm25(chunks_fts, {', '.join(map(str, weights))}) FROM chunks_fts "
                        "WHERE chunks_fts MATCH ?", (expression,)).fetchall()


# The published chunks holding a term (a token as FTS5 stores it), through the instance table (make_scratch first).
_HOLDING = (f"FROM temp.{INSTANCES} i JOIN chunks ch ON ch.id = i.doc JOIN files f ON f.id = ch.file "
            f"JOIN collections c ON c.id = f.collection WHERE i.term = ? AND {VISIBLE}")


def term_published(conn: sqlite3.Connection, term: str) -> bool:
    """Whether a published chunk holds ``term``; ``make_scratch`` first. Stops at the first such chunk, so a word
    in every chunk costs no more than a rare one."""
    return conn.execute(f"SELECT 1 {_HOLDING} LIMIT 1", (term,)).fetchone() is not None


def phrase_published(conn: sqlite3.Connection, phrase: str) -> bool:
    """Whether a published chunk holds the FTS5 ``phrase`` (its words side by side: '"get user"')."""
    return conn.execute("SELECT 1 FROM chunks_fts JOIN chunks ch ON ch.id = chunks_fts.rowid JOIN files f ON f.id = "
                        f"ch.file JOIN collections c ON c.id = f.collection WHERE chunks_fts MATCH ? AND {VISIBLE} "
                        "LIMIT 1", (phrase,)).fetchone() is not None


def term_texts(conn: sqlite3.Connection, term: str, limit: int) -> list[str]:
    """The text of up to ``limit`` published chunks that hold ``term``; ``make_scratch`` first."""
    return [r[0] for r in conn.execute(f"SELECT DISTINCT ch.text {_HOLDING} LIMIT ?", (term, limit))]


def working(conn, gen: int) -> list[sqlite3.Row]:
    """The slow work recorded for the generation (schema V10; none on an older index), oldest first."""
    if conn.execute("PRAGMA user_version").fetchone()[0] < 10:
        return []
    return conn.execute("SELECT * FROM working WHERE generation = ? ORDER BY since", (gen,)).fetchall()


def cut(conn, collection_id: int, paths: list[str]) -> dict[str, sqlite3.Row]:
    """The chunks kept of these big files by the build that handed them to the background (store.keep_cut), by
    path: sha256, settings, chunks."""
    if not paths:
        return {}
    found = {}
    for i in range(0, len(paths), 500):
        part = paths[i:i + 500]
        found.update((r["path"], r) for r in conn.execute(
            f"SELECT path, sha256, settings, chunks FROM cut WHERE collection = ? AND path IN "
            f"({','.join('?' * len(part))})", (collection_id, *part)))
    return found


def background(conn, collection_id: int | None = None) -> list[sqlite3.Row]:
    """The big files embedded in the background (schema V17; none on an older index), of one collection or all,
    by path: collection, path, the basis they were chunked from, bytes, total, done, since, pid."""
    if conn.execute("PRAGMA user_version").fetchone()[0] < 17:
        return []
    if collection_id is None:
        return conn.execute("SELECT * FROM background ORDER BY collection, path").fetchall()
    return conn.execute("SELECT * FROM background WHERE collection = ? ORDER BY path", (collection_id,)).fetchall()
