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
import posixpath
import sqlite3
import sys
import time
import zlib
from dataclasses import astuple, dataclass

from search.index import file_reads
from search.index.collection_reads import VISIBLE, get_collection
from search.index.db import transaction
from search.index.generation_reads import generation
from search.index.names import check_name, name_problem, tag_names
from search.index.progress_reads import IN_FLIGHT, STAGES, generation_progress, has_counts, rank, searchable
from search.index.remembered import AWAY, AWAY_REASON, Basis, Outcome
from search.index.working import NO_PROCESS
from search.query.pinyin import words as pinyin_words
from search.query.text import code_index_form, index_form, title_text


@dataclass
class FileVersion:
    path: str
    kind: str
    size: int
    mtime: float
    sha256: str
    title: str = ""
    meta: dict | None = None
    ctime: float | None = None  # None: too recent to trust, the next scan hashes the file (schema V15)


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
    page_starts: list[tuple[int, int, int]] | None = None  # a PDF chunk's (offset in text, page, offset in page)
    dated: float | None = None  # the date the passage is about (unix time), where its file says one
    tags: list[str] | None = None  # its own tags, besides its file's (an Evernote note's, a mail message's labels)


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
                raise ValueError(f"{root} is already the collection {by_root['name']!r}: leave out --name (or "
                                 f"give --name {by_root['name']}) to scan it; a folder is one collection")
            if by_root is not None:  # renamed: every other table refers to it by id
                conn.execute("UPDATE collections SET name = ? WHERE id = ?", (name, by_root["id"]))
            else:
                conn.execute("INSERT INTO collections(name, root, created) VALUES (?, ?, ?)",
                             (name, root, time.time()))
            row = conn.execute("SELECT * FROM collections WHERE name = ?", (name,)).fetchone()
        elif row["root"] != root:
            raise ValueError(f"collection {name!r} already indexes {row['root']}, not {root}: give this folder "
                             "another name with --name NAME (a collection whose folder was moved follows it here "
                             "once nothing is left at the old path)")
    return row


def follow_move(conn: sqlite3.Connection, name: str, root: str) -> str | None:
    """The collection ``name``'s folder is now ``root`` when nothing is left at its old root and ``root`` is no
    other collection's: the folder was moved or renamed. Its files keep their versions, compared by their paths
    relative to the root at the next scan, so those found as they were are not read or embedded again (under a
    new name all were). Returns the old root when it moved, else None (``ensure_collection`` then decides)."""
    with transaction(conn):
        row = conn.execute("SELECT id, root FROM collections WHERE name = ?", (name,)).fetchone()
        if row is None or row["root"] == root or os.path.lexists(row["root"]) or \
                conn.execute("SELECT 1 FROM collections WHERE root = ?", (root,)).fetchone():
            return None
        conn.execute("UPDATE collections SET root = ?, root_missing_since = NULL WHERE id = ?", (root, row["id"]))
    return row["root"]


# --- a collection's scans (search.index.freshness) -------------------------------------


def claim_scan(conn: sqlite3.Connection, collection_id: int, now: float) -> None:
    """A scan starts now; the changes noticed and the scan requested are its to handle."""
    conn.execute("UPDATE collections SET scan_started = ?, changes_noticed = 0, scan_requested = NULL "
                 "WHERE id = ?", (now, collection_id))


def root_back(conn: sqlite3.Connection, collection_id: int) -> None:
    """The root is there (again)."""
    conn.execute("UPDATE collections SET root_missing_since = NULL WHERE id = ?", (collection_id,))


def root_missing(conn: sqlite3.Connection, collection_id: int, since: float) -> None:
    """The root is missing since ``since``; the scan gives up its claim."""
    conn.execute("UPDATE collections SET root_missing_since = ?, scan_started = NULL WHERE id = ?",
                 (since, collection_id))


def request_scan(conn: sqlite3.Connection, collection_id: int, now: float) -> None:
    """A scan is wanted (the first request's time is kept)."""
    conn.execute("UPDATE collections SET scan_requested = coalesce(scan_requested, ?) WHERE id = ?",
                 (now, collection_id))


def note_changes(conn: sqlite3.Connection, collection_id: int, files: int, now: float) -> None:
    """The watcher saw ``files`` files of the collection change."""
    conn.execute("UPDATE collections SET changes_noticed = ?, changes_noticed_at = ? WHERE id = ?",
                 (files, now, collection_id))


# --- generations ------------------------------------------------------------


def begin_generation(conn: sqlite3.Connection, collection_id: int, model: str | None,
                     chunking: str | None = None) -> int:
    """The generation being built for the collection, started if there is none; ``chunking`` is how its files
    are cut (schema V11)."""
    with transaction(conn):
        row = conn.execute("SELECT id FROM generations WHERE collection = ? AND state = 'building'",
                           (collection_id,)).fetchone()
        if row:
            conn.execute("UPDATE generations SET model = ?, chunking = ?, discovered = NULL WHERE id = ?",
                         (model, chunking, row["id"]))
            return row["id"]
        cur = conn.execute("INSERT INTO generations(collection, state, model, chunking, started) "
                           "VALUES (?, 'building', ?, ?, ?)", (collection_id, model, chunking, time.time()))
        return cur.lastrowid


