"""reStructuredText (.rst: Sphinx's and docutils' documents) read as notes, by their section titles: a title is a
line underlined (and perhaps overlined) with a punctuation character, ``=====``; each style (the character, with or
without an overline) is a level, in the order the file first uses them, as docutils reads them, and the first
title titles the file (Sphinx's page title), unless a ``:title:`` field the page begins with does. Read as plain
text before: a Sphinx docs tree had no headings.

A small reader of our own, not docutils: docutils runs directives (``include`` and ``raw`` read other files), and
reads a page as a whole; this reads lines. What a reader does not see is left out: the adornment lines, comments
(``..`` and the indented lines under it), targets (``.. _install:``), a directive's options (``:maxdepth: 2``);
a directive's line shows its argument (``.. note::`` is 'Note:', ``.. function:: parse(path)`` is 'parse(path)',
``.. code-block:: python`` nothing), its content kept and read as the page is (a ``.. note::`` or ``::``
code inside a ``.. function::`` is one too). A role shows its text (``:ref:`the installation <install>```
is 'the installation', ``:func:`os.path.join``` 'os.path.join'), a hyperlink its text, inline literals their code
(a role or hyperlink wrapped over two lines shows its part of the text on each: ``_wrapped``); a Sphinx
``.. only::`` block's text is read (which builder it is for is not known here);
code blocks (``::`` and ``.. code-block::``) are kept as written. ``:doc:`` roles, a ``toctree``'s entries and an
``include`` or ``literalinclude`` are links to the files they name (read from the file's folder, a leading ``/``
from the collection's, ``.rst`` added to a name without an ending): the pages a page lists, and its backlinks.
Nothing is read but the file itself. Each line of the text stays the line of the file it came from.
"""
from __future__ import annotations

import posixpath
import re

from ingest.document import Document, sections_at_headings, title_from_name

ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1+[ \t]*$")  # a line of one punctuation character, two or more
EXPLICIT = re.compile(r"\.\.(?:[ \t]+|$)")
DIRECTIVE = re.compile(r"\.\.[ \t]+\|?([\w:.+-]+?)\|?(?:[ \t]+([\w:.+-]+))?::(?:[ \t]+(.*))?$")
TARGET = re.compile(r"\.\.[ \t]+_")
OPTION = re.compile(r"[ \t]+:[\w -]+:(?:[ \t]+(.*))?$")
ADMONITIONS = {"note", "warning", "tip", "important", "caution", "danger", "attention", "hint", "error", "seealso",
               "todo", "versionadded", "versionchanged", "deprecated"}
LITERAL_DIRECTIVES = {"code-block", "code", "sourcecode", "math", "parsed-literal", "highlight", "literalinclude"}
UNSEEN_DIRECTIVES = {"image", "figure", "raw", "meta", "toctree", "include", "literalinclude", "highlight", "only",
                     "contents", "index", "tabularcolumns", "code-block", "code", "sourcecode", "math", "autosummary",
                     "csv-table", "list-table", "table"}
LINKING_DIRECTIVES = {"include", "literalinclude"}
ROLE = re.compile(r":([\w.+-]{1,40}(?::[\w.+-]{1,40}){0,3}):`([^`\n]{0,2000}?)`")  # bounded: no run of ':a:a' rescanned
LABELLED = re.compile(r"^(.*?)\s*<([^<>]*)>$", re.DOTALL)
HYPERLINK = re.compile(r"`([^`<\n]{0,2000}?)(?:\s*<[^<>`\n]{0,2000}>)?`__?")
LITERAL = re.compile(r"``([^`\n]{1,2000}?)``")
# a role or hyperlink a line opens and leaves open (wrapped onto the next line), and the next line's part closing it
OPENING = re.compile(r"(?::([\w.+-]{1,40}(?::[\w.+-]{1,40}){0,3}):)?`(?!_)([^`]*)$")
CLOSING = re.compile(r"([ \t]*)([^`]*)`(?:__?)?(.*)$")


def parse_rst(path: str, text: str) -> Document:
    shown, headings, links, blocks = _read(text.split("\n"))
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    title = _field_title(text) or (headings[0][2] if headings else title_from_name(stem))
    folder = posixpath.dirname(path)
    return Document(kind="note", title=title,
                    sections=sections_at_headings(shown, headings, 0, len(shown), bare_opens_next=True,
                                                  blocks=blocks),
                    meta={"links": sorted({_linked(folder, name) for name in links if _linked(folder, name)})})


FIELD = re.compile(r":([\w -]{1,100}):(?:[ \t]+(.*))?$")


