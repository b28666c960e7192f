"""Opening the index database: WAL mode, a busy timeout, the newest schema."""
from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from search import schema

BUSY_TIMEOUT_MS = 30_000


class IndexUnavailable(Exception):
    """The index cannot be opened or used; the message says why and what to do."""


def connect(path: Path | str, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode; use ``transaction`` or ``snapshot`` around work."""
    path = Path(path)
    if readonly and not path.exists():
        raise IndexUnavailable(f"no index at {path}: run `ingest enqueue PATH` first")
    if not readonly:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                               check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            schema.migrate(conn)
        elif schema.version(conn) == 0:
            raise IndexUnavailable(f"{path} holds no Sift index yet: run `ingest enqueue PATH` first")
        conn.execute("PRAGMA foreign_keys = ON")
    except (sqlite3.DatabaseError, schema.SchemaTooNew) as exc:
        raise IndexUnavailable(f"cannot open the index at {path}: {exc}") from exc
    return conn


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, immediate: bool = True):
    """A write transaction; IMMEDIATE takes the write lock up front so it cannot deadlock."""
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


@contextlib.contextmanager
def snapshot(conn: sqlite3.Connection):
    """A read transaction: everything read inside sees one state of the database."""
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.execute("COMMIT")
