"""Writing the index: collections, generations, file versions, chunks, vectors.

A generation is built by many jobs and becomes visible in one transaction
(``publish``). Each file version carries the range of generations that see it
(``gen_from``, ``gen_to``), so a reader of the published generation never sees
rows that a generation being built has added or retired.

Every write here is idempotent: running a job twice leaves the index as if it
had run once.
"""
from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from dataclasses import dataclass

from search.db import transaction
from search.queries import IN_FLIGHT, VISIBLE  # noqa: F401 (the SQL fragments live in the query layer)
from search.text import index_form

STAGES = ("parse", "chunk", "embed", "write")
TERMINAL = ("failed", "skipped")


@dataclass
class FileVersion:
    path: str
    kind: str
    size: int
    mtime: float
    sha256: str
    title: str = ""
    meta: dict | None = None


@dataclass
class ChunkRow:
    ordinal: int
    heading_path: str
    text: str
    tokens: int
    text_hash: str
    start_line: int | None = None
    end_line: int | None = None
    page: int | None = None
    end_page: int | None = None


# --- collections ------------------------------------------------------------

def ensure_collection(conn: sqlite3.Connection, name: str, root: str) -> sqlite3.Row:
    """The collection called ``name`` (created if new). A name keeps its root.

    A name that would make 'collection/path' ambiguous (``name_problem``) is refused; a root already
    registered under such a name is given the new name instead (the fix the refusal points to)."""
    check_name(name)
    with transaction(conn):
        row = conn.execute("SELECT * FROM collections WHERE name = ?", (name,)).fetchone()
        if row is None:
            by_root = conn.execute("SELECT * FROM collections WHERE root = ?", (root,)).fetchone()
            if by_root is not None and name_problem(by_root["name"]) is None:
                raise ValueError(f"{root} is already the collection {by_root['name']!r}")
            if by_root is not None:  # renamed: every other table refers to it by id
                conn.execute("UPDATE collections SET name = ? WHERE id = ?", (name, by_root["id"]))
            else:
                conn.execute("INSERT INTO collections(name, root, created) VALUES (?, ?, ?)",
                             (name, root, time.time()))
            row = conn.execute("SELECT * FROM collections WHERE name = ?", (name,)).fetchone()
        elif row["root"] != root:
            raise ValueError(f"collection {name!r} already indexes {row['root']}, not {root}")
    return row


MAX_NAME = 200  # what the MCP tools accept as a collection name


def check_name(name) -> None:
    """Raise ValueError, saying why and what to do, if ``name`` cannot name a collection."""
    why = name_problem(name)
    if why:
        raise ValueError(f"collection name {name!r} cannot be used: {why}, which makes 'collection/path' "
                         f"ambiguous; choose another with --name (e.g. --name {_suggested(name)!r})")


