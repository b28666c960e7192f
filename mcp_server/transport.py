"""Sift's own stdio transport: every line a client sends gets a JSON-RPC answer.

Why not ``mcp.server.stdio.stdio_server``: it validates each line with
pydantic's JSON parser (``jsonrpc_message_adapter.validate_json``) and, when
that fails, passes the exception down the read stream, where the dispatcher
only logs it at debug level (mcp/shared/jsonrpc_dispatcher.py, ``_dispatch``).
So ``{not json}``, ``[]`` or a request with an id of the wrong type got no
answer, and neither did a ``tools/call`` holding a lone surrogate escape
(``"\\ud800"``, what clients write for a cut emoji): the parser refuses it and
the client waits forever.

Here each line is read as bytes and parsed with Python's ``json`` (which keeps
lone surrogates as text, so we can say where they are), then:

- not JSON                                   → -32700, id null
- JSON but not one JSON-RPC message (a batch,
  a bad envelope, an id of the wrong type)    → -32600, with the id when it is valid
- text that is not valid Unicode in params   → tools/call: a tool error naming the argument;
                                                other requests: -32602 naming the field
- a valid message                            → the MCPServer's low-level server, over memory streams

An invalid notification (a message with a method and no id) gets no answer, as
JSON-RPC says, but one line on stderr. The protocol types and the server loop
are mcp's own; only reading and writing the lines is ours. Like mcp's stdio
transport, fd 0 reads /dev/null while serving (children and libraries never
see the protocol) and fd 1 points at stderr; the protocol goes to ``wire``,
the private copy of the real stdout that server.py kept.
"""
from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

MAX_LINE = 64 * 1024 * 1024  # bytes in one message: a longer line is refused, not held in memory whole
IN_LOOP = 64 * 1024  # bytes: a longer line is parsed in a worker thread
ERROR_CHARS = 1000  # of an error's message or data: what a client sent (a method, a resource's uri) is echoed no further
SURROGATE = re.compile("[\ud800-\udfff]")


def run(server, wire: int | None) -> None:
    """Serve ``server`` (an MCPServer) over stdin and ``wire`` (stdout's fd) until stdin closes."""
    anyio.run(serve, server, wire)


async def serve(server, wire: int | None) -> None:
    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async serves, too
    stdin = _claim_stdin()
    file = _Wire(os.fdopen(wire if wire is not None else os.dup(1), "wb", closefd=False))
    read_send, read_receive = create_context_streams[SessionMessage | Exception](0)
    write_send, write_receive = create_context_streams[SessionMessage](0)
    reading = anyio.CancelScope()
    async with anyio.create_task_group() as tg:
        out = _Out(file, tg.cancel_scope)
        tg.start_soon(_read, stdin, read_send, out, reading)
        tg.start_soon(_write, write_receive, out)  # ends when the server closes its write stream
        await lowlevel.run(read_receive, write_send, lowlevel.create_initialization_options())
        reading.cancel()  # the server is done (stdin closed): stop reading, let the writer finish


def _claim_stdin():
    """A private copy of fd 0 for the protocol; fd 0 itself then reads /dev/null."""
    try:
        private = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    except OSError:
        private = 0
    return os.fdopen(private, "rb", buffering=1 << 16, closefd=False)


# --- reading -------------------------------------------------------------------------

class _Lines:
    """stdin read in a thread of its own: in anyio's default pool, which the tools' calls share, reading the line
    of a ping sent behind 150 searches waited until all but some 40 of them had finished (searches_at_once)."""

    def __init__(self, stdin):
        self.stdin, self.thread = stdin, anyio.CapacityLimiter(1)

    async def readline(self, size: int) -> bytes:
        return await anyio.to_thread.run_sync(self.stdin.readline, size, abandon_on_cancel=True,
                                              limiter=self.thread)


