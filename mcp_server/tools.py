"""The six tools: their parameters (JSON schemas come from these type hints), descriptions and results.

Each tool returns readable text for the model plus the same facts as
structured content. Anything that goes wrong comes back as a tool error whose
message says what to do; nothing escapes as a crash.
"""
from __future__ import annotations

import difflib
import functools
import inspect
import sqlite3
import sys
import time
import traceback
import unicodedata
from typing import Annotated, Any, Literal

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ListResourcesResult, PaginatedRequestParams, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from mcp_server import (input_schema, listing, not_downloaded, partial_said, paths, reading, render, report, resources,
                        searches_at_once, shapes)
from mcp_server.errors import NoIndexYet, Problem
from mcp_server.service import NO_INDEX
from mcp_server.wording import in_tool_words
from search.index import collection_reads, file_reads
from search.index.status import root_missing
from search.query import scope
from search.query.filters import empty_range, file_glob, unix_time, wanted_tags
from search.query.listing import glob_hint, sort_for

MAX_LIMIT = 50
OFFSET_MAX = 1_000_000_000  # list_files' offset: past every home, inside SQLite's integers
ECHO_CHARS = 200  # how much of the query the text line of search repeats
CANDIDATES_SHOWN = 100  # files listed for a bare name that several share

# The arguments several tools share are described once, on search (tools/list goes with every conversation:
# list_files and similar said the same 300-character explanations again); theirs say 'as search's'.
Collection = Annotated[str | None, Field(max_length=200, description="A collection's name (stats lists them).")]
PathPrefix = Annotated[str | None, Field(max_length=4096, description="Only files under this folder: from a "
                                         "collection's root ('clients/'), as results show paths "
                                         "('notes/clients/'), or absolute. 'tech' is the folder tech/, not technology/ "
                                         "(glob='tech*' for that).")]
FilePath = Annotated[str, Field(max_length=4096, description="'collection/relative/path' as search and list_files "
                                "give it, a path relative to a collection root, an absolute path, or a bare file "
                                "name.")]

Kind = Annotated[Literal["note", "code", "pdf", "text", "mail"] | None, Field(
    description="note: Markdown and what is read as notes (Word, EPUB, slide decks, mail, Evernote, org, LaTeX …); "
                "text: plain text, CSV, spreadsheets; mail: those notes that are mail (.eml, Outlook .msg, mailboxes).")]
SharedPathPrefix = Annotated[str | None, Field(max_length=4096, description="As search's.")]
# the arguments the other tools share with search, explained once on search: tools/list goes with every
# conversation, and past 20,000 characters once list_files took author
SharedCollection = Annotated[str | None, Field(max_length=200, description="As search's.")]
SharedKind = Annotated[Literal["note", "code", "pdf", "text", "mail"] | None, Field(description="As search's.")]

Author = Annotated[str | None, Field(max_length=200, description=(
    "Only passages by this author (any case; 'Berg', 'A. Berg' find Anna Berg): a file's recorded author, a "
    "mail's sender, a chat's speaker. For 'what did Anna write about …'."))]
SharedAuthor = Annotated[str | None, Field(max_length=200, description="As search's.")]
TagName = Annotated[str, Field(max_length=200)]
Tags = Annotated[Annotated[list[TagName], Field(max_length=16)] | TagName | None, Field(description=(
    "Only passages with all these tags (any case, '#' optional; 'project' finds #project/sift): front matter, "
    "inline #tags, Logseq, org, Evernote, Gmail labels."))]
SharedTags = Annotated[Annotated[list[TagName], Field(max_length=16)] | TagName | None, Field(
    description="As search's.")]

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
QUEUES_A_JOB = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                               open_world_hint=False)


