"""What a careless HTTP client sends is answered over ``sift-mcp --http`` as over stdio (tests/test_transport.py,
test_hostile_clients.py): text that is not valid Unicode gets a tool error naming the argument, and an error
repeats at most 1,000 characters of what the client sent; and a connection that is slow to send its request, or
one too many, is closed. A real server subprocess on a loopback port, a
keyword-only index; plain HTTP requests, since the mcp client would not send these."""
from __future__ import annotations

import socket

import pytest

from tests.conftest import write_tree
from tests.test_disk_faults import built_index, keyword_env  # noqa: F401  (fixture: a keyword-only home)
from tests.test_http import TOKEN, open_session, post, serve, tools_list  # noqa: F401  (fixture: a server on a port)

pytestmark = pytest.mark.timeout(300)
FIX = "send valid UTF-16/UTF-8"


def call(server, session: str, rid: int, arguments: bytes):
    """A tools/call of search written by hand, so it can hold what json.dumps would not write."""
    body = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":%s}}' % (
        rid, arguments)
    return post(server, body, **{"mcp-session-id": session})


def said(answer) -> str:
    return "\n".join(block["text"] for block in answer["result"]["content"])


def test_invalid_text_a_huge_method_and_slow_connections(immediate, keyword_env, serve, tmp_path):
    """A lone surrogate (a cut emoji) in a tool's argument got pydantic's 'Invalid JSON: … lone leading
    surrogate' error, naming neither the argument nor the fix, and a 1 MB method name came back whole in 'Method
    not found'; over stdio both were answered well. And a client, even one without the token, that connected and
    sent nothing, half a request's head, or the first byte of a declared body held its connection (and the
    guard's wait for the body) for ever: a thousand such held the server's open files. Now each is closed once
    SIFT_HTTP_READ_SECONDS pass without its whole request, and the server still serves. Invalid text sent with an
    unknown session id got the tool error, not mcp's 404 'Session not found' (the guard answered before mcp)."""
    built_index(write_tree(tmp_path / "a", {"clients/qumei.md": "# Qumei\n\nThe contract renewal is due.\n"}))
    server = serve({**keyword_env, "SIFT_HTTP_READ_SECONDS": "1"})
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n".encode()
    slow = [connect(server, b""), connect(server, head),
            connect(server, head + b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")]
    session = open_session(server)

    answer = call(server, session, 7, rb'{"query":"\ud800"}')
    assert answer.status_code == 200 and answer.json()["id"] == 7 and answer.json()["result"]["isError"], answer.text
    assert f"argument 'query' holds invalid text (a lone surrogate \\ud800): {FIX}" in said(answer.json())
    answer = call(server, "f" * 32, 7, rb'{"query":"\ud800"}')  # an unknown session: mcp's 404, as for any call
    assert answer.status_code == 404 and "Session not found" in answer.text, answer.text
    answer = call(server, session, 8, b'{"query":"caf\xe9"}')  # Latin-1: not UTF-8
    assert answer.json()["result"]["isError"], answer.text
    assert "argument 'query' holds invalid text (bytes that are not UTF-8, such as \\xe9)" in said(answer.json())
    answer = post(server, rb'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"x":"\udc00"}}}',
                  **{"mcp-session-id": session})
    assert answer.json()["error"]["code"] == -32602, answer.text
    assert f"'_meta.x' holds invalid text (a lone surrogate \\udc00): {FIX}" in answer.json()["error"]["message"]

    long = "y" * 1_000_000
    answer = post(server, {"jsonrpc": "2.0", "id": 10, "method": long, "params": {}}, **{"mcp-session-id": session})
    assert answer.json()["error"]["code"] == -32601, answer.text[:300]
    assert len(answer.content) < 5_000, f"the answer is {len(answer.content):,} bytes"
    assert "1,000,000 characters" in answer.text, answer.text[:300]
    assert int(answer.headers["content-length"]) == len(answer.content)

    answer = call(server, session, 11, b'{"query":"contract","mode":"keyword"}')  # the session still serves
    assert answer.json()["result"]["structuredContent"]["results"][0]["path"] == "a/clients/qumei.md", answer.text
    assert tools_list(server, session, 12).status_code == 200
    for sock in slow:
        assert sock.recv(1) == b"", "closed by the server"
        sock.close()
    assert "(client went away)" in server.logged("(client went away)")  # the body never came: nothing answered


def test_open_connections_are_bounded(keyword_env, serve):
    """Connections past MAX_CONNECTIONS are closed as they are accepted; those before them are served."""
    from mcp_server.http_connections import MAX_CONNECTIONS
    server = serve(keyword_env)  # the default deadline (30 s) leaves the first connection open
    held = [connect(server, b"") for _ in range(MAX_CONNECTIONS + 1)]
    assert held[-1].recv(1) == b"", "the connection past the bound is closed at once"
    held[0].sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert held[0].recv(12) == b"HTTP/1.1 401", "the first, still open, is answered"
    for sock in held:
        sock.close()


def connect(server, send: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=120)  # a hang guard, not a speed limit
    if send:
        sock.sendall(send)
    return sock
