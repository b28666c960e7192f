"""Long Markdown lists read line by line, as markdown-it reads them, without markdown-it (ingest.markdown).

An outliner's page (Logseq's, Obsidian's: a journal, a big ``contents.md``) is one long list of ``- `` blocks, most
of them a line of text and a property line or two under it (``id:: 6500…``). markdown-it reads a list item by item
in Python, trying a dozen block rules on every line: 100,000 such blocks took 3.7 s of CPU. What the note's index
takes from a list of plain text is only each paragraph's text and its first line (its links and tags), and for such
a list that follows from each line's indentation and its list marker: ``read_run`` works it out with CommonMark's
(and markdown-it's) rules for list items, lazy lines and blank lines, in a few microseconds a line.

It reads only lines that can be nothing but a list item (bulleted or numbered) or a paragraph's line (``_plain``),
and fenced code blocks in an item (``_fence_lines``: a Logseq block's '- ```python'): no heading, quote, table,
HTML, math or link definition starts on them. At the first line it cannot read so, it
stops: the caller reads the rest with markdown-it from the start of the top-level item that line lies in, a line
at which a parse of the whole note starts a top-level item too (so reading it from there is reading it as the whole
note does, as ingest.markdown's pieces are). Where that item is long and the line lies in an item of a list in it
(a quote in one child of thousands), markdown-it is given only that child, under an empty item at the item's
column, which it reads as the whole note does, to the line where it starts the next child (``next_sibling`` guesses
it, markdown-it's parse says), and ``read_inside`` reads the children after it, to the item's end (``item_end``);
where markdown-it starts no child there, it is given the rest of the item. tests/test_markdown_lists.py compares
both readings.
"""
from __future__ import annotations

import re

from markdown_it.common.utils import mdTrim

# A list marker and the spaces after it, then text (more than four spaces: the text would be indented code)
ITEM = re.compile(r"[-*+]( {1,4})(?=[^ \t])")
# read_run's too: a numbered item ('1. ', '2) '; at most 9 digits, as markdown-it reads one)
ANY_ITEM = re.compile(r"(?:[-*+]|([0-9]{1,9})[.)])( {1,4})(?=[^ \t])")
HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
ORDERED = re.compile(r"[0-9]+[.)](?:[ \t]|$)")
FENCE_OPENER = re.compile(r"`{3,}|~{3,}")
# A line of these alone may be a thematic break ('* * *'), a setext heading's underline ('==='), a table's delimiter
# row ('|---|:--:|') or a bullet with nothing after it: none is a paragraph's line
MARKS_ONLY = re.compile(r"[-*_=+:|\s]+")
DELIMITER_LIKE = MARKS_ONLY  # what a table's header line needs under it (markdown-it tries a table first)
# Text that starts with '[' but cannot start a link reference definition, as markdown-it's reference rule reads its
# label: a '[' inside it, or a ']' on the line not followed by ':' ('[[Page]]', '[ ] task'); an escape ('\\') or a
# label going on on the next line is left to markdown-it
NO_DEFINITION = re.compile(r"\[[^\[\]\\]*(?:\[|\](?!:))")
STARTS = "#><|`~$-*+_=:[0123456789"  # what a line that is not a paragraph's starts with (or a space of another kind)
ITEM_STARTS = "-*+0123456789"
DEEPEST = 60  # items nested deeper are left to markdown-it (its nesting limit: ingest.markdown.MAX_NESTING)
RUN_LINES = 16  # a markdown-it piece is ended where a run of at least this many plain lines begins (next_run)
# in a note of more characters than this: a shorter one is one piece, read by markdown-it in a few milliseconds,
# where the scan for such a run cost more than it saved (5 % more time for 14,000 ordinary notes)
SCAN_CHARS = 16 * 1024


def read_run(body: list[str], first: int) -> tuple[int, list[tuple[int, str]], list[tuple[int, int, str, str]]]:
    """(end, paragraphs, fences) of read_run_split, without the part of an item left to markdown-it."""
    return read_run_split(body, first)[:3]


