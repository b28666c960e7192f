"""The MCP server driven as a subprocess by the real stdio client from the mcp package.

Indexes are built first (huey immediate mode, or a real consumer), with the real
model. Every server's stdout is copied through a small tee, and every line it
wrote must be a JSON-RPC 2.0 message.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from mcp_server import paths, pdf_pages
from mcp_server.errors import Problem
from tests.conftest import (REPO, VENV_BIN, built_once, in_home, ingest, need_data, processes, run_ingest,
                            wait_published, write_tree)

NOTES = {
    "工作/日报/2024-03-01.md": "# 日报\n\n今天和曲美讨论了合同条款，付款方式改为分期。曲美合同下周签字。\n",
    "工作/日报/2024-03-02.md": "# 日报\n\n云仓WMS项目上线，库存同步正常。\n",
    "clients/qumei.md": "# Qumei (曲美)\n\nFurniture client. The contract renewal is due in May.\n",
    "tech/cooking.md": "# Cooking pasta\n\nBoil water, add salt, cook the spaghetti for nine minutes.\n",
    "tech/sauce.md": "# Tomato sauce\n\nSimmer tomatoes with garlic and olive oil, then toss with the cooked pasta.\n",
    "tech/guitar.md": "# Music\n\nA man is playing an acoustic guitar on the stage.\n",
    "tech/long.md": "".join(f"line {n} of the long file\n" for n in range(1, 31)),
    "a/todo.md": "# Todo A\n\nBuy stamps.\n",
    "b/todo.md": "# Todo B\n\nCall the plumber.\n",
    "bin/blob.md": "",  # replaced by binary bytes below
}
TOOLS = {"search", "read_file", "list_files", "similar", "stats", "refresh"}
DEADLINE = 900  # seconds: a safety net against a hung test, never a speed assertion
TEE = ("import subprocess, sys\n"
       "log = open(sys.argv[1], 'ab')\n"
       "child = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE)\n"
       "for line in iter(child.stdout.readline, b''):\n"
       "    sys.stdout.buffer.write(line); sys.stdout.buffer.flush(); log.write(line); log.flush()\n"
       "sys.exit(child.wait())\n")


# --- harness ---------------------------------------------------------------------------

class Servers:
    """Starts sift-mcp under the real stdio client; remembers each server's stdout copy."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.wires: list[Path] = []

    @asynccontextmanager
    async def session(self, env: dict, *args: str):
        wire = self.tmp_path / f"stdout-{len(self.wires)}.jsonl"
        self.wires.append(wire)
        params = StdioServerParameters(command=sys.executable,
                                       args=["-c", TEE, str(wire), str(VENV_BIN / "sift-mcp"), *args], env=env)
        with open(self.tmp_path / "server-stderr.log", "a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    yield session

    def check_stdout(self) -> None:
        for wire in self.wires:
            lines = wire.read_bytes().splitlines()
            assert lines, f"{wire.name}: the server wrote nothing"
            for line in lines:
                message = json.loads(line)  # raises on anything that is not JSON
                assert message.get("jsonrpc") == "2.0", line


def write_notes(root: Path) -> Path:
    write_tree(root, NOTES)
    (root / "bin/blob.md").write_bytes(b"\x00\x01\x02 not text" * 10)
    return root


def index_notes(root: Path, outside: Path) -> dict:
    """NOTES indexed as collection 'notes' (``ingest``: huey immediate), then a secret in ``outside`` and a
    symlink to it and one to its folder inside the root; returns the collection's stats."""
    report = ingest(write_notes(root), "notes")
    write_tree(outside, {"secret.txt": "TOP SECRET\n"})
    (root / "leak.txt").symlink_to(outside / "secret.txt")
    (root / "leakdir").symlink_to(outside)
    return report


@pytest.fixture
def notes(tmp_path) -> Path:
    return write_notes(tmp_path / "notes")


@pytest.fixture(scope="module")
def notes_home(tmp_path_factory, model_path) -> Path:
    """The home of NOTES indexed once for the session (conftest's ``built_once``), for the tests that only read
    it: each built its own before, 0.2-4 s apiece (more on a busy machine), for some 55 tests here and in
    test_transport. Its root and stats are in built.json beside the home."""
    def build(folder: Path) -> None:
        report = index_notes(folder / "notes", folder / "outside")
        (folder / "built.json").write_text(json.dumps({"root": str(folder / "notes"), "report": report}))
    return built_once(tmp_path_factory, model_path, build, key="test_mcp_server NOTES")


@pytest.fixture
def indexed(notes_home, model_path, monkeypatch) -> dict:
    """NOTES indexed as collection 'notes', plus a secret outside the root and a symlink to it inside: the
    module's one build (``notes_home``), for a test that changes neither the index nor its folder (the folder is
    every worker's: a test that deletes or adds a file in it takes ``indexed_own``)."""
    in_home(notes_home, model_path, monkeypatch)
    monkeypatch.setenv("SIFT_NICE", "0")  # as sift_env: the servers' workers at the tests' priority
    built = json.loads((notes_home.parent / "built.json").read_text())
    root = Path(built["root"])
    return {"env": dict(os.environ), "root": root, "secret": root.parent / "outside" / "secret.txt",
            "report": built["report"]}


@pytest.fixture
def indexed_own(immediate, tmp_path, sift_env) -> dict:
    """As ``indexed``, built for this test alone: it changes the folder or the index."""
    report = index_notes(tmp_path / "notes", tmp_path / "outside")
    return {"env": sift_env, "root": tmp_path / "notes", "secret": tmp_path / "outside" / "secret.txt",
            "report": report}


async def call(session, name: str, **arguments):
    return await session.call_tool(name, arguments)


def text(result) -> str:
    return "\n".join(block.text for block in result.content)


def run(scenario, *args):
    return anyio.run(scenario, *args)


def no_traceback(result) -> None:
    assert "Traceback" not in text(result) and 'File "' not in text(result)


# --- tools/list ----------------------------------------------------------------------------

def test_tools_are_listed_with_hints_and_limits(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return (await s.list_tools()).tools
    tools = {t.name: t for t in run(scenario)}
    assert set(tools) == TOOLS
    for name, t in tools.items():
        assert t.annotations.read_only_hint is (name != "refresh"), name
        assert len(t.description) > 80, name
    assert tools["refresh"].annotations.destructive_hint is False
    for name in ("search", "similar"):
        limit = tools[name].input_schema["properties"]["limit"]
        assert limit["maximum"] == 50 and limit["minimum"] == 1
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {"query", "limit", "mode", "collection", "path_prefix", "kind", "glob",
                                         "modified_after", "modified_before", "date_after", "date_before", "tags",
                                         "author"}
    assert search["properties"]["mode"]["enum"] == ["hybrid", "keyword", "semantic"]
    sort = tools["list_files"].input_schema["properties"]["sort"]  # none: by date with a date range, else modified
    assert sort["enum"] == ["modified", "path", "dated"] and "default" not in sort, sort


def test_tools_list_says_each_argument_once_and_an_explicit_null_is_still_taken(indexed, servers):
    """tools/list goes with every conversation: 28,449 characters at base-49, some 3,000 of them pydantic's titles
    ('Start Line' for start_line), each optional argument's null option and null default, and the same
    300-character explanations of path_prefix, tags and date_after on three tools. No title, no null option, a
    shared argument explained once (search's), the whole under 20,000; a client that sends null for an argument
    left out is still answered as before."""
    import json

    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return ((await s.list_tools()).tools,
                    await call(s, "search", query="spaghetti", mode="keyword", collection=None, kind=None, tags=None),
                    await call(s, "list_files", sort=None, path_prefix=None))
    listed, found, files = run(scenario)
    schemas = json.dumps([t.input_schema for t in listed])
    assert '"title"' not in schemas and '{"type": "null"}' not in schemas and '"default": null' not in schemas
    tools = {t.name: t.input_schema["properties"] for t in listed}
    assert tools["search"]["collection"] == {"type": "string", "description": "A collection's name (stats lists "
                                             "them)."}, tools["search"]["collection"]
    assert [name for name in ("list_files", "similar") if tools[name]["path_prefix"]["description"] !=
            "As search's."] == []
    assert sum(len(json.dumps(t.model_dump(by_alias=True, exclude_none=True))) for t in listed) < 20_000
    assert not found.is_error and "notes/tech/cooking.md" in text(found), text(found)
    assert not files.is_error and "notes/tech/cooking.md" in text(files), text(files)


# --- search --------------------------------------------------------------------------------

def test_search_finds_chinese_and_english_and_names_its_sources(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return (await call(s, "search", query="合同"),
                    await call(s, "search", query="how long to cook spaghetti"),
                    await call(s, "search", query="someone performing music with a stringed instrument",
                               mode="semantic"),
                    await call(s, "search", query="合同 contract", path_prefix="工作/", kind="note", limit=3),
                    await call(s, "search", query="spaghetti", modified_after="2999-01-01"),
                    await call(s, "search", query="pasta cooked with tomatoes", glob="*sauce*"))
    chinese, english, semantic, filtered, future, globbed = run(scenario)
    generation = indexed["report"]["published"]["id"]
    top = chinese.structured_content["results"][0]
    assert top["path"] == "notes/工作/日报/2024-03-01.md"
    assert top["start_line"] == 1 and top["end_line"] >= 3 and chinese.structured_content["generations"] == {
        "notes": generation}
    assert "notes/工作/日报/2024-03-01.md  lines 1-" in text(chinese)
    assert f"generation {generation}" in text(chinese)
    assert "\nfreshness: up to date (last published: notes " in text(chinese)
    assert english.structured_content["results"][0]["path"] == "notes/tech/cooking.md"
    assert semantic.structured_content["results"][0]["path"] == "notes/tech/guitar.md"
    model = indexed["report"]["published"]["model"]
    assert model and semantic.structured_content["models"] == [model] and model not in text(semantic), \
        "the model's id is the data's alone: the text said it on every search, telling an assistant nothing"
    assert chinese.structured_content["models"] == [model]  # hybrid embeds the query too
    assert [r["path"].startswith("notes/工作/") for r in filtered.structured_content["results"]] == [True] * 2
    assert future.structured_content["results"] == [] and not future.is_error
    assert [r["path"] for r in globbed.structured_content["results"]] == ["notes/tech/sauce.md"]


def test_search_with_a_glob_that_names_the_collection_says_how_to_write_it(indexed, servers):
    """glob='notes/tech/*.md' found nothing and said nothing (globs match paths relative to the collection root),
    where list_files, given the same glob, says how to write it; search says so too now."""
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return (await call(s, "search", query="spaghetti", glob="notes/tech/*.md", mode="keyword"),
                    await call(s, "search", query="spaghetti", glob="tech/*.md", mode="keyword"))
    named, relative = run(scenario)
    assert named.structured_content["results"] == []
    assert "glob matches paths relative to the collection root, without the collection name" in text(named)
    assert "'tech/*.md'" in text(named), text(named)
    assert relative.structured_content["results"][0]["path"] == "notes/tech/cooking.md"


def test_search_refuses_bad_arguments_with_clear_messages(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return [await call(s, "search", query="x", limit=99),
                    await call(s, "search", query=""),
                    await call(s, "search", query="x", collection="nope"),
                    await call(s, "search", query="x", modified_after="last tuesday"),
                    await call(s, "search", query="x", mode="fuzzy")]
    too_many, empty, unknown, bad_date, bad_mode = run(scenario)
    for result in (too_many, empty, unknown, bad_date, bad_mode):
        assert result.is_error
    assert "limit must be between 1 and 50 (got 99)" in text(too_many)
    assert "collections: notes" in text(unknown)
    assert "ISO date" in text(bad_date)
    assert "hybrid" in text(bad_mode)
    for result in (unknown, bad_date):
        no_traceback(result)


# --- read_file -----------------------------------------------------------------------------

def test_read_file_refuses_everything_outside_the_roots(indexed, servers):
    secret = str(indexed["secret"])
    attempts = ["../outside/secret.txt", "notes/../../outside/secret.txt", "notes/../outside/secret.txt",
                secret, "/etc/passwd", "notes/leak.txt", "leak.txt", "notes/leakdir/secret.txt",
                str(indexed["root"] / "leak.txt"), str(indexed["root"] / ".." / "outside" / "secret.txt"),
                "..", "notes/tech/\x00cooking.md", "tech/cooking.md\x00", "\x00"]

    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return [await call(s, "read_file", path=attempt) for attempt in attempts]
    for attempt, result in zip(attempts, run(scenario)):
        assert result.is_error, attempt
        assert "refused" in text(result), (attempt, text(result))
        assert "TOP SECRET" not in text(result) and "root:" not in text(result)
        no_traceback(result)


def test_read_file_and_similar_of_a_collection_root_say_it_is_its_folder(indexed, servers):
    """The root itself, however written, was refused as lying outside the indexed folders: a model told so
    concludes the folder is not indexed at all."""
    root = str(indexed["root"])
    forms = [root, root + "/", ".", "notes/.", "tech/..", root + "/tech/.."]

    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return [(form, await call(s, tool, path=form)) for form in forms for tool in ("read_file", "similar")]
    for form, result in run(scenario):
        assert result.is_error, form
        assert "is the folder of collection 'notes' (its root)" in text(result), (form, text(result))
        assert "list_files with collection='notes'" in text(result) and "outside" not in text(result)


def test_read_file_by_line_range_in_each_path_form(indexed, servers):
    forms = ["notes/tech/long.md", "tech/long.md", str(indexed["root"] / "tech" / "long.md")]

    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            ranges = [await call(s, "read_file", path=form, start_line=5, end_line=7) for form in forms]
            return ranges, await call(s, "read_file", path="notes/tech/long.md", start_line=40)
    ranges, past_end = run(scenario)
    for result in ranges:
        assert not result.is_error, text(result)
        lines = text(result).splitlines()
        assert lines[0] == "notes/tech/long.md  (lines 5-7 of 30)"
        assert lines[1:] == [f"{n:>6}\tline {n} of the long file" for n in (5, 6, 7)]
        assert result.structured_content["next_start_line"] == 8
    assert past_end.is_error and "has 30 lines" in text(past_end)


def test_a_doubled_slash_after_the_collection_name_is_a_path_inside_it(indexed_own, servers):
    """'notes//tech/long.md' was joined to the root as the absolute '/tech/long.md' and refused as lying
    outside the indexed folders; read_file, similar and the deleted-file check now read it as on disk."""
    (indexed_own["root"] / "tech" / "guitar.md").unlink()  # published, then deleted from disk

    async def scenario():
        async with servers.session(indexed_own["env"], "--no-worker") as s:
            return (await call(s, "read_file", path="notes//tech//long.md", start_line=5, end_line=5),
                    await call(s, "similar", path="notes//tech/sauce.md", limit=2),
                    await call(s, "read_file", path="notes//tech/guitar.md"))
    read, similar, deleted = run(scenario)
    assert not read.is_error, text(read)
    assert text(read).splitlines() == ["notes/tech/long.md  (lines 5-5 of 30)", "     5\tline 5 of the long file"]
    assert not similar.is_error and similar.structured_content["source"] == "notes/tech/sauce.md", text(similar)
    assert deleted.is_error and "notes/tech/guitar.md was deleted from disk" in text(deleted), text(deleted)


def test_a_path_written_with_backslashes_is_told_the_path_with_slashes(indexed, servers):
    """'notes\\tech\\long.md', as a model on Windows writes it, got the bare 'no file … find it with search'."""
    forms = ["notes\\tech\\long.md", "tech\\long.md"]

    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return ([await call(s, tool, path=form) for form in forms for tool in ("read_file", "similar")],
                    await call(s, "read_file", path="notes\\..\\..\\outside\\secret.txt"))
    told, outside = run(scenario)
    for result in told:
        assert result.is_error and "did you mean 'notes/tech/long.md'? Paths are written with '/'" in text(result), \
            text(result)
    assert outside.is_error and "did you mean" not in text(outside) and "TOP SECRET" not in text(outside)


def test_read_file_caps_output_and_says_how_to_go_on(indexed_own, servers):
    (indexed_own["root"] / "huge.txt").write_text("".join(f"row {n}\n" for n in range(1, 2501)))

    async def scenario():
        async with servers.session(indexed_own["env"], "--no-worker") as s:
            return await call(s, "read_file", path="notes/huge.txt"), await call(s, "read_file", path="notes/tech")
    huge, folder = run(scenario)
    lines = text(huge).splitlines()
    assert lines[0] == "notes/huge.txt  (lines 1-2000 of 2500)"
    assert lines[2000] == "  2000\trow 2000"
    assert "start_line=2001" in text(huge) and "not in the published index" in text(huge)
    assert folder.is_error and "is a folder" in text(folder)


def test_bare_file_name_returns_candidates_or_the_one_file(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return (await call(s, "read_file", path="todo.md"), await call(s, "read_file", path="guitar.md"),
                    await call(s, "read_file", path="nothing-like-this.md"))
    ambiguous, unique, missing = run(scenario)
    assert not ambiguous.is_error
    assert ambiguous.structured_content["candidates"] == ["notes/a/todo.md", "notes/b/todo.md"]
    assert "notes/a/todo.md" in text(ambiguous) and "notes/b/todo.md" in text(ambiguous)
    assert "acoustic guitar" in text(unique)
    assert missing.is_error and "search or list_files" in text(missing)


def test_read_file_of_a_file_deleted_since_it_was_published_says_so(indexed_own, servers):
    (indexed_own["root"] / "tech/cooking.md").unlink()

    async def scenario():
        async with servers.session(indexed_own["env"], "--no-worker") as s:
            gone = await call(s, "read_file", path="notes/tech/cooking.md")
            indexed_own["root"].rename(indexed_own["root"].with_name("unmounted"))  # the whole folder gone
            return (gone, await call(s, "read_file", path="notes/tech/sauce.md"),
                    await call(s, "search", query="sauce", mode="keyword"), await call(s, "list_files"))
    gone, unmounted, found, listed = run(scenario)
    # before a scan has seen the folder gone, search's freshness said 'up to date' and list_files nothing of it
    assert ", its folder is missing (files kept for a rescan interval)" in text(found).splitlines()[-1], text(found)
    assert found.structured_content["freshness"][0]["root_missing"] is True
    assert f"collection 'notes': its folder {indexed_own['root']} is missing" in text(listed), text(listed)
    assert gone.is_error and "deleted from disk after generation 1 indexed it" in text(gone), text(gone)
    assert "find it with search" not in text(gone)
    assert unmounted.is_error and f"the folder {indexed_own['root']} is missing" in text(unmounted), text(unmounted)


def test_read_file_of_a_deleted_file_by_its_absolute_path_says_so_too(indexed_own, servers):
    """By 'notes/tech/cooking.md' a file deleted since it was published was said to be so; by its absolute
    path, the form a model copies from a user, it got 'no file … find it with search'."""
    root = indexed_own["root"]
    (root / "tech/cooking.md").unlink()

    async def scenario():
        async with servers.session(indexed_own["env"], "--no-worker") as s:
            gone = await call(s, "read_file", path=str(root / "tech/cooking.md"))
            root.rename(root.with_name("unmounted"))  # the whole folder gone
            return gone, await call(s, "read_file", path=str(root / "tech/sauce.md"))
    gone, unmounted = run(scenario)
    assert gone.is_error and "notes/tech/cooking.md was deleted from disk after generation 1 indexed it" in \
        text(gone), text(gone)
    assert unmounted.is_error and f"notes/tech/sauce.md is not on disk: the folder {root} is missing" in \
        text(unmounted), text(unmounted)


def test_a_bare_name_thousands_of_files_share_lists_a_bounded_number(immediate, tmp_path, monkeypatch, servers):
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")  # only the names matter here
    runtime.reset()
    ingest(write_tree(tmp_path / "code", {f"p{i:03d}/pkg/__init__.py": f"x = {i}\n" for i in range(150)}), "code")

    async def scenario():
        async with servers.session(dict(os.environ), "--no-worker") as s:
            return await call(s, "read_file", path="__init__.py"), await call(s, "similar", path="__init__.py")
    for many in run(scenario):
        assert not many.is_error and many.structured_content["total_candidates"] == 150
        assert many.structured_content["candidates"][0] == "code/p000/pkg/__init__.py"
        assert len(many.structured_content["candidates"]) == 100 and "[50 more not shown" in text(many)
        assert len(text(many).splitlines()) == 102


def test_read_pdf_by_page_from_the_index(immediate, tmp_path, servers, sift_env, monkeypatch):
    pdf = need_data("pdf/en/Seige_of_Vicksburg_Sample_OCR.pdf")
    root = tmp_path / "papers"
    root.mkdir()
    (root / "siege.pdf").write_bytes(pdf.read_bytes())
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")  # read_file reads the passages: vectors are none of it
    ingest(root, "papers")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return (await call(s, "read_file", path="papers/siege.pdf", page=2),
                    await call(s, "read_file", path="papers/siege.pdf", start_line=3),
                    await call(s, "read_file", path="papers/siege.pdf", page=1, end_page=2))
    page, by_line, pages = run(scenario)
    assert not page.is_error and page.structured_content["page"] == 2
    assert "page 2" in text(page).splitlines()[0] and "page=3" in text(page)
    assert by_line.is_error and "by page" in text(by_line)
    assert not pages.is_error and pages.structured_content["last_page_shown"] == 2, text(pages)
    assert text(pages).splitlines()[1] == "[page 1]" and "\n[page 2]\n" in text(pages)
    assert text(page).splitlines()[1:-1] == text(pages).split("\n[page 2]\n")[1].splitlines()[:-1]


def test_read_file_of_a_pdf_a_note_stands_for_names_the_note(immediate, tmp_path, servers, sift_env):
    """paper.pdf beside paper.md is not indexed itself (the note is taken for its conversion): read_file said it was
    'not indexed yet' and to see stats, which would never change."""
    pdf = need_data("pdf/en/Seige_of_Vicksburg_Sample_OCR.pdf")
    root = write_tree(tmp_path / "papers", {"siege.md": "# Siege\n\nMy notes on the siege.\n"})
    (root / "siege.pdf").write_bytes(pdf.read_bytes())
    ingest(root, "papers")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "read_file", path="papers/siege.pdf", page=1)
    answer = run(scenario)
    assert answer.is_error and "papers/siege.pdf is not indexed itself: the note papers/siege.md beside it" in \
        text(answer), text(answer)


def test_list_files_lists_a_pdf_a_note_stands_for_and_names_the_note(immediate, tmp_path, servers, sift_env):
    """A PDF with a note of its name beside it (its conversion, indexed instead) was in no listing: list_files
    glob='*.pdf' said 'no files match' for a PDF in the folder. It is listed, by glob and folder, as skipped,
    saying which note stands for it, with its size on disk."""
    pdf = need_data("pdf/en/Seige_of_Vicksburg_Sample_OCR.pdf")
    root = write_tree(tmp_path / "papers", {"lit/siege.md": "# Siege\n\nMy notes on the siege.\n",
                                            "todo.md": "# Todo\n\nRead the siege paper.\n"})
    (root / "lit/siege.pdf").write_bytes(pdf.read_bytes())
    ingest(root, "papers")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [(await call(s, "list_files", **arguments)).structured_content for arguments in
                    ({"glob": "*.pdf"}, {"path_prefix": "lit", "sort": "path"}, {"glob": "todo*"}, {})]
    by_glob, in_folder, other, every = run(scenario)
    assert [f["path"] for f in by_glob["files"]] == ["papers/lit/siege.pdf"] and by_glob["total"] == 1
    listed = by_glob["files"][0]
    assert listed["state"] == "skipped" and listed["kind"] == "pdf"
    assert listed["reason"].startswith("not indexed itself: the note papers/lit/siege.md beside it"), listed
    assert listed["size"] == (root / "lit/siege.pdf").stat().st_size
    assert [f["path"] for f in in_folder["files"]] == ["papers/lit/siege.md", "papers/lit/siege.pdf"]
    assert [f["path"] for f in other["files"]] == ["papers/todo.md"]
    assert every["total"] == 3 and every["files"][-1]["path"] == "papers/lit/siege.pdf"


def test_list_files_says_a_pdf_beside_a_note_that_the_scan_leaves_out_is_left_out(immediate, tmp_path, servers,
                                                                                    sift_env, monkeypatch):
    """A note named any same-stem PDF on disk as the one it stands for, one SIFT_EXCLUDE keeps out included: such a
    PDF was listed as 'not indexed itself: the note … stands for it', where read_file refused it as excluded and
    said it reads 'only the files search and list_files can find'. Such a PDF is no note's attachment now
    (ingest.files): list_files lists it no more than any other file the scan leaves out, and read_file says why."""
    from workers import runtime
    monkeypatch.setenv("SIFT_EXCLUDE", "*.pdf")
    runtime.reset()
    pdf = need_data("pdf/en/Seige_of_Vicksburg_Sample_OCR.pdf")
    root = write_tree(tmp_path / "papers", {"lit/siege.md": "# Siege\n\nMy notes on the siege.\n"})
    (root / "lit/siege.pdf").write_bytes(pdf.read_bytes())
    ingest(root, "papers")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EXCLUDE": "*.pdf"}, "--no-worker") as s:
            return await call(s, "list_files"), await call(s, "read_file", path="papers/lit/siege.pdf")
    listed, read = run(scenario)
    assert [(f["path"], f["state"]) for f in listed.structured_content["files"]] == \
        [("papers/lit/siege.md", "indexed")], listed.structured_content
    assert read.is_error and "lit/siege.pdf is in the ignore list (built-in or SIFT_EXCLUDE)" in text(read), text(read)
    cli = run_ingest({**sift_env, "SIFT_EXCLUDE": "*.pdf"}, "files", "--glob", "*.pdf")
    assert "no files match" in cli.stdout, cli.stdout


def test_overlapping_chunks_are_joined_once():
    chunks = [{"heading_path": "", "text": "alpha beta gamma delta\nepsilon zeta\n"},
              {"heading_path": "", "text": "epsilon zeta\neta theta\n"},
              {"heading_path": "Next", "text": "iota"}]
    assert pdf_pages.merge_chunks(chunks) == "alpha beta gamma delta\nepsilon zeta\neta theta\niota"
    assert pdf_pages.overlap("the end", "the start") == 0


def test_path_resolution_stays_inside_the_roots(tmp_path):
    root = write_tree(tmp_path / "root", {"a/b.md": "x", "c.md": "y"})
    other = write_tree(tmp_path / "other", {"d.md": "z"})
    (root / "out").symlink_to(other / "d.md")
    roots = {"root": str(root)}
    assert paths.resolve("root/a/b.md", roots).name == "root/a/b.md"
    assert paths.resolve("a/b.md", roots).name == "root/a/b.md"
    assert paths.resolve(str(root / "a" / ".." / "c.md"), roots).name == "root/c.md"
    for bad in ("out", "../other/d.md", str(other / "d.md"), "a/../../other/d.md", "a/\x00"):
        with pytest.raises(Problem, match="refused"):
            paths.resolve(bad, roots)


# --- list_files ------------------------------------------------------------------------------

def test_list_files_lists_past_its_limit_by_offset(indexed, servers):
    """limit is 500 at most, and there was no way to the files after those but narrowing the folder or pattern:
    a folder of 2,000 files could not be listed whole. offset skips the files listed already, next_offset says
    the one for the next ones, and the pages, joined, are the whole listing; one past the last is said so."""
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            whole = await call(s, "list_files", sort="path", limit=500)
            pages, offset = [], 0
            while offset is not None and len(pages) < 20:
                pages.append(await call(s, "list_files", sort="path", limit=3, offset=offset))
                offset = pages[-1].structured_content.get("next_offset")
            return whole, pages, await call(s, "list_files", offset=999), await call(s, "list_files", offset=-1)
    whole, pages, past, negative = run(scenario)
    total = whole.structured_content["total"]
    assert total > 6 and "next_offset" not in whole.structured_content
    assert [f["path"] for p in pages for f in p.structured_content["files"]] == \
        [f["path"] for f in whole.structured_content["files"]]
    assert len(pages) == -(-total // 3) and "next_offset" not in pages[-1].structured_content
    second = text(pages[1]).splitlines()
    assert second[0].startswith(f"{total} files match; showing 4-6 (by path)"), second
    assert second[-2] == f"[{total - 6} more: raise limit, offset=6 lists the next ones, or narrow with path_prefix or glob]"
    assert not past.is_error and past.structured_content["files"] == [] and past.structured_content["total"] == total
    assert text(past).splitlines()[0] == f"{total} files match; offset 999 is past the last of them"
    assert negative.is_error and "offset must be between 0 and 1000000000 (got -1)" in text(negative)


def test_list_files_shows_state_size_and_time(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return (await call(s, "list_files", sort="path", limit=500),
                    await call(s, "list_files", path_prefix="工作/", sort="path"),
                    await call(s, "list_files", glob="todo.md", sort="path"),
                    await call(s, "list_files", limit=2))
    everything, prefix, glob, two = run(scenario)
    files = {f["path"].split("/", 1)[1]: f for f in everything.structured_content["files"]}
    assert set(NOTES) <= set(files)
    assert files["tech/cooking.md"]["state"] == "indexed" and files["tech/cooking.md"]["kind"] == "note"
    assert files["tech/cooking.md"]["size"] == len(NOTES["tech/cooking.md"].encode())
    assert files["tech/cooking.md"]["modified"].startswith("20")
    assert files["bin/blob.md"]["state"] in ("skipped", "failed") and "binary" in files["bin/blob.md"]["reason"]
    assert [f["path"].split("/", 1)[1] for f in prefix.structured_content["files"]] == [
        "工作/日报/2024-03-01.md", "工作/日报/2024-03-02.md"]
    assert [f["path"] for f in glob.structured_content["files"]] == ["notes/a/todo.md", "notes/b/todo.md"]
    assert two.structured_content["shown"] == 2 and "more: raise limit" in text(two)


def test_a_file_time_beyond_the_calendar_does_not_break_search_or_listing(immediate, sift_env, servers):
    """tmpfs (and btrfs) keep any time a file is given; one past year 9999 broke every search that found it."""
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm (tmpfs) here to keep a file time past year 9999")
    root = Path(tempfile.mkdtemp(dir="/dev/shm"))
    try:
        write_tree(root, {"far.md": "# Far\n\nthe far future walrus\n", "ok.md": "# Ok\n\nan ordinary walrus\n"})
        os.utime(root / "far.md", (1e14, 1e14))
        if os.stat(root / "far.md").st_mtime != 1e14:
            pytest.skip("/dev/shm does not keep a file time past year 9999")
        ingest(root, "notes")

        async def scenario():
            async with servers.session(sift_env, "--no-worker") as s:
                return await call(s, "search", query="walrus", mode="keyword"), await call(s, "list_files")
        found, listed = run(scenario)
    finally:
        shutil.rmtree(root)
    assert not found.is_error, text(found)
    assert {r["path"] for r in found.structured_content["results"]} == {"notes/far.md", "notes/ok.md"}
    assert not listed.is_error, text(listed)
    times = {f["path"]: f["modified"] for f in listed.structured_content["files"]}
    assert times["notes/far.md"] == "100000000000000 s since 1970"


# --- similar -------------------------------------------------------------------------------

def test_similar_finds_related_passages_in_other_files(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            by_path = await call(s, "similar", path="notes/tech/cooking.md", limit=3)
            hit = (await call(s, "search", query="tomato sauce garlic")).structured_content["results"][0]
            by_chunk = await call(s, "similar", chunk_id=hit["chunk_id"], limit=3)
            return by_path, by_chunk, await call(s, "similar"), await call(s, "similar", chunk_id=10 ** 9)
    by_path, by_chunk, neither, unknown = run(scenario)
    found = [r["path"] for r in by_path.structured_content["results"]]
    assert found[0] == "notes/tech/sauce.md" and "notes/tech/cooking.md" not in found
    assert len(found) == len(set(found)) == 3
    assert by_chunk.structured_content["results"][0]["path"] == "notes/tech/cooking.md"
    assert neither.is_error and "exactly one of path or chunk_id" in text(neither)
    assert unknown.is_error and "no passage with chunk id" in text(unknown)


def test_similar_of_a_bare_name_several_files_share_returns_the_candidates(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return await call(s, "similar", path="todo.md"), await call(s, "similar", path="guitar.md", limit=2)
    ambiguous, unique = run(scenario)
    assert not ambiguous.is_error, text(ambiguous)
    assert ambiguous.structured_content["candidates"] == ["notes/a/todo.md", "notes/b/todo.md"]
    assert "call similar again with one of these paths" in text(ambiguous)
    assert not unique.is_error and len(unique.structured_content["results"]) == 2


def test_similar_of_a_file_of_a_kind_sift_does_not_read_says_so_as_read_file_does(indexed_own, servers):
    """similar of MANIFEST.xls said 'not indexed yet, empty, or failed to parse'; read_file, that Sift does not
    index the kind. Both ask the same check now."""
    (indexed_own["root"] / "MANIFEST.xls").write_text("a\tb\n", encoding="utf-8")

    async def scenario():
        async with servers.session(indexed_own["env"], "--no-worker") as s:
            return await call(s, "similar", path="notes/MANIFEST.xls"), await call(s, "read_file",
                                                                                  path="notes/MANIFEST.xls")
    like, read = run(scenario)
    assert like.is_error and text(like).endswith(
        "notes/MANIFEST.xls is not a file Sift indexes (a kind Sift does not read: it reads notes, text, code and PDFs): "
        "similar compares only the files search can find"), text(like)
    assert read.is_error and "a kind Sift does not read" in text(read)


def test_similar_of_a_file_without_passages_says_why_as_the_index_records_it(indexed_own, servers):
    """similar said 'not indexed yet, empty, or failed to parse: see stats' of every such file, where the index
    knows which: the binary note's reason, an empty note indexed, a note no scan has read yet."""
    (indexed_own["root"] / "tech" / "new.md").write_text("# New\n\nwritten after the scan\n", encoding="utf-8")

    async def scenario():
        async with servers.session(indexed_own["env"], "--no-worker") as s:
            return [await call(s, "similar", path=path) for path in ("notes/bin/blob.md", "notes/tech/new.md")]
    says_why_it_has_no_passages(*run(scenario), "notes/bin/blob.md", "notes/tech/new.md")


def says_why_it_has_no_passages(binary, new, binary_path: str, new_path: str) -> None:
    """similar's answers for a binary note skipped at parse and a note no scan has read yet."""
    assert binary.is_error and f"{binary_path} has no passages in the published index: skipped at parse: " \
        "binary file" in text(binary), text(binary)
    assert new.is_error and text(new).endswith(f"{new_path} has no passages in the published index: no scan "
                                               "has read it yet (refresh queues one)"), text(new)


def test_similar_of_a_bare_name_without_passages_says_why_as_by_its_path(immediate, tmp_path, sift_env, servers):
    """similar finds a file as read_file does, but a bare name of a file not in the index beside indexed ones
    (skipped, not read yet) said "no file 'blob.md' in the indexed folders: find it with search or list_files",
    where list_files shows it and read_file opens it by that name: it says why it has no passages."""
    root = write_tree(tmp_path / "notes", {"papers/reading.md": "# Reading\n\nSome words to compare.\n"})
    (root / "papers" / "blob.md").write_bytes(b"\x00\x01\x02 not text" * 10)
    ingest(root, "notes")
    (root / "papers" / "new.md").write_text("# New\n\nwritten after the scan\n", encoding="utf-8")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return [await call(s, "similar", path=path) for path in ("blob.md", "new.md")]
    says_why_it_has_no_passages(*run(scenario), "notes/papers/blob.md", "notes/papers/new.md")


def test_similar_of_an_empty_note_says_it_holds_no_text(immediate, tmp_path, sift_env, servers):
    root = write_tree(tmp_path / "notes", {"empty.md": "", "full.md": "# Full\n\nsome words\n"})
    ingest(root, "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "similar", path="notes/empty.md")
    empty = run(scenario)
    assert empty.is_error and text(empty).endswith(
        "notes/empty.md has no passages in the published index: it is indexed, but holds no text to compare")


def test_similar_of_a_file_deleted_since_it_was_published(indexed_own, servers):
    """similar compares stored vectors: a search hit's path works until the next publish, file or no file."""
    (indexed_own["root"] / "tech/cooking.md").unlink()

    async def scenario():
        async with servers.session(indexed_own["env"], "--no-worker") as s:
            hit = (await call(s, "search", query="spaghetti", mode="keyword")).structured_content["results"][0]
            return hit, await call(s, "similar", path=hit["path"], limit=3)
    hit, like = run(scenario)
    assert hit["path"] == "notes/tech/cooking.md"
    assert not like.is_error, text(like)
    found = [r["path"] for r in like.structured_content["results"]]
    assert found[0] == "notes/tech/sauce.md" and "notes/tech/cooking.md" not in found


def test_keyword_only_index_gives_clear_errors_for_meaning(immediate, notes, monkeypatch, servers):
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    ingest(notes, "notes")

    async def scenario():
        async with servers.session(dict(os.environ), "--no-worker") as s:
            return (await call(s, "similar", path="notes/tech/cooking.md"),
                    await call(s, "search", query="spaghetti"),
                    await call(s, "search", query="spaghetti", mode="semantic"))
    similar, hybrid, semantic = run(scenario)
    assert similar.is_error and "keyword" in text(similar)
    assert hybrid.structured_content["mode"] == "keyword" and "keyword-only" in text(hybrid)
    assert semantic.is_error and "keyword" in text(semantic)


def test_a_keyword_only_server_and_its_worker_build_no_model(sift_env, tmp_path, servers):
    """With SIFT_EMBEDDINGS=off the server's worker built the model into <home>/models to count tokens (e5:
    about 100 MB and a minute), and stats said 'model: not loaded — loads on the first semantic or hybrid
    search', which never comes."""
    env = {**sift_env, "SIFT_EMBEDDINGS": "off", "SIFT_MODEL": "minilm"}  # a name: it would be built in the home
    models = Path(env["SIFT_HOME"]) / "models"
    root = write_tree(tmp_path / "words", {"contract.md": "# 合同\n\n曲美合同条款，付款方式改为分期。\n"})

    async def scenario():
        async with servers.session(env, "--root", str(root)) as s:
            found = await _poll_search(s, "合同")
            return (found, await call(s, "search", query="合同"), await call(s, "search", query="合同", mode="semantic"),
                    await call(s, "stats"))
    found, hybrid, semantic, stats = run(scenario)
    assert found["results"][0]["path"] == "words/contract.md"
    assert hybrid.structured_content["mode"] == "keyword"
    assert "keyword-only index (built with SIFT_EMBEDDINGS=off): answered by keyword search" in text(hybrid)
    assert semantic.is_error and text(semantic).endswith(
        "this index has no embeddings (built with SIFT_EMBEDDINGS=off): use mode 'keyword' or 'hybrid'")
    assert text(stats).startswith("model: keyword only (embeddings off)\n"), text(stats)
    assert not models.exists(), sorted(models.iterdir())


def test_a_server_with_embeddings_off_answers_with_the_index_model_and_builds_none(indexed, servers):
    """The index has vectors (MiniLM, from a file outside the home); a server with SIFT_EMBEDDINGS=off still
    answers semantic searches with the index's model, but at startup it also built the configured model (a
    name) into <home>/models, for a worker that would not embed with it."""
    env = {**indexed["env"], "SIFT_EMBEDDINGS": "off", "SIFT_MODEL": "minilm"}
    models = Path(env["SIFT_HOME"]) / "models"

    async def scenario():
        async with servers.session(env, "--no-worker") as s:
            semantic = await call(s, "search", query="spaghetti", mode="semantic")
            deadline = time.monotonic() + DEADLINE
            while time.monotonic() < deadline:  # the startup loading is done: it has loaded all it will
                model = (await call(s, "stats")).structured_content["model"]
                if model.get("state") in ("ready", "failed"):
                    return semantic, model
                await anyio.sleep(0.2)
            raise TimeoutError("the model never finished loading")
    semantic, model = run(scenario)
    assert not semantic.is_error, text(semantic)
    assert semantic.structured_content["results"][0]["path"] == "notes/tech/cooking.md"
    assert model["state"] == "ready" and [m["id"] for m in model["models"]] == model["index_models"]
    assert not models.exists(), sorted(models.iterdir())


# --- stats, refresh, the worker ----------------------------------------------------------------

def test_server_without_an_index_still_answers_and_says_what_to_do(sift_env, servers):
    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            tools = (await s.list_tools()).tools
            return tools, await call(s, "search", query="anything"), await call(s, "stats")
    tools, search, stats = run(scenario)
    assert {t.name for t in tools} == TOOLS
    assert search.is_error and "--root" in text(search)
    no_traceback(search)
    # a fresh install is not a failure: stats answers, saying nothing is indexed yet and what to do
    assert not stats.is_error, text(stats)
    assert "nothing is indexed yet: start sift-mcp with --root FOLDER" in text(stats), text(stats)
    assert stats.structured_content["collections"] == [] and "--root" in stats.structured_content["nothing"]
    assert "worker: none started by this server" in text(stats)


def test_a_server_without_an_index_or_a_worker_makes_nothing(sift_env, servers):
    """sift-mcp --no-worker on a home never used built the configured model into <home>/models at startup (e5:
    about 100 MB and a minute) for an index that did not exist: a mistyped --home left a home behind."""
    env = {**sift_env, "SIFT_MODEL": "minilm"}  # a name: it would be built in the home
    home = Path(env["SIFT_HOME"])

    async def scenario():
        async with servers.session(env, "--no-worker") as s:
            stats = await call(s, "stats")
            await anyio.sleep(3)  # the startup loading runs beside the tools: give it time to make what it makes
            return stats
    stats = run(scenario)
    assert not stats.is_error and "nothing is indexed yet: start sift-mcp with --root FOLDER" in text(stats)
    assert not home.exists(), sorted(home.rglob("*"))


def test_a_model_loaded_after_a_startup_without_an_index_is_ready(immediate, notes, sift_env, monkeypatch):
    """Started without an index, the server loads no model; once one is published, the first semantic search
    loads the index's model, and stats must then say ready, not 'not loaded' (nor 'failed' with no reason)."""
    from mcp_server.model_state import ModelState
    from search.settings import load
    from workers import runtime
    monkeypatch.setenv("SIFT_MODEL", "minilm")
    state = ModelState(load())
    state.start()
    assert state._started.wait(120)
    assert state.describe()["state"] == "not loaded" and not (Path(sift_env["SIFT_HOME"]) / "models").exists()
    monkeypatch.setenv("SIFT_MODEL", sift_env["SIFT_MODEL"])  # the index is built with the session's model file
    runtime.reset()
    model = ingest(notes, "notes")["published"]["model"]
    state.get(model)
    described = state.describe()
    assert described["state"] == "ready" and described["id"] == model, described


def test_ingest_stats_and_the_stats_tool_are_one_report(indexed, servers):
    """The two show each collection with the same lines (one model, one renderer); only the hints differ."""
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return await call(s, "stats")
    tool = run(scenario)
    cli = run_ingest(indexed["env"], "stats")
    as_json = json.loads(run_ingest(indexed["env"], "stats", "--json").stdout)
    assert cli.returncode == 0 and not tool.is_error, cli.stderr + text(tool)

    def block(said: str) -> list[str]:
        """The collection's lines, ages left out (the two calls are made seconds apart)."""
        start = said.index(f"\nnotes  {indexed['root']}")
        return [re.sub(r"[0-9.]+ (s|min|h|d) ago", "… ago", line) for line in said[start:].splitlines()]
    assert block(text(tool)) == block(cli.stdout)
    assert "  published: generation 1, … ago; 10 files seen, 10 added; " in block(cli.stdout)[3]
    assert "    bin/blob.md: skipped at parse: binary file" in "\n".join(block(cli.stdout))
    for said in (text(tool), cli.stdout):
        assert "index: " in said and f"at {Path(indexed['env']['SIFT_HOME']) / 'index.db'}; jobs in queue: 0" in said
    assert tool.structured_content["queue_pending"] == as_json["queue_pending"] == 0
    strip = lambda c: {**c, "published": {k: v for k, v in c["published"].items() if k != "age_seconds"}}  # noqa: E731
    assert [strip(c) for c in tool.structured_content["collections"]] == [strip(c) for c in as_json["collections"]]
    assert "worker: none started by this server (--no-worker)" in text(tool) and "worker:" not in cli.stdout


@pytest.mark.timeout(DEADLINE)
def test_stats_of_a_server_without_worker_gives_a_command_that_starts_one_for_its_home(sift_env, servers, tmp_path):
    """`sift-mcp --no-worker` said 'start one with: huey_consumer …': from a shell without the venv on PATH that
    was 'command not found', and without the client's SIFT_HOME it served ~/.sift. It names both."""
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    assert run_ingest(sift_env, "enqueue", str(tmp_path / "n")).returncode == 0
    env = {**sift_env, "PATH": "/usr/bin:/bin"}

    async def scenario():
        async with servers.session(env, "--no-worker") as s:
            return await call(s, "stats")
    said = text(run(scenario))
    assert (f"jobs run only if a worker runs elsewhere — start one with: SIFT_HOME={sift_env['SIFT_HOME']} "
            f"{VENV_BIN / 'huey_consumer'} workers.app.huey -k process") in said, said


def test_the_stats_tool_names_the_kinds_of_file_sift_does_not_read(immediate, sift_env, tmp_path, servers):
    """An assistant asked why a .doc is not found should see that Sift passed over it for its kind."""
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha", "contracts/q.doc": "d", "r.doc": "d",
                                           "scan.png": "p", "node_modules/x.doc": "ignored"})
    ingest(root, "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "stats")
    tool = run(scenario)
    assert not tool.is_error, text(tool)
    assert "\n  3 files of kinds Sift does not read: .doc 2, .png 1\n" in text(tool), text(tool)
    assert tool.structured_content["collections"][0]["published"]["unread"] == {".doc": 2, ".png": 1}


@pytest.mark.slow  # a real consumer
def test_stats_while_a_real_consumer_builds_a_generation(sift_env, consumer, tmp_path, servers):
    root = write_tree(tmp_path / "big", {f"topic{i % 20}/note{i}.md": _note(i) for i in range(NOTES_BUILT)})
    sift_env["SIFT_FIRST_PART"] = "0"  # the notes in one generation: stats of it building, then published
    assert run_ingest(sift_env, "enqueue", str(root), "--name", "big").returncode == 0
    # the worker's embed job, a batch embedded, holds until the test has looked (workers.halt); one worker, which
    # holds once: a second could hold again after the test let go
    held = tmp_path / "held"
    sift_env["SIFT_FAULT_HOLD_FOR_STOP"] = str(held)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            before = await call(s, "stats")
            worker = consumer(workers=1)
            await _poll_stats(s, lambda big: held.exists() or big["published"], worker)
            assert held.exists(), "the build was published without an embed job to hold"
            building, search = await _poll_until_building(s, worker)
            held.unlink()
            published = await _poll_stats(s, lambda big: big["published"] and not big["building"], worker)
            return before, building, search, published
    before, building, search, published = run(scenario)
    assert "published: nothing yet" in text(before)
    assert before.structured_content["model"]["state"] in ("not loaded", "loading", "ready")
    big = _collection(building, "big")
    stages = big["building"]["stages"]
    assert set(stages) == {"parse", "chunk", "embed", "write"}
    assert sum(n["done"] + n["queued"] for n in stages.values()) > 0
    assert big["building"]["progress"]["files"] == NOTES_BUILT
    assert "building: generation" in text(building) and "ETA" in text(building) and "embed" in text(building)
    # the search was made while the first generation was being built: none of it is visible yet
    fresh = search.structured_content["freshness"][0]
    assert fresh["collection"] == "big" and fresh["published_generation"] is None
    assert fresh["building"]["files"] == NOTES_BUILT and fresh["pending_files"] > 0
    assert search.structured_content["results"] == [], "a hit from a generation not yet published"
    done = _collection(published, "big")
    assert done["files"] == NOTES_BUILT and done["building"] is None
    assert f"{NOTES_BUILT} files, " in text(published) and " chunks searchable" in text(published)


def test_refresh_with_a_worker_child_then_the_child_stops_with_the_server(sift_env, tmp_path, servers):
    root = write_tree(tmp_path / "fresh", {"harbour.md": "# Harbour\n\nBoats in the harbour at dawn.\n"})

    async def scenario():
        async with servers.session(sift_env, "--root", str(root), "--name", "fresh") as s:
            first = await _poll_search(s, "harbour")
            (root / "zebra.md").write_text("# Crossing\n\nA zebra crossing near the station.\n")
            queued = await call(s, "refresh", collection="fresh")
            second = await _poll_search(s, "zebra")
            worker = (await call(s, "stats")).structured_content["worker"]
            return first, queued, second, worker
    first, queued, second, worker = run(scenario)
    assert first["results"][0]["path"] == "fresh/harbour.md"
    assert not queued.is_error and "queued a re-scan of fresh" in text(queued)
    assert second["results"][0]["path"] == "fresh/zebra.md"
    assert second["generations"]["fresh"] > first["generations"]["fresh"]
    assert worker["state"] == "running"
    _wait_gone(worker["pid"])


def test_refresh_without_its_own_worker_sees_the_one_started_by_hand(sift_env, consumer, tmp_path, servers):
    """The README's setup: huey_consumer started by hand, the server with --no-worker. refresh told the
    assistant 'this server runs no worker, so the job waits for one: start one with: huey_consumer …' while a
    worker was running and took the job at once. Without any worker it still says so, with the command for this
    server's home (a bare huey_consumer serves ~/.sift)."""
    from workers import runtime
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"})

    async def refresh():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "refresh", collection="notes")
    assert run_ingest(sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    alone = run(refresh)
    assert "this server runs no worker, so the job waits for one: start one with" in text(alone), text(alone)
    assert f"start one with: SIFT_HOME={sift_env['SIFT_HOME']} " in text(alone), "a worker for this server's home"
    worker = consumer(workers=1)
    wait_published(runtime.index(), "notes", None, worker.proc)
    helped = run(refresh)
    assert not helped.is_error and "queued a re-scan of notes" in text(helped), text(helped)
    assert "note: this server runs no worker; one on this queue was at work " in text(helped), text(helped)
    assert "start one with" not in text(helped), text(helped)


def test_refresh_of_a_collection_being_built_says_the_scan_waits_for_that_build(indexed_own, servers):
    """refresh said 'queued a re-scan of notes' while a build of notes was under way, and the changes were not
    searchable once that job had run: a scan waits for the build in flight and runs once it is published."""
    from search.index import store
    from workers import runtime
    conn = runtime.index()
    gen = store.begin_generation(conn, 1, runtime.model_id())  # a scan has planned a build; its jobs run
    store.record_plan(conn, gen, 1, {"alpha.md": "changed"}, {}, len(NOTES))

    async def refresh():
        async with servers.session(indexed_own["env"], "--no-worker") as s:
            return await call(s, "refresh", collection="notes")
    said = text(run(refresh))
    assert said.startswith(f"queued a re-scan of notes ({indexed_own['root']}); a build of it is under way: the "
                           "re-scan runs once that build is published, and reads the changes then (stats shows "
                           "its progress)\n"), said


def test_sigterm_stops_the_server_and_its_worker(sift_env, tmp_path):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\ntext\n"})
    with open(tmp_path / "stderr.log", "wb") as log:
        server = subprocess.Popen([str(VENV_BIN / "sift-mcp"), "--root", str(root)], env=sift_env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        try:
            child = _wait_for_child(server.pid)
            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=60) == 128 + signal.SIGTERM
        finally:
            if server.poll() is None:
                server.kill()
    _wait_gone(child)


def test_a_wrong_root_is_served_and_every_answer_says_so(indexed_own, servers, tmp_path):
    """A --root that is not there ended the server with status 2: Claude Desktop showed only 'disconnected', the
    reason in a log file. It serves what is indexed, and stats, search and list_files say the problem first, with
    the folder meant and what to do, for the assistant to tell the user."""
    typo = tmp_path / "note"  # the indexed folder is tmp_path/notes

    async def scenario():
        async with servers.session(indexed_own["env"], "--root", str(typo), "--no-worker") as s:
            return [await call(s, "stats"), await call(s, "search", query="pasta", mode="keyword"),
                    await call(s, "list_files"), await call(s, "search", query="x", collection="nowhere"),
                    s.instructions]
    stats, search, listing, refused, instructions = run(scenario)
    problem = (f"sift-mcp was started with --root {typo}: not a folder: {typo} does not exist (did you mean "
               f"{tmp_path / 'notes'}?); fix --root in the MCP client's configuration (the folder's absolute path) "
               "and restart the client; until then only what was indexed before is searched")
    for answer in (stats, search, listing):
        assert not answer.is_error and text(answer).splitlines()[0] == f"problem: {problem}", text(answer)
    assert stats.structured_content["notices"][0] == problem
    assert search.structured_content["notes"][0] == problem and "notes/tech/cooking.md" in text(search)
    assert listing.structured_content["notes"][0] == problem
    assert refused.is_error and text(refused).endswith(f"search: problem: {problem}\nno collection named 'nowhere'; "
                                                       "collections: notes"), text(refused)
    assert f"sift-mcp: error: --root {typo}: not a folder: " in (tmp_path / "server-stderr.log").read_text()
    assert instructions.endswith(f"\nProblem at startup, to tell the user: {problem}."), instructions
    servers.check_stdout()


@pytest.mark.timeout(300)
def test_a_root_given_as_a_file_or_relative_says_what_was_wrong_on_stderr(sift_env, tmp_path):
    """Not a startup error any more (see above), but the reason is still the stderr line a terminal shows: a note
    given for its folder, and a relative --root read from the folder the client started the server in."""
    note = tmp_path / "notes" / "a.md"  # a note given for its folder: 'not a folder' alone said nothing more
    write_tree(tmp_path / "notes", {"a.md": "# A\n"})
    given = subprocess.run([str(VENV_BIN / "sift-mcp"), "--root", str(note), "--no-worker"], env=sift_env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert given.returncode == 0 and given.stdout == "" and "Traceback" not in given.stderr
    assert (f"sift-mcp: error: --root {note}: not a folder: {note} is a file: give the folder that holds the "
            f"notes (this file's: {note.parent}); serving all the same: each tool's answer says so\n") in given.stderr
    started_in = tmp_path / "client"
    started_in.mkdir()
    result = subprocess.run([str(VENV_BIN / "sift-mcp"), "--root", "notes", "--no-worker"], cwd=started_in,
                            env=sift_env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == ""
    assert (f"sift-mcp: error: --root notes: not a folder: notes does not exist (a relative path is read from the "
            f"folder the server was started in, {started_in}: give the folder's absolute path, or one starting "
            "with ~); serving all the same") in result.stderr, result.stderr



@pytest.mark.timeout(300)
def test_name_without_root_is_refused_not_ignored(sift_env):
    """'--name notes' in a client's configuration without --root was ignored without a word: the server ran and
    no collection had that name. It is refused, saying what it needs."""
    result = subprocess.run([str(VENV_BIN / "sift-mcp"), "--name", "notes", "--no-worker"], env=sift_env,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == ("sift-mcp: error: --name notes names the collection of --root: give "
                                              "--root FOLDER too"), result.stderr


@pytest.mark.timeout(300)
def test_a_misspelt_option_is_told_the_one_meant(sift_env):
    """'--rot ~/notes' in a client's configuration ended the server with 'unrecognized arguments' and the usage,
    leaving the reader to spot the typo ('ingest' named the option meant). sift-mcp names it too."""
    for typed, said in ((["--rot", "/tmp"], "--rot /tmp (did you mean --root?)"),
                        (["--http", "9", "--red-only"], "--red-only (did you mean --read-only?)"),
                        (["--no-wroker"], "--no-wroker (did you mean --no-worker?)")):
        result = subprocess.run([str(VENV_BIN / "sift-mcp"), *typed], env=sift_env, stdin=subprocess.DEVNULL,
                                capture_output=True, text=True)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.splitlines()[-1] == f"sift-mcp: error: unrecognized arguments: {said}", result.stderr


# --- helpers --------------------------------------------------------------------------------------

NOTES_BUILT = 100  # a build held while stats looks (600 raced it: 152 s at load 14)


def _note(i: int) -> str:
    return (f"# Note {i}\n\nThis is note number {i} about topic {i % 20}. " * 3
            + f"\n\n## Details\nItem {i} mentions the warehouse, the harbour and invoice {i * 7}.\n")


def _collection(result, name: str) -> dict:
    return next(c for c in result.structured_content["collections"] if c["name"] == name)


async def _poll_until_building(session, worker):
    """The first stats showing the generation being built with stage counts, and a search made then."""
    def building(big):
        b = big["building"]
        return b is not None and b["discovered"] and sum(n["done"] + n["queued"] for n in b["stages"].values())
    stats = await _poll_stats(session, lambda big: building(big) or big["published"], worker, interval=0.02)
    assert building(_collection(stats, "big")), "published before a stats call saw it being built"
    return stats, await call(session, "search", query="warehouse", mode="keyword")


async def _poll_stats(session, done, worker, interval: float = 0.2):
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        result = await call(session, "stats")
        assert not result.is_error, text(result)
        if done(_collection(result, "big")):
            return result
        assert worker.proc.poll() is None, "the consumer died"
        await anyio.sleep(interval)
    raise TimeoutError("stats never showed the expected state")


async def _poll_search(session, word: str) -> dict:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        result = await call(session, "search", query=word, mode="keyword")
        assert not result.is_error, text(result)
        if result.structured_content["results"]:
            return result.structured_content
        await anyio.sleep(0.3)
    raise TimeoutError(f"{word!r} never became searchable")


def _wait_for_child(parent: int) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        children = [pid for pid, state, ppid, _ in processes() if ppid == parent and state != "Z"]
        if children:
            return children[0]
        time.sleep(0.05)
    raise TimeoutError("the server started no worker")


def _wait_gone(group: int) -> None:
    """Wait until no live process is left in the worker's process group."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not any(pgrp == group and state != "Z" for _, state, _, pgrp in processes()):
            return
        time.sleep(0.1)
    raise AssertionError(f"the worker's process group {group} outlived the server")


def test_started_by_hand_on_a_terminal_it_says_what_it_waits_for(sift_env):
    """On a terminal sift-mcp waited in silence; now one line on stderr says it speaks MCP over stdio.
    Its stdout stays the protocol's alone: nothing is written there."""
    import pty
    from mcp_server.server import TERMINAL_HINT
    master, terminal = pty.openpty()
    proc = subprocess.Popen([str(VENV_BIN / "sift-mcp"), "--no-worker"], stdin=terminal, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=sift_env)
    os.close(terminal)
    try:
        line = proc.stderr.readline().decode()
        assert line.rstrip("\n") == TERMINAL_HINT and "MCP over stdio" in line
        os.write(master, b"\x04")  # Ctrl-D: end of input, as the hint says
        assert proc.wait(timeout=60) == 0 and proc.stdout.read() == b""
    finally:
        proc.kill() if proc.poll() is None else None
        os.close(master)


def test_one_search_hit_is_1_passage(indexed, servers):
    """The search tool's first line said '1 passages for …'."""
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return await call(s, "search", query="spaghetti", mode="keyword", limit=1)
    one = run(scenario)
    assert text(one).startswith("1 passage for 'spaghetti' (keyword, "), text(one)


def test_a_misspelled_word_is_named_with_the_word_meant(indexed, servers):
    """A typo adds nothing to a hybrid ranking: without the note, the assistant sees only passages by meaning."""
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return (await call(s, "search", query="spagetti"),
                    await call(s, "search", query="Spagetti zyxwvut pasta", mode="keyword"),
                    await call(s, "search", query="spaghetti", mode="keyword"))
    answer, two, none = run(scenario)
    # a query of the misspelled word alone is searched as meant, and the note says so (it said 'results are by
    # meaning only' before keyword.slip_forms searched such a query)
    said = "no passage contains 'spagetti' (did you mean 'spaghetti'?); searched for 'spaghetti' in its place"
    assert f"\nnote: {said}\n" in text(answer), text(answer)
    assert answer.structured_content["notes"] == [said]
    assert answer.structured_content["results"], "passages for the word meant"
    assert answer.structured_content["unmatched"] == [{"word": "spagetti", "suggestion": "spaghetti"}], \
        "the words and suggestions as data, not only in the note's text"
    assert two.structured_content["unmatched"] == [{"word": "Spagetti", "suggestion": "spaghetti"},
                                                   {"word": "zyxwvut", "suggestion": None}], "a null kept"
    assert "unmatched" not in none.structured_content


# --- answers kept tight for an assistant -------------------------------------------------------

@pytest.fixture
def three(indexed_own, tmp_path) -> dict:
    """notes (indexed), code and papers: code quiet, papers with 2 changed files the watcher noticed; and
    'later', registered but never scanned."""
    from search.index import store
    from workers import runtime
    ingest(write_tree(tmp_path / "code", {"app.py": "def cook_pasta():\n    return 'spaghetti'\n"}), "code")
    ingest(write_tree(tmp_path / "papers", {"p.md": "# Paper\n\nOn tomatoes.\n"}), "papers")
    conn = runtime.index()
    papers = store.ensure_collection(conn, "papers", str((tmp_path / "papers").resolve()))
    store.note_changes(conn, papers["id"], 2, time.time())
    store.ensure_collection(conn, "later", str(write_tree(tmp_path / "later", {"x.md": "# X\n"}).resolve()))
    return indexed_own


@pytest.mark.timeout(DEADLINE)
def test_the_freshness_line_says_a_first_scan_waits_for_a_worker(sift_env, servers, tmp_path):
    """A folder enqueued with no worker running: search's freshness said 'nothing published yet, nothing being
    built', as if nothing would happen. It says the first scan waits in the queue for a worker."""
    write_tree(tmp_path / "fresh", {"a.md": "# A\nalpha"})
    assert run_ingest(sift_env, "enqueue", str(tmp_path / "fresh")).returncode == 0

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "search", query="alpha", mode="keyword")
    result = run(scenario)
    line = text(result).splitlines()[-1]
    assert re.fullmatch(r"freshness: fresh: nothing published yet, its first scan waits in the queue for a worker "
                        r"\(queued [0-9.]+ (s|min) ago\)", line), line
    assert result.structured_content["freshness"][0]["first_scan_queued"]["age_seconds"] >= 0


@pytest.mark.timeout(DEADLINE)
def test_a_first_scan_queued_without_its_time_is_still_in_the_data(sift_env, servers, tmp_path):
    """A scan job that does not say when it was queued (queued by a Sift before the time was recorded, or
    straight through huey): the text said its first scan waits in the queue, and the data said nothing of it
    (the empty `first_scan_queued: {}` was dropped as saying nothing)."""
    root = write_tree(tmp_path / "fresh", {"a.md": "# A\nalpha"})
    queue_it = ("from search.index import store; from workers import runtime, tasks; "
                f"tasks.discover(store.ensure_collection(runtime.index(), 'fresh', {str(root.resolve())!r})['id'], "
                "queued=None)")  # as a job queued by a Sift before scans carried their time
    subprocess.run([sys.executable, "-c", queue_it], env=sift_env, cwd=REPO, check=True, timeout=120)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "search", query="alpha", mode="keyword")
    result = run(scenario)
    assert text(result).splitlines()[-1].endswith("its first scan waits in the queue for a worker"), text(result)
    assert result.structured_content["freshness"][0]["first_scan_queued"] == {}


@pytest.mark.timeout(DEADLINE)
def test_a_search_with_no_folder_registered_says_how_to_add_one(sift_env, servers, tmp_path):
    """A server configured without --root on a new home (or after `ingest remove` of the last collection) said
    'no collection has published a generation (the first one may still be being built …)': there was none to
    build. It says no folder is registered, and what adds one."""
    write_tree(tmp_path / "gone", {"a.md": "# A\nalpha"})
    assert run_ingest(sift_env, "enqueue", str(tmp_path / "gone")).returncode == 0  # the index exists …
    assert run_ingest(sift_env, "remove", "gone").returncode == 0  # … and holds no collection

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "search", query="alpha")
    lines = text(run(scenario)).splitlines()
    assert lines[1] == ("note: nothing is searchable yet: no folder is registered (sift-mcp --root FOLDER or "
                        "`ingest enqueue FOLDER` adds one)"), lines
    assert not any("no passages match" in line for line in lines), "not 'search again once stats shows …'"


def test_the_freshness_line_is_one_clause_for_every_collection_with_nothing_going_on(three, servers):
    async def scenario():
        async with servers.session(three["env"], "--no-worker") as s:
            return (await call(s, "search", query="spaghetti", mode="keyword"),
                    await call(s, "search", query="spaghetti", mode="keyword", collection="notes"),
                    await call(s, "list_files", collection="papers"))
    everywhere, notes, papers = run(scenario)
    # list_files shows the index's state: it says too that changes wait for a scan (p.md may be edited on disk)
    # the age alone: the time beside it ('2026-12-07 01:08:32 (3.0 h ago)') told an assistant nothing more
    assert re.fullmatch(r"freshness: papers: generation \d+ published [0-9.]+ (s|min) ago, "
                        r"2 changed files waiting for a scan", text(papers).splitlines()[-1]), text(papers)
    assert papers.structured_content["freshness"][0]["published_at"][:2] == "20", "the data keeps the time"
    assert papers.structured_content["freshness"][0]["pending_files"] == 2
    line = text(everywhere).splitlines()[-1]
    assert re.fullmatch(r"freshness: later: nothing published yet, nothing being built; papers: generation \d+ "
                        r"published [0-9.]+ (s|min) ago, 2 changed files waiting for a scan; "
                        r"the others up to date \(last published: code [0-9.]+ (s|min) ago, "
                        r"notes [0-9.]+ (s|min) ago\)", line), line
    assert re.fullmatch(r"freshness: up to date \(last published: notes [0-9.]+ (s|min) ago\)",
                        text(notes).splitlines()[-1]), text(notes)
    fresh = {f["collection"]: f for f in everywhere.structured_content["freshness"]}
    assert fresh["later"]["published_generation"] is None, "null here means nothing published: kept"
    assert fresh["papers"]["pending_files"] == 2 and fresh["notes"]["published_generation"] >= 1


def test_structured_content_leaves_out_the_keys_that_say_nothing(three, servers):
    async def scenario():
        async with servers.session(three["env"], "--no-worker") as s:
            return (await call(s, "search", query="spaghetti", mode="keyword", collection="notes"),
                    await call(s, "search", query="zzzqqq", mode="keyword"),
                    await call(s, "list_files", collection="notes", sort="path", limit=500),
                    await call(s, "read_file", path="notes/tech/long.md"),
                    await call(s, "read_file", path="notes/tech/long.md", end_line=5),
                    await call(s, "stats"))
    found, nothing, listed, whole, part, stats = run(scenario)
    hit = found.structured_content["results"][0]
    assert hit["path"] == "notes/tech/cooking.md" and hit["start_line"] >= 1
    for key in ("page", "end_page", "semantic_rank", "attachments", "cited_by"):
        assert key not in hit, key
    assert "notes" not in found.structured_content and "models" not in found.structured_content
    assert "root_missing_since" not in found.structured_content["freshness"][0], "no folder missing: no key"
    assert nothing.structured_content["results"] == [], "no results is the answer itself: kept"
    files = {f["path"].split("/", 1)[1]: f for f in listed.structured_content["files"]}
    assert "reason" not in files["tech/cooking.md"] and "binary" in files["bin/blob.md"]["reason"]
    assert "notes" not in listed.structured_content
    assert whole.structured_content["next_start_line"] is None, "null here means the end of the file: kept"
    assert "next_start_offset" not in whole.structured_content
    assert part.structured_content["next_start_line"] == 6
    later = next(c for c in stats.structured_content["collections"] if c["name"] == "later")
    assert later["published"] is None and later["building"] is None, "stats: the one report, as ingest stats gives it"


def test_list_files_puts_its_notes_before_the_files_as_search_does(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            # an absolute folder: how it was read is a note ('notes/tech' is read as the paths show: none)
            tech = str(indexed["root"] / "tech")
            return (await call(s, "list_files", path_prefix=tech, sort="path", limit=2),
                    await call(s, "search", query="spaghetti", path_prefix=tech, mode="keyword"))
    listed, found = run(scenario)
    lines = text(listed).splitlines()
    assert lines[0].startswith("4 files match; showing 2 (by path)"), lines
    assert lines[1].startswith(f"note: path_prefix {str(indexed['root'] / 'tech')!r} read as"), lines
    assert lines[2].startswith("notes/tech/cooking.md  ") and lines[-2].startswith("[2 more: "), lines
    assert lines[-1].startswith("freshness: up to date (last published: notes "), lines
    said = text(found).splitlines()
    assert said[0].startswith("1 passage for 'spaghetti'") and said[1] == lines[1], said


def test_limits_out_of_bounds_are_told_plainly(indexed, servers):
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return ((await s.list_tools()).tools,
                    await call(s, "search", query="x", limit=1000),
                    await call(s, "search", query="x", limit=0),
                    await call(s, "list_files", limit=501),
                    await call(s, "similar", chunk_id=1, limit=51),
                    await call(s, "read_file", path="notes/tech/long.md", start_line=0))
    tools, *errors = run(scenario)
    assert [text(e) for e in errors] == [
        "Error executing tool search: limit must be between 1 and 50 (got 1000)",
        "Error executing tool search: limit must be between 1 and 50 (got 0)",
        "Error executing tool list_files: limit must be between 1 and 500 (got 501)",
        "Error executing tool similar: limit must be between 1 and 50 (got 51)",
        "Error executing tool read_file: start_line must be 1 or more (got 0)"]
    assert all(e.is_error for e in errors)
    limit = next(t for t in tools if t.name == "list_files").input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, 500), "the schema still gives the bounds"


def test_every_bad_argument_is_told_in_one_error(indexed, servers):
    """limit out of bounds and a bad mode in one call: both told at once, so a model fixes both in one go
    (the bounds check alone answered before, and the mode came back on the next try)."""
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return (await call(s, "search", query="x", limit=1000, mode="bogus"),
                    await call(s, "list_files", limit=True, sort="name"))
    search, listing = run(scenario)
    assert search.is_error and listing.is_error
    assert text(search) == ("Error executing tool search: limit must be between 1 and 50 (got 1000); invalid "
                            "arguments: mode: Input should be 'hybrid', 'keyword' or 'semantic' (got 'bogus')")
    assert text(listing) == ("Error executing tool list_files: invalid arguments: limit: give a whole number, not "
                             "a boolean (got true); sort: Input should be 'modified', 'path' or 'dated' (got 'name')")


def test_the_tools_own_refusals_are_told_with_the_schema_errors(indexed, servers):
    """An unknown collection, a date that is not ISO and path with chunk_id are the tools' own checks, made
    after the schema's: a call with limit=0 and collection='nope' was told of the limit only, and one with
    collection='nope' and modified_after='yesterday' of the collection only, so a model needed a call per
    mistake. A call with one mistake is told as before."""
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return [await call(s, "search", query="x", limit=0, collection="nope", mode="bogus"),
                    await call(s, "search", query="x", collection="nope", modified_after="yesterday",
                               modified_before="2024-13-01"),
                    await call(s, "list_files", collection="nope", limit=0),
                    await call(s, "similar", path="notes/nowhere.md", chunk_id=3),
                    await call(s, "similar", limit=99),
                    await call(s, "search", query="x", modified_after="yesterday")]
    results = run(scenario)
    assert all(r.is_error for r in results)
    unknown = "no collection named 'nope'; collections: notes"
    iso = "must be an ISO date like 2024-03-01 or a date-time like 2024-03-01T14:30, not "
    assert text(results[0]) == ("Error executing tool search: limit must be between 1 and 50 (got 0); invalid "
                                "arguments: mode: Input should be 'hybrid', 'keyword' or 'semantic' (got 'bogus'); "
                                + unknown)
    from datetime import timedelta
    day = datetime.now().date()
    today = (f"give the date itself, counted from today ({day.isoformat()}): for yesterday, give modified_after="
             f"{(day - timedelta(days=1)).isoformat()} and modified_before={day.isoformat()}")
    assert text(results[1]) == (f"Error executing tool search: {unknown}; modified_after {iso}'yesterday': {today}; "
                                f"modified_before {iso}'2024-13-01'")
    assert text(results[2]) == f"Error executing tool list_files: limit must be between 1 and 500 (got 0); {unknown}"
    assert text(results[3]).startswith("Error executing tool similar: no file 'notes/nowhere.md' in the indexed")
    assert text(results[3]).endswith("; give exactly one of path or chunk_id")
    assert text(results[4]) == ("Error executing tool similar: limit must be between 1 and 50 (got 99); give "
                                "exactly one of path or chunk_id")
    assert text(results[5]) == f"Error executing tool search: modified_after {iso}'yesterday': {today}"


def test_link_totals_are_left_out_of_hits_without_links(immediate, tmp_path, servers, sift_env):
    """attachments_total and cited_by_total were 0 on every hit without links: kept only when there are links."""
    root = write_tree(tmp_path / "papers", {"reading.md": "# Reading list\n\nSee [the paper](paper.pdf).\n",
                                            "plain.md": "# Reading glasses\n\nNo links here.\n"})
    shutil.copy(need_data("pdf/en/google-doc-document.pdf"), root / "paper.pdf")
    ingest(root, "papers")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "search", query="reading", mode="keyword", kind="note")
    found = run(scenario)
    hits = {h["path"]: h for h in found.structured_content["results"]}
    assert hits["papers/reading.md"]["attachments"] == ["papers/paper.pdf"]
    assert hits["papers/reading.md"]["attachments_total"] == 1
    for key in ("attachments", "attachments_total", "cited_by", "cited_by_total"):
        assert key not in hits["papers/plain.md"], key
    assert "cited_by_total" not in hits["papers/reading.md"]


def test_a_query_typed_with_ideographic_spaces_is_echoed_as_typed_words(indexed, servers):
    """A Chinese or Japanese input method types U+3000 between words: search reads it as a space, but the
    answer's first line repeated the query as '合同\\u3000付款', an escape the user never typed."""
    async def scenario():
        async with servers.session(indexed["env"], "--no-worker") as s:
            return await call(s, "search", query="合同\u3000付款", mode="keyword")
    result = run(scenario)
    assert text(result).split("\n")[0].startswith("1 passage for '合同 付款' (keyword"), text(result)


def test_names_with_control_characters_are_escaped_in_the_text_answers(immediate, tmp_path, sift_env, servers):
    """A file name may hold a newline or a terminal escape: the text a model reads shows it escaped, on the one
    line it belongs to; the structured results keep the name as it is, which read_file takes back, and read_file
    takes the escaped name too (it said there is no such file)."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "odd\nname.md").write_text("# Odd\n\nzebrafinch songs at dawn\n")
    (root / "red\x1b[31m.md").write_text("# Red\n\nzebrafinch nests in spring\n")
    ingest(root, "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            found = await call(s, "search", query="zebrafinch", mode="keyword")
            paths = sorted(r["path"] for r in found.structured_content["results"])
            shown = ["notes/odd\\nname.md", "notes/red\\x1b[31m.md"]  # as the text shows them, copied back
            return (found, paths, await call(s, "list_files", sort="path"),
                    [await call(s, "read_file", path=p) for p in paths + shown])
    found, paths, listed, reads = run(scenario)
    assert paths == ["notes/odd\nname.md", "notes/red\x1b[31m.md"]
    for answer in (found, listed, *reads):
        assert not answer.is_error, text(answer)
        assert "\x1b" not in text(answer) and not any(line.startswith("name.md") for line in text(answer).splitlines())
    assert "notes/odd\\nname.md" in text(found) and "notes/red\\x1b[31m.md" in text(found)
    assert "notes/odd\\nname.md" in text(listed)
    assert [text(r).splitlines()[0].split("  ")[0] for r in reads] == ["notes/odd\\nname.md", "notes/red\\x1b[31m.md"] * 2
    assert [r.structured_content["path"] for r in reads] == paths * 2


@pytest.mark.timeout(DEADLINE)
def test_stats_names_a_broken_configured_model_while_the_index_s_model_answers(indexed, servers, tmp_path):
    """SIFT_MODEL set to a file that is not a model, on an index embedded with a good one: searches answer with
    the index's model, and the stats tool said `model: ready — <the index's model>` only, the configured file's
    trouble on the server's stderr alone. The model line names the file and what is wrong with it."""
    broken = tmp_path / "broken.gguf"
    broken.write_text("not a model\n")

    async def scenario():
        async with servers.session({**indexed["env"], "SIFT_MODEL": str(broken)}, "--no-worker") as session:
            stats = text(await call(session, "stats"))
            while "model: loading" in stats:
                await anyio.sleep(0.2)
                stats = text(await call(session, "stats"))
            model = stats.splitlines()[0]
            assert model.startswith("model: ready — "), model
            assert str(broken) in model and "not a valid GGUF file" in model, model
            found = text(await call(session, "search", query="how readers see a write", mode="semantic"))
            assert "1." in found, found

    run(scenario)
