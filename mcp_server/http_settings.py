"""What ``sift-mcp --http`` needs before it listens: the address, the token, the allow-lists and the limits.

The ``SIFT_HTTP_*`` variables are read here rather than in search/settings.py because only the HTTP
server uses them. Every refusal is a ``ValueError`` whose message is one line saying what to do.

The token: ``SIFT_HTTP_TOKEN``, else ``<home>/http-token``. The file is made (mode 0600) on the first
start on a loopback address, and its token printed once. A server listening beyond this machine must
find a token already there: it never makes one, so exposing the index is a deliberate act and a fresh
secret is never printed into the log of a service that others can reach.
"""
from __future__ import annotations

import ipaddress
import math
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
MIN_TOKEN_CHARS = 16
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")  # Host header names allowed by default, any port
LOOPBACK_ORIGINS = ("http://127.0.0.1", "http://localhost", "http://[::1]",
                    "https://127.0.0.1", "https://localhost", "https://[::1]")


@dataclass(frozen=True)
class HttpSettings:
    host: str  # what to bind, as given ('127.0.0.1', '::1', '0.0.0.0', a name)
    port: int
    loopback: bool  # every address host resolves to is a loopback one
    allowed_hosts: tuple[str, ...]  # Host header values: 'name' (any port) or 'name:port'
    allowed_origins: tuple[str, ...]  # Origin values: 'scheme://name' (any port) or 'scheme://name:port'
    max_body: int = 1024 * 1024  # bytes in one request body
    max_sessions: int = 32  # MCP sessions open at once
    rate: float = 20.0  # requests per second per session, sustained
    burst: int = 40  # requests a session may make at once before the rate applies
    idle_minutes: float = 30.0  # a session without requests for this long is closed
    read_seconds: float = 30.0  # a connection that has not sent its whole request in this long is closed
    read_only: bool = False  # no refresh tool
    log_queries: bool = False  # log the tools' arguments (query text, paths)
    token_file: Path | None = None

    @property
    def url(self) -> str:
        """The URL a client on this machine (or, for a wildcard bind, elsewhere) uses."""
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = socket.gethostname()
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/mcp"


def parse_listen(value: str) -> tuple[str, int]:
    """'8765', 'HOST:8765' or '[::1]:8765' → (host, port)."""
    text = value.strip()
    host, port = DEFAULT_HOST, text
    if text.startswith("["):
        inside, sep, port = text[1:].partition("]:")
        if not sep:
            raise ValueError(f"--http {value}: write an IPv6 address as [ADDRESS]:PORT, e.g. [::1]:8765")
        host = inside
    elif text.count(":") > 1:
        raise ValueError(f"--http {value}: write an IPv6 address as [ADDRESS]:PORT, e.g. [::1]:8765")
    elif ":" in text:
        host, port = text.rsplit(":", 1)
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http {value}: give [HOST:]PORT with a port from 1 to 65535, e.g. --http 8765 "
                         "or --http 127.0.0.1:8765")
    return host or DEFAULT_HOST, int(port)


def is_loopback(host: str) -> bool:
    """True when every address ``host`` stands for is a loopback one (a wildcard bind is not)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ValueError(f"--http: cannot resolve {host!r} ({exc.strerror}): give an IP address") from None
    return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def load(listen: str, home: Path, read_only: bool = False, log_queries: bool = False,
         env: dict | None = None) -> HttpSettings:
    env = os.environ if env is None else env
    host, port = parse_listen(listen)
    loopback = is_loopback(host)
    return HttpSettings(
        host=host, port=port, loopback=loopback,
        allowed_hosts=tuple(_list(env, "SIFT_HTTP_ALLOWED_HOSTS")) or default_hosts(host, loopback),
        allowed_origins=tuple(_list(env, "SIFT_HTTP_ALLOWED_ORIGINS")) or LOOPBACK_ORIGINS,
        max_body=_number(env, "SIFT_HTTP_MAX_BODY", 1024 * 1024, int, "bytes"),
        max_sessions=_number(env, "SIFT_HTTP_MAX_SESSIONS", 32, int, "sessions"),
        rate=_number(env, "SIFT_HTTP_RATE", 20.0, float, "requests per second"),
        burst=_number(env, "SIFT_HTTP_BURST", 40, int, "requests"),
        idle_minutes=_number(env, "SIFT_HTTP_IDLE_MINUTES", 30.0, float, "minutes"),
        read_seconds=_number(env, "SIFT_HTTP_READ_SECONDS", 30.0, float, "seconds"),
        read_only=read_only, log_queries=log_queries, token_file=home / "http-token")


def default_hosts(host: str, loopback: bool) -> tuple[str, ...]:
    """Loopback names; plus the address bound to, or this machine's names for a wildcard bind.

    A DNS-rebinding page reaches the server under the attacker's own name, which is never among these.
    """
    names = list(LOOPBACK_HOSTS)
    if loopback:
        return tuple(names)
    if host in ("0.0.0.0", "::", ""):
        names += sorted({socket.gethostname(), socket.getfqdn()} - {""})
    else:
        names.append(f"[{host}]" if ":" in host else host)
    return tuple(dict.fromkeys(names))


def _list(env, name: str) -> list[str]:
    return [part.strip().rstrip("/") for part in env.get(name, "").split(",") if part.strip()]


def _number(env, name: str, default, kind, unit: str):
    """A positive finite number (``kind``: int or float) from ``env``; refused in one line naming it, with the
    default. 'nan' passed the check 'not <= 0', and '1.5' requests were told to be a positive number."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or value <= 0:
        what, shown = ("whole number", default) if kind is int else ("number", f"{default:g}")
        raise ValueError(f"{name}={raw!r}: give a positive {what} of {unit} (the default is {shown})")
    return value


# --- the token -------------------------------------------------------------------------

def token(config: HttpSettings, env: dict | None = None) -> tuple[str, bool, str]:
    """(token, made just now, where it comes from). Raises ValueError when there is none to use."""
    env = os.environ if env is None else env
    given = env.get("SIFT_HTTP_TOKEN", "").strip()
    if given:
        _check_strength(given, "SIFT_HTTP_TOKEN")
        return given, False, "SIFT_HTTP_TOKEN"
    path = config.token_file
    if path.exists():
        return _read_token_file(path), False, str(path)
    if not config.loopback:
        raise ValueError(
            f"--http {config.host}:{config.port} listens beyond this machine and no token is set: set "
            f"SIFT_HTTP_TOKEN, or start once on a loopback address (--http 127.0.0.1:{config.port}) to create "
            f"{path}")
    return _make_token_file(path), True, str(path)


def _read_token_file(path: Path) -> str:
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        raise ValueError(f"{path} can be read by other users (mode {mode:o}): run `chmod 600 {path}`")
    text = path.read_text(encoding="utf-8").strip()
    _check_strength(text, str(path))
    return text


def _make_token_file(path: Path) -> str:
    value = secrets.token_urlsafe(32)
    try:  # a home that is a file, on /proc or a read-only mount (served with its problem said): its folder fails too
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise ValueError(f"cannot create the token file {path} ({exc.strerror}): make {path.parent} a folder you "
                         "can write, or set SIFT_HTTP_TOKEN") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        os.fchmod(f.fileno(), 0o600)  # whatever the umask
        f.write(value + "\n")
    return value


def _check_strength(value: str, where: str) -> None:
    if len(value) < MIN_TOKEN_CHARS or any(ch.isspace() for ch in value):
        raise ValueError(f"the token in {where} must be at least {MIN_TOKEN_CHARS} characters without spaces: "
                         "use a long random string, e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`")
