"""Markdown notes: front matter, sections by heading, links.

Each heading starts a section whose heading path is the chain of headings
above it (``Clients > 曲美 > 合同``). Fenced code blocks, tables and math
blocks are marked atomic so the chunker keeps them whole when it can.

Everything here runs in time linear in the note's length, whatever the note
holds: headings, links and front matter are found without patterns that can
backtrack over a long line (a 20 KB run of ``[`` used to stall the worker).
"""
from __future__ import annotations

import datetime
import re
from pathlib import PurePosixPath

import yaml

from ingest.document import Document, Section

# A heading's text is group 2 with trailing spaces, tabs and closing #s stripped (heading_text).
HEADING = re.compile(r"^(#{1,6})[ \t]+(.*)$")
FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
WIKI_CLOSE = re.compile(r"\]\]")
MD_OPEN = re.compile(r"\]\(")
URL_END = re.compile(r"[)\s]")
LINK_TITLE = re.compile(r"\s+\"[^\"]*\"\)")
FRONT_MATTER_LINES = 1000  # a closing '---' further down is not front matter
META_ITEMS = 100  # tags or aliases kept; each is indexed with every chunk of the note
META_CHARS = 500
SCALARS = (str, int, float, datetime.date)


def parse_markdown(path: str, text: str) -> Document:
    lines = text.split("\n")
    meta, body_start = _front_matter(lines)
    sections = _sections(lines, body_start)
    title = _title(meta, sections, path)
    meta["links"] = _links(text)
    return Document(kind="note", title=title, sections=sections, meta=meta)


