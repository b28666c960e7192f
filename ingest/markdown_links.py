"""A paragraph's ``[text](target)`` links and ``![alt](src)`` images read without markdown-it (ingest.markdown).

markdown-it's inline parser walks a paragraph in Python a character at a time, trying a dozen rules at each, and
makes a token of every run of text: on a journal of years of daily pages (a link in every few blocks) that was most of
what the parse cost once the lists themselves were read line by line (ingest.markdown_lists). What the index takes
from it is only the destinations, in order, of the links and images at the top of the paragraph and of the images in
a link's text. ``destinations`` finds them by markdown-it's own rules (its link, image, link label, destination and
code span rules, in the same order), jumping from one ``[``, ``![``, backtick or
backslash to the next.

It reads only the common forms exactly, a ``<target>``, a title after the destination, reference links
(``[text][label]``, ``[label][]``, ``[label]``, by the note's definitions) and backslash escapes (``\\[``, ``\\]``,
``\\```, ``\\<``: text, by markdown-it's escape rule; in a destination, as its parseLinkDestination) too; for anything
else it returns None and the caller asks markdown-it: a ``<`` other than in a link's ``(…)``, a code span or escaped
(autolinks, inline HTML), a backslash before a run of two or more backticks, a
destination of unbalanced or over 32 nested parentheses or one markdown-it would refuse (``javascript:``), brackets
nested deeper than DEEPEST, an inline link that fails in a note with definitions, or more work than a few steps a
character. Code in a link's text (``[`parse()`](api.md#parse)``) is read by markdown-it-py 4.3's backtick rule: a run
of backticks closes at the next run of as many that ends within the text markdown-it reads then (the paragraph, or
the link's text), and a ``]`` in a code span ends no link's text. tests/test_markdown_links.py compares both on
generated and real notes.
"""
from __future__ import annotations

import re

from markdown_it.common.utils import normalizeReference, unescapeAll
from markdown_it.helpers import parseLinkDestination, parseLinkTitle

SPECIAL = re.compile(r"!\[|\[|`+|\\")  # where a rule other than text's may fire, at the top of a paragraph
IN_LABEL = re.compile(r"!\[|[\[\]]|`+|\\")  # and inside a link's text
BACKTICKS = re.compile(r"`+")
TITLE_OPENERS = "\"'("
DEEPEST = 8  # '[' within '[' looked into at most; deeper is markdown-it's (its own limit is far above)
STEPS_PER_CHAR = 4  # more work than this is markdown-it's: every lookup stays linear in the paragraph


class Unusual(Exception):
    """The paragraph holds a form this reader does not read: markdown-it reads it."""


def destinations(text: str, validate, references: dict | None = None) -> list[str] | None:
    """The destinations of ``text``'s links and images as markdown-it's inline parser finds them, in its tokens'
    order (unescaped as it unescapes them), or None where the text holds a form read only by markdown-it.
    ``validate``: markdown-it's ``validateLink`` (a destination it refuses leaves the reading to markdown-it);
    ``references``: the note's link reference definitions as markdown-it's env holds them, if it has any."""
    try:
        reader = _Reader(text, validate, references)
        found = reader.top(0, len(text))
    except (Unusual, RecursionError):
        return None
    # a '<' is read only in a found link's '(…)' (its '<target>', its title), in a code span or escaped ('\\<'): any
    # other may open an autolink or inline HTML at the top of the paragraph or in a link's text (markdown-it's,
    # which the reader does not follow)
    if "<" in text and not reader.all_inert("<"):
        return None
    return found