class Server(MCPServer):
    """MCPServer whose argument errors read well to a model: one clause per field, no pydantic links,
    a boolean refused where a whole number is asked (pydantic's lax mode would take true as 1), and a number
    out of its schema's bounds told plainly ('limit must be between 1 and 50 (got 1000)'). Every bad argument
    is told in the one error, so that a model fixes them all in one go rather than one per call."""

    checks = None  # (tool name, arguments, keys already told) -> what the tool itself refuses; set by register
    files = None  # (cursor) -> (a page of the indexed files as resources, next cursor): resources.page; by register

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.pace = searches_at_once.Pace()  # searches run a few at once, every other call beside them

    async def _handle_list_resources(self, ctx, params: PaginatedRequestParams | None) -> ListResourcesResult:
        """resources/list a page at a time, read from the index as it is now (the list MCPServer keeps is fixed
        when the server starts, and its handler drops the request's cursor): the indexed files, newest first,
        after the cursor (mcp_server.resources.page); any resource registered by hand before them, on the first
        page."""
        cursor = params.cursor if params else None
        fixed = [] if cursor else await super().list_resources()
        if self.files is None:
            return ListResourcesResult(resources=fixed)
        found, after = await anyio.to_thread.run_sync(self.files, cursor)
        return ListResourcesResult(resources=fixed + found, next_cursor=after)

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        found = self._tool_manager.get_tool(name)
        if found is None:
            raise ToolError(_unknown_tool(name, [t.name for t in self._tool_manager.list_tools()]))
        refused = _unknown_arguments(found, arguments) + _booleans_for_integers(found, arguments)
        outside = _out_of_bounds(found, arguments)
        if refused or outside:
            bad = {key for key, _ in refused + outside}
            others = _other_errors(found, arguments, bad)
            invalid = [clause for _, clause in refused] + others
            told = [clause for _, clause in outside] + (["invalid arguments: " + "; ".join(invalid)] if invalid else [])
            raise ToolError(f"Error executing tool {name}: {'; '.join(told + self._refused(name, arguments, bad))}")
        try:
            async with self.pace.slot(name):
                return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
                bad = {str(e["loc"][0]) for e in cause.errors() if e["loc"]}
                told = [invalid_arguments(cause)] + self._refused(name, arguments, bad)
                raise ToolError(f"Error executing tool {name}: {'; '.join(told)}") from cause
            if isinstance(cause, ValidationError):  # the answer, checked against the tool's shapes: Sift's bug
                raise ToolError(_unfit_answer(name, cause)) from cause
            more = [] if isinstance(exc, UnexpectedToolError) else self._refused(name, arguments, set())
            untold = [clause for clause in more if clause not in str(exc)]
            if untold:  # the tool stopped at the first of its own refusals
                raise ToolError("; ".join([str(exc)] + untold)) from exc
            raise

    async def get_prompt(self, name: str, arguments=None, context=None):
        """Sift offers no prompts: one asked for was answered with error code 0 and a traceback on stderr."""
        if self._prompt_manager.get_prompt(name) is None:
            tools = ", ".join(t.name for t in self._tool_manager.list_tools())
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {_short_repr(str(name), 100)}: this server offers no "
                           f"prompts; its tools are {tools}")
        return await super().get_prompt(name, arguments, context)

    def _refused(self, name: str, arguments, told: set[str]) -> list[str]:
        """What the tool itself would refuse beside the schema's errors (an unknown collection, a date that is
        not ISO): asked only once a call has failed, so that a good call pays nothing for it."""
        if self.checks is None or not isinstance(arguments, dict):
            return []
        return self.checks(name, arguments, told)


def _unfit_answer(name: str, exc: ValidationError) -> str:
    """An answer that does not fit the shape its tool declares (mcp_server.shapes): said, and logged, where it
    was a bare 'Error executing tool read_file'."""
    print(f"sift-mcp: {name}'s answer does not fit its outputSchema:\n{exc}", file=sys.stderr)
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in first["loc"]) or "the answer"
    return (f"{name} failed unexpectedly: its answer does not fit the tool's outputSchema ({where}: {first['msg']}); "
            "the server log has the details")


def _unknown_tool(name, names: list[str]) -> str:
    """'Unknown tool: read' alone left a model to guess: the tools this server has, and the nearest name (a
    client's prefix 'sift_search' or 'sift__search' included)."""
    typed = str(name)
    near = ([n for n in names if n in typed or typed in n] if typed else []) \
        or difflib.get_close_matches(typed, names, n=1, cutoff=0.6)
    meant = f" (did you mean {near[0]}?)" if near else ""
    return f"Unknown tool: {_short_repr(typed, 100)}{meant}; this server's tools are {', '.join(names)}"


# What a model used to other tools means by a name this one does not take, where the nearest spelling misleads:
# a file reader's offset and limit (Claude Code's Read) count lines, where start_offset counts bytes into one.
ALIASES = {
    ("read_file", "offset"): "start_line", ("read_file", "line"): "start_line",
    ("read_file", "lines"): "start_line and end_line", ("read_file", "limit"): "end_line, the last line to show",
    ("read_file", "file"): "path", ("read_file", "section"): "heading", ("read_file", "file_path"): "path", ("similar", "file_path"): "path",
}


def _unknown_arguments(found, arguments) -> list[tuple[str, str]]:
    """(key, "'colection' is not an argument of search (did you mean collection?): it takes query, …") for each
    argument the tool does not take. pydantic drops them, so a misspelled filter ('colection', 'path') used to
    widen the search silently: the model got answers from every collection and no word that its filter was
    ignored."""
    if found is None or not isinstance(arguments, dict):
        return []
    properties = found.parameters.get("properties", {})
    takes = f"it takes {', '.join(properties)}" if properties else "it takes none"
    told = []
    for key in (k for k in arguments if k not in properties):
        # 'path' for path_prefix before any spelling near it: once search took 'author', 'path' was nearer to it
        near = [ALIASES[found.name, key]] if (found.name, key) in ALIASES else \
            [name for name in properties if name.startswith(f"{key}_")] or \
            difflib.get_close_matches(str(key), list(properties), n=1)
        meant = f" (did you mean {near[0]}?)" if near else ""
        told.append((key, f"{_short_repr(str(key), 40)} is not an argument of {found.name}{meant}"))
    if told:  # what the tool takes, said once after the last of them
        told[-1] = (told[-1][0], f"{told[-1][1]}: {takes}")
    return told


