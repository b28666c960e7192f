"""Emacs org-mode files (.org) read as notes, by their headlines: ``*``, ``**`` … make the heading path, as a
Markdown note's ``#`` lines do. Read as plain text before, an agenda file was one run of lines with no headings.

An inline task (15 stars or more, org-inlinetask's) is no headline: its line is one of the text it sits in,
its ``END`` line left out. A headline's TODO keyword (``TODO``, ``DONE`` and those a ``#+TODO:`` line names), its
priority (``[#A]``), its statistics cookie (``[2/5]``) and its tags (``:work:urgent:``) are no part of its name in
the heading path (``Projects > Ship the release``), but stay on its line, so that a search for ``TODO`` or ``urgent``
finds it. ``#+FILETAGS:`` are the note's tags (its title column, and a query's ``#work``); a headline's tags are
its section's own and those of the sections under it, as org inherits them (Section.tags: ``#urgent`` puts the
passages of the urgent headlines first), not the file's: an agenda tagged with every tag its headlines carry put all
its passages first for ``#urgent``, the urgent ones among them ranked as any other (``bench/org_rst.py``, hybrid:
1 → 99). ``#+TITLE:`` titles the file
(else its name does); ``#+DATE:`` is the date its passages are about, as a note's front matter ``date:``
(ingest.passage_dates), and a headline's own timestamp (``* Meeting <2024-03-14 Thu>``, else its planning line's
first, ``CLOSED: [2024-03-14 Thu]``) its section's and those under it.
A ``:PROPERTIES:`` drawer's ``ID`` and ``CUSTOM_ID`` are taken out of the text (an id is
kept in ``meta["ids"]``: an ``[[id:…]]`` link to it is a backlink; org-roam's ``ROAM_ALIASES`` are the note's
aliases, searched as its title is, and out of the text too), its other properties shown as ``KEY: value``;
a ``:LOGBOOK:`` drawer (clock lines) is left out (a drawer is one only where its ``:END:`` comes before the next
headline: a ``:work:`` line alone is text), as are comments (``# …``, ``#+BEGIN_COMMENT``) and the other ``#+KEY:``
lines. ``SCHEDULED:``, ``DEADLINE:`` and ``CLOSED:`` lines stay as text, their dates without the
brackets (``DEADLINE: 2024-03-14 Thu``), as is any timestamp in the text (``<2024-03-20 Wed 10:00>``): a search
for the date finds them. A link shows its description, else its target; ``[[file:notes.org::*Heading]]``,
``[[./notes.org]]`` and ``#+INCLUDE: "notes.org"`` are links to that file, ``[[id:…]]`` one to the note holding
that id. A block's lines (``#+BEGIN_SRC`` … ``#+END_SRC``) are kept as written (one atomic span), its marker lines
out.
Each line of the text stays the line of the file it came from, so a hit's lines are the file's.
"""
from __future__ import annotations

import bisect
import re

from ingest.document import Document, sections_at_headings, title_from_name
from ingest.markdown import META_ITEMS
from ingest.passage_dates import meta_date

# a headline: stars from the line's start, then a space; its tags at its end. No pattern here runs over a run of
# spaces from each of its characters: a 1 MB line stays linear
HEADLINE = re.compile(r"(\*+)[ \t]")
INLINE_TASK = 15  # stars of an inline task (org-inlinetask-min-level): a task inside its headline's text, no headline
TAGS = re.compile(r"(?:^|[ \t])(:(?:[\w@#%]+:)+)$")
PRIORITY = re.compile(r"\[#[A-Za-z0-9]\]")
COOKIE = re.compile(r"\[\d*(?:%|/\d*)\]")
SPACES = re.compile(r"[ \t]+")
DEFAULT_KEYWORDS = ("TODO", "DONE")
KEYWORD_LINE = re.compile(r"#\+(?:SEQ_|TYP_)?TODO:(.*)", re.IGNORECASE)
SETTING = re.compile(r"#\+(\w+):[ \t]*(.*)")
BLOCK_BEGIN = re.compile(r"[ \t]*#\+BEGIN_(\w+)", re.IGNORECASE)
DRAWER = re.compile(r"[ \t]*:([\w-]+):[ \t]*$")
DRAWER_END = re.compile(r"[ \t]*:END:[ \t]*$", re.IGNORECASE)
PROPERTY = re.compile(r"[ \t]*:([\w-]+)\+?:[ \t]*(.*)")
IDS = ("ID", "CUSTOM_ID")
ALIAS = re.compile(r'"([^"]*)"|([^\s"]+)')  # of org-roam's ROAM_ALIASES: a quoted name or a word
UNSEEN_DRAWERS = ("LOGBOOK",)
PLANNING = re.compile(r"[ \t]*(?:SCHEDULED|DEADLINE|CLOSED):")
# #+DATE:'s value: an ISO date, bare or as a timestamp, its weekday and time after it or not
ORG_DATE = re.compile(r"[<\[]?(\d{4}-\d\d-\d\d)(?:[ \t]+[^\d\s<>\[\]]+)?(?:[ \t]+(\d{1,2}:\d\d))?")
TIMESTAMP = re.compile(r"[<\[](\d{4}-\d\d-\d\d[^<>\[\]\n]{0,60})[>\]]")
COMMENT = re.compile(r"[ \t]*#(?:[ \t]|$)")
LINK = re.compile(r"\[\[([^\[\]\n]{1,2000})\](?:\[([^\[\]\n]{0,2000})\])?\]")
FILE_ENDING = re.compile(r"\.\w{1,10}$")


