"""Cython's definitions (.pyx, .pxd, .pxi), read from the lines: tree-sitter-languages has no Cython grammar.

Cython is indented as Python is, so a definition is a header line and the lines indented below it: ``def`` and
``class`` as in Python, and Cython's own ``cdef class XSLT:``, ``cpdef int count(self):``, ``cdef inline int
_walk(tree.xmlNode* c_node) noexcept nogil:`` (a C function, named by the word before its '('), ``cdef struct
Point:``, ``ctypedef enum Kind:``, ``property tag:``. A header may run over lines inside its parentheses; its
block ends before the first line indented no deeper than it (a docstring's lines and a bracket's continuation
lines aside). ``cdef extern from "libxml/tree.h":`` is no definition: what it declares is. Comment and decorator
lines right above a header, at its indentation, belong to it. Python's grammar read lxml's parser.pxi as one
error: no definition in 2,095 lines.
"""
from __future__ import annotations

import re

# (parts, first row, last row, column, the enclosing definition's first row or -1), rows 0-based, in pre-order
Outline = list[tuple[list[str], int, int, int, int]]

_QUALIFIERS = r"(?:(?:public|api|readonly|final|inline|packed|nogil|extern)\s+)*"
HEADERS = [re.compile(pattern) for pattern in (
    r"(?:async\s+)?def\s+(?P<name>\w+)\s*\(",
    rf"(?:(?:cdef|cpdef|ctypedef)\s+)?{_QUALIFIERS}class\s+(?P<name>\w+)",
    rf"(?:cdef|ctypedef)\s+{_QUALIFIERS}(?:struct|union|enum|cppclass|fused)\s+(?P<name>\w+)",
    r"property\s+(?P<name>\w+)\s*:",
    # a C function: the word before the first '(' of a cdef/cpdef line, no '=' before it (a variable's value); the
    # name tried where a word begins only: at every letter, a long word with no '(' took the square of its length
    rf"(?:cdef|cpdef)\s+(?!extern\b|class\b){_QUALIFIERS}[^=(#:]*?(?<!\w)(?P<name>\w+)\s*\(",
)]
# a header's lines at most: a '(' never closed is no header, and each line after it is not read again for every one
HEADER_ROWS = 30
COMMENT = re.compile(r"\s*#")
DECORATOR = re.compile(r"\s*@")
TRIPLE = re.compile(r'"""|\'\'\'')
# a one-line string, its marks and brackets no code: 'def f(x="#("):' was cut at its '#', the '(' never closed
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')


def outline(text: str) -> Outline:
    """The definitions of a Cython file's ``text``, outer before inner."""
    lines = text.split("\n")
    code = _code_rows(lines)
    found: Outline = []
    open_: list[list] = []  # [parts, start, column, index in found] of the blocks the current line is inside
    row = 0
    while row < len(lines):
        if row not in code:
            row += 1
            continue
        column = _indent(lines[row])
        while open_ and open_[-1][2] >= column:
            _close(open_.pop(), row, lines, code, found)
        header = _header(lines, row)
        if header is None:
            row += 1
            continue
        name, last = header
        parts = (open_[-1][0] if open_ else []) + [name]
        floor = found[open_[-1][3]][1] if open_ else -1
        start = _prefixed(lines, row, column, floor)
        found.append((parts, start, last, column, floor))
        open_.append([parts, start, column, len(found) - 1])
        row = last + 1
    while open_:
        _close(open_.pop(), len(lines), lines, code, found)
    return found


def _code_rows(lines: list[str]) -> set[int]:
    """The rows whose indentation counts: not blank, not a comment, not inside a triple-quoted string (a docstring's
    lines may start at any column)."""
    rows, quote = set(), None
    for row, line in enumerate(lines):
        starts_inside = quote is not None
        for mark in TRIPLE.findall(line.split("#", 1)[0] if quote is None else line):
            quote = None if quote == mark else (mark if quote is None else quote)
        if not starts_inside and line.strip() and not COMMENT.match(line):
            rows.add(row)
    return rows


def _header(lines: list[str], row: int) -> tuple[str, int] | None:
    """(name, last row of the header) if a definition's header starts at ``row``: one of HEADERS, its parentheses
    closed, ending in ':' (a declaration without a body, as a .pxd's, is none)."""
    stripped = lines[row].strip()
    found = next((m for pattern in HEADERS if (m := pattern.match(stripped))), None)
    if found is None:
        return None
    depth, last = 0, row
    while last < min(len(lines), row + HEADER_ROWS):
        body = _bare(lines[last])
        depth += body.count("(") + body.count("[") - body.count(")") - body.count("]")
        if depth <= 0:
            break
        last += 1
    if last >= min(len(lines), row + HEADER_ROWS) or ":" not in _bare(lines[last]):
        return None
    ending = _bare(lines[last]).rstrip()
    if not ending.endswith(":") and not re.search(r":\s*\S", ending):
        return None
    return found.group("name"), last


def _bare(line: str) -> str:
    """A line's code without its strings' text and its comment."""
    return STRING.sub('""', line).split("#", 1)[0]


def _prefixed(lines: list[str], row: int, column: int, floor: int) -> int:
    """``row`` moved up over the comment and decorator lines right above it at its indentation."""
    while row - 1 > floor and (COMMENT.match(lines[row - 1]) or DECORATOR.match(lines[row - 1])) \
            and _indent(lines[row - 1]) == column:
        row -= 1
    return row


def _close(block: list, before: int, lines: list[str], code: set[int], found: Outline) -> None:
    """End ``block`` at its last line before row ``before``: blank lines and the comments above what follows left
    out."""
    parts, start, column, index = block
    end = before - 1
    while end > found[index][2] and (not lines[end].strip() or _comment_after(lines[end], end, code, column)):
        end -= 1
    found[index] = (parts, start, max(end, found[index][2]), column, found[index][4])


def _comment_after(line: str, row: int, code: set[int], column: int) -> bool:
    """Whether ``line`` is a comment no deeper than a block's header: it heads what follows the block."""
    return row not in code and _indent(line) <= column and COMMENT.match(line) is not None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
