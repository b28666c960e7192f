"""The indexed files as MCP resources (mcp_server/resources.py), through the real stdio client and sift-mcp:
what a person attaches by hand (Claude Code's @ menu) rather than what the model calls a tool for."""
from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, ResourceTemplateReference

from mcp_server.resources import PAGE, TEMPLATE
from tests.conftest import as_older_index, ingest, write_tree
from tests.test_mcp_server import call, run, text

FILES = {
    "tech/cooking.md": "# Cooking pasta\n\nBoil water, add salt, cook the spaghetti for nine minutes.\n",
    "工作/日 报.md": "# 日报\n\n付款方式改为分期。\n",
    "tech/long.md": "".join(f"line {n} of the long file\n" for n in range(1, 31)),
    "a/todo.md": "# Todo A\n\nBuy stamps.\n",
    "b/todo.md": "# Todo B\n\nCall the plumber.\n",
    "x/te/test.md": "# Test\n",
    "x/tea.md": "# Tea\n",
    "bin/blob.md": "",  # binary bytes below: failed, so not listed
}
AGES = ["tech/cooking.md", "工作/日 报.md", "tech/long.md", "a/todo.md", "b/todo.md", "x/te/test.md", "x/tea.md"]


@pytest.fixture
def home(immediate, sift_env, tmp_path) -> dict:
    root = write_tree(tmp_path / "notes", FILES)
    (root / "bin/blob.md").write_bytes(b"\x00\x01\x02 not text" * 10)
    for age, name in enumerate(AGES):  # cooking.md the newest, x/tea.md the oldest
        os.utime(root / name, (1_700_000_000 - age * 3600,) * 2)
    outside = write_tree(tmp_path / "outside", {"secret.txt": "TOP SECRET\n"})
    (root / "leak.txt").symlink_to(outside / "secret.txt")
    ingest(root, "notes")
    return {"env": sift_env, "root": root}


def _uri(relative: str) -> str:
    return "sift://notes/" + quote(relative)


@pytest.mark.timeout(300)
def test_recent_files_are_listed_newest_first_and_read_as_read_file_reads_them(home, servers):
    """No resources were offered: a person could not attach a note from the client's menu, only ask the model to
    find it. The indexed files are listed, newest first, and each reads as read_file shows it."""
    async def scenario():
        async with servers.session(home["env"], "--no-worker") as s:
            listed = (await s.list_resources()).resources
            templates = (await s.list_resource_templates()).resource_templates
            read = {str(r.uri): (await s.read_resource(r.uri)).contents[0] for r in listed}
            tool = {r.name: text(await call(s, "read_file", path=r.name)) for r in listed}
            return listed, templates, read, tool
    listed, templates, read, tool = run(scenario)
    assert [str(r.uri) for r in listed] == [_uri(name) for name in AGES]
    assert str(listed[1].uri) == "sift://notes/%E5%B7%A5%E4%BD%9C/%E6%97%A5%20%E6%8A%A5.md"
    assert [r.name for r in listed] == [f"notes/{name}" for name in AGES]
    assert listed[0].size == len(FILES["tech/cooking.md"]) and listed[0].description.startswith("note, modified ")
    assert [t.uri_template for t in templates] == [TEMPLATE]
    for r in listed:
        assert read[str(r.uri)].text == tool[r.name] and read[str(r.uri)].mime_type == "text/plain"
    assert "付款方式改为分期。" in read[listed[1].uri].text
    assert "     3\tline 3 of the long file" in read[_uri("tech/long.md")].text


@pytest.mark.timeout(300)
def test_a_resource_reads_on_and_refuses_what_read_file_refuses(home, servers):
    """Through the template: read on from a line, and the same refusals as read_file, each saying why."""
    async def scenario():
        async with servers.session(home["env"], "--no-worker") as s:
            later = (await s.read_resource(_uri("tech/long.md") + "?start_line=28")).contents[0].text
            refused = {}
            for uri in (_uri("leak.txt"), "sift://notes/../outside/secret.txt", "sift://todo.md",
                        _uri("tech/long.md") + "?page=x", _uri("tech/long.md") + "?page=2", _uri("nope.md"),
                        _uri("bin/blob.md")):
                with pytest.raises(MCPError) as error:
                    await s.read_resource(uri)
                refused[uri] = str(error.value)
            return later, refused
    later, refused = run(scenario)
    assert later.splitlines()[1:] == [f"{n:>6}\tline {n} of the long file" for n in (28, 29, 30)]
    assert not any("TOP SECRET" in said for said in refused.values())
    assert "outside the indexed folders" in refused[_uri("leak.txt")]
    assert "2 files are called 'todo.md': read one of sift://notes/a/todo.md, sift://notes/b/todo.md" == \
        refused["sift://todo.md"]
    assert "page must be a whole number from 1 (got 'x')" in refused[_uri("tech/long.md") + "?page=x"]
    assert "is not a PDF" in refused[_uri("tech/long.md") + "?page=2"]
    assert "no file 'notes/nope.md'" in refused[_uri("nope.md")]
    assert "binary file" in refused[_uri("bin/blob.md")]


