"""What each tool's structuredContent holds: one TypedDict per shape of answer, from which the tool's outputSchema
is derived (``output_schema``) and against which the server checks every answer before it is sent (mcp's
MCPServer validates a tool's CallToolResult against its ``output_model``). A key that ``tools.result`` leaves out
when null or empty is NotRequired and never null here; a key it keeps (tools.KEPT_EMPTY) is required, null where
that means something. The tools' own answers are closed (``additionalProperties: false``): a key added to the
data and not here fails the server's check, so the schema a client validates against cannot fall behind.
``stats`` is the report ``ingest stats --json`` prints (built by workers.stats and search.index.status): its top
level is declared, and its parts are objects a client should not hold to more than that.
"""
from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import ConfigDict, TypeAdapter
from typing_extensions import NotRequired, TypedDict

CLOSED = ConfigDict(extra="forbid")


class Hit(TypedDict):
    # A passage of search or similar (render.lean of render.hit_data).
    __pydantic_config__ = CLOSED
    path: str
    title: NotRequired[str]
    heading_path: NotRequired[str]
    kind: NotRequired[str]
    start_line: NotRequired[int]
    end_line: NotRequired[int]
    page: NotRequired[int]
    end_page: NotRequired[int]
    page_label: NotRequired[str]
    end_page_label: NotRequired[str]
    snippet: NotRequired[str]
    score: float
    keyword_rank: NotRequired[int]
    semantic_rank: NotRequired[int]
    generation: NotRequired[int]
    chunk_id: int
    modified: NotRequired[str]
    attachments: NotRequired[list[str]]
    cited_by: NotRequired[list[str]]
    attachments_total: NotRequired[int]
    cited_by_total: NotRequired[int]
    attachments_not_indexed: NotRequired[dict[str, str]]
    more_in_file: NotRequired[int]
    more_in_file_names: NotRequired[list[str]]
    also_in: NotRequired[list[str]]
    not_downloaded: NotRequired[bool]  # a sync client keeps the file in the cloud: the version indexed answers
    conflict_copies: NotRequired[list[str]]
    conflict_copy_of: NotRequired[str]
    conflict_original_matched: NotRequired[bool]
    author: NotRequired[str]
    footnotes_cited: NotRequired[str]
    data_rows: NotRequired[str]
    dated: NotRequired[str]
    mail_thread: NotRequired[list[str]]


class Unmatched(TypedDict):
    __pydantic_config__ = CLOSED
    word: str
    suggestion: str | None


class Building(TypedDict):
    __pydantic_config__ = CLOSED
    generation: int
    discovering: bool
    files: int
    done: int
    pending: int
    started: NotRequired[str]
    eta_seconds: NotRequired[float]


class FirstScanQueued(TypedDict):
    __pydantic_config__ = CLOSED
    queued_at: NotRequired[str]
    age_seconds: NotRequired[float]


class InBackground(TypedDict):
    # A big file embedded in the background, outside its collection's build (search.index.working.in_background).
    __pydantic_config__ = CLOSED
    path: str
    state: str  # embedding, waiting (for a worker), done (its build reads it next), stopped (its worker died), failed
    done: int
    total: int
    text: str
    earlier_version: bool  # its earlier version answers meanwhile
    by_keyword: bool  # this version's passages are searchable by keyword already; by meaning once embedded
    reason: NotRequired[str]  # why its job failed for good (state failed)


class Walking(TypedDict):
    # The scan walking a collection's folder now (report._fresh): when it began.
    __pydantic_config__ = CLOSED
    started: str
    age_seconds: float


class Freshness(TypedDict):
    # One collection's freshness (report._fresh), as search and list_files end with it.
    __pydantic_config__ = CLOSED
    collection: str
    published_generation: int | None
    published_at: NotRequired[str]
    published_age_seconds: NotRequired[float]
    pending_files: int
    root_missing: NotRequired[bool]
    root_missing_since: NotRequired[str]
    scanned_at: NotRequired[str]
    scanned_age_seconds: NotRequired[float]
    building: NotRequired[Building]
    first_scan_queued: NotRequired[FirstScanQueued]
    scanning: NotRequired[Walking]  # a first scan, or the next part's, walking the folder (no plan recorded yet)
    background: NotRequired[list[InBackground]]
    not_read_yet: NotRequired[int]  # files a first build published in parts leaves to its next parts
    scan_not_queued: NotRequired[str]  # why the server could not queue its scan at its start (SIFT_QUEUE's Redis down)


class Search(TypedDict):
    __pydantic_config__ = CLOSED
    query: str
    query_cut: bool
    mode: Literal["hybrid", "keyword", "semantic"]
    results: list[Hit]
    generations: NotRequired[dict[str, int]]
    models: NotRequired[list[str]]
    notes: NotRequired[list[str]]
    unmatched: NotRequired[list[Unmatched]]
    freshness: NotRequired[list[Freshness]]


class Candidates(TypedDict):
    # A bare file name several files share (read_file, similar): the paths to call the tool again with.
    __pydantic_config__ = CLOSED
    path: str
    candidates: list[str]
    total_candidates: int


class Similar(TypedDict):
    __pydantic_config__ = CLOSED
    source: str
    results: list[Hit]
    generations: NotRequired[dict[str, int]]
    notes: NotRequired[list[str]]


class TextRead(TypedDict):
    # Lines of a text file (read_answer.lines_answer).
    __pydantic_config__ = CLOSED
    path: str
    absolute_path: str
    start_line: int
    end_line: int
    total_lines: int | None
    total_lines_at_least: int
    next_start_line: int | None
    next_start_offset: NotRequired[int]
    indexed_generation: int | None
    start_offset: NotRequired[int]
    encoding: NotRequired[str]


