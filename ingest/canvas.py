"""Obsidian Canvas files (.canvas): their cards, not their JSON.

A canvas is JSON (JSON Canvas 1.0): ``nodes`` of type text (``text``: Markdown), file (``file``: a path from the
vault's folder, a note or a PDF laid on the canvas), link (``url``) and group (``label``), and ``edges``. Indexed as
text it would be ids and coordinates. Each text card is read as a note is (ingest.markdown): its sections, headings,
links and #tags, under the labels of the groups it lies in (outermost first) as its heading path. A link card is a
passage of its URL (its words: the site, the page's name), under its groups, and an edge's label a passage of its
own naming the cards it joins ('Roof → Garden Shed: builds'), so what a canvas says only there is found too. A group holding no text or link card is a passage of its label
alone. A canvas of more than MAX_ITEMS nodes and edges is skipped with the reason: each card is parsed as a note and
placed in the groups holding it, so a hostile 64 MiB canvas of a million cards held its worker for many minutes
(hours, with as many groups). A file card is a link to its file, as a wiki link with its path is, so the
canvas is among a note's backlinks and a PDF's citing notes. Titled by the file name, as Obsidian shows it.

Obsidian writes each node on a line of its own: a card's passages are on the line that holds its id (and its text,
where a canvas written otherwise puts them on lines apart: the lines from one to the other), which read_file shows.
"""
from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from urllib.parse import quote

import numpy as np

from ingest.document import INNER_NAMES, OUTER_NAMES, Document, Section, Skip, shortened, whole_characters
from ingest.markdown import parse_markdown

NEAR = 50  # lines after a node's id that its "text" key is looked for on (a canvas written with a key a line)
# nodes and edges a canvas may hold: 20,000 parse in about 2 s (10,000 cards each in a group of its own, the worst
# case, on a busy 2-core machine); Obsidian's own canvases hold hundreds
MAX_ITEMS = 20_000
# groups around a node gathered, at most: a shortened path's outermost and innermost names, and one more each side
AROUND = OUTER_NAMES + INNER_NAMES + 2
ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*")')


def parse_canvas(path: str, text: str) -> Document:
    title = PurePosixPath(path).stem
    if not text.strip():  # a canvas just created by touch: nothing on it yet
        return Document(kind="note", title=title, sections=[])
    try:
        canvas = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise Skip(f"not a canvas: its JSON does not parse ({str(exc)[:200]})") from None
    nodes = canvas.get("nodes", []) if isinstance(canvas, dict) else None
    if not isinstance(nodes, list):
        raise Skip("not a canvas: no list of nodes (JSON Canvas keeps its cards under 'nodes')")
    edges = canvas.get("edges", [])
    edges = [e for e in edges if isinstance(e, dict)] if isinstance(edges, list) else []
    if len(nodes) + len(edges) > MAX_ITEMS:
        raise Skip(f"a canvas of {len(nodes):,} nodes and {len(edges):,} edges, more than the {MAX_ITEMS:,} Sift reads "
                   "in one canvas: none of its cards is indexed (split it into smaller canvases)")
    nodes = [n for n in nodes if isinstance(n, dict)]
    groups = [n for n in nodes if n.get("type") == "group" and _text(n.get("label"))]
    boxes = _Boxes(groups)
    lines = text.split("\n")
    ids = _id_lines(lines)
    sections, links, wiki, tags, held = [], set(), set(), [], set()
    for node in nodes:
        kind = node.get("type")
        if kind == "file" and _text(node.get("file")):
            links.add("/" + quote(_text(node["file"]).lstrip("/")))  # from the vault's folder, as written
        if kind == "link" and _text(node.get("url")).strip():  # a web page laid on the canvas: its URL's words
            around = boxes.around(node)
            held.update(id(g) for g in _shown(around))
            first, last = _lines(lines, ids, node)
            sections.append(Section(text=" ".join(_text(node["url"]).split()), heading_path=_path(around),
                                    start_line=first, end_line=last))
        if kind != "text" or not _text(node.get("text")).strip():
            continue
        around = boxes.around(node)
        held.update(id(g) for g in _shown(around))
        card = parse_markdown(path, _text(node["text"]))
        first, last = _lines(lines, ids, node)
        for section in card.sections:
            sections.append(Section(text=section.text, heading_path=_path(around) + section.heading_path,
                                    start_line=first, end_line=last, atomic=section.atomic))
        links.update(card.meta.get("links", []))
        wiki.update(card.meta.get("wiki_links", []))
        tags += [t for t in card.meta.get("tags", []) if t not in tags]
    for group in groups:
        if id(group) not in held:  # its label is in no card's heading path
            first, last = _lines(lines, ids, group)
            sections.append(Section(text=_label(group), heading_path=_path(boxes.around(group)),
                                    start_line=first, end_line=last))
    by_id = {n["id"]: n for n in nodes if isinstance(n.get("id"), str)}
    for edge in edges:  # an arrow's label ('depends on', 'blocked by'): said nowhere else
        label = " ".join(_text(edge.get("label")).split())
        if label:
            first, last = _lines(lines, ids, edge)
            sections.append(Section(text=_edge(edge, label, by_id), heading_path=[], start_line=first, end_line=last))
    sections.sort(key=lambda s: s.start_line)
    meta = {"links": sorted(links), "wiki_links": sorted(wiki)}
    if tags:
        meta["tags"] = tags
    return Document(kind="note", title=title, sections=sections, meta=meta)


