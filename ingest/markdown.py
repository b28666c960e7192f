"""Markdown notes: front matter (YAML, or Hugo's TOML), sections by heading, links.

The body is parsed as CommonMark by markdown-it-py (with GFM tables and $$ math
blocks), whose block tokens carry line maps. Each heading (ATX ``# x`` or setext
``x`` over ``===``, also inside a block quote or list, as CommonMark says) starts
a section whose heading path is the chain of headings above it
(``Clients > 曲美 > 合同``); a heading with nothing under it but the next heading
(``# Title`` right above ``## Part``, ``## Empty`` right above ``## Next``) opens
the section below it instead of making one of its own, and bare headings at the
end of a note close the section above them, so no passage is only headings
(unless the note holds nothing else). Code blocks (fenced and
indented), tables, math and HTML blocks are marked atomic so the chunker keeps
them whole when it can. A ``#`` line inside a code or HTML block is not a
heading.

Everything here runs in time linear in the note's length and in bounded memory,
whatever the note holds (``bench/markdown.py`` measures it on pathological notes
up to 20 MB): markdown-it-py guards its own corners (backtick runs, nested link
labels and destinations, table cells); a long note is parsed a piece at a time
(_read_body) and a table keeps no token per cell; the math rule looks its
closing line up in a table built once; wiki links and front matter are found
without patterns that can backtrack over a long line.
"""
from __future__ import annotations

import datetime
import gc
import re
from bisect import bisect_left
from contextlib import contextmanager
from pathlib import PurePosixPath

import yaml
from markdown_it import MarkdownIt
from markdown_it.common.utils import isValidEntityCode, unescapeAll
from markdown_it.rules_block import blockquote, list_block, paragraph, table as gfm_table

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from ingest import joplin, logseq, markdown_links, markdown_lists
from ingest.document import NOTION_ID, Document, Section, title_from_name, whole_characters
from ingest.links import FENCE

WIKI_CLOSE = re.compile(r"\]\]")
CELL_BORDER = re.compile(r"(?<!\\)\|")  # a cell border: a '|' without a backslash before it
FRONT_MATTER_LINES = 1000  # a closing '---' further down is not front matter
FRONT_MATTER_CHARS = 64 * 1024  # nor a longer block: PyYAML takes about 20 s and 200 MB per MB of it
META_ITEMS = 100  # tags or aliases kept; each is indexed with every chunk of the note
META_CHARS = 500
SCALARS = (str, int, float, datetime.date)
# front matter's other names for what ingest.passage_dates reads as its 'date' (what the note is about: a blog post's
# day) and its 'created' (when it was written), where the note has no 'date:' / 'created:' (any case: 'Date:');
# 'updated' and 'modified' are neither: an edit last week does not make a note about last week
DATE_KEYS = {"date": ("published", "pubdate", "publishdate", "publish date", "date published"),
             "created": ("created_at", "createdat", "created date", "created on", "created_on", "creation date",
                         "creation_date", "date created", "date_created")}
ATOMIC = {"fence", "code_block", "table_open", "math_block", "html_block"}
CONTAINERS = {"blockquote_open", "bullet_list_open", "ordered_list_open", "list_item_open"}
PIECE_CHARS = 256 * 1024  # a long note is parsed a piece of about this size at a time
CUT_CHECKS = 8  # lines inside a quote or list checked as a piece's first line; past them a piece grows
GROWTH = 4  # a piece grown to this many PIECE_CHARS, with more than UNSURE_CUTS blocks it could not be cut
UNSURE_CUTS = 32  # before, is cut at its last block unchecked: memory stays bounded
INLINE_CHARS = 64 * 1024  # a longer paragraph is read for links a line at a time
# Of a line's indentation, the parser is shown this many characters at most (the passages keep all of it): a list
# nested n deep holds n² of indentation, which markdown-it scans a character at a time in Python (10,000 Logseq
# blocks each one deeper: 100 MB, 52 s of CPU). A line indented further reads as one of the list 64 deep (tabs) or
# 32 (two spaces) above it, where nothing is lost: MAX_NESTING is past what lists that deep open.
DEEPEST_INDENT = 64
# markdown-it's nesting limit (commonmark's 20, each list 2: an outline 10 deep reached it) makes a block there
# swallow the rest of the note unread: a Logseq page nested 10 deep lost every heading, link and tag below that
# block. A block quote or list that would open deeper than this (a line of 200 '- ' markers, or '> ' ones) is read
# as a paragraph there instead (_too_deep), so the limit is never reached; the recursion stays far within Python's.
MAX_NESTING = 2 * DEEPEST_INDENT + 24
# A fence of Obsidian Excalidraw's drawing data (base64 of compressed JSON, in every .excalidraw.md): no words,
# and hundreds of passages a drawing to embed (8 KB of it made 40). Its text elements are indexed, above it.
DRAWING = re.compile(r"\s*compressed-json\b")
# A relation to another page, as a Notion export writes one in a page's properties: its title, then its path in
# parentheses, percent-encoded, with the page's id: 'Project: Billing migration (../Projects%20…/Billing%20….md)'.
NOTION_RELATION = re.compile(r" \(((?:\.\./)*[^()\s]{0,1000}[0-9a-f]{32}(?:\.md|%2[eE]md))\)")
CALLOUT = 7  # an Obsidian callout's title heads its lines one level below an ATX heading's six
_PARSER: MarkdownIt | None = None


def parse_markdown(path: str, text: str, fast_lists: bool = True) -> Document:
    """The note's Document. ``fast_lists=False`` reads every list with markdown-it, as the fast reading of plain
    lists (ingest.markdown_lists) must read them: the tests compare the two."""
    with _without_cycle_collection():
        return _parse(path, text, fast_lists)