def remember_model(conn: sqlite3.Connection, model_id: str, path: str) -> None:
    """Record where the model ``model_id`` was loaded from, so readers can load it by id (schema V6)."""
    with transaction(conn):
        conn.execute("INSERT INTO models(id, path, recorded) VALUES (?, ?, ?) ON CONFLICT(id, path) "
                     "DO UPDATE SET recorded = excluded.recorded", (model_id, os.path.abspath(path), time.time()))


def record_plan(conn, gen: int, collection_id: int, changes: dict[str, str],
                touched: dict[str, tuple[int, float, float | None]], seen: int,
                unread: dict[str, int] | None = None, moved: dict[str, int] | None = None) -> None:
    """Store what discover found: ``changes`` maps path → added/changed/renamed/deleted.

    Deleted files are retired at once (readers of the published generation
    still see them); ``touched`` files only had their size or mtime change;
    ``unread`` counts per extension the files of kinds Sift does not read (schema V8);
    ``moved`` (new path → the id of the version it was indexed as) are notes not on this disk, moved on another
    device (ingest.freed_moves): their version is written under the new path here, as indexed, not read.
    """
    now = time.time()
    with transaction(conn):
        for path, change in changes.items():
            if change == "deleted":
                _retire(conn, collection_id, path, gen)
                _set_progress(conn, gen, path, change, "write", "done", now)
            else:
                _set_progress(conn, gen, path, change, "parse", "queued", now, force=True)
        for path, (size, mtime, ctime) in touched.items():
            conn.execute("UPDATE files SET size = ?, mtime = ?, ctime = ? WHERE collection = ? AND path = ? "
                         "AND gen_to IS NULL", (size, mtime, ctime, collection_id, path))
        for path, file_id in (moved or {}).items():  # the old path's version was retired above (its 'deleted')
            chunks = _move_version(conn, collection_id, file_id, path, gen)
            _set_progress(conn, gen, path, "renamed", "write", "done", now, chunks=chunks, embedded=0, force=True)
        unchanged = seen - sum(1 for c in changes.values() if c != "deleted")
        conn.execute("UPDATE generations SET discovered = ?, seen = ?, unchanged = ?, unread = ? WHERE id = ?",
                     (now, seen, unchanged, json.dumps(dict(unread or {}), ensure_ascii=False), gen))


def settle_ctimes(conn, collection_id: int, ctimes: dict[str, float | None]) -> None:
    """Keep the new ctime of files a scan hashed and found the same, size and mtime as before (a chmod, or a
    ctime that was too recent to keep): no generation, nothing a reader shows changes (schema V15)."""
    if not ctimes:
        return
    with transaction(conn):
        conn.executemany("UPDATE files SET ctime = ? WHERE collection = ? AND path = ? AND gen_to IS NULL",
                         [(ctime, collection_id, path) for path, ctime in ctimes.items()])


def scanned_unchanged(conn, collection_id: int, now: float) -> None:
    """A scan found nothing changed since the published generation, not even a file's mtime: no generation is
    made. Its claim ends and its start is kept as the collection's last scan (schema V12)."""
    with transaction(conn):
        conn.execute("UPDATE collections SET scanned_unchanged = coalesce(scan_started, ?), scan_started = NULL "
                     "WHERE id = ?", (now, collection_id))


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
         counts: dict[str, tuple[int, int]] | None = None, error: str | None = None) -> None:
    """Move files forward to ``stage``/``state``; never moves a file backwards. ``error``: the class of the error a
    failure was, for a bug report (schema V30; the reason says it in words)."""
    now = time.time()
    with transaction(conn):
        if not _building(conn, gen):
            return  # a late duplicate of a job whose generation is published
        for path in paths:
            chunks, embedded = (counts or {}).get(path, (None, None))
            _set_progress(conn, gen, path, None, stage, state, now, reason, chunks, embedded, error=error)


def _set_progress(conn, gen, path, change, stage, state, now, reason=None, chunks=None,
                  embedded=None, force=False, error=None):
    row = conn.execute("SELECT change, stage, state FROM progress WHERE generation = ? AND path = ?",
                       (gen, path)).fetchone()
    if row and not force:
        if rank(row["stage"], row["state"]) > rank(stage, state):
            return
        change = change or row["change"]
    conn.execute(
        "INSERT INTO progress(generation, path, change, stage, state, reason, chunks, embedded, updated, error) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(generation, path) DO UPDATE SET "
        "change = excluded.change, stage = excluded.stage, state = excluded.state, "
        "reason = excluded.reason, chunks = coalesce(excluded.chunks, chunks), "
        "embedded = coalesce(excluded.embedded, embedded), updated = excluded.updated, error = excluded.error",
        (gen, path, change or "changed", stage, state, reason, chunks, embedded, now, error))


def _building(conn, gen: int) -> bool:
    row = conn.execute("SELECT state FROM generations WHERE id = ?", (gen,)).fetchone()
    return row is not None and row["state"] == "building"


# --- outcomes of skipped and failed files (search.index.remembered) ---------------------------------