@pytest.mark.timeout(300)
def test_a_resource_path_is_completed_from_the_index(home, servers):
    """A client that completes a template's arguments gets the collections, then the indexed files whose path
    begins with what was typed (a file of a folder named alike, x/te/test.md beside x/tea.md, included)."""
    async def scenario():
        async with servers.session(home["env"], "--no-worker") as s:
            ref = ResourceTemplateReference(type="ref/resource", uri=TEMPLATE)
            got = {}
            for typed in ("", "n", "notes/x/te", "notes/te", "notes/工", "notes/[", "nope/x"):
                got[typed] = (await s.complete(ref, {"name": "path", "value": typed})).completion.values
            return got
    got = run(scenario)
    assert got[""] == got["n"] == ["notes/"]
    assert got["notes/x/te"] == ["notes/x/te/test.md", "notes/x/tea.md"]
    assert got["notes/te"] == ["notes/tech/cooking.md", "notes/tech/long.md"]
    assert got["notes/工"] == ["notes/工作/日 报.md"]
    assert got["notes/["] == got["nope/x"] == []


@pytest.mark.timeout(300)
def test_a_fresh_install_lists_no_resources_rather_than_failing(sift_env, servers, tmp_path):
    """Before anything is indexed, resources/list and completion were errors ('nothing is indexed yet', with a
    traceback on stderr) where a client asks for them unprompted; they are empty, and reading one says why."""
    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            listed = (await s.list_resources()).resources
            ref = ResourceTemplateReference(type="ref/resource", uri=TEMPLATE)
            completed = (await s.complete(ref, {"name": "path", "value": "notes/"})).completion.values
            with pytest.raises(MCPError) as error:
                await s.read_resource("sift://notes/x.md")
            return listed, completed, str(error.value)
    listed, completed, said = run(scenario)
    assert listed == [] and completed == []
    assert said.startswith("nothing is indexed yet"), said
    assert "Traceback" not in (tmp_path / "server-stderr.log").read_text()