@contextmanager
def _without_cycle_collection():
    """A long note makes millions of small objects and no reference cycles: Python's cycle collector
    would only walk them again and again (a third of the time of a 20 MB note of headings)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parse(path: str, text: str, fast_lists: bool = True) -> Document:
    lines = text.split("\n")
    meta, body_start = _front_matter(lines)
    broken = _broken_front_matter(lines) if body_start == 0 else 0
    if broken:  # its text is the note's first passage; its title, tags and aliases as they are written
        meta.update(_lenient_meta(lines[1:broken - 1]))
    properties, hidden = logseq.page_properties(lines) if body_start == 0 else ({}, [])
    meta.update(properties)  # a Logseq page's 'title::', 'alias::', 'tags::' lines, where no front matter is
    item = joplin.raw_item(path, lines) if body_start == 0 else None  # a Joplin note of a raw export: its properties
    if item:
        hidden, meta = [*hidden, *range(item[0], len(lines))], {**meta, **item[1]}
    headings, blocks, links, tags, drawings = _read_body(lines, body_start + broken, fast_lists)
    tagged, used = logseq.block_tags(_blank(lines, hidden)) if "tags::" in text else ([], [])  # a block's own tags
    sections = _sections(logseq.shown_lines(text, lines, [*hidden, *used]), body_start, headings, blocks, drawings,
                         tagged)
    if tags:  # a note's inline #tags are its tags, as Obsidian reads them, with those of its front matter
        meta["tags"] = _merged(meta.get("tags", []), tags)
    stem = PurePosixPath(path).stem
    if NOTION_ID.search(stem) and (notion := _notion_tags(lines)):  # a Notion database row's 'Tags: a, b'
        meta["tags"] = _merged(meta.get("tags", []), {tag.casefold(): tag for tag in notion})
    drawing = stem.lower().endswith(".excalidraw")  # every drawing's first heading is '# Text Elements'
    title = meta.get("title") or (stem[:-len(".excalidraw")] if drawing else None) \
        or logseq.journal_name(path) \
        or next((h for _, level, h, _ in headings if level == 1 and h), None) \
        or logseq.namespace_name(stem) or title_from_name(stem)
    if _placeholders_only(title):  # a template's note (Obsidian's templates folder): '{{title}}' titled every one
        title = stem
    wiki = wiki_links(text)
    if "%20" in text and NOTION_ID.search(stem):  # a Notion page's relations: 'Project: Billing (../P…%20….md)'
        links += NOTION_RELATION.findall(text)
    meta["links"] = _links(wiki, links)
    meta["wiki_links"] = sorted(set(wiki))  # read by file name or from the collection's folder (ingest.links)
    return Document(kind="note", title=title, sections=sections, meta=meta, footnotes=_footnotes(lines, body_start))


FOOTNOTE = re.compile(r" {0,3}\[\^([^\]\s]{1,100})\]:[ \t]*(\S.*)")  # a footnote's definition: [^label]: text
FOOTNOTES = 200  # definitions kept; each one's first FOOTNOTE_CHARS
FOOTNOTE_CHARS = 500


def _footnotes(lines: list[str], start: int) -> dict[str, str]:
    """A note's footnote definitions (their first line, as GFM and Obsidian write them), by label, outside code
    fences; the first of a label twice."""
    found: dict[str, str] = {}
    fence = None
    for line in lines[start:]:
        opened = FENCE.match(line)
        if opened:
            mark = opened.group(1)
            fence = mark if fence is None else (None if mark[0] == fence[0] and len(mark) >= len(fence) else fence)
            continue
        if fence is None and "[^" in line:
            match = FOOTNOTE.fullmatch(line.rstrip())
            if match and match.group(1) not in found:
                found[match.group(1)] = match.group(2)[:FOOTNOTE_CHARS]
                if len(found) >= FOOTNOTES:
                    break
    return found


def parser() -> MarkdownIt:
    """CommonMark plus GFM tables and $$ math blocks, block rules only (inline runs per paragraph in
    _read_tokens). Emphasis is off: it never decides what is a link or a heading."""
    global _PARSER
    if _PARSER is None:
        _PARSER = _new_parser()
    return _PARSER


def _new_parser(gated: bool = True) -> MarkdownIt:
    """parser()'s; ``gated=False``: its block rules called on every line (_gated), which the tests compare."""
    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table") \
        .disable(["emphasis", "inline", "text_join"])
    md.block.ruler.at("table", _table, {"alt": ["paragraph", "reference"]})
    md.block.ruler.before("fence", "math_block", _math_block, {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.block.ruler.before("blockquote", "too_deep", _too_deep)
    for rule in list(md.block.ruler.__rules__) if gated else []:
        if rule.name in STARTS:
            md.block.ruler.at(rule.name, _gated(rule.fn, rule.name), {"alt": rule.alt})
    md.block.tokenize = _bounded(md.block.tokenize)
    md.normalizeLink = lambda url: url  # keep the destination as written; ingest.links unquotes it
    return md


# The characters a block rule's line can start with (its first after the indentation; the table's: of its second
# line): a rule is not called on any other line. Each is asked at every line of a paragraph whether it ends it (a
# paragraph a line, and again by the setext heading rule): a note of one long paragraph, or a quote of one, cost
# 2.1–3.7 s of CPU per MB, a third to a half of it in rules that could only say no (bench/markdown.py --before).
STARTS = {"table": "|-:", "math_block": "$", "fence": "`~", "blockquote": ">", "hr": "*-_", "list": "*-+0123456789",
          "reference": "[", "html_block": "<", "heading": "#"}


def _gated(rule, name: str):
    """``rule``, called only on a line that starts with one of STARTS[name]: on any other it would answer no."""
    starts, line_after = STARTS[name], name == "table"

    def gated(state, start: int, end: int, silent: bool) -> bool:
        line = start + line_after
        if line >= end:
            return False
        pos = state.bMarks[line] + state.tShift[line]
        return pos < state.eMarks[line] and state.src[pos] in starts and rule(state, start, end, silent)
    return gated


def _bounded(tokenize):
    """markdown-it's block tokenize, keeping the end of the block being read (a block quote's last line, the note's
    or piece's) in ``env["ends"]`` while it reads it: _math_block reads no math block past it."""
    def bounded(state, start: int, end: int) -> None:
        ends = state.env.setdefault("ends", [])
        ends.append(end)
        try:
            tokenize(state, start, end)
        finally:
            ends.pop()
    return bounded


def _too_deep(state, start: int, end: int, silent: bool) -> bool:
    """A block quote or list starting where one more would reach markdown-it's nesting limit (a line of 200 '- '
    markers): read as a paragraph. At the limit markdown-it skips everything to the end of the enclosing block,
    which for a list item is the rest of the note: every heading, link and tag below it was lost."""
    if silent or state.level < MAX_NESTING - 2:  # a block quote opens 1 level, a list 2 (the list and its item)
        return False
    if not (blockquote(state, start, end, True) or list_block(state, start, end, True)):
        return False
    return paragraph(state, start, end, False)


def _read_body(lines: list[str], start: int, fast_lists: bool = True) -> tuple[list, list, list, dict, list]:
    """Headings, atomic blocks, link destinations, inline tags and drawings (DRAWING) of lines[start:], parsed a
    piece at a time; a run of plain list items (an outliner's page) read line by line instead, unless not
    ``fast_lists`` (ingest.markdown_lists: what markdown-it reads there, faster).

    markdown-it holds every token of what it parses (a note that is one long list costs hundreds of
    bytes a line), so a long note is parsed in pieces of about PIECE_CHARS. A piece's last block (at
    the top, in block quotes, or an item of a list there) may run on past the piece: it is dropped
    and the next piece starts on its first line, so every block is read whole and as the whole note
    would read it. A block longer than a piece is read from a piece twice as long. Text that may hold
    a link is read for links once every piece is parsed, when every link reference definition is known
    (CommonMark lets a '[text][label]' use a '[label]: url' defined anywhere in the note).
    """
    body = [_indent_bounded(line.replace("\r", " ")) for line in lines[start:]]  # a lone '\r' ends a line too
    env: dict = {"math_close": _math_closes(body), "lines": len(body)}
    headings, blocks, texts, tags, drawings = [], [], [], {}, []
    in_code: set[str] = set()  # '#words' the note writes in code: a Ruby method ('#find_or_create_by'), no tag
    commented = [False] * start + _in_comment(body)
    scan = fast_lists and sum(map(len, body)) + len(body) > markdown_lists.SCAN_CHARS
    first, whole = 0, -1  # whole: a top-level item markdown-it reads whole (a math block ran past its part)
    while first < len(body):
        if fast_lists and first != whole:  # a run of plain list items read line by line (ingest.markdown_lists)
            end, paragraphs, fences, part = markdown_lists.read_run_split(body, first)
            _read_fast(paragraphs, fences, start, headings, blocks, texts, tags, drawings, commented, in_code)
            if part is not None:  # and the item it stopped in: what comes before the line it could not read, the rest
                found = (headings, blocks, texts, tags, drawings, commented, in_code)
                kept = _kept(found) if any("$$" in line for line in body[part[0]:part[1]]) else None
                _read_fast(part[3], part[4], start, *found)
                last = _read_item_part(body, part, env, start, *found)
                if last is None:  # a math block in it runs past the part: the item is read whole, as before
                    _put_back(found, kept)
                    first = whole = end
                    continue
                first = last
                continue
            if end > first:
                first = end
                continue
        # a piece ends where such a run begins, if one does within it, for read_run to take it on from there
        size = (scan and markdown_lists.next_run(body, first, PIECE_CHARS)) or PIECE_CHARS
        while True:
            stop, chars = first, 0
            while stop < len(body) and chars < size:
                chars += len(body[stop]) + 1
                stop += 1
            env["first"], env["unsure"] = first, stop - first  # unsure: see _math_block
            tokens = parser().parse("\n".join(body[first:stop]), env)
            if stop == len(body):
                keep, done = len(tokens), stop - first
            else:
                keep, done = _complete(tokens, body, first, env["unsure"], trust=size >= GROWTH * PIECE_CHARS)
            if done > 0:
                break
            size *= 2  # one block fills the piece: read it from a longer one
        _read_tokens(tokens[:keep], start + first, headings, blocks, texts, tags, drawings, commented, in_code)
        first += done
    md = parser()
    tags = {key: tag for key, tag in tags.items() if key not in in_code}
    return headings, blocks, [url for text in texts for url in _link_destinations(md, text, env)], tags, drawings


def _read_fast(paragraphs: list, fences: list, start: int, headings: list, blocks: list, texts: list, tags: dict,
               drawings: list, commented: list[bool], in_code: set[str]) -> None:
    """Add what ingest.markdown_lists read line by line: its paragraphs' text and tags, its fences as _read_tokens
    reads a fence token."""
    for line, content in paragraphs:
        _read_inline(content, start + line, texts, tags, commented, in_code)
    for line, stop, info, content in fences:
        blocks.append((start + line, start + stop))
        if DRAWING.match(info):
            drawings.append((start + line, start + stop))
        if "#" in content:
            in_code.update(match.group(1).strip("/").casefold() for match in BLOCK_HASH.finditer(content))


def _kept(found: tuple) -> tuple:
    """What _put_back needs to set ``found`` (headings, blocks, texts, tags, drawings, commented, in_code) back."""
    headings, blocks, texts, tags, drawings, _, in_code = found
    return len(headings), len(blocks), len(texts), dict(tags), len(drawings), set(in_code)


def _put_back(found: tuple, kept: tuple) -> None:
    headings, blocks, texts, tags, drawings, _, in_code = found
    del headings[kept[0]:], blocks[kept[1]:], texts[kept[2]:], drawings[kept[4]:]
    tags.clear()
    tags.update(kept[3])
    in_code.clear()
    in_code.update(kept[5])


def _read_item_part(body: list[str], part: tuple, env: dict, start: int, *found) -> int | None:
    """Read the part of a top-level item from the line read_run stopped in on (ingest.markdown_lists.item_end):
    the child holding that line with markdown-it, under an empty item whose text is at the item's column ('-'
    alone on the line above), as the whole note's parse reads it, then the children after it line by line again
    (read_inside), and so on to the item's end. A long item holding a quote, a table or a heading in a child of
    thousands was markdown-it's from that child on, and a child of each kind in every few was markdown-it's whole.
    Where markdown-it does not start the next child where next_sibling guessed, it reads the rest of the item.
    Returns the line the item ends on; None where a math block in the rest runs on past the item's end (its '$$'
    closing further down): the item is not read to its end then, and the caller reads it whole."""
    line, end, column = part[:3]
    while True:
        sibling = markdown_lists.next_sibling(body, line, end, column)
        if sibling is None or not _read_child(body, line, sibling, column, env, start, *found):
            break
        paragraphs, fences, line = markdown_lists.read_inside(body, sibling, end, column)
        _read_fast(paragraphs, fences, start, *found)
        if line is None:
            return end
    return end if _read_lines_in_item(body, line, end, column, env, start, *found) else None


def _read_child(body: list[str], line: int, sibling: int, column: int, env: dict, start: int, *found) -> bool:
    """Read the child of a top-level item (its text at ``column``) on body[line] with markdown-it, under an empty
    item, if markdown-it starts the next child of that item on ``sibling``: the lines up to it are then read as
    the whole note reads them (no rule looks past the line a child starts on; a math block closing past it holds
    it, _math_block's lines being the note's). False, with nothing read, where it does not."""
    lines = [" " * (column - 2) + "-", *body[line:sibling + 1]]
    env["first"], env["unsure"] = line - 1, len(lines)  # lines[i] is body[line - 1 + i], as _math_block looks up
    tokens = parser().parse("\n".join(lines) + "\n", env)
    at = sibling - line + 1  # the sibling's line in ``lines``
    # the empty item is at level 1, a list in it at 2, its items at 3
    index = next((index for index, token in enumerate(tokens) if token.type == "list_item_open"
                  and token.level == 3 and token.map[0] == at), None)
    if index is None:
        return False
    _read_tokens(tokens[:index], start + line - 1, *found)
    return True


def _read_lines_in_item(body: list[str], line: int, end: int, column: int, env: dict, start: int, *found) -> bool:
    """Read body[line:end], the rest of a top-level item (its text at ``column``) from a child of it on, with
    markdown-it under an empty item, as the whole note's parse reads it; False, with nothing read, where a math
    block in it closes past ``end`` (_math_block holds the rest: the whole note's item goes on past it). The line
    after the item is parsed too, and what starts on it dropped: a math block open at the item's end ends before
    it (_container_end), as in the note; without it such a block was held and the whole item read again."""
    after = end < len(body)
    lines = [" " * (column - 2) + "-", *body[line:end + after]]
    env["first"], env["unsure"] = line - 1, len(lines)  # lines[i] is body[line - 1 + i], as _math_block looks up
    # a closing newline keeps a blank last line a line (an open fence or HTML block holds it, as in the note)
    text = "\n".join(lines) + ("\n" if end + after < len(body) else "")
    tokens = parser().parse(text, env)
    if env["unsure"] < len(lines):  # a math block held (every line of it is in the empty item: state.level)
        return False
    at = end - line + 1  # the line after the item, in ``lines``
    if after:
        tokens = tokens[:next((index for index, token in enumerate(tokens) if token.map and token.map[0] >= at),
                              len(tokens))]
    _read_tokens(tokens, start + line - 1, *found)
    return True


def _indent_bounded(line: str) -> str:
    """The line with at most DEEPEST_INDENT characters of its indentation (spaces and tabs as written)."""
    if len(line) <= DEEPEST_INDENT or line[DEEPEST_INDENT - 1] not in " \t" or line[:DEEPEST_INDENT].strip(" \t"):
        return line
    return line[:DEEPEST_INDENT] + line[DEEPEST_INDENT:].lstrip(" \t")


def _complete(tokens: list, body: list[str], first: int, unsure: int, trust: bool = False) -> tuple[int, int]:
    """(tokens, lines) of a piece that are surely whole: everything before the last block that a
    piece starting on its first line would read the same way. That is a block at the top, or inside
    block quotes only, or an item of a list there, whose line a piece would start in those same
    block quotes and lists (_opened_by), and that starts before the unsure line (_math_block), not inside a
    callout's quote nor at a line a piece would read as a callout's first (_read_tokens heads the lines so). With
    ``trust`` (a piece already GROWTH times its size) and more than UNSURE_CUTS such blocks (a long quote
    no line of which a piece could start the same way, such as one whose lines are all '\t> ...'), the
    last one is taken unchecked: the piece may read it otherwise than the whole note, but it stops
    growing. A short note never gets there, so reading one in tiny pieces stays exact."""
    cuts, open_blocks = [], []  # cuts: (token index, its first line in the piece, the blocks around it, callout)
    callout = False  # the block quote at the top being read is a callout (_callout_title)
    for index, token in enumerate(tokens):
        if token.nesting < 0:
            open_blocks.pop()
            continue
        if token.map and 0 < token.map[0] < unsure and token.type != "inline":
            outer = open_blocks[:-1] if token.type == "list_item_open" and open_blocks and \
                open_blocks[-1] in ("bullet_list_open", "ordered_list_open") else open_blocks
            if all(kind == "blockquote_open" for kind in outer):
                # a callout's quote is not cut (the piece after it read its lines under no heading), nor a quote
                # at a line a piece would read as a callout's first ('> [!tip]' under '> ---')
                split = bool(open_blocks) and open_blocks[0] == "blockquote_open" and \
                    (callout or "[!" in body[first + token.map[0]])
                cuts.append((index, token.map[0], list(open_blocks), split))
        if token.type == "blockquote_open" and not open_blocks:
            callout = index + 2 < len(tokens) and tokens[index + 1].type == "paragraph_open" and \
                _callout_title(tokens[index + 2].content) is not None
        if token.nesting > 0:
            open_blocks.append(token.type)
    checks = CUT_CHECKS  # each check parses a line: not every line of a long quote
    for index, line, around, split in reversed(cuts):
        if trust and len(cuts) > UNSURE_CUTS:
            return index, line
        if split:
            continue
        if not around:
            return index, line
        if checks > 0 and _opened_by(body, first + line) == around + _opens(tokens, index, line):
            return index, line
        checks -= 1
    return 0, 0


def _opened_by(body: list[str], line: int) -> list[str]:
    """The block quotes and lists that body[line] opens when a piece starts there. The whole note may
    read that line on inside a quote or list begun above it, and differently: markdown-it tries a
    table before a quote or a list, on the line as written ('> a | b' or '- a | b' over '|---|---|'
    is a table at the top), and goes on in a quote at a '>' however far indented ('\t> a' is
    indented code at the top). Only the table rule looks past the line, at the next one."""
    lines = body[line:line + 2]
    env = {"math_close": _math_closes(lines), "lines": len(lines), "first": 0, "unsure": len(lines)}
    return _opens(parser().parse("\n".join(lines), env), 0, 0)


def _opens(tokens: list, index: int, line: int) -> list[str]:
    """The block quotes and lists that tokens from index on open on that line."""
    opens = []
    while index < len(tokens) and tokens[index].type in CONTAINERS and tokens[index].map[0] == line:
        opens.append(tokens[index].type)
        index += 1
    return opens


def _math_closes(lines: list[str]) -> list[int]:
    """For each line, the first line at or after it that ends with '$$' (len(lines) if none): the
    math rule looks its closing line up here instead of scanning, so many unclosed '$$' stay linear."""
    closes, following = [0] * (len(lines) + 1), len(lines)
    closes[-1] = following
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].rstrip().endswith("$$"):
            following = i
        closes[i] = following
    return closes


def _math_block(state, start: int, end: int, silent: bool) -> bool:
    """A block from a line that starts with '$$' to the first line ending with '$$' (the same line when
    more follows the opening '$$'), inside the same container (in a list item closed past the item, to the item's
    end: _container_end); an unclosed '$$' is plain text."""
    if state.sCount[start] - state.blkIndent >= 4:
        return False  # indented code
    pos, stop = state.bMarks[start] + state.tShift[start], state.eMarks[start]
    if not state.src.startswith("$$", pos, stop):
        return False
    # a paragraph asks with the note's end (markdown-it's lineMax), a block start or a setext heading in a quote with
    # the quote's: both are answered as the block start is (env["ends"]: _bounded). A '$$' in a quote closed below it
    # was math to the one, text to the other: each such line was a paragraph, from which the setext heading rule
    # looked to the quote's end, asking here at every line (quadratic)
    ends = state.env.get("ends")
    end = min(end, ends[-1]) if ends else end
    line = state.src[pos:stop].rstrip()
    first = state.env["first"]  # the piece's first line in the note's body
    close = start if len(line) >= 4 and line.endswith("$$") else state.env["math_close"][first + start + 1] - first
    lines = state.env["lines"]
    # in a list item, closed past the item's end: the math ends with the item, as a fence does (in a quote that ends
    # first, with the quote). The block takes the lines looked at (to its close, the item's end, the quote's or the
    # piece's): each line is looked at once. A paragraph asks with ``end`` past its quote's end: the answer is the same
    if start < close and state.blkIndent and first + close < lines and (close < end or first + end < lines):
        if out := _container_end(state, start + 1, min(close + 1, end)):
            close = out - 1
        elif close >= end and end < state.lineMax:
            close = end - 1
    held = close >= end
    if held:
        if first + close >= lines or end < state.lineMax or first + end >= lines:
            return False  # never closed, or closed outside its container
        close = end - 1  # closed after this piece: hold the rest of it, to be read again from the next piece
        if state.level:  # in a quote or list that runs to the piece's end, which may end before the close
            state.env["unsure"] = min(state.env["unsure"], start)  # the piece is cut before this line
    if silent:
        return True
    token = state.push("math_block", "math", 0)
    token.block, token.markup, token.map = True, "$$", [start, close + 1]
    if not held:  # a held block is dropped unread; its lines run to the piece's end, past its list item,
        token.content = state.getLines(start, close + 1, state.sCount[start], True)  # where getLines can fail
    state.line = close + 1
    return True


def _container_end(state, line: int, stop: int) -> int | None:
    """The first line of line..stop-1 that is not blank and is less indented than the list item being read
    (``state.blkIndent``): the item ends before it; None for none. A '$$' in an item whose closing '$$' lay past
    the item's end (less indented, after the list) made a math block of everything down to it: the item's other
    children, the list's next items and the headings, links and tags in them were no longer read."""
    for number in range(line, stop):
        if state.sCount[number] < state.blkIndent and state.bMarks[number] + state.tShift[number] < state.eMarks[number]:
            return number
    return None


def _table(state, start: int, end: int, silent: bool) -> bool:
    """A GFM table where markdown-it-py's rule finds one, kept as one token that holds the text of its
    cells: that rule makes tokens for every cell (gigabytes for a table of a million rows). The rows
    end as in that rule: at a blank or less indented line, or where another block begins."""
    if not gfm_table(state, start, end, True):
        return False
    if silent:
        return True
    parent, state.parentType = state.parentType, "table"
    terminators = state.md.block.ruler.getRules("blockquote")
    line = start + 2
    while line < end and state.sCount[line] >= state.blkIndent and not state.is_code_block(line) \
            and state.src[state.bMarks[line] + state.tShift[line]:state.eMarks[line]].strip() \
            and not any(rule(state, line, end, True) for rule in terminators):
        line += 1
    state.parentType = parent
    cells = [cell for row in [start, *range(start + 2, line)]
             for cell in CELL_BORDER.split(state.src[state.bMarks[row] + state.tShift[row]:state.eMarks[row]])
             if "]" in cell or "#" in cell]  # cells that may hold a link or a tag
    token = state.push("table_open", "table", 0)
    token.map, token.block, token.meta = [start, line], True, {"cells": cells}
    state.line = line
    return True


def _read_tokens(tokens: list, offset: int, headings: list, blocks: list, texts: list, tags: dict,
                 drawings: list, commented: list[bool] = (), in_code: set[str] | None = None) -> None:
    """Add (line, level, text, end line) of each heading, (first line, end line) of each atomic block, and the
    text that may hold links (paragraphs, headings, table cells with a ']'); line numbers are 0-based in
    the whole note. An Obsidian callout (a block quote opening with '[!type] Title', at the top or in a list
    item, not in another quote) heads its lines as a heading one level below every other would (CALLOUT), and a
    heading of no text at its end gives the lines after it back to the headings above. ``tags``: the inline #tags of paragraphs, headings and
    tables (not of code, nor of comments: '%% … %%' as Obsidian writes one, ``commented`` saying which lines of the
    note begin inside one, and '<!-- … -->'), by their folded form, the first spelling kept, META_ITEMS at most. ``drawings``: (first
    line, end line) of each fence that holds a drawing's data (DRAWING). ``in_code``: the '#words' of code spans and
    blocks, folded (``code_hashes``), which the caller takes out of the tags."""
    quotes = 0  # block quotes open around the token
    for i, token in enumerate(tokens):
        if in_code is not None and token.type in ("fence", "code_block"):
            code_hashes(token, in_code)
        if token.type == "blockquote_close":
            quotes = max(quotes - 1, 0)
        elif token.type == "blockquote_open" and not quotes and token.map and i + 2 < len(tokens) \
                and tokens[i + 1].type == "paragraph_open" and (title := _callout_title(tokens[i + 2].content)):
            headings.append((token.map[0] + offset, CALLOUT, title, token.map[0] + offset + 1))
            headings.append((token.map[1] + offset, CALLOUT, None, token.map[1] + offset))
        elif token.type == "heading_open" and token.map and not _inside(commented, token.map[0] + offset):
            text = " ".join(part.strip() for part in tokens[i + 1].content.split("\n"))
            headings.append((token.map[0] + offset, int(token.tag[1]), text, token.map[1] + offset))
        elif token.type in ATOMIC and token.map:
            blocks.append((token.map[0] + offset, token.map[1] + offset))
            if token.type == "fence" and DRAWING.match(token.info):
                drawings.append((token.map[0] + offset, token.map[1] + offset))
            texts += token.meta.get("cells", []) if token.meta else []
        elif token.type == "inline":
            _read_inline(token.content, token.map[0] + offset if token.map else None, texts, tags, commented,
                         in_code)
        quotes += token.type == "blockquote_open"
        if token.type == "table_open" and len(tags) < META_ITEMS:
            for text in (token.meta or {}).get("cells", []):
                if "#" in text:
                    _inline_tags(_without_comments(text, False), tags)


def _inside(commented: list[bool], line: int) -> bool:
    """Whether the note's ``line`` begins inside an Obsidian '%%' comment: a heading there is hidden, as Obsidian
    hides it, and heads nothing (it headed the passages after it, the comment's end and the text below)."""
    return line < len(commented) and commented[line]


def _read_inline(content: str, line: int | None, texts: list, tags: dict, commented: list[bool],
                 in_code: set[str] | None = None) -> None:
    """What a paragraph's or heading's text (``content``, from the note's ``line``) adds: itself to ``texts`` if it
    may hold a link, its inline tags to ``tags``, its code spans' '#words' to ``in_code`` (when given)."""
    if in_code is not None and "`" in content:
        span_hashes(content, in_code)
    if "]" in content:
        texts.append(content)
    if "#" in content and len(tags) < META_ITEMS:
        opened = line is not None and line < len(commented) and commented[line]
        _inline_tags(_without_comments(content, opened), tags)


# A template placeholder, as Obsidian's core Templates ('{{title}}', '{{date:YYYY-MM-DD}}') and the Templater plugin
# ('<% tp.file.title %>') write them
PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|<%.*?%>", re.DOTALL)


def _placeholders_only(title: str) -> bool:
    """Whether ``title`` holds template placeholders and no letter or digit beside them."""
    if len(title) > 300 or ("{{" not in title and "<%" not in title):
        return False
    rest, found = PLACEHOLDER.subn("", title)
    return found > 0 and not any(ch.isalnum() for ch in rest)


# An Obsidian callout's first line: '[!warning] Title', '[!tip]- Folded', '[!note]' (its type is its title then).
CALLOUT_LINE = re.compile(r"\[!([\w-]+)\][+-]?(?:[ \t]+([^\n]*))?")


def _callout_title(content: str) -> str | None:
    """The title of a callout whose block quote's first paragraph is ``content``: its own, else its type as
    Obsidian shows it ('[!faq]' is 'Faq'); None when the quote is no callout."""
    found = CALLOUT_LINE.match(content.split("\n", 1)[0].strip())
    if found is None:
        return None
    title = " ".join((found.group(2) or "").split())
    return title or found.group(1).replace("-", " ").capitalize()


# An inline tag as Obsidian reads one: '#' after a space or a line's start, then letters, digits, '_', '-', '/'
# (nested tags: #project/sift), not digits alone (#123 is an issue number); inline code holds none.
INLINE_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
BACKTICKS = re.compile(r"`+")


# A tag of several words: Logseq's '#[[performance work]]', Bear's '#home office#' (closed by a '#' right after a
# letter or digit, and before none; not after a word of one letter: '#python and C#' is the tag 'python'). Read as
# INLINE_TAG, they were the tag 'home' and none.
WORDS_TAG = re.compile(r"(?<!\S)#(?:\[\[([^\[\]\n]{1,200})\]\]"
                       r"|([\w/-][\w/ \t-]{0,200}?[\w/-])(?<![ \t]\w)#(?![\w#]))")


# A Markdown link's text, '[Specify New Attributes For #find_or_create_by](rails/….md)': a title quoted, no tag
LINK_TEXT = re.compile(r"(?<!\[)\[[^\[\]\n]*\](?=\(|\[)")
# What a code span or a link's text is read as: no space, so a '#' right after one begins no tag (of 'use
# `#capitalize and … method, `#classify`.', a span closed by mistake, '#classify' was a tag: the span was a space)
CLOSED_UP = "\x00"


def code_hashes(token, found: set[str]) -> None:
    """Add the '#words' (folded) that ``token`` writes in code (a fence, an indented block, an inline token's code
    spans) to ``found``: a note that writes `#find_or_create_by` (a Ruby method) titled 'Specify New Attributes For
    #find_or_create_by' was tagged #find_or_create_by, and so was the README linking to it. Of a block, only those
    glued to a name (``BLOCK_HASH``)."""
    if token.type in ("fence", "code_block"):
        if "#" in token.content:
            found.update(match.group(1).strip("/").casefold() for match in BLOCK_HASH.finditer(token.content))
    elif token.type == "inline" and "`" in token.content:  # the parser reads blocks only: no inline children
        span_hashes(token.content, found)


def span_hashes(content: str, found: set[str]) -> None:
    """Add the '#words' (folded) of the code spans of a paragraph's text ``content`` to ``found``."""
    codes = [content[start:end] for start, end in _code_spans(content)]
    found.update(match.group(1).strip("/").casefold() for code in codes if "#" in code
                 for match in CODE_HASH.finditer(code))


CODE_HASH = re.compile(r"#([\w/-]+)")
# in a block, only a name's: glued to a word before it (``User#save``); a comment or directive at a line's start or
# after a space ('#TODO', '#include', '#!/bin/sh') is no name, and a note tagged #todo lost its tag to one
BLOCK_HASH = re.compile(r"(?<=\w)#([\w/-]+)")


def _inline_tags(text: str, tags: dict) -> None:
    if "`" in text:
        text = _without_code(text, CLOSED_UP)
    if "[" in text:
        text = LINK_TEXT.sub(CLOSED_UP, text)
    if "[[" in text or text.count("#") > 1:
        for found in WORDS_TAG.finditer(text):
            tag = " ".join((found.group(1) or found.group(2)).split()).strip("/")
            # a number is no tag, closed or not: 'issues #12 and #13#' tagged the note '13'
            if tag and not tag.replace("/", "").replace("-", "").isdigit() and len(tags) < META_ITEMS:
                _add_tag(tags, tag)
        text = WORDS_TAG.sub(" ", text)
    for found in INLINE_TAG.finditer(text):
        tag = found.group(1).strip("/")
        if tag and not tag.replace("/", "").replace("-", "").isdigit() and len(tags) < META_ITEMS:
            _add_tag(tags, tag)


def _add_tag(tags: dict, tag: str) -> None:
    """The tag under its folded form, unless a spelling of it is there already (an outliner's page repeats its tags
    on thousands of lines: the spelling is cut to size only once)."""
    key = tag.casefold()
    if key not in tags:
        tags[key] = _meta_text(tag)


OBSIDIAN_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.DOTALL)  # to its closing '%%', or to the end of the text
HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)