def remember_outcome(conn: sqlite3.Connection, gen: int, collection_id: int, path: str, basis: Basis,
                     outcome: Outcome) -> None:
    """Keep ``outcome`` of ``path``, unless ``gen`` is no longer being built (a late duplicate job)."""
    with transaction(conn):
        if not _building(conn, gen):
            return
        conn.execute(
            "INSERT INTO remembered(collection, path, size, mtime, ctime, settings, stage, state, reason, error) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(collection, path) DO UPDATE SET size = excluded.size, "
            "mtime = excluded.mtime, ctime = excluded.ctime, settings = excluded.settings, stage = excluded.stage, "
            "state = excluded.state, reason = excluded.reason, error = excluded.error",
            (collection_id, path, basis.size, basis.mtime, basis.ctime, basis.settings, outcome.stage,
             outcome.state, outcome.reason, outcome.error))


def keep_remembered(conn: sqlite3.Connection, collection_id: int, paths) -> None:
    """Forget every remembered outcome of the collection but those of ``paths`` (the notes not downloaded, AWAY,
    are ``record_away``'s)."""
    keep = set(paths)
    with transaction(conn):
        held = [r[0] for r in conn.execute("SELECT path FROM remembered WHERE collection = ? AND state != ?",
                                           (collection_id, AWAY))]
        conn.executemany("DELETE FROM remembered WHERE collection = ? AND path = ?",
                         [(collection_id, p) for p in held if p not in keep])


def record_away(conn: sqlite3.Connection, collection_id: int, away: dict[str, tuple[int, float, float | None]],
                under: list[str] | None = None) -> None:
    """Keep which notes of the collection a scan found not downloaded on this machine (a sync client's placeholder
    stands for each, or it is cloud-only), with the size, mtime and ctime indexed, as remembered rows of state AWAY,
    for stats to count without looking on disk. ``under``: the paths a targeted scan read (files, folders), whose
    rows alone it replaces; None: a walk of the whole collection, all of them. Writes only what changed."""
    held = file_reads.away_paths(conn, collection_id)
    if under is not None:
        held = {path for path in held if any(path == p or path.startswith(p.rstrip("/") + "/") for p in under)}
    gone, new = held - set(away), [path for path in away if path not in held]
    if not gone and not new:
        return
    with transaction(conn):
        conn.executemany("DELETE FROM remembered WHERE collection = ? AND path = ? AND state = ?",
                         [(collection_id, path, AWAY) for path in gone])
        conn.executemany("INSERT OR REPLACE INTO remembered(collection, path, size, mtime, ctime, settings, stage, "
                         "state, reason) VALUES (?, ?, ?, ?, ?, '', 'parse', ?, ?)",
                         [(collection_id, path, *away[path][:2], away[path][2] or 0.0, AWAY, AWAY_REASON)
                          for path in new])


def forget_remembered(conn: sqlite3.Connection, collection_id: int, paths) -> None:
    with transaction(conn):
        conn.executemany("DELETE FROM remembered WHERE collection = ? AND path = ?",
                         [(collection_id, p) for p in paths])


# --- big files embedded in the background (workers.tasks.embed_in_background) ----------------------------


def begin_background(conn, collection_id: int, path: str, basis: Basis, size: int, total: int, since: float) -> None:
    """A big file's ``total`` chunks go to a job of their own, waiting for a worker; ``since`` is the job's token.
    Replaces what an earlier version of the file left (that job then stops: ``background_progress``)."""
    with transaction(conn):
        conn.execute(
            "INSERT INTO background(collection, path, size, mtime, ctime, settings, bytes, total, done, since, pid) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, NULL) ON CONFLICT(collection, path) DO UPDATE SET "
            "size = excluded.size, mtime = excluded.mtime, ctime = excluded.ctime, settings = excluded.settings, "
            "bytes = excluded.bytes, total = excluded.total, done = 0, since = excluded.since, pid = NULL, "
            "failed = NULL, error = NULL",
            (collection_id, path, basis.size, basis.mtime, basis.ctime, basis.settings, size, total, since))


def background_progress(conn, collection_id: int, path: str, since: float, done: int, pid: int,
                        model: str | None = None, vectors: dict[str, bytes] | None = None) -> bool:
    """The job of token ``since`` has ``done`` chunks (``vectors``: those it embedded since it last said so, into
    the cache); False, writing nothing, when it is no longer wanted: its collection was removed, or a later
    version of the file or a scan that read it again took its row."""
    with transaction(conn):
        if not conn.execute("UPDATE background SET done = ?, pid = ? WHERE collection = ? AND path = ? AND since = ?",
                            (done, pid, collection_id, path, since)).rowcount:
            return False
        conn.executemany("INSERT OR IGNORE INTO vectors(model, text_hash, vec) VALUES (?, ?, ?)",
                         [(model, text_hash, blob) for text_hash, blob in (vectors or {}).items()])
    return True


def keep_cut(conn, collection_id: int, path: str, sha256: str, settings: str, rows: list[ChunkRow]) -> None:
    """The chunks of a big file handed to the background, as its build cut them from the content of ``sha256``
    with ``settings`` (search.index.remembered.fingerprint): the build that publishes it takes them
    (work_reads.cut) instead of cutting it again."""
    blob = zlib.compress(json.dumps([list(astuple(r)) for r in rows], ensure_ascii=False).encode("utf-8",
                                                                                               "surrogatepass"), 1)
    with transaction(conn):
        conn.execute("INSERT OR REPLACE INTO cut(collection, path, sha256, settings, chunks) VALUES (?, ?, ?, ?, ?)",
                     (collection_id, path, sha256, settings, blob))


