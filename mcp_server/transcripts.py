"""read_file's ``heading`` on a recording's subtitles or transcript (``.srt``, ``.vtt``: ``ingest.subtitles``): its
passages as the index holds them, each under the time its first cue starts, below the file's title. A hit reads
'Lecture 07 > 00:41:12', but the file has no '#' lines, and read_file(heading='00:41:12') said it had no headings;
its passages are packed by the model's tokens at indexing, so they are read from the index, as a PDF's outline is."""
from __future__ import annotations

import re

from search.index import chunk_reads

SUBTITLES = (".srt", ".vtt")
CLOCK = re.compile(r"\d{2,}:\d{2}:\d{2}")  # ingest.subtitles.clock's


def transcript_headings(conn, relative: str, indexed) -> list[tuple[int, int, str]] | None:
    """(line, 0-based, level, name) of a transcript's title (level 1, its first line) and of each passage's time
    (level 2, at its first cue's lines), from the index; None for any other file, or one not in the index."""
    if indexed is None or not relative.lower().endswith(SUBTITLES):
        return None
    headings: list[tuple[int, int, str]] = []
    for chunk in chunk_reads.file_chunks(conn, indexed["id"]):
        *title, time = (chunk["heading_path"] or "").split(" > ")
        if not title or not chunk["start_line"] or not CLOCK.fullmatch(time) or \
                any(name == time for _, _, name in headings):  # a cue over the limit, cut: one time, its first line
            continue
        if not headings:
            headings.append((0, 1, " > ".join(title)))
        headings.append((chunk["start_line"] - 1, 2, time))
    return headings or None
