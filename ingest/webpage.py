"""HTML pages, as a wiki's export writes them (Confluence's space export, Notion's HTML, a saved web page): their
text as a reader sees it, in sections by heading, at the lines of the file that hold it.

What every page of an export repeats is left out: the ``<head>`` (its ``<title>`` is the page's title), scripts and
styles, ``<nav>`` and ``<footer>``, and any element whose role is navigation, banner or contentinfo or whose id or
class names a breadcrumb, navigation, sidebar, menu or footer (Confluence's ``#breadcrumbs``, ``#footer``; a
page tree in a ``.sidebar``). Read as code, by lines, each page's passages were mostly markup, and the page tree
of every page held every page's title: a search for one page's title found them all.

A file is read so when it is a whole page (``<!DOCTYPE html>`` or ``<html>`` first) and no template: a Jinja, Django
or Liquid page (a ``{%`` tag outside its ``<pre>`` and ``<code>``), ERB or JSP (``<%``) or PHP keeps being read as
code (``ingest.parse.is_page``); a wiki page showing such tags in its code blocks is a page. The standard
library's ``html.parser`` reads it: it tolerates what browsers tolerate (unclosed ``<p>`` and ``<li>``), gives
each piece of text its line, and needs no package.
"""
from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

from ingest.document import Document, Section, title_from_name

