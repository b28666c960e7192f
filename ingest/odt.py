"""OpenDocument text (.odt: LibreOffice Writer, Google Docs' download) read as a Word document is (ingest.word): its
title, headings, paragraphs, lists, tables, text boxes, footnotes, endnotes and comments, a line a paragraph or a
table's row. An .odt is a zip whose content.xml holds the text: the standard library reads it (zipfile and
ElementTree), no package needed.

The title is meta.xml's ``dc:title``, else the first paragraph of the Title style, else the first heading, else the
file's name. A heading is a ``text:h`` (its ``text:outline-level``, 1 if none), lists are ``- `` lines by their
depth, tracked changes' deleted text (``text:tracked-changes``) and indexes (a table of contents) are left out. A
password-protected document (its manifest names encryption data) or one that is no zip or has no readable
content.xml is skipped with the reason."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ingest.document import Skip
from ingest.passage_dates import property_date
from ingest import zipped
from ingest.unreadable import not_readable
from ingest.zipped import head, opened_odf

OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
DC = "{http://purl.org/dc/elements/1.1/}"
META = "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}"
SPACES = re.compile(r"\s+")
MAX_FLAT_BYTES = 64 * 1024 * 1024  # of a flat OpenDocument text named .odt: as much as any text file (ingest.files)
# what holds no text of the document: deleted text kept for tracked changes, indexes (they repeat the headings),
# the numbering Writer writes out for a list item, a note's or a comment's body (read apart)
UNREAD = {TEXT + "tracked-changes", TEXT + "table-of-content", TEXT + "alphabetical-index",
          TEXT + "illustration-index", TEXT + "table-index", TEXT + "object-index", TEXT + "user-index",
          TEXT + "bibliography", TEXT + "number", OFFICE + "annotation-end", TEXT + "sequence-decls",
          OFFICE + "binary-data"}  # a picture's bytes in base64: a flat .fodt holds its pictures so



def flat_bytes(data, what: str) -> bytes | None:
    """The XML of a flat OpenDocument file (XML, not a zip: .fodp, .fods, or one named .odp/.ods), its bytes or an
    open file; None for a zipped one. Over MAX_FLAT_BYTES it is skipped, as a text file would be."""
    start = data[:64] if isinstance(data, bytes) else head(data, 64)
    if start.startswith(b"PK") or not start.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return None
    if not isinstance(data, bytes):  # named as a zipped kind, as an open file (ingest.files.read_zip_file)
        data.seek(0)
        data = data.read(MAX_FLAT_BYTES + 1)
    if len(data) > MAX_FLAT_BYTES:
        raise Skip(f"a flat {what} (XML, not a zip) larger than {MAX_FLAT_BYTES >> 20} MiB")
    return data


def odt_text(data):
    """An .odt read, as ingest.word.WordText; a flat .fodt too (one XML file: its office:document holds the meta
    and the body a zip's meta.xml and content.xml hold). Raises Skip when it is no readable OpenDocument text."""
    from ingest.word import WordText
    flat = flat_document(data, "OpenDocument text")
    if flat is not None:
        return _read(WordText(), flat, flat)
    with opened_odf(data, "OpenDocument text", ".odt") as parts:
        # meta.xml counts too: a 600 KB file whose meta.xml unzipped to 600 MB took 12 s and 1.8 GB
        most = zipped.OPENED_BYTES  # as it is now (a test's; imported by name, the one at this module's import)
        with parts.open("content.xml") as stream:  # counted whole, parsed as it unzips (_marked_tree)
            content = _marked_tree(stream, "OpenDocument text", most)
        if content is None:  # a paragraph its bytes do not show bounded: read again, its text counted
            with parts.open_unchecked("content.xml") as stream:  # (counted already)
                content = bounded_tree(stream, "OpenDocument text", most)
        meta = parts.xml("meta.xml")
    return _read(WordText(), content, meta)


def flat_document(data, what: str):
    """The root of a flat OpenDocument (.fodt, .fodp, .fods: one XML file whose office:document holds the meta and
    the body a zip's meta.xml and content.xml hold), or None when ``data`` (bytes or an open file) is a zip. Raises
    Skip for broken XML, one over MAX_FLAT_BYTES or a paragraph over a line's bound (``bounded_tree``)."""
    start = data[:64] if isinstance(data, bytes) else head(data, 64)
    if start.startswith(b"PK") or not start.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return None
    if not isinstance(data, bytes):  # a flat one named .odt (an open file: ingest.files.read_zip_file)
        data.seek(0)
    return bounded_tree(data, what, MAX_FLAT_BYTES)


READ_AT_ONCE = 64 * 1024  # of the XML given to the parser at a time
# the extension a kind of OpenDocument is saved as, named in what to do about one that cannot be read
_EXTENSION = {"OpenDocument text": ".odt", "OpenDocument spreadsheet": ".ods", "OpenDocument presentation": ".odp"}
LINE_TAGS = {TEXT + "p", TEXT + "h"}  # what the reader makes a line of: a paragraph, a heading


def bounded_tree(source, what: str, most: int):
    """The root of the XML in ``source`` (bytes or a binary stream), parsed a piece at a time with each paragraph's
    text counted as it comes (_BoundedBuilder): a paragraph over a line's bound (ingest.parse.MAX_LINE_CHARS) is
    refused before the rest of it is held, and over ``most`` bytes read the file is. A flat .fodt of one 50 MB
    paragraph was parsed whole first, its text copied as it was joined and cut to lines: 980 MB to be refused."""
    try:
        if isinstance(source, bytes) or hasattr(source, "seek"):
            root = _marked_tree(source, what, most)
            if root is not None:
                return root
            if not isinstance(source, bytes):
                source.seek(0)
        builder = _BoundedBuilder(what)
        for _ in _fed(source, ET.XMLParser(target=builder), builder, what, most):
            pass
        return builder.root
    except ET.ParseError as error:
        raise Skip(not_readable(error, what, _EXTENSION.get(what, ".odt"))[:500]) from None


# A paragraph's or heading's start or end tag as OpenDocument writers spell it, and the text namespace named so
LINE_MARK = re.compile(rb"(?s).*</?text:[ph][\s/>]")  # (greedy: the last one in a piece, searched from its end)
TEXT_PREFIX = re.compile(rb"""xmlns:text\s*=\s*["']urn:oasis:names:tc:opendocument:xmlns:text:1\.0["']""")
NAMES_TEXT = re.compile(rb"xmlns:text(?!:)")  # a declaration of the prefix (not the namespace's name, '…:text:1.0')
# markup whose text may spell a paragraph's tag without being one: a comment, CDATA, a declaration (an entity makes
# more text than its bytes) or a processing instruction after the XML declaration ('<!-- </text:p> -->' every 100 KB
# of a 6 MB paragraph had it held whole by ElementTree's builder: 86 MB, where the counting builder holds 1.3 MB)
NOT_ELEMENTS = re.compile(rb"<[!?]")
XML_DECLARATION = re.compile(rb"(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*>)?")
# past this many bytes since a paragraph's tag, the document is parsed again counting its text: no more of a long
# paragraph, or of a picture's base64 in a flat file, is held meanwhile (no paragraph of prose is this long)
MARKED_BYTES = 256 * 1024


def _marked_tree(source, what: str, most: int):
    """The root of the XML in ``source`` parsed by ElementTree's own builder (in C: _BoundedBuilder's calls into
    Python for every element and piece of text made a document a quarter slower to read), so long as its bytes show
    every paragraph bounded: no more than MARKED_BYTES (under a line's bound) since the last paragraph's or
    heading's tag, as the document's one ``xmlns:text`` names them (a character of text is a byte at least, and no
    entity of its own makes more: none is declared), and none of them inside other markup (NOT_ELEMENTS). None, the
    rest unread, as soon as they do not: the document is then parsed again counting its text (a long paragraph or
    picture, an entity, a comment, a prefix named otherwise)."""
    from ingest.parse import MAX_LINE_CHARS
    try:
        return _marked(source, what, most, ET.XMLParser(), min(MAX_LINE_CHARS, MARKED_BYTES))
    except ET.ParseError as error:
        raise Skip(not_readable(error, what, _EXTENSION.get(what, ".odt"))[:500]) from None


def _marked(source, what: str, most: int, parser, bound: int):
    read = since = 0
    tail = b""  # the last bytes of the piece before: a declaration cut between two pieces is seen whole
    while True:
        piece = source[read:read + READ_AT_ONCE] if isinstance(source, bytes) else source.read(READ_AT_ONCE)
        if not piece:
            return parser.close()
        seen, tail = tail + piece, piece[-9:]  # (9: shorter than either name looked for, so none is seen twice)
        if NOT_ELEMENTS.search(seen, XML_DECLARATION.match(seen).end() if read == 0 else 0) or \
                len(NAMES_TEXT.findall(seen)) != (read == 0) or (read == 0 and not TEXT_PREFIX.search(piece)):
            return None
        read += len(piece)
        if read > most:
            raise Skip(f"a flat {what} (XML, not a zip) larger than {most >> 20} MiB")
        last = LINE_MARK.match(piece)
        since = len(piece) - last.end() if last else since + len(piece)
        if since > bound:
            return None
        parser.feed(piece)


def bounded_iterparse(source, what: str, most: int, events=("end",), cut: bool = False):
    """ElementTree's iterparse (its events, its ParseError) of ``source`` (bytes or a binary stream), a paragraph's
    text bounded as bounded_tree's is; ``cut``: its text past the bound left out, not refused (a spreadsheet's cell
    keeps only its first table.CELL_CHARS anyway). Of the parts of text nothing reads, only a picture's base64 is left
    out: a flat .fodp of one 50 MB paragraph took 33 s and 1.4 GB to be skipped at chunk, a .fods 6 s and 1 GB."""
    builder = _BoundedBuilder(what, set(events), cut, {OFFICE + "binary-data"})
    yield from _fed(source, ET.XMLParser(target=builder), builder, what, most)
    yield from builder.take()


def _fed(source, parser, builder, what: str, most: int):
    """Feed ``source`` to ``parser`` a piece at a time, yielding the events its builder queued meanwhile."""
    read = 0
    while True:
        piece = source[read:read + READ_AT_ONCE] if isinstance(source, bytes) else source.read(READ_AT_ONCE)
        if not piece:
            builder.root = parser.close()  # the builder's close, through the parser's
            return
        read += len(piece)
        if read > most:
            raise Skip(f"a flat {what} (XML, not a zip) larger than {most >> 20} MiB")
        try:
            parser.feed(piece)
        except ET.ParseError:  # what was parsed before the error first (a deck's pages before a damaged one)
            yield from builder.take()
            raise
        yield from builder.take()


class _BoundedBuilder:
    """ElementTree's builder, counting a paragraph's text as the parser hands it over: past a line's bound it stops
    the parse (Skip), or with ``cut`` leaves the rest of that text out, with nothing of it held beyond the bound.
    What the reader leaves out (``unread``, by default UNREAD: a picture's base64, deleted text) is not held at all,
    nor counted. ``events``: 'start' and 'end', queued with their element for ``take``, as iterparse yields them.

    Its start, end and data are closures (_counting), not methods: the parser calls them for every element and piece
    of text, and a method's ``self.`` lookups made a document read a quarter slower than through ElementTree's own
    builder (bench/odt_read.py)."""

    def __init__(self, what: str, events=frozenset(), cut: bool = False, unread=frozenset(UNREAD)):
        from ingest.parse import MAX_LINE_CHARS
        built = ET.TreeBuilder()
        self.close, self.queued, self.root = built.close, [], None
        self.start, self.end, self.data = _counting(built, what, MAX_LINE_CHARS, cut, unread, self.queued,
                                                    "start" in events, "end" in events)

    def take(self) -> list:
        taken = self.queued[:]
        self.queued.clear()
        return taken


def _counting(built, what: str, bound: int, cut: bool, unread_tags, queued: list, starts: bool, ends: bool):
    """(start, end, data) for a parser's target, building with ``built`` and counting as _BoundedBuilder says."""
    build_start, build_end, build_data, queue = built.start, built.end, built.data, queued.append
    run = 0  # the characters of text since a paragraph or heading began or ended
    unread = 0  # how deep inside an unread element the parser is
    # paragraphs open: a footnote's inside one (text:note-body) is part of its line, and reset the count at
    # its own end: a 6 MB paragraph cut by a note each 500 KB was held whole (100 MB) and refused only after
    lines = 0

    def start(tag, attrs):
        nonlocal run, unread, lines
        if unread or tag in unread_tags:
            unread += 1
        elif tag in LINE_TAGS:
            run = 0 if not lines else run
            lines += 1
        element = build_start(tag, attrs)
        if starts:
            queue(("start", element))
        return element

    def end(tag):
        nonlocal run, unread, lines
        if unread:
            unread -= 1
        elif tag in LINE_TAGS:
            lines -= 1
            run = 0 if not lines else run
        element = build_end(tag)
        if ends:
            queue(("end", element))
        return element

    def data(text):
        nonlocal run
        if unread:
            return
        size = len(text)
        run += size if size > 1 and not text.isspace() else 1  # XML's indenting: one space
        if run > bound:
            if cut:
                return
            raise Skip(f"a line of over {bound:,} characters in a paragraph of this {what}: a data dump, "
                       "encoded blob or minified text, not prose")
        build_data(text)

    return start, end, data


def _read(out, content, meta):
    """``out`` (a WordText) holding the document whose content and meta (None, or the root holding office:meta)
    are these parsed XML roots."""
    reader = _Reader(out, _titled_styles(content))
    found = meta.find(f"{OFFICE}meta/{DC}title") if meta is not None else None
    reader.out.title = " ".join((found.text or "").split())[:500] if found is not None else ""
    reader.out.created = creation_date(meta)
    reader.out.author = odf_author(meta)
    body = content.find(f"{OFFICE}body/{OFFICE}text")
    try:
        if body is not None:
            reader.blocks(body, 0)
    except RecursionError:  # ElementTree reads any depth, the reader recurses: 100,000 nested spans
        raise Skip("not a readable OpenDocument text: nested too deeply") from None
    reader.out.lines += [f"[^{label}]: {text}" for label, text in reader.out.notes.items()]
    return reader.out


def odf_author(meta) -> str:
    """An OpenDocument's author: meta.xml's ``meta:initial-creator`` (who made it), else its ``dc:creator`` (who saved
    it last), as a .docx's core properties' author is read (ingest.recorded_author); '' for none. It was not read, so
    search's author filter found no .odt or .odp."""
    if meta is None:
        return ""
    from ingest.recorded_author import recorded_author
    made, saved = (meta.find(f"{OFFICE}meta/{tag}") for tag in (f"{META}initial-creator", f"{DC}creator"))
    return recorded_author(made.text if made is not None else None) or \
        recorded_author(saved.text if saved is not None else None)


def creation_date(meta) -> str:
    """An OpenDocument's meta.xml's ``meta:creation-date`` (local time, as LibreOffice writes it), as front matter
    writes a date (ingest.passage_dates.property_date); '' for none."""
    found = meta.find(f"{OFFICE}meta/{META}creation-date") if meta is not None else None
    return property_date(found.text) if found is not None else ""


def _titled_styles(content) -> set[str]:
    """The paragraph styles that are Writer's Title: 'Title' and the automatic styles based on it ('P1')."""
    titled = {"Title"}
    for style in content.iter(STYLE + "style"):
        if style.get(STYLE + "parent-style-name") == "Title":
            titled.add(style.get(STYLE + "name") or "Title")
    return titled


class _Reader:
    def __init__(self, out, titled: set[str]):
        self.out, self.titled = out, titled
        self.counts = {"": 0, "e": 0, "c": 0}

    def blocks(self, parent, depth: int, listed: bool = False) -> None:
        for child in parent:
            tag = child.tag
            if tag in UNREAD:
                continue
            if tag == TEXT + "h":
                self._line(child, level=_int(child.get(TEXT + "outline-level"), 1))
            elif tag == TEXT + "p":
                level = 0 if child.get(TEXT + "style-name") in self.titled else None
                self._line(child, level=level, depth=depth if listed else None)
            elif tag == TEXT + "list":
                self.blocks(child, depth + 1 if listed else 0, True)
            elif tag in (TEXT + "list-item", TEXT + "list-header"):
                self.blocks(child, depth, True)
            elif tag == TABLE + "table":
                self._table(child)
            elif isinstance(tag, str):  # a section, a table's row group, a frame's box …
                self.blocks(child, depth, listed)

    def _line(self, element, level: int | None = None, depth: int | None = None) -> None:
        boxes: list = []
        text = self._text(element, boxes)
        if text:
            if level is not None:
                self.out.headings.append((len(self.out.lines), level, text))
            elif depth is not None:
                text = "  " * depth + "- " + text
            self.out.lines.append(text)
        for box in boxes:
            self.blocks(box, 0)

    def _text(self, element, boxes: list) -> str:
        pieces: list[str] = [element.text or ""]
        self._pieces(element, pieces, boxes)
        return " ".join("".join(pieces).split())  # as SPACES.sub and strip, without the regex: a third faster

    def _pieces(self, element, pieces: list[str], boxes: list) -> None:
        for child in element:
            tag = child.tag
            if tag == TEXT + "s":  # its count unread: spaces are one in a line (SPACES); c="3000000000" took 5.7 GB
                pieces.append(" ")
            elif tag in (TEXT + "tab", TEXT + "line-break"):
                pieces.append(" ")
            elif tag == TEXT + "note":
                mark = "e" if child.get(TEXT + "note-class") == "endnote" else ""
                body = child.find(TEXT + "note-body")
                self._note(mark, body, pieces)
            elif tag == OFFICE + "annotation":
                self._note("c", child, pieces, (child.findtext(DC + "creator") or "").strip())
            elif tag == DRAW + "text-box":
                boxes.append(child)
            elif tag not in UNREAD and isinstance(tag, str):
                pieces.append(child.text or "")
                self._pieces(child, pieces, boxes)
            pieces.append(child.tail or "")

    def _cell_text(self, paragraph) -> str:
        """A cell's paragraph's text, and its text boxes' after it."""
        boxes: list = []
        text = self._text(paragraph, boxes)
        return " ".join(t for t in [text, *(self._cell_text(p) for box in boxes for p in _paragraphs(box))] if t)

    def _note(self, mark: str, body, pieces: list[str], author: str = "") -> None:
        self.counts[mark] += 1
        label = f"{mark}{self.counts[mark]}"
        text = " ".join(t for t in (self._text(p, []) for p in (body.iter(TEXT + "p") if body is not None else ()))
                        if t)
        if text:
            self.out.notes[label] = f"{author}: {text}" if author else text
            pieces.append(f"[^{label}]")

    def _table(self, table) -> None:
        rows = []
        for row in _rows(table):
            cells = []
            for cell in row:
                if cell.tag not in (TABLE + "table-cell", TABLE + "covered-table-cell"):
                    continue
                text = " ".join(t for t in (self._cell_text(p) for p in _paragraphs(cell)) if t)
                cells += [text] * min(_int(cell.get(TABLE + "number-columns-repeated"), 1), 64)
            while cells and not cells[-1]:  # Calc-style repeated empty cells to the sheet's edge
                cells.pop()
            if any(cells):
                rows.append(cells)
        if not rows:
            return
        self.out.add_table(rows)


def _rows(table):
    """A table's own rows (in its header rows and row groups too), not those of a table in one of its cells."""
    for child in table:
        if child.tag == TABLE + "table-row":
            yield child
        elif child.tag in (TABLE + "table-header-rows", TABLE + "table-rows", TABLE + "table-row-group"):
            yield from _rows(child)


def _paragraphs(element):
    """The paragraphs (and headings) of a cell, a nested table's among them; not a note's or a comment's, read
    with the paragraph citing them."""
    for child in element:
        if child.tag in (TEXT + "p", TEXT + "h"):
            yield child
        elif child.tag not in UNREAD and child.tag not in (TEXT + "note", OFFICE + "annotation") \
                and isinstance(child.tag, str):
            yield from _paragraphs(child)


def _int(value: str | None, default: int) -> int:
    return int(value) if value and value.isdigit() else default