def _in_comment(lines: list[str]) -> list[bool]:
    """Whether each line begins inside an Obsidian '%%' comment (one may run over paragraphs); code fences hold
    none."""
    opened, fence, found = False, None, []
    for line in lines:
        found.append(opened)
        fenced = FENCE.match(line)
        if fenced and not opened:
            fence = None if fence == fenced.group(1) else fence or fenced.group(1)
        elif fence is None:
            opened ^= line.count("%%") % 2 == 1
    return found


def _without_comments(text: str, opened: bool) -> str:
    """``text`` without its '%% … %%' and '<!-- … -->' comments; ``opened``: it begins inside a '%%' one."""
    if opened:
        text = "%%" + text
    if "%%" in text:
        text = OBSIDIAN_COMMENT.sub(" ", text)
    return HTML_COMMENT.sub(" ", text) if "<!--" in text else text


def _without_code(text: str, instead: str = " ") -> str:
    """``text`` with its code spans made ``instead`` (``_code_spans``)."""
    pieces, at = [], 0
    for start, end in _code_spans(text):
        pieces += [text[at:start], instead]
        at = end
    return "".join(pieces) + text[at:]


def _code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each code span of ``text`` (a run of backticks to the next run of as many), in linear time: a
    pattern with a back-reference looked for each run's closer to the end of the text, for every run length."""
    runs = [(m.start(), m.end()) for m in BACKTICKS.finditer(text)]
    closer, seen = [None] * len(runs), {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        closer[i], seen[length] = seen.get(length), i
    spans, i = [], 0
    while i < len(runs):
        j = closer[i]
        if j is None:
            i += 1
            continue
        spans.append((runs[i][0], runs[j][1]))
        i = j + 1
    return spans


# A Notion database row's page opens with its properties under its title, 'Key: value' a line ('Status: Done',
# 'Tags: design, backend': a multi-select's options joined by ', ')
NOTION_PROPERTY = re.compile(r"([^\s:#][^:\n]{0,60}): (.+)")
NOTION_PROPERTIES = 50  # property lines looked at
NOTION_TAG_KEYS = {"tags", "tag"}


def _notion_tags(lines: list[str]) -> list[str]:
    """The tags of a Notion database row's 'Tags: design, backend' property (a Notion page's: its file name holds
    its id), a property line under its '# Title' line; [] for none."""
    at = 0
    while at < len(lines) and not lines[at].strip():
        at += 1
    at += at < len(lines) and lines[at].startswith("# ")
    while at < len(lines) and not lines[at].strip():
        at += 1
    tags: list[str] = []
    for line in lines[at:at + NOTION_PROPERTIES]:
        found = NOTION_PROPERTY.fullmatch(line)
        if found is None:
            break
        if found.group(1).strip().casefold() in NOTION_TAG_KEYS:
            tags += [tag.strip().lstrip("#") for tag in found.group(2).split(",") if tag.strip().lstrip("#")]
    return tags[:META_ITEMS]


def _merged(front: list[str], inline: dict) -> list[str]:
    """The front matter's tags, then the inline ones it does not hold (in any case), META_ITEMS at most."""
    held = {tag.casefold() for tag in front}
    return [*front, *(tag for key, tag in inline.items() if key not in held)][:META_ITEMS]


def _link_destinations(md: MarkdownIt, content: str, env: dict) -> list[str]:
    """Links and images of a paragraph (or heading, or table cell). Only text with '](' or, once a
    '[label]: url' was seen, a ']' can hold one: other text is not read (a long run of '[' costs
    markdown-it-py tens of seconds per MB). A paragraph over INLINE_CHARS is read a line at a time,
    so that what markdown-it keeps per position stays bounded by a line."""
    found = []
    for part in [content] if len(content) <= INLINE_CHARS else content.split("\n"):
        if "](" in part and _brackets_too_deep(part):  # its links by a pattern, not markdown-it
            # unescaped as markdown-it unescapes a destination: [x](my\\_note.md) names my_note.md
            found += [_undecoded(unescapeAll(pointed or bare)) for pointed, bare in BARE_DESTINATION.findall(part)]
        elif "](" in part or ("]" in part and env.get("references")):
            quick = markdown_links.destinations(part, md.validateLink, env.get("references"))
            if quick is not None:  # the common forms, read by markdown-it's rules without its inline parser
                found += [_undecoded(url) for url in quick]
                continue
            for child in md.inline.parse(part, md, env, []):
                if child.type in ("link_open", "image"):
                    found.append(_undecoded(child.attrs.get("href" if child.type == "link_open" else "src", "")))
    return found


# Of '[' open at once in a paragraph (or a line of a long one), at most this many are read by markdown-it: it
# reads each '[' as a link's text to its ']' ('[' × 100,000 then '](y)' × 100,000, 0.5 MB on a line: 28 s). Past it
# the paragraph's links are found by a pattern (BARE_DESTINATION): '](' and a destination without spaces (or in
# '<…>'), a '(' or ')' in it escaped ('\(').
LINK_DEPTH = 32
BARE_DESTINATION = re.compile(r"\]\(\s*(?:<((?:\\[<>]|[^<>\n\\]|\\(?![<>])){1,2048})>"
                              r"|((?:\\[()<>]|[^\s()<>\\]|\\(?![()<>])){1,2048}))")
# an escaped bracket ('\]', '\[') opens and closes nothing, as in markdown-it: '[\]' × 32,000 (a line of 96 KB) had
# each '\]' close its '[', and markdown-it read it for 16 s (each '[' a link's text, looked for its ']' to the end)
_BRACKET = re.compile(r"\\[\\\[\]]|[\[\]]")


def _brackets_too_deep(text: str) -> bool:
    if text.count("[") <= LINK_DEPTH:
        return False
    depth = 0
    for mark in _BRACKET.findall(text):
        if mark[0] == "\\":  # escaped: text
            continue
        depth = depth + 1 if mark == "[" else max(depth - 1, 0)
        if depth > LINK_DEPTH:
            return True
    return False


# A numeric character reference markdown-it leaves as written, its code point being none a text may hold
# (&#xD800;, &#0;): as its unescapeAll reads one, case and all.
_NUMERIC_REFERENCE = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,8}));")


