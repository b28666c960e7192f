"""The work under way (search.index.working): the slow work recorded for a generation, the chunks kept of big
files handed to the background, and the big files embedded there."""
from __future__ import annotations

import sqlite3


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
