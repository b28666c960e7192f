"""Split a document's sections into chunks under a token limit, with overlap.

The chunker is given the model's token counter (``count(text) -> int``, special
tokens included), so it stays free of the model. A section is cut into units
that tile its text exactly: lines, with atomic blocks (code fences, tables,
math) kept whole when they fit, and over-long lines cut at sentences, then
words, then characters. Windows are runs of whole units; each window after the
first starts with the previous window's last units, up to ``overlap`` tokens.
Every character of a section lands in at least one chunk, in order.

A chunk is embedded with the headings it sits under that its own text does
not show (``Chunk.context``): the second window of a long section under
"# Dendritic arbor geometry" is embedded as "Dendritic arbor geometry" and
a blank line before its text, so what the section is about reaches every
window, not only the first. The budget of a split section leaves room for
that context. Measured on SciFact (multilingual-e5-small, semantic
nDCG@10): 0.638 without, 0.658 with it (``bench/quality.py``).
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Callable

from ingest.document import Document, Section

Counter = Callable[[str], int]
# Places to cut an over-long line, tried in order: sentence ends, then spaces.
CUT_POINTS = (re.compile(r"(?<=[.!?;:。！？；：])\s*"), re.compile(r"\s+(?=\S)"))


@dataclass
class Chunk:
    text: str
    heading_path: list[str]
    tokens: int
    start_line: int | None = None
    end_line: int | None = None
    page: int | None = None
    end_page: int | None = None
    offset: int = 0  # where the text starts in its section
    context: str = ""  # the headings above the text that the text does not show, "A > B"

    @property
    def embedding_text(self) -> str:
        """What the model embeds (and what the vector is keyed by): the context, a blank line, the text."""
        return embedding_text(self.context, self.text)


def embedding_text(context: str, text: str) -> str:
    return f"{context}\n\n{text}" if context else text


def context_of(heading_path: list[str], text: str) -> str:
    """The headings of ``heading_path`` that ``text`` does not show: all of them, or, when the text's
    first line holds the last heading (a section's first window starts with its own heading), its parents."""
    names = [name.strip() for name in heading_path if name.strip()]
    first_line = text.lstrip().split("\n", 1)[0]
    if names and names[-1] in first_line:
        names = names[:-1]
    return " > ".join(names)


def chunk_document(doc: Document, count: Counter, max_tokens: int, overlap: int) -> list[Chunk]:
    chunks: list[Chunk] = []
    for section in doc.sections:
        chunks.extend(chunk_section(section, count, max_tokens, overlap))
    return chunks


def chunk_section(section: Section, count: Counter, max_tokens: int, overlap: int) -> list[Chunk]:
    text = section.text
    if not text.strip():
        return []
    whole = count(text)
    lead = context_of(section.heading_path, text)
    if whole <= max_tokens and (not lead or count(embedding_text(lead, text)) <= max_tokens):
        return [_chunk(section, 0, len(text), whole)]
    special = count("")
    room = _context_room(section.heading_path, count, special, max_tokens)
    budget = max_tokens - room - special
    if budget <= 0:
        raise ValueError(f"chunk size {max_tokens} leaves no room beside {special} special tokens")
    units = _units(text, section.atomic, count, special, budget)
    return [_chunk(section, start, end, tokens, with_context=room > 0)
            for start, end, tokens in _windows(text, units, count, max_tokens - room, overlap, special)]


def _context_room(heading_path: list[str], count: Counter, special: int, max_tokens: int) -> int:
    """Tokens a window of this section keeps free for its context (the whole heading path, a blank line
    and a token of slack where the join tokenises differently); 0 where that would take more than a
    quarter of the limit: such a section's windows are embedded without context."""
    full = " > ".join(name.strip() for name in heading_path if name.strip())
    if not full:
        return 0
    room = count(full + "\n\n") - special + 1
    return room if room <= max_tokens // 4 else 0


def _units(text, atomic, count, special, budget) -> list[tuple[int, int, int]]:
    """(start, end, tokens) spans that tile ``text``, each at most ``budget`` tokens."""
    spans = _line_spans(text)
    spans = _merge_atomic(spans, atomic, text, count, special, budget)
    units = []
    for start, end in spans:
        tokens = count(text[start:end]) - special
        if tokens <= budget:
            units.append((start, end, tokens))
        else:
            units.extend(_split_long(text, start, end, count, special, budget))
    return units


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    while start < len(text):
        newline = text.find("\n", start)
        end = len(text) if newline < 0 else newline + 1
        spans.append((start, end))
        start = end
    return spans


def _merge_atomic(spans, atomic, text, count, special, budget):
    """Join the lines of each atomic block into one span when the block fits the budget."""
    if not atomic:
        return spans
    merged, i = [], 0
    for block_start, block_end in sorted(atomic):
        while i < len(spans) and spans[i][1] <= block_start:
            merged.append(spans[i])
            i += 1
        j = i
        while j < len(spans) and spans[j][0] < block_end:
            j += 1
        if j > i and count(text[spans[i][0]:spans[j - 1][1]]) - special <= budget:
            merged.append((spans[i][0], spans[j - 1][1]))
            i = j
    merged.extend(spans[i:])
    return merged


def _split_long(text, start, end, count, special, budget, level=0):
    """Cut one over-long span at sentence ends, then spaces, then characters."""
    if level >= len(CUT_POINTS):
        return _split_chars(text, start, end, count, special, budget)
    cuts = {start, end} | {m.end() for m in CUT_POINTS[level].finditer(text, start, end)
                           if start < m.end() < end}
    cuts = sorted(cuts)
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        tokens = count(text[a:b]) - special
        if tokens <= budget:
            pieces.append((a, b, tokens))
        else:
            pieces.extend(_split_long(text, a, b, count, special, budget, level + 1))
    return pieces


def _split_chars(text, start, end, count, special, budget):
    """Cut a span without sentence ends or spaces (base64, a minified blob, a long CJK run).

    Each piece is sized from the characters per token of the piece before and then
    checked, shrinking in proportion while it is over. That costs one or two counts of
    about a piece each, so a long run is cut in linear time (searching the whole rest
    of the run for each piece made a 200 KB line of base64 take minutes).
    """
    pieces = []
    step = max(1, budget)  # characters to try; at least one character per token is typical
    while start < end:
        stop = min(end, start + step)
        tokens = count(text[start:stop]) - special
        while tokens > budget and stop - start > 1:
            stop = start + max(1, min(stop - start - 1, (stop - start) * budget * 15 // (tokens * 16)))
            tokens = count(text[start:stop]) - special
        pieces.append((start, stop, tokens))
        grown = (stop - start) * budget * 31 // (max(tokens, 1) * 32)  # aim just under the budget next time
        step = max(1, grown if stop < end else step)
        start = stop
    return pieces


def _windows(text, units, count, max_tokens, overlap, special):
    """Greedy runs of units under the limit; each next run backs up by <= overlap tokens."""
    windows, first = [], 0
    while first < len(units):
        last, total = first, units[first][2]
        while last + 1 < len(units) and special + total + units[last + 1][2] <= max_tokens:
            last += 1
            total += units[last][2]
        start, end = units[first][0], units[last][1]
        exact = count(text[start:end])
        while exact > max_tokens and last > first:  # joins tokenised differently
            last -= 1
            end = units[last][1]
            exact = count(text[start:end])
        windows.append((start, end, exact))
        if last + 1 >= len(units):
            break
        nxt, carried = last + 1, 0
        while nxt - 1 > first and carried + units[nxt - 1][2] <= overlap:
            nxt -= 1
            carried += units[nxt][2]
        first = nxt
    return windows


def _chunk(section: Section, start: int, end: int, tokens: int, with_context: bool = True) -> Chunk:
    text = section.text
    chunk = Chunk(text=text[start:end], heading_path=list(section.heading_path), tokens=tokens, offset=start)
    if with_context:
        chunk.context = context_of(section.heading_path, chunk.text)
    if section.start_line is not None:
        chunk.start_line = section.start_line + text.count("\n", 0, start)
        body = text[start:end].rstrip()  # trailing blank lines name no line
        chunk.end_line = chunk.start_line + body.count("\n")
    if section.page_starts:
        offsets = [offset for offset, _ in section.page_starts]
        chunk.page = section.page_starts[max(0, bisect.bisect_right(offsets, start) - 1)][1]
        chunk.end_page = section.page_starts[max(0, bisect.bisect_right(offsets, max(start, end - 1)) - 1)][1]
    elif section.page is not None:
        chunk.page, chunk.end_page = section.page, section.end_page or section.page
    return chunk