def _undecoded(destination: str) -> str:
    """A link destination whose numeric references of no character (left undecoded) are U+FFFD, as CommonMark
    reads them: the link [x](a&#xD800;b.md) was recorded as 'a&', its '#' taken for the fragment's."""
    if "&#" not in destination:
        return destination

    def replaced(match: re.Match) -> str:
        code = int(match.group(1), 16) if match.group(1) else int(match.group(2))
        return match.group() if isValidEntityCode(code) else "\ufffd"
    return _NUMERIC_REFERENCE.sub(replaced, destination)


def _front_matter(lines: list[str]) -> tuple[dict, int]:
    """YAML between '---' lines at the top, or TOML between '+++' lines (Hugo's); returns (metadata, first body
    line index). Front matter that does not parse is no front matter: the note reads it as text."""
    opening = lines[0].strip() if lines else ""
    if opening not in ("---", "+++"):
        return {}, 0
    closings = ("---", "...") if opening == "---" else ("+++",)
    chars = 0
    for end in range(1, min(len(lines), FRONT_MATTER_LINES)):
        chars += len(lines[end]) + 1
        if chars > FRONT_MATTER_CHARS:
            return {}, 0  # a data dump, not metadata: index it as text
        if lines[end].strip() in closings:
            data = (_yaml if opening == "---" else _toml)("\n".join(lines[1:end]))
            if not isinstance(data, dict):
                return {}, 0
            if opening == "---" and "#" in "".join(lines[1:end]):
                data = _commented_tags(data, lines[1:end])
            return _clean_meta(data), end + 1
    return {}, 0


