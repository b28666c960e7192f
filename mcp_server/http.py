"""``sift-mcp --http [HOST:]PORT``: the same six tools over MCP Streamable HTTP, instead of stdio.

The transport is the mcp package's own (``MCPServer.streamable_http_app``: one endpoint, ``/mcp``,
stateful sessions, each POST answered with one JSON body rather than an SSE stream, which is simpler to
put behind a reverse proxy). In front of it, ``http_guard.Guard`` checks Host, Origin, the token, the
rate and the size of every request, and logs one line for it. The mcp package's own Host/Origin check
and session limit are configured from the same settings, as a second line.

The server runs until SIGTERM or SIGINT (or SIGHUP), and then stops as the stdio server does, through the
same handler (``server._stop_on_signals``): the worker and watcher are stopped (the worker gracefully: its
running jobs finish) and the process exits with 128 + the signal's number. The listening socket is closed
first (``refuse_on_signals``): while the worker finishes its job (seconds), a client that connects is refused
at once, where the kernel would have accepted its connection into the listen backlog and left it waiting
for the process to exit. uvicorn's own graceful shutdown is
not used (``Server.capture_signals`` is left out), because it came first and in series: it waited for every
open connection (up to ``timeout_graceful_shutdown``, so a half-sent request held it 3 s), then the lifespan
waited for each tool call still running in its thread (a search waiting for the model: seconds), and only
after that did the worker get its stop signal; the client's GET stream was cut by sse-starlette's 0.5 s poll
with an "ASGI callable returned without completing response" error. Nothing is lost by not draining: the
server only reads (its one write, registering --root, is done before it serves), so a request cut short is
one the client can send again, as over stdio when the client goes away.

Why the plain SQL reads (stats, list_files, the freshness line, read_file's lookups) do not go through
aiosqlite, though many clients share this one event loop: aiosqlite is not asynchronous I/O but a thread
per connection that each query is sent to and awaited from. The tools as they are already run off the
loop, each call in one worker thread with that thread's own read-only connection (mcp runs sync tools
with ``anyio.to_thread``), and SQLite releases the GIL while it reads, so those threads read in parallel.
Through aiosqlite a tool pays a hop per query instead of one per call, and one shared connection queues
every client's reads behind each other (a pool of them brings back the threads). Measured on the 10k-chunk
index (``bench/latency.py --http``, ms per tool call at p50, 1 / 20 concurrent callers, two runs on a machine
shared with other jobs), threads against one aiosqlite connection against a pool of four:
read_file's lookups 0.08 / 1.2-4.2 against 0.19 / 5.1-8.9 and 0.19 / 14-19; list_files' reads 20 / 337-701
against 16-24 / 517-820 and 16-22 / 307-738 (noise); stats' counts 8-12 / 120-172 against 8-12 / 149-187
and 8-14 / 55-106. The pool of four wins only for 20 callers at once of stats' heavy count, and that is from
letting four queries run at a time instead of twenty, not from aiosqlite: a bound on the threads would do
the same. So the threads stay, and stdio and HTTP share one code path.
"""
from __future__ import annotations

import contextlib
import signal
import socket
import sys

from mcp_server import http_settings


def main(args, served, children: list) -> int:
    """Check the address and the token, start the worker, build the server, serve until stopped. ``served``
    (mcp_server.settings_problems): a bad SIFT_* setting is said first in every answer, as over stdio; it
    ended the server with status 2, so an HTTP client saw only a refused connection."""
    from mcp_server.server import StartupError, _exit_if_threads_linger, build_server, served_root
    settings = served.settings
    try:
        config = http_settings.load(args.http, settings.home, read_only=args.read_only,
                                    log_queries=args.log_queries)
        token, made, source = http_settings.token(config)
        listener = bind(config)
    except ValueError as exc:
        raise StartupError(str(exc)) from None
    with listener:
        collection, problem = (None, None) if served.unusable else served_root(settings, args.root, args.name)
        if not (args.no_worker or served.no_worker):
            from mcp_server.worker import Worker
            children.append(Worker(settings, queued=collection[0] if collection else None).start())
        server = build_server(settings, children[0] if children else None, collection,
                              [*served.problems, *([problem] if problem else [])], served.unusable,
                              held=served.no_worker)
        if config.read_only:
            server.remove_tool("refresh")
        announce(config, token if made else None, source)
        refuse_on_signals(listener)
        serve(app(server, config, token), listener, config.read_seconds)
    for child in children:
        child.stop()
    _exit_if_threads_linger()
    return 0


