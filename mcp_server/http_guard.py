"""The checks every HTTP request passes before it reaches MCP, and the one log line it leaves.

In this order, so that each refusal tells a caller no more than it may know:

1. ``Host`` and ``Origin`` against the allow-lists → 403. A DNS-rebinding page reaches the server under
   its own name; a page of another site sends its own Origin. A request without Origin (every non-browser
   client) passes this step.
2. ``Authorization: Bearer <token>``, compared in constant time → 401 with ``WWW-Authenticate``; the body
   is the same whatever the index holds.
3. The body's size, declared and actual → 413.
4. The request's rate, per MCP session (or per client address for requests without one: opening a
   session, and the 2026-07-28 protocol, which has no sessions): a token bucket of ``burst`` requests
   refilled at ``rate`` per second → 429 with ``Retry-After``.
5. A new session while ``max_sessions`` are open → 429. The mcp session manager counts the sessions and
   refuses with 503; that answer is replaced here by one that says what to do.

No CORS headers are ever added, so a page of another origin cannot read an answer even if it guessed
the token. Every refusal is a JSON-RPC error body, which the mcp client shows as the call's error.
"""
from __future__ import annotations

import hmac
import json
import math
import sys
import time
from typing import NamedTuple
from urllib.parse import urlsplit

from mcp_server import transport

SESSION_HEADER = b"mcp-session-id"
ARGUMENTS_LOGGED = 500  # characters of a call's arguments in a --log-queries line


class Refusal(NamedTuple):
    status: int
    message: str  # for the caller: what to do
    headers: tuple = ()
    note: str = ""  # for the log line


