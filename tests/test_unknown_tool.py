"""A call to a tool the server does not have, through the real sift-mcp over stdio.

The answer was the mcp package's bare 'Unknown tool: read', which leaves a model to guess the name (or to
ask for the tool list again, if its client lets it). It now names this server's tools and the one meant: a
shortened name ('read'), a client's prefix or suffix ('sift_search', 'search_notes'), a misspelling.
"""
from __future__ import annotations

import pytest

from tests.test_mcp_server import Servers, call, run, text

TOOLS = "this server's tools are search, read_file, list_files, similar, stats, refresh"


@pytest.fixture
def servers(tmp_path):
    made = Servers(tmp_path)
    yield made
    made.check_stdout()


def test_an_unknown_tool_is_told_the_tools_there_are_and_the_one_meant(servers, sift_env):
    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            wrong = {name: await call(s, name, **arguments) for name, arguments in (
                ("read", {"path": "notes/x.md"}), ("sift_search", {"query": "x"}), ("search_notes", {"query": "x"}),
                ("similiar", {}), ("nosuch", {}))}
            return wrong, await call(s, "stats")
    wrong, after = run(scenario)
    meant = {"read": "read_file", "sift_search": "search", "search_notes": "search", "similiar": "similar"}
    for name, answer in wrong.items():
        assert answer.is_error and TOOLS in text(answer), text(answer)
        assert text(answer).startswith(f"Unknown tool: {name!r}"), text(answer)
        if name in meant:
            assert f"(did you mean {meant[name]}?)" in text(answer), text(answer)
    assert "did you mean" not in text(wrong["nosuch"])
    assert after.is_error and "nothing is indexed yet" in text(after), "the server answers the next call"
