"""Jupyter notebooks (.ipynb): their cells, not their JSON.

A notebook is JSON: indexed as text it would be keys, escapes and base64 images. Its markdown and code cells
are what a person wrote, so each becomes a section (a markdown cell's headings give the heading path of the
cells under them). A code cell's outputs follow its code as text (``Out: AUC 0.873``, a warning it printed, an
error's name and message): what it printed, a value it showed, in its first OUTPUT_CHARS characters; an image or
an HTML table is left out (a plot's text is its repr), and so is an output of more than OUTPUT_LIMIT characters
of JSON (a plot), never parsed whole, but a stream's (a training log): its last OUTPUT_CHARS characters are read,
where its final metric is, from the end of its JSON (``_stream_tail``).

Line numbers are the file's own, so read_file shows a hit where it is: Jupyter writes each line of a cell's
source as one string on a line of its own, inside ``"source": [`` … ``]``, and a cell found so has its lines
there. A cell written otherwise (its source one string, or a notebook saved as one line of JSON) is read as one
line, placed at its ``"source"`` key.
"""
from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from ingest.document import Document, Section, Skip, whole_characters

OUTPUT_LIMIT = 64 * 1024  # an output's JSON longer than this (a training log, an image) is left out unread
OUTPUT_CHARS = 2_000  # of an output's text, the first this many characters are read (a long log's: the last)
TAIL_JSON = 8 * OUTPUT_CHARS  # of a long log's JSON, at most this many characters are read back from its end
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # a traceback's colours
ATX = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def parse_notebook(path: str, text: str) -> Document:
    if not text or text.isspace():  # a notebook just created (touch): no cells yet, as an empty note has no text
        return Document(kind="note", title=PurePosixPath(path).stem, sections=[])
    indent = _key_indent(text)
    notebook = _loaded(text, indent)
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise Skip("not a notebook: no list of cells (nbformat 4 keeps them under 'cells')")
    lines = _Lines(text)
    sections, after = [], 0
    headings: list[tuple[int, str]] = []  # (level, name) of the headings the next cell is under
    heads: list[Section] = []  # cells of headings alone, not yet placed: each heads the cell after it
    title = None
    for cell in cells:
        source = cell.get("source") if isinstance(cell, dict) else None
        if isinstance(source, str):
            source = [source]
        if not isinstance(source, list) or not all(isinstance(s, str) for s in source):
            continue
        source = [whole_characters(s) for s in source]  # "\\ud800" in JSON: UTF-8 (SQLite) cannot store it
        at = _source_line(lines, after, indent)
        section = _section(source, lines, at)
        after = section.end_line  # the 0-based index of the line after the cell's source
        printed = _printed(cell) if cell.get("cell_type") == "code" else ""
        if printed:  # after the code, at its last line (a section's passages stay on its lines)
            section.text = f"{section.text}\n{printed}" if section.text.strip() else printed
        if not section.text.strip():
            continue
        found = _headings(source) if cell.get("cell_type") == "markdown" else []
        for level, heading in found:
            title = title or (heading if level == 1 else None)
            while headings and headings[-1][0] >= level:  # a heading closes those of its level and deeper
                headings.pop()
            headings.append((level, heading))
        section.heading_path = [heading for _, heading in headings]
        if heads and section.heading_path[:len(heads[-1].heading_path)] == heads[-1].heading_path:
            section = _headed(heads, section)
        elif heads:  # a heading with nothing under it before the next heading of its level or higher
            sections += heads
        heads = []
        if found and len(found) == sum(1 for line in "".join(source).split("\n") if line.strip()):
            heads.append(section)  # a cell of headings alone heads the cell after it, as in a Markdown note
            continue
        sections.append(section)
    sections += heads
    return Document(kind="note", title=title or PurePosixPath(path).stem, sections=sections)


def _headed(heads: list[Section], section: Section) -> Section:
    """``section`` with the cells of headings alone above it (``heads``) before its text, each at its own lines: a
    cell '## Training' was a passage of that word alone, a hit showing nothing, ranked above the code under it."""
    text, marks, count = "", [], 0
    for part in [*heads, section]:
        marks += [(count + mark, line) for mark, line in (part.marks or ((0, part.start_line),))]
        text = f"{text}\n{part.text}" if text else part.text
        count += part.text.count("\n") + 1
    return Section(text=text, heading_path=section.heading_path, start_line=heads[0].start_line,
                   end_line=section.end_line, marks=tuple(marks))


