"""The indexed files as MCP resources: what a person attaches to a conversation by hand (Claude Code's ``@``
menu, Claude Desktop's attachments), where the tools are what the model calls.

``sift://{+path}{?page,start_line}`` names any file ``read_file`` reads, by the path search and list_files
show, percent-encoded where a name needs it (``sift://notes/tech/x.md``, ``sift://notes/paper.pdf?page=4``,
``sift://notes/big.md?start_line=2001``), and reads as read_file's answer for it: numbered lines, at most 2,000
lines or 40 KB, and how to read on. ``resources/list`` names every indexed file (of the published generations, as
search finds them), newest first (by modified time, then collection and path), PAGE a page: a big home's 200,000
files are 1,000 pages, each read from the index with a LIMIT. Its ``nextCursor`` is the position of the page's last
file (its time, collection and path, opaque to the client), not an offset: a file indexed between two pages takes
no place, so none is listed twice or skipped (one newer than the position is not listed, as it is not on the
pages already read; one edited meanwhile moves to its new time). A cursor that is not one this server gave is
refused as invalid params, saying so. Any file is also read through the template, whose ``path`` a client can
have completed (completion/complete: the collections, then the indexed files whose path begins with what is
typed, by path, at most COMPLETIONS). A path that names no file, or a file Sift does not read, is an error
saying why, as read_file says it.
"""
from __future__ import annotations

import base64
import binascii
import json
import math
import sqlite3
from urllib.parse import quote

from mcp.server.mcpserver.exceptions import ResourceError
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, Completion, Resource, ResourceTemplateReference

from mcp_server import listing, paths, reading
from mcp_server.errors import NoIndexYet, Problem
from search.index import file_reads
from search.index.db import IndexUnavailable, explain
from search.index.status import when
from search.query.scope import Scope

SCHEME = "sift://"
TEMPLATE = SCHEME + "{+path}{?page,start_line}"
PAGE = 200  # files a page of resources/list names
CURSOR = "v1"  # the form of a cursor: a cursor of another form (an older Sift's) is refused, not misread
COMPLETIONS = 100  # the most completion/complete may return
MIME = "text/plain"  # read_file's numbered lines, whatever the file's kind


def uri(path: str) -> str:
    """sift://collection/relative/path, percent-encoded but for its slashes."""
    return SCHEME + quote(path, safe="/")


def register(server, sift) -> None:
    """The template every file reads through; resources/list is the server's (tools.Server, calling ``page``)."""

    @server.resource(TEMPLATE, name="file", title="A file of the indexed folders", mime_type=MIME,
                     description="A note, code file or PDF of the folders Sift indexes, by the path search and "
                     "list_files show (collection/relative/path; ?page=N for a PDF's page, ?start_line=N to read "
                     "on): read as read_file reads it, numbered lines, at most 2,000 lines or 40 KB.")
    def file(path: str, page: str = "", start_line: str = "") -> str:
        return read(sift, path, _number("page", page), _number("start_line", start_line))

    @server.completion()
    async def complete(ref, argument, context) -> Completion | None:
        if not (isinstance(ref, ResourceTemplateReference) and ref.uri == TEMPLATE and argument.name == "path"):
            return None
        import anyio.to_thread
        found = await anyio.to_thread.run_sync(completions, sift, argument.value)
        return Completion(values=found[:COMPLETIONS], total=len(found), has_more=len(found) > COMPLETIONS)


def read(sift, path: str, page: int | None = None, start_line: int | None = None) -> str:
    try:
        text, _ = reading.read(sift, path, start_line, None, page)
    except paths.Ambiguous as many:
        shown = ", ".join(uri(c) for c in many.candidates[:10])
        raise ResourceError(f"{many}: read one of {shown}" + (", …" if len(many.candidates) > 10 else "")) from None
    except (Problem, IndexUnavailable) as exc:
        raise ResourceError(str(exc)) from None
    except sqlite3.Error as exc:  # a damaged index, say: what it means, as the tools say it
        raise ResourceError(explain(exc, sift.settings.index_path)) from None
    return text


