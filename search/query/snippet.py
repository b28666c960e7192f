"""A short passage of a chunk around the query's words, with the matches marked **like this**."""
from __future__ import annotations

import re

from search.query.text import CJK_RANGES, CJK_RUN, WORD, normalise, split_scripts

# Where a Latin (Cyrillic, ...) word starts and ends: as \b, except that a CJK character is a border too,
# since search splits '云仓WMS' into 云仓 and WMS, and so is '_', where the tokenizer splits 'wal_checkpoint'.
_LETTER = rf"[^\W_{CJK_RANGES}]"
_START, _END = rf"(?<!{_LETTER})", rf"(?!{_LETTER})"
_ALPHA = rf"[^\W\d_{CJK_RANGES}]"  # a letter: what a stem's ending may add ('index' + 'ed')

WIDTH = 240


def snippet(text: str, query: str, width: int = WIDTH, skip=frozenset()) -> str:
    """About ``width`` characters of ``text`` from a little before the matches that show the most of the query's
    words (the first such place); ``skip``: words of the query not to mark (the common ones keyword search
    drops, search.query.keyword.common_words)."""
    pattern = _pattern(query, skip)
    match = _densest(pattern, text, width - width // 3) if pattern else None
    start = 0 if match is None else max(0, match.start() - width // 3)
    if start:
        space = text.find(" ", start, start + 20)
        start = space + 1 if space >= 0 else start
    window = text[start:start + width]
    marked = _mark(window, pattern) if pattern else window
    marked = " ".join(marked.split())
    return ("…" if start else "") + marked + ("…" if start + width < len(text) else "")


def _densest(pattern: re.Pattern, text: str, reach: int) -> re.Match | None:
    """The match that begins the stretch of ``reach`` characters holding the most different matched words: a
    phrase from a PDF page shows where it is, not where 'and' first occurs in the passage."""
    matches = [m for m in pattern.finditer(text) if m.end() > m.start()]
    best, most, last = None, 0, 0
    for first, match in enumerate(matches):
        last = max(last, first)
        while last + 1 < len(matches) and matches[last + 1].end() <= match.start() + reach:
            last += 1
        words = len({normalise(m.group()) for m in matches[first:last + 1]})
        if words > most:
            best, most = match, words
    return best


def _mark(text: str, pattern: re.Pattern) -> str:
    """Each match **marked**, matches that touch ('云仓' then 'WMS') as one."""
    spans: list[list[int]] = []
    for match in pattern.finditer(text):
        if spans and match.start() == spans[-1][1]:
            spans[-1][1] = match.end()
        elif match.end() > match.start():
            spans.append([match.start(), match.end()])
    out, last = [], 0
    for start, end in spans:
        out += [text[last:start], "**", text[start:end], "**"]
        last = end
    return "".join(out) + text[last:]


def _pattern(query: str, skip=frozenset()) -> re.Pattern | None:
    words = set()
    for word in WORD.findall(normalise(query)):
        for piece in split_scripts(word):  # as search splits it: '曲美contract' is 曲美 and contract
            if piece in skip:
                continue
            if CJK_RUN.fullmatch(piece):  # the run where it is whole, else the bigrams search matched
                words.update(re.escape(piece[i:i + 2]) for i in range(max(1, len(piece) - 1)))
                words.add(re.escape(piece))
            elif len(piece) < 4 or not piece.isalpha():  # 'topic3', 'sha256', '2024' are words, not stems
                words.add(_START + re.escape(piece) + _END)
            else:  # a stem, so 'indexing' marks 'indexed' too
                words.add(_START + re.escape(piece[: max(4, len(piece) - 3)]) + _ALPHA + "*")
    if not words:
        return None
    ordered = sorted(words, key=len, reverse=True)[:64]
    return re.compile("|".join(ordered), re.IGNORECASE)
