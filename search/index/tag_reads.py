"""Reads of tags: whether the index keeps them, the SQL condition of a tag filter, the catalog's tags and the
counts of each."""
from __future__ import annotations

import sqlite3

from search.index.collection_reads import VISIBLE
from search.index.schema import version


def passage_tags_kept(conn: sqlite3.Connection) -> bool:
    """Whether the index keeps a passage's own tags (chunks.tags, V21): a reader opens an index without migrating
    it, and one an older Sift wrote has none (its passages have their file's tags alone)."""
    return version(conn) >= 21


def tags_indexed(conn: sqlite3.Connection) -> bool:
    """Whether the index keeps its tags a row each (the table tags, V22); before, they are JSON in files.meta and
    chunks.tags alone, read by ``tag_condition``'s function."""
    return version(conn) >= 22


# A tag asked for (:tag{i}, casefolded) or one nested in it ('project' holds 'project/sift'): every such tag lies in
# [tag, tag + '0') ('0' follows '/'), a range of the index, the rest of which ('project-x') the last test drops.
_TAG = "t.tag >= :tag{i} AND t.tag < :tag{i}_end AND (t.tag = :tag{i} OR substr(t.tag, 1, {n}) = :tag{i}_slash)"


def tag_params(tags) -> dict:
    """The named parameters of ``tag_condition`` and ``file_tag_condition`` for ``tags`` (casefolded names)."""
    return {name: value for i, tag in enumerate(tags)
            for name, value in ((f"tag{i}", tag), (f"tag{i}_end", tag + "0"), (f"tag{i}_slash", tag + "/"))}


def tag_condition(conn: sqlite3.Connection, tags) -> str:
    """The SQL condition that a passage (chunks ch of files f) carries every one of ``tags`` (``tag_params``): its
    file's or its own, or one nested in it. Checked per candidate from the indexes of a file's and a passage's
    tags; an index without them (before V22, not migrated yet) has its JSON read by a Python function."""
    return " AND ".join(_tagged(conn, i, tag) for i, tag in enumerate(tags))


def _tagged(conn: sqlite3.Connection, i: int, tag: str) -> str:
    """``tag_condition`` for the one tag :tag{i}."""
    if tags_indexed(conn):
        within = _TAG.format(i=i, n=len(tag) + 1)
        return (f"(EXISTS (SELECT 1 FROM tags t WHERE t.file = f.id AND t.chunk IS NULL AND {within}) "
                f"OR EXISTS (SELECT 1 FROM tags t WHERE t.chunk = ch.id AND {within}))")
    from search.index.names import tag_names
    conn.create_function("sift_tagged", 3, lambda held, own, wanted: any(
        name == wanted or name.startswith(wanted + "/") for name in tag_names(held) | tag_names(own)),
        deterministic=True)
    own = "ch.tags" if passage_tags_kept(conn) else "NULL"
    return f"sift_tagged(CASE WHEN json_valid(f.meta) THEN json_extract(f.meta, '$.tags') END, {own}, :tag{i})"


def file_tag_condition(conn: sqlite3.Connection, tags, ref: str) -> str:
    """The SQL condition that the file version ``ref`` (a column holding its id) carries every one of ``tags``: as
    its own, or as a tag of one of its passages (an export's note tagged 'recipe'), for list_files."""
    if tags_indexed(conn):
        return " AND ".join(f"EXISTS (SELECT 1 FROM tags t WHERE t.file = {ref} AND "
                            f"{_TAG.format(i=i, n=len(tag) + 1)})" for i, tag in enumerate(tags))
    return " AND ".join(f"EXISTS (SELECT 1 FROM chunks ch JOIN files f ON f.id = ch.file WHERE f.id = {ref} "
                        f"AND {_tagged(conn, i, tag)})" for i, tag in enumerate(tags))


def catalog_tags(conn: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """Every tag the index holds (published or not: a catalog keeps those of its chunks), with the files that hold
    it as their own and the passages that hold it as theirs, as comma-separated lists of ids ('' for none), read
    from the index of tags alone; before V22 from the JSON of every file and tagged passage."""
    if tags_indexed(conn):
        return {tag: (files or "", chunks or "") for tag, files, chunks in conn.execute(
            "SELECT tag, group_concat(CASE WHEN chunk IS NULL THEN file END), group_concat(chunk) FROM tags "
            "INDEXED BY tags_tag GROUP BY tag")}
    from search.index.names import tag_names
    found: dict[str, tuple[list, list]] = {}
    for file, held in conn.execute("SELECT id, json_extract(meta, '$.tags') FROM files WHERE json_valid(meta) "
                                   "AND json_extract(meta, '$.tags') IS NOT NULL"):
        for tag in tag_names(held):
            found.setdefault(tag, ([], []))[0].append(str(file))
    if passage_tags_kept(conn):
        for chunk, own in conn.execute("SELECT id, tags FROM chunks INDEXED BY chunks_tagged WHERE tags IS NOT NULL"):
            for tag in tag_names(own):
                found.setdefault(tag, ([], []))[1].append(str(chunk))
    return {tag: (",".join(files), ",".join(chunks)) for tag, (files, chunks) in found.items()}


def tag_counts(conn: sqlite3.Connection, collection: str | None = None, limit: int = -1) -> list[tuple[str, int]]:
    """(tag, how many published files hold it, as theirs or a passage's), the most held first (then by name), of
    every collection or ``collection``, ``limit`` of them (-1: all); [] before V22 (``tags_indexed``)."""
    if not tags_indexed(conn):
        return []
    return [(tag, count) for tag, count in conn.execute(
        f"SELECT t.tag, count(DISTINCT t.file) AS n FROM tags t JOIN files f ON f.id = t.file "
        f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE}" + (" AND c.name = ?" if collection else "")
        + " GROUP BY t.tag ORDER BY n DESC, t.tag LIMIT ?", (collection, limit) if collection else (limit,))]