async def _read(stdin, read_send, out, scope) -> None:
    stdin = _Lines(stdin)
    with scope:
        async with read_send:
            await _read_lines(stdin, read_send, out)


async def _read_lines(stdin, read_send, out) -> None:
    while True:
        line = await stdin.readline(MAX_LINE + 1)
        if not line:
            return  # EOF: the client closed stdin
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            await _skip_rest(stdin)
            await _answer(out, _error(None, types.INVALID_REQUEST,
                          f"message longer than {MAX_LINE // (1024 * 1024)} MiB: refused"))
            continue
        if len(line) > IN_LOOP:  # parse a long line beside the event loop, which keeps sending answers
            message, answer = await anyio.to_thread.run_sync(check, line, limiter=stdin.thread)
        else:
            message, answer = check(line)
        if answer is not None:
            await _answer(out, answer)
        elif message is not None:
            await read_send.send(SessionMessage(message))


async def _skip_rest(stdin) -> None:
    while True:
        chunk = await stdin.readline(MAX_LINE)
        if not chunk or chunk.endswith(b"\n"):
            return


def check(line: bytes) -> tuple[Any, Any]:
    """(a valid JSON-RPC message, None), or (None, the answer to send), or (None, None): nothing to send."""
    if not line.strip():
        return None, None  # a blank line between messages: nothing was asked
    text, raw_bytes = _decode(line)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        why = _unreadable(exc)
        _log(f"answered -32700 to a line that {why}")
        return None, _error(None, types.PARSE_ERROR, f"Parse error: the line {why}")
    if not isinstance(data, dict):
        what = ("an empty batch" if data == [] else "a batch" if isinstance(data, list)
                else f"a JSON {type(data).__name__}")
        _log(f"answered -32600 to {what}")
        return None, _error(None, types.INVALID_REQUEST, f"Invalid Request: got {what}; send one JSON-RPC object "
                            "per line (MCP has no batches)")
    notification = _unanswered(data)
    rid = _valid_id(data.get("id"))
    bad = _invalid_text(data, raw_bytes)
    if bad is not None:
        return None, _bad_text(data, rid, notification, *bad)
    try:
        message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError:
        return None, _invalid(data, rid, notification, _explain(data))
    if "id" in data and not hasattr(message, "id"):  # an id of the wrong type read as a notification
        return None, _invalid(data, None, False, "the id must be a string or an integer")
    return message, None


def invalid_text(body: bytes) -> tuple[bool, Any]:
    """(True, the answer stdio gives: None for a notification) when one JSON message (an HTTP request's body)
    holds text that is not valid Unicode; else (False, None). Over HTTP the mcp package read such a body with
    pydantic, whose error ('Invalid JSON: … lone leading surrogate …' or a bare parse error) did not say which
    argument was wrong."""
    text, raw_bytes = _decode(body)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return False, None
    bad = _invalid_text(data, raw_bytes) if isinstance(data, dict) else None
    if bad is None:
        return False, None
    return True, _bad_text(data, _valid_id(data.get("id")), _unanswered(data), *bad)


def _unanswered(data: dict) -> bool:
    """JSON-RPC answers neither a notification nor a response (a client's reply to a server request)."""
    return ("method" in data and "id" not in data) or ("method" not in data and ("result" in data or "error" in data))


def _unreadable(exc: Exception) -> str:
    """Why a line could not be read as JSON. JSON nested too deeply, or a number too long, was told 'not JSON
    (maximum recursion depth exceeded …)', or '(… use sys.set_int_max_str_digits() to increase the limit)', which
    sent a client to a Python function of the server's."""
    if isinstance(exc, RecursionError):
        return "nests arrays or objects too deeply to be read: send at most a few hundred levels"
    if "integer string conversion" in str(exc):
        digits = getattr(sys, "get_int_max_str_digits", lambda: 4300)()  # (Python 3.10.7 and later)
        return f"holds a number of more than {digits:,} digits, which is not read"
    return f"is not JSON ({_short(exc)})"