def _booleans_for_integers(found, arguments) -> list[tuple[str, str]]:
    """(key, 'limit: give a whole number, not a boolean (got true)') for each integer parameter given a boolean."""
    if found is None or not isinstance(arguments, dict):
        return []
    properties = found.parameters.get("properties", {})
    bad = [key for key, value in arguments.items() if isinstance(value, bool) and key in properties
           and "integer" in _types(properties[key]) and "boolean" not in _types(properties[key])]
    return [(key, f"{key}: give a whole number, not a boolean (got {str(arguments[key]).lower()})") for key in bad]


def _out_of_bounds(found, arguments) -> list[tuple[str, str]]:
    """(key, 'limit must be between 1 and 50 (got 1000)') for each number outside the bounds its JSON schema
    gives (the schema the client sees; pydantic would say 'Input should be less than or equal to 50')."""
    if found is None or not isinstance(arguments, dict):
        return []
    properties = found.parameters.get("properties", {})
    parts = []
    for key, value in arguments.items():
        if key not in properties or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        low, high = _bound(properties[key], "minimum"), _bound(properties[key], "maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            parts.append((key, f"{key} must be {_range(low, high)} (got {_short_repr(value)})"))
    return parts


def _other_errors(found, arguments: dict, told: set[str]) -> list[str]:
    """pydantic's clauses for the arguments not already ``told`` of (mode='bogus' beside limit=1000)."""
    try:
        found.fn_metadata.validate_arguments(arguments)
    except ValidationError as exc:
        return _clauses(exc, skip=told)
    except Exception:  # a crash of validation is the tool's own call to report, not this message's
        return []
    return []


def _bound(schema: dict, which: str):
    """The schema's minimum or maximum, also inside an anyOf (an optional parameter: integer or null)."""
    found = [schema[which]] if which in schema else []
    found += [option[which] for option in schema.get("anyOf", ()) if which in option]
    return found[0] if found else None


def _range(low, high) -> str:
    if low is not None and high is not None:
        return f"between {low} and {high}"
    return f"{low} or more" if high is None else f"{high} or less"


def _types(schema: dict) -> set[str]:
    kinds = {schema["type"]} if isinstance(schema.get("type"), str) else set(schema.get("type") or ())
    for option in schema.get("anyOf", ()):
        kinds |= _types(option)
    return kinds


def invalid_arguments(exc: ValidationError) -> str:
    """pydantic's errors as 'invalid arguments: limit: Input should be … (got 99)', without its links."""
    return "invalid arguments: " + "; ".join(_clauses(exc))


def _clauses(exc: ValidationError, skip: set[str] = frozenset()) -> list[str]:
    """One 'field: what is wrong (got value)' per error, but for the fields in ``skip``."""
    parts = []
    for err in exc.errors(include_url=False):
        if err["loc"] and str(err["loc"][0]) in skip:
            continue
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        given = err.get("input")
        got = f" (got {_short_repr(given)})" if err["type"] != "missing" and _scalar(given) else ""
        parts.append(f"{where}: {err['msg']}{got}")
    return parts


def _scalar(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _short_repr(value, chars: int = 80) -> str:
    if isinstance(value, str) and len(value) > chars:
        return repr(value[:chars]) + f"… ({len(value):,} characters)"
    return repr(value)[:chars]


def tool(fn):
    """Turn every failure of a tool into a ToolError a model can act on; the server's startup problem (a wrong
    --root) said first in the answers it bears on."""
    @functools.wraps(fn)
    def guarded(self, *args, **kwargs):
        if self.sift.unusable:  # nothing to serve (mcp_server.settings_problems): every tool says why
            raise ToolError(f"problem: {self.sift.unusable}")
        try:
            answer = fn(self, *args, **kwargs)
        except ToolError as exc:
            if not _problems(self.sift, fn.__name__):
                raise
            raise ToolError(_with_problem(self.sift, fn.__name__, str(exc))) from None
        except Exception as exc:
            raise ToolError(_with_problem(self.sift, fn.__name__,
                                          _message(fn.__name__, exc, self.sift.settings.index_path))) from None
        return _told_problem(self.sift, fn.__name__, answer)
    return guarded


# The tools whose answers depend on the folders registered and the settings: they say the server's startup
# problems first. A wrong --root or a bad SIFT_* setting in Claude Desktop's configuration ended the server, and
# the user saw only 'disconnected'.
TELL_PROBLEM = ("search", "list_files", "similar", "stats", "refresh")


def _problems(sift, name: str) -> list[str]:
    from mcp_server.settings_problems import standing  # one that no longer holds is not said (a slip's home built)
    return standing(sift.problems) if name in TELL_PROBLEM else []


def _with_problem(sift, name: str, message: str) -> str:
    return "".join(f"problem: {problem}\n" for problem in _problems(sift, name)) + message


def _told_problem(sift, name: str, answer):
    """``answer`` with the startup problems as its first lines, and first among its notes (stats: its notices)."""
    problems = _problems(sift, name)
    if not problems or not isinstance(answer, CallToolResult):
        return answer
    answer.content[0].text = _with_problem(sift, name, answer.content[0].text)
    data = answer.structured_content
    key = {"stats": "notices", "refresh": None}.get(name, "notes")
    if key and isinstance(data, dict) and "candidates" not in data:
        data[key] = [*problems, *data.get(key, [])]
    return answer


def _message(name: str, exc: Exception, index_path) -> str:
    from search.index import db
    from search.model.info import ModelError
    from search.query.answer import SearchError
    from workers.queues import QueueUnavailable
    if isinstance(exc, (Problem, SearchError, QueueUnavailable)):
        return str(exc)
    if isinstance(exc, ValidationError):
        return f"{name} failed: {invalid_arguments(exc)}"
    if isinstance(exc, ModelError):
        return f"{in_tool_words(str(exc))}. Use mode 'keyword', which needs no model."
    if isinstance(exc, db.NoIndex):
        return f"{NO_INDEX} ({in_tool_words(str(exc))})"
    if isinstance(exc, db.IndexUnavailable):
        return str(exc)
    if db.is_damaged(exc) or db.is_disk_full(exc) or (isinstance(exc, sqlite3.Error) and "readonly" in str(exc)):
        return db.explain(exc, index_path)
    if isinstance(exc, sqlite3.Error):
        return f"the index could not be read just now ({exc}): try again in a moment"
    if isinstance(exc, (OSError, ValueError, LookupError)):
        return f"{name} failed: {exc}"
    print(f"sift-mcp: {name} failed unexpectedly:\n{traceback.format_exc()}", file=sys.stderr)
    return f"{name} failed unexpectedly ({type(exc).__name__}: {exc}); the server log has the details"


# Keys kept even when null or empty, for what that says: no results or no files (the answer itself); nothing
# published yet; the end of the file reached (no next line or page); a line count not finished (total_lines_at_least
# has how far it got); a file not in the published index; a missing query word's suggestion (none found).
KEPT_EMPTY = frozenset({"results", "files", "candidates", "published_generation", "next_start_line", "next_page",
                        "total_lines", "indexed_generation", "suggestion", "first_scan_queued"})


def result(text: str, data: dict, whole: bool = False) -> CallToolResult:
    """The text and the structured content, without the keys whose null or empty value says nothing their
    absence would not (a hit's page on a Markdown note, a file's missing reason, no notes); ``whole``: as is."""
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=data if whole else _without_empty(data))


def _without_empty(value):
    if isinstance(value, list):
        return [_without_empty(v) for v in value]
    if not isinstance(value, dict):
        return value
    kept = {key: _without_empty(v) for key, v in value.items()}
    return {key: v for key, v in kept.items() if key in KEPT_EMPTY or not (v is None or v == [] or v == {})}


class Tools:
    def __init__(self, sift):
        self.sift = sift
        self.told = partial_said.Told()  # the partial notes each conversation was told

    @tool
    def search(
        self,
        query: Annotated[str, Field(description="Words, names, code identifiers or a question; Chinese (Simplified "
                                    "or Traditional), English or mixed. A quoted Chinese phrase (\"付款方式\") "
                                    "finds it only as written.")],
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = 10,
        mode: Annotated[Literal["hybrid", "keyword", "semantic"], Field(
            description="hybrid: words and meaning; keyword: exact words and names, fastest; semantic: meaning "
                        "only, finds paraphrases.")] = "hybrid",
        collection: Collection = None,
        path_prefix: PathPrefix = None,
        kind: Kind = None,
        glob: Annotated[str | None, Field(max_length=1000, description="Shell pattern on the path inside the "
                                          "collection: '*.go' (no '/': the name in any folder), '*.{ts,tsx}', "
                                          "'src/**/*.py'.")] = None,
        modified_after: Annotated[str | None, Field(max_length=64, description="File modified at or after: "
                                                    "2024-03-01, 2024-03-01T14:30, 2024-03 or 2024 (its first "
                                                    "day).")] = None,
        modified_before: Annotated[str | None, Field(max_length=64)] = None,
        date_after: Annotated[str | None, Field(max_length=64, description="Passage about a date at or after (as "
                                                "modified_after): a mail's Date, a daily note's date (name or "
                                                "folders), a log's date heading, a chat's day, a created date; "
                                                "else its file's modified time. For 'what did I write in March "
                                                "2023'.")] = None,
        date_before: Annotated[str | None, Field(max_length=64)] = None,
        tags: Tags = None,
        author: Author = None,
        ctx: Context | None = None,
    ) -> CallToolResult:
        """Search the user's own notes, code and PDFs (local folders they chose). Use it first whenever the user
        asks about something that may be in them (projects, people, decisions, papers). Returns the best
        passages, each with its path, lines or page, headings and a snippet with the matched words in **bold**;
        read_file a result's path for its full context. *_after dates are inclusive, *_before ones
        exclusive.
        """
        from search.query.filters import Filters
        where = self._scope(collection, path_prefix)
        filters = Filters(collection=where.collection, path_prefix=where.folder, kind=kind, glob=glob or None,
                          modified_after=_unix(modified_after, "modified_after"),
                          modified_before=_unix(modified_before, "modified_before"),
                          date_after=_unix(date_after, "date_after"), date_before=_unix(date_before, "date_before"),
                          tags=_tags(tags), author=_author(author))
        answer = self.sift.engine().search(query, limit=limit, mode=mode, filters=filters)
        answer.notes += where.notes(found=bool(answer.hits))
        if not answer.hits:  # 'notes/*.md' matched nothing and said nothing, where list_files tells how to write it
            answer.notes += [hint for hint in (glob_hint(glob, self.sift.roots(), scope.MCP),) if hint]
        fresh_line, fresh = report.freshness(self.sift.conn(), where.collection, self.sift.unqueued)
        partial = report.partial_noted(self.sift.conn(), fresh, kind, self.told.asker(partial_said.session_of(ctx)))
        if partial:  # the freshness clause of a collection the note names points to it, not its counts again
            fresh_line = report.freshness_line(fresh, frozenset(partial))
        answer.notes[:0] = list(partial.values())  # first: the answer may be in a file not read yet
        hits = [render.hit_data(h) for h in answer.hits]
        not_downloaded.mark(hits, self.sift.roots())
        once = render.generations_said(hits, answer.generations)
        # the model's id ('all-MiniLM-L6-v2-384d-c83381497633') is in the data's models: the text said it on every
        # search, where an assistant acts on nothing it says (stats names the model)
        lines = [f"{render.count(len(hits), 'passage')} for {_echo(answer.query)} "
                 f"({answer.mode}, {answer.took_ms} ms{once})"]
        lines += render.notes(_said_in_text(answer.notes, hits))
        lines += render.hits_text(hits, once=bool(once)) or _no_match(answer.generations, answer.notes)
        data = {"query": answer.query, "query_cut": len(answer.query) < len(query), "mode": answer.mode,
                "results": [render.lean(h, answer.generations) for h in hits], "generations": answer.generations,
                "models": answer.models,
                "notes": answer.notes, "unmatched": answer.unmatched, "freshness": fresh}
        return result("\n".join(lines + [fresh_line]), data)

    @tool
    def read_file(
        self,
        path: FilePath,
        start_line: Annotated[int | None, Field(ge=1)] = None,
        end_line: Annotated[int | None, Field(ge=1, description="Default: start_line + 1999.")] = None,
        page: Annotated[int | None, Field(ge=1, description="A PDF's page.")] = None,
        end_page: Annotated[int | None, Field(ge=1, description="A PDF's last page to show from page on (as "
                                              "many as fit in 40 KB).")] = None,
        start_offset: Annotated[int | None, Field(ge=0, description="The next_start_offset an answer cut "
                                                  "inside a long line or page gave.")] = None,
        heading: Annotated[str | None, Field(max_length=1000, description="Instead of lines or pages: the section "
                                             "under this heading ('The storm', 'Part 2#The storm'; any case): a "
                                             "document's heading, 'Slide 3', a PDF's outline, a mail's Subject "
                                             "('thread: <Subject>' for its thread, 'Attachment: report.pdf'), a "
                                             "chat's day ('#general · 2024-03-14').")] = None,
    ) -> CallToolResult:
        """Read an indexed file: text with line numbers, a PDF by page (its text as indexed), or
        the section under a heading. Use it after search to read a result whole or around its lines, or to open a
        file the user names. Shows at most 2,000 lines or 40 KB a call and says how to get the rest. A bare file
        name that several files share returns the candidates.
        """
        try:
            text, data = reading.read(self.sift, path, start_line, end_line, page, start_offset, end_page, heading)
        except paths.Ambiguous as many:
            return _candidates("read_file", path, many)
        return result(text + _same_name(self.sift, path, data.get("path")), data)

    @tool
    def list_files(
        self,
        collection: SharedCollection = None,
        path_prefix: SharedPathPrefix = None,
        glob: Annotated[str | None, Field(max_length=1000, description="As search's: '*.md', 'clients/*', "
                                          "'*2024-03*'.")] = None,
        sort: Annotated[Literal["modified", "path", "dated"] | None, Field(
            description="modified: newest first (the default); path; dated: newest first by the date its "
                        "passages are about (search's date_after), the default with a date range.")] = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
        offset: Annotated[int, Field(ge=0, le=OFFSET_MAX, description="The next_offset an answer gave.")] = 0,
        date_after: Annotated[str | None, Field(max_length=64, description="Files with a passage as search's "
                                                "date_after: 'which notes did I write in March 2024'.")] = None,
        date_before: Annotated[str | None, Field(max_length=64)] = None,
        tags: Annotated[SharedTags, Field(description="As search's tags (files with them).")] = None,
        author: SharedAuthor = None,
    ) -> CallToolResult:
        """List indexed files with kind, size, modified time and state (indexed, pending, failed or skipped with
        the reason). Use it to browse a folder, find recent files ("what did I write this week"), find a file by
        name pattern, or check whether a file is searchable yet.
        """
        where = self._scope(collection, path_prefix)
        dated = (_unix(date_after, "date_after"), _unix(date_before, "date_before"))
        refused = empty_range(*dated, ("date_after", "date_before"))
        if refused:
            raise Problem(refused)
        sort = sort_for(sort, dated)
        data, offset = listing.page(self.sift, where, glob, sort, limit, offset, dated, _tags(tags), _author(author))
        # the listing is the index's: a file edited, deleted or added since its scan shows as it was indexed
        fresh_line, data["freshness"] = report.freshness(self.sift.conn(), where.collection, self.sift.unqueued)
        return result(f"{listing.text(data, sort, offset)}\n{fresh_line}", data)

    def _scope(self, collection: str | None, path_prefix: str | None) -> scope.Scope:
        """The collection and folder to look in: path_prefix as results show paths ('collection/folder'),
        absolute inside a root, or relative to the root (see search.query.scope), its notes in parameters."""
        collection = self.sift.check_collection(collection)
        if path_prefix is None:
            return scope.Scope(collection, None)
        return scope.scope(collection, path_prefix, self.sift.roots(), scope.MCP, self.sift.conn())

    @tool
    def similar(
        self,
        path: Annotated[str | None, Field(max_length=4096, description="A file, as search gives it.")] = None,
        chunk_id: Annotated[int | None, Field(description="Or one passage: a search result's chunk.")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="At most one passage per file.")] = 10,
        collection: SharedCollection = None,
        path_prefix: SharedPathPrefix = None,
        kind: SharedKind = None,
        glob: Annotated[str | None, Field(max_length=1000, description="As search's.")] = None,
        date_after: Annotated[str | None, Field(max_length=64, description="As search's.")] = None,
        date_before: Annotated[str | None, Field(max_length=64)] = None,
        tags: SharedTags = None,
        author: SharedAuthor = None,
    ) -> CallToolResult:
        """Find passages of other files closest in meaning to a file or a passage: related notes, earlier
        drafts, documents on the same topic. Give exactly one of path or chunk_id. Looks in every collection
        unless collection, path_prefix, kind or glob narrow it.
        """
        from search.query.filters import Filters
        where = self._scope(collection, path_prefix)
        filters = Filters(collection=where.collection, path_prefix=where.folder, kind=kind, glob=glob or None,
                          date_after=_unix(date_after, "date_after"), date_before=_unix(date_before, "date_before"),
                          tags=_tags(tags), author=_author(author))
        refused = empty_range(filters.date_after, filters.date_before, ("date_after", "date_before"))
        if refused:
            raise Problem(refused)
        target = None
        if path is not None:
            conn, roots = self.sift.conn(), self.sift.roots()
            try:
                target = paths.indexed(conn, path, roots, self.sift.rules())
            except paths.Ambiguous as many:
                return _candidates("similar", path, many)
        if (target is None) == (chunk_id is None):
            raise Problem("give exactly one of path or chunk_id")
        answer = self.sift.engine().similar(chunk_id=chunk_id, path=target, limit=limit, filters=filters)
        answer.notes += where.notes(found=bool(answer.hits))
        if not answer.hits:
            answer.notes += [hint for hint in (glob_hint(glob, self.sift.roots(), scope.MCP),) if hint]
        hits = [render.hit_data(h) for h in answer.hits]
        not_downloaded.mark(hits, self.sift.roots())
        once = render.generations_said(hits, answer.generations)
        lines = [render.shown(f"{render.count(len(hits), 'passage')} like {answer.query} (other files, best "
                              f"passage of each{once})")]
        lines += render.notes(answer.notes)
        said = _filtered_out(answer.notes)
        lines += render.hits_text(hits, once=bool(once)) or [f"no other passages found{f': {said}' if said else ''}"]
        return result("\n".join(lines), {"source": answer.query, "results": [render.lean(h, answer.generations)
                                                                           for h in hits],
                                          "generations": answer.generations, "notes": answer.notes})

    @tool
    def stats(self, collection: SharedCollection = None) -> CallToolResult:
        """Report on the index: each collection's files, chunks and published generation with its age, a build's
        progress and ETA, failed files with reasons, the embedding model's and the worker's state. Use it when
        results look stale or missing, or the user asks what is indexed.
        """
        try:
            collection = self.sift.check_collection(collection)
        except NoIndexYet:  # before an index (or while one is made), the answer says what to do: no error
            collection = None
        text, data = report.stats(self.sift, collection)
        return result(text, data, whole=True)  # the one report, as `ingest stats --json` gives it

    @tool
    def refresh(self, collection: SharedCollection = None) -> CallToolResult:
        """Queue a re-scan of the indexed folders (or one collection) for new, changed and deleted files. Returns
        at once; searches answer from the last published generation until the new one is (stats shows progress).
        Use it when the user says they just added or changed files.
        """
        collection = self.sift.check_collection(collection)
        rows = collection_reads.collections(self.sift.conn(), collection)
        if not rows:
            raise Problem("no collections registered yet: start sift-mcp with --root FOLDER")
        from workers import rescan  # the queue is opened only when a tool needs it (--no-worker makes no home)
        waiting = {row["name"]: self.sift.queue_scan(row["id"]) for row in rows}
        worker = self.sift.worker.describe() if self.sift.worker else {"state": "none"}
        lines = [f"queued a re-scan of {row['name']} ({row['root']}){_after_its_build(self.sift.conn(), row)}"
                 if waiting[row["name"]] is None else rescan.already_queued(row["name"], waiting[row["name"]])
                 for row in rows]
        missing = [row for row in rows if root_missing(row["root"])]
        lines += [_folder_missing(row["name"], row["root"], self.sift.settings.rescan_minutes) for row in missing]
        if worker["state"] == "restarting":
            wait = worker["restart_in_seconds"]
            when = f"in {wait:.0f} s" if wait >= 1 else "now"
            lines.append(f"note: this server's worker exited and is restarting {when}; the job waits in the "
                         "queue until then")
        elif worker["state"] != "running":
            lines.append(_no_worker_of_its_own(self.sift.settings.home))
        return result("\n".join(lines), {"queued": [row["name"] for row in rows], "worker": worker["state"],
                                         "already_queued": [name for name, scan in waiting.items() if scan],
                                         "folder_missing": [row["name"] for row in missing]})