FRONT_MATTER_KEY = re.compile(r"[A-Za-z_][\w -]{0,60}:(?:[ \t]|$)")  # 'title:', 'tags: [a, b]', 'Date created: …'


def _broken_front_matter(lines: list[str]) -> int:
    """The lines of a YAML front matter block that does not parse (``_front_matter`` left it as text), its closing
    '---' and all, where its first line is a 'key:' line: read as the text they are, not as Markdown. A ': ' in a
    value ('title: Meeting: Q3 planning', as notes write one) made the block a setext heading over its closing '---'
    ('title: Meeting: Q3 planning tags: [work, planning]'), the heading of every passage of the note, and the
    opening '---' a passage of its own. 0 for none, and for a block with a blank line in it: a note opening with a
    rule ('---', 'Update: moved to Friday', a blank line, '# Agenda' …, a rule further down) lost its headings,
    links and tags down to that rule, and a blank line is no setext heading's."""
    if len(lines) < 3 or lines[0].strip() != "---" or not FRONT_MATTER_KEY.match(lines[1]):
        return 0
    for end in range(2, min(len(lines), FRONT_MATTER_LINES)):
        if lines[end].strip() in ("---", "..."):
            return end + 1
        if not lines[end].strip():
            return 0
    return 0


def _lenient_meta(lines: list[str]) -> dict:
    """The metadata of front matter that is no YAML (_broken_front_matter), as valid front matter gives it (title,
    date, tags, aliases, author, in any case: 'Title:'): each top-level key with the lines under it ('tags:' over
    '  - a') read as YAML alone; a one-line value that is still no YAML ('title: Meeting: Q3 planning', a ': ' in
    it) as the text after its key, and a list still none as its items, each read alone ('- Planning: Q3: kickoff'
    as its text). The block is the note's first passage still. A block refused as YAML front matter is (over
    FRONT_MATTER_CHARS, or flow collections nested past FLOW_DEPTH) gives none."""
    if sum(len(line) + 1 for line in lines) > FRONT_MATTER_CHARS or _flow_too_deep("\n".join(lines)):
        return {}
    entries: list[list[str]] = []
    for line in lines:
        if FRONT_MATTER_KEY.match(line):
            entries.append([line])
        elif entries and line[:1] in (" ", "\t", "-"):
            entries[-1].append(line)
        else:
            entries.append([])  # a line that is neither: what follows it is no key's value
    data: dict = {}
    for entry in entries:
        if not entry or ":" not in entry[0]:  # '- item' under a line of text: no key (unpacked, it failed the note)
            continue
        value = _yaml("\n".join(entry))
        if not isinstance(value, dict):
            key, text = entry[0].split(":", 1)
            items = [_lenient_item(line) for line in entry[1:] if line.strip()[:1] == "-"]
            value = {key.strip(): items if items and not text.strip() else text.strip()}
        data.update(_commented_tags(value, entry) if "#" in "".join(entry) else value)
    return _clean_meta(data) if data else {}


