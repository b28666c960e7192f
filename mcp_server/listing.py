"""list_files: the files of the collections and where each stands in the index.

States: ``indexed`` (searchable in the published generation), ``pending``
(the generation being built has not finished with it), ``failed`` or
``skipped`` (with the reason), ``deleted`` (gone from disk; searchable until
the next publish).

The filters, the order and the limit are applied in SQL, so a call costs the
same with 200,000 files pending; only the files shown are looked at on disk,
and only those the index knows no size or time for. That look never follows a
symbolic link out of the root: a refused link is described as the link it is.
Sorted by modified time, files the index has no time for yet come first when
they are pending (they are what just changed) and last when failed or skipped.
``path_prefix`` is a folder ('tech' means tech/, not technology/); ``glob`` is
a shell pattern, the way to ask for names that begin with some text ('tech*').
Both match names in either Unicode normal form (NFC or NFD).
"""
from __future__ import annotations

import fnmatch
import os
import re
import stat
import unicodedata

from mcp_server import render
from search.filters import in_folder

IN_FLIGHT_DETAIL = "waiting to be indexed ({change}; next: {stage})"
ENTRIES = """
WITH c AS (SELECT id, name, root, published FROM collections {where_collection}),
rows AS (
    SELECT f.collection, f.path, 1 AS src, f.id AS ref, f.mtime FROM files f JOIN c ON c.id = f.collection
    WHERE {visible}
    UNION ALL
    SELECT f.collection, f.path, 2, f.id, f.mtime FROM files f JOIN c ON c.id = f.collection
    WHERE f.gen_to IS NULL AND f.gen_from > coalesce(c.published, 0)
    UNION ALL
    SELECT g.collection, p.path, CASE WHEN g.state = 'building' THEN 3 ELSE 4 END, g.id,
           CASE WHEN p.state IN ('failed', 'skipped') THEN -1e300 ELSE 1e300 END
    FROM progress p JOIN generations g ON g.id = p.generation JOIN c ON c.id = g.collection
    WHERE g.state = 'building' OR (g.id = c.published AND p.state IN ('failed', 'skipped'))),
entries AS (
    SELECT collection, path, max(CASE WHEN src = 1 THEN ref END) AS visible,
           max(CASE WHEN src = 2 THEN ref END) AS newer, max(CASE WHEN src = 3 THEN ref END) AS building,
           max(CASE WHEN src = 4 THEN ref END) AS published,
           coalesce(max(CASE WHEN src = 2 THEN mtime END), max(CASE WHEN src = 1 THEN mtime END),
                    max(CASE WHEN src = 3 THEN mtime END), -1e300) AS sort_time
    FROM rows WHERE {where_path} GROUP BY collection, path)
SELECT e.*, c.name, c.root, (SELECT count(*) FROM entries) AS total FROM entries e JOIN c ON c.id = e.collection
ORDER BY {order} LIMIT ?
"""
# Newest first. No time known: pending files first (they are what just changed), failed or skipped last.
BY_TIME = "sort_time DESC, c.name, path"
BY_PATH = "c.name, path"


def list_files(sift, collection, path_prefix, glob, sort, limit) -> tuple[str, dict]:
    from search.db import snapshot
    sift.check_collection(collection)
    conn = sift.conn()
    sql, params = _query(conn, collection, path_prefix, glob, sort)
    with snapshot(conn):
        rows = conn.execute(sql, [*params, limit]).fetchall()
        shown = [_entry(conn, r) for r in rows]
    for entry in shown:
        _look_on_disk(entry)
    total = rows[0]["total"] if rows else 0
    data = {"total": total, "shown": len(shown), "files": [_public(e) for e in shown]}
    return _text(data, sort), data