def _folder_missing(name: str, root: str, minutes: float) -> str:
    """What a re-scan of a collection whose folder is gone does: it said 'queued a re-scan' alone, and a user who
    had moved the folder was told the index would follow, when the scan finds none of its files and, after a
    rescan interval, removes them all from search."""
    return (f"note: the folder of {name}, {root}, is missing: the re-scan finds none of its files, which stay "
            f"searchable as last indexed until it has been gone {minutes:g} min (SIFT_RESCAN_MINUTES), then leave "
            f"search; if it was moved, `ingest enqueue NEW_FOLDER --name {name}` follows it (nothing is embedded "
            "again), or `sift-mcp --root NEW_FOLDER --name " + name + "` at the next start")


def _after_its_build(conn, row) -> str:
    """What a re-scan of a collection being built waits for: it said only 'queued a re-scan', and the changes
    were not searchable when that job ran (it runs once the build under way is published: a scan of files in
    flight would queue them twice)."""
    from search.index import freshness
    if not freshness.busy(conn, row["id"]):
        return ""
    first = " (its first)" if row["published"] is None else ""
    return (f"; a build of it is under way{first}: the re-scan runs once that build is published, and reads "
            "the changes then (stats shows its progress)")


def _no_worker_of_its_own(home) -> str:
    """What a refresh queued by a server without its own worker (--no-worker) waits for: a worker started by
    hand was told to start a worker it had running, as in the README's setup with huey_consumer. The command it
    gives serves this server's home (a bare huey_consumer served ~/.sift, and the job waited)."""
    from search.index.status import age
    from workers.app import worker_seen
    from workers.stats import worker_hint, worker_quiet
    seen = worker_seen()
    if worker_quiet(seen) is None:
        return (f"note: this server runs no worker; one on this queue was at work "
                f"{age(max(0.0, time.time() - seen))} ago and will take the job")
    return f"note: this server runs no worker, so the job waits for one: {worker_hint(home)}"


