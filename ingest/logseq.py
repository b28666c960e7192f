"""What Logseq writes into a Markdown page beside its text, read as Logseq shows it (ingest.markdown).

A Logseq page is an outline of '- ' blocks. Its page properties are 'key:: value' lines at its top, not YAML:
``title::``, ``alias::``, ``tags::`` and ``author::`` are the note's title, aliases, tags and author, as front
matter's are, and are no text of its passages (the title column holds them). A block's ``id:: 6500…`` (the uuid a
block reference names), ``collapsed:: true``, ``heading:: true``, a PDF highlight's ``hl-page:: 3`` (BLOCK_NOISE) and a task's time log
(``:LOGBOOK:``, its ``CLOCK:`` lines, ``:END:``) are no text either:
in a passage they were a uuid's pieces to match and embed and noise in every snippet. A block reference
``((6500…))`` reads as the text of the block it names when that block is in the same page, and as nothing
otherwise (the index cannot look another page's block up while it reads this one), its uuid never; a page's embed
``{{embed [[Page]]}}`` as its link ``[[Page]]``. Other properties (``type:: book``)
are the page's text, as Obsidian's Dataview fields are. A page of a namespace is named ``a/b`` (``[[a/b]]``) and
written as ``a___b.md`` or, by older Logseq, ``a%2Fb.md``: its name is ``a/b`` (namespace_name).
"""
from __future__ import annotations

import re

from ingest.links import FENCE

PROPERTY = re.compile(r"[ \t]*([A-Za-z][\w.-]*)::(?:[ \t]+(.*?))?[ \t]*")  # 'key:: value'
PAGE_KEYS = {"title": "title", "alias": "aliases", "tags": "tags", "author": "author", "authors": "author"}
# page properties Logseq writes of its own view of the page: which linked references' filters are on
# ('filters:: {"project" false, "done" true}'), no text of it (they were a passage's first line)
UI_KEYS = {"filters"}
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# A block's own property Logseq writes for itself: no text of the page. Its id, whether it is folded or shown as a
# heading, and what a PDF highlight's block (in an 'hls__' page) holds beside its text: 'ls-type:: annotation',
# 'hl-page:: 3', 'hl-color:: yellow', 'hl-stamp:: 1699…', 'hl-type:: area'.
BLOCK_NOISE = re.compile(rf"[ \t]*(?:id::[ \t]+{UUID}|collapsed::[ \t]+(?:true|false)|heading::[ \t]+(?:true|[1-6])"
                         r"|ls-type::[ \t]+annotation|hl-(?:page|color|stamp|type)::[ \t]+[\w-]{1,40})[ \t]*")
# A block reference, '((uuid))', or its embed, '{{embed ((uuid))}}'
REFERENCE = re.compile(rf"\{{\{{embed[ \t]+\(\(({UUID})\)\)[ \t]*\}}\}}|\(\(({UUID})\)\)")
EMBED = re.compile(r"\{\{embed[ \t]+(\[\[[^\[\]\n]{1,500}\]\])[ \t]*\}\}")  # a page's embed: '{{embed [[Page]]}}'
BLOCK = re.compile(r"[ \t]*- (.*)")
NAMESPACE = re.compile(r"___|%2[fF]")
VALUES = 100  # aliases or tags kept, as of front matter (ingest.markdown.META_ITEMS)
LINES = 1000  # page property lines looked at, as front matter's
LOGBOOK = ":LOGBOOK:"
LOGBOOK_LINES = 10_000  # of a time log's CLOCK lines
BLOCK_LINES = 50  # lines above an 'id::' line looked at for its block's first line: a note of id lines stays linear


def page_properties(lines: list[str]) -> tuple[dict, list[int]]:
    """(title, aliases, tags and author of the 'key:: value' lines at the top of a page and of its first block when
    that block holds properties alone, as Logseq writes a page's properties ('- title:: Dune' and its indented
    'alias:: …', 'tags:: …' lines); the indexes of those lines). A first block's were a passage of their own,
    'title:: Dune' its text, its title and aliases none, its tags its passages' alone; its other properties
    ('type:: book') are the page's words, as the top's are, in its first passage, not a passage of property lines
    that the page's title and aliases ranked beside its text. Both the top's and a first block's: their tags and
    aliases together, the top's title and author. ``author::`` (``authors::``) is the page's author, as a PDF's metadata
    names one: the title column holds it, as it holds the tags (it was the first passage's words, 'author::' and
    a name before the page's text).
    ``tags:: project, [[performance work]]`` is the tags 'project' and 'performance work'."""
    meta: dict = {}
    used = []
    top = next((index for index, line in enumerate(lines[:LINES]) if not PROPERTY.fullmatch(line)),
               min(len(lines), LINES))
    block = _properties_block(lines, top)
    for index in [*range(top), *block]:
        line = lines[index]
        found = PROPERTY.fullmatch(FIRST_BULLET.sub("", line, count=1) if index in block[:1] else line)
        if found.group(1).lower() in UI_KEYS:  # what Logseq keeps of how it shows the page: no text
            used.append(index)
            continue
        key = PAGE_KEYS.get(found.group(1).lower())
        if key is None:
            continue
        used.append(index)
        value = found.group(2) or ""
        if key == "title":
            if value.strip() and "title" not in meta:  # the top's, where a first block names one too
                meta["title"] = value.strip()
            continue
        items = [value for item in ITEM.split(value) for value in _values(item)]
        if key == "author":  # as a PDF's metadata author: the title column holds it (search.index.store)
            author = ", ".join(dict.fromkeys(item for item in items if item))[:AUTHOR_CHARS]
            if author and "author" not in meta:  # the top's, as for the title (a first block's replaced it)
                meta["author"] = author
            continue
        # the top's and a first block's together: 'tags:: a' at the top, '- tags:: b' under it, the page's a and b
        meta[key] = list(dict.fromkeys(item for item in [*meta.get(key, []), *items] if item))[:VALUES]
    return meta, used