def _lenient_item(line: str):
    """A list item's value ('  - Q3 meeting') read as YAML alone, else as its text."""
    text = line.strip()[1:].strip()
    value = _yaml(text)
    return value if isinstance(value, SCALARS) or isinstance(value, dict) else text


# Of '[' and '{' open at once in front matter, at most this many: PyYAML scans a deeper flow collection in time
# quadratic in its depth before its composer's recursion gives up ('title: [[[[…', 5,000 deep: 6.5 s a note).
FLOW_DEPTH = 64
FLOW_MARK = re.compile(r"[\[\]{}]")


def _yaml(text: str):
    if _flow_too_deep(text):
        return None  # no front matter: read as text
    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, RecursionError):  # ValueError: a value YAML cannot build (2024-02-30)
        return None


def _flow_too_deep(text: str) -> bool:
    """Whether more than FLOW_DEPTH of the text's '[' and '{' are open at once (quotes not minded: a title holding
    that many brackets is no title)."""
    if text.count("[") + text.count("{") <= FLOW_DEPTH:
        return False
    depth = 0
    for mark in FLOW_MARK.findall(text):
        depth = depth + 1 if mark in "[{" else max(depth - 1, 0)
        if depth > FLOW_DEPTH:
            return True
    return False


def _toml(text: str):
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None


