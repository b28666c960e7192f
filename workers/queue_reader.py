"""Reading the home's SQLite queue (<home>/queue.db) without writing to it, for ``ingest stats`` and the MCP
``stats`` tool on a home that cannot be written (a read-only folder, or queue.db alone read-only).

huey's own connection cannot read such a queue: it sets ``journal_mode=wal`` as it connects, which is a
write. Here the file is opened as the index's readers open theirs (``search.index.db._open_reader``): read
only, and when SQLite cannot even do that because the folder is read-only (it must create ``queue.db-shm``
beside a WAL database to read it), as immutable, which is safe while the folder stays read-only, unless a
``queue.db-wal`` holds jobs not yet copied into the file: those could not be read, so the reader says so.
Nothing is created or changed, not even the ``-shm`` file.
"""
from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from urllib.parse import quote

from workers.queues import QueueUnavailable, queue_damaged


def pending(path: str, name: str) -> int:
    """The jobs waiting in queue ``name`` (huey's ``pending_count``); 0 when no job was ever queued there (no
    queue file, or one without huey's tables)."""
    rows = _read(path, "SELECT count(id) FROM task WHERE queue = ?", (name,))
    return rows[0][0] if rows else 0


# The jobs of two priorities (workers.app.jobs_at), in the order huey takes them, each with the number of jobs a
# worker takes before it: those of a higher priority, and those of its own queued before it.
AT_PRIORITIES = ("SELECT data, (SELECT count(id) FROM task AS t WHERE t.queue = :queue AND t.priority > task.priority)"
                 " + (SELECT count(id) FROM task AS t WHERE t.queue = :queue AND t.priority = task.priority "
                 "AND t.id < task.id) FROM task WHERE queue = :queue AND priority IN (:first, :second) "
                 "ORDER BY priority DESC, id")


def at_priorities(path: str, name: str, priorities: tuple[int, int]) -> list:
    """AT_PRIORITIES's rows, read without writing."""
    return _read(path, AT_PRIORITIES, _params(name, priorities))


# Whether any job waits at either priority: the stats' test before huey is imported to read the scans. One row of
# huey's index on (priority, id), where AT_PRIORITIES counts, for each job found, the jobs of the whole queue ahead
ANY_AT_PRIORITIES = "SELECT EXISTS (SELECT 1 FROM task WHERE queue = :queue AND priority IN (:first, :second))"


def any_at_priorities(path: str, name: str, priorities: tuple[int, int]) -> bool:
    """Whether queue ``name`` holds a job at either of ``priorities``, read without writing."""
    rows = _read(path, ANY_AT_PRIORITIES, _params(name, priorities))
    return bool(rows and rows[0][0])


def _params(name: str, priorities: tuple[int, int]) -> dict:
    return {"queue": name, "first": priorities[0], "second": priorities[1]}


def value(path: str, name: str, key: str) -> bytes | None:
    """The raw value huey keeps under ``key`` for queue ``name`` (``huey.get(key, peek=True)``), or None."""
    rows = _read(path, "SELECT value FROM kv WHERE queue = ? AND key = ?", (name, key))
    return bytes(rows[0][0]) if rows else None


HELD_WAIT_SECONDS = 1.0  # a read in WAL mode waits on no writer: one that waits this long waits on a lock held


def held(path: str) -> str | None:
    """Why the queue cannot be read now, when another process keeps it locked against readers too (an `sqlite3`
    shell that ran ``PRAGMA locking_mode=EXCLUSIVE``): each read of it waited SQLite's timeout, 30 s, and
    stats read it four times. None when a read gets through (in WAL mode a write held does not stop one)."""
    if not os.path.exists(path):
        return None
    try:
        with closing(sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, isolation_level=None,
                                     timeout=HELD_WAIT_SECONDS, check_same_thread=False)) as conn:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as exc:
        from workers.queues import busy
        if busy(exc):
            return (f"the queue at {path} is held by another process, which keeps it locked even against readers "
                    f"({exc}: an `sqlite3` shell with `PRAGMA locking_mode=EXCLUSIVE`, a backup?): what waits in "
                    "it cannot be told, and workers cannot take jobs, until that process lets it go")
    except sqlite3.Error:
        pass  # read-only, damaged…: the reads that follow say so
    return None


def _read(path: str, sql: str, params) -> list:
    if not os.path.exists(path):
        return []
    with closing(_connect(path)) as conn:
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise
        except sqlite3.DatabaseError as exc:
            from search.index import db
            if db.is_damaged(exc):
                raise QueueUnavailable(queue_damaged(path, str(exc))) from exc
            raise


def _connect(path: str) -> sqlite3.Connection:
    uri = f"file:{quote(path)}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=5, check_same_thread=False)
    try:
        conn.execute("PRAGMA user_version").fetchone()
        return conn
    except sqlite3.DatabaseError as exc:
        conn.close()
        from search.index import db
        if db.is_damaged(exc):
            raise QueueUnavailable(queue_damaged(path, str(exc))) from exc
        folder = os.path.dirname(path) or "."
        refused = db._code(exc) in (db.SQLITE_READONLY, db.SQLITE_CANTOPEN) or "readonly" in str(exc) \
            or "unable to open" in str(exc)
        if not refused or os.access(folder, os.W_OK):
            raise
        wal = f"{path}-wal"
        if os.path.exists(wal) and os.path.getsize(wal) > 0:
            raise QueueUnavailable(
                f"cannot read the queue at {path}: its folder {folder} is read-only and SQLite must create "
                f"{os.path.basename(path)}-shm there to read the jobs still in {os.path.basename(wal)}: make the "
                f"folder writable (chmod u+w {folder}) and ask again") from None
    return sqlite3.connect(f"{uri}&immutable=1", uri=True, isolation_level=None, check_same_thread=False)