class Guard:
    """ASGI middleware in front of the mcp package's Streamable HTTP app."""

    def __init__(self, app, config, token: str, log=None, session_open=None):
        self.app = app
        self.session_open = session_open or (lambda session: True)  # is this session id open? (mcp's 404 if not)
        self.config = config
        self.token = token.encode()
        self.hosts = _host_rules(config.allowed_hosts)
        self.origins = _origin_rules(config.allowed_origins)
        self.buckets = Buckets(config.rate, config.burst)
        self.log = log or _stderr

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":  # lifespan: straight through
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        line = Line(scope)
        try:
            await self._serve(scope, receive, send, line)
        finally:
            line.ms = (time.perf_counter() - started) * 1000
            self.log(line.text(self.config.log_queries))

    async def _serve(self, scope, receive, send, line: Line) -> None:
        headers = _headers(scope)
        refusal = self._check_headers(headers)
        if refusal is None and _declared_size(headers) > self.config.max_body:
            refusal = self._too_large()
        body = b""
        if refusal is None and scope["method"] == "POST":
            body, refusal = await self._read_body(receive)
            line.read_call(body)
        if refusal is None:
            refusal = self._check_rate(headers.get(SESSION_HEADER), scope)
        if refusal is not None:
            line.status, line.note = refusal.status, refusal.note
            await _answer(send, refusal.status, refusal.message, refusal.headers)
            return
        session = headers.get(SESSION_HEADER)
        if body and (session is None or self.session_open(session.decode("latin-1"))):  # else mcp's 404
            bad, answer = transport.invalid_text(body)
            if bad:  # answered as over stdio: pydantic's error named neither the argument nor the fix
                line.status, line.note = (200, "invalid text") if answer is not None else (202, "invalid text")
                await _reply(send, transport.encode(answer) if answer is not None else None)
                return
        new_session = scope["method"] == "POST" and session is None
        await self.app(scope, _replay(body, receive), self._watch(send, line, new_session))

    # --- the checks, each returning a Refusal or None

    def _check_headers(self, headers: dict) -> Refusal | None:
        host = headers.get(b"host", b"").decode("latin-1")
        if not _host_allowed(host, self.hosts):
            return Refusal(403, f"Host {host!r} is not allowed: add it to SIFT_HTTP_ALLOWED_HOSTS on the server",
                           note="bad host")
        origin = headers.get(b"origin")
        if origin is not None and not _origin_allowed(origin.decode("latin-1"), self.origins):
            return Refusal(403, f"Origin {origin.decode('latin-1')!r} is not allowed: add it to "
                           "SIFT_HTTP_ALLOWED_ORIGINS on the server", note="bad origin")
        given = headers.get(b"authorization", b"")
        scheme, _, credential = given.partition(b" ")
        if not given or scheme.lower() != b"bearer":
            return Refusal(401, "unauthorized: send the header Authorization: Bearer <token>",
                           ((b"www-authenticate", b'Bearer realm="sift"'),), "no token")
        if not hmac.compare_digest(credential.strip(), self.token):
            return Refusal(401, "unauthorized: the token is not valid",
                           ((b"www-authenticate", b'Bearer realm="sift", error="invalid_token"'),), "wrong token")
        return None

    def _check_rate(self, session: bytes | None, scope) -> Refusal | None:
        key = session or ("new", (scope.get("client") or ("?",))[0])
        wait = self.buckets.take(key, time.monotonic())
        if wait <= 0:
            return None
        c = self.config
        return Refusal(429, f"too many requests: at most {c.burst} at once and {c.rate:g} per second per "
                       f"session (SIFT_HTTP_BURST, SIFT_HTTP_RATE); retry in {wait:.1f} s",
                       ((b"retry-after", str(max(1, math.ceil(wait))).encode()),), "rate limited")

    def _too_large(self) -> Refusal:
        return Refusal(413, f"request body too large: at most {self.config.max_body:,} bytes (SIFT_HTTP_MAX_BODY)",
                       note="body too large")

    async def _read_body(self, receive) -> tuple[bytes, Refusal | None]:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b"", Refusal(499, "", note="client went away")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.config.max_body:
                return b"", self._too_large()
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks), None

    def _watch(self, send, line: Line, new_session: bool):
        """Note the status (and a tool's isError) for the log; turn mcp's 503 'too many sessions' into 429; cut what
        a JSON error repeats of the request as over stdio (transport.bounded_body: a 1 MB method name came back
        whole as 'Method not found' data): a JSON answer's start is held until its one body is known."""
        replaced = False
        held = None  # a JSON answer's http.response.start, sent with its body

        async def watched(message):
            nonlocal held
            if message["type"] == "http.response.start" and _is_json(message):
                held = message
                return
            if held is not None and message["type"] == "http.response.body":
                start, held = held, None
                body = message.get("body", b"")
                if not message.get("more_body", False) and (cut := transport.bounded_body(body)) is not body:
                    start = {**start, "headers": [(k, str(len(cut)).encode() if k.lower() == b"content-length"
                                                   else v) for k, v in start["headers"]]}
                    message = {**message, "body": cut}
                await forward(start)
            await forward(message)

        async def forward(message):
            nonlocal replaced
            if replaced:
                return
            if message["type"] == "http.response.start":
                line.status = message["status"]
                if new_session and message["status"] == 503:
                    replaced = True
                    line.status, line.note = 429, "too many sessions"
                    c = self.config
                    await _answer(send, 429, f"too many open sessions: at most {c.max_sessions} "
                                  f"(SIFT_HTTP_MAX_SESSIONS); close another client, or retry once idle sessions "
                                  f"expire (after {c.idle_minutes:g} min without requests)", ())
                    return
            elif message["type"] == "http.response.body" and line.tool and b'"isError":true' in message.get("body", b""):
                line.note = "tool error"
            await send(message)
        return watched


class Buckets:
    """A token bucket per key: ``burst`` requests at once, refilled at ``rate`` per second."""

    def __init__(self, rate: float, burst: int):
        self.rate, self.burst = rate, burst
        self.state: dict = {}  # key → (tokens left, when counted)

    def take(self, key, now: float) -> float:
        """0 when a request may go now; otherwise the seconds until it may."""
        tokens, last = self.state.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens >= 1:
            self.state[key] = (tokens - 1, now)
            self._prune(now)
            return 0.0
        self.state[key] = (tokens, now)
        return (1 - tokens) / self.rate

    def _prune(self, now: float) -> None:
        """Forget buckets that have filled up again (ended or idle sessions), so the table stays small."""
        if len(self.state) > 1024:
            full = self.burst / self.rate
            self.state = {k: v for k, v in self.state.items() if now - v[1] < full}