def _printed(cell: dict) -> str:
    """The text of a code cell's outputs as ``_reduced`` kept it, ``Out: `` before each."""
    outputs = cell.get("outputs")
    if not isinstance(outputs, list):
        return ""
    texts = [o.get("text") for o in outputs if isinstance(o, dict) and o.get(_REDUCED)]
    return "\n".join(f"Out: {text}" for text in texts if isinstance(text, str) and text.strip())


_REDUCED = "sift_reduced"  # marks an output read down to its text (by _reduced): its text is what is indexed


def _reduced(output: dict, size: int) -> dict:
    """An output (``output_type`` one of Jupyter's) as its type and the text it shows a person, ``size`` the
    characters of JSON it took: a stream's text, a result's ``text/plain`` (not a plot's repr beside its image), an
    error's name and message. Over OUTPUT_LIMIT a stream's last lines (a training log's final metric: it was left
    out whole), of another its text is empty, and so is one of none of those."""
    kind, text = output.get("output_type"), ""
    if size > OUTPUT_LIMIT and kind == "stream":
        return {"output_type": kind, _REDUCED: True, "text": _last_lines(_last(output.get("text")))}
    if size <= OUTPUT_LIMIT:
        if kind == "stream":
            text = _joined(output.get("text"))
        elif kind in ("execute_result", "display_data"):
            data = output.get("data")
            if isinstance(data, dict) and not any(str(key).startswith("image/") for key in data):
                text = _joined(data.get("text/plain"))
        elif kind == "error":
            text = f"{_joined(output.get('ename'))}: {_joined(output.get('evalue'))}"
    text = whole_characters(ANSI.sub("", text)).strip()
    if len(text) > OUTPUT_CHARS:
        text = text[:OUTPUT_CHARS].rsplit(None, 1)[0] + " …"
    return {"output_type": kind if isinstance(kind, str) else "", _REDUCED: True, "text": text}


def _last(value: object) -> str:
    """The end of a notebook's multiline string, at least TAIL_JSON characters of it where it has so many, without
    joining the whole of it."""
    if isinstance(value, str):
        return value[-TAIL_JSON:]
    pieces, size = [], 0
    for piece in reversed(value if isinstance(value, list) else []):
        if isinstance(piece, str):
            pieces.append(piece)
            size += len(piece)
            if size >= TAIL_JSON:
                break
    return "".join(reversed(pieces))


