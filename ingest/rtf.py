"""Rich Text Format (.rtf: TextEdit's, WordPad's, Word's 'Save as RTF', a Scrivener project's scenes) read as a Word
document is (ingest.word): its text a line a paragraph, empty paragraphs left out, titled by its ``{\\info{\\title}}``
else by its file's name (a Scrivener scene by its binder title: ingest.scrivener), its ``{\\author}`` its author as a
.docx's is.

RTF is text of control words (``\\par``, ``\\b``), groups (``{…}``) and escapes (``\\'e9`` a byte of the document's
code page, ``\\u8212`` a Unicode character and the fallback after it): striprtf, already read for Outlook's RTF bodies
(ingest.tnef), turns it into text, leaving out what is no text of the document (font and colour tables, pictures'
hex, field codes, footnotes, comments). Headings are not told (a style's outline level is not read): a file is one
section. A file that does not begin ``{\\rtf`` is skipped with the reason."""
from __future__ import annotations

import re

from ingest.document import Skip

# the document's own title and author in its information group: '{\info{\title The Quay}{\author Ana Sousa}}'
INFO_TITLE = re.compile(rb"\{\\info\b.{0,4000}?\{\\title\s?((?:[^{}\\]|\\[^{}])*)\}", re.DOTALL)
INFO_AUTHOR = re.compile(rb"\{\\info\b.{0,4000}?\{\\author\s?((?:[^{}\\]|\\[^{}])*)\}", re.DOTALL)
# of a file looked at for its information group: it comes after the font, colour, style and list tables (Word's)
INFO_BYTES = 256 * 1024
# a group of data, no text: a picture's hex, an embedded object's, Word's data store, theme and colour scheme
DATA_GROUP = re.compile(rb"\{\\(?:\*\\)?(?:pict|objdata|datastore|themedata|colorschememapping|blipuid)(?![a-z])")
BRACE = re.compile(rb"\\.|[{}]", re.DOTALL)  # a brace, or an escaped character ('\\{' is no brace)
SPACES = re.compile(r"[ \t\u00a0]+")


def rtf_text(data: bytes, path: str = ""):
    """An .rtf read, as ingest.word.WordText: its paragraphs a line each, its info title (else, for the TXT.rtf of a
    TextEdit document saved with pictures, 'Letter.rtfd/TXT.rtf', its folder's name: 'Letter'). Raises Skip when it
    is no RTF."""
    from ingest.word import WordText
    if not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{\\rtf"):
        raise Skip("no RTF: it does not begin {\\rtf")
    read = WordText()
    read.lines = [line for line in (_clean(raw) for raw in _plain(data).split("\n")) if line]
    title, author = INFO_TITLE.search(data[:INFO_BYTES]), INFO_AUTHOR.search(data[:INFO_BYTES])
    if title:
        read.title = _clean(_plain(b"{\\rtf1 " + title.group(1) + b"}"))
    folder = path.rsplit("/", 2)[-2] if path.count("/") else ""
    if not read.title and folder.lower().endswith(".rtfd") and len(folder) > 5:  # the document is the folder
        read.title = folder[:-5]
    if author:  # as a .docx's core properties' author, unless a placeholder a program wrote
        from ingest.recorded_author import recorded_author
        read.author = recorded_author(_clean(_plain(b"{\\rtf1 " + author.group(1) + b"}")))
    return read


def _plain(data: bytes) -> str:
    """The text of RTF ``data`` (striprtf's reading: a paragraph, a line break or a table's row a line). Its bytes
    are ASCII but for a writer's slip: read as Latin-1, so no byte fails; '\\'xx' escapes are decoded by their code
    page."""
    from striprtf.striprtf import rtf_to_text
    return rtf_to_text(_without_data(data).decode("latin-1"), errors="replace")


def _without_data(data: bytes) -> bytes:
    """``data`` without its groups of data (``DATA_GROUP``: a picture's hex, an embedded object's), cut at their
    braces before striprtf reads the rest: it reads them token by token, 1.7 s a MB (a 4.6 MB RTF of one picture
    took 8 s, now 0.1 s)."""
    kept, at = [], 0
    for found in DATA_GROUP.finditer(data):
        if found.start() < at:  # inside a group cut already
            continue
        depth, end = 0, len(data)
        for mark in BRACE.finditer(data, found.start()):
            if mark.group() == b"{":
                depth += 1
            elif mark.group() == b"}":
                depth -= 1
                if depth == 0:
                    end = mark.end()
                    break
        kept.append(data[at:found.start()])
        at = end
    # an empty group where each was: '\\par' before one is not read '\\parEnd' with the text after it
    return b"{}".join(kept) + b"{}" + data[at:] if kept else data


def _clean(line: str) -> str:
    """A paragraph's text with its runs of spaces and tabs one space (a tab stop's indent is no text)."""
    return SPACES.sub(" ", line.replace("\u00ad", "")).strip()
