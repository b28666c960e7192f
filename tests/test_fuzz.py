"""Fuzzing with hypothesis: the search API, every MCP tool's arguments, and the Markdown link finder.

The engine answers or raises SearchError; a tool answers or raises ToolError with a message a model
can act on, never a crash ("failed unexpectedly", UnexpectedToolError). Tools are called in-process:
through the MCP server's own call path (argument validation included), and directly on ``Tools``
with arguments of the right types but hostile values. Example counts stay modest: a shared machine.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from search.query.answer import Answer, SearchError
from search.query.engine import Engine
from search.query.request import MAX_LIMIT, MODES
from search.query.filters import Filters, KINDS
from tests.conftest import ingest, write_tree

NOTES = {
    "工作/日报/2024-03-01.md": "# 日报\n\n今天和曲美讨论了合同条款，付款方式改为分期。\n",
    "clients/qumei.md": "# Qumei (曲美)\n\nFurniture client. The contract renewal is due in May.\n",
    "tech/cooking.md": "# Cooking pasta\n\nBoil water, add salt, cook the spaghetti for nine minutes.\n",
    "tech/sauce.md": "# Tomato sauce\n\nSimmer tomatoes with garlic, then toss with the cooked pasta.\n",
    "src/cart.py": "class Cart:\n    def add_item(self, item):\n        self.items.append(item)\n",
    "odd name\nwith newline.md": "# Odd\n\nA file whose name holds a newline.\n",
}
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text as hostile as a client can send: NUL, lone surrogates (JSON "\udcff" escapes decode to them),
# control characters, FTS5 syntax, paths, and very long strings.
HOSTILE_BITS = ["\x00", "\udcff", "\ud800", "\u202e", "\r\n", "..", "../", "/", "~", "*", "[", '"', "'", "NEAR(",
                "OR", "AND", "NOT", "^", ":", "-", "合同", "曲美", "🙂", "%", "_", "\\", "\t", "$HOME", "${x}"]
any_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec=None, categories=None), max_size=40),
    st.lists(st.sampled_from(HOSTILE_BITS + ["notes", "tech", "cooking.md", "x"]), max_size=12).map("".join),
    st.builds(lambda piece, n: piece * n, st.sampled_from(["a", "合", "../", "\udcff", "contract ", "*"]),
              st.integers(2_000, 30_000)),
)
maybe_text = st.one_of(st.none(), any_text)
# Not giant runs of '[': fnmatch.translate is quadratic in them (see test_tool_string_limits... below).
glob_text = st.one_of(maybe_text, st.sampled_from(["*.md", "[", "[!", "**/*", "[" * 1000, "*" * 5000]))
big_int = st.one_of(st.integers(-3, 60), st.integers(-2 ** 70, 2 ** 70),
                    st.sampled_from([0, -1, 2 ** 63, -2 ** 63 - 1]))
maybe_int = st.one_of(st.none(), big_int)
not_an_int = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True), st.text(max_size=5),
                       st.lists(st.integers(), max_size=2))
a_float = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-2 ** 70, 2 ** 70))


@pytest.fixture
def index(immediate, tmp_path) -> Path:
    ingest(write_tree(tmp_path / "notes", NOTES), "notes")
    return Path(os.environ["SIFT_HOME"]) / "index.db"


# --- the search API ---------------------------------------------------------------------------

def test_engine_search_answers_or_raises_search_error(index, embedder):
    engine = Engine(index, lambda: embedder)
    filters = st.one_of(st.none(), st.builds(
        Filters, collection=st.one_of(maybe_text, st.just("notes")),
        path_prefix=st.one_of(maybe_text, st.just("tech/")),
        kind=st.one_of(st.none(), st.sampled_from(KINDS)), modified_after=a_float, modified_before=a_float))

    @FUZZ
    @given(query=st.one_of(any_text, not_an_int), limit=st.one_of(big_int, not_an_int),
           mode=st.one_of(st.sampled_from(MODES), maybe_text), filters=filters)
    def check(query, limit, mode, filters):
        try:
            answer = engine.search(query, limit=limit, mode=mode, filters=filters)
        except SearchError as exc:
            assert str(exc)
            return
        assert isinstance(answer, Answer) and len(answer.hits) <= limit
        assert all(h.generation == answer.generations[h.collection] for h in answer.hits)
    check()


def test_engine_similar_answers_or_raises_search_error(index, embedder):
    engine = Engine(index, lambda: embedder)
    real_chunks = [row[0] for row in engine._connection().execute("SELECT id FROM chunks")]
    paths = st.one_of(st.none(), st.tuples(st.one_of(st.just("notes"), any_text), st.one_of(
        st.sampled_from(sorted(NOTES)), any_text)), st.tuples(any_text), st.text(max_size=5), st.integers())

    @FUZZ
    @given(chunk_id=st.one_of(maybe_int, st.sampled_from(real_chunks), not_an_int), path=paths,
           limit=st.one_of(big_int, not_an_int))
    def check(chunk_id, path, limit):
        try:
            answer = engine.similar(chunk_id=chunk_id, path=path, limit=limit)
        except SearchError as exc:
            assert str(exc)
            return
        assert isinstance(answer, Answer) and len(answer.hits) <= limit
    check()


def test_engine_limits_are_enforced_with_clear_messages(index, embedder):
    engine = Engine(index, lambda: embedder)
    for limit in (0, -1, MAX_LIMIT + 1, 2 ** 70, 1.5, True, None, "10"):
        with pytest.raises(SearchError, match=f"limit must be a whole number from 1 to {MAX_LIMIT}"):
            engine.search("contract", limit=limit)
        with pytest.raises(SearchError, match=f"limit must be a whole number from 1 to {MAX_LIMIT}"):
            engine.similar(chunk_id=1, limit=limit)
    for chunk_id in (2 ** 63, -2 ** 70, True, 1.0, "1"):
        with pytest.raises(SearchError, match="chunk id"):
            engine.similar(chunk_id=chunk_id)
    for path in (("notes",), "notes/tech/cooking.md", ("notes", 5), ("notes", "tech/\udcffx.md")):
        with pytest.raises(SearchError, match="path"):
            engine.similar(path=path)
    with pytest.raises(SearchError, match="collection .*not valid text"):
        engine.search("contract", filters=Filters(collection="\udcff"))
    long = engine.search("contract " * 5000, mode="keyword")
    assert long.hits and any("first 10,000 characters" in note for note in long.notes)


# --- every MCP tool -----------------------------------------------------------------------------

TOOL_ARGUMENTS = {
    "search": dict(query=st.one_of(any_text, st.none(), big_int), limit=st.one_of(big_int, not_an_int),
                   mode=st.one_of(st.sampled_from(MODES), maybe_text),
                   collection=st.one_of(maybe_text, st.just("notes")),
                   path_prefix=maybe_text, kind=st.one_of(st.sampled_from(KINDS), maybe_text),
                   modified_after=st.one_of(maybe_text, st.just("2024-03-01"), st.just("9999-12-31T23:59")),
                   modified_before=st.one_of(maybe_text, st.just("0001-01-01"))),
    "read_file": dict(path=st.one_of(any_text, st.none(), st.sampled_from(
                          ["notes/tech/cooking.md", "cooking.md", "notes/odd name\nwith newline.md", "/etc/passwd",
                           "notes/../../etc/passwd", "notes", "notes/tech"])),
                      start_line=maybe_int, end_line=maybe_int, page=maybe_int),
    "list_files": dict(collection=st.one_of(maybe_text, st.just("notes")), path_prefix=maybe_text,
                       glob=glob_text,
                       sort=st.one_of(st.sampled_from(["modified", "path", "dated"]), maybe_text),
                       limit=st.one_of(st.integers(-10, 600), big_int, not_an_int)),
    "similar": dict(path=st.one_of(maybe_text, st.just("notes/tech/cooking.md")),
                    chunk_id=st.one_of(maybe_int, not_an_int),
                    limit=st.one_of(big_int, not_an_int)),
    "stats": dict(junk=st.one_of(st.none(), any_text)),
    "refresh": dict(collection=st.one_of(maybe_text, st.just("notes"))),
}


def arguments(name: str):
    """Some of the tool's arguments (any may be left out), each drawn from its hostile strategy."""
    return st.fixed_dictionaries({}, optional=TOOL_ARGUMENTS[name])