def _last_lines(text: str) -> str:
    """The last OUTPUT_CHARS characters of a long output's ``text``, from a line's start ('… ' before them)."""
    text = whole_characters(ANSI.sub("", text[-2 * OUTPUT_CHARS:])).strip()
    if len(text) <= OUTPUT_CHARS:
        return text
    text = text[-OUTPUT_CHARS:]
    line = text.find("\n")
    return "… " + (text[line + 1:] if 0 <= line < len(text) // 2 else text.split(None, 1)[-1]).lstrip()


def _joined(value: object) -> str:
    """A notebook's multiline string (one string, or a list of its lines) as one string."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return ""


def _kept_outputs(text: str, body: int, end: int, spans: list[tuple[int, int]]) -> str:
    """The JSON of the outputs list ``text[body:end]`` (its objects at ``spans``) with each output reduced to its
    text (``_reduced``): an output of more than OUTPUT_LIMIT characters is left out without being parsed, but a
    stream's last lines (``_stream_tail``)."""
    kept = []
    for start, stop in spans:
        if stop - start > OUTPUT_LIMIT:
            tail = _stream_tail(text, start, stop)
            if tail:
                kept.append(json.dumps(_reduced({"output_type": "stream", "text": tail}, stop - start)))
            continue
        try:
            output = json.loads(text[start:stop])
        except (ValueError, RecursionError):
            continue
        if isinstance(output, dict):
            kept.append(json.dumps(_reduced(output, stop - start)))
    return ",".join(kept)


_STREAM = re.compile(r'"output_type"\s*:\s*"stream"')
_NEWLINE = re.compile(r'(?<!\\)(?:\\\\)*\\n')  # an escaped line break in JSON text ('\\n', not '\\\\n')


def _stream_tail(text: str, start: int, stop: int) -> str | None:
    """The end of the text of the stream output ``text[start:stop]`` (its JSON, an object), read back from its end:
    its last strings (a list of lines, as Jupyter writes it, or one string) up to its "text" key or TAIL_JSON
    characters, the first cut at an escaped line break; None when it is no stream, or not so written. Nothing
    before them is read, nor copied: a 40 MB log costs what its last lines do."""
    if not _STREAM.search(text, start, min(stop, start + 1024)) and \
            not _STREAM.search(text, max(start, stop - 1024), stop):
        return None
    floor, pieces, after = max(start, stop - TAIL_JSON), [], stop - 1  # after: where the string read next ends by
    while (close := _quote_before(text, after, start)) is not None:
        between = text[close + 1:after].strip()  # ']' or nothing after the last, ',' between two, ': [' after the key
        opening = _quote_before(text, close, start)
        if opening is None:
            return None
        if between.startswith(":"):  # a key: "text" before its strings, another's are no text
            return "".join(reversed(pieces)) or None if text[opening + 1:close] == "text" else None
        if between != ("," if pieces else "]") and not (between == "" and not pieces):
            return None
        begin = opening + 1
        if begin < floor:  # a long line or one string: its last part, from a line's start
            cut = _NEWLINE.search(text, floor, close)
            begin = cut.end() if cut else close
        try:
            pieces.append(json.loads(f'"{text[begin:close]}"'))
        except ValueError:
            return None
        if begin != opening + 1:
            break
        after = opening
    return "".join(reversed(pieces)) or None


def _quote_before(text: str, at: int, start: int) -> int | None:
    """Where the last '"' in ``text[start:at]`` that closes or opens a JSON string is (not an escaped one)."""
    while (quote := text.rfind('"', start, at)) >= 0:
        slashes = quote
        while slashes > start and text[slashes - 1] == "\\":
            slashes -= 1
        if (quote - slashes) % 2 == 0:
            return quote
        at = quote
    return None


def _loaded(text: str, indent: str | None) -> object:
    """The notebook's JSON, its outputs cut out before it is parsed where Jupyter wrote them on lines of their own
    and they are most of the file, else each let go as it is parsed (``_without_output``)."""
    short = _outputs_cut(text, indent) if indent is not None else _outputs_cut_one_line(text)
    if short is not None:
        try:
            return json.loads(short)
        except (ValueError, RecursionError):
            pass  # not as Jupyter writes it after all: parsed whole below
    try:
        return json.loads(text, object_pairs_hook=_without_output)
    except (ValueError, RecursionError) as exc:
        raise Skip(f"not a notebook: its JSON does not parse ({str(exc)[:200]})") from None


def _outputs_cut(text: str, indent: str | None) -> str | None:
    """The text with each cell's ``"outputs": [ … ]`` emptied, when Jupyter wrote it a key a line at ``indent`` and
    the outputs are over half the file (else None: the copy would cost more than it saves). Inside the list every
    line is indented deeper (JSON strings hold no line break), so its end is the first line that is ``indent``
    and ``]``. A 40 MB log in one output was parsed into 1.1 million strings before it could be let go."""
    if indent is None:
        return None
    opening, closing = f'\n{indent}"outputs": [', f"\n{indent}]"
    cuts, at = [], 0
    while (start := text.find(opening, at)) >= 0:
        body = start + len(opening)
        if not text.startswith("\n", body):  # '"outputs": [],' on its line: nothing to cut
            at = body
            continue
        end = text.find(closing, body)
        if end < 0:
            return None
        spans = _output_spans(text, body, end)
        if spans is None:
            return None
        cuts.append((body, end, spans))
        at = end + len(closing)
    if sum(end - body for body, end, _ in cuts) * 2 < len(text):
        return None
    return _with_outputs_reduced(text, cuts)


def _output_spans(text: str, body: int, end: int) -> list[tuple[int, int]] | None:
    """Where each output of the list ``text[body:end]`` is, as Jupyter writes them: an object's ``{`` and its
    ``}`` on lines of their own at the first one's indentation (a JSON string holds no line break, so no line of
    an output's text is one); None when they are not so written."""
    first = text.find("{", body, end)
    if first < 0:
        return [] if not text[body:end].strip() else None
    line = text.rfind("\n", body, first) + 1
    indent = text[line:first]
    if indent.strip():
        return None
    spans, start = [], first
    while start >= 0:
        close = text.find(f"\n{indent}}}", start, end)
        if close < 0:
            return None
        stop = close + len(indent) + 2
        spans.append((start, stop))
        after = text.find(f"\n{indent}{{", stop, end)
        start = after + len(indent) + 1 if after >= 0 else -1
    return spans


def _with_outputs_reduced(text: str, cuts: list[tuple[int, int, list[tuple[int, int]]]]) -> str:
    """The text with each outputs list ``text[body:end]`` (its outputs at ``spans``) as its outputs reduced
    (``_kept_outputs``)."""
    pieces, at = [], 0
    for body, end, spans in cuts:
        pieces += [text[at:body], _kept_outputs(text, body, end, spans)]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


# a string's closing quote is optional: a string never closed (a file cut short) is one token to the end, where each
# escaped quote in it began a string read again to the end (a 40 KB tail of '\"' took 13 s, twice the text four times)
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?P<closed>")?|[\[\]{}:]')


def _outputs_cut_one_line(text: str) -> str | None:
    """The text of a notebook written without line breaks with each cell's ``"outputs": [ … ]`` emptied, found by
    reading its JSON tokens (strings, brackets, colons) without building any of its values; None when the outputs
    are under half the file (the copy would cost more than it saves) or the JSON is not as expected. Parsed whole,
    one 40 MB output was held whole before it could be let go (1.8 times its text)."""
    cuts, depth, last, key = [], 0, None, None  # last: the string just read; key: the one before a colon
    skip_to = -1  # while in an output list: the depth its closing bracket returns to
    for token in _TOKEN.finditer(text):
        char = text[token.start()]
        if char == '"':
            if token["closed"] is None:  # never closed: no JSON
                return None
            last = token
            continue
        if char == ":":
            key, last = last, None
            continue
        if char in "[{":
            if skip_to < 0 and char == "[" and depth == 3 and key is not None and \
                    key.end() - key.start() == 9 and text.startswith('"outputs"', key.start()):
                skip_to = depth
                cuts.append([token.end(), None, []])
            elif char == "{" and skip_to >= 0 and depth == skip_to + 1:  # an output begins
                cuts[-1][2].append((token.start(), None))
            depth += 1
        else:
            depth -= 1
            if depth == skip_to:
                cuts[-1][1] = token.start()
                skip_to = -1
            elif char == "}" and skip_to >= 0 and depth == skip_to + 1 and cuts[-1][2]:  # an output ends
                cuts[-1][2][-1] = (cuts[-1][2][-1][0], token.end())
        key = last = None
    if depth != 0 or skip_to >= 0 or sum(end - start for start, end, _ in cuts) * 2 < len(text):
        return None
    if any(stop is None for _, _, spans in cuts for _, stop in spans):
        return None
    return _with_outputs_reduced(text, cuts)


def _without_output(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object as a dict, but an output of a cell (it has an ``output_type``) reduced to its text
    (``_reduced``): what it holds (a 40 MB log, a 30 MB image) is let go as soon as it is read, where the whole
    notebook's outputs were held together (a 62 MB notebook took 420 MB)."""
    for key, _ in pairs:
        if key == "output_type":
            output = dict(pairs)
            return _reduced(output, _characters(output))
    return dict(pairs)


def _characters(value: object) -> int:
    """About the characters of JSON ``value`` took: its strings' (an output's size, parsed)."""
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, dict):
        return sum(len(str(key)) + 3 + _characters(item) for key, item in value.items())
    if isinstance(value, list):
        return sum(_characters(item) + 1 for item in value)
    return 4


class _Lines:
    """The file's lines, found by their offsets as the cells are read in order: a 62 MB notebook of a training
    log is 1.1 million lines, and the list of them held 100 MB more than the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.count = text.count("\n") + 1
        self.line, self.offset = 0, 0  # where the cursor is: the offset line ``line`` starts at

    def _start(self, index: int, move: bool = False) -> int:
        """The offset line ``index`` starts at (moving the cursor there with ``move``)."""
        line, offset = (self.line, self.offset) if index >= self.line else (0, 0)
        while line < index:
            offset = self.text.index("\n", offset) + 1
            line += 1
        if move:
            self.line, self.offset = line, offset
        return offset

    def __getitem__(self, index: int) -> str:
        start = self._start(index)
        end = self.text.find("\n", start)
        return self.text[start:end if end >= 0 else len(self.text)]

    def __len__(self) -> int:
        return self.count

    def next_starting(self, after: int, prefix: str) -> int | None:
        """The index of the first line at or after ``after`` that starts with ``prefix``; None if none."""
        start = self._start(after, move=True)
        if self.text.startswith(prefix, start):
            return after
        found = self.text.find("\n" + prefix, start)
        if found < 0:
            return None
        self.line += self.text.count("\n", start, found + 1)
        self.offset = found + 1
        return self.line


def _source_line(lines: _Lines, after: int, indent: str | None) -> int:
    """The index of the next line at or after ``after`` that holds a cell's ``"source"`` key: at ``indent``, the
    indentation of the cells' keys (an output's data may hold a "source" key of its own, deeper). The last line
    if none: a notebook in one line has its keys on line 1, found there."""
    found = lines.next_starting(after, indent + '"source":') if indent is not None and after < len(lines) else None
    return max(0, len(lines) - 1) if found is None else found


def _key_indent(text: str) -> str | None:
    """The indentation of a cell's keys, from the first ``"cell_type":`` line; None for JSON on one line."""
    if "\n" not in text:
        return None
    first = re.search(r'^([ \t]*)"cell_type":', text, re.MULTILINE)
    return first.group(1) if first else None


