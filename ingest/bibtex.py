"""BibTeX and BibLaTeX files (Zotero's Better BibTeX export ``library.bib``, a paper's ``refs.bib``) read as a note
of one passage per entry: headed by its citekey, its title, authors, year, where it was published, keywords, DOI,
URL and abstract as text, LaTeX's accents and braces read as the letters they typeset (``M{\\"u}ller`` is Müller,
``{{BERT}}`` BERT: ``ingest.latex.unlatex``). Not read at all before (a kind Sift did not read), 'the paper by
Müller on graph attention' or a DOI found nothing in a library of hundreds of entries.

An entry's ``file`` field (``{/home/u/Zotero/storage/ABCD1234/x.pdf}``, or Zotero's own ``{Full Text:…/x.pdf:
application/pdf}``, several between ``;``) is a link to each PDF it names, as a note's link to a PDF is: an
absolute path (another machine's, Zotero's storage) by the file's name, found wherever the collection holds it,
a relative one from the .bib's folder. The PDF then lists the .bib among the notes citing it, and the entry's
hits list the PDF as attached.

The reading is BibTeX's own: ``@type{key, name = value, …}`` or with parentheses, a value being braced text
(braces inside balanced), quoted text, a number or a macro (``month = jan``, an ``@string``), joined by ``#``;
``@comment``, ``@preamble`` and text between entries are left out. An entry ends at the next line starting an entry
(``@article{``) if its braces have not closed it before: one broken entry (a brace left open) costs that entry alone.
"""
from __future__ import annotations

import re

from ingest.document import Document, Section
from ingest.latex import line_text, unlatex

ENTRY = re.compile(r"@[ \t]*([A-Za-z]+)[ \t]*([{(])")
NEXT_ENTRY = re.compile(r"\n[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(]")
KEYED_ENTRY = re.compile(r"\n[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(][ \t]*[^\s,{}()\"=#%]+[ \t]*,")
FIELD_NAME = re.compile(r"\s*([A-Za-z][\w\-:.+]*)\s*=\s*")
BARE = re.compile(r"[\w\-:.+/']+")
MONTHS = {"jan": "January", "feb": "February", "mar": "March", "apr": "April", "may": "May", "jun": "June",
          "jul": "July", "aug": "August", "sep": "September", "oct": "October", "nov": "November",
          "dec": "December"}
SPACES = re.compile(r"\s+")
# the fields shown, in this order, each under its name unless it is the title, authors or abstract
SHOWN = ("journal", "journaltitle", "booktitle", "publisher", "school", "institution", "series", "volume",
         "number", "pages", "edition", "keywords", "doi", "isbn", "issn", "url", "eprint", "note")
LABELS = {"journaltitle": "Journal", "booktitle": "In", "doi": "DOI", "isbn": "ISBN", "issn": "ISSN", "url": "URL"}
# a field the entry a crossref names does not give the one naming it: its own title is the other's booktitle
NOT_INHERITED = {"title", "crossref", "file", "abstract", "keywords", "ids", "key", "doi", "url", "isbn", "note",
                 "pages", "eprint", "annotation", "shorttitle"}
WINDOWS_PATH = re.compile(r"[A-Za-z]:[\\/]")
MAX_ENTRY_CHARS = 200_000  # an entry no closing brace ends (within this) ends at the next '@' line


def parse_bibtex(path: str, text: str) -> Document:
    entries = list(_entries(text))
    by_key = {key.lower(): fields for _, key, fields, _, _ in entries if key}
    sections, links = [], set()
    for kind, key, fields, start_line, end_line in entries:
        fields = _crossref(kind, fields, by_key)
        section = _entry(kind, key, fields)
        if section is None:
            continue
        section.start_line, section.end_line = start_line, end_line
        sections.append(section)
        links.update(_files(fields.get("file", "")))
    by_name = {link[1:] for link in links if link.startswith("*")}
    return Document(kind="note", title=path.rsplit("/", 1)[-1], sections=sections,
                    meta={"links": sorted(by_name | {link for link in links if not link.startswith("*")}),
                          "wiki_links": sorted(by_name)})