def _many(root: Path, count: int) -> list[str]:
    """``count`` notes, seven to a modified time (a page ends inside a run of files of one time), and the order
    resources/list names them in: newest first, then by path."""
    names = [f"area-{i % 5}/note-{i:03d}.md" for i in range(count)]
    write_tree(root, {name: f"# Note {i}\n\nText {i}.\n" for i, name in enumerate(names)})
    for i, name in enumerate(names):
        os.utime(root / name, (1_700_000_000 - (i // 7) * 60,) * 2)
    return [f"notes/{n}" for n in sorted(names, key=lambda n: (-(root / n).stat().st_mtime, n))]


@pytest.fixture
def many(immediate, sift_env, tmp_path, monkeypatch) -> dict:
    """More indexed files than two pages of resources/list hold (names only matter: no embeddings)."""
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    root = tmp_path / "notes"
    order = _many(root, 2 * PAGE + 50)
    ingest(root, "notes")
    return {"env": dict(os.environ), "root": root, "order": order}


async def _pages(session, cursor=None, most: int = 100) -> list:
    """The pages of resources/list from ``cursor`` on, as [(names, nextCursor)]."""
    pages = []
    for _ in range(most):
        got = await session.list_resources(params=PaginatedRequestParams(cursor=cursor))
        pages.append(([r.name for r in got.resources], got.next_cursor))
        cursor = got.next_cursor
        if cursor is None:
            break
    return pages


@pytest.mark.timeout(600)
def test_resources_list_pages_through_every_indexed_file_newest_first(many, servers):
    """resources/list named the 100 newest files and no more: the rest of a home could not be attached from a
    client's menu. It pages through every indexed file now, PAGE a page, each once, newest first (then by path,
    files of one time split across pages included), the last page without a nextCursor."""
    async def scenario():
        async with servers.session(many["env"], "--no-worker") as s:
            return await _pages(s)
    pages = run(scenario)
    assert [len(names) for names, _ in pages] == [PAGE, PAGE, 50]
    assert [names for p in pages for names in p[0]] == many["order"]
    assert [bool(after) for _, after in pages] == [True, True, False]


@pytest.mark.timeout(600)
def test_a_file_indexed_or_removed_between_pages_shifts_no_other(many, servers):
    """The cursor is a position (time, collection, path), not an offset: after a page, a file indexed with a
    newer time is not listed (it is not on the pages read), one with an older time is, and the file the cursor
    named being deleted loses nothing: no file is listed twice or skipped (an offset would list the first page's
    last file still there again: two files came before it, one went)."""
    root, order = many["root"], many["order"]

    async def scenario():
        async with servers.session(many["env"], "--no-worker") as s:
            first = await s.list_resources()
            write_tree(root, {"a-new.md": "# New\n", "b-new.md": "# New too\n", "z-old.md": "# Old\n"})
            os.utime(root / "z-old.md", (1_000_000_000,) * 2)  # older than every other
            (root / order[PAGE - 1].removeprefix("notes/")).unlink()  # the cursor's own file
            ingest(root, "notes")
            return [r.name for r in first.resources], await _pages(s, first.next_cursor)
    first, rest = run(scenario)
    assert first == order[:PAGE]
    later = [name for names, _ in rest for name in names]
    assert later == order[PAGE:] + ["notes/z-old.md"]
    assert "notes/a-new.md" not in first + later and "notes/b-new.md" not in first + later


@pytest.mark.timeout(300)
def test_a_cursor_this_server_did_not_give_is_refused_as_invalid_params(home, servers, tmp_path):
    """A garbage cursor is an invalid-params error saying what to do, not a traceback or an empty list (a time of
    400 digits, which no float holds, was an internal error: OverflowError)."""
    import base64

    from mcp_types import INVALID_PARAMS
    forged = base64.urlsafe_b64encode(b'["v0", 1.5, "notes", "x.md"]').decode()

    async def scenario():
        async with servers.session(home["env"], "--no-worker") as s:
            said = []
            huge = base64.urlsafe_b64encode(b'["v1", 1' + b"0" * 400 + b', "notes", "x.md"]').decode()  # no float
            for cursor in ("not a cursor!", forged, base64.urlsafe_b64encode(b"[1, 2]").decode(), huge):
                with pytest.raises(MCPError) as error:
                    await s.list_resources(params=PaginatedRequestParams(cursor=cursor))
                said.append(error.value)
            return said, (await s.list_resources()).next_cursor
    said, after = run(scenario)
    assert after is None  # one page holds this home
    for error in said:
        assert error.code == INVALID_PARAMS
        assert error.message.startswith("invalid cursor for resources/list"), error.message
        assert "list again without a cursor" in error.message
    assert "Traceback" not in (tmp_path / "server-stderr.log").read_text()


@pytest.mark.timeout(300)
def test_an_index_from_before_v16_is_paged_all_the_same(home, servers):
    """The server reads the index without migrating it: one from before schema V16 has no index of the files by
    time, and resources/list pages through it all the same (each page sorting the files, only slower)."""
    from search.index import db, schema
    path = as_older_index(home["env"], "DROP TABLE cut; DROP TABLE background; DROP INDEX files_mtime; DROP INDEX files_attached; "
                         "DROP INDEX chunks_tagged; ALTER TABLE chunks DROP COLUMN tags; "
                         "DROP INDEX chunks_dated; ALTER TABLE chunks DROP COLUMN dated;", 15)

    async def scenario():
        async with servers.session(home["env"], "--no-worker") as s:
            return await _pages(s)
    pages = run(scenario)
    assert pages == [([f"notes/{name}" for name in AGES], None)]
    older = db.connect(path, readonly=True)
    assert schema.version(older) == 15 and older.execute(
        "SELECT count(*) FROM sqlite_master WHERE name IN ('files_mtime', 'files_attached')").fetchone()[0] == 0
