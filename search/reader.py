"""Reading the published index: what a search (or a person) can see.

Everything here reads only the last published generation of each collection,
inside one read transaction, so the answer comes whole from one state.
"""
from __future__ import annotations

import sqlite3

from search.db import snapshot
from search.store import VISIBLE


def published_generations(conn: sqlite3.Connection) -> dict[str, int | None]:
    return {row["name"]: row["published"] for row in conn.execute("SELECT name, published FROM collections")}


def visible_files(conn: sqlite3.Connection, collection: str | None = None) -> list[sqlite3.Row]:
    sql = (f"SELECT c.name AS collection, f.* FROM files f JOIN collections c ON c.id = f.collection "
           f"WHERE {VISIBLE}" + (" AND c.name = ?" if collection else "") + " ORDER BY c.name, f.path")
    with snapshot(conn):
        return conn.execute(sql, (collection,) if collection else ()).fetchall()


def visible_chunks(conn: sqlite3.Connection, collection: str | None = None) -> list[sqlite3.Row]:
    sql = (f"SELECT c.name AS collection, c.published AS generation, f.path, ch.* FROM chunks ch "
           f"JOIN files f ON f.id = ch.file JOIN collections c ON c.id = f.collection WHERE {VISIBLE}"
           + (" AND c.name = ?" if collection else "") + " ORDER BY c.name, f.path, ch.ordinal")
    with snapshot(conn):
        return conn.execute(sql, (collection,) if collection else ()).fetchall()
