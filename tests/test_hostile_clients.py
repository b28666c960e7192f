"""Hostile and broken MCP clients against the real ``sift-mcp`` over stdio: each gets a clear answer or a clear
line on stderr, never a traceback, a hang or a giant echo, and the server keeps serving (or stops cleanly when
the client is gone)."""
from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import VENV_BIN
from tests.test_mcp_server import indexed, notes_home  # noqa: F401  (fixtures: NOTES indexed once as 'notes')
from tests.test_transport import PROTOCOL, tool_call

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
