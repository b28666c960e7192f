"""Where the files of a collection are listed (``list_files``, ``ingest files``): its folders and subfolders, and
the listing itself, newest first or by path or date, counted and paged."""
from __future__ import annotations

import json
import sqlite3

from search.index.catalog_reads import passage_dates_kept
from search.index.collection_reads import VISIBLE
from search.index.tag_reads import file_tag_condition, tag_params


# Where the files of a collection are listed: its current versions, and what the generation being built has
# planned (a file not read yet has no version). A recursive walk of an index on path: each step seeks the first
# path below a next subfolder (its name + '0', which sorts just after name + '/'), so a folder costs one seek,
# not a read of its files, and the loop runs inside SQLite.
_HOLDERS = ("files WHERE collection = :id AND gen_to IS NULL",
            "progress WHERE generation = :building AND change != 'deleted'")
_SUBFOLDERS = """
WITH RECURSIVE seek(path) AS (
    SELECT (SELECT path FROM {holders} AND path >= :base {below} AND instr(substr(path, :cut), '/') > 0
            ORDER BY path LIMIT 1)
    UNION ALL
    SELECT (SELECT path FROM {holders} AND path >= substr(s.path, 1, :cut + instr(substr(s.path, :cut), '/') - 2) || '0'
            {below} AND instr(substr(path, :cut), '/') > 0 ORDER BY path LIMIT 1)
    FROM seek s WHERE s.path IS NOT NULL LIMIT :most)
SELECT path FROM seek WHERE path IS NOT NULL
"""
MOST_SUBFOLDERS = 10_000


def folders_ending(conn: sqlite3.Connection, collection: str, folder: str, most: int = 3) -> list[str]:
    """At most ``most`` folders of the collection whose path ends with ``folder`` ('tests': 'huey/tests',
    'src/app/tests'), each holding a file as the index has it, the shallowest first. A scan of the paths that
    hold it, asked only when the answer already says the folder is not at the root."""
    needle = "/" + folder.strip("/") + "/"
    found = set()
    for (path,) in conn.execute("SELECT f.path FROM files f JOIN collections c ON c.id = f.collection "
                                "WHERE c.name = ? AND f.gen_to IS NULL AND instr('/' || f.path, ?) > 0",
                                (collection, needle)):
        at = ("/" + path).find(needle)
        found.add(path[:at + len(needle) - 2])
    return sorted(found, key=lambda p: (p.count("/"), p))[:most]


def subfolders(conn: sqlite3.Connection, collection: str, parent: str) -> set[str]:
    """The names of the folders directly in ``parent`` ('' for the root, no trailing '/') that hold a file of
    the collection as the index has it: what a scan found, never an ignored folder or an empty one. A seek per
    folder (at most MOST_SUBFOLDERS of them); the files directly in ``parent`` are stepped over once."""
    row = conn.execute("SELECT c.id, g.id FROM collections c LEFT JOIN generations g ON g.collection = c.id "
                       "AND g.state = 'building' WHERE c.name = ?", (collection,)).fetchone()
    if row is None:
        return set()
    base = parent + "/" if parent else ""
    named = {"id": row[0], "building": row[1], "base": base, "cut": len(base) + 1, "hi": base[:-1] + "0",
             "most": MOST_SUBFOLDERS}
    below = "AND path < :hi" if base else ""
    names = set()
    for holders in _HOLDERS:
        for (path,) in conn.execute(_SUBFOLDERS.format(holders=holders, below=below), named):
            names.add(path[len(base):].split("/", 1)[0])
    return names


