"""Fountain screenplays (.fountain: Highland's, Slugline's, Final Draft's and Scrivener's export; fountain.io's
syntax) read as notes by their scenes: each scene heading (``INT. HARBOURMASTER'S OFFICE - DAY``, ``EXT.``, ``EST.``,
``INT./EXT.``, ``I/E``, or a line forced with a leading ``.``) heads the scene under it, and the outline's sections
(``# Act One``, ``## Lisbon``) head the scenes inside them, as a Markdown note's headings do: 'which scene is set in
the harbourmaster's office' names the scene. Read as nothing before (a kind Sift did not read).

The title page (``Title:``, ``Credit:``, ``Author:``, ``Draft date:`` … before the first blank line) titles the
script by its ``Title:`` (else its file's name), its ``Author:`` is the script's author (as a PDF's: search's author
filter, a hit's '(by …)'), and it stays text, so its author and date are found. The boneyard
(``/* … */``, text the writer put aside) is left out; dialogue, action, notes (``[[…]]``), synopses (``= …``) and
transitions stay as written, each line the file's line, so a hit's lines are the file's."""
from __future__ import annotations

import re

from ingest.document import Document, sections_at_headings, title_from_name

# a scene heading: INT./EXT./EST./I/E at a line's start (a space or a dot after), or a line forced with one '.'
SCENE = re.compile(r"(?:int|ext|est|int\.?/ext|i/e)[. ]", re.IGNORECASE)
FORCED = re.compile(r"\.(?=[^.\s])")
SCENE_NUMBER = re.compile(r"\s*#[\w.-]+#\s*$")  # '#12A#' at a scene heading's end
SECTION = re.compile(r"(#{1,6})\s*(\S.*)")
TITLE_KEY = re.compile(r"([A-Za-z][A-Za-z ]{0,30}):[ \t]*(.*)")
EMPHASIS = re.compile(r"[*_]+")
SCENE_LEVEL = 7  # below every section's (# … ######)


def parse_fountain(path: str, text: str) -> Document:
    shown, headings, page = _read(text)
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    author = page.get("author") or page.get("authors") or page.get("written by")
    meta = {"author": author} if author else {}  # as a PDF's or a .docx's: '(by …)', and search's author filter
    return Document(kind="note", title=page.get("title") or title_from_name(stem), meta=meta,
                    sections=sections_at_headings(shown, headings, 0, len(shown), bare_opens_next=True))


def fountain_headings(text: str) -> list[tuple[int, int, str]]:
    """(line of the file, 0-based, level, name) of each section and scene heading as parse_fountain reads them:
    read_file's ``heading`` reads a scene by them (mcp_server.headings)."""
    return _read(text)[1]


def _read(text: str) -> tuple[list[str], list[tuple[int, int, str]], dict[str, str]]:
    """(the lines as read, the boneyard blanked; the headings; the title page's values by their lowercase keys)."""
    lines = text.split("\n")
    shown = _without_boneyard(lines)
    page, start = _title_page(shown)
    headings = []
    for index in range(start, len(shown)):
        line = shown[index].strip()
        if not line or (index > start and shown[index - 1].strip()):  # a heading stands after a blank line
            continue
        section = SECTION.fullmatch(line)
        if section:
            headings.append((index, len(section.group(1)), section.group(2).strip()))
            continue
        if SCENE.match(line) or FORCED.match(line):
            name = SCENE_NUMBER.sub("", line[1:] if FORCED.match(line) else line).strip()
            below = shown[index + 1].strip() if index + 1 < len(shown) else ""
            if name and not below:  # a scene heading has a blank line after it too
                headings.append((index, SCENE_LEVEL, name))
    return shown, headings, page


def _without_boneyard(lines: list[str]) -> list[str]:
    """``lines`` with what stands between ``/*`` and ``*/`` blanked, the line count kept."""
    shown, inside = [], False
    for line in lines:
        kept, rest = "", line
        while rest:
            if inside:
                end = rest.find("*/")
                if end < 0:
                    rest = ""
                    break
                rest, inside = rest[end + 2:], False
            else:
                start = rest.find("/*")
                if start < 0:
                    kept, rest = kept + rest, ""
                    break
                kept, rest, inside = kept + rest[:start], rest[start + 2:], True
        shown.append(kept.rstrip() if kept.strip() else "")
    return shown


def _title_page(lines: list[str]) -> tuple[dict[str, str], int]:
    """(the title page's values by their lowercase keys, 'title', 'author' …, each value's lines joined, its emphasis
    marks left out; the line after the title page), ({}, 0) for a script without one: its first line 'Key: value'
    (not a scene heading), lines up to the first blank one."""
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if first == len(lines) or not TITLE_KEY.fullmatch(lines[first].strip()) or SCENE.match(lines[first].strip()):
        return {}, 0
    values: dict[str, list[str]] = {}
    key, end = "", first
    while end < len(lines) and lines[end].strip():
        line = lines[end]
        pair = TITLE_KEY.fullmatch(line.strip()) if not line[:1].isspace() else None
        if pair:
            key = pair.group(1).strip().lower()
            value = pair.group(2)
        else:
            value = line
        if value.strip():
            values.setdefault(key, []).append(EMPHASIS.sub("", value).strip())
        end += 1
    return {key: " ".join(parts) for key, parts in values.items()}, end