def _field_title(text: str) -> str:
    """A ``:title:`` among the fields a page begins with (its metadata, as Sphinx reads it), or ''."""
    for line in text.split("\n", 50)[:50]:
        field = FIELD.match(line)
        if not field:
            return ""
        if field.group(1).strip().lower() == "title" and field.group(2):
            return _inline(field.group(2).strip(), [])
    return ""


def rst_headings(text: str) -> list[tuple[int, int, str]]:
    """(line of the file, 0-based, level, name) of each section title as parse_rst reads them: read_file's
    ``heading`` reads an .rst file's section by them (mcp_server.headings: headings_by_kind)."""
    return _read(text.split("\n"))[1]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _read(lines: list[str]) -> tuple[list[str], list, list[str], list[tuple[int, int]]]:
    """Each line as shown, the titles ((index of the title's line, level, name)), the files linked to, the literal
    blocks ((first line, line after the last))."""
    shown = [""] * len(lines)
    headings: list[tuple[int, int, str]] = []
    styles: list[tuple[str, bool]] = []
    links: list[str] = []
    blocks: list[tuple[int, int]] = []
    stack: list[tuple[int, str, int]] = []  # the blocks the line is in, innermost last: (indent of the line
    # opening it, what its indented lines are: 'literal', 'unseen', 'toctree', 'content', the line opening it). A
    # directive's content is read as the page is: a '.. note::' or '::' block in a '.. function::' opens its own
    options = False  # whether a directive's options may follow: right under its line, or under options
    wrapped = None  # the role (or '' for a hyperlink) a paragraph's line left open, to close on a line below
    index = 0
    while index < len(lines):
        line = lines[index]
        while stack and line.strip() and _indent(line) <= stack[-1][0]:
            _literal(stack.pop(), index, lines, blocks)
        if stack:
            block = stack[-1]
            option = OPTION.match(line) if options else None
            options = option is not None
            if option:  # a directive's option: its caption shown, the rest not
                shown[index] = option.group(1) or "" if line.strip().startswith(":caption:") else ""
                index += 1
                continue
            if block[1] != "content":
                if block[1] == "literal":
                    shown[index] = line
                elif block[1] == "toctree" and line.strip():
                    entry = line.strip()
                    labelled = LABELLED.match(entry)
                    links.append(labelled.group(2) if labelled else entry)
                    shown[index] = labelled.group(1) if labelled else ""
                index += 1
                continue
        title = _title(lines, index) if not stack else None
        if title is not None:
            name, style, used = title
            if style not in styles:
                styles.append(style)
            headings.append((index + (1 if style[1] else 0), styles.index(style) + 1, _inline(name, links).strip()))
            shown[index + (1 if style[1] else 0)] = headings[-1][2]
            index += used
            continue
        if EXPLICIT.match(line.lstrip(" \t")):
            stack.append((*_explicit(line, index, shown, links), index))
            options = True
        elif line.rstrip().endswith("::"):  # '::' ends a paragraph ('Run this::' shows 'Run this:'): code follows
            options = False
            shown[index] = _inline(line.rstrip()[:-1].rstrip(" :") + (":" if line.rstrip()[:-2].strip() else ""),
                                   links)
            stack.append((_indent(line), "literal", index))
        elif ADORNMENT.match(line.strip()) or (line.strip() and set(line.strip()) <= set("=-+ ")):
            pass  # a transition, a table's border: no text
        elif line.strip():
            shown[index], wrapped = _wrapped(line, wrapped, links)
            index += 1
            continue
        wrapped = None
        index += 1
    while stack:
        _literal(stack.pop(), len(lines), lines, blocks)
    return shown, headings, links, blocks


def _literal(block: tuple[int, str, int], end: int, lines: list[str], blocks: list) -> None:
    """Keep a literal block's lines, from its first line after its opening line's to ``end``, as one block."""
    if block[1] == "literal":
        start = block[2] + 1
        while start < end and (not lines[start].strip() or OPTION.match(lines[start])):  # its options too
            start += 1
        while end > start and not lines[end - 1].strip():
            end -= 1
        if end > start:
            blocks.append((start, end))


def _title(lines: list[str], index: int) -> tuple[str, tuple[str, bool], int] | None:
    """(name, style, lines it takes) of a section title starting at ``index``: a text line under an adornment as
    long (or an overline, the text, an underline of the same character), after a blank line or the file's start."""
    line = lines[index]
    if index and lines[index - 1].strip():
        return None
    over = ADORNMENT.match(line)
    if over and index + 2 < len(lines) and lines[index + 1].strip() and ADORNMENT.match(lines[index + 2]) \
            and lines[index + 2].strip() == line.strip() and len(line.strip()) >= len(lines[index + 1].strip()):
        return lines[index + 1].strip(), (line.strip()[0], True), 3
    if over or not line.strip() or line[0] in " \t" or index + 1 >= len(lines):
        return None
    under = ADORNMENT.match(lines[index + 1])
    if not under or lines[index + 1][0] in " \t":
        return None
    length = len(lines[index + 1].strip())
    if length < len(line.rstrip()) and length < 4:
        return None
    return line.strip(), (lines[index + 1].strip()[0], False), 2