class _Reader:
    def __init__(self, text: str, validate, references: dict | None = None):
        self.text, self.validate, self.references = text, validate, references
        self.steps = STEPS_PER_CHAR * len(text) + 64
        self.tried: dict[tuple[str, int], tuple[int, str, int] | None] = {}  # silent attempts, by kind and place
        self._closers: dict[int, int | None] | None = None
        # where no '<' opens an autolink or inline HTML: the '(…)' of the links found (their '<target>' or title, read
        # with them), code spans and escaped characters, as (start, end)
        self.inert: list[tuple[int, int]] = []

    def top(self, pos: int, limit: int) -> list[str]:
        """markdown-it's tokenize from ``pos`` to ``limit``: each link's destination, then its text's images'."""
        found: list[str] = []
        text = self.text
        while True:
            special = SPECIAL.search(text, pos, limit)
            if special is None:
                return found
            self._step()
            at = special.start()
            mark = text[at]
            if mark == "`":
                pos = self._code_span_end(at, special.end(), limit)
                continue
            if mark == "\\":
                pos = self._escape_end(at, limit)
                continue
            parsed = self._attempt("!" if mark == "!" else "[", at, limit)
            if parsed is None:
                pos = at + 1
                continue
            end, destination, label_end = parsed
            found.append(destination)
            self.inert.append((label_end, end))
            if mark == "[" and "![" in text[at + 1:label_end]:  # the link's text is read again: its images
                label = text[at + 1:label_end]
                if label.count("[") != label.count("!["):
                    raise Unusual  # a '[' of no image in it: markdown-it's
                found += self.top(at + 1, label_end)
            pos = end

    def _attempt(self, kind: str, at: int, limit: int) -> tuple[int, str, int] | None:
        """(end, destination, the label's end) of a link ('[') or image ('!') starting at ``at``, or None."""
        key = (kind, at)
        if limit == len(self.text) and key in self.tried:
            return self.tried[key]
        parsed = self._link(at, limit) if kind == "[" else self._image(at, limit)
        if limit == len(self.text):
            self.tried[key] = parsed
        return parsed

    def _link(self, at: int, limit: int, depth: int = 0) -> tuple[int, str, int] | None:
        label_end = self._label(at, limit, nested_allowed=False, depth=depth)
        return None if label_end < 0 else self._inline_target(at, label_end, limit, depth)

    def _image(self, at: int, limit: int) -> tuple[int, str, int] | None:
        if at + 1 >= limit:
            return None
        label_end = self._label(at + 1, limit, nested_allowed=True, depth=0)
        return None if label_end < 0 else self._inline_target(at + 1, label_end, limit, 0)

    def _label(self, opener: int, limit: int, nested_allowed: bool, depth: int) -> int:
        """markdown-it's parseLinkLabel from the '[' at ``opener``: the position of its closing ']', or -1."""
        if depth > DEEPEST:
            raise Unusual
        text, level, pos = self.text, 1, opener + 1
        while pos < limit:
            found = IN_LABEL.search(text, pos, limit)
            if found is None:
                return -1
            self._step()
            at = found.start()
            mark = text[at]
            if mark == "`":  # skipToken at a run of backticks: a code span, a ']' in it no label's end
                pos = self._code_span_end(at, found.end(), limit)
                continue
            if mark == "\\":  # skipToken at a backslash: the escape rule, a '\\]' no label's end
                pos = self._escape_end(at, limit)
                continue
            if mark == "]":
                level -= 1
                if level == 0:
                    return at
                pos = at + 1
                continue
            if mark == "!":  # skipToken at '!': the image rule, silent
                parsed = self._attempt_in_label("!", at, limit, depth)
                pos = parsed[0] if parsed else at + 1
                continue
            parsed = self._attempt_in_label("[", at, limit, depth)  # skipToken at '[': the link rule, silent
            if parsed is None:
                level += 1
                pos = at + 1
            elif not nested_allowed:
                return -1  # a link inside a link's text: the outer one is none
            else:
                pos = parsed[0]
        return -1

    def _attempt_in_label(self, kind: str, at: int, limit: int, depth: int) -> tuple[int, str, int] | None:
        key = (kind, at)
        if limit == len(self.text) and key in self.tried:
            return self.tried[key]
        if kind == "[":
            parsed = self._link(at, limit, depth + 1)
        else:
            label_end = -1 if at + 1 >= limit else self._label(at + 1, limit, True, depth + 1)
            parsed = None if label_end < 0 else self._inline_target(at + 1, label_end, limit, depth + 1)
        if limit == len(self.text):
            self.tried[key] = parsed
        return parsed

    def _inline_target(self, opener: int, label_end: int, limit: int, depth: int) -> tuple[int, str, int] | None:
        """After a label opened at ``opener`` and closed at ``label_end``: '(' destination ')' as markdown-it's link
        and image rules read it, or a reference ('[label]', '[]', none) to one of the note's definitions."""
        text = self.text
        pos = label_end + 1
        if pos >= limit or text[pos] != "(":
            return None if self.references is None else self._reference(opener, label_end, limit, depth)
        pos = _spaces(text, pos + 1, limit)
        if pos >= limit:
            return None
        if text[pos] == "<":  # '<target>', which may hold spaces and parentheses
            return self._angled_target(pos, label_end, limit)
        start, level = pos, 0
        while pos < limit:
            char = text[pos]
            if char == " " or char < " " or char == "\x7f":
                break
            if char == "\\" and pos + 1 < limit:  # an escape: '\\)' closes nothing; '\\ ' ends the destination
                if text[pos + 1] == " ":
                    break
                pos += 2
                continue
            if char == "(":
                level += 1
                if level > 32:
                    raise Unusual
            elif char == ")":
                if level == 0:
                    break
                level -= 1
            pos += 1
        if pos == start:
            destination = ""  # '[a]()' and '[a]( )': a link to nothing; anything else here is no destination
            if text[pos] != ")":
                raise Unusual
        else:
            if level:
                raise Unusual
            destination = text[start:pos]
            if "&" in destination or "\\" in destination:
                destination = unescapeAll(destination)
            if not self.validate(destination):
                raise Unusual
        return self._closed(pos, destination, label_end, limit)

    def _angled_target(self, pos: int, label_end: int, limit: int) -> tuple[int, str, int] | None:
        """A '<target>' destination at ``pos``, as markdown-it's parseLinkDestination reads it (no '<' or line end
        in it); where it is none, markdown-it reads on as for a link of no
        destination: the reader leaves that to it."""
        parsed = parseLinkDestination(self.text, pos, limit)
        if not parsed.ok or not self.validate(parsed.str):
            raise Unusual
        return self._closed(parsed.pos, parsed.str, label_end, limit)

    def _closed(self, pos: int, destination: str, label_end: int, limit: int) -> tuple[int, str, int] | None:
        """After a link's destination (ending at ``pos``): its title if any ('"…"', "'…'", '(…)', after a space,
        as markdown-it's parseLinkTitle reads one), then its ')'."""
        text = self.text
        after = _spaces(text, pos, limit)
        if after < limit and after != pos and text[after] in TITLE_OPENERS:
            title = parseLinkTitle(text, after, limit)
            if title.ok:
                self._step()
                after = _spaces(text, title.pos, limit)
        if after >= limit or text[after] != ")":
            if self.references is not None:
                raise Unusual  # markdown-it reads on for a reference from where it stopped: its own
            return None
        return after + 1, destination, label_end

    def _reference(self, opener: int, label_end: int, limit: int, depth: int) -> tuple[int, str, int] | None:
        """A reference link's end and destination, as markdown-it's link and image rules read one: '[text][label]'
        (the label read as a link's text, nested links allowed), '[text][]' or '[text]' (the text as the label),
        looked up by markdown-it's normalizeReference; None where the note defines no such label."""
        text, pos, label = self.text, label_end + 1, ""
        if pos < limit and text[pos] == "[":
            end = self._label(pos, limit, nested_allowed=True, depth=depth + 1)
            if end >= 0:
                label, pos = text[pos + 1:end], end + 1
        if not label:
            label = text[opener + 1:label_end]
        reference = self.references.get(normalizeReference(label))
        if not reference:
            return None
        if "<" in text[label_end:pos]:
            raise Unusual  # a '<' in a '[label]' may open inline HTML that holds its ']' (markdown-it's)
        return pos, reference["href"], label_end

    def _code_span_end(self, start: int, end: int, limit: int) -> int:
        """Where markdown-it's backtick rule leaves the run of backticks text[start:end] (at the top of the paragraph,
        in a link's text or in a label looked ahead into): past the next run of as many (its code span) if that run
        ends by ``limit`` (the end of the text markdown-it reads then), else past the run (text)."""
        if self._closers is None:
            runs = [(m.start(), m.end()) for m in BACKTICKS.finditer(self.text)]
            self._closers, following = {}, {}
            for run_start, run_end in reversed(runs):
                self._closers[run_start] = following.get(run_end - run_start)
                following[run_end - run_start] = run_end
        if start not in self._closers:
            raise Unusual  # not at a run's start: an escaped '`' before it (markdown-it's own reading of the rest)
        closer = self._closers[start]
        if closer is None or closer > limit:
            return end
        self.inert.append((start, closer))
        return closer

    def _escape_end(self, at: int, limit: int) -> int:
        """Where markdown-it's escape rule leaves the backslash at ``at``: past the character after it (a '\\[', '\\]',
        '\\`', '\\<' is text, a backslash before a line end a hard break), or past the backslash alone at ``limit``'s
        edge (no escape: text)."""
        if at + 1 >= limit:
            return at + 1
        self.inert.append((at, at + 2))
        return at + 2

    def all_inert(self, mark: str) -> bool:
        """Whether every ``mark`` of the text lies in a span of ``inert``."""
        text, at, spans = self.text, -1, sorted(self.inert)
        index, reach = 0, 0  # reach: the end of the spans starting at or before ``at``
        while (at := text.find(mark, at + 1)) >= 0:
            while index < len(spans) and spans[index][0] <= at:
                reach = max(reach, spans[index][1])
                index += 1
            if at >= reach:
                return False
        return True

    def _step(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise Unusual


def _spaces(text: str, pos: int, limit: int) -> int:
    """Past the spaces, tabs and line ends from ``pos``, as markdown-it's link rule skips them."""
    while pos < limit and text[pos] in " \t\n":
        pos += 1
    return pos
