"""Links between notes and the files they cite, PDFs above all.

A note's links are resolved to paths inside its collection: a Markdown link
relative to the note's folder (one starting with ``/`` from the collection's
folder, as GitHub reads it; ``[x](paper.pdf)`` is the paper beside the note), a
wiki-link ``[[name]]`` by file name (kept bare, since it may live anywhere),
``[[folder/name]]`` from the collection's folder, as Obsidian writes a path
(``[[./name]]`` and ``[[../name]]`` from the note's), Joplin's ``[x](:/0123…)`` by the id, a bare name.
Links to other schemes (``data:``, ``tel:``) and those that leave the collection are dropped. A PDF with a
Markdown file of the same stem beside it is that note's attachment: the note's text stands for the PDF, and
the PDF is not indexed a second time; so is the HTML page an R Markdown or Quarto document was knitted to
(``report.html`` beside ``report.Rmd``: knitted_pages).
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Collection
from pathlib import Path, PurePosixPath
from typing import NamedTuple
from urllib.parse import unquote

from ingest.kinds import BIBTEX_EXTENSIONS, CANVAS, ENEX_EXTENSIONS, MAIL_EXTENSIONS, OUTLOOK_EXTENSIONS, kind_of, suffix
from ingest.kinds import SUBTITLE_EXTENSIONS

# Links that name no file (URLs with :// never get here). Only these: a wiki name may hold a colon ([[Plan: Q3]]).
SCHEME = re.compile(r"(?:data|tel|sms|javascript|geo|magnet|urn|news|xmpp|callto|mailto):", re.IGNORECASE)
DRIVE = re.compile(r"[A-Za-z]:[/\\]")  # C:/notes or C:\notes: another machine's path
UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")
# Joplin's link to a note or resource by its id, ':/0123…' (32 hex digits): the file '0123….md' of its raw export
# directory. Read as a path it was 'Folder/:/0123…', beside the note, which no file is.
JOPLIN_ID = re.compile(r":/[0-9a-fA-F]{32}")


def resolve_links(note_path: str, raw_links: list[str], wiki: Collection[str] = ()) -> list[str]:
    """The paths ``raw_links`` name, ``wiki`` those of them written as wiki links (a target written both ways
    is read as a wiki link). A Markdown link without a '/' was kept bare, as a wiki link is: the note then
    listed every PDF of that name in the collection, and each of them was 'cited by' it."""
    folder = posixpath.dirname(note_path)
    resolved = []
    for raw in raw_links:
        if SCHEME.match(raw) or DRIVE.match(raw):
            continue
        target = UNPRINTABLE.sub("", unquote(raw.split("#", 1)[0].split("?", 1)[0])).strip()
        if not target:
            continue
        if JOPLIN_ID.fullmatch(target):  # the note or resource of that id, wherever it is: a bare name, as [[name]]
            resolved.append(target[2:].lower())
            continue
        resolved.append(_resolve(folder, target, by_name=raw in wiki))
    return sorted({target for target in resolved if target is not None})


def _resolve(folder: str, target: str, by_name: bool) -> str | None:
    """A wiki link (``by_name``) is a bare file name, or a path from the collection's folder unless it starts
    with '.'; a Markdown link is read from the note's folder unless it starts with '/'. None outside."""
    if by_name and "/" not in target and not target.startswith("."):
        return target
    start = "" if target.startswith("/") or (by_name and not target.startswith(".")) else folder
    target = posixpath.normpath(posixpath.join(start, target.lstrip("/")))
    if target in (".", "..") or target.startswith("../"):
        return None  # the collection's folder itself, or outside it
    return target


def same_stem_pdf(root: Path | str, note_path: str) -> str | None:
    """The PDF beside a note with the same stem (``paper.md`` or ``Paper.MD`` → ``paper.pdf``, ``paper.PDF`` or
    any case of it, as converted_pdfs finds it), if there is one; none beside a canvas, which is no conversion, nor
    beside an HTML page read as a note (ingest.webpage): the walk pairs a PDF with a note by its name's kind alone
    (converted_pdfs), so a page parsed with one was found 'changed' at every scan."""
    if not _converts(note_path) or kind_of(note_path) != "note":
        return None
    for ending in (".pdf", ".PDF", *(f".{p}{d}{f}" for p in "pP" for d in "dD" for f in "fF")):
        pdf = PurePosixPath(note_path).with_suffix(ending).as_posix()
        if (Path(root) / pdf).is_file():
            return pdf
    return None


