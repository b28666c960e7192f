"""Reads of the index's pinyin table (schema V26, its words V27, the pairs inside a word V28): the Chinese words a
toneless pinyin key stands for."""
from __future__ import annotations

import sqlite3


def words(conn, keys: list[str]) -> dict[str, list[str]]:
    """{key: the Chinese words the passages hold whose pinyin it is} for ``keys`` ('huancun': ['缓存']); {} for
    an index older than V26 (a reader opened before a worker migrated it)."""
    if not keys:
        return {}
    marks = ", ".join("?" * len(set(keys)))
    try:
        rows = conn.execute(f"SELECT key, word FROM pinyin WHERE key IN ({marks})", sorted(set(keys))).fetchall()
    except sqlite3.OperationalError:  # no such table: the index is not V26 yet
        return {}
    found: dict[str, list[str]] = {}
    for key, word in rows:
        found.setdefault(key, []).append(word)
    return found


def count(conn) -> int:
    """Rows of the pinyin table (benches, tests)."""
    return conn.execute("SELECT count(*) FROM pinyin").fetchone()[0]