def name_problem(name) -> str | None:
    """Why ``name`` cannot name a collection ('collection/path' must split one way only), or None."""
    import unicodedata
    if not isinstance(name, str) or not name.strip():
        return "it is empty"
    if name != name.strip():
        return "it begins or ends with a space"
    if name in (".", ".."):
        return f"{name!r} means a folder in a path"
    if "/" in name or "\\" in name:
        return "it holds '/' or '\\', which separate folders"
    if any(unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") for ch in name):
        return "it holds a control character, a line break or bytes that are not text"
    if len(name) > MAX_NAME:
        return f"it is longer than {MAX_NAME} characters"
    return None


def bad_name_fix(name: str, root: str) -> str | None:
    """For an existing collection whose name is refused now: what is wrong and how to rename it."""
    why = name_problem(name)
    if why is None:
        return None
    return (f"the collection name {name!r} makes 'collection/path' ambiguous ({why}): rename it with "
            f"`ingest enqueue {root} --name NEWNAME` (or sift-mcp --root {root} --name NEWNAME)")


def _suggested(name) -> str:
    import re
    text = name if isinstance(name, str) else ""
    text = re.sub(r"[/\\\s\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]+", "-", text).strip("-. ")
    return text[:MAX_NAME] or "notes"


def collection_for_root(conn: sqlite3.Connection, root: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM collections WHERE root = ?", (root,)).fetchone()


def get_collection(conn: sqlite3.Connection, collection_id: int) -> sqlite3.Row:
    row = conn.execute("SELECT * FROM collections WHERE id = ?", (collection_id,)).fetchone()
    if row is None:
        raise LookupError(f"no collection with id {collection_id}")
    return row


# --- generations ------------------------------------------------------------

def begin_generation(conn: sqlite3.Connection, collection_id: int, model: str | None) -> int:
    """The generation being built for the collection, started if there is none."""
    with transaction(conn):
        row = conn.execute("SELECT id FROM generations WHERE collection = ? AND state = 'building'",
                           (collection_id,)).fetchone()
        if row:
            conn.execute("UPDATE generations SET model = ?, discovered = NULL WHERE id = ?",
                         (model, row["id"]))
            return row["id"]
        cur = conn.execute("INSERT INTO generations(collection, state, model, started) "
                           "VALUES (?, 'building', ?, ?)", (collection_id, model, time.time()))
        return cur.lastrowid


def remember_model(conn: sqlite3.Connection, model_id: str, path: str) -> None:
    """Record where the model ``model_id`` was loaded from, so readers can load it by id (schema V6)."""
    with transaction(conn):
        conn.execute("INSERT INTO models(id, path, recorded) VALUES (?, ?, ?) ON CONFLICT(id, path) "
                     "DO UPDATE SET recorded = excluded.recorded", (model_id, os.path.abspath(path), time.time()))


def model_paths(conn: sqlite3.Connection, model_id: str) -> list[str]:
    """The files recorded for ``model_id``, newest first (none before schema V6)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'models'").fetchone():
        return []
    return [r[0] for r in conn.execute("SELECT path FROM models WHERE id = ? ORDER BY recorded DESC", (model_id,))]


def building_model(conn: sqlite3.Connection, collection_id: int) -> tuple[bool, str | None]:
    """(is a generation being built, the model it embeds with)."""
    row = conn.execute("SELECT model FROM generations WHERE collection = ? AND state = 'building'",
                       (collection_id,)).fetchone()
    return (row is not None, row["model"] if row else None)


def generation(conn: sqlite3.Connection, gen: int) -> sqlite3.Row:
    return conn.execute("SELECT * FROM generations WHERE id = ?", (gen,)).fetchone()


def published_model(conn: sqlite3.Connection, collection_id: int) -> str | None:
    row = conn.execute("SELECT g.model FROM collections c JOIN generations g ON g.id = c.published "
                       "WHERE c.id = ?", (collection_id,)).fetchone()
    return row["model"] if row else None


def current_files(conn: sqlite3.Connection, collection_id: int) -> dict[str, sqlite3.Row]:
    """path → the newest version of each file that is not deleted (published or being built)."""
    rows = conn.execute("SELECT id, path, size, mtime, sha256, gen_from FROM files "
                        "WHERE collection = ? AND gen_to IS NULL", (collection_id,))
    return {row["path"]: row for row in rows}


def record_plan(conn, gen: int, collection_id: int, changes: dict[str, str],
                touched: dict[str, tuple[int, float]], seen: int) -> None:
    """Store what discover found: ``changes`` maps path → added/changed/renamed/deleted.

    Deleted files are retired at once (readers of the published generation
    still see them); ``touched`` files only had their size or mtime change.
    """
    now = time.time()
    with transaction(conn):
        for path, change in changes.items():
            if change == "deleted":
                _retire(conn, collection_id, path, gen)
                _set_progress(conn, gen, path, change, "write", "done", now)
            else:
                _set_progress(conn, gen, path, change, "parse", "queued", now, force=True)
        for path, (size, mtime) in touched.items():
            conn.execute("UPDATE files SET size = ?, mtime = ? WHERE collection = ? AND path = ? "
                         "AND gen_to IS NULL", (size, mtime, collection_id, path))
        unchanged = seen - sum(1 for c in changes.values() if c != "deleted")
        conn.execute("UPDATE generations SET discovered = ?, seen = ?, unchanged = ? WHERE id = ?",
                     (now, seen, unchanged, gen))


def pending_paths(conn: sqlite3.Connection, gen: int) -> list[str]:
    """Files of the generation whose jobs have not finished (to queue again after a crash)."""
    rows = conn.execute(f"SELECT path FROM progress INDEXED BY progress_open WHERE generation = ? AND {IN_FLIGHT} "
                        "ORDER BY path", (gen,))
    return [row["path"] for row in rows]


def not_past(conn: sqlite3.Connection, gen: int, paths, stage: str) -> list[str]:
    """Those of ``paths`` that have not got past ``stage``: not done with it, not failed or skipped.
    A job that fails for good marks these failed; the others are another job's or finished."""
    wanted, limit, found = sorted(set(paths)), _rank(stage, "done"), []
    for i in range(0, len(wanted), 500):  # only these paths' rows, not the whole generation's
        part = wanted[i:i + 500]
        rows = conn.execute(f"SELECT path, stage, state FROM progress WHERE generation = ? AND path IN "
                            f"({','.join('?' * len(part))})", (gen, *part)).fetchall()
        found += [r["path"] for r in rows if _rank(r["stage"], r["state"]) < limit]
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


def troubled(conn, gen: int) -> list[sqlite3.Row]:
    """The generation's failed and skipped files, by path (through the progress_trouble index)."""
    return conn.execute("SELECT path, stage, state, reason FROM progress INDEXED BY progress_trouble WHERE generation = ? "
                        "AND state IN ('failed', 'skipped') ORDER BY path", (gen,)).fetchall()


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


def _count_at_publish(conn, collection_id: int, before: int | None, gen: int) -> tuple[int, int]:
    """(files, chunks) searchable once ``gen`` replaces ``before``: what ``before`` showed, plus the files this
    generation wrote, minus the versions it retired. Costs what the generation changed, not the collection."""
    files, chunks = searchable(conn, collection_id, before) if before is not None else (0, 0)
    added = conn.execute("SELECT coalesce(sum(files), 0), coalesce(sum(chunks), 0) FROM progress_counts "
                         "WHERE generation = ? AND stage = 'write' AND state = 'done' AND change != 'deleted'",
                         (gen,)).fetchone()
    retired = (0, 0) if before is None else conn.execute(
        "SELECT count(DISTINCT f.id), count(ch.id) FROM files f LEFT JOIN chunks ch ON ch.file = f.id "
        "WHERE f.gen_to > ? AND f.gen_to <= ? AND f.collection = ? AND f.gen_from <= ?",
        (before, gen, collection_id, before)).fetchone()
    return files + added[0] - retired[0], chunks + added[1] - retired[1]


# --- progress -------------------------------------------------------------------

def mark(conn, gen: int, paths, stage: str, state: str, reason: str | None = None,
         counts: dict[str, tuple[int, int]] | None = None) -> None:
    """Move files forward to ``stage``/``state``; never moves a file backwards."""
    now = time.time()
    with transaction(conn):
        if not _building(conn, gen):
            return  # a late duplicate of a job whose generation is published
        for path in paths:
            chunks, embedded = (counts or {}).get(path, (None, None))
            _set_progress(conn, gen, path, None, stage, state, now, reason, chunks, embedded)


def _set_progress(conn, gen, path, change, stage, state, now, reason=None, chunks=None,
                  embedded=None, force=False):
    row = conn.execute("SELECT change, stage, state FROM progress WHERE generation = ? AND path = ?",
                       (gen, path)).fetchone()
    if row and not force:
        if _rank(row["stage"], row["state"]) > _rank(stage, state):
            return
        change = change or row["change"]
    conn.execute(
        "INSERT INTO progress(generation, path, change, stage, state, reason, chunks, embedded, updated) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(generation, path) DO UPDATE SET "
        "change = excluded.change, stage = excluded.stage, state = excluded.state, "
        "reason = excluded.reason, chunks = coalesce(excluded.chunks, chunks), "
        "embedded = coalesce(excluded.embedded, embedded), updated = excluded.updated",
        (gen, path, change or "changed", stage, state, reason, chunks, embedded, now))


def _building(conn, gen: int) -> bool:
    row = conn.execute("SELECT state FROM generations WHERE id = ?", (gen,)).fetchone()
    return row is not None and row["state"] == "building"


def _rank(stage: str, state: str) -> int:
    finished = state != "queued"
    return STAGES.index(stage) * 2 + (1 if finished else 0) + (10 if state in TERMINAL else 0)


# --- embedding cache ----------------------------------------------------------------

def cached_hashes(conn: sqlite3.Connection, model: str, hashes: list[str]) -> set[str]:
    found: set[str] = set()
    unique = sorted(set(hashes))
    for i in range(0, len(unique), 500):
        part = unique[i:i + 500]
        marks = ",".join("?" * len(part))
        rows = conn.execute(f"SELECT text_hash FROM vectors WHERE model = ? AND text_hash IN ({marks})",
                            [model, *part])
        found.update(row[0] for row in rows)
    return found


# --- writing file versions ------------------------------------------------------------

def write_files(conn, gen: int, collection_id: int, items: list[tuple[FileVersion, list[ChunkRow]]],
                model: str | None, vectors: dict[str, bytes], embedded: dict[str, int]) -> None:
    """Write new versions of files for generation ``gen`` in one transaction."""
    now = time.time()
    with transaction(conn):
        if not _building(conn, gen):
            return  # a late duplicate of a job whose generation is published
        for text_hash, blob in vectors.items():
            conn.execute("INSERT OR IGNORE INTO vectors(model, text_hash, vec) VALUES (?, ?, ?)",
                         (model, text_hash, blob))
        for version, chunks in items:
            _retire(conn, collection_id, version.path, gen)  # also drops a version this generation wrote
            file_id = _insert_file(conn, collection_id, version, gen)
            for chunk in chunks:
                _insert_chunk(conn, file_id, version, chunk)
            _set_progress(conn, gen, version.path, None, "write", "done", now,
                          chunks=len(chunks), embedded=embedded.get(version.path, 0))


def _retire(conn, collection_id, path, gen):
    """The current version of ``path`` is no longer seen from generation ``gen`` on; a version this generation
    wrote itself (a retried or repeated job) is removed. Found through files_current (gen_to IS NULL): a
    version the building generation wrote is always current (it was never published, so nothing retired it)."""
    for row in conn.execute("SELECT id, gen_from FROM files WHERE collection = ? AND path = ? "
                            "AND gen_to IS NULL", (collection_id, path)).fetchall():
        if row["gen_from"] >= gen:  # written by this generation itself: never published
            _delete_file_rows(conn, row["id"])
        else:
            conn.execute("UPDATE files SET gen_to = ? WHERE id = ?", (gen, row["id"]))


def _delete_file_rows(conn, file_id: int) -> None:
    conn.execute("DELETE FROM links WHERE file = ?", (file_id,))
    conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file = ?)", (file_id,))
    conn.execute("DELETE FROM chunks WHERE file = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def _insert_file(conn, collection_id: int, v: FileVersion, gen: int) -> int:
    cur = conn.execute(
        "INSERT INTO files(collection, path, kind, size, mtime, sha256, title, meta, gen_from) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (collection_id, v.path, v.kind, v.size, v.mtime, v.sha256, v.title,
         json.dumps(v.meta or {}, ensure_ascii=False, default=str), gen))
    for target in (v.meta or {}).get("links", []):
        conn.execute("INSERT OR IGNORE INTO links(file, target) VALUES (?, ?)", (cur.lastrowid, target))
    return cur.lastrowid


def _insert_chunk(conn, file_id: int, version: FileVersion, c: ChunkRow) -> None:
    cur = conn.execute(
        "INSERT INTO chunks(file, ordinal, heading_path, start_line, end_line, page, end_page, text, "
        "tokens, text_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (file_id, c.ordinal, c.heading_path, c.start_line, c.end_line, c.page, c.end_page, c.text,
         c.tokens, c.text_hash))
    meta = version.meta or {}
    title = " ".join([version.title or "", *meta.get("aliases", []), *meta.get("tags", [])])
    conn.execute("INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (?, ?, ?, ?)",
                 (cur.lastrowid, index_form(title), index_form(c.heading_path), index_form(c.text)))


