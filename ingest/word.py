"""Word documents (.docx): their text by heading, as a Markdown note's, a line a paragraph.

A .docx is a zip of WordprocessingML; python-docx opens it (the package, its parts and relationships, the core
properties) and its document's XML is walked here with lxml, which python-docx parses it with. What is read:

- the title: the core properties' title unless a program wrote it ('Word Document', python-docx's for a file
  without docProps/core.xml; 'Untitled document'; a file name), else the first paragraph of the Title style, else the first heading,
  else the file's name;
- headings: a paragraph of a 'Heading 1' … 'Heading 9' style (Word stores the English names whatever the language
  it shows them in; a style whose id is 'Heading1' … is one too, whatever its name: Google Docs', LibreOffice's and
  pandoc's files), or of an outline level (its own or its style's, through the styles it is based on); the Title
  paragraph heads the rest (level 0). A document without any (its headings typed as bold lines) is cut by its short
  paragraphs all bold, two at least (level 1). Sections fall under heading paths as a Markdown note's do;
- paragraphs, list items ('- ' and two spaces a level deeper), and text boxes (each paragraph after the one that
  holds it; Word's VML copy of the same box, for old readers, is left out), deleted text of tracked changes left out;
- tables as Markdown tables (a header row, '| --- |', a row a line), kept whole in a passage when they fit and a
  long table's later passages embedded with its header row, as a note's tables (ingest.chunk); a table of one row
  or one column (a layout box) is its cells' paragraphs; a cell in a content control (a form's field) is read too;
- footnotes, endnotes and comments, as a Markdown note's footnotes: '[^3]' where cited, their definitions
  ('[^3]: …') lines after the text, and each embedded with the passages citing it (Document.footnotes); endnotes
  are '[^e3]', comments '[^c3]' (a comment headed by its author).
- a part of other content shown in its place (w:altChunk), HTML or plain text, as an HTML page's paragraphs and
  headings (what report generators and HTML-to-Word converters write).
Left out: the table of contents (it repeats the headings), headers and footers (repeated on every page: a company's
name, 'Confidential', a page number), field codes, another .docx or RTF embedded as an altChunk.

A docx has no lines: its "lines" are the lines of ``word_lines``, a paragraph (or a table's row) each, empty
paragraphs left out. Passages name those, and read_file shows them (mcp_server.word_files: read_word), so
'lines 12-14' of a search result are what read_file shows at 12-14. A file that is not a readable .docx (not a zip,
a password-protected file, which is an OLE compound file, a damaged part) is skipped with the reason (Skip), nothing else lost.
A template or a document with macros (.dotx, .docm, .dotm) named .docx is read as the document it is.
"""
from __future__ import annotations

import io
import re
import zipfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import timezone

from ingest.document import Document, Section, Skip, SkipForNow, title_from_name
from ingest.legal_paragraphs import paragraph_headings
from ingest.zipped import crc_failed, opened
from ingest.word_math import OMATH, linear
from ingest.word_numbering import Numbering

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
P, TBL, TR, TC, SDT, SDT_CONTENT, CUSTOM = (W + name for name in ("p", "tbl", "tr", "tc", "sdt", "sdtContent",
                                                                  "customXml"))
TEXT, TAB, BREAKS, TXBX = W + "t", W + "tab", {W + "br", W + "cr"}, W + "txbxContent"
HYPHEN = W + "noBreakHyphen"
ALT_CHUNK = W + "altChunk"
REL_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
NOTE_MARKS = {W + "footnoteReference": "", W + "endnoteReference": "e", W + "commentReference": "c"}
# what a paragraph holds that is no text of it: its and its runs' properties, deleted text, field codes, a
# deleted paragraph mark's runs, and what mc:AlternateContent repeats for readers of old Word (VML text boxes)
UNREAD = {W + "pPr", W + "rPr", W + "del", W + "delText", W + "instrText", W + "delInstrText", W + "moveFrom",
          MC_FALLBACK}
