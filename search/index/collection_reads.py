"""The collections and what each has published: its generation and the model it was embedded with; and ``VISIBLE``,
the SQL that keeps a published collection's current rows, which every read of published files shares."""
from __future__ import annotations

import sqlite3


# A published collection's current rows: join files f to collections c.
VISIBLE = "f.gen_from <= c.published AND (f.gen_to IS NULL OR f.gen_to > c.published)"


def collections(conn: sqlite3.Connection, name: str | None = None) -> list[sqlite3.Row]:
    """Every collection row (or the one called ``name``: none if unknown), by name."""
    return conn.execute("SELECT * FROM collections" + (" WHERE name = ?" if name else "") + " ORDER BY name",
                        (name,) if name else ()).fetchall()


def collections_published(conn: sqlite3.Connection, name: str | None = None) -> list[sqlite3.Row]:
    """Every collection row (or the one called ``name``) with ``finished``: when its published generation was
    finished (None: nothing published yet), by name."""
    return conn.execute("SELECT c.*, g.finished FROM collections c LEFT JOIN generations g ON g.id = c.published"
                        + (" WHERE c.name = ?" if name else "") + " ORDER BY c.name",
                        (name,) if name else ()).fetchall()


def collection_for_root(conn: sqlite3.Connection, root: str) -> sqlite3.Row | None:
    """The collection that indexes ``root``, or None."""
    return conn.execute("SELECT * FROM collections WHERE root = ?", (root,)).fetchone()


def get_collection(conn: sqlite3.Connection, collection_id: int) -> sqlite3.Row:
    """The collection row with id ``collection_id`` (LookupError if there is none)."""
    row = conn.execute("SELECT * FROM collections WHERE id = ?", (collection_id,)).fetchone()
    if row is None:
        raise LookupError(f"no collection with id {collection_id}")
    return row


def published_model(conn: sqlite3.Connection, collection_id: int) -> str | None:
    """The model the collection's published generation was embedded with (None: none published, or no model)."""
    row = conn.execute("SELECT g.model FROM collections c JOIN generations g ON g.id = c.published "
                       "WHERE c.id = ?", (collection_id,)).fetchone()
    return row["model"] if row else None


def published(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Each collection that has published a generation: its ``name``, ``published`` generation and the ``model``
    that generation was embedded with (None: built without embeddings)."""
    return conn.execute("SELECT c.name, c.published, g.model FROM collections c "
                        "JOIN generations g ON g.id = c.published").fetchall()


def published_models(conn: sqlite3.Connection) -> list[str]:
    """The models the published generations were embedded with, sorted, each once."""
    return sorted({r["model"] for r in published(conn) if r["model"] is not None})
