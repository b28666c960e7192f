"""list_files as the model reads it: the text of what search.query.listing found (the files, their states
and the notes), which the CLI's ``ingest files`` prints its own way."""
from __future__ import annotations

from ingest.discover import kind_on_disk, why_not_indexed
from mcp_server import render
from search.query import listing
from search.query.scope import MCP


REPEATED = ("collection", "relative_path")  # what a file's ``path`` (collection/relative/path) already says


def list_files(sift, where, glob, sort, limit, offset: int = 0) -> dict:
    """The listing of ``where`` (a scope, its collection checked), as structured content: each file without
    the collection and relative path ``path`` already says. They made the data of 50 files over twice its
    text (10.8 KB against 4.6 KB). ``ingest files --json`` keeps them: a script may read them. ``next_offset``:
    the offset that lists the files after these, when there are any (past 500 files, there was no way to them
    but narrowing the folder or the pattern)."""
    rules = sift.rules()
    data = listing.files(sift.conn(), where, glob, sort, limit, sift.roots(), MCP, kind_on_disk, offset,
                         lambda root, rel: why_not_indexed(root, rel, rules))
    data["files"] = [{k: v for k, v in f.items() if k not in REPEATED} for f in data["files"]]
    if offset + data["shown"] < data["total"]:
        data["next_offset"] = offset + data["shown"]
    return data


def text(data: dict, sort: str, offset: int = 0) -> str:
    """The count, then the notes on how the folder or pattern was read (as search puts them), then the files."""
    order = "newest first" if sort == "modified" else "by path"
    said = f"{render.count(data['total'], 'file')} {'matches' if data['total'] == 1 else 'match'}"
    if not data["files"]:
        head = f"{said}; offset {offset} is past the last of them" if data["total"] else "no files match"
    else:
        first, last = offset + 1, offset + data["shown"]
        which = (f"{first}-{last}" if last > first else f"{first}") if offset else f"{data['shown']}"
        head = f"{said}; showing {which} ({order})"
    lines = [head] + render.notes(data.get("notes", []))
    for f in data["files"]:
        state = f["state"] + (f": {f['reason']}" if f["reason"] else "")
        lines.append(render.shown(f"{f['path']}  {f['kind'] or '-'}  {render.size(f['size'])}  {f['modified'] or '-'}  {state}"))
    hint = listing.more(data, MCP, offset)
    if hint:
        lines.append(f"[{data['total'] - offset - data['shown']} more: {hint}]")
    return "\n".join(lines)