def _query(conn, collection, path_prefix, glob, sort) -> tuple[str, list]:
    """The SQL that filters, sorts and limits, with its parameters (the limit goes last)."""
    from search.store import VISIBLE
    params, where = [], []
    if collection:
        params.append(collection)
    if path_prefix:
        conn.create_function("sift_in_folder", 2, in_folder, deterministic=True)
        where.append("sift_in_folder(path, ?)")
        params.append(path_prefix)
    if glob:
        conn.create_function("sift_glob", 1, _matcher(glob), deterministic=True)
        where.append("sift_glob(path)")
    sql = ENTRIES.format(where_collection="WHERE name = ?" if collection else "", visible=VISIBLE,
                         where_path=" AND ".join(where) or "1", order=BY_TIME if sort == "modified" else BY_PATH)
    return sql, params


def _matcher(glob: str):
    """path → whether the shell pattern matches it (or, for a pattern without '/', its file name)."""
    pattern = re.compile(fnmatch.translate(unicodedata.normalize("NFC", glob)))
    bare = "/" not in glob

    def match(path: str) -> bool:
        path = path if path.isascii() else unicodedata.normalize("NFC", path)
        return bool(pattern.match(path) or (bare and pattern.match(path.rsplit("/", 1)[-1])))
    return match


def _entry(conn, r) -> dict:
    """The facts of one listed file: its newest version's kind, size and time, and its state."""
    version = next((conn.execute("SELECT kind, size, mtime FROM files WHERE id = ?", (ref,)).fetchone()
                    for ref in (r["newer"], r["visible"]) if ref is not None), None)
    entry = {"collection": r["name"], "root": r["root"], "path": r["path"], "kind": None, "size": None,
             "mtime": None, "state": "indexed", "reason": None}
    if version is not None:
        entry.update(kind=version["kind"], size=version["size"], mtime=version["mtime"])
    for generation, building in ((r["building"], True), (r["published"], False)):
        if generation is None:
            continue
        p = conn.execute("SELECT change, stage, state, reason FROM progress WHERE generation = ? AND path = ?",
                         (generation, r["path"])).fetchone()
        if p is not None:
            entry["state"], entry["reason"] = _state(p["change"] if building else None, p["stage"], p["state"],
                                                     p["reason"])
            break
    return entry


def _state(change, stage, state, reason) -> tuple[str, str | None]:
    if state in ("failed", "skipped"):
        return state, f"{reason} (at {stage})"
    if change == "deleted":
        return "deleted", "gone from disk; searchable until the generation being built is published"
    if stage == "write" and state == "done":
        return "pending", "indexed in the generation being built; searchable once it is published"
    return "pending", IN_FLIGHT_DETAIL.format(change=change, stage=stage)


def _look_on_disk(entry: dict) -> None:
    """Size and time of a shown file the index knows nothing of. A symbolic link is followed only to a
    file inside the root; otherwise what is shown is the link's own (lstat), never its target's."""
    if entry["mtime"] is not None:
        return
    path = os.path.join(entry["root"], entry["path"])
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            real, root = os.path.realpath(path), os.path.realpath(entry["root"])
            if os.path.commonpath([real, root]) == root and os.path.isfile(real):
                st = os.stat(real)
            else:
                entry["kind"] = entry["kind"] or "symlink"
    except (OSError, ValueError):
        return
    entry["size"], entry["mtime"] = st.st_size, st.st_mtime


def _public(e: dict) -> dict:
    return {"path": f"{e['collection']}/{e['path']}", "collection": e["collection"], "relative_path": e["path"],
            "kind": e["kind"], "size": e["size"], "modified": render.when(e["mtime"]), "state": e["state"],
            "reason": e["reason"]}


def _text(data: dict, sort: str) -> str:
    if not data["files"]:
        return "no files match"
    order = "newest first" if sort == "modified" else "by path"
    lines = [f"{data['total']} files match; showing {data['shown']} ({order})"]
    for f in data["files"]:
        state = f["state"] + (f": {f['reason']}" if f["reason"] else "")
        lines.append(f"{f['path']}  {f['kind'] or '-'}  {render.size(f['size'])}  {f['modified'] or '-'}  {state}")
    if data["shown"] < data["total"]:
        lines.append(f"[{data['total'] - data['shown']} more: raise limit, or narrow with path_prefix or glob]")
    return "\n".join(lines)
