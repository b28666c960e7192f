"""The indexed files as MCP resources (mcp_server/resources.py), through the real stdio client and sift-mcp:
what a person attaches by hand (Claude Code's @ menu) rather than what the model calls a tool for."""
from __future__ import annotations

import os
from urllib.parse import quote

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceTemplateReference

from mcp_server.resources import TEMPLATE
from tests.conftest import ingest, write_tree
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