def _explicit(line: str, index: int, shown: list[str], links: list[str]) -> tuple[int, str]:
    """Read an explicit markup line ('.. '): a directive, a target, a substitution or a comment; the block its
    indented lines make."""
    stripped = line.strip()
    directive = DIRECTIVE.match(stripped)
    if directive:
        name = (directive.group(2) or directive.group(1)).lower()
        name = name.rsplit(":", 1)[-1]  # a domain's directive: 'py:function'
        argument = (directive.group(3) or "").strip()
        if name in LINKING_DIRECTIVES and argument:
            links.append(argument)
        if name == "tags" and argument:
            shown[index] = "Tags: " + argument
        elif name in ADMONITIONS:
            shown[index] = (name.capitalize() + ": " + _inline(argument, links)).strip()
        elif name not in UNSEEN_DIRECTIVES and argument:
            shown[index] = _inline(argument, links)
        elif name in ("figure", "image") and argument:
            shown[index] = ""
        kind = "literal" if name in LITERAL_DIRECTIVES else "toctree" if name == "toctree" else \
            "unseen" if name in ("raw", "meta", "index", "highlight") else "content"
        return _indent(line), kind
    if TARGET.match(stripped) or stripped.startswith(".. ["):
        return _indent(line), "content" if stripped.startswith(".. [") else "unseen"
    return _indent(line), "unseen"  # a comment


def _inline(text: str, links: list[str]) -> str:
    """A line's text as shown: roles as their text (a :doc: role's file taken as a link), hyperlinks as theirs,
    inline literals as their code."""
    if ":`" in text:
        text = ROLE.sub(lambda m: _role(m, links), text)
    if "`" in text:
        text = LITERAL.sub(r"\1", text)
        text = HYPERLINK.sub(r"\1", text)
    return text


def _wrapped(line: str, role: str | None, links: list[str]) -> tuple[str, str | None]:
    """A paragraph's line as shown, and the role it leaves open (``role``: the one a line above left open). A role
    or hyperlink wrapped over two lines (``:ref:`Using pip from`` then ``the command line <pip-cli>` for more``,
    ```Rebooting a Cluster`` then ``<https://…>`__``) showed its markup on both: each shows its part of the text,
    its target left out (a ``:doc:`` one taken as a link)."""
    if role is not None:
        closed = CLOSING.match(line)
        if not closed:
            return line.rstrip(), role  # over a third line
        text, target = closed.group(2), ""
        labelled = re.match(r"(.*?)\s*<([^<>]*)>\s*$", text, re.DOTALL)
        if labelled:
            text, target = labelled.group(1), labelled.group(2)
        elif ">" in text and "<" not in text:  # the line above opened the target: its rest
            text = ""
        if role == "doc" and target:
            links.append(target)
        line = closed.group(1) + (text.lstrip("~!") + closed.group(3) if text else closed.group(3).lstrip())
    shown = _inline(line, links).rstrip()
    opened = OPENING.search(shown) if shown.count("`") == 1 else None
    if not opened:
        return shown, None
    text = re.sub(r"\s*<[^<>]*$", "", opened.group(2)).lstrip("~!")
    return (shown[:opened.start()] + text).rstrip(), opened.group(1) or ""


def _role(found: re.Match, links: list[str]) -> str:
    role, content = found.group(1), found.group(2)
    labelled = LABELLED.match(content)
    shown, target = (labelled.group(1), labelled.group(2)) if labelled and labelled.group(1) else (content, content)
    if role == "doc":
        links.append(target)
    return shown.lstrip("~!")


def _linked(folder: str, name: str) -> str | None:
    """The file a :doc: role, a toctree entry or an include names, from the collection's folder (its leading '/')
    or the file's; '.rst' added to a name without an ending. None for a URL or a glob."""
    name = name.strip()
    if not name or "://" in name or name.startswith(("http:", "https:", "mailto:")) or "*" in name or name == "self":
        return None
    if "." not in name.rsplit("/", 1)[-1]:
        name += ".rst"
    joined = posixpath.normpath(posixpath.join(folder, name)) if not name.startswith("/") else name
    return "/" + joined.lstrip("/") if not joined.startswith("../") else None