def _crossref(kind: str, fields: dict[str, str], by_key: dict[str, dict[str, str]]) -> dict[str, str]:
    """An entry's fields with those it lacks taken from the entry its ``crossref`` names, as BibTeX takes them: an
    ``@inproceedings`` of ``crossref = {conf2019}`` has its proceedings' year, publisher and editors, and their
    title as its booktitle ('In: …'). Without them its passage had no year nor venue: 'the CHI 2019 paper on …'
    found nothing."""
    parent = by_key.get(fields.get("crossref", "").strip().strip("{}").lower())
    if parent is None or parent is fields:
        return fields
    taken = {name: value for name, value in parent.items() if name not in NOT_INHERITED and name not in fields}
    if "title" in parent and "booktitle" not in fields and kind not in ("book", "proceedings", "collection"):
        taken["booktitle"] = parent["title"]
    return {**fields, **taken}


def _entries(text: str):
    """(kind, citekey, fields, first line, last line) of each entry of ``text``, ``@string``s read into the
    values after them."""
    strings = dict(MONTHS)
    at = 0
    counted, line = 0, 1  # the line at offset ``counted``: lines are counted on from the last entry, once
    while True:
        found = ENTRY.search(text, at)
        if found is None:
            break
        kind = found.group(1).lower()
        body_start = found.end()
        end = _entry_end(text, body_start, ")" if found.group(2) == "(" else "}")
        at = end
        if kind in ("comment", "preamble"):
            continue
        body = text[body_start:end - 1] if end <= len(text) and text[end - 1] in "})" else text[body_start:end]
        if kind == "string":
            for name, value in _fields(body, strings):
                strings[name.lower()] = value
            continue
        key, _, rest = body.partition(",")
        line += text.count("\n", counted, found.start())
        counted = found.start()
        yield (kind, key.strip(), dict(_fields(rest, strings)), line,
               line + text.count("\n", found.start(), max(found.start(), end - 1)))


def bibtex_headings(text: str) -> list[tuple[int, int, str]]:
    """(line of the file, 0-based, level 1, citekey) of each entry parse_bibtex reads: read_file's ``heading``
    reads an entry by its citekey (mcp_server.headings: headings_by_kind)."""
    return [(section.start_line - 1, 1, section.heading_path[0]) for section in parse_bibtex("x.bib", text).sections]


def _entry_end(text: str, start: int, closing: str) -> int:
    """The offset just past the entry's closing brace (or parenthesis), braces inside balanced and quotes
    skipped (in an entry in parentheses: ``title = "Graphs (and more)"`` ended it at 'more)', the rest of the
    entry lost); one never closed ends before the next line starting with '@' (or the text's end)."""
    depth = 0
    quoted = False  # in a quoted value, outside braces: an entry in parentheses
    limit = min(len(text), start + MAX_ENTRY_CHARS)
    at = start
    while at < limit:
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0 and closing == "}":
                return at + 1
            depth -= 1
        elif char == '"' and closing == ")" and depth == 0:
            quoted = not quoted
        elif char == ")" and closing == ")" and depth == 0 and not quoted:
            return at + 1
        elif char == "\n" and (NEXT_ENTRY if depth <= 0 else KEYED_ENTRY).match(text, at):
            # an entry never closed (a brace left open in it): the next one begins. Inside a value, only a line
            # beginning an entry by its citekey ('@article{smith2020,') does: an abstract's line '@article{ is how
            # entries begin' ended the entry there, the rest of its fields lost and a junk entry made of its words
            return at
        at += 1
    following = NEXT_ENTRY.search(text, start)
    return following.start() if following else len(text)


def _fields(body: str, strings: dict[str, str]):
    """(name, value) of each ``name = value`` in an entry's body, a value's parts joined."""
    at = 0
    while at < len(body):
        name = FIELD_NAME.match(body, at)
        if name is None:
            comma = body.find(",", at)
            if comma < 0:
                return
            at = comma + 1
            continue
        at = name.end()
        parts = []
        while at < len(body):
            value, at = _value(body, at, strings)
            parts.append(value)
            while at < len(body) and body[at] in " \t\r\n":
                at += 1
            if at < len(body) and body[at] == "#":
                at += 1
                while at < len(body) and body[at] in " \t\r\n":
                    at += 1
                continue
            break
        yield name.group(1).lower(), "".join(parts)
        comma = body.find(",", at)
        at = len(body) if comma < 0 else comma + 1


def _value(body: str, at: int, strings: dict[str, str]) -> tuple[str, int]:
    """One part of a value from ``at``: braced or quoted text (as written, braces inside kept), a number, or a
    macro's text; and the offset after it."""
    if at >= len(body):
        return "", at
    if body[at] in '{"':
        return _enclosed(body, at + 1, "}" if body[at] == "{" else '"')
    bare = BARE.match(body, at)
    if bare is None:
        return "", at + 1
    word = bare.group(0)
    return strings.get(word.lower(), word), bare.end()


