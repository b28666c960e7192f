"""Rich Text Format (.rtf: TextEdit's, WordPad's, Word's 'Save as RTF', a Scrivener project's scenes) read as a Word
document is (ingest.word): its text a line a paragraph, empty paragraphs left out, titled by its ``{\\info{\\title}}``
else by its file's name (a Scrivener scene by its binder title: ingest.scrivener).

RTF is text of control words (``\\par``, ``\\b``), groups (``{…}``) and escapes (``\\'e9`` a byte of the document's
code page, ``\\u8212`` a Unicode character and the fallback after it): striprtf, already read for Outlook's RTF bodies
(ingest.tnef), turns it into text, leaving out what is no text of the document (font and colour tables, pictures'
hex, field codes, footnotes, comments). Headings are not told (a style's outline level is not read): a file is one
section. A file that does not begin ``{\\rtf`` is skipped with the reason."""
from __future__ import annotations

import re

from ingest.document import Skip

# the document's own title in its information group: '{\info{\title The Quay}{\author …}}'
INFO_TITLE = re.compile(rb"\{\\info\b.{0,4000}?\{\\title\s?((?:[^{}\\]|\\[^{}])*)\}", re.DOTALL)
SPACES = re.compile(r"[ \t\u00a0]+")


def rtf_text(data: bytes):
    """An .rtf read, as ingest.word.WordText: its paragraphs a line each, its info title. Raises Skip when it is
    no RTF."""
    from ingest.word import WordText
    if not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{\\rtf"):
        raise Skip("no RTF: it does not begin {\\rtf")
    read = WordText()
    read.lines = [line for line in (_clean(raw) for raw in _plain(data).split("\n")) if line]
    title = INFO_TITLE.search(data)
    if title:
        read.title = _clean(_plain(b"{\\rtf1 " + title.group(1) + b"}"))
    return read


def _plain(data: bytes) -> str:
    """The text of RTF ``data`` (striprtf's reading: a paragraph, a line break or a table's row a line). Its bytes
    are ASCII but for a writer's slip: read as Latin-1, so no byte fails; '\\'xx' escapes are decoded by their code
    page."""
    from striprtf.striprtf import rtf_to_text
    return rtf_to_text(data.decode("latin-1"), errors="replace")


def _clean(line: str) -> str:
    """A paragraph's text with its runs of spaces and tabs one space (a tab stop's indent is no text)."""
    return SPACES.sub(" ", line.replace("\u00ad", "")).strip()