def _same_name(sift, raw: str, read: str | None) -> str:
    """For a bare name read as the file at a collection's root ('todo.md', where folders hold others of that
    name): a line saying how many other indexed files have the name and the list_files call that shows them.
    Such a name returned the candidates, though a path relative to a root is what read_file takes."""
    if not read or "/" in raw or "\\" in raw or not raw.strip():
        return ""
    # by place on disk: under a root inside another's, personal/todo.md and all/personal/todo.md are one file
    roots = sift.roots()
    # in either normal form, as read_file finds the name ('café.md' in NFC for a file macOS named in NFD)
    spellings = dict.fromkeys((raw, scope.nfc(raw), unicodedata.normalize("NFD", raw)))
    others = {scope.file_place(roots, *found) for spelling in spellings
              for found in file_reads.visible_by_name(sift.conn(), spelling)} - {scope.file_place(roots, *read.split("/", 1))}
    if not others:
        return ""
    # the name as a glob matching it alone, in any folder: '[id].tsx' as '[[]id].tsx' ('[id]' is a class of
    # 'i' and 'd'); a brace no escape reaches, so no glob then
    glob = file_glob(raw)
    shows = f": list_files(glob={glob.removeprefix('./')!r}) shows them" if glob else ""
    return "\n" + render.shown(f"[read {read}, at its collection's root; {render.count(len(others), 'other file')} "
                               f"called {raw!r}{shows}]")  # a newline in the name escaped, as the header shows it