SPACES = re.compile(r"\s+")
HEADING_STYLE = re.compile(r"heading ([1-9])")
# a heading style's id, whatever the name shown: 'Heading1' of Google Docs', LibreOffice's and pandoc's files, whose
# name may be in the writer's language ('Überschrift 1') or whose style is not defined at all
HEADING_ID = re.compile(r"heading ?([1-9])", re.IGNORECASE)
# a paragraph all bold of at most so many characters, not ending as a sentence does, heads a section of a document
# without heading styles (typed as bold lines): two such at least, or one bold line is emphasis, not structure
BOLD_HEADING_CHARS = 100
RELS = {"footnotes": "", "endnotes": "e", "comments": "c"}  # the parts' relationship type's last word: their labels
# a title a program wrote, not the author (as ingest.slides' GENERIC_TITLE): python-docx's for a .docx without
# docProps/core.xml, Word's and Google Docs' new document's, a file name
GENERIC_TITLE = re.compile(r"(word document|microsoft word( - .*)?|document ?\d*|untitled( document)?( ?\(?\d+\)?)?|"
                           r".*\.(docx?|dotx?|odt|rtf))", re.IGNORECASE)
# python-docx's template's own date (its default.docx's core.xml): a document it made without setting one is not
# of 23 December 2013
TEMPLATE_CREATED = "2013-12-23T23:15:00+00:00"


@dataclass
class WordText:
    """A Word document read: its lines (a paragraph or a table's row each), its headings as (line, 0-based, level,
    name), its tables as (first line, last line), 0-based and inclusive, and the notes cited in it."""
    lines: list[str] = field(default_factory=list)
    headings: list[tuple[int, int, str]] = field(default_factory=list)
    tables: list[tuple[int, int]] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)
    title: str = ""
    created: str = ""  # the document's own date, its properties' (ingest.passage_dates.property_date), or ''
    author: str = ""  # its core properties' author unless a placeholder (``_author``), or ''

    def add_table(self, rows: list[list[str]]) -> None:
        """A table's rows of cells (a .docx's or an .odt's) as a Markdown table, a row a line; a table of one row or
        one column (a layout box) as its cells' text, paragraphs."""
        width = max(len(row) for row in rows)
        if len(rows) == 1 or width == 1:
            for row in rows:
                self.lines.extend(cell for cell in row if cell)
            return
        first = len(self.lines)
        header, *body = [row + [""] * (width - len(row)) for row in rows]
        self.lines.append(_row(header))
        self.lines.append("| " + " | ".join("---" for _ in header) + " |")
        self.lines.extend(_row(row) for row in body)
        self.tables.append((first, len(self.lines) - 1))


def _author(raw: str | None) -> str:
    """A .docx's core properties' author ('Ben Okafor'), unless a placeholder a program wrote ('python-docx',
    'Microsoft Office User') or no name, as a PDF's metadata author is read (ingest.recorded_author)."""
    from ingest.recorded_author import recorded_author
    return recorded_author(raw)


def parse_word(path: str, data: bytes) -> Document:
    from ingest.parse import check_lines
    from ingest.wechat_docx import read_memotrace_docx
    chat = read_memotrace_docx(path, data)
    if chat is not None:  # MemoTrace's Word export of a WeChat chat: its conversation
        return chat[1]
    read = word_text(data, path, chat_checked=True)
    check_lines("\n".join(read.lines))  # a paragraph over a million characters, as a text file's line: refused
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    headings = [] if path.lower().endswith(".epub") else read.headings  # a book's first is its first chapter's
    title = read.title or next((name for _, level, name in headings if level == 0), "") or next(
        (name for _, _, name in headings), "") or title_from_name(stem)
    meta = {"created": read.created} if read.created else {}
    if read.author:  # the title column holds it, and search's author filter reads it, as of a PDF
        meta["author"] = read.author
    return Document(kind="note", title=title, sections=_sections(read), footnotes=read.notes, meta=meta)


def word_headings(data: bytes, path: str) -> tuple[str, list[tuple[int, int, str]]]:
    """(the text read_file reads, its lines joined; its headings): read_file's ``heading`` reads a section by them."""
    read = word_text(data, path)
    return "\n".join(read.lines), read.headings


def word_lines(data: bytes, path: str) -> list[str]:
    """The lines read_file shows of a Word document: those its passages' line numbers count."""
    return word_text(data, path).lines