def chunk_rows(blob: bytes) -> list[ChunkRow]:
    """The chunk rows ``keep_cut`` kept."""
    rows = [ChunkRow(*fields) for fields in json.loads(zlib.decompress(blob).decode("utf-8", "surrogatepass"))]
    for row in rows:
        if row.page_starts:
            row.page_starts = [tuple(start) for start in row.page_starts]
    return rows


def take_background(conn, collection_id: int, path: str, since: float, pid: int) -> bool:
    """The worker ``pid`` takes the job of token ``since``, before it loads the model: a worker killed while
    loading it (before the job's first progress) left the row 'waiting', which no periodic rescan looked at, until
    the consumer started again. False, writing nothing, when the job is no longer wanted (``background_progress``)."""
    with transaction(conn):
        return bool(conn.execute("UPDATE background SET pid = ? WHERE collection = ? AND path = ? AND since = ?",
                                 (pid, collection_id, path, since)).rowcount)


def fail_background(conn, collection_id: int, path: str, since: float, reason: str, error: str | None = None) -> None:
    """The job of token ``since`` failed for good with ``reason``: its row stays, failed (schema V18), so that a
    scan leaves the unchanged file failed as before, and stats, search and list_files say why; ``error``: the class
    of the error it was (schema V31), for a bug report."""
    with transaction(conn):
        conn.execute("UPDATE background SET failed = ?, error = ? WHERE collection = ? AND path = ? AND since = ?",
                     (reason, error, collection_id, path, since))


def retry_background(conn, collection_id: int) -> list[str]:
    """The collection's failed background rows (``ingest retry-failed``) become lost jobs (``stop_background``):
    the next scan reads their files again and hands them on again, also one whose passages are published already
    (searchable by keyword), which a forgotten row left without vectors until it changed. Returns their paths. (No
    ``RETURNING``: SQLite before 3.35, which a Python 3.10 built on Debian 11 links, refuses it, and nothing else
    here needs so new a SQLite.)"""
    with transaction(conn):
        paths = [r[0] for r in conn.execute("SELECT path FROM background WHERE collection = ? AND failed IS NOT NULL",
                                            (collection_id,)).fetchall()]
        conn.execute("UPDATE background SET failed = NULL, error = NULL, pid = ? WHERE collection = ? "
                     "AND failed IS NOT NULL",
                     (NO_PROCESS, collection_id))
    return paths


def stop_background(conn, rows) -> None:
    """Say of these rows of ``background`` that their jobs are lost (a consumer starts and no queue holds them),
    unless a job took them again since: their worker is then NO_PROCESS, none (search.index.working.alive), and
    the next scan reads the file again and hands it on again. The row stays until that scan's build is under
    way, keeping the vectors the lost job embedded from the clean-up of unused vectors (forgotten at once, they
    went with the publish of any other collection that ran first, and the file's new job embedded them again)."""
    with transaction(conn):
        conn.executemany("UPDATE background SET pid = ? WHERE collection = ? AND path = ? AND since = ?",
                         [(NO_PROCESS, r["collection"], r["path"], r["since"]) for r in rows])


def forget_background(conn, rows) -> None:
    """Forget these rows of ``background`` (work_reads.background), unless a job took them again since."""
    with transaction(conn):
        conn.executemany("DELETE FROM background WHERE collection = ? AND path = ? AND since = ?",
                         [(r["collection"], r["path"], r["since"]) for r in rows])


# --- embedding cache ----------------------------------------------------------------

# --- writing file versions ------------------------------------------------------------


def write_files(conn, gen: int, collection_id: int, items: list[tuple[FileVersion, list[ChunkRow]]],
                model: str | None, vectors: dict[str, bytes], embedded: dict[str, int],
                as_indexed: dict[str, int] | None = None) -> None:
    """Write new versions of files for generation ``gen`` in one transaction; ``as_indexed`` (path → a version's
    id): versions written again as they are (a freed note's, whose vectors of a new model are in ``vectors``)."""
    now = time.time()
    written: set[str] = set()  # the Chinese words it puts in the pinyin table
    with transaction(conn):
        if not _building(conn, gen):
            return  # a late duplicate of a job whose generation is published
        held = _pinyin_written(conn)
        for text_hash, blob in vectors.items():
            conn.execute("INSERT OR IGNORE INTO vectors(model, text_hash, vec) VALUES (?, ?, ?)",
                         (model, text_hash, blob))
        for version, chunks in items:
            _retire(conn, collection_id, version.path, gen)  # also drops a version this generation wrote
            _insert_version(conn, collection_id, version, chunks, gen, held, written)
            _fault_write(version.path)
            _set_progress(conn, gen, version.path, None, "write", "done", now,
                          chunks=len(chunks), embedded=embedded.get(version.path, 0))
        for path, file_id in (as_indexed or {}).items():
            if _written_by(conn, file_id, gen):  # a parse run again after this write (a job retried or requeued)
                # handed on the copy this generation wrote: retired, it was deleted, and then copied from nothing
                chunks = conn.execute("SELECT count(*) FROM chunks WHERE file = ?", (file_id,)).fetchone()[0]
            else:
                _retire(conn, collection_id, path, gen)  # its version stays a row of its own: retired, then copied
                chunks = _move_version(conn, collection_id, file_id, path, gen)
            _set_progress(conn, gen, path, None, "write", "done", now, chunks=chunks, embedded=embedded.get(path, 0))
    held.update(written)  # committed: this connection's next files need not write them again