AUTHOR_CHARS = 500  # of a page's 'author::' kept, as of a PDF's


FIRST_BULLET = re.compile(r"[ \t]*- ")


def _properties_block(lines: list[str], start: int) -> list[int]:
    """The indexes of the page's first block's lines, at ``start`` or after blank lines, where it holds properties
    alone ('- title:: Dune', then '  key:: value' lines up to a blank line or the next block); [] otherwise."""
    first = next((index for index in range(start, min(len(lines), LINES)) if lines[index].strip()), None)
    if first is None or not lines[first].startswith("- ") or not PROPERTY.fullmatch(lines[first][2:]):
        return []
    end = first + 1
    while end < min(len(lines), LINES) and lines[end].strip() and not INDENT.match(lines[end]):
        if not lines[end][:1] in " \t" or not PROPERTY.fullmatch(lines[end]):
            return []  # a block of text that begins with a property: no page properties
        end += 1
    return list(range(first, end))


ITEM = re.compile(r",(?![^\[\]]*\]\])")  # a comma between a list property's values, not one inside '[[a, b]]'
# A value written as a page's link or tag: '[[x y]]', '#[[x y]]', '#x'
REF = re.compile(r"(?<!\S)#?\[\[([^\[\]\n]{1,500})\]\]|(?<!\S)#([^\s,#\[\]]{1,200})")


def _values(item: str) -> list[str]:
    """The values one item of a list property holds, as Logseq writes them: 'x', '[[x y]]', '#x' or '#[[x y]]', and
    several of them without commas, as a Dataview field writes tags: 'tags:: #project #work' is 'project' and 'work'
    (they were the one tag 'project #work'), 'tags:: [[a b]] [[c]]' is 'a b' and 'c' (was 'a b]] [[c')."""
    refs = [(found.group(1) or found.group(2)).strip() for found in REF.finditer(item)]
    rest = " ".join(REF.sub(" ", item).split()) if refs else item.strip()
    return [rest, *refs] if rest else refs


BLOCK_TAGS = re.compile(r"[ \t]+tags::[ \t]+(.*?)[ \t]*", re.IGNORECASE)  # a block's property line: '  tags:: a, b'
FIRST_TAGS = re.compile(r"[ \t]*- tags::[ \t]+(.*?)[ \t]*", re.IGNORECASE)  # or its first line: '- tags:: a, b'
INDENT = re.compile(r"([ \t]*)- ")


def block_tags(lines: list[str]) -> tuple[list[tuple[str, ...]], list[int]]:
    """(per line, the tags of the blocks it lies in; the indexes of their 'tags::' lines). A block's ``tags:: a, b``
    property (a line under its first, indented, or its first line: '- tags:: a, b') tags the block and the blocks
    under it, as the page's first block's tags the page: its passages carry them (Section.tags), the line is no
    text (the title column holds them). It stayed a line of text, a passage's words. A page's first block of
    properties alone ('- tags:: a' at the top, as Logseq reads a page's properties written as a block) tags each
    of its passages. ([], []) where no block has tags."""
    tagged: list[tuple[str, ...]] = []
    used, open_blocks = [], []  # (indent, tags) of the blocks the line lies in
    code = _fenced(lines) if any("```" in line or "~~~" in line for line in lines) else set()
    for index, line in enumerate(lines):
        block = INDENT.match(line) if index not in code else None
        if block:
            indent = len(block.group(1).expandtabs(2))
            open_blocks = [(i, tags) for i, tags in open_blocks if i < indent] + [(indent, ())]
            if (found := FIRST_TAGS.fullmatch(line)):
                page = not any(tags for _, tags in open_blocks) and _first_block(lines, index)
                open_blocks[-1] = (-1 if page else indent, _tag_values(found.group(1)))
                used.append(index)
        elif open_blocks and index not in code and (found := BLOCK_TAGS.fullmatch(line)):
            open_blocks[-1] = (open_blocks[-1][0], _tag_values(found.group(1)))
            used.append(index)
            # the block's first line and the lines since are its own too
            start = next(i for i in range(index - 1, -1, -1) if INDENT.match(lines[i]) and i not in code)
            held = tuple(dict.fromkeys(tag for _, tags in open_blocks for tag in tags))
            tagged[start:index] = [held] * (index - start)
        tagged.append(tuple(dict.fromkeys(tag for _, tags in open_blocks for tag in tags)))
    return (tagged, used) if used else ([], [])


