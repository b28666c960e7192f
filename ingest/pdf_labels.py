"""The number printed on each page of a PDF, from its /PageLabels number tree (PDF 1.7 §12.4.2).

A book numbers its front matter i, ii, iii and its first chapter 1: page 8 of the file is 'page 1'. The labels are
read from the catalog's /PageLabels here, for the count of pages the page-at-a-time walk (ingest.pdf_tree) found:
pypdf's public ``reader.page_labels`` reads the whole page list into memory for its count of pages, and its
``index2labels`` is private (``pypdf._page_labels``), free to change in any release.

The tree is read once, its leaves' ranges in key order; a range starts at a 0-based page index and numbers its
pages in a style (/S: D 1 2 3, R I II, r i ii, A A..Z AA.., a a..z aa..), after a prefix (/P), from a first number
(/St, 1 by default). What pypdf gave is kept: a range without /S is its prefix alone; a page before the first
range, a range that is not a dictionary, an unknown style or a number a style cannot write (0, a Roman numeral past
3,999, letters past 512 of them) is labelled by its place in the file. A tree nested past MAX_DEPTH, one that holds
itself, or ranges past MAX_RANGES are read no further.
"""
from __future__ import annotations

import bisect

from pypdf.generic import ArrayObject, DictionaryObject

MAX_DEPTH = 100  # branches of the number tree inside each other: pypdf's own bound
MAX_RANGES = 100_000  # ranges read from the tree: as many as the pages a page tree may list (ingest.pdf_tree)
MAX_ROMAN = 3_999  # the largest number Roman numerals write without other conventions
MAX_LETTERS = 512  # AAA…: pypdf's bound on a label's letters


def page_labels(root: DictionaryObject, pages: int) -> list[str]:
    """The label of each of the first ``pages`` pages of the PDF whose catalog is ``root``."""
    tree = _get(root.get("/PageLabels")) if isinstance(root, DictionaryObject) else None
    ranges = sorted(_ranges(tree), key=lambda pair: pair[0]) if isinstance(tree, DictionaryObject) else []
    starts = [start for start, _ in ranges]
    labels = []
    for index in range(pages):
        at = bisect.bisect_right(starts, index) - 1
        labels.append(_label(ranges[at][1], ranges[at][0], index) if at >= 0 else str(index + 1))
    return labels


def _ranges(tree: DictionaryObject) -> list[tuple[int, object]]:
    """(first page index, label dictionary) of every range of the number tree, leaves in the order listed."""
    found, seen = [], set()
    stack = [(tree, 0)]
    while stack and len(found) < MAX_RANGES:
        node, depth = stack.pop()
        if id(node) in seen or depth > MAX_DEPTH:
            continue
        seen.add(id(node))
        nums = _get(node.get("/Nums"))
        if isinstance(nums, ArrayObject):
            for i in range(0, len(nums) - 1, 2):
                if isinstance(nums[i], int) and not isinstance(nums[i], bool):
                    found.append((int(nums[i]), _get(nums[i + 1])))
            continue
        kids = _get(node.get("/Kids"))
        if isinstance(kids, ArrayObject):
            stack += [(kid, depth + 1) for kid in reversed([_get(k) for k in kids])
                      if isinstance(kid, DictionaryObject)]
    return found[:MAX_RANGES]


def _label(style: object, start: int, index: int) -> str:
    """Page ``index``'s label in the range that starts at page ``start`` with ``style``; its place if unwritable."""
    if not isinstance(style, DictionaryObject):
        return str(index + 1)
    first = style.get("/St", 1)
    prefix = style.get("/P", "")
    if not isinstance(first, int) or not isinstance(prefix, str):
        return str(index + 1)
    number = index - start + int(first)
    written = _written(style.get("/S"), number)
    return str(index + 1) if written is None else str(prefix) + written


def _written(style: object, number: int) -> str | None:
    """``number`` in ``style``: None where the style is unknown or cannot write it."""
    if style is None:
        return ""
    if number <= 0 or style not in ("/D", "/R", "/r", "/A", "/a"):
        return None
    if style == "/D":
        return str(number)
    if style in ("/R", "/r"):
        return None if number > MAX_ROMAN else (_roman(number) if style == "/R" else _roman(number).lower())
    repeats, letter = divmod(number - 1, 26)
    if repeats >= MAX_LETTERS:
        return None
    written = chr(ord("A") + letter) * (repeats + 1)
    return written if style == "/A" else written.lower()


_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
          (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


def _roman(number: int) -> str:
    parts = []
    for value, symbol in _ROMAN:
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return "".join(parts)


def _get(value):
    """The object ``value`` refers to; None when it cannot be read (a damaged reference)."""
    try:
        return value.get_object() if value is not None else None
    except Exception:  # noqa: BLE001 - a label range that cannot be read is labelled by the page's place
        return None
