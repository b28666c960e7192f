"""The indexed files as MCP resources: what a person attaches to a conversation by hand (Claude Code's ``@``
menu, Claude Desktop's attachments), where the tools are what the model calls.

``sift://{+path}{?page,start_line}`` names any file ``read_file`` reads, by the path search and list_files
show, percent-encoded where a name needs it (``sift://notes/tech/x.md``, ``sift://notes/paper.pdf?page=4``,
``sift://notes/big.md?start_line=2001``), and reads as read_file's answer for it: numbered lines, at most 2,000
lines or 40 KB, and how to read on. ``resources/list`` names the RECENT most recently modified indexed files (a list of every
file would be 200,000 entries in a big home); any other is read through the template, whose ``path`` a client
can have completed (completion/complete: the collections, then the indexed files whose path begins with what is
typed, by path, at most COMPLETIONS). A path that names no file, or a file Sift does not read, is an error
saying why, as read_file says it.
"""
from __future__ import annotations

from urllib.parse import quote

from mcp.server.mcpserver.exceptions import ResourceError
from mcp_types import Completion, Resource, ResourceTemplateReference

from mcp_server import listing, paths, reading
from mcp_server.errors import Problem
from search.index.db import IndexUnavailable
from search.query.scope import Scope

SCHEME = "sift://"
TEMPLATE = SCHEME + "{+path}{?page,start_line}"
RECENT = 100  # files resources/list names
COMPLETIONS = 100  # the most completion/complete may return
MIME = "text/plain"  # read_file's numbered lines, whatever the file's kind


def uri(path: str) -> str:
    """sift://collection/relative/path, percent-encoded but for its slashes."""
    return SCHEME + quote(path, safe="/")


def register(server, sift) -> None:
    """The template every file reads through; resources/list is the server's (tools.Server.list_resources)."""

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
    try:
        roots = sift.roots()
    except (Problem, IndexUnavailable):  # nothing indexed yet
        return []
    if not slash:
        return [f"{name}/" for name in sorted(roots) if name.startswith(collection)]
    if collection not in roots:
        return []
    glob = "./" + "".join(f"[{c}]" if c in "*?[]{}" else c for c in rest) + "*"  # from the root, '*' taking '/'
    try:
        data = listing.list_files(sift, Scope(collection, None), glob, "path", COMPLETIONS + 1)
    except (Problem, IndexUnavailable):
        return []
    return [f["path"] for f in data["files"] if f["state"] == "indexed" and f["path"].startswith(typed)]


def recent(sift) -> list[Resource]:
    """The RECENT most recently modified indexed files, newest first; none before anything is indexed (a fresh
    install's list was an error: 'nothing is indexed yet', said by the tools and stats already)."""
    try:
        data = listing.list_files(sift, Scope(None, None), None, "modified", RECENT)
    except (Problem, IndexUnavailable):
        return []
    return [Resource(uri=uri(f["path"]), name=f["path"], mime_type=MIME, size=f.get("size"),
                     description=f"{f['kind']}, modified {f['modified']}" if f.get("modified") else f["kind"])
            for f in data["files"] if f["state"] == "indexed"]