def parse_org(path: str, text: str) -> Document:
    reading = _read(text)
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    # an [[id:…]] link is kept as written ('id:…', as a wiki link's bare name is): mcp_server.backlinks matches it
    meta: dict = {"links": sorted(reading.links | reading.ids_linked), "wiki_links": sorted(reading.ids_linked)}
    if reading.tags:
        meta["tags"] = _grouped(reading.tags, reading.groups)[:META_ITEMS]
    if reading.ids:
        meta["ids"] = reading.ids
    if reading.aliases:
        meta["aliases"] = reading.aliases
    if reading.date:  # what the document is about, as front matter's date: (ingest.passage_dates)
        meta["date"] = reading.date
    sections = sections_at_headings(reading.shown, reading.headings, 0, len(reading.shown), bare_opens_next=True,
                                    blocks=reading.blocks)
    _date_sections(sections, reading)
    _tag_sections(sections, reading)
    return Document(kind="note", title=reading.title or title_from_name(stem), sections=sections, meta=meta)


def _date_sections(sections, reading: _Reading) -> None:
    """Each section under a headline with a timestamp of its own (``* Meeting <2024-03-14 Thu>``, else the first of
    the planning line under it: ``CLOSED: [2024-03-14 Thu 10:00]``), or under an ancestor's, is dated by it
    (Section.dated: before the file's #+DATE: and name, ingest.passage_dates)."""
    dates, path = [], []
    for index, level, _ in reading.headings:
        path = [(lv, when) for lv, when in path if lv < level]
        stamp = ORG_DATE.match(reading.stamps.get(index, ""))
        when = meta_date(" ".join(part for part in stamp.groups() if part)) if stamp else None
        when = when if when is not None else (path[-1][1] if path else None)
        path.append((level, when))
        dates.append(when)
    for section, inside in _headlines_of(sections, reading):
        if dates[inside] is not None:
            section.dated = dates[inside]


def _tag_sections(sections, reading: _Reading) -> None:
    """Each section under a headline with tags (``* Call the bank :urgent:finance:``), or under an ancestor's, holds
    them as its own (Section.tags, as org inherits a headline's tags), besides the file's #+FILETAGS."""
    if not reading.headline_tags:
        return
    tags, path = [], []
    for index, level, _ in reading.headings:
        path = [(lv, held) for lv, held in path if lv < level]
        held = list(dict.fromkeys([*(path[-1][1] if path else []), *reading.headline_tags.get(index, [])]))
        path.append((level, held))
        tags.append(held)
    for section, inside in _headlines_of(sections, reading):
        section.tags = tuple(_grouped(tags[inside], reading.groups)[:META_ITEMS])


def _headlines_of(sections, reading: _Reading):
    """(section, the index in reading.headings of its own headline) of each section under a headline: the last
    one its lines hold (a bare one's child follows it)."""
    lines = [index for index, _, _ in reading.headings]
    for section in sections:
        inside = bisect.bisect_left(lines, section.end_line) - 1
        if inside >= 0 and lines[inside] >= section.start_line - 1:
            yield section, inside


def org_headings(text: str) -> list[tuple[int, int, str]]:
    """(line of the file, 0-based, level, name) of each headline as parse_org reads them: read_file's ``heading``
    reads an .org file's section by them (mcp_server.headings: headings_by_kind)."""
    return _read(text).headings