_LISTING = """
WITH c AS (SELECT c.id, c.name, c.root, c.published, g.id AS building FROM collections c
           LEFT JOIN generations g ON g.collection = c.id AND g.state = 'building' {where_collection}),
entries AS (
    SELECT c.id AS collection, p.path, cur.id AS ref, c.building AS generation,
           CASE WHEN cur.id IS NOT NULL THEN cur.mtime
                WHEN p.state IN ('failed', 'skipped') OR p.change = 'deleted' THEN -1e300 ELSE 1e300 END AS sort_time,
           c.name, c.root, c.building, NULL AS stood_for
    FROM c JOIN progress p ON p.generation = c.building
    LEFT JOIN files cur ON cur.collection = c.id AND cur.path = p.path AND cur.gen_to IS NULL
    WHERE {match_p}
    UNION ALL
    SELECT c.id, f.path, f.id, NULL, f.mtime, c.name, c.root, c.building, NULL FROM c JOIN files f ON f.collection = c.id
    WHERE {visible} AND {match_f}
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.building AND b.path = f.path)
    UNION ALL
    SELECT c.id, p.path, NULL, c.published, -1e300, c.name, c.root, c.building, NULL FROM c
    JOIN progress p ON p.generation = c.published
    WHERE p.state IN ('failed', 'skipped') AND {match_p}
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.building AND b.path = p.path)
      AND NOT EXISTS (SELECT 1 FROM files f WHERE f.collection = c.id AND f.path = p.path AND f.gen_to IS NULL
                      AND f.gen_from <= c.published)
    UNION ALL
    SELECT c.id, a.value, NULL, NULL, -1e300, c.name, c.root, c.building, min(f.path) FROM c
    JOIN files f ON f.collection = c.id JOIN json_each(f.meta, '$.attachments') a
    WHERE {visible} AND f.kind = 'note' AND f.meta LIKE '%"attachments"%' AND json_valid(f.meta) AND {match_a}
      -- kind and LIKE as written in the partial index files_attached (schema V16), for SQLite to use it
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.building AND b.path = a.value)
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.published AND b.path = a.value
                      AND b.state IN ('failed', 'skipped'))
    GROUP BY c.id, a.value)
"""
# Four disjoint parts: the files the generation being built touches; the published files it does not; the failures
# of the published generation it has not touched again; the PDFs that a published note of the same name stands for
# (``stood_for``: the note's path), which have no version of their own, untouched too. Only the last is grouped:
# two notes of the PDF's stem beside it (lecture.pptx and lecture.odp by lecture.pdf) both stand for it, and it was
# listed twice, each row naming another; once now, naming the first by path (as read_file does).
# Newest first: a file with no time in the index yet is pending (it just changed) and comes first; failed, skipped
# or deleted come last, and so does a PDF a note stands for (listed as skipped, saying which note).
# Unfiltered, counted by one query and listed by another, each reading ``entries`` once: one query doing both
# stored every file in a temporary table, indexed and sorted them all (273 ms of CPU at 200,000 files, against
# 55 + 63 ms). A folder or a glob is matched by a Python function, which two queries would call twice a file:
# those matches are stored once and counted and listed from there (they are few, and no longer joined back).
_COUNT = "SELECT count(*) FROM entries"
_FIRST = "SELECT e.*, :total AS total FROM entries e ORDER BY {order} LIMIT :limit OFFSET :offset"
_STORED = ("SELECT e.*, (SELECT count(*) FROM {source}) AS total FROM {source} e ORDER BY {order} "
           "LIMIT :limit OFFSET :offset")
_BY_TIME = "sort_time DESC, name, path"
_BY_PATH = "name, path"
# list_files' date_after / date_before: a file the index holds a version of (``ref``; its mtime is ``sort_time``)
# with a passage about a date in the range, as search's date filters find passages: one with its own date there
# (chunks.dated, from the index of dated passages alone), or one without a date of its own in a file modified then
# (a file of no passages: its mtime). A mailbox of ten years is listed for each year one of its messages is dated.
_DATED = """, kept AS (SELECT * FROM entries e WHERE e.ref IS NOT NULL AND (
    e.ref IN (SELECT ch.file FROM chunks ch INDEXED BY chunks_dated WHERE ch.dated IS NOT NULL AND {own})
    OR ({mtime} AND (EXISTS (SELECT 1 FROM chunks ch WHERE ch.file = e.ref AND ch.dated IS NULL)
                     OR NOT EXISTS (SELECT 1 FROM chunks ch WHERE ch.file = e.ref)))))"""
_DATED_BEFORE_V20 = ", kept AS (SELECT * FROM entries e WHERE e.ref IS NOT NULL AND {mtime})"
# sort='dated': newest first by the newest date a file's passages are about (in the range, if any), else by its
# modified time (a file none of whose passages has a date of its own there). Daily notes all edited last week were
# listed for March in the order of those edits. From the index of passages by file: one look per file listed.
_BY_DATE = ("coalesce((SELECT max(ch.dated) FROM chunks ch WHERE ch.file = e.ref AND ch.dated IS NOT NULL AND {own}), "
            "e.sort_time) DESC, e.name, e.path")


