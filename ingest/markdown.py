"""Markdown notes: front matter, sections by heading, links.

Each heading starts a section whose heading path is the chain of headings
above it (``Clients > 曲美 > 合同``). Fenced code blocks, tables and math
blocks are marked atomic so the chunker keeps them whole when it can.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

import yaml

from ingest.document import Document, Section

HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
WIKI_LINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")
MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


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
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            try:
                data = yaml.safe_load("\n".join(lines[1:end]))
            except yaml.YAMLError:
                return {}, 0  # not front matter after all: index it as text
            if not isinstance(data, dict):
                return {}, 0
            return _clean_meta(data), end + 1
    return {}, 0


def _clean_meta(data: dict) -> dict:
    meta: dict = {}
    for key in ("title", "date", "created", "updated", "modified"):
        if data.get(key) not in (None, ""):
            meta[key] = str(data[key])
    for key in ("tags", "aliases"):
        value = data.get(key)
        if isinstance(value, str):
            value = [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]
        if isinstance(value, list):
            meta[key] = [str(v) for v in value if v is not None]
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
            path = [(lv, h) for lv, h in path if lv < level] + [(level, heading.group(2).strip())]
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
            return match.group(2).strip()
    return PurePosixPath(path).stem


def _links(text: str) -> list[str]:
    links = [m.group(1).strip() for m in WIKI_LINK.finditer(text)]
    links += [m.group(1) for m in MD_LINK.finditer(text) if "://" not in m.group(1)
              and not m.group(1).startswith(("#", "mailto:"))]
    return sorted(set(links))