# The Chinese words (pairs of characters before V27) a connection's committed writes put in the pinyin table, by id: a
# later file's are not computed nor written again (INSERT OR IGNORE of each file's pairs, 807,000 for zh-retrieval's
# 75,000 distinct ones, was most of what the table cost its build). A connection is told by a TEMP table of its own, which
# a newer connection at the same id lacks; the table never loses a row, so what is held stays true.
_PINYIN_WRITTEN: dict[int, set[str]] = {}
PINYIN_WRITTEN_MOST = 500_000  # words held per connection at most (about 106 bytes each: 53 MB), then again


def _pinyin_written(conn) -> set[str]:
    if not conn.execute("SELECT 1 FROM temp.sqlite_master WHERE name = 'pinyin_written'").fetchone():
        conn.execute("CREATE TEMP TABLE pinyin_written(at)")
        if len(_PINYIN_WRITTEN) >= 8:  # connections of the past
            _PINYIN_WRITTEN.clear()
        _PINYIN_WRITTEN[id(conn)] = set()
    held = _PINYIN_WRITTEN.setdefault(id(conn), set())
    if len(held) > PINYIN_WRITTEN_MOST:
        held.clear()
    return held


def _written_by(conn, file_id: int, gen: int) -> bool:
    """Whether the file version ``file_id`` was written by generation ``gen`` (or a later one) itself."""
    row = conn.execute("SELECT gen_from FROM files WHERE id = ?", (file_id,)).fetchone()
    return row is not None and row[0] >= gen


def _move_version(conn, collection_id: int, file_id: int, path: str, gen: int) -> int:
    """Write the file version ``file_id`` again under ``path`` for generation ``gen``: its passages as they were
    cut, their vectors cached (nothing to embed), the title column and a link beside the note made for the new
    path. Returns how many chunks it has."""
    row = conn.execute("SELECT * FROM files WHERE id = ?", (file_id,)).fetchone()
    meta = json.loads(row["meta"] or "{}")
    before, after = posixpath.dirname(row["path"]), posixpath.dirname(path)
    for key in ("links", "attachments"):  # a link was read from the note's folder (ingest.links)
        if isinstance(meta.get(key), list) and before != after:
            meta[key] = [_moved_link(target, before, after) for target in meta[key]]
    version = FileVersion(path, row["kind"], row["size"], row["mtime"], row["sha256"], row["title"] or "", meta,
                          row["ctime"])
    chunks = [ChunkRow(c["ordinal"], c["heading_path"], c["text"], c["tokens"], c["text_hash"], c["start_line"],
                       c["end_line"], c["page"], c["end_page"],
                       [tuple(s) for s in json.loads(c["page_starts"])] if c["page_starts"] else None, c["dated"],
                       json.loads(c["tags"]) if c["tags"] else None)
              for c in conn.execute("SELECT * FROM chunks WHERE file = ? ORDER BY ordinal", (file_id,))]
    new_id = _insert_version(conn, collection_id, version, chunks, gen)
    columns = "message_id, thread, line, lines, subject, sent, topic, senders, people, by_subject"
    conn.execute(f"INSERT INTO mail_messages(file, {columns}) SELECT ?, {columns} FROM mail_messages WHERE file = ?",
                 (new_id, file_id))
    return len(chunks)


def _moved_link(target: str, before: str, after: str) -> str:
    """``target``, a link of a note moved from the folder ``before`` to ``after``: under ``before``, under ``after``
    now, as reading the note there would resolve it."""
    if before and target.startswith(before + "/"):
        return (f"{after}/" if after else "") + target[len(before) + 1:]
    return target


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
    conn.execute("DELETE FROM tags WHERE file = ?", (file_id,))
    conn.execute("DELETE FROM mail_messages WHERE file = ?", (file_id,))
    conn.execute("DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file = ?)", (file_id,))
    conn.execute("DELETE FROM chunks WHERE file = ?", (file_id,))
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def _insert_version(conn, collection_id: int, version: FileVersion, chunks: list[ChunkRow], gen: int,
                    held: set[str] = frozenset(), written: set[str] | None = None) -> int:
    """Insert a file version and its chunks; returns the file's id. ``held``: Chinese words the pinyin table holds
    already (``_pinyin_written``), not written again; ``written``: gets those it writes."""
    file_id = _insert_file(conn, collection_id, version, gen)
    title = index_form(_fts_title(version))
    tags = (version.meta or {}).get("tags")  # not ``held``: that name is the pinyin words written (a tag 调度 was one)
    tags = set(tags) if isinstance(tags, list) else set()
    forms = [title]  # the texts written to FTS5, whose Chinese words the pinyin table gets
    for chunk in chunks:
        # its own tags, those its file's title column lacks, in its title column: a '#tag' finds it
        own = index_form(" ".join(t for t in chunk.tags if t not in tags)) if chunk.tags else ""
        forms += _insert_chunk(conn, file_id, f"{title} {own}" if own.strip() else title, chunk, version.kind == "code")
    # the pinyin of its Chinese words, that a query in pinyin finds them by (search.query.pinyin)
    rows = pinyin_words(forms, held)
    conn.executemany("INSERT OR IGNORE INTO pinyin(key, word) VALUES (?, ?)", rows)
    if written is not None:
        written.update(pair for _, pair in rows)
    return file_id


