"""The function of a Go or Rust stack frame, written on the line before the frame's path.

Python, Node, Java and pytest name a frame's function on the line holding its path (``symbols.FRAME`` reads it
there); Go's panic and Rust's backtrace write it on the line above::

    main.(*Server).handle(0xc000010000, {0x4b8f20, 0x5})
    	/home/me/app/server.go:42 +0x1d

       3: myapp::db::connect
                 at ./src/db.rs:17:5

so their frames were found by path and line alone, and a trace older than the code named no function to look for.
"""
from __future__ import annotations

import re

# A Go frame: the call (a package path, a receiver '(*Server)', the function, its arguments; 'created by …' for a
# goroutine's start, 'in goroutine N' after it), then the path, tab-indented, with its line and offset.
GO_CALL = re.compile(r"^[ \t]*(?:created by[ \t]+)?(?P<name>[^\s(]+(?:\(\*?[^\s()]+\)\.[^\s(]+)?)(?:\(.*\))?"
                     r"(?:[ \t]+in goroutine \d+)?[ \t]*\r?\n[ \t]+(?=(?P<path>\S+?\.go):\d+)", re.MULTILINE)
# A Rust frame: its number, the function's path ('myapp::db::connect', '<myapp::Pool as Drop>::drop', a legacy
# '::h3b1f…' hash, '{{closure}}'), then 'at' and the path with its line and column.
# (the name ends at its last letter: one taken lazily tried the spaces after each of its letters, 2 s a line of
# '1: a', 10,000 spaces and a word)
RUST_CALL = re.compile(r"^[ \t]*\d+:[ \t]+(?P<name>\S(?:[^\n]*\S)?)[ \t]*\r?\n[ \t]+at[ \t]+(?=(?P<path>\S+?\.rs):\d+)",
                       re.MULTILINE)
_GO_INNER = re.compile(r"^(?:func|gowrap|deferwrap)?\d+$")  # a closure's or a go statement's wrapper: 'func1', '2'
_RUST_HASH = re.compile(r"::h[0-9a-f]{16}$")
_RUST_INNER = re.compile(r"::\{\{[^}]*\}\}|\{\{[^}]*\}\}")  # '::{{closure}}', '{{vtable.shim}}'
_GENERIC = re.compile(r"<[^<>]*>")
_NAME = re.compile(r"[^\W\d]\w*")
# Rust's own library, where a backtrace's first frames are ('/rustc/90b35a…/library/core/src/result.rs'): its tail
# 'src/result.rs' named a project's own file of that name
TOOLCHAIN = re.compile(r"^/rustc/[0-9a-f]{7,40}/")
# Go's own library, under its GOROOT ('/usr/local/go/src/runtime/panic.go', '/usr/lib/go-1.22/src/…', Homebrew's
# '…/libexec/src/…', a downloaded 'toolchain@v0.0.1-go1.22.0…/src/…', '$GOROOT/src/…'), its first folder a package of
# the standard library's (a GOPATH's 'go/src/github.com/me/app' is a project's, and 'go/src/myapp', an import path of
# no dot, was taken for Go's): a panic's first frames are there, and 'panic.go' or 'testing/testing.go' named a
# project's file of that name
GO_STD = ("archive|arena|bufio|builtin|bytes|cmd|cmp|compress|container|context|crypto|database|debug|embed|encoding|"
          "errors|expvar|flag|fmt|go|hash|html|image|index|internal|io|iter|log|maps|math|mime|net|os|path|plugin|"
          "reflect|regexp|runtime|slices|sort|strconv|strings|structs|sync|syscall|testing|text|time|unicode|unique|"
          "unsafe|vendor|weak")
GOROOT = re.compile(r"(?i)(?:^|/)(?:\$goroot|go|go-?\d[\w.-]*|golang(?:-[\d.]+)?|libexec|toolchain@[^/]+)/src/"
                    rf"(?:{GO_STD})/")
