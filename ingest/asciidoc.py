"""AsciiDoc (.adoc, .asciidoc: Asciidoctor's books and Antora's pages) read as notes, by their section titles:
``= Title`` titles the file and heads it, as a Markdown note's ``# Title`` does; ``==`` … ``======`` are its
sections. Read as plain text before, a book had no headings.

What a reader does not see is left out: the header's attribute entries (``:toc: left``; ``:keywords:`` are the
note's tags), block attribute lines (``[source,python]``, ``[[anchor]]``, ``[#id]``; an admonition's ``[NOTE]``
shows 'Note:', as a one-line ``NOTE: …`` and reStructuredText's ``.. note::`` do), preprocessor lines
(``ifdef::env-github[]``, ``endif::[]``; a one-line ``ifdef::x[text]`` shows its text), comments (``//`` and
``////`` blocks) and the delimiter lines of blocks. What a listing, literal or passthrough block holds
(``----``, ``....``, ``++++``, a ```````` fence) is kept as written, and no ``==`` line there is a title. A block's
title (``.Example``) shows without its dot. A cross reference shows its text (``xref:install.adoc#linux[Linux]``
and ``<<install.adoc#linux,Linux>>`` are 'Linux', ``<<linux>>`` 'linux'), and one naming a file
(``xref:other.adoc[]``, ``<<other.adoc#,…>>``), a ``link:`` to one and an ``include::`` are links to it, read from
the file's folder; in an Antora module's pages (``modules/ROOT/pages/…``) an xref is a page id, read from the
module's pages folder (``xref:admin:backup.adoc`` from the module ``admin``'s; another component's is none). An
attribute the document defines (``:product: Sift``) is shown for its reference below (``{product}``, in a title, a
line, an include's path; not in a listing block), as are Asciidoctor's own (``{nbsp}``, ``{plus}``); a footnote
shows its text in brackets (``done.footnote:[Since 2.0.]`` is 'done. (Since 2.0.)'), a monospace passthrough its
code (```+*.war+``` is ```*.war```).
Nothing is read but the file itself. Each line of the text stays the line of the file it came from.
"""
from __future__ import annotations

import posixpath
import re

from ingest.document import Document, sections_at_headings, title_from_name

HEADING = re.compile(r"(={1,6})[ \t]+(?=\S)")  # its name: the rest, without a closing run of '=' (no lazy scan)
ATTRIBUTE = re.compile(r":(!?[\w-]+!?):(?:[ \t]+(.*))?$")
BLOCK_ATTRIBUTES = re.compile(r"\[[^\]\n]*\][ \t]*$")
VERBATIM = re.compile(r"(-{4,}|\.{4,}|\+{4,}|/{4,}|`{3}\w*)[ \t]*$")
DELIMITER = re.compile(r"(={4,}|\*{4,}|_{4,}|--|\|===|!===)[ \t]*$")
BLOCK_MACRO = re.compile(r"(include|image|video|audio|toc)::([^\[\n]*)\[[^\n]*\][ \t]*$")
# a preprocessor line: its condition no text ('ifdef::env-github[]', 'endif::[]'); a one-line 'ifdef::x[text]' shows
# its text
PREPROCESSOR = re.compile(r"(ifn?def|ifeval|endif)::[^\[\n]*\[([^\n]*)\][ \t]*$")
ADMONITIONS = ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION")
BLOCK_TITLE = re.compile(r"\.([^.\s].*)$")
COMMENT = re.compile(r"//(?!/)")
# a target never runs over the next 'xref:' (or 'link:', URL): 'xref:xref:xref:…' was read from each, 24 s for 1 MB
XREF = re.compile(r"xref:((?:(?!xref:)[^\[\s]){1,2000})\[([^\]\n]{0,2000})\]")
ANCHOR_REF = re.compile(r"<<([^,<>\n]{1,2000}?)(?:,[ \t]*([^<>\n]{0,2000}))?>>")
LINK = re.compile(r"link:((?:(?!link:)[^\[\s]){1,2000})\[([^\]\n]{0,2000})\]")
URL = re.compile(r"(https?://(?:(?!https?://)[^\[\s]){1,2000})\[([^\]\n]{0,2000})\]")
INLINE_ANCHOR = re.compile(r"\[\[[^\[\]\n]{1,500}\]\]")
PASSTHROUGH_CODE = re.compile(r"`\+([^`\n]{1,2000}?)\+`")
ANTORA_PAGES = re.compile(r"((?:.*/)?)modules/([^/]+)/pages/")  # a page's folder in an Antora component
FOOTNOTE = re.compile(r"footnote(?:ref)?:[\w-]{0,100}\[(?:[\w-]{1,100},)?([^\]\n]{0,2000})\]")
ATTRIBUTE_REFERENCE = re.compile(r"(\\?)\{([\w-]{1,100})\}")
# Asciidoctor's own attributes for characters ('{nbsp}', '{plus}' …)
BUILT_IN = {"nbsp": " ", "sp": " ", "empty": "", "zwsp": "", "wj": "", "plus": "+", "amp": "&", "lt": "<", "gt": ">",
            "startsb": "[", "endsb": "]", "vbar": "|", "caret": "^", "asterisk": "*", "tilde": "~", "apos": "'",
            "backslash": "\\", "backtick": "`", "two-colons": "::", "two-semicolons": ";;", "cpp": "C++",
            "pp": "++", "deg": "°", "quot": '"', "brvbar": "¦", "ldquo": "“", "rdquo": "”", "lsquo": "‘",
            "rsquo": "’"}