def read_run_split(body: list[str], first: int) -> tuple[int, list[tuple[int, str]], list[tuple[int, int, str, str]],
                                                         tuple | None]:
    """read_run's (end, paragraphs, fences), and where it stopped inside the top-level item that starts on line
    ``end``, what of that item markdown-it must read (``item_part``): (the line it starts on, the line the item
    ends on, its text's column, the paragraphs and fences read above it in the item), or None. A long item holding
    one line read_run cannot read (a quote in a child of 100,000) was read whole by markdown-it, and read twice,
    as its piece grew."""
    end, found, fences, inner, cut = _read(body, first)
    part = None
    if inner is not None:
        line, paragraphs, fenced, column = inner
        stop = item_end(body, line, column)
        if stop is not None:
            part = (line, stop, column, found[cut[1]:paragraphs], fences[cut[2]:fenced])
    return end, found[:cut[1]], fences[:cut[2]], part


# A part of a top-level item is handed to markdown-it under an empty item ('-' alone) whose text is at the item's
# column, its lines as written (their columns, tabs too, as in the note): a marker at most three columns in, so an
# item's text at column 2 to 5
PART_COLUMNS = range(2, 6)


def item_end(body: list[str], line: int, column: int) -> int | None:
    """The line where the top-level item whose text is at ``column`` ends, read from ``line`` (an item of a list
    in it) on, when markdown-it reads body[line:end] under an empty item so indented as it reads them in the whole
    note: every line of it blank or indented to the item's text, and the item ending at the note's end, at a line
    less indented after a blank line, or at an item at the top (not at a lazy line of a paragraph: it goes on below
    the item's column), that line not over a table's delimiter row. None otherwise: the item is markdown-it's, as
    before. A math block a '$$' opens in it may run on past that end, whatever the indentation of its lines: the
    caller's parse of the part says (ingest.markdown._read_item_part), and the item is then markdown-it's too."""
    if column not in PART_COLUMNS:
        return None
    blank = False
    for number in range(line, len(body)):
        text = body[number]
        rest = text.lstrip(" \t")
        if not rest:
            blank = True
            continue
        spaces = len(text) - len(rest)
        if (spaces if "\t" not in text[:spaces] else _columns(text, spaces)) < column:
            ends = blank or (spaces == 0 and ANY_ITEM.match(text))  # a piece starting over a delimiter row reads
            return number if ends and not _delimiter_next(body, number) else None  # a table there: markdown-it's
        blank = False
    return len(body)


def read_inside(body: list[str], first: int, last: int, column: int) -> tuple[list, list, int | None]:
    """(paragraphs, fences, line) of the lines body[first:last] of a top-level item whose text is at ``column``,
    ``first`` a line markdown-it reads as an item of a list in it (a child) and ``last`` the item's end (item_end):
    read as read_run reads them, up to the child holding the first line it cannot read (``line``, None when it
    read them all), what it read above that child only."""
    _, found, fences, inner, _ = _read(body, first, last, column)
    if inner is None:
        return found, fences, None
    return found[:inner[1]], fences[:inner[2]], inner[0]


def next_sibling(body: list[str], line: int, last: int, column: int) -> int | None:
    """The first line after body[line] (a child of a top-level item whose text is at ``column``) and before
    ``last`` (the item's end) that may be the next child of that item: a list item's line indented to the item's
    text and short of the child's, less than four columns past the item's text. None for none: markdown-it reads
    the rest of the item. Only a candidate: whether markdown-it starts a child there is its parse's to say."""
    text = body[line].lstrip(" \t")
    marker = ANY_ITEM.match(text)
    spaces = len(body[line]) - len(text)
    if marker is None:
        return None
    inner = _columns(body[line], spaces) + marker.end()  # the child's text column (as markdown-it counts it)
    for number in range(line + 1, last):
        text = body[number]
        rest = text.lstrip(" \t")
        if not rest or rest[0] not in ITEM_STARTS:
            continue
        at = _columns(text, len(text) - len(rest))
        if column <= at < inner and at - column < 4 and ANY_ITEM.match(rest):
            return number
    return None