# --- publishing -------------------------------------------------------------------

def try_publish(conn: sqlite3.Connection, gen: int) -> bool:
    """Publish ``gen`` if discover has finished and every file has reached its end."""
    with transaction(conn):
        row = generation(conn, gen)
        if row is None or row["state"] != "building" or row["discovered"] is None:
            return row is not None and row["state"] == "published"
        # one file still in flight is enough to wait (the progress_open index: no scan of the generation)
        if conn.execute(f"SELECT 1 FROM progress INDEXED BY progress_open WHERE generation = ? AND {IN_FLIGHT} "
                        "LIMIT 1", (gen,)).fetchone():
            return False
        before = get_collection(conn, row["collection"])["published"]
        counted = _count_at_publish(conn, row["collection"], before, gen) if has_counts(conn) else None
        conn.execute("UPDATE generations SET state = 'superseded' WHERE collection = ? AND state = 'published'",
                     (row["collection"],))
        conn.execute("UPDATE generations SET state = 'published', finished = ? WHERE id = ?",
                     (time.time(), gen))
        if counted:
            conn.execute("UPDATE generations SET files = ?, chunks = ? WHERE id = ?", (*counted, gen))
        conn.execute("UPDATE collections SET published = ? WHERE id = ?", (gen, row["collection"]))
        _fault_pause_publish(gen)
    collect_garbage(conn, row["collection"])
    return True