def word_text(data: bytes, path: str = "", chat_checked: bool = False) -> WordText:
    """A .docx read (WordText), an .odt (ingest.odt) or an .epub (ingest.epub). Raises Skip when it is no readable
    Word document, SkipForNow without python-docx. ``chat_checked``: the caller found it no MemoTrace chat (its
    .docx is not opened, and its start read, again)."""
    if path.lower().endswith((".odt", ".fodt")):
        from ingest.odt import odt_text
        return odt_text(data)
    if path.lower().endswith(".epub"):
        from ingest.epub import epub_text
        return epub_text(data)
    if path.lower().endswith(".rtf"):  # Rich Text Format: its paragraphs (ingest.rtf)
        from ingest.rtf import rtf_text
        return rtf_text(data, path)
    if path.lower().endswith(".msg"):  # Outlook's message: its text as indexed, its attachments' (ingest.outlook_msg)
        from ingest.outlook_msg import msg_text
        return msg_text(data, path)
    if path.lower().endswith((".xlsx", ".xlsm")):  # its sheets as headings, a row a line (ingest.xlsx)
        from ingest.xlsx import xlsx_text
        return xlsx_text(data, path)[0]
    from ingest.kinds import SLIDE_EXTENSIONS, SPREADSHEET_EXTENSIONS, chat_zip, suffix
    if chat_zip(path, data):  # a chat export still zipped: its days, a heading each (ingest.chat)
        from ingest.chat import chat_zip_text
        return chat_zip_text(data, path)[0]
    from ingest.wechat import html_text, is_memotrace_page
    if is_memotrace_page(path, data):  # MemoTrace's one-line page of a WeChat chat: its days so too
        return html_text(data, path)
    if suffix(path).lower() in SLIDE_EXTENSIONS:  # a slide a heading (ingest.slides)
        from ingest.slides import slides_text
        return slides_text(data, path)
    if suffix(path).lower() in SPREADSHEET_EXTENSIONS:  # a sheet a heading (ingest.ods)
        from ingest.ods import ods_text
        return ods_text(data, path)
    if not chat_checked:
        from ingest.wechat_docx import read_memotrace_docx
        if (chat := read_memotrace_docx(path, data)) is not None:  # MemoTrace's export of a WeChat chat: its days
            return chat[0]
    try:
        import docx
        from docx.opc.exceptions import PackageNotFoundError
        from lxml.etree import LxmlError
    except ImportError:
        raise SkipForNow("python-docx is not installed: `pip install python-docx` (scripts/setup installs it) "
                         "to read Word documents") from None
    with opened(data, "Word document", ".docx") as parts:
        document_zip = _as_document(parts, data)
    try:
        try:
            document = _document(docx, document_zip)
        except zipfile.BadZipFile as error:
            if not crc_failed(error):
                raise
            with opened(data, "Word document", ".docx") as parts:  # a part's CRC does not match: read what it holds
                document = _document(docx, _as_document(parts, data, unchecked=True))
        return _Reader(document).read()
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, EOFError, OSError, LxmlError) as error:
        # a part missing (KeyError), its XML damaged (LxmlError), not a Word document's content type (a .docm,
        # an .xlsx renamed: ValueError)
        from ingest.unreadable import ZIP_START, not_readable
        from ingest.zipped import head
        raise Skip(not_readable(error, "Word document", ".docx", head(data, len(ZIP_START)))[:500]) from None
    except RecursionError:  # lxml refuses XML nested over 256 deep: only a hostile file comes near
        raise Skip("not a readable Word document: nested too deeply") from None


def _document(docx, document_zip):
    """``docx.Document`` of the zip: a [Content_Types].xml without its namespace (a damaged file, or one some other
    program wrote) made python-docx raise AttributeError ('… has no attribute 'overrides''), which read as an error
    Sift did not expect: it is said as the damage it is."""
    try:
        return docx.Document(document_zip)
    except AttributeError as error:
        from ingest.unreadable import logged, save_again
        logged(error, "Word document")
        raise Skip("not a readable Word document: its list of parts ([Content_Types].xml) is damaged: "
                   f"{save_again('Word document', '.docx')}, or index a copy that opens") from None


MAIN = b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
# the main part's content type of a template (.dotx), a document with macros (.docm) or a template with macros
# (.dotm): the same WordprocessingML, which python-docx refuses ('is not a Word file') when one is named .docx
OTHER_MAINS = re.compile(rb"application/vnd\.(?:openxmlformats-officedocument\.wordprocessingml\.template|"
                         rb"ms-word\.(?:document\.macroEnabled|template\.macroEnabledTemplate))\.main\+xml")
