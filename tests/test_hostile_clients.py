"""Hostile and broken MCP clients against the real ``sift-mcp`` over stdio: each gets a clear answer or a clear
line on stderr, never a traceback, a hang or a giant echo, and the server keeps serving (or stops cleanly when
the client is gone)."""
from __future__ import annotations

import json
import subprocess

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import VENV_BIN, write_tree
from tests.test_disk_faults import keyword_env  # noqa: F401  (fixture: a keyword-only home)
from tests.test_mcp_server import indexed, notes_home  # noqa: F401  (fixtures: NOTES indexed once as 'notes')
from tests.test_transport import PROTOCOL, raw, searchable, shared_servers, text, tool_call  # noqa: F401

EXIT_WAIT = 120  # seconds: a safety net against a server that never exits (the defect), not a speed limit


def _line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


@pytest.mark.timeout(300)
def test_a_client_that_stops_reading_mid_call_ends_the_server_without_a_traceback(indexed, tmp_path):  # noqa: F811
    """A client that died (or closed its reading end) while a call ran: the answer's write failed with EPIPE and
    the server ended with an ExceptionGroup traceback and status 1. Now one line says why, and it exits 0."""
    log = tmp_path / "stderr.log"
    with open(log, "wb") as errors:
        proc = subprocess.Popen([str(VENV_BIN / "sift-mcp"), "--no-worker"], env=indexed["env"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
    proc.stdin.write(_line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "gone", "version": "1"}}}))
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.stdin.write(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    proc.stdout.close()  # the client's end of the server's stdout: the answers have nowhere to go
    proc.stdin.write(tool_call(7, '{"query":"contract","mode":"keyword"}') + b"\n")
    proc.stdin.flush()
    try:
        assert proc.wait(timeout=EXIT_WAIT) == 0
    finally:
        proc.kill()
    said = log.read_text()
    assert "the client closed its end of stdout" in said, said
    assert "Traceback" not in said and "Exception ignored" not in said, said


def test_what_a_client_sent_is_not_echoed_whole_in_an_error(raw):  # noqa: F811
    """A megabyte method name came back whole as 'Method not found' data, a megabyte resource uri twice in
    'Unknown resource', a megabyte tool name in 'Unknown tool', and a prompt (Sift has none) with error code 0
    and a traceback on stderr: the model's context (or the client's log) filled with it. Each error now says what
    it is and how long the text was."""
    long = "y" * 1_000_000
    for method, params in ((long, {}), ("resources/read", {"uri": f"sift://notes/{long}"}),
                           ("prompts/get", {"name": long})):
        count = len(raw.lines)
        answer = raw.request(method, params)
        assert answer["error"]["code"] in (-32601, -32602), answer
        assert len(raw.lines[count]) < 5_000, f"{method[:20]}: the answer is {len(raw.lines[count]):,} bytes"
        assert "1,000,0" in answer["error"]["message"] + str(answer["error"].get("data")), answer  # how long
    assert "this server offers no prompts; its tools are search, read_file" in answer["error"]["message"]
    count = len(raw.lines)
    result = raw.call(long)
    assert result["isError"] and len(raw.lines[count]) < 5_000, f"the answer is {len(raw.lines[count]):,} bytes"
    assert text(result).startswith("Unknown tool: 'yyyy") and "… (1,000,000 characters); this server's tools are" \
        in text(result), text(result)[:300]
    searchable(raw)


@pytest.mark.timeout(300)
def test_resources_of_a_damaged_index_say_what_is_wrong_and_leave_it_as_it_is(immediate, keyword_env, tmp_path):
    """resources/list, resources/read and completion/complete on a truncated index.db: error code 0 with SQLite's
    bare 'database disk image is malformed' (and a traceback on stderr). Now what the tools say: the index is
    damaged, and how to restore or rebuild it; the file is untouched and the server serves the next call."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import ResourceTemplateReference

    from tests.test_disk_faults import built_index, damage, digest
    root = write_tree(tmp_path / "a", {f"n{n}.md": f"# Note {n}\n\nbison {n}\n" for n in range(30)})
    index = built_index(root)
    damage(index, "truncated")
    before = digest(index)
    params = StdioServerParameters(command=str(VENV_BIN / "sift-mcp"), args=["--no-worker"], env=keyword_env)

    async def scenario():
        refused = []
        with open(tmp_path / "server-stderr.log", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    for ask in (session.list_resources(), session.read_resource("sift://a/n1.md"),
                                session.complete(ResourceTemplateReference(type="ref/resource",
                                                                           uri="sift://{+path}{?page,start_line}"),
                                                 {"name": "path", "value": "a/n"})):
                        with pytest.raises(MCPError) as caught:
                            await ask
                        refused.append(caught.value)
                    await session.send_ping()  # still serving
        return refused

    for error in anyio.run(scenario):
        assert error.error.code != 0 and f"the index at {index} is damaged (" in error.error.message, error.error
        assert "ingest enqueue FOLDER" in error.error.message
    said = (tmp_path / "server-stderr.log").read_text()
    assert "Traceback" not in said, said
    assert digest(index) == before, "nothing wrote over the damaged file"


def test_json_nested_too_deeply_or_with_a_huge_number_is_told_so(raw):  # noqa: F811
    """Both were 'the line is not JSON (…)' with Python's own words: 'maximum recursion depth exceeded', or '… use
    sys.set_int_max_str_digits() to increase the limit', a function of the server's that no client can call."""
    deep = "[" * 100_000 + "]" * 100_000
    for line, said in ((tool_call(5, '{"query":%s}' % deep), "nests arrays or objects too deeply to be read"),
                       (tool_call(6, '{"query":"x","limit":%s}' % ("9" * 5000)), "holds a number of more than 4,300 "
                                                                                 "digits, which is not read")):
        answer = raw.ask(line)
        assert answer["id"] is None and answer["error"]["code"] == -32700, answer
        assert answer["error"]["message"].startswith(f"Parse error: the line {said}"), answer
        assert "sys." not in answer["error"]["message"] and "recursion" not in answer["error"]["message"]
        searchable(raw)