# and a build's with -trimpath ('runtime/panic.go:770 +0x132'): a goroutine's frame, its offset after the line
GO_TRIMMED = re.compile(r"^(?:runtime|testing)/\S*\.go$")
GO_OFFSET = re.compile(r"[ \t]+\+0x[0-9a-f]+")
# Node's own modules: 'node:internal/modules/cjs/loader.js', and before Node 15 written bare: 'internal/modules/cjs/
# loader.js', and a core module by its file's name alone ('events.js:377:5', '_stream_readable.js:1220:12'), which
# named a project's own events.js (``node_bare``)
NODE_INTERNAL = re.compile(r"^internal/\S*\.[cm]?js$")
NODE_CORE = frozenset((
    "_http_agent _http_client _http_common _http_incoming _http_outgoing _http_server _stream_duplex "
    "_stream_passthrough _stream_readable _stream_transform _stream_wrap _stream_writable _tls_common _tls_wrap "
    "assert async_hooks buffer child_process cluster console constants crypto dgram diagnostics_channel dns domain "
    "events fs http http2 https inspector module net os path perf_hooks process punycode querystring readline repl "
    "stream string_decoder sys timers tls trace_events tty url util v8 vm wasi worker_threads zlib").split())
# Where installed libraries are: a frame there names a file of the library, which only a file whose path holds
# the library's own (the folder the package is installed in and below: 'router/index.js', 'asyncio/base_events.py',
# 'github.com/lib/pq/conn.go') stands for; by its name alone or the tail 'router/index.js' of
# '/app/node_modules/express/lib/router/index.js' it named a project's own file
LIBRARY = re.compile(r"(?i)^.*/(?:site-packages|dist-packages|node_modules|pkg/mod|lib/python\d[\d.]*t?|python\d+/lib)/")
_VERSION = re.compile(r"@v[^/]*")  # a Go module's version in the module cache: 'pq@v1.10.9'
# A minified bundle's frame: a '.min.js' file, or a column no hand-written line reaches ('dist/main.js:1:48213')
MINIFIED_NAME = re.compile(r"\.min\.[cm]?js$|\.bundle\.[cm]?js$", re.IGNORECASE)
MINIFIED_COLUMN = 1000


def functions(query: str) -> dict[int, str]:
    """The function of each Go or Rust frame the query holds, by where the frame's path ends in it (where
    ``symbols.FRAME``'s path ends too): a closure's is the function that holds it ('handle.func1': 'handle')."""
    found = {}
    for m in GO_CALL.finditer(query):
        name = _go_function(m.group("name"))
        if name:
            found[m.end("path")] = name
    for m in RUST_CALL.finditer(query):
        name = _rust_function(m.group("name"))
        if name:
            found[m.end("path")] = name
    return found


def _go_function(name: str) -> str | None:
    """'main.(*Server).handle.func1' → 'handle'; 'github.com/me/app/db.Open[...]' → 'Open'."""
    parts = re.sub(r"\[[^\]]*\]", "", name.rsplit("/", 1)[-1]).split(".")
    while len(parts) > 1 and _GO_INNER.match(parts[-1]):
        parts.pop()
    return parts[-1] if len(parts) > 1 and _NAME.fullmatch(parts[-1]) else None


def _rust_function(name: str) -> str | None:
    """'myapp::db::connect::h3b1f0a2c9d8e7f61' → 'connect'; '<myapp::Pool as core::ops::Drop>::drop' → 'drop';
    'myapp::db::connect::{{closure}}' → 'connect'."""
    name = _RUST_INNER.sub("", _RUST_HASH.sub("", name.strip()))
    while _GENERIC.search(name):
        name = _GENERIC.sub("", name)
    last = name.rstrip(":").rsplit("::", 1)[-1]
    return last if _NAME.fullmatch(last) else None


def minified(query: str) -> dict[str, list[str]]:
    """{a frame's path as ``symbols.frames`` gives it: the frames as written ('bundle.min.js:1:23456'), each once}
    of each frame of a minified bundle the query holds: its line and column name a place in one long line of
    machine-written code, no function or file of the source, which only a source map would give. A one-line
    bundle's frames are each theirs (the first alone was named)."""
    from search.query.symbols import FRAME
    found: dict[str, list[str]] = {}
    for m in FRAME.finditer(query):
        path, column = m.group("path"), int(m.group("column") or 0)
        if path and (MINIFIED_NAME.search(path) or column >= MINIFIED_COLUMN):
            found.setdefault(path.replace("\\", "/"), []).append(
                f"{path.rsplit('/', 1)[-1]}:{m.group('at')}:{column}")
    return {path: list(dict.fromkeys(written)) for path, written in found.items()}


