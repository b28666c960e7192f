"""Where a note cites the footnotes a hit defines: a search for words only a footnote holds ('Dunmore station log')
finds the footnote's definition at the chapter's end ('[^1]: Beaufort figures from … Dunmore station log'), passages
away from the sentence that cites it. The hit says where ``[^1]`` stands, so the reader goes to the story, not the
list of sources. The citing passage is not made to match the footnote's words itself: its text does not show them,
so its snippet would mark none of the words it was found by, and every search for a source would give two hits of
one footnote (the passage is embedded with the footnote, so a search by meaning finds it: ``ingest.chunk``)."""
from __future__ import annotations

import re

from search.index import chunk_reads
from search.query.text import FOOTNOTE_REFERENCE

DEFINITION = re.compile(r"(?m)^[ ]{0,3}\[\^([^\]\s]{1,100})\]:")
LINES_SHOWN = 5  # lines named for each footnote


def defined(text: str) -> list[str]:
    """The labels of the footnotes ``text`` defines, in order."""
    return list(dict.fromkeys(DEFINITION.findall(text))) if "]:" in text else []


def cited_at(conn, file_id: int, labels: list[str]) -> dict[str, list[int]]:
    """{label: the first LINES_SHOWN lines of the file that cite it} of the footnotes ``labels`` that the file's
    passages cite; a label cited nowhere is left out."""
    lines: dict[str, set[int]] = {label: set() for label in labels}
    for chunk in chunk_reads.file_chunks(conn, file_id):
        text, first = chunk["text"], chunk["start_line"]
        if first is None or "[^" not in text:
            continue
        for m in FOOTNOTE_REFERENCE.finditer(text):
            if m.group(1) in lines:
                lines[m.group(1)].add(first + text.count("\n", 0, m.start()))
    return {label: sorted(found)[:LINES_SHOWN] for label, found in lines.items() if found}


def said(cited: dict[str, list[int]]) -> str:
    """'[^1] cited at line 7; [^2] at lines 9, 30'."""
    parts = [f"[^{label}] {'cited ' if i == 0 else ''}at line{'s' if len(at) > 1 else ''} "
             f"{', '.join(map(str, at))}" for i, (label, at) in enumerate(cited.items())]
    return "; ".join(parts)