def _insert_file(conn, collection_id: int, v: FileVersion, gen: int) -> int:
    # a mail file's messages are rows of their own (mail_messages), not JSON in its meta: a Takeout holds 100,000
    meta = {key: value for key, value in (v.meta or {}).items() if key != "mail_messages"}
    cur = conn.execute(
        "INSERT INTO files(collection, path, kind, size, mtime, sha256, title, meta, gen_from, ctime) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (collection_id, v.path, v.kind, v.size, v.mtime, v.sha256, v.title,
         json.dumps(meta, ensure_ascii=False, default=str), gen, v.ctime))
    # a row of a parse job queued before schema V24 has no subject columns (ingest.mail.subject_columns): None
    conn.executemany("INSERT INTO mail_messages(file, message_id, thread, line, lines, subject, sent, topic, senders, "
                     "people, by_subject) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     [(cur.lastrowid, *row, *[None] * (10 - len(row)))
                      for row in (v.meta or {}).get("mail_messages", ())])
    for target in (v.meta or {}).get("links", []):
        conn.execute("INSERT OR IGNORE INTO links(file, target) VALUES (?, ?)", (cur.lastrowid, target))
    conn.executemany("INSERT INTO tags(tag, file, chunk) VALUES (?, ?, NULL)",
                     [(tag, cur.lastrowid) for tag in sorted(tag_names((v.meta or {}).get("tags")))])
    return cur.lastrowid


def _fts_title(version: FileVersion) -> str:
    """The title column of the file's chunks: its title, aliases and tags, a PDF's author (its metadata's), and
    the words of its file name the title does not show (a note titled by its heading was not found by its file
    name). Written at every version, so a renamed file's rows hold its new name, not the old one."""
    return title_text(version.path, version.title, version.meta)


def _insert_chunk(conn, file_id: int, title: str, c: ChunkRow, code: bool = False) -> list[str]:
    """``title``: the chunk's title column, in index form. ``code``: the chunk is code, whose camelCase names are
    written with their words too (``code_index_form``); in prose, 'JavaScript' found by 'java' would be noise.
    Returns its headings and body columns as written (in index form)."""
    form = code_index_form if code else index_form
    cur = conn.execute(
        "INSERT INTO chunks(file, ordinal, heading_path, start_line, end_line, page, end_page, page_starts, "
        "text, tokens, text_hash, dated, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (file_id, c.ordinal, c.heading_path, c.start_line, c.end_line, c.page, c.end_page,
         json.dumps(c.page_starts) if c.page_starts else None, c.text, c.tokens, c.text_hash, c.dated,
         json.dumps(c.tags, ensure_ascii=False) if c.tags else None))
    columns = [form(c.heading_path), form(c.text)]
    conn.execute("INSERT INTO chunks_fts(rowid, title, headings, body) VALUES (?, ?, ?, ?)",
                 (cur.lastrowid, title, *columns))
    if c.tags:
        conn.executemany("INSERT INTO tags(tag, file, chunk) VALUES (?, ?, ?)",
                         [(tag, file_id, cur.lastrowid) for tag in sorted(tag_names(c.tags))])
    return columns


# --- publishing -------------------------------------------------------------------


def try_publish(conn: sqlite3.Connection, gen: int) -> bool:
    """Publish ``gen`` if discover has finished and every file has reached its end."""
    return publish_now(conn, gen) or published(conn, gen)


def published(conn, gen: int) -> bool:
    """Whether ``gen`` is its collection's published generation."""
    row = generation(conn, gen)
    return row is not None and row["state"] == "published"


def publish_now(conn: sqlite3.Connection, gen: int) -> bool:
    """``try_publish``, True only for the call that published ``gen`` (one of two workers racing to): what
    follows a publish (the next part of a first build, workers.tasks) is then done once."""
    with transaction(conn):
        row = generation(conn, gen)
        if row is None or row["state"] != "building" or row["discovered"] is None:
            return False
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
        if conn.execute("PRAGMA user_version").fetchone()[0] >= 10:  # what a killed worker left (working.py)
            conn.execute("DELETE FROM working WHERE generation = ?", (gen,))
        _fault_pause_publish(gen)
    collect_garbage(conn, row["collection"])
    return True


def _fault_write(path: str) -> None:
    """Fault injection for tests/test_write_fault.py: SIFT_FAULT_WRITE=path fails the write of that file, its
    passages inserted and the transaction not committed, as a constraint the index refuses would (a permanent
    error: no retry). Unset: nothing."""
    if path == os.environ.get("SIFT_FAULT_WRITE"):
        raise sqlite3.IntegrityError(f"SIFT_FAULT_WRITE: the write of {path} fails")