def converted_pdfs(paths: set[str]) -> dict[str, str]:
    """PDFs whose same-stem Markdown conversion is among ``paths``, by that note's path: a note of any Markdown
    suffix, in any case (the same test as same_stem_pdf, so a PDF attached to a note is never indexed again as
    well)."""
    kinds = {p: kind_of(p) for p in paths}
    pdfs = {_stem(p): p for p, kind in kinds.items() if kind == "pdf"}
    if not pdfs:  # each path's kind asked twice and its stem made for nothing: a third of a rescan's CPU
        return {}
    return {p: pdfs[_stem(p)] for p, kind in kinds.items()
            if kind == "note" and _stem(p) in pdfs and _converts(p)}


KNITTED = (".rmd", ".qmd")  # R Markdown, Quarto: knitted to a page of their name as well as to a PDF
PAGES = (".html", ".htm")


def knitted_pages(paths: set[str]) -> set[str]:
    """The HTML pages among ``paths`` whose same-stem R Markdown or Quarto document is among them too
    (``report.html`` beside ``report.Rmd`` or ``report.qmd``, either ending in any case): what knitting made of it,
    its export as a PDF beside it is, not indexed again (each passage of the report was in a search's results
    twice, the page's a file of its own)."""
    sources = {path[:-4] for path in paths if path[-4:].lower() in KNITTED}
    if not sources:
        return set()
    return {path for path in paths if path.lower().endswith(PAGES) and _stem(path) in sources}


def _converts(note_path: str) -> bool:
    """Whether a note of this name beside a PDF of its stem may be its conversion: not a canvas, nor a .bib (refs.bib
    beside paper.pdf lists what the paper cites), nor mail (invoice.eml beside the invoice.pdf it came with does not
    hold its text), nor a recording's subtitles ('Lecture 07.srt' beside the lecture's slides, 'Lecture 07.pdf', says
    what they do not). A .tex is (so are .org, .rst, .adoc and Word's .docx, which make a PDF as well): main.pdf
    beside main.tex is what LaTeX typeset from it, and read as well it put each passage of the thesis twice in a
    search's results."""
    ending = suffix(note_path).lower()
    # an Evernote export beside a PDF of its name holds other notes
    return ending != CANVAS and ending not in BIBTEX_EXTENSIONS and ending not in MAIL_EXTENSIONS | OUTLOOK_EXTENSIONS \
        and ending not in ENEX_EXTENSIONS and ending not in SUBTITLE_EXTENSIONS


def _stem(path: str) -> str:
    return PurePosixPath(path).with_suffix("").as_posix()


# --- a wiki link as a name for a note and a place in it (read_file) ---------------------------------------

WIKI_LINK = re.compile(r"!?\[\[(.*)\]\]")
ATX_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
FENCE = re.compile(r" {0,3}(```|~~~)")
LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")


class WikiLink(NamedTuple):
    """What ``[[name#Heading#Sub|label]]`` or ``[[name#^block]]`` names: the note and the place in it."""
    name: str
    headings: tuple[str, ...]
    block: str | None


def wiki_link(raw: str) -> WikiLink | None:
    """``raw`` read as Obsidian reads a link: '[[Note]]', '![[Note#Part|label]]', or the same without the
    brackets ('Note#^block'); None when it names no note (no name before '#': a link inside the note itself). A '|'
    or '#' escaped, as Obsidian writes a link in a table ('[[Garden Shed\\|the shed]]'), is read as one unescaped:
    the note looked for was 'Garden Shed\\'."""
    inside = WIKI_LINK.fullmatch(raw.strip())
    text = re.split(r"\\?\|", inside.group(1) if inside else raw.strip(), maxsplit=1)[0]
    name, *parts = re.split(r"\\?#", text)
    parts = [part.strip() for part in parts if part.strip()]
    block = parts[-1][1:] if parts and parts[-1].startswith("^") else None
    if not name.strip():
        return None
    return WikiLink(name.strip(), tuple(parts[:-1] if block is not None else parts), block or None)