def _clean_meta(data: dict) -> dict:
    """Scalars only: str() of a nested value made of YAML aliases can be exponentially long."""
    meta: dict = {}
    named = {str(key).strip().lower(): value for key, value in reversed(data.items())}  # 'Date:', 'Created:' too
    for key in ("title", "date", "created", "updated", "modified"):  # any case: 'Title:' too
        value = data.get(key, named.get(key))
        if key in DATE_KEYS and not _is_date(value):  # a blog post's 'published:', Obsidian's 'created_at:' …
            value = next((named[other] for other in DATE_KEYS[key] if _is_date(named.get(other))), value)
        if isinstance(value, SCALARS) and value != "":
            meta[key] = _meta_text(value)
    for key in ("tags", "aliases"):
        value = _list_values(data, named, key)
        if isinstance(value, str):
            value = _split(value, key)
        if isinstance(value, list):  # an alias written '- Planning: Q3' is a mapping to YAML: the text meant
            items = [_meta_text(v) for v in (_as_written(v) if key == "aliases" else v for v in value)
                     if isinstance(v, SCALARS)]
            if key == "tags":  # 'tags: ["#a", "#b"]': the tag is 'a', as Obsidian lists it and an inline #a is kept
                items = [tag for tag in (item.strip().lstrip("#") for item in items) if tag]
            meta[key] = list(dict.fromkeys(items))[:META_ITEMS]
    author = _author(named)
    if author:
        meta["author"] = author
    return meta


def _as_written(value):
    """A list item YAML read as a mapping of one key to a scalar ('- Planning: Q3') as the text written; else as it is."""
    if isinstance(value, dict) and len(value) == 1:
        [(key, item)] = value.items()
        if isinstance(key, SCALARS) and isinstance(item, SCALARS):
            return f"{key}: {item}"
    return value


def _author(named: dict) -> str:
    """Front matter's ``author:`` or ``authors:`` (any case; a name, a list of names, Hugo's ``{name: …}``) as one
    text, as a PDF's metadata author: the title column holds it (search.index.store), where it was no word of the
    note at all (front matter is no passage's text); '' for none. An empty ``author:`` is none: a non-empty
    ``authors:`` beside it is the author (it was hidden)."""
    return next(filter(None, (_names(named.get(key)) for key in ("author", "authors"))), "")


def _names(value) -> str:
    """One front matter value of author names as one text, '' for none."""
    values = value if isinstance(value, list) else [value]
    names = [item.get("name") if isinstance(item, dict) else item for item in values[:META_ITEMS]]
    return _meta_text(", ".join(dict.fromkeys(str(name).strip() for name in names
                                              if isinstance(name, SCALARS) and not isinstance(name, bool)
                                              and str(name).strip())))


# the keys a note's tags and aliases are written under, in any case ('Tags:', Obsidian's older 'tag:' and 'alias:'):
# the note's tags were none under any but 'tags' and 'aliases'
LIST_KEYS = {"tags": ("tags", "tag"), "aliases": ("aliases", "alias")}


def _list_values(data: dict, named: dict, key: str):
    """The value of front matter's ``key`` ('tags', 'aliases') under any of its names (LIST_KEYS) and cases, the
    values of two names together ('tags:' and 'tag:'): a list, a string or None."""
    found = [data[key]] if key in data else []
    found += [named[other] for other in LIST_KEYS[key] if other in named and not (other == key and key in data)]
    found = [value for value in found if value is not None]
    if len(found) <= 1:
        return found[0] if found else None
    return [item for value in found for item in (value if isinstance(value, list) else _split(value, key))]


def _split(value, key: str) -> list:
    """One string's values as Obsidian reads them: tags apart at commas and spaces, aliases at commas ('aliases: Sift
    search, Sift' is two aliases; split at spaces too it was three words, none of them); a value not a string alone."""
    if not isinstance(value, str):
        return [value]
    return [v.strip() for v in re.split(r"[,\s]+" if key == "tags" else ",", value) if v.strip()]


# a tags key whose value YAML read as a comment: 'tags: #project #work' (unquoted, '#' after a space begins one), or
# a list's '- #work'; as Obsidian's inline tags are written, they are the tags the person meant
COMMENTED = re.compile(r"(?i)(tags?)[ \t]*:[ \t]+(#[^\s#].*)")
COMMENTED_ITEM = re.compile(r"[ \t]*-[ \t]+(#[^\s#].*)")