CONTENT_TYPES = "{http://schemas.openxmlformats.org/package/2006/content-types}"
READ_TYPES = ("text/html", "text/plain")  # of parts not XML that are read: an altChunk's (_Reader._alt_chunk)


def _as_document(parts, data, unchecked: bool = False):
    """The zip python-docx opens (a file it reads): ``data``'s, its main part's content type a document's when it
    is a template's or a macro document's (its macros are not read), and its parts that are not read (pictures,
    embedded files, fonts: python-docx loads every part) left empty. Only the parts kept are counted (zipped.Parts):
    a document of 200 MB of photographs was a zip bomb, or skipped as larger than 64 MiB, and held whole.
    A copy's parts are read without zipfile's CRC check (zipped.Parts.open_unchecked notes a part that fails it), and
    so is every part with ``unchecked``: python-docx refused a damaged file whole for a byte changed in one part."""
    package = parts.package
    if "[Content_Types].xml" not in parts.names:
        parts.count(*package.namelist())
        return io.BytesIO(data) if isinstance(data, bytes) else data  # python-docx says what is missing
    types = parts.read("[Content_Types].xml")
    unread = _unread_parts(types, package.namelist())
    parts.count(*(name for name in package.namelist() if name not in unread and name != "[Content_Types].xml"))
    if not unread and not OTHER_MAINS.search(types) and not unchecked:
        return io.BytesIO(data) if isinstance(data, bytes) else data
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as copy:
        for info in package.infolist():
            if info.filename == "[Content_Types].xml":
                copy.writestr(info, OTHER_MAINS.sub(MAIN, types))
            else:
                copy.writestr(info, b"" if info.filename in unread else _unchecked(parts, info.filename))
    out.seek(0)
    return out


def _unchecked(parts, name: str) -> bytes:
    with parts.open_unchecked(name) as stream:
        return stream.read()


def _unread_parts(types: bytes, names: list[str]) -> set[str]:
    """The parts of ``names`` whose content type ([Content_Types].xml's) is neither XML nor READ_TYPES: a picture,
    an embedded workbook or object, a font. None when the content types do not parse (python-docx says so)."""
    try:
        root = ET.fromstring(types)
    except ET.ParseError:
        return set()
    defaults = {(e.get("Extension") or "").lower(): e.get("ContentType") or ""
                for e in root.iter(CONTENT_TYPES + "Default")}
    overrides = {(e.get("PartName") or "").lstrip("/").lower(): e.get("ContentType") or ""
                 for e in root.iter(CONTENT_TYPES + "Override")}
    unread = set()
    for name in names:
        kind = overrides.get(name.lower(), defaults.get(name.rsplit(".", 1)[-1].lower() if "." in name else "", ""))
        kind = kind.split(";")[0].strip().lower()
        if kind and "xml" not in kind and kind not in READ_TYPES:
            unread.add(name)
    return unread