class PdfRead(TypedDict):
    # A page of a PDF as indexed (pdf_pages.read_pdf).
    __pydantic_config__ = CLOSED
    path: str
    absolute_path: str
    page: int
    pages: int
    first_page_shown: int
    last_page_shown: int
    end_page: int  # last_page_shown, named as a hit's and read_file's argument are
    indexed_generation: int | None
    start_offset: NotRequired[int]
    next_start_offset: NotRequired[int]
    next_page: int | None


class ListedFile(TypedDict):
    # A file of list_files: ``path`` is collection/relative/path, said once (``ingest files --json`` says both).
    __pydantic_config__ = CLOSED
    path: str
    kind: NotRequired[str]
    size: NotRequired[int]
    modified: NotRequired[str]
    state: str
    reason: NotRequired[str]
    dated: NotRequired[str]  # in a date range's listing: the dates its passages are about there


class ListFiles(TypedDict):
    __pydantic_config__ = CLOSED
    total: int
    shown: int
    files: list[ListedFile]
    next_offset: NotRequired[int]
    notes: NotRequired[list[str]]
    freshness: NotRequired[list[Freshness]]


class Stats(TypedDict):
    # The report of workers.stats.gather (or report._nothing_yet before there is an index), given whole.
    collections: list[dict[str, Any]]
    index_path: str
    model: dict[str, Any]
    worker: NotRequired[dict[str, Any]]
    index_bytes: NotRequired[int]
    queue_pending: NotRequired[int | None]
    disk: NotRequired[str | None]
    notices: NotRequired[list[str]]
    nothing: NotRequired[str]


class Refresh(TypedDict):
    __pydantic_config__ = CLOSED
    queued: list[str]
    worker: str
    already_queued: NotRequired[list[str]]
    folder_missing: NotRequired[list[str]]


ANSWERS: dict[str, Any] = {
    "search": Search,
    "read_file": Union[TextRead, PdfRead, Candidates],  # noqa: UP007 - a runtime union for TypeAdapter
    "list_files": ListFiles,
    "similar": Union[Similar, Candidates],  # noqa: UP007
    "stats": Stats,
    "refresh": Refresh,
}


def output_schema(shape) -> dict:
    """The JSON Schema of ``shape`` with an object at its root, as Tool.outputSchema must have (a union of
    shapes becomes an object that is any one of them)."""
    schema = TypeAdapter(shape).json_schema()
    ref = schema.pop("$ref", None)
    if ref is not None:  # a bare reference at the root: the definition inlined, $defs kept for nested ones
        schema = {**schema["$defs"][ref.split("/")[-1]], **schema}
    return {"type": "object", **_told_once(_untitled(schema))}


# What a freshness clause details (a build's counts, a first scan's wait, the walk under way, big files embedded in
# the background): the text's freshness line says it to an assistant, and stats' collections give it to a program
# whole. Declared in full they were 1,022 characters of the schemas of search and list_files alike, in every
# tools/list; they are declared as objects, as stats' parts are (the server still checks each against its full shape,
# tools.declare).
DETAILS = {"Building", "FirstScanQueued", "Walking", "InBackground"}


# A list of strings (a hit's attachments, cited_by, also_in …: eight in search's schema), 44 characters each time
STRINGS = {"items": {"type": "string"}, "type": "array"}


def _told_once(schema: dict) -> dict:
    """``schema`` with the $defs of DETAILS declared as objects, and a list of strings it has four times or
    more defined once, in $defs' Strings."""
    defs = dict(schema.get("$defs") or {})
    refs = {f"#/$defs/{name}" for name in DETAILS}
    many = _count(schema, STRINGS) >= 4  # three: the $defs entry costs what the references save

    def plain(part):
        if isinstance(part, list):
            return [plain(p) for p in part]
        if not isinstance(part, dict):
            return part
        if part.get("$ref") in refs:
            return {"type": "object"}
        if many and part == STRINGS:
            return {"$ref": "#/$defs/Strings"}
        return {key: plain(value) for key, value in part.items()}
    kept = {name: plain(d) for name, d in defs.items() if name not in DETAILS}
    if many:
        kept["Strings"] = STRINGS
    lean = plain({k: v for k, v in schema.items() if k != "$defs"})
    return {**lean, "$defs": kept} if kept else lean


def _count(part, wanted: dict) -> int:
    if isinstance(part, list):
        return sum(_count(p, wanted) for p in part)
    if not isinstance(part, dict):
        return 0
    return 1 if part == wanted else sum(_count(v, wanted) for v in part.values())


def _untitled(schema):
    """``schema`` without pydantic's titles, each a key's own name again ('path': {'title': 'Path', …}): they
    made up 3.8 KB of the 12.9 KB the six schemas add to every tools/list, and told a client nothing."""
    if isinstance(schema, list):
        return [_untitled(part) for part in schema]
    if not isinstance(schema, dict):
        return schema
    options = schema.get("anyOf")
    if options and len(options) == 2 and options[1] == {"type": "null"} and list(options[0]) == ["type"]:
        # 'an integer or null' as one type list: 29 characters where pydantic's anyOf took 51, a dozen times
        schema = {"type": [options[0]["type"], "null"], **{k: v for k, v in schema.items() if k != "anyOf"}}
    return {key: _untitled(value) for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))}  # a property named title is a dict: kept