class _Reading:
    def __init__(self) -> None:
        self.title = ""
        self.date = ""  # #+DATE:'s, as front matter writes one ('2024-03-14', '2024-03-14 10:00'), or ''
        self.shown: list[str] = []
        self.headings: list[tuple[int, int, str]] = []
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.aliases: list[str] = []
        self.links: set[str] = set()
        self.ids_linked: set[str] = set()
        self.stamps: dict[int, str] = {}  # a headline's line: its own timestamp's text, or its planning line's first
        self.headline_tags: dict[int, list[str]] = {}  # a headline's line: its tags (':work:urgent:')
        self.groups: dict[str, list[str]] = {}  # a tag: the group tags #+TAGS makes it a member of
        self.blocks: list[tuple[int, int]] = []  # (first line, line after the last) of each block's lines


def _read(text: str) -> _Reading:
    lines = text.split("\n")
    reading = _Reading()
    keywords = list(DEFAULT_KEYWORDS)
    for line in lines:  # a '#+TODO: TODO WAIT | DONE' line anywhere names the file's keywords
        found = KEYWORD_LINE.match(line)
        if found:
            keywords += [word for word in found.group(1).split() if word != "|"]
    keywords = [re.sub(r"\(.*\)$", "", word) for word in keywords]  # 'WAIT(w@/!)': its key and logging
    block, drawer, opened_at = None, None, 0
    # a drawer is one only when its ':END:' comes before the next headline: a ':work:' line alone is text
    ends = [index for index, line in enumerate(lines) if DRAWER_END.match(line)]
    headlines = [index for index, line in enumerate(lines) if HEADLINE.match(line)]
    for index, line in enumerate(lines):
        shown = ""
        if block is not None:
            if re.match(rf"[ \t]*#\+END_{re.escape(block)}\b", line, re.IGNORECASE):
                if block.upper() != "COMMENT":
                    reading.blocks.append((opened_at + 1, index))
                block = None
            elif block.upper() != "COMMENT":
                shown = line[1:] if line.startswith(",*") or line.startswith(",#+") else line
        elif drawer is not None:
            if DRAWER_END.match(line):
                drawer = None
            elif drawer == "PROPERTIES":
                found = PROPERTY.match(line)
                if found and found.group(1).upper() in IDS:
                    if found.group(2).strip() and len(reading.ids) < META_ITEMS:
                        reading.ids.append(found.group(2).strip())
                elif found and found.group(1).upper() == "ROAM_ALIASES":  # '"Big one" small': two aliases
                    for quoted, word in ALIAS.findall(found.group(2)):
                        if (quoted or word).strip() and len(reading.aliases) < META_ITEMS:
                            reading.aliases.append((quoted or word).strip())
                elif found:
                    shown = found.group(1) + ": " + _inline(TIMESTAMP.sub(r"\1", found.group(2)), reading)
            elif drawer not in UNSEEN_DRAWERS:
                shown = _inline(line, reading).strip()
        elif (headline := HEADLINE.match(line)) and len(headline.group(1)) >= INLINE_TASK:
            rest = line[headline.end():].strip()  # an inline task: a line of its part, its closing 'END' none
            shown = "" if rest == "END" else _inline(rest, reading)
        elif headline:
            rest = line[headline.end():].strip()
            reading.headings.append((index, len(headline.group(1)), _headline(rest, keywords, reading)))
            if (stamp := TIMESTAMP.search(rest)) is not None:
                reading.stamps[index] = stamp.group(1)
            if rest.endswith(":") and (tagged := TAGS.search(rest)) is not None:
                reading.headline_tags[index] = [tag for tag in tagged.group(1).split(":") if tag][:META_ITEMS]
            shown = _inline(rest, reading)
        elif (opened := BLOCK_BEGIN.match(line)):
            block, opened_at = opened.group(1), index
        elif (setting := SETTING.match(line.strip())):
            key, value = setting.group(1).upper(), setting.group(2).strip()
            if key == "TITLE":
                reading.title = _inline(value, reading).strip()
            elif key == "DATE":  # '<2024-03-14 Thu 10:00>': '2024-03-14 10:00'; 'May 1, 2023' as written (meta_date
                day = ORG_DATE.match(value)  # reads it as front matter's: it was no date)
                reading.date = " ".join(part for part in day.groups() if part) if day else value
            elif key == "FILETAGS":
                _add_tags(reading, [tag for tag in re.split(r"[:\s]+", value) if tag])
            elif key == "TAGS":
                _add_groups(reading, value)
            elif key in ("INCLUDE", "SETUPFILE") and value:  # '#+INCLUDE: "chapter.org" :minlevel 2': a link
                name = value[1:].partition('"')[0] if value.startswith('"') else value.split()[0]
                if name and not re.match(r"\w+:", name) and not name.startswith("~"):
                    reading.links.add(name.split("::", 1)[0])
        elif (opened := DRAWER.match(line)) and opened.group(1).upper() != "END" \
                and _closed(index, ends, headlines):
            drawer = opened.group(1).upper()
        elif PLANNING.match(line):
            shown = TIMESTAMP.sub(r"\1", line).strip()
            stamp = TIMESTAMP.search(line)
            if stamp and reading.headings and reading.headings[-1][0] == index - 1:  # right under its headline
                reading.stamps.setdefault(index - 1, stamp.group(1))
        elif not COMMENT.match(line):
            shown = _inline(TIMESTAMP.sub(r"\1", line) if "-" in line else line, reading).rstrip()
        reading.shown.append(shown)
    if block is not None and block.upper() != "COMMENT":  # never closed: to the file's end
        reading.blocks.append((opened_at + 1, len(lines)))
    return reading