def _commented_tags(data: dict, lines: list[str]) -> dict:
    """``data`` with the tags YAML read as comments (COMMENTED) put back: 'tags: #a #b' was no tag at all."""
    data, key = dict(data), None
    for line in lines:
        found = COMMENTED.fullmatch(line.rstrip())
        if found and data.get(found[1]) is None:
            data[found[1]] = found[2]
            continue
        header = re.fullmatch(r"(?i)(tags?)[ \t]*:[ \t]*", line.rstrip())
        key = header[1] if header else key if line[:1] in (" ", "\t", "-") else None
        item = COMMENTED_ITEM.fullmatch(line.rstrip()) if key else None
        if item and isinstance(data.get(key), (list, type(None))):
            data[key] = [value for value in data.get(key) or [] if value is not None] + [item[1]]
    return data


def _is_date(value) -> bool:
    """Whether a front matter value may be a date: a YAML/TOML date, or text (not 'published: true')."""
    return isinstance(value, (str, datetime.date)) and value != ""


def _meta_text(value) -> str:
    """str(value) cut to META_CHARS. YAML's escapes can make surrogates ("\\ud800"), which UTF-8 (SQLite)
    cannot store: an escaped pair makes its character, a lone one becomes U+FFFD."""
    return whole_characters(str(value)[:META_CHARS + 1])[:META_CHARS]


def _sections(lines: list[str], start: int, headings: list, blocks: list, drawings: list = (),
              tagged: list = ()) -> list[Section]:
    """The note's sections by heading, without the lines of ``drawings`` (read as blank lines, where a section is
    cut in two); ``tagged``: per line, the tags of the Logseq blocks it lies in (logseq.block_tags), where a section
    is cut too, its pieces holding them."""
    if drawings:
        lines = list(lines)
        for first, end in drawings:
            lines[first:end] = [""] * (end - first)
    sections: list[Section] = []
    path: list[tuple[int, str]] = []  # (level, heading)
    offsets = [0] * (len(lines) + 1)  # offsets[i]: where line i starts in the note
    for i, line in enumerate(lines):
        offsets[i + 1] = offsets[i] + len(line) + 1
    begin, after = start, None  # after: the line after the previous heading (None before the first)
    for line, level, text, end in headings:
        if not _opens_next(lines, after, line):
            _add(sections, lines, offsets, begin, line, [h for _, h in path], blocks, drawings, tagged)
            begin = line
        path = [(lv, h) for lv, h in path if lv < level] + ([(level, text)] if text is not None else [])
        after = end
    if sections and _opens_next(lines, after, len(lines)):  # bare headings at the end: the section above takes them
        above = sections.pop()
        begin, path = above.start_line - 1, [(0, h) for h in above.heading_path]
    _add(sections, lines, offsets, begin, len(lines), [h for _, h in path], blocks, drawings, tagged)
    return sections


def _blank(lines: list[str], hidden: list[int]) -> list[str]:
    """``lines`` with those at ``hidden`` blank (a Logseq page's properties, which are no block's own)."""
    if not hidden:
        return lines
    lines = list(lines)
    for index in hidden:
        lines[index] = ""
    return lines


def _opens_next(lines: list[str], after: int | None, line: int) -> bool:
    """Whether the heading above, with only blank lines between it and the heading at ``line``, has no text
    of its own: it then opens this heading's section, whatever the levels (``# Git`` over ``## Undo``,
    ``## Empty`` over ``## Next``). On its own it was a passage of heading lines only, which a search for
    its words ranked above the text under it; inside the next passage its words are still found."""
    return after is not None and not any(lines[i].strip() for i in range(after, line))


def _drawing_comment(lines: list[str], start: int, stop: int) -> int:
    """Where the '%%' comment a drawing's data (at ``stop``) is in opens, nothing but blank lines and headings ('#
    Drawing') between them; ``stop`` where none does. Any '%%' above was taken for it: a comment closed before the
    note's text, that text and a drawing not in a comment, lost the text between them."""
    at = stop - 1
    while at >= start and (not lines[at].strip() or lines[at].lstrip().startswith("#")):
        at -= 1
    return at if at >= start and lines[at].strip() == "%%" else stop

def _add(sections: list[Section], lines: list[str], offsets: list[int], begin: int, end: int,
         heading_path: list[str], blocks: list, drawings: list = (), tagged: list = ()):
    """The section of lines [begin, end), or the pieces of it around drawings: a piece of marks only (the '%%'
    of the Obsidian comment around a drawing) is no passage, nor the comment's lines above the drawing. Cut where the tags of the lines (``tagged``) change,
    each piece holding its lines' tags."""
    if tagged and any(tagged[begin:end]):
        start = begin
        for stop in range(begin + 1, end + 1):
            if stop == end or tagged[stop] != tagged[start]:
                made = len(sections)
                _add(sections, lines, offsets, start, stop, heading_path, blocks, drawings)
                for section in sections[made:]:
                    section.tags = tagged[start]
                start = stop
        return
    cuts = [(a, b) for a, b in drawings if a < end and b > begin]
    if not cuts:
        return _add_lines(sections, lines, offsets, begin, end, heading_path, blocks)
    for n, (start, stop) in enumerate(zip([begin, *(b for _, b in cuts)], [*(a for a, _ in cuts), end])):
        if n < len(cuts):  # the comment the drawing's data is in, from its '%%' ('# Drawing' under it), is no text
            stop = _drawing_comment(lines, start, stop)
        if any(c.isalnum() for line in lines[start:stop] for c in line):
            _add_lines(sections, lines, offsets, max(start, begin), min(stop, end), heading_path, blocks)


def _add_lines(sections: list[Section], lines: list[str], offsets: list[int], begin: int, end: int,
               heading_path: list[str], blocks: list):
    while end > begin and not lines[end - 1].strip():
        end -= 1
    while begin < end and not lines[begin].strip():
        begin += 1
    if begin >= end:
        return
    text = "\n".join(lines[begin:end])
    sections.append(Section(text=text, heading_path=heading_path, start_line=begin + 1,
                            end_line=end, atomic=_atomic(lines, offsets, begin, end, blocks)))


def _atomic(lines: list[str], offsets: list[int], begin: int, end: int, blocks: list) -> list[tuple[int, int]]:
    """Character spans, in the section's text, of the atomic blocks inside lines [begin, end)."""
    spans = []
    for index in range(bisect_left(blocks, (begin, -1)), len(blocks)):
        first, stop = blocks[index]
        if first >= end:
            break
        last = min(stop, end) - 1
        while last > first and not lines[last].strip():
            last -= 1  # an unclosed block runs to the end; its trailing blank lines are not its own
        spans.append((offsets[first] - offsets[begin], offsets[last] + len(lines[last]) - offsets[begin]))
    return spans


def _links(wiki: list[str], destinations: list[str]) -> list[str]:
    links = list(wiki)
    links += [url for url in destinations if url and "://" not in url and not url.startswith(("#", "mailto:"))]
    return sorted(set(links))


def wiki_links(text: str) -> list[str]:
    """Targets of ``[[target#heading|label]]``: what the pattern
    ``\\[\\[([^\\]|#]+)(?:#[^\\]|]*)?(?:\\|[^\\]]*)?\\]\\]`` finds, found from each ``]]`` backwards. A '|' escaped
    ('[[Garden Shed\\|the shed]]', as Obsidian writes a link with a label in a table) ends the target as one unescaped
    does: the link was to 'Garden Shed\\'."""
    targets, after = [], 0  # after: where the previous ']]' ended
    for close in WIKI_CLOSE.finditer(text):
        end = close.start()
        bracket = text.rfind("]", after, end)  # the link's text holds no ']'
        start = text.find("[[", bracket + 1 if bracket >= 0 else after, end)
        while start >= 0 and (start + 2 == end or text[start + 2] in "|#"):
            start = text.find("[[", start + 1, end)
        after = close.end()
        if start >= 0:
            targets.append(re.split(r"\\?[|#]", text[start + 2:end], maxsplit=1)[0].strip())
    return targets
