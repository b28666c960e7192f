"""The generations: the one being built, when it last moved, the collections some touch, and the models and chunk
settings a collection's build and published generation use."""
from __future__ import annotations

import sqlite3


def building_generation(conn: sqlite3.Connection, collection_id: int) -> sqlite3.Row | None:
    """The generation of the collection being built (its whole row), or None. There is at most one
    (``store.begin_generation`` starts one only when none is building)."""
    return conn.execute("SELECT * FROM generations WHERE collection = ? AND state = 'building' "
                        "ORDER BY id DESC LIMIT 1", (collection_id,)).fetchone()


def build_activity(conn: sqlite3.Connection, collection_id: int) -> float | None:
    """When the generation being built last moved (started, discovered, a file's progress); None: none building."""
    row = conn.execute(
        "SELECT max(g.started, coalesce(g.discovered, 0), "
        "coalesce((SELECT max(updated) FROM progress p WHERE p.generation = g.id), 0)) AS last "
        "FROM generations g WHERE g.collection = ? AND g.state = 'building' ORDER BY g.id DESC LIMIT 1",
        (collection_id,)).fetchone()
    return row["last"] if row else None


def generation_collections(conn: sqlite3.Connection, generations) -> set[int]:
    """The collections the given generations belong to."""
    gens = list(generations)
    if not gens:
        return set()
    rows = conn.execute(f"SELECT collection FROM generations WHERE id IN ({','.join('?' * len(gens))})", gens)
    return {row[0] for row in rows}


def generation(conn: sqlite3.Connection, gen: int) -> sqlite3.Row | None:
    """One generation's whole row (None: no such generation)."""
    return conn.execute("SELECT * FROM generations WHERE id = ?", (gen,)).fetchone()


def building_model(conn: sqlite3.Connection, collection_id: int) -> tuple[bool, str | None]:
    """(is a generation being built, the model it embeds with)."""
    row = conn.execute("SELECT model FROM generations WHERE collection = ? AND state = 'building'",
                       (collection_id,)).fetchone()
    return (row is not None, row["model"] if row else None)


def chunkings(conn: sqlite3.Connection, collection_id: int) -> tuple[str | None, str | None]:
    """How the collection's published and building generations cut their files (ingest.chunk.chunking; None:
    no such generation, or one made before schema V11)."""
    rows = conn.execute("SELECT state, chunking FROM generations WHERE collection = ? AND "
                        "(state = 'building' OR id = (SELECT published FROM collections WHERE id = ?))",
                        (collection_id, collection_id)).fetchall()
    found = {row["state"]: row["chunking"] for row in rows}
    return found.get("published"), found.get("building")


def model_paths(conn: sqlite3.Connection, model_id: str) -> list[str]:
    """The files recorded for ``model_id``, newest first (none before schema V6)."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'models'").fetchone():
        return []
    return [r[0] for r in conn.execute("SELECT path FROM models WHERE id = ? ORDER BY recorded DESC", (model_id,))]