def _decode(line: bytes) -> tuple[str, bool]:
    """The line as text; bytes that are not UTF-8 become lone surrogates (reported, never passed on)."""
    try:
        return line.decode("utf-8"), False
    except UnicodeDecodeError:
        return line.decode("utf-8", "surrogateescape"), True


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _valid_id(rid: Any) -> int | str | None:
    if isinstance(rid, bool) or not isinstance(rid, (int, str)) or (isinstance(rid, str) and SURROGATE.search(rid)):
        return None
    return rid


def _invalid(data: dict, rid, notification: bool, why: str):
    if notification:
        _log(f"ignored an invalid notification {_shown(data.get('method'))}: {why}")
        return None
    _log(f"answered -32600 to an invalid message (id {_shown(rid)}): {why}")
    return _error(rid, types.INVALID_REQUEST, f"Invalid Request: {why}")


def _explain(data: dict) -> str:
    """What is wrong with the envelope, judged as the kind of message it looks like; pydantic's links left out."""
    kind = (types.JSONRPCRequest if "method" in data and "id" in data else types.JSONRPCNotification
            if "method" in data else types.JSONRPCResponse if "result" in data else types.JSONRPCError
            if "error" in data else None)
    if kind is None:
        return "not a JSON-RPC message: it has no method (nor a result or error answering a request)"
    try:
        kind.model_validate(data, by_name=False)
        return "not a valid JSON-RPC message"
    except ValidationError as exc:
        parts = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)]
        return "; ".join(parts[:3])


# --- text that is not valid Unicode ----------------------------------------------------

def _invalid_text(value: Any, raw_bytes: bool, path: tuple = ()) -> tuple[tuple, str] | None:
    """The first place (a path of keys and indexes) holding a lone surrogate, and a description of it."""
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            found = SURROGATE.search(item)
            if found:
                return where, _what(found.group(), raw_bytes)
        elif isinstance(item, dict):
            for key, inner in reversed(list(item.items())):
                found = SURROGATE.search(key)
                if found:
                    return where + (key,), _what(found.group(), raw_bytes)
                stack.append((where + (key,), inner))
        elif isinstance(item, list):
            stack.extend((where + (i,), inner) for i, inner in reversed(list(enumerate(item))))
    return None


def _what(char: str, raw_bytes: bool) -> str:
    if raw_bytes and "\udc80" <= char <= "\udcff":
        return f"bytes that are not UTF-8, such as \\x{ord(char) - 0xDC00:02x}"
    return f"a lone surrogate \\u{ord(char):04x}"


def _bad_text(data: dict, rid, notification: bool, where: tuple, what: str):
    """The answer to a message holding invalid text: a tool error for a tool's argument, else an error."""
    fix = "send valid UTF-16/UTF-8"
    if where[:1] != ("params",) or rid is None:
        return _invalid(data, rid, notification, f"{_place(where)} holds invalid text ({what}): {fix}")
    if data.get("method") == "tools/call" and where[1:2] == ("arguments",) and len(where) > 2:
        message = f"argument {_shown(where[2])} holds invalid text ({what}): {fix}"
        _log(f"answered a tool error to request {_shown(rid)}: {message}")
        result = types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)
        return types.JSONRPCResponse(jsonrpc="2.0", id=rid, result=result.model_dump(by_alias=True, mode="json",
                                                                                     exclude_none=True))
    message = f"{_place(where[1:])} holds invalid text ({what}): {fix}"
    _log(f"answered -32602 to request {_shown(rid)}: {message}")
    return _error(rid, types.INVALID_PARAMS, f"Invalid params: {message}")


def _place(where: tuple) -> str:
    """('params', 'arguments', 'query') → "params.arguments.query", escaping what cannot be shown."""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{_shown(p)[1:-1]}" for p in where).lstrip(".")
    return repr(text) if text else "the message"