def acceptable_error(message: str) -> None:
    assert message.strip(), "a tool error says what went wrong"
    assert "failed unexpectedly" not in message, message
    assert "Traceback" not in message and 'File "' not in message, message


@pytest.fixture
def server(index):
    from mcp_server.server import build_server
    from search.settings import load
    return build_server(load())


@pytest.mark.parametrize("name", sorted(TOOL_ARGUMENTS))
def test_every_tool_through_the_server_answers_or_gives_a_tool_error(server, name):
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

    @FUZZ
    @given(args=arguments(name))
    def check(args):
        async def call():
            return await server.call_tool(name, args)
        try:
            result = anyio.run(call)
        except UnexpectedToolError as exc:  # a crash: the model would see only "Error executing tool"
            raise AssertionError(f"{name}({args!r}) crashed: {exc.__cause__!r}") from exc
        except ToolError as exc:
            acceptable_error(str(exc))
            return
        assert result.content and result.content[0].text
    check()


def test_tool_limits_are_enforced_with_clear_messages(server):
    from mcp.server.mcpserver.exceptions import ToolError

    def error(name, **args) -> str:
        with pytest.raises(ToolError) as caught:
            anyio.run(lambda: server.call_tool(name, args))
        return str(caught.value)
    assert "limit must be between 1 and 50 (got 51)" in error("search", query="x", limit=51)
    assert "limit must be between 1 and 50 (got 0)" in error("search", query="x", limit=0)
    assert "limit must be between 1 and 500 (got 501)" in error("list_files", limit=501)
    assert "limit must be between 1 and 50 (got 1000000" in error("similar", chunk_id=1, limit=10 ** 30)
    assert error("search", query="") == error("search", query="   ") == \
        "Error executing tool search: the query is empty: give some words to search for"  # as ingest search says
    assert "NUL" in error("read_file", path="notes/tech/\x00cooking.md")
    assert "refused" in error("read_file", path="notes/../../etc/passwd")
    message = error("search", query="x", modified_after="\udcff")
    assert "ISO date" in message or "valid string" in message