def _closed(index: int, ends: list[int], headlines: list[int]) -> bool:
    """Whether a drawer opened at line ``index`` has its ':END:' before the next headline (or the file's end)."""
    end, headline = bisect.bisect(ends, index), bisect.bisect(headlines, index)
    return end < len(ends) and (headline == len(headlines) or ends[end] < headlines[headline])


def _headline(rest: str, keywords: list[str], reading: _Reading) -> str:
    """A headline's name: its text without the TODO keyword, priority, cookie and tags."""
    tags = TAGS.search(rest) if rest.endswith(":") else None
    if tags:  # on its line, not the file's tags: see the module's docstring
        rest = rest[:tags.start(1)]
    first, _, after = rest.partition(" ")
    if first in keywords:
        rest = after.lstrip()
    if rest.startswith("COMMENT ") or rest == "COMMENT":
        rest = rest[len("COMMENT"):].lstrip()
    rest = PRIORITY.sub("", rest, count=1) if rest.startswith("[#") else rest
    rest = COOKIE.sub("", LINK.sub(lambda m: m.group(2) or m.group(1), rest))
    return SPACES.sub(" ", rest).strip()


# A group tag of #+TAGS: '[ GTD : Control Persp ]' (or '{ Context : @home @work }', whose members exclude each
# other): org's search for the group finds what is tagged with a member. A member's fast key '(h)' is no part of it.
# A member '{P@.+}' is a regular expression (the tags it matches are members), not read: the group's other members
# still are (the group was dropped whole).
GROUP = re.compile(r"[\[{][ \t]*([^\s:\[\]{}()]+)(?:\(\w\))?[ \t]*:[ \t]*((?:[^\[\]{}]|\{[^\s{}]*\})*)[\]}]")
FAST_KEY = re.compile(r"\(\w\)$")


def _add_groups(reading: _Reading, value: str) -> None:
    """The group tags a '#+TAGS:' line makes (GROUP), as each member's groups."""
    for group in GROUP.finditer(value):
        for member in (word for word in group.group(2).split() if not word.startswith("{")):
            held = reading.groups.setdefault(FAST_KEY.sub("", member), [])
            if group.group(1) not in held:
                held.append(group.group(1))


def _grouped(tags, groups: dict[str, list[str]]) -> list[str]:
    """``tags`` and the group tags (#+TAGS) they are members of, a group's own groups too."""
    out = list(dict.fromkeys(tags))
    for tag in out:  # grows while read: a group that is a member of another adds that one too
        out += [group for group in groups.get(tag, ()) if group not in out]
    return out


def _add_tags(reading: _Reading, tags: list[str]) -> None:
    reading.tags += [tag for tag in tags if tag not in reading.tags][:META_ITEMS - len(reading.tags)]


def _inline(text: str, reading: _Reading) -> str:
    """A line's text as shown: each link as its description (else its target), its target taken as a link."""
    if "[[" not in text:
        return text
    return LINK.sub(lambda m: _link(m, reading), text)


def _link(found: re.Match, reading: _Reading) -> str:
    target, description = found.group(1).strip(), found.group(2)
    if target.lower().startswith("id:"):
        if target[3:].strip():
            reading.ids_linked.add("id:" + target[3:].strip())
    else:
        file = target[5:] if target.lower().startswith("file:") else target
        file = file.split("::", 1)[0].strip()
        if (target.lower().startswith("file:") or FILE_ENDING.search(file)) and not re.match(r"\w+:", file) \
                and not file.startswith("~"):
            reading.links.add(file)
    return description if description is not None and description.strip() else target
