"""Source map v3 mappings written from places, for tests/test_source_maps.py and bench/code_source_maps.py: one
base-64 VLQ encoder for both."""
from __future__ import annotations

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def vlq(number: int) -> str:
    """``number`` in base-64 VLQ: its sign the lowest bit, five bits a digit, the sixth saying another follows."""
    number = (-number << 1) | 1 if number < 0 else number << 1
    digits = ""
    while True:
        digit, number = number & 31, number >> 5
        digits += B64[digit | (32 if number else 0)]
        if not number:
            return digits


def mappings(lines: list[list[tuple[int, ...]]]) -> str:
    """Source map v3 mappings of ``lines`` (of the bundle), each a list of (column, source, line, column), absolute,
    and the index of a name in the map's ``names`` after them where one is given."""
    source = source_line = source_column = name = 0
    written = []
    for segments in lines:
        column, encoded = 0, []
        for at, src, line, col, *named in segments:
            encoded.append("".join(vlq(n) for n in (at - column, src - source, line - source_line,
                                                        col - source_column, *(n - name for n in named))))
            column, source, source_line, source_column = at, src, line, col
            name = named[0] if named else name
        written.append(",".join(encoded))
    return ";".join(written)