def _read(body: list[str], first: int, last: int | None = None, inside: int | None = None) -> tuple:
    """(end, paragraphs, fences, inner, cut) of the list that starts on body[first], a line where a parse of the
    whole note starts a block at the top: its items from ``first`` to ``end``, each paragraph as (its first line, its
    text as markdown-it's inline token holds it), each fenced code block in an item as markdown-it's fence token has
    it (its first line, its end line, its info, its lines); every one read, those up to ``end`` counted by ``cut``
    (end, paragraphs, fences). ``end`` is ``first`` when not even the first item is plain, else a line where the
    whole note's parse starts a block at the top again (a top-level item, or any block after a blank line), or the
    note's end. ``inner``: (line, paragraphs, fences above it, the item's text column) of the last item of a list in
    the top-level item starting on ``end``, where the reading stopped inside that item; else None. With ``inside``
    (read_inside), ``first`` is a child of a top-level item whose text is at column ``inside``, and the lines are
    read to ``last``, that item's end: ``inner`` is then the child it stopped in, ``first`` at the earliest."""
    last = len(body) if last is None else last
    items: list[tuple[int, int]] = [] if inside is None else [(0, inside)]  # the open items: (the indentation
    # their list needs, their content's)
    paragraph: list[str] | None = None  # the open paragraph's lines, as markdown-it's getLines cuts them
    indent = 0  # the open paragraph's item's content indentation
    found: list[tuple[int, str]] = []
    fences: list[tuple[int, int, str, str]] = []
    cut = (first, 0, 0)  # the last line where the top level starts again, and how many paragraphs and fences above
    # the last item of a list in the top-level item at ``cut``: (its line, paragraphs and fences above, its column)
    inner = None if inside is None else (first, 0, 0, inside)
    skip_to = first  # past the last fence read
    for number in range(first, last):
        if number < skip_to:
            continue
        line = body[number]
        text = line.lstrip(" \t")
        if not text:  # a blank line ends the paragraph
            if paragraph is not None:
                found.append((start, mdTrim("\n".join(paragraph))))
                paragraph = None
            continue
        if "\x00" in line:  # markdown-it reads it as U+FFFD
            break
        spaces = len(line) - len(text)
        column = spaces if "\t" not in line[:spaces] else _columns(line, spaces)
        if text[0] in "`~" and (fence := _fence_in_item(body, number, text, column, items, paragraph, indent)):
            if paragraph is not None:  # a fence ends the paragraph above it
                found.append((start, mdTrim("\n".join(paragraph))))
                paragraph = None
            level, end, info, content = fence
            del items[level + 1:]
            fences.append((number, end, info, content))
            skip_to = end
            continue
        marker = ANY_ITEM.match(text) if text[0] in ITEM_STARTS else None
        fenced = marker is not None and _fence_opener(text[marker.end():]) is not None
        if not fenced and not _plain(text[marker.end():] if marker else text):
            if paragraph is None and items and column < items[0][1] and not _delimiter_next(body, number):
                # after a blank line, every item is closed: the top level again
                cut = (number, len(found), len(fences))
            elif marker is not None and _child_starts(body, number, text, marker, column, items, paragraph, indent):
                if paragraph is not None:  # the child's own line holds what read_run cannot read ('- > a quote'):
                    found.append((start, mdTrim("\n".join(paragraph))))  # markdown-it is given it from that line
                inner = (number, len(found), len(fences), items[0][1])
            break
        if marker is None:
            if paragraph is not None:  # a paragraph goes on at any line of text, however indented (lazy)
                paragraph.append(text if column <= indent else _after_indent(line, indent))
                continue
            level = next((level for level in range(len(items) - 1, -1, -1) if column >= items[level][1]), None)
            if level is None:  # after a blank line, below every item: the list is over
                if items and not _delimiter_next(body, number):
                    cut = (number, len(found), len(fences))
                break
            if column - items[level][1] >= 4:
                break  # indented code in the item
            del items[level + 1:]
            start, indent, paragraph = number, items[level][1], [_after_indent(line, items[level][1])]
            continue
        if paragraph is not None and items and _goes_on(items[-1], column):
            if fenced:
                break  # '- ```' as a paragraph's line: markdown-it's
            paragraph.append(text if column <= indent else _after_indent(line, indent))
            continue
        if paragraph is not None and marker.group(1) and column >= indent and int(marker.group(1)) != 1:
            break  # a numbered list begun in a paragraph's item other than at 1 is the paragraph's line: markdown-it's
        place = _item_place(items, column)
        if place is None or place[0] >= DEEPEST:
            break
        if paragraph is not None:
            found.append((start, mdTrim("\n".join(paragraph))))
        level, outer = place
        if level == 0:
            if number + 1 < len(body) and DELIMITER_LIKE.fullmatch(body[number + 1]):
                break  # a top-level item over a delimiter row: a piece starting here would read a table
            cut, inner = (number, len(found), len(fences)), None
        elif level == 1:
            inner = (number, len(found), len(fences), items[0][1])
        del items[level:]
        items.append((outer, column + marker.end()))
        if fenced:  # an item that opens with a code block, as Logseq writes one: '- ```python'
            fence = _fence_lines(body, number, text[marker.end():], items[-1][1])
            if fence is None:
                break
            paragraph, skip_to = None, fence[0]
            fences.append((number, *fence))
            continue
        start, indent = number, items[-1][1]
        paragraph = [text[marker.end():]]
    else:
        if paragraph is not None:
            found.append((start, mdTrim("\n".join(paragraph))))
        return last, found, fences, None, (last, len(found), len(fences))
    return cut[0], found, fences, inner if inner is not None and (inside or inner[0] > cut[0]) else None, cut


