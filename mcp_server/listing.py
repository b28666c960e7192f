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
from search.index import queries
from search.query.filters import register_in_folder

IN_FLIGHT_DETAIL = "waiting to be indexed ({change}; next: {stage})"


def list_files(sift, collection, path_prefix, glob, sort, limit) -> dict:
    from search.index.db import snapshot
    sift.check_collection(collection)
    conn = sift.conn()
    match, params = _match(conn, path_prefix, glob)
    with snapshot(conn):
        rows = queries.listing(conn, collection, match, params, sort == "modified", limit)
        shown = _entries(conn, rows)
    for entry in shown:
        _look_on_disk(entry)
    total = rows[0]["total"] if rows else 0
    return {"total": total, "shown": len(shown), "files": [_public(e) for e in shown]}


def _match(conn, path_prefix, glob) -> tuple[str, dict]:
    """The SQL condition on a ``{path}`` that the folder and the pattern make, with its named parameters."""
    params, match = {}, []
    if path_prefix:
        register_in_folder(conn)
        match.append("sift_in_folder({path}, :folder)")
        params["folder"] = path_prefix
    if glob:
        conn.create_function("sift_glob", 1, _matcher(glob), deterministic=True)
        match.append("sift_glob({path})")
    return " AND ".join(match) or "1", params


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
        version = queries.file_version(conn, r["ref"]) if r["ref"] is not None else None
        if version is None and r["building"] is not None:  # gone: its version retired by the build
            version = queries.retired_version(conn, r["building"], r["collection"], r["path"])
        entry = {"collection": r["name"], "root": r["root"], "path": r["path"], "kind": None, "size": None,
                 "mtime": None, "state": "indexed", "reason": None}
        if version is not None:
            entry.update(kind=version["kind"], size=version["size"], mtime=version["mtime"])
        if r["generation"] is not None:
            p = queries.progress_of(conn, r["generation"], r["path"])
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


def text(data: dict, sort: str) -> str:
    """The count, then the notes on how the folder or pattern was read (as search puts them), then the files."""
    order = "newest first" if sort == "modified" else "by path"
    matches = "matches" if data["total"] == 1 else "match"
    head = f"{render.count(data['total'], 'file')} {matches}; showing {data['shown']} ({order})"
    lines = [head if data["files"] else "no files match"] + render.notes(data.get("notes", []))
    for f in data["files"]:
        state = f["state"] + (f": {f['reason']}" if f["reason"] else "")
        lines.append(f"{f['path']}  {f['kind'] or '-'}  {render.size(f['size'])}  {f['modified'] or '-'}  {state}")
    if data["shown"] < data["total"]:
        lines.append(f"[{data['total'] - data['shown']} more: raise limit, or narrow with path_prefix or glob]")
    return "\n".join(lines)
