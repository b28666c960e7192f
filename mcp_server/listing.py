"""list_files as the model reads it: the text of what search.query.listing found (the files, their states
and the notes), which the CLI's ``ingest files`` prints its own way."""
from __future__ import annotations

import threading
from collections import OrderedDict

from ingest import passage_dates
from ingest.discover import away, listed_kind, why_not_indexed
from mcp_server import render
from search.query import listing
from search.query.scope import MCP


REPEATED = ("collection", "relative_path")  # what a file's ``path`` (collection/relative/path) already says
PAGES_KEPT = 256  # the next_offsets this server remembers the page of (the last file each page showed)
_pages: OrderedDict = OrderedDict()  # (collection, folder, glob, sort, next_offset) -> the path shown last
_pages_lock = threading.Lock()


def page(sift, where, glob, sort, limit, offset: int = 0, dated=None, tags=(), author=None) -> tuple[dict, int]:
    """list_files' answer for an ``offset``, and the offset it was listed from. An offset counts the files as they
    stand at each call, so a file indexed, added or removed between two pages shifted the next page: files of the
    last page came again (a new note sorts first, newest first) or were never shown (one deleted), unsaid. For an
    offset this server gave as next_offset, the page goes on after the file that page showed last, wherever it
    now is, and a note says the listing changed; where that file is gone, the note says the page may repeat or
    skip files. ``dated``: the date range, ``tags`` the tags, ``author`` the author (listing.files)."""
    key = (where.collection, where.folder, glob, sort, dated, tags, author)
    with _pages_lock:
        last = _pages.get((*key, offset)) if offset else None
    notes = []
    if last is None:
        data = list_files(sift, where, glob, sort, limit, offset, dated, tags, author)
    else:  # the file before the page: where it is still the page's last, nothing moved
        before = list_files(sift, where, glob, sort, 1, offset - 1, dated, tags, author)["files"]
        if before and before[0]["path"] == last:  # (listed apart: a page of the largest limit has no room for it)
            data = list_files(sift, where, glob, sort, limit, offset, dated, tags, author)
        else:
            found = _place(sift, where, glob, sort, offset, last, dated, tags, author)
            if found is None:
                notes.append(f"the listing changed since offset={offset} was given (files indexed, added or "
                             f"removed), and {render.shown(last)}, the last file shown before, is no longer near its place: this "
                             "page may repeat or leave out files; list from offset 0 again to be sure")
                data = list_files(sift, where, glob, sort, limit, offset, dated, tags, author)
            else:
                notes.append(f"the listing changed since offset={offset} was given (files indexed, added or "
                             f"removed): this page goes on after {render.shown(last)}, the last file shown before, now at offset "
                             f"{found}, so that none repeats or is left out; files that now sort before it are "
                             "listed from offset 0")
                offset = found
                data = list_files(sift, where, glob, sort, limit, offset, dated, tags, author)
    data["notes"] = data.get("notes", []) + notes
    if data.get("next_offset") is not None and data["files"]:
        with _pages_lock:
            _pages[(*key, data["next_offset"])] = data["files"][-1]["path"]
            while len(_pages) > PAGES_KEPT:
                _pages.popitem(last=False)
    return data, offset


def _place(sift, where, glob, sort, offset: int, last: str, dated=None, tags=(), author=None) -> int | None:
    """The offset just after ``last`` in the listing as it is now, looked for among the files around ``offset``
    (as many before and after as one page of the largest limit holds); None where it is not there."""
    start = max(0, offset - listing.MAX_LIMIT // 2)
    near = list_files(sift, where, glob, sort, listing.MAX_LIMIT, start, dated, tags, author)["files"]
    found = [n for n, f in enumerate(near) if f["path"] == last]
    return start + found[0] + 1 if found else None


def list_files(sift, where, glob, sort, limit, offset: int = 0, dated=None, tags=(), author=None) -> dict:
    """The listing of ``where`` (a scope, its collection checked), as structured content: each file without
    the collection and relative path ``path`` already says. They made the data of 50 files over twice its
    text (10.8 KB against 4.6 KB). ``ingest files --json`` keeps them: a script may read them. ``next_offset``:
    the offset that lists the files after these, when there are any (past 500 files, there was no way to them
    but narrowing the folder or the pattern)."""
    rules = sift.rules()
    data = listing.files(sift.conn(), where, glob, sort, limit, sift.roots(), MCP, listed_kind, offset,
                         lambda root, rel: why_not_indexed(root, rel, rules), dated, tags, author, away)
    data["files"] = [{k: v for k, v in f.items() if k not in REPEATED} for f in data["files"]]
    for f in data["files"]:
        if f.get("dated"):
            f["dated"] = passage_dates.span(f["dated"])
    if offset + data["shown"] < data["total"]:
        data["next_offset"] = offset + data["shown"]
    return data


def text(data: dict, sort: str, offset: int = 0) -> str:
    """The count, then the notes on how the folder or pattern was read (as search puts them), then the files."""
    order = listing.ORDERS[sort]
    said = f"{render.count(data['total'], 'file')} {'matches' if data['total'] == 1 else 'match'}"
    if not data["files"]:
        head = f"{said}; offset {offset} is past the last of them" if data["total"] else "no files match"
    else:
        first, last = offset + 1, offset + data["shown"]
        # one file past an offset is 'file 4': '4 files match; showing 4' read as all four shown
        which = (f"{first}-{last}" if last > first else f"file {first}") if offset else f"{data['shown']}"
        head = f"{said}; showing {which} ({order})"
    same = _same(data["files"])
    if same:
        head += "; each " + ", ".join(f"modified {v}" if k == "modified" else v for k, v in same.items())
        # 'each note, modified 2026-12-07 00:59:16, indexed'; a row then gives its path and size and what differs
    lines = [render.shown(head)] + render.notes(data.get("notes", []))
    for f in data["files"]:
        kind = "" if "kind" in same else f"  {f['kind'] or '-'}"
        state = "" if "state" in same else "  " + _state(f)
        modified = "" if "modified" in same else f"  {f['modified'] or '-'}"
        dated = f"  dated {f['dated']}" if f.get("dated") else ""  # what put it in a date range: not its mtime
        lines.append(render.shown(f"{f['path']}{kind}  {render.size(f['size'])}{modified}{state}{dated}"))
    hint = listing.more(data, MCP, offset)
    if hint:
        lines.append(f"[{data['total'] - offset - data['shown']} more: {hint}]")
    return "\n".join(lines)


def _state(f: dict) -> str:
    return f["state"] + (f": {f['reason']}" if f["reason"] else "")


def _same(files: list[dict]) -> dict[str, str]:
    """The kind, the modified time and the state every file of a page shares, to say once above them: each row of a
    folder of notes said 'note  …  2026-12-07 00:59:16  indexed' (a checkout or a copy gives its files one time),
    36 characters a file that told an assistant nothing the first row had not. Empty for a page of one file."""
    if len(files) < 2:
        return {}
    said = {"kind": {f["kind"] for f in files}, "modified": {f["modified"] for f in files},
            "state": {_state(f) for f in files}}
    return {key: values.pop() for key, values in said.items() if len(values) == 1 and None not in values}