def _child_starts(body: list[str], number: int, text: str, marker: re.Match, column: int,
                  items: list[tuple[int, int]], paragraph: list[str] | None, indent: int) -> bool:
    """Whether body[number], a list marker at ``column`` followed by what read_run cannot read (``text`` is the line
    from its marker on), starts an item of a list in the top-level item, as _read reads a marker line that goes on
    no paragraph; not where the line is a thematic break ('- - -') or may head a table."""
    if not items or MARKS_ONLY.fullmatch(text) or _delimiter_next(body, number):
        return False
    if paragraph is not None and (_goes_on(items[-1], column) or (marker.group(1) and column >= indent
                                                                  and int(marker.group(1)) != 1)):
        return False
    place = _item_place(items, column)
    return place is not None and place[0] == 1


def _fence_in_item(body: list[str], number: int, text: str, column: int, items: list[tuple[int, int]],
                   paragraph: list[str] | None, indent: int) -> tuple[int, int, str, str] | None:
    """(the item's level, end line, info, content) of a fenced code block opening on body[number] (its text
    ``text`` at ``column``) inside an open item, as markdown-it's fence rule reads it there; None where the line
    opens none, or where it lies otherwise than in an item as its text (a paragraph's line, indented code, below
    every item): read_run leaves those to markdown-it."""
    if _fence_opener(text) is None:
        return None
    if paragraph is not None and column - indent > 3:
        return None  # a line of the paragraph
    level = next((level for level in range(len(items) - 1, -1, -1) if column >= items[level][1]), None)
    if level is None or column - items[level][1] >= 4:
        return None
    fence = _fence_lines(body, number, text, items[level][1])
    return None if fence is None else (level, *fence)


def _fence_opener(text: str) -> int | None:
    """The length of the fence ``text`` opens with ('```python', '~~~'), as markdown-it's fence rule reads it;
    None for none (a backtick fence whose info holds a backtick is none)."""
    opener = FENCE_OPENER.match(text)
    if opener is None or (text[0] == "`" and "`" in text[opener.end():]):
        return None
    return opener.end()


def _fence_lines(body: list[str], number: int, text: str, content_indent: int) -> tuple[int, str, str] | None:
    """(end line, info, content) of the fenced code block whose opening line is body[number], its text from the
    fence on ``text``, in an item whose text is at column ``content_indent``: to its closing fence (as long as the
    opening one, indented less than four past the item's text), or to a line less indented than the item's text
    (which ends the item), or to the note's end. None for a NUL in it (markdown-it reads it as U+FFFD)."""
    length = _fence_opener(text)
    mark = text[0]
    for end in range(number + 1, len(body)):
        line = body[end]
        rest = line.lstrip(" \t")
        if "\x00" in line:
            return None
        if not rest:
            continue
        spaces = len(line) - len(rest)
        at = spaces if "\t" not in line[:spaces] else _columns(line, spaces)
        if at < content_indent:
            return end, text[length:], "".join(f"{inner}\n" for inner in body[number + 1:end])
        if rest[0] == mark and at - content_indent < 4:
            run = len(rest) - len(rest.lstrip(mark))
            if run >= length and not rest[run:].strip(" \t"):
                return end + 1, text[length:], "".join(f"{inner}\n" for inner in body[number + 1:end])
    last = len(body) - (body[-1] == "")  # the note's last line: markdown-it reads no line after a closing '\n'
    return last, text[length:], "".join(f"{inner}\n" for inner in body[number + 1:last])


