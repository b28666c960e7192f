"""A collection's scans (search.index.freshness): one asked for and not planned yet, the last one, the scans
requested, and since when a root has been missing."""
from __future__ import annotations

import sqlite3


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