def _shown(value: Any) -> str:
    """repr() with any lone surrogate written as an escape, so the text can be sent and logged."""
    return repr(value).encode("utf-8", "backslashreplace").decode("utf-8")


# --- writing ---------------------------------------------------------------------------

def _error(rid, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message))


class _Wire:
    """The protocol's stdout, written in a thread of its own (as _Lines reads): not behind the tools' calls."""

    def __init__(self, file):
        self.file, self.thread = file, anyio.CapacityLimiter(1)

    async def write(self, data: bytes) -> None:
        await anyio.to_thread.run_sync(self.file.write, data, limiter=self.thread)

    async def flush(self) -> None:
        await anyio.to_thread.run_sync(self.file.flush, limiter=self.thread)


class _Out:
    """The protocol's stdout, its lock (one line at a time), and the scope serving ends with when the client has
    gone: a client that died (or closed its reading end) mid-call made the answer's write fail with EPIPE, and the
    server ended with an ExceptionGroup traceback and status 1 (its worker stopped all the same)."""

    def __init__(self, file, scope):
        self.file, self.scope, self.lock = file, scope, anyio.Lock()


async def _answer(out, message) -> None:
    if message is not None:
        await _send(out, message)


async def _write(write_receive, out) -> None:
    async with write_receive:
        async for session_message in write_receive:
            await _send(out, session_message.message)


async def _send(out, message) -> None:
    line = encode(message)
    async with out.lock:
        if out.scope.cancel_called:
            return  # the client is gone: nothing more is written
        try:
            await out.file.write(line)
            await out.file.flush()
        except (BrokenPipeError, ConnectionResetError):
            _log("the client closed its end of stdout (it exited or crashed) before an answer was written: "
                 "stopping, as when it closes stdin")
            out.scope.cancel()


def encode(message) -> bytes:
    """One JSON line. Text that cannot be UTF-8 (a file name with undecodable bytes, say) is sent as U+FFFD."""
    message = _bounded(message)
    try:
        return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
    except (ValueError, UnicodeError):
        data = message.model_dump(by_alias=True, exclude_unset=True, mode="python")
        text = SURROGATE.sub("\ufffd", json.dumps(data, ensure_ascii=False, default=str))
        _log("replaced text that is not valid Unicode in an answer with U+FFFD")
        return text.encode("utf-8") + b"\n"


def _bounded(message):
    """An error with its message and data cut to ERROR_CHARS: mcp's errors repeat what the client sent (a 10 MB
    method name came back whole as 'Method not found' data, a 10 MB resource uri twice in 'Unknown resource').
    Over HTTP too (http_guard: ``bounded_body``)."""
    if not isinstance(message, types.JSONRPCError):
        return message
    error = message.error
    data = {key: _cut(value) for key, value in error.data.items()} if isinstance(error.data, dict) else \
        _cut(error.data)
    if _cut(error.message) is error.message and data == error.data:
        return message
    return message.model_copy(update={"error": error.model_copy(update={"message": _cut(error.message),
                                                                         "data": data})})


def bounded_body(body: bytes) -> bytes:
    """An HTTP answer's JSON body, an error in it cut as ``_bounded`` cuts it over stdio; else ``body`` as it is."""
    if b'"error"' not in body:
        return body
    try:
        message = types.jsonrpc_message_adapter.validate_json(body)
    except ValidationError:
        return body
    if not isinstance(message, types.JSONRPCError) or _bounded(message) is message:
        return body
    return encode(message).rstrip(b"\n")


def _cut(value):
    if isinstance(value, str) and len(value) > ERROR_CHARS:
        return f"{value[:ERROR_CHARS]}… (cut: {len(value):,} characters)"
    return value


def _log(line: str) -> None:
    print(f"sift-mcp: {line}", file=sys.stderr, flush=True)


def _short(exc: Exception) -> str:
    return str(exc)[:200]