def app(server, config, token: str):
    """The mcp package's Streamable HTTP app for ``server``, behind the guard."""
    from mcp.server.transport_security import TransportSecuritySettings

    from mcp_server.http_guard import Guard
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for entry in config.allowed_hosts for h in (entry, f"{entry}:*")],
        allowed_origins=[o for entry in config.allowed_origins for o in (entry, f"{entry}:*")])
    inner = server.streamable_http_app(
        streamable_http_path="/mcp", json_response=True, max_request_body_size=config.max_body,
        session_idle_timeout=config.idle_minutes * 60, max_sessions=config.max_sessions,
        transport_security=security, host=config.host)
    sessions = server.session_manager  # its open sessions: mcp has no public look-up of an id
    return Guard(inner, config, token, session_open=lambda session: session in getattr(sessions, "_server_instances",
                                                                                     (session,)))


def bind(config) -> socket.socket:
    """The listening socket, made here so a busy port is one clear line rather than uvicorn's exit."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(config.host, config.port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except (OSError, socket.gaierror) as exc:
        raise ValueError(f"--http {config.host}:{config.port}: {exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and config.host in ("::", ""):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot listen on {config.host}:{config.port}: {exc.strerror}; choose another port "
                         "(--http [HOST:]PORT) or stop what uses it") from None
    sock.setblocking(False)
    return sock


def refuse_on_signals(listener: socket.socket) -> None:
    """On a stop signal, close ``listener`` before the server's handler stops the worker: new connections are
    refused from then on, and those waiting in the backlog are reset."""
    from mcp_server.server import STOP_SIGNALS
    for sig in STOP_SIGNALS:
        then = signal.getsignal(sig)

        def stop(signum, frame, then=then):
            listener.close()
            then(signum, frame)
        signal.signal(sig, stop)


def serve(asgi_app, listener: socket.socket, read_seconds: float = 30.0) -> None:
    """Serve until a signal: the server's own handler (installed by ``server.main``) stops the children and
    exits; uvicorn is kept from replacing it with its graceful shutdown (see the module's docstring). Slow or
    silent connections are closed, and open ones bounded (``http_connections``)."""
    import uvicorn

    from mcp_server.http_connections import protocol

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self):
            yield

    config = uvicorn.Config(asgi_app, log_level="warning", access_log=False, server_header=False, lifespan="on",
                            http=protocol(read_seconds))
    Server(config).run(sockets=[listener])


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def announce(config, new_token: str | None, source: str) -> None:
    """Where the server listens; the token and the client configuration only the first time."""
    mode = "read-only (no refresh tool)" if config.read_only else "refresh allowed"
    say(f"sift-mcp: serving MCP over HTTP at {config.url} ({mode}); token from {source}; Host allowed: "
        f"{', '.join(config.allowed_hosts)}")
    if not config.loopback:
        say("sift-mcp: this address is reachable from other machines: put TLS in front of it (a reverse proxy) "
            "unless the network is trusted")
    if new_token is None:
        return
    say(f"sift-mcp: made a new token in {source} (mode 0600); it is shown this once:\n\n    {new_token}\n\n"
        + client_configuration(config.url, new_token))


def client_configuration(url: str, token: str) -> str:
    header = f"Authorization: Bearer {token}"
    return "\n".join([
        "Client configuration:",
        f"  URL:    {url}",
        f"  header: {header}",
        f"  Claude Code:  claude mcp add --transport http sift {url} --header \"{header}\"",
        "  Cursor (.cursor/mcp.json):",
        f'    {{ "mcpServers": {{ "sift": {{ "url": "{url}", "headers": {{ "Authorization": "Bearer {token}" }} }} }} }}',
        "",
    ])