def test_tool_string_limits_are_enforced_with_clear_messages(server):
    from mcp.server.mcpserver.exceptions import ToolError

    def error(name, **args) -> str:
        with pytest.raises(ToolError) as caught:
            anyio.run(lambda: server.call_tool(name, args))
        message = str(caught.value)
        assert len(message) < 1000, "a message never echoes a huge argument whole"
        return message
    assert "at most" in error("read_file", path="notes/" + "a" * 5000)
    assert "at most" in error("list_files", glob="[" * 20_000)  # translated, it blocks a thread for ~15 s
    assert "at most" in error("search", query="x", collection="c" * 5000)
    assert "at most" in error("search", query="x", path_prefix="p/" * 5000)
    assert "at most" in error("search", query="x", modified_after="9" * 5000)
    assert "valid" in error("read_file", path="notes/\ud800.md")
    assert "valid" in error("similar", path="notes/bad\udcffname.md")


def direct_arguments():
    """Arguments of the declared types (what validation lets through) with hostile values."""
    return {
        "search": dict(query=any_text, limit=st.integers(1, MAX_LIMIT), mode=st.sampled_from(MODES),
                       collection=st.one_of(maybe_text, st.just("notes")), path_prefix=maybe_text,
                       kind=st.one_of(st.none(), st.sampled_from(KINDS)),
                       modified_after=maybe_text, modified_before=maybe_text),
        "read_file": dict(path=st.one_of(any_text, st.just("notes/tech/cooking.md")),
                          start_line=st.one_of(st.none(), st.integers(1, 2 ** 70)),
                          end_line=st.one_of(st.none(), st.integers(1, 2 ** 70)),
                          page=st.one_of(st.none(), st.integers(1, 2 ** 70))),
        "list_files": dict(collection=maybe_text, path_prefix=maybe_text, glob=glob_text,
                           sort=st.sampled_from(["modified", "path", "dated"]), limit=st.integers(1, 500)),
        "similar": dict(path=maybe_text, chunk_id=st.one_of(st.none(), st.integers(-2 ** 70, 2 ** 70)),
                        limit=st.integers(1, MAX_LIMIT)),
        "refresh": dict(collection=maybe_text),
        "stats": {},
    }


@pytest.mark.parametrize("name", sorted(TOOL_ARGUMENTS))
def test_every_tool_method_in_process_answers_or_gives_a_tool_error(index, name):
    from mcp.server.mcpserver.exceptions import ToolError

    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    method = getattr(Tools(Sift(load())), name)

    strategies = direct_arguments()[name]
    required = {key: strategies.pop(key) for key in ("query", "path")
                if name in ("search", "read_file") and key in strategies}

    @FUZZ
    @given(args=st.fixed_dictionaries(required, optional=strategies))
    def check(args):
        try:
            result = method(**args)
        except ToolError as exc:
            acceptable_error(str(exc))
            return
        assert result.content and result.content[0].text
    check()


# --- parsers --------------------------------------------------------------------------------------

WIKI_LINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")  # the pattern the finder replaces


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="[]()#|a \"\n", max_size=40))
def test_wiki_link_finder_finds_what_the_old_pattern_found(text):
    from ingest.markdown import wiki_links  # Markdown links come from markdown-it-py's link tokens
    assert wiki_links(text) == [m.group(1).strip() for m in WIKI_LINK.finditer(text)]


@FUZZ
@given(data=st.one_of(st.binary(max_size=3000),
                      st.text(max_size=2000).map(lambda t: t.encode("utf-8", "surrogatepass"))),
       name=st.sampled_from(["n.md", "t.txt", "c.py", "d.json", "x.rst"]))
def test_parsing_any_bytes_gives_a_document_or_a_reason(data, name):
    from ingest.document import Document, Skip
    from ingest.parse import parse_file
    try:
        doc = parse_file(name, data)
    except Skip as reason:
        assert str(reason)
        return
    assert isinstance(doc, Document)
    for section in doc.sections:
        assert "\x00" not in section.text and not any(0xD800 <= ord(c) <= 0xDFFF for c in section.text)


@FUZZ
@given(text=st.lists(st.sampled_from(list("ab .。\n合") + ["word ", "x" * 50]), max_size=400).map("".join),
       limit=st.integers(8, 64))
def test_chunks_tile_any_text_under_the_limit(embedder, text, limit):
    from ingest.chunk import chunk_section
    from ingest.document import Section
    section = Section(text=text, start_line=1, end_line=text.count("\n") + 1)
    chunks = chunk_section(section, embedder.count, limit, limit // 4)
    if not text.strip():
        assert chunks == []
        return
    covered = 0
    for chunk in chunks:
        assert chunk.tokens <= limit or len(chunk.text) == 1
        assert chunk.offset <= covered, "no gap between chunks"
        assert text[chunk.offset:chunk.offset + len(chunk.text)] == chunk.text
        covered = max(covered, chunk.offset + len(chunk.text))
    assert covered == len(text)