def linked_lines(text: str, link: WikiLink, loose: bool = False,
                 headings: list[tuple[int, int, str]] | None = None) -> tuple[int, int] | str:
    """(first, last) line, 1-based, of the place ``link`` names in a note's ``text``: a heading's section (down
    to the next heading of its level or above, its subsections included; 'Note#A#B': B inside A, as Obsidian
    reads it) or the block that ends with '^id' (the paragraph or list item, or what is above a line holding the
    id alone). A heading is matched on its letters and digits, in any case ('BM25 tuning' finds '## BM25 Tuning:');
    ``loose`` (a heading a person names, not a link): else the one heading that holds those ('The storm' finds
    '## 3. The Storm'). A string says what was not found. ``headings``: (line, 0-based, level, name) of a text
    whose headings are no '#' lines (an HTML page: ingest.webpage.page_headings)."""
    lines = text.split("\n")
    first, last = 0, len(lines)
    if link.headings:
        headings = _headings(lines) if headings is None else headings
        for wanted in link.headings:
            key = _heading_key(wanted)
            inside = [i for i, (line, _, _) in enumerate(headings) if first <= line < last]
            at = next((i for i in inside if _heading_key(headings[i][2]) == key), None)
            holding = [i for i in inside if key and key in _heading_key(headings[i][2])] if loose else []
            if at is None and len(holding) > 1:  # 'Slide 3' in a deck of 30 slides: 'Slide 3: Costs', not 'Slide 30'
                holding = [i for i in holding if _holds_words(headings[i][2], wanted)] or holding
            if at is None and len(holding) == 1:
                at = holding[0]
            if at is None:
                return (f"several headings holding {wanted!r}: " + listed_headings(headings[i][2] for i in holding)
                        if len(holding) > 1 else f"no heading {wanted!r}")
            line, level, _ = headings[at]
            ends = [other for other, lv, _ in headings[at + 1:] if lv <= level and other < last]
            first, last = line, ends[0] if ends else last
    if link.block:
        mark = re.compile(rf"(?:^|\s)\^{re.escape(link.block)}\s*$")
        at = next((i for i in range(first, last) if mark.search(lines[i])), None)
        if at is None:
            return f"no block ^{link.block}"
        first, last = _block(lines, at), at + 1
    while last > first + 1 and not lines[last - 1].strip():
        last -= 1
    return first + 1, max(last, first + 1)  # a heading and the next on one line (a page written on one)


HEADINGS_LISTED = 12


def listed_headings(names) -> str:
    """'Intro', 'The storm', … of the first HEADINGS_LISTED ``names``, and how many more."""
    names = list(names)
    more = f" and {len(names) - HEADINGS_LISTED} more" if len(names) > HEADINGS_LISTED else ""
    return ", ".join(repr(name) for name in names[:HEADINGS_LISTED]) + more


def heading_names(text: str) -> list[str]:
    """The ATX headings of a note's ``text``, in order."""
    return [name for _, _, name in _headings(text.split("\n"))]


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(line, level, text) of each ATX heading outside code fences."""
    found, fence = [], None
    for i, line in enumerate(lines):
        opening = FENCE.match(line)
        if opening:
            fence = None if fence == opening.group(1) else fence or opening.group(1)
        elif fence is None and (heading := ATX_HEADING.fullmatch(line)):
            found.append((i, len(heading.group(1)), heading.group(2) or ""))
    return found


def _heading_key(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def _holds_words(heading: str, wanted: str) -> bool:
    """Whether ``heading`` holds the words of ``wanted`` whole, in order ('Slide 3: Costs' holds 'slide 3'; 'Slide
    30' does not)."""
    words = re.findall(r"\w+", wanted.casefold())
    return bool(words) and re.search(r"(?<!\w)" + r"\W*".join(map(re.escape, words)) + r"(?!\w)",
                                     heading.casefold()) is not None


def _block(lines: list[str], at: int) -> int:
    """The first line of the block whose id is on line ``at``: that line for a list item, the lines above it
    for an id on a line of its own (a table, a quote), else its paragraph."""
    if LIST_ITEM.match(lines[at]):
        return at
    first = at - 1 if lines[at].strip().startswith("^") and at > 0 else at
    while first > 0 and lines[first - 1].strip() and not ATX_HEADING.fullmatch(lines[first - 1]):
        first -= 1
    return first
