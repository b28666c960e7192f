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
RUST_CALL = re.compile(r"^[ \t]*\d+:[ \t]+(?P<name>\S[^\n]*?)[ \t]*\r?\n[ \t]+at[ \t]+(?=(?P<path>\S+?\.rs):\d+)",
                       re.MULTILINE)
_GO_INNER = re.compile(r"^(?:func|gowrap|deferwrap)?\d+$")  # a closure's or a go statement's wrapper: 'func1', '2'
_RUST_HASH = re.compile(r"::h[0-9a-f]{16}$")
_RUST_INNER = re.compile(r"::\{\{[^}]*\}\}|\{\{[^}]*\}\}")  # '::{{closure}}', '{{vtable.shim}}'
_GENERIC = re.compile(r"<[^<>]*>")
_NAME = re.compile(r"[^\W\d]\w*")


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