def _candidates(name: str, path: str, many: paths.Ambiguous) -> CallToolResult:
    """The files a bare name that several share may mean (the first CANDIDATES_SHOWN), to call the tool again
    with one of them: a name like __init__.py or README.md may stand for thousands."""
    shown = many.candidates[:CANDIDATES_SHOWN]
    lines = [f"{many}; call {name} again with one of these paths:"] + [render.shown(f"  {c}") for c in shown]
    if len(shown) < len(many.candidates):
        lines.append(f"[{len(many.candidates) - len(shown)} more not shown: give more of the path, or narrow "
                     "with list_files path_prefix and glob]")
    return result("\n".join(lines), {"path": path, "candidates": shown, "total_candidates": len(many.candidates)})


def _said_in_text(notes: list[str], hits: list) -> list[str]:
    """The notes the text shows: not the engine's 'nothing is searchable yet' before a first publish, which the
    no-match line says with what to do (the freshness line, what is going on); the data keeps every note. The
    text said it three ways: that note, the no-match line and the freshness line."""
    from search.query.answer_notes import NOTHING_PUBLISHED
    return notes if hits else [note for note in notes if note != NOTHING_PUBLISHED]


def _no_match(generations: dict[str, int], notes: list[str]) -> list[str]:
    """The line for no hits: other words help only when something searched was published, and when the filters
    leave some file to search (a note says which of them leaves none); none where no folder is registered (the
    note says what adds one)."""
    from search.query.answer_notes import NOTHING_REGISTERED
    if not generations:
        if NOTHING_REGISTERED in notes:
            return []
        return ["no passages match, as nothing searched is published yet: other words will not help; search again "
                "once stats shows a published generation"]
    said = _filtered_out(notes)
    if said:
        return [f"no passages match: {said}"]
    if any(note.startswith(report.PARTIAL) for note in notes):  # other words will not find what is not read yet
        return ["no passages match in the files read so far: the answer may be in a file not read yet (the note "
                "above); search again once its first build is whole, or read_file a file by name meanwhile"]
    return ["no passages match: try other words, mode 'semantic', or fewer filters"]


