"""A server configuration's blocks (nginx's, Caddy's, HAProxy-free brace syntax), read from its lines.

A configuration has no tree-sitter grammar, and was windowed by lines alone: a passage cut from deep inside a long
nginx ``server { … }`` did not say which server it was. A block is a line ending in ``{`` (its name the words before
it: ``server``, ``location /api/``, ``upstream backend``, Caddy's ``example.com``, ``handle /api/*``) down to the
``}`` that closes it; an nginx ``server`` is named by its first ``server_name`` (``server example.com``), as a
reader calls it. Comments (``#`` after a space or at the line's start) and quoted strings hold no braces. Each block
is a definition, so its lines' passages carry its path (``nginx > server example.com > location /api/``), as a
code passage carries its function's. A file whose braces do not balance is not outlined (windowed by lines).
"""
from __future__ import annotations

import re

# (parts, first row, last row, column, the enclosing block's first row or -1), rows 0-based, in pre-order
Outline = list[tuple[list[str], int, int, int, int]]

# a comment: '#' at the line's start or after a space ('$http_x#y' and '#' inside quotes are none); strings
NOISE = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|(?:^|(?<=\s))#.*')
SERVER_NAME = re.compile(r"\s*server_name\s+([^\s;]+)")
NAME_CHARS = 80  # of a block's header kept as its name: a heading, not a line of directives
MOST_BLOCKS = 10_000  # a file of more is data, not a configuration someone reads by its blocks
MOST_DEPTH = 100  # nor one of blocks nested deeper (each block's path holds its ancestors': memory by depth squared)


def outline(text: str) -> Outline:
    """The blocks of a configuration's ``text``, outer before inner; [] where it has none or its braces do not
    balance (a template's ``{{ }}``, a JSON-like file: windowed by lines, as before)."""
    lines = text.split("\n")
    found: Outline = []
    open_: list[int] = []  # indexes in ``found`` of the blocks the current line is inside
    for row, line in enumerate(lines):
        bare = NOISE.sub(lambda m: "" if m.group().startswith("#") else '""', line)
        if "{{" in bare or "{%" in bare or "}}" in bare:  # a template's tags: no block syntax to trust
            return []
        named = SERVER_NAME.match(bare) if open_ and found[open_[-1]][0][-1] == "server" else None
        if named:
            _rename(found, open_[-1], f"server {named.group(1)}")
        cut = 0  # where a header starts on this line: after its last brace (from its start: a
        # copy of the line at each '{')
        for at, char in enumerate(bare):
            if char == "{":
                header, start = bare[cut:at].strip(), row
                if not header and not cut:  # Allman's 'server' over a '{' of its own line
                    header = _above(lines, row)
                    start -= bool(header)
                cut = at + 1
                if "}" in header or ";" in header:  # '{' after a statement on its line: no block's header
                    return []
                parts = (found[open_[-1]][0] if open_ else []) + [header[:NAME_CHARS].rstrip() or "{ }"]
                floor = found[open_[-1]][1] if open_ else -1
                found.append((parts, start, row, len(lines[start]) - len(lines[start].lstrip()), floor))
                open_.append(len(found) - 1)
                if len(found) > MOST_BLOCKS or len(open_) > MOST_DEPTH:
                    return []
            elif char == "}":
                if not open_ or bare[at + 1:].strip():  # a '}' closing nothing, or code after it on its line
                    return []
                index = open_.pop()
                found[index] = found[index][:2] + (row,) + found[index][3:]
    return [] if open_ else found


def _above(lines: list[str], row: int) -> str:
    """The header a '{' alone on its line opens: the line above it, where that is no statement ('server' over
    '{'); else none (Caddy's global options block, '{' first)."""
    above = NOISE.sub("", lines[row - 1]).strip() if row else ""
    return "" if not above or above.endswith((";", "{", "}")) else above


def _rename(found: Outline, index: int, name: str) -> None:
    """Name the block at ``index`` ``name``, and the blocks inside it found so far under it."""
    depth = len(found[index][0]) - 1
    for i in range(index, len(found)):
        parts = found[i][0]
        if i > index and len(parts) <= depth + 1:
            break
        found[i] = (parts[:depth] + [name] + parts[depth + 1:],) + found[i][1:]
