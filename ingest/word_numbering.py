"""A Word paragraph's number as Word shows it ('12.3', '(b)', 'ii.', '§ 5'), computed from the numbering part.

Contracts number their clauses with Word's own numbering (a list's, or a heading style's): the numbers are in no
run of text, only in numbering.xml's level formats ('%1.%2', '(%3)') and the count of paragraphs before. They were
read as '- ' items and headings without their numbers, so 'Section 12.3(b)' and '§ 5' were nowhere in a contract
that shows them on every page, and read_file showed '- ' where the reader of the document sees '12.3'.
Counted as Word counts in the usual cases: a level's count goes up at each paragraph of that level and the deeper
levels start again; a list (w:num) shares its counts with the lists of the same definition (w:abstractNum), unless
it sets a level's start (w:startOverride), which starts it again. A bullet, or a level showing nothing, is no number.
"""
from __future__ import annotations

import re

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
LEVELS = 9
_NUMBER = re.compile(r"-?[0-9]{1,9}")  # a number as Word writes one: ASCII digits, nine at most
MOST = {"lowerLetter": 780, "upperLetter": 780, "lowerRoman": 3999, "upperRoman": 3999}  # Word's last: zz, mmmcmxcix
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def _val(element, tag: str) -> str | None:
    found = element.find(W + tag) if element is not None else None
    return found.get(W + "val") if found is not None else None


def _int(value: str | None, default: int) -> int:
    """A number the file writes, within what Word writes (a hostile '9' * 5000 is no number, nor '--5' or '²', which
    int() refuses: a ValueError that failed the document)."""
    return int(value) if value is not None and _NUMBER.fullmatch(value) else default


def _roman(n: int) -> str:
    out = ""
    for value, letters in _ROMAN:
        while n >= value:
            out, n = out + letters, n - value
    return out


def _letters(n: int) -> str:  # Word's: a … z, then aa … zz
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1) if n > 0 else str(n)


def formatted(n: int, fmt: str) -> str:
    """``n`` as ``fmt`` writes it; as a decimal where Word's letters or Roman numerals end (zz, 3999): a start of
    a billion in letters was a billion letters."""
    if n > MOST.get(fmt, n):
        return str(n)
    if fmt == "lowerLetter":
        return _letters(n)
    if fmt == "upperLetter":
        return _letters(n).upper()
    if fmt == "lowerRoman":
        return _roman(n) if n > 0 else str(n)
    if fmt == "upperRoman":
        return _roman(n).upper() if n > 0 else str(n)
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


class Numbering:
    """The document's lists and their counts so far; ``label`` counts a paragraph and gives its number."""

    def __init__(self, document):
        self.levels: dict[str, dict[int, tuple[int, str, str | None, bool]]] = {}  # abstract -> ilvl -> level
        self.lists: dict[str, tuple[str, dict[int, int]]] = {}  # numId -> (abstract, {ilvl: start override})
        self.counts: dict[str, list[int | None]] = {}
        self.started: set[tuple[str, int]] = set()  # (numId, ilvl) whose start override was applied
        self.styles: dict[str, tuple[str | None, str | None]] = {}  # style id -> (numId, ilvl), its own or based on
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError, ValueError):
            root = None
        if root is not None:
            for abstract in root.iter(W + "abstractNum"):
                levels = {}
                for lvl in abstract.iter(W + "lvl"):
                    text = lvl.find(W + "lvlText")
                    levels[_int(lvl.get(W + "ilvl"), 0)] = (
                        _int(_val(lvl, "start"), 1), _val(lvl, "numFmt") or "decimal",
                        text.get(W + "val") if text is not None else None, lvl.find(W + "isLgl") is not None)
                self.levels[abstract.get(W + "abstractNumId") or ""] = levels
            for num in root.iter(W + "num"):
                overrides = {_int(o.get(W + "ilvl"), 0): _int(_val(o, "startOverride"), 1)
                             for o in num.iter(W + "lvlOverride") if o.find(W + "startOverride") is not None}
                self.lists[num.get(W + "numId") or ""] = (_val(num, "abstractNumId") or "", overrides)
        self._read_styles(document)

    def _read_styles(self, document) -> None:
        try:
            root = document.styles.element
        except (KeyError, ValueError, AttributeError):
            return
        own, based = {}, {}
        for style in root.iter(W + "style"):
            id_ = style.get(W + "styleId") or ""
            props = style.find(f"{W}pPr/{W}numPr")
            if props is not None:
                own[id_] = (_val(props, "numId"), _val(props, "ilvl"))
            based[id_] = _val(style, "basedOn")
        for id_ in based:
            seen, at = set(), id_
            while at is not None and at not in own and at not in seen:
                seen.add(at)
                at = based.get(at)
            if at in own:
                self.styles[id_] = own[at]

    def label(self, style_id: str, num_id: str | None, ilvl: str | None) -> str | None:
        """The number Word shows before a paragraph of style ``style_id`` whose own w:numPr says ``num_id`` and
        ``ilvl`` (None: not said, its style's are taken), counted; None for a bullet, no list or no number shown."""
        by_style = self.styles.get(style_id, (None, None))
        num_id = num_id if num_id is not None else by_style[0]
        ilvl = ilvl if ilvl is not None else by_style[1]
        if num_id is None or num_id == "0" or num_id not in self.lists:
            return None
        abstract, overrides = self.lists[num_id]
        levels = self.levels.get(abstract)
        level = min(max(_int(ilvl, 0), 0), LEVELS - 1)
        if not levels or level not in levels:
            return None
        start, fmt, text, _ = levels[level]
        if fmt in ("bullet", "none") or not text:
            return None
        counts = self.counts.setdefault(abstract, [None] * LEVELS)
        if level in overrides and (num_id, level) not in self.started:
            self.started.add((num_id, level))
            counts[level] = None
            start = overrides[level]
        counts[level] = start if counts[level] is None else counts[level] + 1
        for deeper in range(level + 1, LEVELS):
            counts[deeper] = None
        legal = levels[level][3]

        def shown(match_level: int) -> str:
            if match_level not in levels:
                return ""
            at_start, at_fmt, _, _ = levels[match_level]
            n = counts[match_level] if counts[match_level] is not None else at_start
            return formatted(n, "decimal" if legal else at_fmt)

        out = text
        for n in range(LEVELS, 0, -1):
            out = out.replace(f"%{n}", shown(n - 1))
        return out.strip() or None
