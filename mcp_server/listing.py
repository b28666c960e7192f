"""list_files: the files of the collections and where each stands in the index.

States: ``indexed`` (searchable in the published generation), ``pending``
(the generation being built has not finished with it), ``failed`` or
``skipped`` (with the reason), ``deleted`` (gone from disk; searchable until
the next publish).
"""
from __future__ import annotations

import fnmatch
import os

from mcp_server import render

IN_FLIGHT_DETAIL = "waiting to be indexed ({change}; next: {stage})"


def list_files(sift, collection, path_prefix, glob, sort, limit) -> tuple[str, dict]:
    from search.db import snapshot
    sift.check_collection(collection)
    conn = sift.conn()
    with snapshot(conn):
        entries = _published(conn, collection)
        _apply_progress(conn, collection, entries)
    chosen = [e for e in entries.values() if _wanted(e, path_prefix, glob)]
    for entry in chosen:
        _stat_if_unknown(entry)
    chosen.sort(key=(lambda e: -(e["mtime"] or 0)) if sort == "modified" else (lambda e: e["path"]))
    shown = chosen[:limit]
    data = {"total": len(chosen), "shown": len(shown), "files": [_public(e) for e in shown]}
    return _text(data, sort), data


def _published(conn, collection) -> dict:
    from search.store import VISIBLE
    sql = (f"SELECT c.name AS collection, c.root, f.path, f.kind, f.size, f.mtime FROM files f "
           f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE}" + (" AND c.name = ?" if collection else ""))
    entries = {}
    for r in conn.execute(sql, (collection,) if collection else ()):
        entries[(r["collection"], r["path"])] = {**dict(r), "state": "indexed", "reason": None}
    return entries


def _apply_progress(conn, collection, entries: dict) -> None:
    """Overlay the failures of the published generation, then everything the building one is doing."""
    sql = ("SELECT c.name AS collection, c.root, g.state AS generation_state, p.path, p.change, p.stage, "
           "p.state, p.reason FROM progress p JOIN generations g ON g.id = p.generation "
           "JOIN collections c ON c.id = g.collection WHERE (g.state = 'building' OR g.id = c.published)"
           + (" AND c.name = ?" if collection else "") + " ORDER BY g.state = 'building'")
    for r in conn.execute(sql, (collection,) if collection else ()):
        building = r["generation_state"] == "building"
        if not building and r["state"] not in ("failed", "skipped"):
            continue
        key = (r["collection"], r["path"])
        entry = entries.setdefault(key, {"collection": r["collection"], "root": r["root"], "path": r["path"],
                                         "kind": None, "size": None, "mtime": None})
        entry["state"], entry["reason"] = _state(r, building)


def _state(r, building: bool) -> tuple[str, str | None]:
    if r["state"] in ("failed", "skipped"):
        return r["state"], f"{r['reason']} (at {r['stage']})"
    if r["change"] == "deleted":
        return "deleted", "gone from disk; searchable until the generation being built is published"
    if r["stage"] == "write" and r["state"] == "done":
        return "pending", "indexed in the generation being built; searchable once it is published"
    return "pending", IN_FLIGHT_DETAIL.format(change=r["change"], stage=r["stage"])


def _wanted(entry: dict, prefix: str | None, glob: str | None) -> bool:
    path = entry["path"]
    if prefix and not path.startswith(prefix.lstrip("/")):
        return False
    if glob:
        name = path.rsplit("/", 1)[-1]
        return fnmatch.fnmatchcase(path, glob) or ("/" not in glob and fnmatch.fnmatchcase(name, glob))
    return True


def _stat_if_unknown(entry: dict) -> None:
    if entry["mtime"] is not None:
        return
    try:
        st = os.stat(os.path.join(entry["root"], entry["path"]))
    except OSError:
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