def _within(when: str, after: float | None, before: float | None) -> str:
    """The condition that ``when`` lies in the range (:dated_after, :dated_before; either None: open)."""
    return " AND ".join([f"{when} >= :dated_after"] * (after is not None)
                        + [f"{when} < :dated_before"] * (before is not None)) or "1"


def _by_date(conn: sqlite3.Connection, after: float | None, before: float | None) -> str:
    """The order of sort='dated' (``_BY_DATE``); by the modified time in an index without passage dates (before V20)."""
    if not passage_dates_kept(conn):
        return _BY_TIME
    return _BY_DATE.format(own=_within("ch.dated", after, before))


def _dated(conn: sqlite3.Connection, after: float | None, before: float | None) -> str:
    """The CTE ``kept``: the entries that list_files' date range keeps (``_DATED``; by the mtime alone in an index
    without passage dates, before V20), bound to :dated_after and :dated_before."""
    def within(when: str) -> str:
        return _within(when, after, before)
    if not passage_dates_kept(conn):
        return _DATED_BEFORE_V20.format(mtime=within("e.sort_time"))
    return _DATED.format(own=within("ch.dated"), mtime=within("e.sort_time"))


def listing(conn: sqlite3.Connection, collection: str | None, match: str, params: dict, by_time: bool | str,
            limit: int, offset: int = 0, dated: tuple[float | None, float | None] | None = None,
            tags: tuple[str, ...] = (), authored: list[int] | None = None) -> list[sqlite3.Row]:
    """``limit`` files, after the first ``offset``, of the collections (or of ``collection``) that the index knows, each once, with
    ``total`` (how many match): ``collection`` (its id), ``path``, ``ref`` (the current version's file id),
    ``generation`` (the one whose progress row says where it stands, None: published and untouched since),
    ``name``, ``root``, ``building`` and ``stood_for`` (of a PDF not indexed itself: the note that stands for it).
    ``match`` is a condition on ``{path}`` with named ``params``; sorted by modified time (``by_time`` True or
    'modified'), by collection and path (False or 'path'), or by the newest date its passages are about, in the range
    if there is one, else its modified time ('dated': ``_BY_DATE``). ``dated`` (after, before; unix times, either None): only the files the index holds a version
    of with a passage about a date in that range (``_DATED``). ``tags`` (casefolded names): only the files the index
    holds a version of that carry each, as their own or a passage's (``file_tag_condition``). ``authored`` (file ids,
    search.query.authors.files_by): only the files whose version the index holds is one of them. Call it inside a
    snapshot: it runs two queries."""
    entries = _LISTING.format(where_collection="WHERE c.name = :collection" if collection else "", visible=VISIBLE,
                              match_p=match.format(path="p.path"), match_f=match.format(path="f.path"),
                              match_a=match.format(path="a.value"))
    named = {**params, "limit": limit, "offset": offset, **({"collection": collection} if collection else {})}
    order = _BY_TIME if by_time in (True, "modified") else _BY_PATH
    if dated is not None:
        entries, named = entries + _dated(conn, *dated), {**named, "dated_after": dated[0], "dated_before": dated[1]}
    if by_time == "dated":
        order = _by_date(conn, *(dated or (None, None)))
    source = "entries" if dated is None else "kept"
    if tags:
        entries += (f", tagged AS (SELECT * FROM {source} e WHERE e.ref IS NOT NULL AND "
                    f"{file_tag_condition(conn, tags, 'e.ref')})")
        source, named = "tagged", {**named, **tag_params(tags)}
    if authored is not None:  # list_files' author: the files that person wrote
        entries += (f", authored AS (SELECT * FROM {source} e WHERE e.ref IN "
                    "(SELECT value FROM json_each(:authored)))")
        source, named = "authored", {**named, "authored": json.dumps(authored)}
    if match != "1" or dated is not None or tags or authored is not None:
        return conn.execute(entries + _STORED.format(order=order, source=source), named).fetchall()
    total = conn.execute(entries + _COUNT, named).fetchone()[0]
    return conn.execute(entries + _FIRST.format(order=order), {**named, "total": total}).fetchall()