ATTRIBUTES = 1000  # a document's attributes kept: a generated header of more holds no more words worth showing


def parse_asciidoc(path: str, text: str) -> Document:
    shown, headings, links, tags, blocks = _read(text.split("\n"))
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    title = next((name for _, level, name in headings if level == 1), "") or title_from_name(stem)
    folder = posixpath.dirname(path)
    meta: dict = {"links": sorted({_linked(folder, name) for name in links if _linked(folder, name)})}
    if tags:
        meta["tags"] = tags
    return Document(kind="note", title=title, meta=meta,
                    sections=sections_at_headings(shown, headings, 0, len(shown), bare_opens_next=True, blocks=blocks))


def asciidoc_headings(text: str) -> list[tuple[int, int, str]]:
    """(line of the file, 0-based, level, name) of each section title as parse_asciidoc reads them: read_file's
    ``heading`` reads an .adoc file's section by them (mcp_server.headings: headings_by_kind)."""
    return _read(text.split("\n"))[1]


def _read(lines: list[str]) -> tuple[list[str], list, list[str], list[str], list[tuple[int, int]]]:
    """Each line as shown, the titles ((index of the line, level: 1 for '=', name)), the files linked, the tags,
    the verbatim blocks ((first line, line after the last))."""
    shown = [""] * len(lines)
    headings: list[tuple[int, int, str]] = []
    links: list[str] = []
    tags: list[str] = []
    blocks: list[tuple[int, int]] = []
    verbatim, opened_at = None, 0  # the delimiter of the listing, literal, passthrough or comment block we are in
    attributes = dict(BUILT_IN)  # the document's attributes as defined so far: '{product}' shows their value
    for index, line in enumerate(lines):
        if verbatim is None and "{" in line and not ATTRIBUTE.match(line):
            line = _substituted(line, attributes)
        stripped = line.strip()
        if verbatim is not None:
            if stripped == verbatim or (verbatim.startswith("```") and stripped == "```"):
                if not verbatim.startswith("/"):
                    blocks.append((opened_at + 1, index))
                verbatim = None
            elif not verbatim.startswith("/"):
                shown[index] = line.rstrip()
            continue
        if VERBATIM.match(line):
            verbatim, opened_at = stripped, index
            continue
        heading = HEADING.match(line)
        if heading:
            name = line[heading.end():].rstrip()
            if name.rstrip("=") != name and name.rstrip("=")[-1:] in (" ", "\t"):  # '== Title ==': the closing run out
                name = name.rstrip("=")
            name = _inline(name, links).strip()
            headings.append((index, len(heading.group(1)), name))
            shown[index] = name
            continue
        attribute = ATTRIBUTE.match(line)
        macro = BLOCK_MACRO.match(line)
        if attribute:
            _define(attribute.group(1), attribute.group(2), attributes)
            if attribute.group(1).lower() in ("keywords", "tags") and attribute.group(2):
                tags += [tag.strip() for tag in attribute.group(2).split(",") if tag.strip() not in tags]
            elif attribute.group(1).lower() == "description" and attribute.group(2):
                shown[index] = _inline(attributes.get("description", attribute.group(2)), links)
        elif macro:
            if macro.group(1) == "include" and macro.group(2):
                links.append(macro.group(2))
        elif (condition := PREPROCESSOR.match(line)):
            if condition.group(1) in ("ifdef", "ifndef") and condition.group(2).strip():
                shown[index] = _inline(condition.group(2), links).strip()
        elif BLOCK_ATTRIBUTES.match(line) and line[1:].split(",")[0].split("]")[0].strip() in ADMONITIONS:
            shown[index] = line[1:].split(",")[0].split("]")[0].strip().capitalize() + ":"  # '[NOTE]': 'Note:'
        elif BLOCK_ATTRIBUTES.match(line) or DELIMITER.match(line) or COMMENT.match(line):
            continue
        elif (title := BLOCK_TITLE.match(line)) and not line.startswith(".."):
            shown[index] = _inline(title.group(1), links).rstrip()
        else:
            shown[index] = _inline(line, links).rstrip()
    if verbatim is not None and not verbatim.startswith("/"):  # never closed: to the file's end
        blocks.append((opened_at + 1, len(lines)))
    return shown, headings, links, tags, blocks