def _fault_pause_publish(gen: int) -> None:
    """Fault injection for tests/test_crash.py: SIFT_FAULT_PAUSE_PUBLISH=seconds holds the publish transaction
    open, its writes done and not committed, so a test can kill the worker inside it; or, once the file that
    SIFT_FAULT_RELEASE_PUBLISH names exists, no longer (a test that looks inside it, then lets it commit, need not
    wait out a pause long enough for a busy machine). Unset: nothing."""
    pause = float(os.environ.get("SIFT_FAULT_PAUSE_PUBLISH") or 0)
    if pause > 0:
        print(f"SIFT_FAULT_PAUSE_PUBLISH: publish of generation {gen} waits {pause:g} s before COMMIT",
              file=sys.stderr, flush=True)
        release, until = os.environ.get("SIFT_FAULT_RELEASE_PUBLISH"), time.monotonic() + pause
        while time.monotonic() < until and not (release and os.path.exists(release)):
            time.sleep(min(0.1, max(0.0, until - time.monotonic())))


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
    drop_superseded(conn, collection_id)
    drop_unused_vectors(conn)


# A superseded generation may go once nothing needs its row: its model is none (keyword only) or one a published
# generation still answers with. One embedded with a model no longer used is kept until drop_unused_vectors has
# dropped that model's vectors (it finds such models through these rows) and goes with them.
_SUPERSEDED = ("SELECT id FROM generations WHERE collection = ? AND state = 'superseded' AND (model IS NULL OR "
               "model IN (SELECT model FROM generations WHERE state = 'published'))")


def drop_superseded(conn: sqlite3.Connection, collection_id: int) -> None:
    """Forget the collection's superseded generations: their rows, their files' progress and its counts. Nothing
    reads them (searches read the published generation, stats the published and the building one, and a file
    skipped or failed as before is marked again in each generation), yet a row per generation and one per file it
    planned stayed for ever: 150 publishes of a 200-note folder left 150 generations and 600 progress rows, and a
    folder with 100 failed files added 100 more at every publish."""
    with transaction(conn):
        _drop_generations(conn, _SUPERSEDED, (collection_id,))


def _drop_generations(conn, select: str, params: tuple) -> None:
    for table in ("progress_counts", "progress", "working"):  # the counts first: their triggers then find none
        conn.execute(f"DELETE FROM {table} WHERE generation IN ({select})", params)
    conn.execute(f"DELETE FROM generations WHERE id IN ({select})", params)


# Cached vectors no chunk uses any more, kept after a publish: a checkout of another git branch and back, an edit
# undone or a note restored from the trash found their vectors dropped and embedded them all again (a branch
# switch of 212 notes, 20 of them edited: 23 chunks embedded at each switch back). They all go once they are more
# than UNUSED_VECTORS_KEPT and more than a quarter of the vectors in use (the cache keeps no age to drop the
# oldest by); ``ingest remove`` drops them at once.
UNUSED_VECTORS_KEPT = 5000
_UNUSED = "FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)"


def drop_unused_vectors(conn: sqlite3.Connection, keep: bool = True) -> None:
    """Drop the cached vectors no chunk uses (with ``keep``, only once they are too many to keep: see
    UNUSED_VECTORS_KEPT), unless a build is under way (it may be about to reuse one) or a big
    file is embedded in the background (its build reads them once it is done). A big file whose background job
    failed for good holds nothing back: its row stays until the file changes or ``ingest retry-failed``, which may
    be never, and every unused vector stayed meanwhile."""
    with transaction(conn):
        building = conn.execute("SELECT 1 FROM generations WHERE state = 'building' UNION ALL "
                                "SELECT 1 FROM background WHERE failed IS NULL LIMIT 1").fetchone()
        if not building:  # a build may be about to reuse a cached vector, or one embedded in the background
            if not keep or _too_many_unused(conn):
                conn.execute(f"DELETE {_UNUSED}")
            conn.execute("DELETE FROM cut")  # likewise a big file's chunks, kept for its build (keep_cut)
            # vectors of a model no collection answers with any more (the model was changed); by the primary
            # key's model prefix, so this costs nothing when there are none
            for (old,) in conn.execute("SELECT DISTINCT model FROM generations WHERE model IS NOT NULL EXCEPT "
                                       "SELECT model FROM generations WHERE state = 'published'").fetchall():
                conn.execute("DELETE FROM vectors WHERE model = ?", (old,))
                _drop_generations(conn, "SELECT id FROM generations WHERE state = 'superseded' AND model = ?", (old,))
    reclaim_free_pages(conn)


def _too_many_unused(conn: sqlite3.Connection) -> bool:
    unused = conn.execute(f"SELECT count(*) {_UNUSED}").fetchone()[0]
    if unused <= UNUSED_VECTORS_KEPT:
        return False
    return unused > (conn.execute("SELECT count(*) FROM vectors").fetchone()[0] - unused) // 4


def bytes_in_use(conn: sqlite3.Connection) -> int:
    """The index's pages that hold something, in bytes: what a VACUUM writes twice, once to a temporary copy and
    once into the index's WAL (ingest compact checks there is room for both first)."""
    pages, free = conn.execute("PRAGMA page_count").fetchone()[0], conn.execute("PRAGMA freelist_count").fetchone()[0]
    return (pages - free) * conn.execute("PRAGMA page_size").fetchone()[0]


def compact(conn: sqlite3.Connection) -> tuple[int, int]:
    """Rewrite the index without its free pages, as one that gives them back from then on (auto_vacuum =
    INCREMENTAL takes effect with the VACUUM); returns the file's size in bytes before and after. Holds the write
    lock throughout: jobs wait for it (and are retried after SQLite's 30 s). A VACUUM that fails (a full disk)
    is rolled back by SQLite: the index stays as it was."""
    def size() -> int:
        return conn.execute("PRAGMA page_count").fetchone()[0] * conn.execute("PRAGMA page_size").fetchone()[0]
    before = size()
    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return before, size()


