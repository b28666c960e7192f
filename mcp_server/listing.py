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
from search.filters import register_in_folder

IN_FLIGHT_DETAIL = "waiting to be indexed ({change}; next: {stage})"
ENTRIES = """
WITH c AS (SELECT c.id, c.name, c.root, c.published, g.id AS building FROM collections c
           LEFT JOIN generations g ON g.collection = c.id AND g.state = 'building' {where_collection}),
entries AS (
    SELECT c.id AS collection, p.path, cur.id AS ref, c.building AS generation,
           CASE WHEN cur.id IS NOT NULL THEN cur.mtime
                WHEN p.state IN ('failed', 'skipped') OR p.change = 'deleted' THEN -1e300 ELSE 1e300 END AS sort_time
    FROM c JOIN progress p ON p.generation = c.building
    LEFT JOIN files cur ON cur.collection = c.id AND cur.path = p.path AND cur.gen_to IS NULL
    WHERE {match_p}
    UNION ALL
    SELECT c.id, f.path, f.id, NULL, f.mtime FROM c JOIN files f ON f.collection = c.id
    WHERE {visible} AND {match_f}
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.building AND b.path = f.path)
    UNION ALL
    SELECT c.id, p.path, NULL, c.published, -1e300 FROM c JOIN progress p ON p.generation = c.published
    WHERE p.state IN ('failed', 'skipped') AND {match_p}
      AND NOT EXISTS (SELECT 1 FROM progress b WHERE b.generation = c.building AND b.path = p.path)
      AND NOT EXISTS (SELECT 1 FROM files f WHERE f.collection = c.id AND f.path = p.path AND f.gen_to IS NULL
                      AND f.gen_from <= c.published))
SELECT e.*, c.name, c.root, c.building, (SELECT count(*) FROM entries) AS total
FROM entries e JOIN c ON c.id = e.collection ORDER BY {order} LIMIT :limit
"""
# Three disjoint parts, so no grouping: the files the generation being built touches; the published files it
# does not; the failures of the published generation it has not touched again. Newest first: a file with no
# time in the index yet is pending (it just changed) and comes first; failed, skipped or deleted come last.
BY_TIME = "sort_time DESC, c.name, path"
BY_PATH = "c.name, path"


def list_files(sift, collection, path_prefix, glob, sort, limit) -> tuple[str, dict]:
    from search.db import snapshot
    sift.check_collection(collection)
    conn = sift.conn()
    sql, params = _query(conn, collection, path_prefix, glob, sort)
    with snapshot(conn):
        rows = conn.execute(sql, {**params, "limit": limit}).fetchall()
        shown = _entries(conn, rows)
    for entry in shown:
        _look_on_disk(entry)
    total = rows[0]["total"] if rows else 0
    data = {"total": total, "shown": len(shown), "files": [_public(e) for e in shown]}
    return _text(data, sort), data


def _query(conn, collection, path_prefix, glob, sort) -> tuple[str, dict]:
    """The SQL that filters, sorts and limits, with its named parameters (but the limit)."""
    from search.store import VISIBLE
    params, match = {}, []
    if collection:
        params["collection"] = collection
    if path_prefix:
        register_in_folder(conn)
        match.append("sift_in_folder({path}, :folder)")
        params["folder"] = path_prefix
    if glob:
        conn.create_function("sift_glob", 1, _matcher(glob), deterministic=True)
        match.append("sift_glob({path})")
    where = " AND ".join(match) or "1"
    sql = ENTRIES.format(where_collection="WHERE c.name = :collection" if collection else "", visible=VISIBLE,
                         match_p=where.format(path="p.path"), match_f=where.format(path="f.path"),
                         order=BY_TIME if sort == "modified" else BY_PATH)
    return sql, params


def _matcher(glob: str):
    """path → whether the shell pattern matches it (or, for a pattern without '/', its file name)."""
    pattern = re.compile(fnmatch.translate(unicodedata.normalize("NFC", glob)))
    bare = "/" not in glob

    def match(path: str) -> bool:
        path = path if path.isascii() else unicodedata.normalize("NFC", path)
        return bool(pattern.match(path) or (bare and pattern.match(path.rsplit("/", 1)[-1])))
    return match


def _entries(conn, rows) -> list[dict]:
    """The facts of the listed files: the kind, size and time of the version the index knows (for a file
    deleted meanwhile, the version it had), and the state."""
    shown = []
    for r in rows:
        version = conn.execute("SELECT kind, size, mtime FROM files WHERE id = ?", (r["ref"],)).fetchone() \
            if r["ref"] is not None else None
        if version is None and r["building"] is not None:  # gone: its version retired by the build
            version = conn.execute("SELECT kind, size, mtime FROM files WHERE gen_to = ? AND collection = ? "
                                   "AND path = ?", (r["building"], r["collection"], r["path"])).fetchone()
        entry = {"collection": r["name"], "root": r["root"], "path": r["path"], "kind": None, "size": None,
                 "mtime": None, "state": "indexed", "reason": None}
        if version is not None:
            entry.update(kind=version["kind"], size=version["size"], mtime=version["mtime"])
        if r["generation"] is not None:
            p = conn.execute("SELECT change, stage, state, reason FROM progress WHERE generation = ? AND path = ?",
                             (r["generation"], r["path"])).fetchone()
            building = r["generation"] == r["building"]
            entry["state"], entry["reason"] = _state(p["change"] if building else None, p["stage"], p["state"],
                                                     p["reason"])
        shown.append(entry)
    return shown


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