def _tag_values(value: str) -> tuple[str, ...]:
    """The tags of a 'tags::' property's value: 'a, [[b c]] #d' is 'a', 'b c', 'd'."""
    items = [value for item in ITEM.split(value) for value in _values(item)]
    return tuple(dict.fromkeys(item for item in items if item))[:VALUES]


def _first_block(lines: list[str], index: int) -> bool:
    """Whether the block starting at ``index`` ('- tags:: …') is the page's first, of properties alone: nothing but
    blank lines and page properties above it, nothing but properties under it up to the next block."""
    if any(line.strip() and not PROPERTY.fullmatch(line) for line in lines[:index]):
        return False
    after = next((i for i in range(index + 1, len(lines)) if INDENT.match(lines[i])), len(lines))
    return all(not line.strip() or PROPERTY.fullmatch(line) for line in lines[index + 1:after])


def shown_lines(text: str, lines: list[str], hidden: list[int] = ()) -> list[str]:
    """``lines`` (of ``text``) as a passage holds them: the page property lines ``hidden`` and each block's id and
    collapsed lines blank (the lines keep their numbers), a block reference as the text of the block it names in
    this page (its first line, without the '- '), or nothing, a page's embed '{{embed [[Page]]}}' as its link
    '[[Page]]' (which a snippet shows as 'Page')."""
    if not hidden and "::" not in text and "((" not in text and "{{embed" not in text and LOGBOOK not in text:
        return lines
    shown = list(lines)
    for index in hidden:
        shown[index] = ""
    if LOGBOOK in text:
        for index in _logbooks(lines):
            shown[index] = ""
    blocks = {}
    code = _fenced(lines) if "```" in text or "~~~" in text else set()
    for index, line in enumerate(lines):
        if index in code:
            continue  # a code block's 'id:: 6500…' or '((6500…))' is code, shown as written
        if "::" in line and BLOCK_NOISE.fullmatch(line):
            shown[index] = ""
            if line.strip().startswith("id::"):
                blocks[line.split("::", 1)[1].strip().lower()] = _block_text(lines, index)
    for index, line in enumerate(shown):
        if index in code:
            continue
        if "((" in line:
            line = shown[index] = REFERENCE.sub(
                lambda found: blocks.get((found.group(1) or found.group(2)).lower(), ""), line)
        if "{{embed" in line:
            shown[index] = EMBED.sub(r"\1", line)
    return shown


def _logbooks(lines: list[str]) -> list[int]:
    """The indexes of the lines of a task's time log, ':LOGBOOK:', its 'CLOCK: [2024-03-14 Thu 10:00]--[…] =>
    01:00:00' lines, ':END:', which Logseq writes under a task once it is NOW or DOING and shows folded: they were
    its passage's text, a snippet of clock times."""
    found = []
    for index, line in enumerate(lines):
        if line.strip() != LOGBOOK:
            continue
        end = index + 1
        while end < len(lines) and end - index <= LOGBOOK_LINES and lines[end].strip().startswith("CLOCK:"):
            end += 1
        if end < len(lines) and lines[end].strip() == ":END:":
            found += range(index, end + 1)
    return found


def _fenced(lines: list[str]) -> set[int]:
    """The indexes of the lines inside code fences (a fence's own lines too)."""
    inside, fence = set(), None
    for index, line in enumerate(lines):
        opened = FENCE.match(line)
        if opened:
            fence = None if fence == opened.group(1) else fence or opened.group(1)
            inside.add(index)
        elif fence is not None:
            inside.add(index)
    return inside


def _block_text(lines: list[str], at: int) -> str:
    """The first line of the block an 'id::' line at ``at`` belongs to, without its '- ' and references."""
    for index in range(at - 1, max(at - BLOCK_LINES, 0) - 1, -1):
        found = BLOCK.fullmatch(lines[index])
        if found:
            return REFERENCE.sub("", found.group(1)).strip()
        if not lines[index].strip():
            break
    return ""


JOURNAL = re.compile(r"(?:.*/)?journals/(\d{4})_(\d{2})_(\d{2})\.md")
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def journal_name(path: str) -> str | None:
    """The name Logseq gives a journal page, as its links write it in the default date format:
    'journals/2024_03_14.md' is 'Mar 14th, 2024' ([[Mar 14th, 2024]]); None for any other file."""
    found = JOURNAL.fullmatch(path)
    if found is None or not 1 <= int(found.group(2)) <= 12:
        return None
    day = int(found.group(3))
    ending = "th" if 10 < day % 100 < 14 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{MONTHS[int(found.group(2)) - 1]} {day}{ending}, {found.group(1)}"


def namespace_name(stem: str) -> str | None:
    """The name of a Logseq page of a namespace from its file's stem ('projects___garden' or 'projects%2Fgarden':
    'projects/garden'); None for any other stem."""
    return NAMESPACE.sub("/", stem) if NAMESPACE.search(stem) else None