def _number(name: str, value: str) -> int | None:
    if value == "":
        return None
    if not value.isdigit() or int(value) < 1:
        raise ResourceError(f"{name} must be a whole number from 1 (got {value!r})")
    return int(value)


def completions(sift, typed: str) -> list[str]:
    """The collections (``notes/``) whose name begins with ``typed``, or once it names one, the paths of its
    indexed files that begin with it, by path: at most COMPLETIONS + 1, so the caller knows there are more."""
    collection, slash, rest = typed.partition("/")
    if sift.unusable:
        return []
    try:
        roots = sift.roots()
    except NoIndexYet:
        return []
    except (Problem, IndexUnavailable, sqlite3.Error) as exc:  # a damaged index, say
        raise _unreadable(sift, exc) from None
    if not slash:
        return [f"{name}/" for name in sorted(roots) if name.startswith(collection)]
    if collection not in roots:
        return []
    glob = "./" + "".join(f"[{c}]" if c in "*?[]{}" else c for c in rest) + "*"  # from the root, '*' taking '/'
    try:
        data = listing.list_files(sift, Scope(collection, None), glob, "path", COMPLETIONS + 1)
    except NoIndexYet:
        return []
    except (Problem, IndexUnavailable, sqlite3.Error) as exc:
        raise _unreadable(sift, exc) from None
    return [f["path"] for f in data["files"] if f["state"] == "indexed" and f["path"].startswith(typed)]


def page(sift, cursor: str | None) -> tuple[list[Resource], str | None]:
    """The PAGE indexed files after ``cursor`` (None: the newest), newest first, and the cursor of the next page
    (None: this is the last). None before anything is indexed (a fresh install's list was an error: 'nothing is
    indexed yet', said by the tools and stats already). A cursor this server did not give: MCPError (invalid
    params), saying what to send instead."""
    after = position(cursor) if cursor else None  # an empty one: the first page, as none
    if sift.unusable:  # nothing can be served (a SIFT_HOME that is not a folder): the instructions and tools say why
        return [], None
    try:
        rows = file_reads.newest_files(sift.conn(), after, PAGE + 1)  # one more: is there a next page?
    except NoIndexYet:
        return [], None
    except (Problem, IndexUnavailable, sqlite3.Error) as exc:  # a damaged index, say: not an empty list
        raise _unreadable(sift, exc) from None
    shown = rows[:PAGE]
    listed = [Resource(uri=uri(f"{r['collection']}/{r['path']}"), name=f"{r['collection']}/{r['path']}",
                       mime_type=MIME, size=r["size"], description=f"{r['kind']}, modified {when(r['mtime'])}")
              for r in shown]
    last = shown[-1] if len(rows) > PAGE else None
    return listed, (None if last is None else _cursor(last["mtime"], last["collection"], last["path"]))


def _unreadable(sift, exc: Exception) -> MCPError:
    """An index that cannot be read (damaged, say): what that means and what to do, as the tools say it. It was an
    empty list (the file would not open), or error code 0 with SQLite's bare 'database disk image is malformed'
    and a traceback on stderr (it opened, and a page could not be read)."""
    return MCPError(INTERNAL_ERROR, explain(exc, sift.settings.index_path) if isinstance(exc, sqlite3.Error)
                    else str(exc))


def _cursor(mtime: float, collection: str, path: str) -> str:
    text = json.dumps([CURSOR, mtime, collection, path], ensure_ascii=False, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def position(cursor: str) -> tuple[float, str, str]:
    """(mtime, collection, path) of the last file a page named, from its cursor; MCPError (invalid params) for
    anything else, the text of which it does not repeat (a client's garbage may be long)."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        form, mtime, collection, path = json.loads(text)
        if form != CURSOR or not isinstance(mtime, (int, float)) or isinstance(mtime, bool) \
                or not math.isfinite(mtime) or not isinstance(collection, str) or not isinstance(path, str):
            raise ValueError(form)
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError, OverflowError):  # 1 and 400 zeros: no float
        raise MCPError(INVALID_PARAMS, f"invalid cursor for resources/list ({len(cursor)} characters): not a "
                       "nextCursor this server gave; list again without a cursor to start from the newest file") \
            from None
    return float(mtime), collection, path
