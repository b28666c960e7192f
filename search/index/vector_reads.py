"""Reads of vectors: the stored vectors of a model by chunk id, and which text hashes the embedding cache holds."""
from __future__ import annotations

import sqlite3


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
