"""Lists of links: a passage that is mostly links to other notes comes after the note it links to.

Any vault has such passages: an index or map-of-content note, a README's table of contents, a reading list, a
'see also' section. Each item is a note's title, so a long question shares a word with many of them ('mac', 'sleep',
'remove', 'column' …), and BM25 ranked the list's passage above the note those words are about: of 38 questions
about notes-en's notes, its README (the title of every note, by folder) came first for three, above the note the
question asked about, linked from that very passage. A list passage found with a note it links to now comes just
after that note (the first of them ranked), keeping its score; a list whose notes were not found keeps its place,
and a question about the list itself ('my reading list') still finds it first by its title (the engine's
``reordering.titled_first``, after this step).

A list of titles without links (an index note of plain '- Title' items, one a line) is such a list when MIN_LINKS of
its lines or more name files the search found, by file name ('Dune' for Dune.md) or as a file name writes a title
('Prevent Sleep With The Caffeinate Command' for prevent-sleep-with-the-caffeinate-command.md): a list of short
lines that name no file found ('Search This Mac' of a note on Finder) stays where it ranked.

A passage is a list of links when it holds MIN_LINKS links or more and the words of their labels are at least twice the
words outside them (headings, the list's markers and the links' targets not counted): '- [Prevent Sleep With The
Caffeinate Command](mac/prevent-sleep-with-the-caffeinate-command.md)' eight times over is one; a paragraph with
three links, or a list whose items each describe the note at length, is not.
"""
from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from search.query.text import WORD

MIN_LINKS = 3
TITLE_WORDS = 12  # a line of a list of plain titles has at most this many words
# '[label](target)' or '[label](<target with spaces>)', with an optional "title"; an image ('![…](…)') is no link
MARKDOWN_LINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\((<[^<>\n]*>|[^()\s]+)(?:[ \t]+\"[^\"\n]*\")?\)")
# '[[name]]', '[[folder/name#Heading|label]]'
WIKI_LINK = re.compile(r"(!?)\[\[([^\[\]\n|#^]*)(?:[#^][^\[\]\n|]*)?(?:\|([^\[\]\n]*))?\]\]")
SCHEME = re.compile(r"[a-zA-Z][\w+.-]*:")  # 'https:', 'mailto:', 'obsidian:' …: no file of the collection
HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t].*)?$", re.MULTILINE)
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*(.*?)[\s.;,]*$")  # a line, without its list marker


def link_targets(text: str, path: str) -> tuple[set[str], set[str]] | None:
    """(the paths, the bare names) the passage ``text`` of the file at ``path`` links to, when it is mostly a list
    of links (see the module); None when it is not. A Markdown link is read from the file's folder (from the
    collection's with a leading '/'), a wiki link by file name, or from the collection's folder when it holds a '/'."""
    if text.count("](") + text.count("[[") < MIN_LINKS:  # most passages: no need to read them for links
        return None
    links, labels = 0, 0
    paths: set[str] = set()
    names: set[str] = set()
    folder = posixpath.dirname(path)
    for image, label, target in MARKDOWN_LINK.findall(text):
        links += not image
        labels += len(WORD.findall(label))
        target = unquote(target.strip("<>").split("#", 1)[0].split("?", 1)[0]).strip()
        if image or not target or SCHEME.match(target):
            continue
        found = posixpath.normpath(posixpath.join("" if target.startswith("/") else folder, target.lstrip("/")))
        if not found.startswith(".."):
            paths.add(found)
    for image, name, label in WIKI_LINK.findall(text):
        links += not image
        labels += len(WORD.findall(label or name))
        name = name.strip()
        if image or not name:
            continue
        if "/" in name:
            found = posixpath.normpath(posixpath.join(folder if name.startswith(".") else "", name))
            if not found.startswith(".."):
                paths.add(found)
        else:
            names.add(name.casefold())
    if links < MIN_LINKS:
        return None
    outside = WIKI_LINK.sub(" ", MARKDOWN_LINK.sub(" ", HEADING.sub(" ", text)))
    if 2 * len(WORD.findall(outside)) > labels:
        return None
    return paths, names


def title_names(text: str) -> set[str] | None:
    """The file names a passage of plain lines may be naming, when every line of it (its headings left out) is a
    short one, MIN_LINKS lines or more, and it holds no link (``link_targets`` reads those): each line as written
    and as a file name writes it ('prevent-sleep-with-the-caffeinate-command'), in lower case. None otherwise."""
    if "](" in text or "[[" in text:
        return None
    lines = [ITEM.match(line).group(1) for line in HEADING.sub("", text).splitlines() if line.strip()]
    if len(lines) < MIN_LINKS or any(not 0 < len(WORD.findall(line)) <= TITLE_WORDS for line in lines):
        return None
    names = {line.casefold() for line in lines}
    return names | {"-".join(WORD.findall(name)) for name in names}


def after_their_notes(ranked: list, places: list[tuple[str, str]], targets: dict[int, tuple[set[str], set[str]]],
                      titles: frozenset[int] = frozenset()) -> list:
    """``ranked`` ([(chunk id, …)], best first) with each list passage (``targets``: {its index in ``ranked``: what it
    links to, ``link_targets``}) moved just after the passages of the files it links to that are ranked below it
    (after the first passage of each; ``places``: each passage's (collection, path)); the others keep their order,
    and so do lists moved after the same passage; a list of plain titles (its index in ``titles``, its names
    ``title_names``) only when MIN_LINKS of them or more name files ranked. A file is named by its path, with or
    without its ending ('[[notes/Plan]]' is notes/Plan.md), or by its name, with or without it, in any case
    ('[[plan]]')."""
    by_path: dict[tuple[str, str], int] = {}
    by_name: dict[tuple[str, str], int] = {}
    for at, (collection, path) in reversed(list(enumerate(places))):  # the first passage of each file wins
        name = posixpath.basename(path).casefold()
        for key in (path, posixpath.splitext(path)[0]):
            by_path[collection, key] = at
        for key in (name, posixpath.splitext(name)[0]):
            by_name[collection, key] = at
    order = [float(at) for at in range(len(ranked))]
    for at, (paths, names) in targets.items():
        collection, own = places[at]
        found = [by_path.get((collection, path)) for path in paths]
        found += [by_name.get((collection, name)) for name in names]
        found = [where for where in found if where is not None and places[where][1] != own]
        if at in titles and len(set(found)) < MIN_LINKS:
            continue
        last = max(found, default=at)
        if last > at:  # notes it links to are ranked below it
            order[at] = last + 0.5
    moved = sorted(range(len(ranked)), key=lambda at: (order[at], at))
    return [ranked[at] for at in moved]