class Line:
    """One request's log line: client, HTTP method, JSON-RPC method, tool, status, milliseconds."""

    def __init__(self, scope):
        self.client = (scope.get("client") or ("-",))[0]
        self.http = scope["method"]
        self.method = self.tool = self.arguments = None
        self.status, self.note, self.ms = None, None, 0.0

    def read_call(self, body: bytes) -> None:
        if not body:
            return
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):  # nested too deeply: it was a 500 and a traceback, not mcp's -32700
            self.method = "(not JSON)"
            return
        if isinstance(message, list):  # a batch: name its first message
            message = message[0] if message else {}
        if not isinstance(message, dict):
            return
        self.method = str(message.get("method") or ("(response)" if "result" in message else "-"))[:64]
        params = message.get("params")
        if self.method == "tools/call" and isinstance(params, dict):
            self.tool = str(params.get("name"))[:64]
            self.arguments = params.get("arguments")

    def text(self, with_arguments: bool) -> str:
        parts = ["sift-mcp http:", self.client, self.http, self.method or "-", self.tool or "-",
                 str(self.status or "-"), f"{self.ms:.0f} ms"]
        if self.note:
            parts.append(f"({self.note})")
        if with_arguments and self.arguments is not None:
            parts.append(json.dumps(self.arguments, ensure_ascii=False)[:ARGUMENTS_LOGGED])
        return " ".join(parts)


# --- helpers ------------------------------------------------------------------------------

def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _headers(scope) -> dict[bytes, bytes]:
    """Header names are lowercase in ASGI; a repeated header keeps its first value."""
    found: dict[bytes, bytes] = {}
    for name, value in scope.get("headers", ()):
        found.setdefault(name, value)
    return found


def _declared_size(headers: dict) -> int:
    try:
        return int(headers.get(b"content-length", b"0"))
    except ValueError:
        return 0


async def _answer(send, status: int, message: str, extra) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
    if status == 499:  # nobody to answer
        return
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _is_json(start) -> bool:
    return any(k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in start.get("headers", ()))


async def _reply(send, body: bytes | None) -> None:
    """A JSON-RPC answer made here (200), or none for a notification (202)."""
    if body is None:
        await send({"type": "http.response.start", "status": 202, "headers": [(b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _replay(body: bytes, receive):
    """The body already read, then whatever else the connection says (a disconnect)."""
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()
    return replay


def _split_host(value: str) -> tuple[str, str | None]:
    """'Name:8765' → ('name', '8765'); '[::1]:8765' → ('[::1]', '8765'); 'name' → ('name', None)."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value.partition("]")
        return name + "]", rest[1:] if rest.startswith(":") else None
    name, sep, port = value.rpartition(":")
    return (name, port) if sep and port.isdigit() else (value, None)


def _host_rules(entries) -> set[tuple[str, str | None]]:
    return {_split_host(entry) for entry in entries}


def _host_allowed(host: str, rules) -> bool:
    name, port = _split_host(host)
    return bool(name) and ((name, None) in rules or (name, port) in rules)


def _origin_rules(entries) -> set[tuple[str, str, str | None]]:
    rules = set()
    for entry in entries:
        scheme, _, rest = entry.strip().lower().partition("://")
        rules.add((scheme, *_split_host(rest)))
    return rules


def _origin_allowed(origin: str, rules) -> bool:
    parts = urlsplit(origin.strip().lower())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        return False  # 'null', file://, anything odd
    name, port = _split_host(parts.netloc)
    return (parts.scheme, name, None) in rules or (parts.scheme, name, port) in rules
