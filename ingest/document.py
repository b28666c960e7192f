"""What a parser hands to the chunker: a document made of sections.

A section is a run of text that belongs under one heading path (Markdown),
one definition (code) or one page range (PDF). The chunker splits a section into
windows under the token limit; it merges text across sections only where a code
section is too small to embed well on its own (ingest.chunk.SMALL_CODE_TOKENS).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import accumulate


@dataclass
class Section:
    text: str
    heading_path: list[str] = field(default_factory=list)
    start_line: int | None = None  # 1-based, inclusive; None for PDFs
    end_line: int | None = None
    page: int | None = None  # 1-based first page (PDF)
    end_page: int | None = None  # last page when the section crosses pages
    # For text that runs over several pages: (character offset, page number)
    # where each page starts, so a chunk can name the pages it covers; the first may add where the section
    # starts in its page, when that is not the page's start (a PDF's reference list: ingest.pdf.references_apart).
    page_starts: list[tuple[int, ...]] = field(default_factory=list)
    # Blocks that must not be split unless one alone is over the limit,
    # as (start, end) character offsets into ``text``.
    atomic: list[tuple[int, int]] = field(default_factory=list)
    dated: float | None = None  # the date (unix time) the section is about, where it says one: a mail message's Date
    # its text is made from its lines, not a copy of them (a chat day of JSON messages, an Evernote note's XML): a
    # passage of all its text is at all its lines, not at as many lines as its text has from the first
    made: bool = False
    # the tags of the item it is part of, where a file holds many with tags of their own (an Evernote note's, a mail
    # message's Gmail labels): its passages carry them besides their file's (a class default: older pickles lack it)
    tags: tuple[str, ...] = ()
    # lines its text begins with that the file does not hold (a WhatsApp day's day line, 'Thursday 14 March 2024'):
    # its passages' lines are counted from its first line in the file after them (a class default: older pickles)
    lead: int = 0
    # (a line of its text, counted from 0, the file's line it is at) where its text leaves lines of the file out (a
    # WhatsApp day's notices, deleted messages, an attached file's name line): a passage cut from inside it is at
    # the lines of the marks before it, not at as many lines from the first as its text has (a class default)
    marks: tuple[tuple[int, int], ...] = ()


@dataclass
class Document:
    kind: str  # "note", "code", "pdf", "text"
    title: str
    sections: list[Section]
    meta: dict = field(default_factory=dict)  # tags, aliases, dates, links, language ...
    # a note's footnote definitions, label -> text ('[^1]: Source, p. 41'), embedded with the passages citing them
    footnotes: dict[str, str] = field(default_factory=dict)

    def __setstate__(self, state: dict) -> None:
        """A Document pickled by an older Sift (a parse job's result queued before an upgrade) lacks the fields
        added since: they take their defaults, so its chunk job runs as any other."""
        self.__dict__.update({"meta": {}, "footnotes": {}, **state})


def whole_characters(text: str) -> str:
    """``text`` as UTF-8 (SQLite) can store it: JSON's and YAML's "\\ud800" escapes and a PDF font's ToUnicode map
    can make surrogates; a pair makes its one character, a lone one (no character) becomes U+FFFD. No line
    break is added or removed."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class Skip(Exception):
    """The file is deliberately not indexed (binary, minified, encrypted ...); str() is the reason."""
    lasting = True  # the file's own doing: a scan may carry it forward while the file stays the same


class SkipForNow(Skip):
    """Skipped for something this installation lacks (a package): installing it changes the answer, not the file."""
    lasting = False


# Notion's export names a page or database with a 32-hex id after its title ('Roadmap 3f2a….md'), '_all' after it
# for a database's CSV of every row
NOTION_ID = re.compile(r" [0-9a-f]{32}(?=$|_all$)")


def title_from_name(stem: str) -> str:
    """A file's title from its stem, where the file has none of its own: Notion's id (and '_all') left out,
    'Tasks 1a2b…_all' → 'Tasks'."""
    found = NOTION_ID.search(stem)
    return stem[:found.start()] if found and found.start() > 0 else stem


def sections_at_headings(shown: list[str], headings: list, first: int, last: int, bare_opens_next: bool = False,
                         blocks: list[tuple[int, int]] = ()) -> list[Section]:
    """A text whose lines are ``shown`` (each the file's line of that index, as the reader sees it) cut at each of
    ``headings`` ((index of the line, level, name)), each part from ``first`` to ``last`` (0-based, the last
    excluded) under the heading path it sits in, its own heading's line first; blank lines around a part left out
    and a part of none skipped (LaTeX, org-mode, reStructuredText and AsciiDoc read so). With ``bare_opens_next``,
    a heading with nothing under it but a heading inside it opens that one's part instead of making one of its
    own, as a Markdown note's does (org's '* Projects' over '** TODO Ship it' was a passage of one word).
    ``blocks``: (first line, line after the last) of each code block, in order, kept whole by the chunker where
    it fits (a Section's ``atomic``)."""
    starts = [(first, [])]
    path: list[tuple[int, str]] = []
    for at, (index, level, name) in enumerate(headings):
        path = [(lv, nm) for lv, nm in path if lv < level] + [(level, name)]
        if bare_opens_next and at and len(starts) > 1 and headings[at - 1][1] < level \
                and not any(line.strip() for line in shown[headings[at - 1][0] + 1:index]):
            starts[-1] = (starts[-1][0], [nm for _, nm in path])  # the part the heading above began, or joined
            continue
        starts.append((index, [nm for _, nm in path]))
    sections = []
    block = 0
    for (start, heading_path), (end, _) in zip(starts, starts[1:] + [(last, [])]):
        while end > start and not shown[end - 1].strip():  # blank lines around a part are no part of it
            end -= 1
        while start < end and not shown[start].strip():
            start += 1
        if start == end:
            continue
        body = shown[start:end]
        text = "\n".join(body)
        atomic, offsets = [], None
        while block < len(blocks) and blocks[block][0] < end:
            if blocks[block][1] > start:
                if offsets is None:  # where each line of the part starts in its text
                    offsets = [0, *accumulate(len(line) + 1 for line in body)]
                begin, stop = max(blocks[block][0], start) - start, min(blocks[block][1], end) - start
                if stop > begin:
                    atomic.append((offsets[begin], offsets[stop] - 1))
            if blocks[block][1] > end:
                break  # it runs on into the next part
            block += 1
        sections.append(Section(text=text, heading_path=heading_path, start_line=start + 1, end_line=end,
                                atomic=atomic))
    return sections


OUTER_NAMES, INNER_NAMES = 3, 4  # a heading path deeper than these keeps them, '…' between


def shortened(names: list[str]) -> list[str]:
    """A heading path's nested names (code's definitions, a canvas's groups): deeper than OUTER_NAMES +
    INNER_NAMES + 1, the outermost OUTER_NAMES, '…' and the innermost INNER_NAMES. Each passage stores and indexes
    its path: hundreds nested made it grow with the square of the file."""
    if len(names) <= OUTER_NAMES + INNER_NAMES + 1:
        return names
    return [*names[:OUTER_NAMES], "…", *names[-INNER_NAMES:]]