def next_run(body: list[str], first: int, most: int) -> int | None:
    """The characters of body[first:] up to and with the first top-level item after ``first`` that begins a run
    of RUN_LINES plain lines, within ``most`` characters; None if there is none: a markdown-it piece ending there
    lets read_run take the run on."""
    chars, begun = len(body[first]) + 1, None  # begun: (the characters up to and with it, its line)
    for number in range(first + 1, len(body)):
        if chars > most:
            return None
        line = body[number]
        chars += len(line) + 1
        text = line.lstrip(" \t")
        marker = ITEM.match(text) if text else None
        if text and not _plain(text[marker.end():] if marker else text):
            begun = None
            continue
        if begun is None and marker and len(line) - len(text) <= 3 and "\t" not in line[:len(line) - len(text)]:
            begun = (chars, number)
        if begun is not None and number - begun[1] + 1 >= RUN_LINES:
            return begun[0]
    return None


def _goes_on(item: tuple[int, int], column: int) -> bool:
    """Whether a list item's line at ``column`` goes on the paragraph of the item ``item`` (the deepest one open)
    rather than end it: indented four columns past the item's text ('this would be a code block'), or four past its
    list's and still short of its text (markdown-it's special case of items each a column deeper)."""
    outer, inner = item
    return column - inner > 3 or (column - outer >= 4 and column < inner)


def _item_place(items: list[tuple[int, int]], column: int) -> tuple[int, int] | None:
    """(level, the indentation its list needs) of a list item at ``column`` whose line ends the paragraph above (or
    follows a blank line): in the deepest open item it is indented to (a list inside it), or beside the innermost
    item it is not (a next item of that list); None where markdown-it would read indented code instead."""
    for level in range(len(items) - 1, -1, -1):
        outer, inner = items[level]
        if column >= inner:
            return None if column - inner >= 4 else (level + 1, inner)
        if column >= outer:
            return None if column - outer >= 4 else (level, outer)
    return None if column >= 4 else (0, 0)


def _plain(text: str) -> bool:
    """Whether a line whose text (after its indentation and any list marker) is ``text`` is a paragraph's line
    wherever it stands, as markdown-it's block rules read it: not a heading ('# x'), a fence, a quote, HTML, a math
    block, a list marker with nothing after it, an ordered list's marker, a thematic break, an underline, a
    table's delimiter row or header ('|'), nor the start of a link reference definition ('[label]: url')."""
    if not text:
        return False
    first = text[0]
    if first not in STARTS and not first.isspace():
        return True  # nor can it be marks alone (MARKS_ONLY)
    if first in "#":
        return HEADING.match(text) is None
    if first in "><|" or text.startswith(("```", "~~~", "$$")):
        return False
    if first in "-*+" and text[1:2] in ("", " ", "\t"):
        return False
    if first.isdigit() and ORDERED.match(text):
        return False
    if first == "[" and not NO_DEFINITION.match(text):
        return False
    return MARKS_ONLY.fullmatch(text) is None




def _delimiter_next(body: list[str], number: int) -> bool:
    """Whether the line after body[number] could be a table's delimiter row."""
    return number + 1 < len(body) and DELIMITER_LIKE.fullmatch(body[number + 1]) is not None


def _columns(line: str, length: int) -> int:
    """The columns of line[:length], spaces and tabs (to the next multiple of 4), as markdown-it counts them."""
    if "\t" not in line[:length]:
        return length
    column = 0
    for char in line[:length]:
        column += 4 - column % 4 if char == "\t" else 1
    return column


def _after_indent(line: str, indent: int) -> str:
    """The line as markdown-it's getLines gives it to a paragraph whose item's text is at column ``indent``: up to
    that many columns of its indentation dropped, a tab cut by it made spaces."""
    column = at = 0
    while at < len(line) and column < indent and line[at] in " \t":
        column += 4 - column % 4 if line[at] == "\t" else 1
        at += 1
    return " " * (column - indent) + line[at:] if column > indent else line[at:]