def _text(value) -> str:
    return whole_characters(value) if isinstance(value, str) else ""  # "\ud800" in JSON: SQLite cannot store it


def _edge(edge: dict, label: str, nodes: dict[str, dict]) -> str:
    """An arrow's passage: the cards it joins, by name, and its label ('Roof → Garden Shed: builds'), as the
    canvas shows it; its label alone ('depends on') said nothing of what depends on what. An arrow drawn the other
    way (``fromEnd`` an arrow, ``toEnd`` none) is written so, one with both ends or none with ↔ or —; a card not
    found is left out."""
    ends = [_name(nodes[key]) if isinstance(key, str) and key in nodes else ""
            for key in (edge.get("fromNode"), edge.get("toNode"))]
    heads = (edge.get("fromEnd") == "arrow", edge.get("toEnd", "arrow") != "none")
    if heads == (True, False):
        ends, heads = ends[::-1], (False, True)
    if not all(ends):
        return f"{ends[0] or ends[1]}: {label}" if any(ends) else label
    return f"{ends[0]} {ARROWS[heads]} {ends[1]}: {label}"


ARROWS = {(False, True): "→", (True, True): "↔", (False, False): "—"}
NAMED = 80  # characters of a text card's first line that name it in an arrow's passage


def _name(node: dict) -> str:
    """A card as a reader of the canvas names it, in at most NAMED characters: a text card by its first line (a
    heading's text), a file card by its file's name (a note's without .md, as Obsidian shows it), a link card by its
    URL, a group by its label. Each is cut: a 100 KB URL named whole by 200 arrows was 20 MB of passages."""
    kind = node.get("type")
    if kind == "file":
        name = PurePosixPath(_text(node.get("file"))).name
        line = name[:-3] if name.casefold().endswith(".md") else name
    elif kind == "link":
        line = " ".join(_text(node.get("url")).split())
    elif kind == "group":
        line = _label(node) if _text(node.get("label")) else ""
    else:
        line = next((line for line in _text(node.get("text")).split("\n") if line.strip()), "")
        line = " ".join(line.strip().lstrip("#").split())
    return line if len(line) <= NAMED else line[:NAMED - 1].rstrip() + "…"


def _label(group: dict) -> str:
    return " ".join(_text(group["label"]).split())