def _enclosed(body: str, start: int, closer: str) -> tuple[str, int]:
    """The text from ``start`` to ``closer`` outside braces (a braced value's '}', a quoted one's '"'), braces
    inside kept, and the offset after it; the rest of ``body`` when it never closes."""
    depth, at = 0, start
    while at < len(body):
        if body[at] == "\\":
            at += 2
            continue
        if body[at] == closer and depth <= 0:
            return body[start:at], at + 1
        if body[at] == "{":
            depth += 1
        elif body[at] == "}":
            depth -= 1
        at += 1
    return body[start:], len(body)


def _entry(kind: str, key: str, fields: dict[str, str]) -> Section | None:
    """An entry's passage: its title, authors and year first, then the other fields a reader looks for, the
    abstract last; headed by its citekey."""
    shown = {name: _text(value) for name, value in fields.items() if name != "file"}
    if shown.get("keywords"):  # 'attention,transformer': words apart
        shown["keywords"] = ", ".join(word.strip() for word in re.split(r"[,;]", shown["keywords"]) if word.strip())
    lines = []
    if shown.get("title"):
        lines.append(shown["title"])
    people = _names(fields.get("author") or fields.get("editor") or "")
    year = shown.get("year") or shown.get("date", "")[:4]
    if people or year:
        lines.append((", ".join(people) + (f" ({year})" if year else "")).strip())  # ' (2019)' of proceedings
    for name in SHOWN:
        if shown.get(name):
            lines.append(f"{LABELS.get(name, name.capitalize())}: {shown[name]}")
    files = [name.lstrip("*").rsplit("/", 1)[-1] for name in _files(fields.get("file", ""))]
    if files:  # by name: what a search hit lists as the entry's attachments (search.query.engine)
        lines.append("File: " + "; ".join(files))
    if shown.get("abstract"):
        lines.append(shown["abstract"])
    if not lines and not key:
        return None
    heading = key or kind
    return Section(text=f"@{key} ({kind})\n" + "\n".join(lines) if key else "\n".join(lines),
                   heading_path=[heading])


def _text(value: str) -> str:
    return SPACES.sub(" ", line_text(value)).strip()


def _names(value: str) -> list[str]:
    """BibTeX's 'Last, First and Last, First' as 'First Last' each; '{Google Research}' stays whole, 'others'
    is 'et al.'."""
    names = []
    for name in re.split(r"\s+and\s+(?![^{]*\})", value.strip()):
        name = name.strip()
        if not name:
            continue
        if name.lower() == "others":
            names.append("et al.")
            continue
        parts = [part.strip() for part in _split_top(name, ",")]
        if len(parts) >= 2:  # 'Last, First' or 'Last, Jr, First'
            name = " ".join([parts[-1], parts[0], *parts[1:-1]])
        names.append(_text(name))
    return [name for name in names if name]


def _split_top(text: str, mark: str) -> list[str]:
    """``text`` split at ``mark`` outside braces."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == mark and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    return [*parts, text[start:]]


def _files(value: str) -> list[str]:
    """The files an entry's ``file`` field names: Better BibTeX's paths between ';', or Zotero's and JabRef's
    'description:path:type' (a Windows path's drive colon kept); an absolute path by its file name (another
    machine's folder: Zotero's storage), marked with a leading '*', a relative one as written."""
    files = []
    for item in _split_top(value, ";"):
        item = item.strip().replace("\\:", ":")
        if not item:
            continue
        parts = item.split(":")
        if len(parts) >= 3 and not WINDOWS_PATH.match(item):  # 'Full Text PDF:/x/y.pdf:application/pdf'
            item = ":".join(parts[1:-1])
        elif len(parts) >= 4:  # 'Full Text:C:\x\y.pdf:application/pdf' is split at its drive too
            item = ":".join(parts[1:-1])
        item = item.strip()
        if item.startswith("/") or WINDOWS_PATH.match(item) or item.startswith("~"):
            name = re.split(r"[\\/]", item)[-1]
            if name:
                files.append("*" + name)  # '*': by its name, wherever the collection holds it
        elif item:
            files.append(item.replace("\\", "/"))
    return files