SKIPPED = {"head", "script", "style", "noscript", "template", "svg", "nav", "footer", "iframe", "object"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
BLOCKS = {"address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details", "dialog", "div",
          "dl", "dt", "fieldset", "figcaption", "figure", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
          "hr", "li", "main", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th",
          "thead", "tr", "ul"}
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
NAVIGATION_ROLES = {"navigation", "banner", "contentinfo", "menu", "menubar"}
NAVIGATION_WORDS = {"breadcrumb", "breadcrumbs", "nav", "navbar", "navigation", "sidebar", "menu", "footer"}
WORD_PARTS = re.compile(r"[-_\s]+")
# words before a navigation word saying how the page is laid out, not that the element is its navigation: BEM's
# 'layout--with-sidebar', themes' 'has-sidebar', 'no-sidebar' on the wrapper of the whole page (skipped, it was no text)
LAYOUT_STATES = {"has", "with", "without", "no"}
# Elements that hold the page itself: their id and class words say how the page is shown, not that they are its
# navigation (mdBook's <html class="light sidebar-visible">, Read the Docs' <body class="wy-body-for-nav"> were
# skipped whole, the page read as no text)
PAGE_HOLDERS = {"html", "body", "main", "article"}
SPACES = re.compile(r"\s+")
TITLE_CHARS = 500
# Elements whose end tag HTML lets one leave out, and the start tags that end them (as a browser ends them, HTML5's
# tree building simplified): a skipped '<li class="menu-item">' or '<p class="footer">' never closed was held open
# to the page's end (each next <li> or <p> counted as one inside it), and '<head>' without '</head>' skipped the
# whole body. Inside a skipped element the open elements are kept, so that these end where a browser ends them.
CLOSES_P = {"address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "dd",
            "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
            "hgroup", "hr", "li", "listing", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table",
            "ul", "xmp"}
CELL_ENDS = {"td", "th", "tr", "tbody", "thead", "tfoot"}
# elements a <p> outside them is not ended from (HTML's 'button scope'): a block inside a button's or a cell's
P_SCOPE = {"button", "table", "td", "th", "caption", "template", "object", "applet", "marquee", "html"}
IN_HEAD = {"title", "meta", "link", "style", "script", "noscript", "base", "template", "basefont", "bgsound"}
ENDED_BY = {"p": CLOSES_P, "li": {"li"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"}, "td": CELL_ENDS, "th": CELL_ENDS,
            "tr": {"tr", "tbody", "thead", "tfoot"}, "option": {"option", "optgroup"}, "optgroup": {"optgroup"}}
# skipped elements <main> inside is read from: what says it is navigation (not <head>, a script, a template …)
NAVIGATION_TAGS = {"nav", "footer"}


# A paragraph is one line of text however many lines of the file it spans; past this many characters (no prose
# paragraph is this long) the rest of it is read in pieces: lines ended at the file's first line break (else
# sentence end) past PIECE_CHARS, which the chunker takes whole as it takes a text file's lines. A page of one 20 MB
# <p> was held as one line, its 4 million words split at once and each a unit of the chunker: 590 MB and 15 s to
# be refused at chunk.
LINE_CHARS = 100_000
PIECE_CHARS = 500
CUT_CHARS = 20 * PIECE_CHARS  # past a piece's length, where its end is looked for (_cut)
# A start tag longer than this is left out, ended at its first '>' (its attributes unread): the standard library
# matched its attributes with a regular expression whose backtracking held 160 bytes for each (an unclosed '<a '
# followed by 10 MB of 'x=y' took 1.7 GB). A saved page's picture inlined in base64 is one attribute, no text.
TAG_CHARS = 64 * 1024
TAG_NAME = re.compile(r"[a-zA-Z][^\t\n\r\f />\x00]*")  # as the standard library reads a start tag's name


def parse_page(path: str, text: str) -> Document:
    reader = _Reader()
    reader.feed(text)  # whole: fed 64 KB at a time, no page held less (tests/test_hostile_html_memory.py)
    reader.finish()
    lines = [[first, last, "".join(pieces)] for first, last, pieces in reader.lines]
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    title = " ".join(reader.title.split())[:TITLE_CHARS] or next(
        (name for line, level, name in reader.headings if level == 1), "") or title_from_name(stem)
    return Document(kind="note", title=title, sections=_sections(lines, reader.headings),
                    meta={"links": reader.links})


def page_headings(text: str) -> list[tuple[int, int, str]]:
    """(line of the file, 0-based, level, text) of each heading of an HTML page's text, as parse_page reads them
    (none in its navigation): read_file's ``heading`` reads a page's section by them (mcp_server.headings:
    headings_by_kind)."""
    reader = _Reader()
    reader.feed(text)
    reader.close()
    return [(reader.lines[index][0] - 1, level, name) for index, level, name in reader.headings]


def _main(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an element is the page's main content: <main>, or of role main."""
    return tag == "main" or any(name == "role" and (value or "").strip().lower() == "main" for name, value in attrs)


def _navigation(attrs: list[tuple[str, str | None]]) -> bool:
    """Whether an element's attributes say it is the site's navigation (repeated on every page), not the page."""
    for name, value in attrs:
        if not value:
            continue
        if name == "role" and value.strip().lower() in NAVIGATION_ROLES:
            return True
        if name in ("id", "class"):
            words = WORD_PARTS.split(value.lower())
            if any(word in NAVIGATION_WORDS and (n == 0 or words[n - 1] not in LAYOUT_STATES)
                   for n, word in enumerate(words)):
                return True
    return False


class _Reader(HTMLParser):
    """Text lines of a page: (first line in the file, last line, text), a heading's lines apart."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[list] = []  # [first, last, [pieces of its text]]: joined once read (a paragraph of
        # 100,000 bold words, added to a string a piece at a time, took time growing with its square)
        self.open = False  # whether the last line takes more text
        self.room = 0  # the characters the last line still takes (LINE_CHARS)
        self.pieced = False  # whether the last line was ended for its length: what follows is a piece
        self.skipping: list[str] = []  # the skipped element we are in, and the elements open inside it
        self.pushes = 0  # elements put on ``skipping`` so far
        self.open_names: Counter = Counter()  # of ``skipping``, how many of each name, and of those whose end tag
        self.firm = 0  # may not be left out: an end tag looked up in it whatever the depth (a list searched for each
        # of 40,000 stray end tags inside 40,000 unclosed <span>s took 17 s)
        self.title, self.in_title = "", False
        self.heading: tuple[int, int] | None = None  # (level, index of its line) while inside one
        self.headings: list[tuple[int, int, str]] = []  # (index of its line, level, text)
        self.pre = 0
        self.space = False  # a space is due before the next text on the line
        self.links: list[str] = []

    def finish(self) -> None:
        """Read what ``feed`` left: the parser stops at a tag, comment or declaration it sees no end of, and
        ``close`` then read each '<' after it as the start of one again, each time to the end of the page (an
        unclosed '<!--' or '<a ' followed by 2 MB with a '<' every ten characters took hours). As a browser reads
        it (HTML5), one that runs to the end of the file holds the rest of it: no text. One the standard library
        gives up on though a '>' comes later is text up to that '>', as ``close`` read it, and reading goes on."""
        while len(self.rawdata) > 1 and self.rawdata.startswith("<"):
            tail = self.rawdata
            end = tail.find(">", 1)
            if end < 0 or tail.startswith("<!--"):
                self.rawdata = ""
                break
            self.handle_data(tail[:end + 1])
            self.updatepos(0, end + 1)
            self.rawdata = tail[end + 1:]
            self.goahead(False)
        self.close()

    def parse_starttag(self, i):
        """A start tag's end, as the standard library's; -1 while no '>' has come (``finish`` reads what is left
        at the end of the page), and one of over TAG_CHARS is read without its attributes, up to its first '>': left
        out whole, a <script> or <style> so long was not skipped, its code read as the page's text."""
        end = self.rawdata.find(">", i)
        if end < 0:
            return -1
        if end - i > TAG_CHARS:
            name = TAG_NAME.match(self.rawdata, i + 1)
            if name:
                self.handle_starttag(name[0].lower(), [])
                if name[0].lower() in self.CDATA_CONTENT_ELEMENTS:
                    self.set_cdata_mode(name[0].lower())
            return end + 1
        return super().parse_starttag(i)

    def parse_marked_section(self, i, report=1):
        """'<![CDATA[…' and '<![if …]>' (Word's HTML) up to the next '>', as HTML5 reads them outside SVG and MathML
        (skipped): the standard library raised AssertionError for '<![foo[' or '<![ x', failing the page, and
        searched the rest of the page for ']]>' at each one."""
        return self.parse_bogus_comment(i, report=0)

    def handle_starttag(self, tag, attrs):
        if tag == "title" and (not self.skipping or self.skipping[0] == "head"):  # the <head>'s one thing kept
            self.in_title = True
            return
        if self.skipping and (self.skipping[0] not in SKIPPED or self.skipping[0] in NAVIGATION_TAGS) \
                and _main(tag, attrs):
            self._unskip()  # the page's main content, inside what class words took for navigation (Read the
            # Docs' <div class="wy-grid-for-nav"> holds its whole page): that was no navigation
        if self.skipping:
            self._end_implied(tag)
        if self.skipping:
            if tag not in VOID:
                self._skip(tag)
            return
        if tag in SKIPPED or (tag not in VOID and tag not in PAGE_HOLDERS and not _main(tag, attrs)
                              and _navigation(attrs)):  # <div role="main" class="has-sidebar">: the page, not a menu
            if tag not in VOID:
                self._skip(tag)
            return
        if tag == "a":
            href = dict(attrs).get("href")
            if href and "://" not in href and not href.startswith(("#", "mailto:")):
                self.links.append(href)
        if tag in BLOCKS:
            self.open = self.pieced = False
        if tag == "pre":
            self.pre += 1
        if tag in HEADINGS:
            self.heading = (HEADINGS[tag], len(self.lines))

    def _skip(self, tag: str) -> None:
        self.skipping.append(tag)
        self.pushes += 1
        self.open_names[tag] += 1
        self.firm += tag not in ENDED_BY

    def _unskip(self, count: int | None = None) -> None:
        """Close the last ``count`` elements of ``skipping`` (all of them by default)."""
        for _ in range(len(self.skipping) if count is None else count):
            tag = self.skipping.pop()
            self.open_names[tag] -= 1
            self.firm -= tag not in ENDED_BY

    def _end_implied(self, tag: str) -> None:
        """End the open elements inside the skipped one (it too) that the start tag ``tag`` ends: a <li> an open
        <li>, a block an open <p>, anything but what a <head> holds the <head>. A block ends a <p> with what is left
        open inside it too ('<p class="footer"><span>© 2024' then '<div>': the rest of the page was in the footer)."""
        if tag in CLOSES_P and self.open_names["p"] and not any(self.open_names[name] for name in P_SCOPE):
            # (none of P_SCOPE open: what the <p> holds is popped, each element once, never searched for nothing)
            while True:
                last = self.skipping[-1]
                self._unskip(1)
                if last == "p":
                    break
        while self.skipping:
            last = self.skipping[-1]
            if tag in ENDED_BY.get(last, ()) or (last == "head" and tag not in IN_HEAD):
                self._unskip(1)
            else:
                break

    def handle_startendtag(self, tag, attrs):
        pushes = self.pushes
        self.handle_starttag(tag, attrs)
        if tag == "title":  # '<title/>': no title (the body's text was taken for it)
            self.in_title = False
        elif self.pushes > pushes:  # a skipped element written self-closed ('<div class="sidebar"/>', an
            self._unskip(1)                # XHTML export's): it holds nothing (kept open, the rest was skipped)
        elif tag not in VOID and not self.skipping:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
            return
        if self.skipping:
            if self.open_names[tag]:  # it, and what inside it was left open
                while self.skipping[-1] != tag:
                    self._unskip(1)
                self._unskip(1)
            elif tag in BLOCKS | {"html", "select"} and not self.firm:
                self._unskip()  # the end of what holds them ('</ul>' of a '<li class="nav-item">' left open)
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
        if tag in HEADINGS and self.heading is not None:
            level, first = self.heading
            self.heading = None
            name = " ".join(" ".join("".join(line[2]) for line in self.lines[first:]).split())
            if name:
                self.headings.append((first, level, name))
        if tag in BLOCKS:
            self.open = self.pieced = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data
            return
        if self.skipping or not data:
            return
        line = self.getpos()[0]
        if self.pre:  # preformatted: its lines as they are
            for n, piece in enumerate(data.split("\n")):
                if n:
                    self.open = False
                if piece.strip():
                    self._put(line + n, line + n, piece.rstrip(), False)
            return
        start = 0
        while start < len(data):  # a paragraph past LINE_CHARS goes on in a new line
            room = self.room if self.open else PIECE_CHARS if self.pieced else LINE_CHARS
            end = len(data) if len(data) - start <= room else _cut(data, start + max(room, 0))
            self._flowing(data[start:end], line)
            line += data.count("\n", start, end)
            if end < len(data):
                self.open, self.pieced = False, True
            start = end

    def _flowing(self, data: str, line: int) -> None:
        """Text outside <pre>, at line ``line`` of the file: its spaces one, added to the open line."""
        if not data.strip():
            self.space = self.space or self.open
            return
        lead = len(data) - len(data.lstrip())
        self._put(line + data.count("\n", 0, lead), line + data.count("\n", 0, len(data.rstrip())),
                  " ".join(data.split()), lead > 0)
        self.space = data[-1].isspace()

    def _put(self, first: int, last: int, text: str, space: bool) -> None:
        if self.open and self.lines:
            held = self.lines[-1]
            held[1] = last
            held[2] += [" ", text] if space or self.space else [text]
            self.room -= len(text) + 1
        else:
            self.lines.append([first, last, [text]])
            self.room = (PIECE_CHARS if self.pieced else LINE_CHARS) - len(text)
        self.open, self.space = True, False


def _cut(data: str, at: int) -> int:
    """Where to end a line in ``data`` at or past ``at``: after its next line break, else sentence end, else space
    within CUT_CHARS (a paragraph of words without a sentence end, 5 MB on one line of the file, was one line, its
    words split at once: 72 MB), else after the next space past them, else at its end (the line goes on in the next
    piece of text). Looked for within CUT_CHARS: each piece searching the rest of a paragraph was quadratic."""
    for mark in ("\n", ". ", " "):
        end = data.find(mark, at, at + CUT_CHARS)
        if end >= 0:
            return end + 1
    end = data.find(" ", at + CUT_CHARS)
    return len(data) if end < 0 else end + 1


def _sections(lines: list[list], headings: list[tuple[int, int, str]]) -> list[Section]:
    """Sections by heading, as a Markdown note's: a heading's path is the headings above it of lower levels; a
    heading with no text before the next one opens the next one's section."""
    starts = {index: (level, name) for index, level, name in headings}
    sections: list[Section] = []
    path: list[tuple[int, str]] = []  # (level, heading)
    current: list[list] = []
    for index, line in enumerate(lines):
        if index in starts:
            if any(i not in starts for i in range(index - len(current), index)):  # text under the heading above
                _add(sections, current, [name for _, name in path])
                current = []
            level, name = starts[index]
            path = [(lv, n) for lv, n in path if lv < level] + [(level, name)]
        current.append(line)
    _add(sections, current, [name for _, name in path])
    return sections


def _add(sections: list[Section], lines: list[list], heading_path: list[str]) -> None:
    text = "\n".join(line[2] for line in lines if line[2].strip())
    if text.strip():
        sections.append(Section(text=text, heading_path=list(heading_path), start_line=lines[0][0],
                                end_line=max(line[1] for line in lines)))