class _Reader:
    def __init__(self, document):
        self.document = document
        self.styles = _styles(document)
        self.numbering = Numbering(document)
        self.out = WordText()
        self.cited: list[tuple[str, str]] = []  # (label's mark, id) in the order cited
        self.bold: list[tuple[int, str]] = []  # (line, text) of short paragraphs all bold: headings typed by hand

    def read(self) -> WordText:
        title = " ".join((self.document.core_properties.title or "").split())[:500]
        self.out.title = "" if GENERIC_TITLE.fullmatch(title) else title
        created = self.document.core_properties.created  # python-docx's: in UTC, without its zone
        if created is not None:
            created = created.replace(tzinfo=created.tzinfo or timezone.utc).isoformat()
            self.out.created = "" if created == TEMPLATE_CREATED else created
        self.out.author = _author(self.document.core_properties.author)
        self._blocks(self.document.element.body)
        # no heading styles (a Title at most): its bold lines head its sections, under the Title
        if len(self.bold) >= 2 and all(level == 0 for _, level, _ in self.out.headings):
            self.out.headings = sorted(self.out.headings + [(line, 1, text) for line, text in self.bold])
        notes = _notes(self.document)
        self.out.notes = {mark + id_: notes[(mark, id_)] for mark, id_ in self.cited if (mark, id_) in notes}
        # after the text, as a Markdown note's definitions: found by their words, at lines read_file shows
        self.out.lines += [f"[^{label}]: {text}" for label, text in self.out.notes.items()]
        return self.out

    def _blocks(self, parent) -> None:
        for child in parent:
            if child.tag == P:
                self._paragraph(child)
            elif child.tag == TBL:
                self._table(child)
            elif child.tag == SDT:
                if not _contents_table(child) and not _placeholder(child):
                    self._blocks(_content(child))
            elif child.tag in (SDT_CONTENT, CUSTOM):
                self._blocks(child)
            elif child.tag == ALT_CHUNK:
                self._alt_chunk(child.get(REL_ID) or "")

    def _alt_chunk(self, rel_id: str) -> None:
        """A part of other content the document shows in its place (w:altChunk: the HTML a report generator or
        an HTML-to-Word converter put there, plain text): its paragraphs and headings read here, as an HTML page's
        (ingest.webpage). Another .docx or RTF so embedded is left out."""
        from ingest.decode import decode
        from ingest.webpage import _Reader as PageReader
        rel = self.document.part.rels.get(rel_id)
        if rel is None or rel.is_external:
            return
        part = rel.target_part
        kind = part.content_type.split(";")[0].strip().lower()
        if kind not in ("text/html", "application/xhtml+xml", "text/plain"):
            return
        try:
            text = decode(part.blob)
        except Skip:
            return
        if kind == "text/plain":
            self.out.lines += [line for line in (" ".join(line.split()) for line in text.splitlines()) if line]
            return
        reader = PageReader()
        reader.feed(text)
        reader.finish()
        kept = {}
        for index, (_, _, pieces) in enumerate(reader.lines):
            line = " ".join("".join(pieces).split())
            if line:
                kept[index] = len(self.out.lines)
                self.out.lines.append(line)
        self.out.headings += [(kept[index], level, name) for index, level, name in reader.headings if index in kept]

    def _paragraph(self, p) -> None:
        name, level, listed = self._style_of(p)
        if name.startswith("toc "):  # a table of contents written as fields: its lines repeat the headings
            return
        boxes: list = []
        text = _text(p, boxes, self.cited)
        number = self._number(p)  # counted for an empty paragraph too, as Word counts it
        if text:
            if number and not text.startswith(number):
                text = number + " " + text
            if level is not None:
                self.out.headings.append((len(self.out.lines), level, text))
            elif listed is not None:
                text = "  " * listed + ("" if number else "- ") + text
            elif len(text) <= BOLD_HEADING_CHARS and not text.endswith((".", ",", ";")) and _all_bold(p):
                self.bold.append((len(self.out.lines), text))
            self.out.lines.append(text)
        for box in boxes:
            self._blocks(box)

    def _number(self, p) -> str | None:
        """The number Word shows before ``p`` ('12.3', '(b)'), its own list's or its style's (ingest.word_numbering)."""
        props = p.find(W + "pPr")
        found = props.find(W + "pStyle") if props is not None else None
        numbered = props.find(W + "numPr") if props is not None else None
        own = [None, None]
        if numbered is not None:
            for i, tag in enumerate(("numId", "ilvl")):
                element = numbered.find(W + tag)
                own[i] = element.get(W + "val") if element is not None else None
        return self.numbering.label((found.get(W + "val") or "") if found is not None else "", *own)

    def _style_of(self, p) -> tuple[str, int | None, int | None]:
        """(its style's name in lower case, its heading level or None, its list level or None): its own outline
        level, else its style's level."""
        props = p.find(W + "pPr")
        found = props.find(W + "pStyle") if props is not None else None
        style_id = (found.get(W + "val") or "") if found is not None else ""
        level, name = self.styles.get(style_id) or (
            (_id_level(style_id), style_id.lower()) if style_id else self.styles.get("", (None, "")))
        if props is None:
            return name, level, None
        own = _outline(props.find(W + "outlineLvl"))
        numbered = props.find(W + "numPr")
        listed = None
        if numbered is not None:
            depth, num = numbered.find(W + "ilvl"), numbered.find(W + "numId")
            if num is None or num.get(W + "val") != "0":  # numId 0: its style's numbering taken away
                value = depth.get(W + "val", "0") if depth is not None else "0"
                listed = min(int(value), 8) if value.isdigit() else 0
        elif name.startswith("list"):  # 'List Bullet 2': its style's numbering, a level deeper
            listed = int(name[-1]) - 1 if name[-1] in "23456789" else 0
        return name, own if own is not None else level, listed

    def _table(self, table) -> None:
        rows = []
        for tr in table.iter(TR):
            if _parent_table(tr) is not table:  # a nested table's rows: in its cell's text
                continue
            cells = [self._cell(tc) if tc is not None else "" for tc in _cells(tr)]
            if any(cells):
                rows.append(cells)
        if not rows:
            return
        self.out.add_table(rows)

    def _cell(self, tc) -> str:
        boxes: list = []  # their paragraphs are among the cell's own (tc.iter): all but Word's VML copies
        return " ".join(text for text in (_text(p, boxes, self.cited) for p in tc.iter(P)
                                          if next(p.iterancestors(MC_FALLBACK), None) is None) if text)


