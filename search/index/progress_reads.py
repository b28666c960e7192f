"""How far each file of a build has got (progress rows): the stages a file goes through (``STAGES``, ``rank``), the
files in flight (``IN_FLIGHT``), those deferred to a later part of a first build, the failures, and what is
searchable of a generation."""
from __future__ import annotations

import sqlite3


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


def embedded_unwritten(conn, gen: int) -> int:
    """Files of the generation whose chunks are embedded and whose write job is still to run: seconds from done
    (status.eta counts them so; no job is at work on them meanwhile, and the ETA fell back to the pace of the files
    written so far)."""
    if not has_counts(conn):
        return conn.execute("SELECT count(*) FROM progress WHERE generation = ? AND stage = 'embed' "
                            "AND state = 'done'", (gen,)).fetchone()[0]
    return conn.execute("SELECT coalesce(sum(files), 0) FROM progress_counts WHERE generation = ? AND stage = 'embed' "
                        "AND state = 'done'", (gen,)).fetchone()[0]


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


def deferred_paths(conn, gen: int) -> list[str]:
    """The paths of the files the generation ``gen`` left to a later part of its collection's first build."""
    return [row[0] for row in conn.execute(
        "SELECT path FROM progress INDEXED BY progress_trouble WHERE generation = ? AND state IN ('failed', "
        "'skipped') AND reason = ?", (gen, DEFERRED))]


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
    """The generation's failed and skipped files (path, stage, state, reason, error), by path (through the
    progress_trouble index)."""
    return conn.execute(f"SELECT path, stage, state, reason, {_error(conn)} FROM progress INDEXED BY progress_trouble "
                        "WHERE generation = ? AND state IN ('failed', 'skipped') ORDER BY path", (gen,)).fetchall()


def _error(conn, table: str = "") -> str:
    """The progress rows' error class (schema V30): NULL in an older index a reader meets before a writer migrates
    it."""
    return f"{table}error" if conn.execute("PRAGMA user_version").fetchone()[0] >= 30 else "NULL AS error"


def progress_rows(conn: sqlite3.Connection, gen: int) -> list[sqlite3.Row]:
    """Every file's change, stage, state, reason, path, chunks and embedded in generation ``gen`` (for an index
    older than the counts of schema V7)."""
    return conn.execute("SELECT change, stage, state, reason, path, chunks, embedded FROM progress "
                        "WHERE generation = ?", (gen,)).fetchall()


def failures(conn: sqlite3.Connection, limit: int = 100) -> list[sqlite3.Row]:
    """The failed and skipped files (``collection``, path, stage, state, reason, generation, error) of each
    collection's newest generation, by collection and path."""
    return conn.execute(
        f"SELECT c.name AS collection, p.path, p.stage, p.state, p.reason, p.generation, {_error(conn, 'p.')} "
        "FROM progress p "
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
