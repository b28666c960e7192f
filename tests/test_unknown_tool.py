"""A call to a tool the server does not have, through the real sift-mcp over stdio.

The answer was the mcp package's bare 'Unknown tool: read', which leaves a model to guess the name (or to
ask for the tool list again, if its client lets it). It now names this server's tools and the one meant: a
shortened name ('read'), a client's prefix or suffix ('sift_search', 'search_notes'), a misspelling.
"""
from __future__ import annotations

from tests.test_mcp_server import call, run, text

TOOLS = "this server's tools are search, read_file, list_files, similar, stats, refresh"


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
    assert not after.is_error and "nothing is indexed yet" in text(after), "the server answers the next call"


def test_a_file_readers_offset_and_limit_are_told_as_lines(servers, sift_env):
    """Claude Code's own Read tool takes offset and limit in lines: a model passing them to read_file was told
    '(did you mean start_offset?)', which counts bytes into one line, and went on to read the wrong place."""
    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "read_file", file_path="notes/x.md", offset=3, limit=5), \
                await call(s, "read_file", path="notes/x.md", line=3)
    reader, line = run(scenario)
    said = text(reader)
    assert reader.is_error and "'offset' is not an argument of read_file (did you mean start_line?)" in said, said
    assert "'limit' is not an argument of read_file (did you mean end_line, the last line to show?)" in said, said
    assert "'file_path' is not an argument of read_file (did you mean path?)" in said, said
    assert "start_offset?" not in said
    assert line.is_error and "(did you mean start_line?)" in text(line), text(line)


def test_what_a_tool_takes_is_said_once_for_several_unknown_arguments(servers, sift_env):
    """Three unknown arguments repeated 'it takes path, start_line, end_line, page, end_page, start_offset' three times."""
    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "read_file", file_path="notes/x.md", offset=3, limit=5)
    said = text(run(scenario))
    assert said.count("it takes path, start_line, end_line, page, end_page, start_offset") == 1, said
    assert said.count("is not an argument of read_file") == 3, said