def _filtered_out(notes: list[str]) -> str | None:
    """'the filters leave no file to search (the note above says which)', or 'no passage' where a date range is
    among them: date_after keeps a mailbox's 2024 messages, not the file; None when no filter left nothing."""
    from search.query.answer_notes import FILTERED_OUT
    note = next((n for n in notes if n.startswith(FILTERED_OUT)), None)
    if note is None:
        return None
    left = "passage" if "about a date" in note or " tagged " in note else "file"
    return f"the filters leave no {left} to search (the note above says which)"


def _echo(query: str) -> str:
    """The query as the text line repeats it: what was searched (the engine cuts a long query), shortened. Spaces
    of other widths are shown as the space search reads them as: the ideographic space a Chinese or Japanese
    input method types between words (U+3000) was echoed as '\\u3000'."""
    query = "".join(" " if unicodedata.category(c) == "Zs" else c for c in query)
    if len(query) <= ECHO_CHARS:
        return repr(query)
    return f"{query[:ECHO_CHARS]!r}… ({len(query):,} characters searched)"


def _unix(value: str | None, name: str) -> float | None:
    try:
        return unix_time(value, name)
    except ValueError as exc:
        raise Problem(str(exc)) from None


def _author(given: str | None) -> str | None:
    """The author a tool was given, as a filter takes it (authors.wanted); a Problem for one with no letter."""
    from search.query.authors import wanted
    try:
        return wanted(given) if given else None
    except ValueError as exc:
        raise Problem(str(exc)) from None


