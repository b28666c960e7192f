"""A short passage of a chunk around the query's words, with the matches marked **like this**."""
from __future__ import annotations

import re

from search.query.text import CJK_RUN, WORD, normalise, split_scripts

WIDTH = 240


def snippet(text: str, query: str, width: int = WIDTH) -> str:
    pattern = _pattern(query)
    match = pattern.search(text) if pattern else None
    start = 0 if match is None else max(0, match.start() - width // 3)
    if start:
        space = text.find(" ", start, start + 20)
        start = space + 1 if space >= 0 else start
    window = text[start:start + width]
    marked = pattern.sub(lambda m: f"**{m.group(0)}**", window) if pattern else window
    marked = " ".join(marked.split())
    return ("…" if start else "") + marked + ("…" if start + width < len(text) else "")


def _pattern(query: str) -> re.Pattern | None:
    words = set()
    for word in WORD.findall(normalise(query)):
        for piece in split_scripts(word):  # as search splits it: '曲美contract' is 曲美 and contract
            if CJK_RUN.fullmatch(piece):  # the run where it is whole, else the bigrams search matched
                words.update(re.escape(piece[i:i + 2]) for i in range(max(1, len(piece) - 1)))
                words.add(re.escape(piece))
            elif len(piece) < 4:
                words.add(r"\b" + re.escape(piece) + r"\b")
            else:  # a stem, so 'indexing' marks 'indexed' too
                words.add(r"\b" + re.escape(piece[: max(4, len(piece) - 3)]) + r"\w*")
    if not words:
        return None
    ordered = sorted(words, key=len, reverse=True)[:64]
    return re.compile("|".join(ordered), re.IGNORECASE)