def _fault_pause_publish(gen: int) -> None:
    """Fault injection for tests/test_crash.py: SIFT_FAULT_PAUSE_PUBLISH=seconds holds the publish transaction
    open, its writes done and not committed, so a test can kill the worker inside it. Unset: nothing."""
    pause = float(os.environ.get("SIFT_FAULT_PAUSE_PUBLISH") or 0)
    if pause > 0:
        print(f"SIFT_FAULT_PAUSE_PUBLISH: publish of generation {gen} waits {pause:g} s before COMMIT",
              file=sys.stderr, flush=True)
        time.sleep(pause)


GC_SLICE = 1000  # old file versions dropped per transaction


def collect_garbage(conn: sqlite3.Connection, collection_id: int) -> None:
    """Drop file versions no published generation can see any more, and unused vectors.

    In slices of GC_SLICE file versions, each its own transaction: after a rebuild of 200,000 files one
    transaction held the write lock for 20 s (a minute on a busy machine), and every other job waited
    behind it. Nobody reads these rows, and a clean-up cut short is finished by the next publish."""
    while True:
        with transaction(conn):
            published = get_collection(conn, collection_id)["published"]
            old = conn.execute("SELECT id FROM files WHERE collection = ? AND gen_to IS NOT NULL AND gen_to <= ? "
                               "LIMIT ?", (collection_id, published, GC_SLICE)).fetchall()
            for row in old:
                _delete_file_rows(conn, row["id"])
        if len(old) < GC_SLICE:
            break
    with transaction(conn):
        building = conn.execute("SELECT 1 FROM generations WHERE state = 'building' LIMIT 1").fetchone()
        if not building:  # a build may be about to reuse a cached vector
            conn.execute("DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)")
            # vectors of a model no collection answers with any more (the model was changed); by the primary
            # key's model prefix, so this costs nothing when there are none
            for (old,) in conn.execute("SELECT DISTINCT model FROM generations WHERE model IS NOT NULL EXCEPT "
                                       "SELECT model FROM generations WHERE state = 'published'").fetchall():
                conn.execute("DELETE FROM vectors WHERE model = ?", (old,))