def _front_matter(lines: list[str]) -> tuple[dict, int]:
    """YAML between '---' lines at the top; returns (metadata, first body line index)."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for end in range(1, min(len(lines), FRONT_MATTER_LINES)):
        if lines[end].strip() in ("---", "..."):
            try:
                data = yaml.safe_load("\n".join(lines[1:end]))
            except (yaml.YAMLError, RecursionError):
                return {}, 0  # not front matter after all: index it as text
            if not isinstance(data, dict):
                return {}, 0
            return _clean_meta(data), end + 1
    return {}, 0


def _clean_meta(data: dict) -> dict:
    """Scalars only: str() of a nested value made of YAML aliases can be exponentially long."""
    meta: dict = {}
    for key in ("title", "date", "created", "updated", "modified"):
        value = data.get(key)
        if isinstance(value, SCALARS) and value != "":
            meta[key] = str(value)[:META_CHARS]
    for key in ("tags", "aliases"):
        value = data.get(key)
        if isinstance(value, str):
            value = [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]
        if isinstance(value, list):
            meta[key] = [str(v)[:META_CHARS] for v in value if isinstance(v, SCALARS)][:META_ITEMS]
    return meta


def _sections(lines: list[str], start: int) -> list[Section]:
    sections: list[Section] = []
    path: list[tuple[int, str]] = []  # (level, heading)
    begin, fence = start, None
    for i in range(start, len(lines)):
        line = lines[i]
        fence_match = FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip()[len(marker):]:
                fence = None
            continue
        heading = HEADING.match(line) if fence is None else None
        if heading:
            _add(sections, lines, begin, i, [h for _, h in path])
            level = len(heading.group(1))
            path = [(lv, h) for lv, h in path if lv < level] + [(level, heading_text(heading))]
            begin = i
    _add(sections, lines, begin, len(lines), [h for _, h in path])
    return sections


def _add(sections: list[Section], lines: list[str], begin: int, end: int, heading_path: list[str]):
    while end > begin and not lines[end - 1].strip():
        end -= 1
    while begin < end and not lines[begin].strip():
        begin += 1
    if begin >= end:
        return
    text = "\n".join(lines[begin:end])
    sections.append(Section(text=text, heading_path=heading_path, start_line=begin + 1,
                            end_line=end, atomic=atomic_blocks(text)))


def atomic_blocks(text: str) -> list[tuple[int, int]]:
    """Character spans of fenced code, tables and $$ math blocks in ``text``."""
    spans: list[tuple[int, int]] = []
    offset, open_at, fence, kind = 0, None, None, None
    for line in text.split("\n"):
        stripped = line.strip()
        end = offset + len(line)
        closed = False
        if kind == "fence":
            marker = FENCE.match(line)
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                spans.append((open_at, end))
                kind, closed = None, True
        elif kind == "math":
            if stripped.endswith("$$"):
                spans.append((open_at, end))
                kind, closed = None, True
        elif kind == "table" and not stripped.startswith("|"):
            spans.append((open_at, offset - 1))
            kind = None
        if kind is None and not closed:
            marker = FENCE.match(line)
            if marker:
                kind, fence, open_at = "fence", marker.group(1), offset
            elif stripped.startswith("$$") and not (len(stripped) > 2 and stripped.endswith("$$")):
                kind, open_at = "math", offset
            elif stripped.startswith("|"):
                kind, open_at = "table", offset
        offset = end + 1
    if kind is not None:
        spans.append((open_at, len(text)))
    return spans


def _title(meta: dict, sections: list[Section], path: str) -> str:
    if meta.get("title"):
        return meta["title"]
    for section in sections:
        first = section.text.split("\n", 1)[0]
        match = HEADING.match(first)
        if match and len(match.group(1)) == 1:
            return heading_text(match)
    return PurePosixPath(path).stem


def heading_text(match: re.Match) -> str:
    return match.group(2).rstrip(" \t#").strip()


def _links(text: str) -> list[str]:
    links = wiki_links(text)
    links += [url for url in markdown_links(text) if "://" not in url and not url.startswith(("#", "mailto:"))]
    return sorted(set(links))


def wiki_links(text: str) -> list[str]:
    """Targets of ``[[target#heading|label]]``: what the pattern
    ``\\[\\[([^\\]|#]+)(?:#[^\\]|]*)?(?:\\|[^\\]]*)?\\]\\]`` finds, found from each ``]]`` backwards."""
    targets, after = [], 0  # after: where the previous ']]' ended
    for close in WIKI_CLOSE.finditer(text):
        end = close.start()
        bracket = text.rfind("]", after, end)  # the link's text holds no ']'
        start = text.find("[[", bracket + 1 if bracket >= 0 else after, end)
        while start >= 0 and (start + 2 == end or text[start + 2] in "|#"):
            start = text.find("[[", start + 1, end)
        after = close.end()
        if start >= 0:
            targets.append(re.split(r"[|#]", text[start + 2:end], maxsplit=1)[0].strip())
    return targets


def markdown_links(text: str) -> list[str]:
    """URLs of ``[label](url "title")``: what ``\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+"[^"]*")?\\)`` finds,
    found from each ``](``, remembering the current run of URL characters and how it closes."""
    urls, after = [], 0  # after: where the previous link ended
    run = (-1, -1, None)  # a span of URL characters, and where the link closes after it (None: it does not)
    for opening in MD_OPEN.finditer(text):
        middle = opening.start()
        if middle < after:
            continue
        bracket = text.rfind("]", after, middle)  # the label holds no ']'
        if text.find("[", bracket + 1 if bracket >= 0 else after, middle) < 0:
            continue
        url = opening.end()
        if not run[0] <= url < run[1]:
            stop = URL_END.search(text, url)
            end = stop.start() if stop else len(text)
            run = (url, end, _link_close(text, end))
        if run[1] > url and run[2] is not None:
            urls.append(text[url:run[1]])
            after = run[2]
    return urls


def _link_close(text: str, end: int) -> int | None:
    """Where a link whose URL ends at ``end`` closes: after ')' or after a quoted title and ')'."""
    if text.startswith(")", end):
        return end + 1
    title = LINK_TITLE.match(text, end)
    return title.end() if title else None