def _path(around: list[dict]) -> list[str]:
    """The labels of the groups ``around`` a node (outermost first), as deep code's names are ``shortened``: every
    group made a card's path 300 labels long on a canvas of 300 groups one inside another (stored and indexed with
    each of its passages: 4.6 MB of paths from 83 KB, and about 1 GB from 1.5 MB of 500-character labels)."""
    return shortened([_label(g) for g in around])


def _shown(around: list[dict]) -> list[dict]:
    """The groups ``around`` a node whose labels its shortened path (``_path``) shows: a group left out of it (in the
    middle of a deep nesting) is in no card's heading path, so it is a passage of its label, as a group holding no
    card is (nine nested groups around one card left the two in the middle said nowhere)."""
    return [g for g in shortened(around) if isinstance(g, dict)]


class _Boxes:
    """The groups' boxes, each computed once, and the groups holding a node's box, compared all at once (numpy): each
    node's box against each group's in Python took 13 s for a 1 MB canvas of 4,000 cards in 4,000 groups, and grew
    with the square of its size (a 64 MiB canvas, the largest file read, would have held its worker for hours)."""

    def __init__(self, groups: list[dict]):
        placed = [(g, box) for g in groups if (box := _box(g)) is not None]
        self.groups = [g for g, _ in placed]
        self.index = {id(g): i for i, g in enumerate(self.groups)}
        self.areas = np.array([_area(box) for _, box in placed], dtype=float)
        self.boxes = np.array([box for _, box in placed], dtype=float).reshape(-1, 4)

    def around(self, node: dict) -> list[dict]:
        """The groups whose box holds ``node``'s, the largest (outermost) first; of more than a shortened path
        names (``_path``, ``_shown``), only the outermost and innermost it keeps, and one more of each (so that
        it still shortens them so): 10,000 groups stacked on one box, each holding all the others, were each
        listed and sorted for each of them (quadratic: 4,000 took 29 s, the 20,000 items a canvas may hold
        about 3 min)."""
        box = _box(node)
        if box is None or not self.groups:
            return []
        b = self.boxes
        holds = np.flatnonzero((b[:, 0] <= box[0]) & (b[:, 1] <= box[1]) & (box[2] <= b[:, 2]) & (box[3] <= b[:, 3]))
        own = self.index.get(id(node))
        if own is not None:
            holds = holds[holds != own]
        holds = holds[np.argsort(-self.areas[holds], kind="stable")]
        if len(holds) > AROUND:
            holds = np.concatenate([holds[:OUTER_NAMES + 1], holds[-(AROUND - OUTER_NAMES - 1):]])
        return [self.groups[i] for i in holds.tolist()]


def _box(node: dict) -> tuple[float, float, float, float] | None:
    values = [node.get(key) for key in ("x", "y", "width", "height")]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    try:  # a float each: a number beyond one (1e400 written out) is no place on a canvas
        x, y, width, height = map(float, values)
    except OverflowError:
        return None
    return x, y, x + width, y + height


def _area(box) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _id_lines(lines: list[str]) -> dict[str, int]:
    """The 0-based line of each id in the file (its first), found in one pass."""
    found: dict[str, int] = {}
    for i, line in enumerate(lines):
        for match in ID.finditer(line):
            try:
                found.setdefault(json.loads(match.group(1)), i)
            except ValueError:
                continue
    return found


def _lines(lines: list[str], ids: dict[str, int], node: dict) -> tuple[int, int]:
    """(first, last) 1-based line of ``node`` in the file: the line of its id through that of its text; line 1 for
    a node whose id is not found."""
    at = ids.get(node.get("id")) if isinstance(node.get("id"), str) else None
    if at is None:
        return 1, 1
    if node.get("type") == "text" and '"text"' not in lines[at]:
        text_at = next((i for i in range(at + 1, min(len(lines), at + NEAR)) if '"text"' in lines[i]), at)
        return at + 1, text_at + 1
    return at + 1, at + 1