def _define(name: str, value: str | None, attributes: dict[str, str]) -> None:
    """Take an attribute entry (':product: Sift', ':product!:' unsets it) into ``attributes``."""
    if name.startswith("!") or name.endswith("!"):
        attributes.pop(name.strip("!").lower(), None)
    elif len(attributes) < len(BUILT_IN) + ATTRIBUTES:
        attributes[name.lower()] = _substituted((value or "").strip(), attributes)


def _substituted(line: str, attributes: dict[str, str]) -> str:
    """A line with each reference to an attribute defined so far ('{product}') as its value: 'Use {product}' was
    shown (and searched) as written. One not defined stays as written, as Asciidoctor leaves it; '\\{x}' is '{x}'."""
    return ATTRIBUTE_REFERENCE.sub(lambda m: "{" + m.group(2) + "}" if m.group(1)
                                   else attributes.get(m.group(2).lower(), m.group(0)), line)


def _inline(text: str, links: list[str]) -> str:
    """A line's text as shown: cross references and links as their text (a file's taken as a link), inline
    anchors out."""
    if "xref:" in text:
        text = XREF.sub(lambda m: _reference(m.group(1), m.group(2), links, "xref:"), text)
    if "<<" in text:
        text = ANCHOR_REF.sub(lambda m: _reference(m.group(1), m.group(2), links), text)
    if "link:" in text:
        text = LINK.sub(lambda m: _reference(m.group(1), m.group(2), links), text)
    if "://" in text:
        text = URL.sub(lambda m: m.group(2) or m.group(1), text)
    if "[[" in text:
        text = INLINE_ANCHOR.sub("", text)
    if "`+" in text:  # a monospace passthrough, '`+*.war+`': '`*.war`', as a Markdown note's code span shows
        text = PASSTHROUGH_CODE.sub(r"`\1`", text)
    if "footnote" in text:  # 'done.footnote:[Since 2.0.]': 'done. (Since 2.0.)'; 'footnote:disclaimer[]' again: none
        text = FOOTNOTE.sub(lambda m: (" (" if m.start() and not text[m.start() - 1].isspace() else "(")
                            + m.group(1).strip() + ")" if m.group(1).strip() else "", text)
    return text


def _reference(target: str, text: str | None, links: list[str], how: str = "") -> str:
    """A reference's text (else its target's anchor or name); a target naming a file (its part before '#' with an
    ending) taken as a link (an xref's as 'xref:…': ``_linked`` reads an Antora page id)."""
    target = target.strip()
    file, _, anchor = target.partition("#")
    if "." in file.rsplit("/", 1)[-1] and "://" not in file:
        links.append(how + file if how else
                     file.rsplit(":", 1)[-1] if file.count(":") and "/" not in file.split(":", 1)[0] else file)
    return text.strip() if text and text.strip() else anchor or file


def _linked(folder: str, name: str) -> str | None:
    """The file a reference names, from the file's folder; an xref in an Antora module's pages
    ('modules/ROOT/pages/…') from that module's pages folder, as Antora reads a page id ('xref:install.adoc',
    'xref:admin:backup.adoc' in the module 'admin' beside it); one to another component ('2.0@cli:…') none."""
    name = name.strip()
    if name.startswith("xref:"):
        name = name[len("xref:"):]
        pages = ANTORA_PAGES.match(folder + "/")
        parts = name.split(":")
        family, _, page = parts[-1].rpartition("$")  # 'page$x.adoc' is 'x.adoc'; 'partial$x.adoc' no page
        if pages and len(parts) <= 2 and "@" not in name and family in ("", "page"):
            folder, name = f"{pages.group(1)}modules/{parts[0] if len(parts) == 2 else pages.group(2)}/pages", page
        elif pages:
            return None
        elif len(parts) > 1 and "/" not in parts[0]:
            name = parts[-1]
    if not name or "{" in name or name.startswith(("http:", "https:", "mailto:")):
        return None  # an attribute's value ('{includedir}/x.adoc'), which this reader does not know
    joined = posixpath.normpath(posixpath.join(folder, name)) if not name.startswith("/") else name
    return "/" + joined.lstrip("/") if not joined.startswith("../") else None