def _text(element, boxes: list, cited: list) -> str:
    """A paragraph's text, spaces collapsed; its text boxes added to ``boxes``, the notes it cites to ``cited``."""
    pieces: list[str] = []
    _pieces(element, pieces, boxes, cited)
    return SPACES.sub(" ", "".join(pieces)).strip()


def _pieces(element, pieces: list[str], boxes: list, cited: list) -> None:
    for child in element:
        tag = child.tag
        if tag == TEXT:
            pieces.append(child.text or "")
        elif tag == TAB or tag in BREAKS:
            pieces.append(" ")
        elif tag == HYPHEN:  # 'e-mail', 'COVID-19' typed with Ctrl+Shift+-: 'email', 'COVID19' without it
            pieces.append("-")
        elif tag in NOTE_MARKS:
            id_ = child.get(W + "id")
            if id_ is not None:
                cited.append((NOTE_MARKS[tag], id_))
                pieces.append(f"[^{NOTE_MARKS[tag]}{id_}]")
        elif tag == OMATH:  # an equation: its text in Word's linear form (ingest.word_math)
            pieces.append(linear(child))
        elif tag == TXBX:
            boxes.append(child)
        elif tag == SDT and _placeholder(child):
            continue
        elif tag not in UNREAD and isinstance(tag, str):  # not an XML comment or processing instruction
            _pieces(child, pieces, boxes, cited)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _all_bold(p) -> bool:
    """Whether each run of a paragraph that holds text is bold (its own w:b, or the 'Strong' character style)."""
    runs = [run for run in p.iter(W + "r") if any((t.text or "").strip() for t in run.iter(TEXT))
            and not any(a.tag in UNREAD for a in run.iterancestors())]
    return bool(runs) and all(_bold(run) for run in runs)


def _bold(run) -> bool:
    props = run.find(W + "rPr")
    if props is None:
        return False
    bold = props.find(W + "b")
    style = props.find(W + "rStyle")
    return (bold is not None and bold.get(W + "val", "1") not in ("0", "false", "off")) or (
        style is not None and style.get(W + "val", "").lower() == "strong")


def _cells(tr):
    """A row's cells, those inside a content control or custom XML too (a form's filled-in cell: w:sdt around
    w:tc), whose text was lost; None for a cell showing its control's placeholder."""
    for child in tr:
        if child.tag == TC:
            yield child
        elif child.tag == SDT and _placeholder(child):
            yield from (None for _ in child.iter(TC))
        elif child.tag in (SDT, SDT_CONTENT, CUSTOM):
            yield from _cells(child)


def _parent_table(element):
    parent = element.getparent()
    while parent is not None and parent.tag != TBL:
        parent = parent.getparent()
    return parent


def _content(sdt):
    found = sdt.find(SDT_CONTENT)
    return found if found is not None else ()


def _placeholder(sdt) -> bool:
    """Whether a content control shows its placeholder ('Click or tap here to enter text.'): a form's field left
    empty, whose prompt was read as the document's text, in every copy of the form."""
    return sdt.find(f"{W}sdtPr/{W}showingPlcHdr") is not None


def _contents_table(sdt) -> bool:
    """Whether a content control is Word's table of contents (its lines repeat the headings)."""
    gallery = sdt.find(f"{W}sdtPr/{W}docPartObj/{W}docPartGallery")
    return gallery is not None and "contents" in (gallery.get(W + "val") or "").lower()


def _outline(element) -> int | None:
    """A heading level, 1-9, from a w:outlineLvl (0-8; 9 is body text), or None."""
    if element is None:
        return None
    value = element.get(W + "val", "")
    return int(value) + 1 if value.isdigit() and int(value) < 9 else None


