"""A request pipelined behind another on one connection (HTTP/1.1 lets a client send its next request before the
answer to the last) is answered however long it takes: ``http_connections`` closes only a connection that has not
sent its whole request. Real uvicorn with Sift's protocol on a loopback port, and an app whose '/slow' answers after
longer than the deadline."""
from __future__ import annotations

import asyncio
import socket
import threading

import pytest

pytestmark = pytest.mark.timeout(60)
DEADLINE = 0.5  # seconds to send a request; '/slow' answers after three times that


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(DEADLINE * 3)  # a search behind others, say: its request was read whole
    body = scope["path"].encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def port():
    import uvicorn

    from mcp_server.http_connections import protocol
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", http=protocol(DEADLINE)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
    yield listener.getsockname()[1]
    server.should_exit = True
    thread.join(10)
    listener.close()


def test_a_pipelined_request_is_answered_after_the_deadline(port):
    """The second request's head and body came with the first: when the first was answered, uvicorn began the
    second at once, and the deadline set then took it for one not yet sent, closing the connection mid-answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:  # a hang guard, not a speed limit
        sock.sendall(b"GET /fast HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        got = b""
        while got.count(b"HTTP/1.1 200") < 2 or not got.endswith(b"/slow"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            got += chunk
    assert got.count(b"HTTP/1.1 200") == 2 and got.endswith(b"/slow"), got


def test_a_silent_connection_is_still_closed(port):
    """The deadline still closes a connection that sends nothing after its answer (the case it is for)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /fast HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\n")  # the second's head, half
        got = b""
        while chunk := sock.recv(4096):
            got += chunk
    assert got.count(b"HTTP/1.1 200") == 1 and got.endswith(b"/fast"), got