def _section(source: list[str], lines: _Lines, at: int) -> Section:
    """The cell as a section on the file's lines: its source lines one per line after ``"source": [`` as
    Jupyter writes them, else as one line at the key."""
    one_per_line = (lines[at].rstrip().endswith("[") and at + len(source) + 1 < len(lines)
                    and lines[at + len(source) + 1].strip().startswith("]")
                    and all("\n" not in s[:-1] for s in source))
    if one_per_line:
        body = "".join(s if s.endswith("\n") else s + "\n" for s in source).rstrip("\n")
        return Section(text=body, start_line=at + 2, end_line=at + 1 + len(source))
    body = " ".join(line.strip() for s in source for line in s.split("\n") if line.strip())
    return Section(text=body, start_line=at + 1, end_line=at + 1)


def _headings(source: list[str]) -> list[tuple[int, str]]:
    """The ATX headings of a markdown cell, outside code fences."""
    found, fence = [], None
    for line in "".join(source).split("\n"):
        opened = FENCE.match(line)
        if opened:
            mark = opened.group(1)
            if fence is None:
                fence = mark[0]
            elif mark[0] == fence:
                fence = None
            continue
        if fence is None:
            match = ATX.match(line)
            if match and match.group(2).strip():
                found.append((len(match.group(1)), match.group(2).strip()))
    return found


def notebook_headings(text: str) -> list[tuple[int, int, str]]:
    """(line of the file, 0-based, level, name) of each heading of a notebook's markdown cells, at the first line of
    the cell holding it, as parse_notebook reads them (the level is its place in the heading path): read_file's
    ``heading`` reads a notebook's section by them (mcp_server.headings: headings_by_kind). A hit's heading path
    named 'Survival analysis > IL-6 levels', and read_file with that heading said the notebook had no headings."""
    found, path = [], []
    for section in parse_notebook("x.ipynb", text).sections:
        kept = 0
        while kept < min(len(path), len(section.heading_path)) and path[kept] == section.heading_path[kept]:
            kept += 1
        found += [(section.start_line - 1, level + 1, name)
                  for level, name in enumerate(section.heading_path) if level >= kept]
        path = section.heading_path
    return found