def _styles(document) -> dict:
    """Paragraph styles by id: (heading level or None, name in lower case); '' the default style. A level is the
    name's ('heading 2', 'title': 0) or the outline level the style or those it is based on set."""
    try:
        root = document.styles.element
    except (KeyError, ValueError, AttributeError):
        return {}
    defined = {}
    default = ""
    for style in root.iter(W + "style"):
        if style.get(W + "type") not in (None, "paragraph"):
            continue
        id_ = style.get(W + "styleId") or ""
        name = style.find(W + "name")
        based = style.find(W + "basedOn")
        defined[id_] = ((name.get(W + "val") or "").lower() if name is not None else id_.lower(),
                        _outline(style.find(f"{W}pPr/{W}outlineLvl")),
                        based.get(W + "val") if based is not None else None)
        if style.get(W + "default") in ("1", "true"):
            default = id_
    styles = {id_: (_level(id_, defined), name) for id_, (name, _, _) in defined.items()}
    if default in styles:
        styles[""] = (None, styles[default][1])
    return styles


def _level(id_: str, defined: dict) -> int | None:
    """A style's heading level: its name's ('heading 2': 2, 'title': 0), else its outline level, else those of the
    styles it is based on, nearest first (a 'Chapter' style based on 'Heading 1' is a heading of level 1)."""
    seen = set()
    while id_ in defined and id_ not in seen:
        seen.add(id_)
        name, outline, based = defined[id_]
        match = HEADING_STYLE.fullmatch(name)
        if match:
            return int(match.group(1))
        if _id_level(id_) is not None:
            return _id_level(id_)
        if name == "title":
            return 0
        if outline is not None:
            return outline
        id_ = based
    return None


def _id_level(id_: str) -> int | None:
    """The level a style's id names ('Heading2': 2; 'Title': 0), or None."""
    match = HEADING_ID.fullmatch(id_)
    return int(match.group(1)) if match else 0 if id_ == "Title" else None


def _notes(document) -> dict[tuple[str, str], str]:
    """The footnotes', endnotes' and comments' text by (label's mark, id): separators left out, a comment headed by
    its author."""
    from docx.oxml import parse_xml
    notes: dict[tuple[str, str], str] = {}
    for rel in document.part.rels.values():
        kind = rel.reltype.rsplit("/", 1)[-1]
        if kind not in RELS or rel.is_external:
            continue
        root = parse_xml(rel.target_part.blob)
        for note in root:
            id_ = note.get(W + "id")
            if id_ is None or note.get(W + "type") in ("separator", "continuationSeparator", "continuationNotice"):
                continue
            text = " ".join(t for t in (_text(p, [], []) for p in note.iter(P)) if t)
            author = note.get(W + "author")
            if text:
                notes[(RELS[kind], id_)] = f"{author}: {text}" if kind == "comments" and author else text
    return notes


def _sections(read: WordText) -> list[Section]:
    """Sections by heading, as a Markdown note's: a heading's path is the headings above it of lower levels; a
    heading with nothing under it before the next one opens the next one's section; tables are atomic blocks."""
    starts = {line: (level, name) for line, level, name in paragraph_headings(read.lines, read.headings)}
    own = {line for line, _, _ in read.headings}  # a paragraph headed by its reference ('§ 5 Abs. 2') is text too
    tables = dict(read.tables)
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    first = headed = 0  # headed: the headings from first on (a deck of 100,000 empty slides was their square)
    for line in sorted(starts):
        if line - first > headed:  # text under the heading above
            _add(sections, read, first, line, [name for _, name in path], tables)
            first, headed = line, 0
        headed += line in own
        level, name = starts[line]
        path = [(lv, n) for lv, n in path if lv < level] + [(level, name)]
    if first < len(read.lines):
        _add(sections, read, first, len(read.lines), [name for _, name in path], tables)
    return sections


def _add(sections: list[Section], read: WordText, first: int, end: int, heading_path: list[str],
         tables: dict[int, int]) -> None:
    lines = read.lines[first:end]
    text = "\n".join(lines)
    atomic, offset = [], 0
    for n, line in enumerate(lines):
        if first + n in tables:
            last = min(tables[first + n], end - 1) - first
            atomic.append((offset, offset + len("\n".join(lines[n:last + 1]))))
        offset += len(line) + 1
    sections.append(Section(text=text, heading_path=heading_path, start_line=first + 1, end_line=end,
                            atomic=atomic))