def _tags(given: list[str] | str | None) -> tuple[str, ...]:
    """The tags a tool was given, as a filter takes them (filters.wanted_tags); a Problem for a blank one."""
    try:
        return wanted_tags(given) if given else ()
    except ValueError as exc:
        raise Problem(str(exc)) from None


def refusals(sift, name: str, arguments: dict, told: set[str]) -> list[str]:
    """The tools' own argument refusals, each as the tool words it, for the arguments not already ``told`` of
    and of the right type (the schema's errors say the rest): one error names them all, where the tool stops at
    the first (collection='nope' hid modified_after='yesterday' until the next call)."""
    def given(key):
        return key not in told and isinstance(arguments.get(key), str)
    found = []
    if given("collection") and name in ("search", "list_files", "similar", "stats", "refresh"):
        try:
            sift.check_collection(arguments["collection"])
        except NoIndexYet:  # the tool's own call says it (stats answers what it knows)
            pass
        except Problem as exc:
            found.append(str(exc))
        except Exception:  # noqa: BLE001 - no index, a locked file: the tool's own call says it
            pass
    for key in ("modified_after", "modified_before", "date_after", "date_before"):
        if (name == "search" or name in ("list_files", "similar") and key.startswith("date")) and given(key):
            try:
                unix_time(arguments[key], key)
            except ValueError as exc:
                found.append(str(exc))
    if name == "similar" and not told & {"path", "chunk_id"} \
            and (arguments.get("path") is None) == (arguments.get("chunk_id") is None):
        found.append("give exactly one of path or chunk_id")
    return found


def register(server, sift) -> None:
    """Add the six tools and the files as resources (mcp_server.resources) to an MCPServer."""
    tools = Tools(sift)
    if isinstance(server, Server):
        server.checks = functools.partial(refusals, sift)
        server.files = functools.partial(resources.page, sift)
    resources.register(server, sift)
    for name in ("search", "read_file", "list_files", "similar", "stats", "refresh"):
        fn = getattr(tools, name)
        server.add_tool(fn, name=name, description=inspect.cleandoc(fn.__doc__),
                        annotations=QUEUES_A_JOB if name == "refresh" else READ_ONLY, structured_output=False)
        found = server._tool_manager.get_tool(name)
        found.parameters = input_schema.lean(found.parameters)
        declare(found, shapes.ANSWERS[name])


def declare(found, shape) -> None:
    """Give a tool its outputSchema, derived from the shape its answers have (mcp_server.shapes), and have the
    server check each answer against that shape before sending it: no tool declared one, so a client could not
    validate structuredContent, and nothing held the data to what the tools' descriptions say."""
    found.fn_metadata.output_model = shape
    found.fn_metadata.output_schema = shapes.output_schema(shape)