def minified_note(query: str, unfound: list[str], notes: list[str]) -> None:
    """Say which of the trace's frames are a minified bundle's (``minified``), of those whose path names no file
    indexed (``unfound``) nor one a source map read them as (``source_maps``): nothing is found at them, and the
    answer says why rather than nothing (it said Sift read no source maps, which it does where it finds one)."""
    from search.query.answer_notes import note
    shown = minified(query)
    frames = list(dict.fromkeys(frame for path in unfound if path in shown for frame in shown[path]))
    if frames:
        note(notes, f"the stack trace's frames {', '.join(frames[:3])}{' …' if len(frames) > 3 else ''} are in "
                    "minified code, and no source map of it was read (none beside the bundle in a collection, nor "
                    "named by its sourceMappingURL comment), so Sift cannot tell which source file and function they "
                    "stand for")


def toolchain(query: str, frame: re.Match) -> bool:
    """Whether a frame (``symbols.FRAME``'s match in ``query``) is in a language's own library, no file of the
    user's: Rust's (``TOOLCHAIN``), Go's (``GOROOT``, or trimmed: ``GO_TRIMMED``), Node's (``node:…``). Such frames
    are left out, so the user's own frames lead; Node's written bare are ``node_bare``'s."""
    path = (frame.group("file") or frame.group("path") or "").replace("\\", "/")
    if TOOLCHAIN.match(path) or (path.endswith(".go") and GOROOT.search(path)):
        return True
    if frame.group("path") is None:
        return False
    if GO_TRIMMED.match(path) and GO_OFFSET.match(query, frame.end()):
        return True
    return query[:frame.start("path")].endswith("node:")


def node_bare(query: str, frame: re.Match) -> bool:
    """Whether a frame is Node's own module as Node 14 and before wrote it, without 'node:': 'internal/…', or a
    core module's file alone with its line and column ('events.js:377:5'). Such a frame is Node's unless the
    collection holds a file at that very path (``symbols.frames``' ``held``)."""
    path = frame.group("path")
    if path is None or query[:frame.start("path")].endswith("node:"):
        return False
    path = path.replace("\\", "/")
    if NODE_INTERNAL.match(path):
        return True
    stem, dot, extension = path.rpartition(".")
    return frame.group("column") is not None and extension == "js" and stem in NODE_CORE


def library_path(path: str) -> str | None:
    """The path of a traced file within the library it is installed in ('/srv/app/node_modules/router/index.js':
    'router/index.js'; '/home/me/go/pkg/mod/github.com/lib/pq@v1.10.9/conn.go': 'github.com/lib/pq/conn.go'),
    casefolded; None for a path in no library (``LIBRARY``)."""
    traced = "/" + path.replace("\\", "/").lstrip("/")
    found = LIBRARY.match(traced)
    return _VERSION.sub("", traced[found.end():]).casefold() if found and found.end() < len(traced) else None


_JS_NAME = re.compile(r"[^\W\d][\w$]*|\$[\w$]*")
_BROWSER_PROGRAM = re.compile(r"^(?:global|module|eval) code$|^$")  # Safari's top of a script, Firefox's '@'


def browser_function(named: str | None) -> str | None:
    """The function a Firefox or Safari frame names before its '@' (``symbols.FRAME``'s ``named``): 'e' → 'e';
    Firefox's 'Foo/bar/<' (a function in bar) → 'bar', 'async*load' and 'promise callback*load' → 'load',
    'Object.render' → 'render'; None for the script itself (Safari's 'global code', 'module code', 'eval code')
    or none."""
    if named is None or _BROWSER_PROGRAM.match(named):
        return None
    names = _JS_NAME.findall(named.rsplit("*", 1)[-1])
    return names[-1] if names else None