def gives_pages_back(conn: sqlite3.Connection) -> bool:
    """Whether the index gives free pages back to the disk (auto_vacuum = INCREMENTAL: one made at schema V14 or
    later, or compacted since), rather than keeping them for reuse."""
    return conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2


VACUUM_SLICE = 2048  # free pages given back per transaction (8 MiB of 4 KiB pages)


def reclaim_free_pages(conn: sqlite3.Connection) -> None:
    """Give the disk back the pages nothing uses once they are more than a quarter of the file (a model replaced,
    a collection removed, many versions dropped). SQLite reuses free pages for later writes, but never shrank the
    file: an `ingest remove` of most of an index left it as big as before, for ever. Needs an index made with
    auto_vacuum = INCREMENTAL (search.index.db makes new ones so); an older one keeps its free pages for reuse."""
    if not gives_pages_back(conn):
        return
    pages, free = conn.execute("PRAGMA page_count").fetchone()[0], conn.execute("PRAGMA freelist_count").fetchone()[0]
    if free * 4 <= pages:
        return
    while free > 0:  # in slices, each its own transaction, as collect_garbage: other jobs write in between
        try:  # a page per step; executescript steps it to the end (execute, even fetching, freed one page)
            conn.executescript(f"PRAGMA incremental_vacuum({VACUUM_SLICE});")
        except sqlite3.OperationalError:  # locked past the busy timeout, or a full disk: best-effort, after a
            return  # publish that has committed; the pages stay free for reuse, and the next clean-up tries again
        left = conn.execute("PRAGMA freelist_count").fetchone()[0]
        if left >= free:
            break
        free = left


def remove_collection(conn: sqlite3.Connection, collection_id: int) -> tuple[int, int]:
    """Forget a collection in one transaction: its files, chunks (and their FTS rows), links, generations and
    their progress, and what its scans remembered; returns the (files, chunks) searches saw: those of its
    published generation (a build's files written before its publish were counted, and said to leave search).
    Readers see it whole until the commit and gone after; jobs of it still queued or running find their
    generation gone and do nothing (workers.tasks, workers.working)."""
    of_files = "SELECT id FROM files WHERE collection = ?"
    of_gens = "SELECT id FROM generations WHERE collection = ?"
    with transaction(conn):
        files, chunks = conn.execute("SELECT count(DISTINCT f.id), count(k.id) FROM files f JOIN collections c "
                                     "ON c.id = f.collection LEFT JOIN chunks k ON k.file = f.id "
                                     f"WHERE f.collection = ? AND {VISIBLE}", (collection_id,)).fetchone()
        conn.execute(f"DELETE FROM links WHERE file IN ({of_files})", (collection_id,))
        conn.execute(f"DELETE FROM tags WHERE file IN ({of_files})", (collection_id,))
        conn.execute(f"DELETE FROM mail_messages WHERE file IN ({of_files})", (collection_id,))
        conn.execute(f"DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file IN ({of_files}))",
                     (collection_id,))
        conn.execute(f"DELETE FROM chunks WHERE file IN ({of_files})", (collection_id,))
        conn.execute("DELETE FROM files WHERE collection = ?", (collection_id,))
        for table in ("progress", "progress_counts", "working"):  # a writer's connection is migrated: all there
            conn.execute(f"DELETE FROM {table} WHERE generation IN ({of_gens})", (collection_id,))
        conn.execute("DELETE FROM remembered WHERE collection = ?", (collection_id,))
        conn.execute("DELETE FROM background WHERE collection = ?", (collection_id,))
        conn.execute("DELETE FROM cut WHERE collection = ?", (collection_id,))
        conn.execute("DELETE FROM generations WHERE collection = ?", (collection_id,))
        conn.execute("DELETE FROM collections WHERE id = ?", (collection_id,))
    return files, chunks


def record_work(conn, gen: int, stage: str, paths: list[str], size: int, since: float, done: int | None,
                total: int | None) -> None:
    """This process has been at ``stage`` on ``paths`` since ``since`` (workers.working), ``done`` of ``total``."""
    with transaction(conn):
        conn.execute("INSERT INTO working(generation, stage, path, files, bytes, since, done, total, pid) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET since = excluded.since, "
                     "done = excluded.done, pid = excluded.pid",
                     (gen, stage, paths[0], len(paths), size, since, done, total, os.getpid()))


def end_work(conn, gen: int, stage: str, paths: list[str]) -> None:
    with transaction(conn):
        conn.execute("DELETE FROM working WHERE generation = ? AND stage = ? AND path = ?", (gen, stage, paths[0]))


def mark_resumed(conn, now: float | None = None) -> None:
    """A consumer is starting: each generation being built (past discovery) counts its pace from now, from the
    files done so far (status.eta), so that the time no worker ran is not taken as the pace of its work."""
    now = time.time() if now is None else now
    with transaction(conn):
        for row in conn.execute("SELECT id FROM generations WHERE state = 'building' AND discovered IS NOT NULL "
                                "AND discovered < ?", (now,)).fetchall():
            _, done = generation_progress(conn, row["id"])
            conn.execute("UPDATE generations SET resumed = ?, resumed_done = ? WHERE id = ?", (now, done, row["id"]))
