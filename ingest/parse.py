"""Turn a file's bytes into a Document, choosing the parser by kind.

Text is decoded by ``ingest.decode`` (UTF-8; a BOM selects UTF-8, UTF-16 or UTF-32; UTF-16 without one is
recognised), the decoder
read_file uses too; anything binary or undecodable raises ``Skip`` with the reason, so it is never
indexed as garbage.
So does a file with a line of over a million characters: that is a
data dump, an encoded blob or minified output, not prose, and cut into tens of
thousands of chunks it would take the embedder hours and bury real passages.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from ingest import zipped
from ingest.code_languages import SHEBANG_BYTES
from ingest.decode import decode
from ingest.document import Document, Section, Skip
from ingest.kinds import (BIBTEX_EXTENSIONS, EPUB_EXTENSIONS, LATEX_EXTENSIONS, MAIL_EXTENSIONS, MARKUP_EXTENSIONS,
                          PAGE_EXTENSIONS, TABLE_EXTENSIONS, WORD_EXTENSIONS, WORKBOOK_EXTENSIONS, is_mailbox, kind_of,
                          kind_of_script, suffix)
from ingest.kinds import ENEX_EXTENSIONS, OUTLOOK_EXTENSIONS, SLIDE_EXTENSIONS, SPREADSHEET_EXTENSIONS, TEXT_EXTENSIONS, chat_zip
from ingest.kinds import RTF_EXTENSIONS, SUBTITLE_EXTENSIONS, is_log
from ingest.markdown import parse_markdown

MAX_LINE_CHARS = 1_000_000
# A Markdown note of more lines is read as plain text: markdown-it keeps five numbers a line for the block it
# parses, and a block of blank lines or one paragraph is read whole (16 MB of blank lines took 2 GB).
MAX_NOTE_LINES = 500_000
__all__ = ["decode", "parse_file", "check_lines", "parse_text"]


def parse_file(path: str, data: bytes) -> Document:
    """``path``'s Document. An office file's zip part that fails its CRC check is read as it unzips, its passages'
    listing saying so (``cut_short``), as is a skip's reason that may come of it."""
    with zipped.damage_noted() as damaged:
        try:
            doc = _parse_file(path, data)
        except Skip as skip:
            if damaged:
                raise type(skip)(f"{skip} ({zipped.damage_said(damaged)})") from None
            raise
    if damaged:
        doc.meta["cut_short"] = "; ".join(filter(None, (doc.meta.get("cut_short"), zipped.damage_said(damaged))))
    return doc


def _parse_file(path: str, data: bytes) -> Document:
    kind = kind_of(path) or kind_of_script(path, data)
    if kind == "pdf":
        from ingest.pdf import parse_pdf  # pypdf loads only when a PDF comes
        return parse_pdf(path, data)
    if suffix(path).lower() in WORD_EXTENSIONS:  # a zip of XML, not text
        from ingest.word import parse_word  # python-docx loads only when a Word document comes
        return parse_word(path, data)
    # a zip of XHTML chapters, or Rich Text Format: read as a Word document is
    if suffix(path).lower() in EPUB_EXTENSIONS or suffix(path).lower() in RTF_EXTENSIONS:
        from ingest.word import parse_word
        return parse_word(path, data)
    if suffix(path).lower() in WORKBOOK_EXTENSIONS:  # a zip of XML: its sheets' rows as tables
        from ingest.xlsx import parse_xlsx
        return parse_xlsx(path, data)
    if suffix(path).lower() in SLIDE_EXTENSIONS:  # a zip of XML: a slide a heading, its notes under it
        from ingest.slides import parse_slides
        return parse_slides(path, data)
    if chat_zip(path, data):  # a Slack or WhatsApp export still zipped, under its name or another: its conversations
        from ingest.chat import parse_chat_zip
        return parse_chat_zip(path, data)
    if suffix(path).lower() in SPREADSHEET_EXTENSIONS:  # a zip of XML: its sheets' rows as an Excel workbook's
        from ingest.ods import parse_ods
        return parse_ods(path, data)
    if suffix(path).lower() in MAIL_EXTENSIONS or (not suffix(path) and is_mailbox(data[:SHEBANG_BYTES])):
        from ingest.mail import parse_eml, parse_mbox  # bytes: each part's charset and encoding say how to read it
        return parse_eml(path, data) if suffix(path).lower() == ".eml" else parse_mbox(path, data)
    if suffix(path).lower() in OUTLOOK_EXTENSIONS:  # an OLE2 compound file of MAPI properties, read as an .eml
        from ingest.outlook_msg import parse_msg  # olefile loads only when a .msg comes
        return parse_msg(path, data)
    if suffix(path).lower() in ENEX_EXTENSIONS:  # XML of many notes, read by expat as it comes: a note a section
        from ingest.enex import parse_enex
        return parse_enex(path, data)
    try:
        text = decode(data)
    except Skip:
        if data.startswith(b"%PDF-"):  # it was 'binary file', which says nothing of what to do
            raise Skip(f"a PDF named {PurePosixPath(path).name!r} (it begins %PDF-): rename it to .pdf to index "
                       "it") from None
        raise
    if PurePosixPath(path).suffix.lower() == ".ipynb":  # before check_lines: an output's image is one long line
        from ingest.notebook import parse_notebook
        return parse_notebook(path, text)
    if PurePosixPath(path).suffix.lower() == ".canvas":  # before check_lines: a card is one line of JSON
        from ingest.canvas import parse_canvas
        return parse_canvas(path, text)
    if suffix(path).lower() in PAGE_EXTENSIONS:  # before check_lines: MemoTrace's messages are one line of script
        from ingest.wechat import is_memotrace_html, read_html
        chat = read_html(path, text) if is_memotrace_html(text[:TELEGRAM_HEAD_CHARS]) else None
        if chat is not None:  # MemoTrace's HTML export of a WeChat chat (ingest.wechat)
            return chat
    check_lines(text)
    ext = suffix(path).lower()
    if ext == ".json":
        from ingest.keep import is_keep_note, parse_keep
        if is_keep_note(text):  # Google Takeout's Keep note: read as a note, not as JSON's lines
            return parse_keep(path, text)
    if ext in TABLE_EXTENSIONS:
        from ingest.wechat import CSV_HEADER, read
        chat = read(path, text) if text.lstrip("\ufeff").startswith(CSV_HEADER) else None
        if chat is not None:  # MemoTrace's export of a WeChat chat: its conversation, not a passage per row
            return chat
        from ingest.flashcards import is_anki_export, parse_flashcards
        if is_anki_export(text, plain=False):  # Anki's export of notes named .csv: a card a row, no header row
            return parse_flashcards(path, text)
        from ingest.table import parse_table
        return parse_table(path, text)
    if ext in BIBTEX_EXTENSIONS:
        from ingest.bibtex import parse_bibtex
        return parse_bibtex(path, text)
    if ext in LATEX_EXTENSIONS:
        from ingest.latex import parse_latex
        return parse_latex(path, text)
    if ext in MARKUP_EXTENSIONS:
        return markup_reader(ext)[0](path, text)
    if ext in SUBTITLE_EXTENSIONS:  # a recording's cues, what was said at what time
        from ingest.subtitles import parse_subtitles
        return parse_subtitles(path, text) or parse_text(path, text)
    if ext in PAGE_EXTENSIONS and is_page(text):
        from ingest.chat import is_telegram_html, parse_telegram_html
        chat = parse_telegram_html(path, text) if is_telegram_html(text[:TELEGRAM_HEAD_CHARS]) else None
        if chat is not None and chat.sections:  # Telegram's HTML export of a chat: its conversation
            return chat
        from ingest.webpage import parse_page
        return parse_page(path, text)
    if kind == "note":
        lines = text.count("\n") + (not text.endswith("\n"))
        if lines > MAX_NOTE_LINES:
            doc = parse_text(path, text)
            doc.meta["fallback"] = f"read as plain text: {lines:,} lines (over {MAX_NOTE_LINES:,})"
            return doc
        return parse_markdown(path, text)
    if ext == ".json" or ext in TEXT_EXTENSIONS:  # a chat export (Telegram, Discord, WhatsApp) as its conversation
        from ingest.chat import parse_chat_json, is_whatsapp, parse_whatsapp
        chat = parse_chat_json(path, text) if ext == ".json" else parse_whatsapp(path, text) if is_whatsapp(text) \
            else None
        if chat is None and ext != ".json":  # a WeChat chat exported as text (ingest.wechat)
            from ingest.wechat import read
            chat = read(path, text)
        if chat is not None:
            return chat
        from ingest.flashcards import is_anki_export, parse_flashcards
        if ext != ".json" and is_anki_export(text, plain=True):  # Anki's export of notes: a card a row
            return parse_flashcards(path, text)
    if kind == "code":
        from ingest.code import parse_code
        return parse_code(path, text)
    if is_log(path):  # its days apart, each dated by its lines' time
        from ingest.logs import parse_log
        return parse_log(text, PurePosixPath(path).name)
    return parse_text(path, text)


TELEGRAM_HEAD_CHARS = 64 * 1024  # of an HTML page, what tells it a page of Telegram's export (its chat_page div)


def markup_reader(ext: str):
    """(parse, headings) of an org-mode, reStructuredText, AsciiDoc or Fountain file's reader
    (kinds.MARKUP_EXTENSIONS)."""
    from importlib import import_module
    name = MARKUP_EXTENSIONS[ext]
    module = import_module(f"ingest.{name}")
    return getattr(module, f"parse_{name}"), getattr(module, f"{name}_headings")


# What a whole HTML page begins with (after a byte-order mark, blank lines and comments), and what a template holds:
# Jinja, Django and Liquid tags ('{% block content %}', '{%- if %}'), ERB, JSP and ASP ('<%'), PHP, and an
# expression in an attribute ('href="{{ url }}"'); a template's page is code, read by lines
PAGE_START = re.compile(r"\ufeff?\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html[\s>])", re.IGNORECASE | re.DOTALL)
TEMPLATE = re.compile(r"\{%[-+]?\s*[A-Za-z_]|<%|<\?php|=\s*[\"'][^\"'<>\n]{0,200}\{\{")
# where an exported page shows code as text (a template's tags there are examples, not its own): their tags
CODE_TAG = re.compile(r"<(/?)(?:pre|code|kbd|samp|tt|xmp|textarea|script)\b[^<>]{0,2000}>", re.IGNORECASE)
TEMPLATE_MARKS = ("{%", "<%", "<?php", "{{")  # what each of TEMPLATE's forms holds, looked for first
PAGE_HEAD = 4096  # characters of a file looked at for PAGE_START


def is_page(text: str) -> bool:
    """Whether an .html file is a page to read as a document (ingest.webpage): whole, and no template."""
    return PAGE_START.match(text[:PAGE_HEAD]) is not None and not _template(text)


def _template(text: str) -> bool:
    """Whether a template's tag stands in ``text`` outside the elements a page shows code in (<pre>, <code> …):
    a Confluence or Notion page documenting Jinja or Liquid shows '{% for %}' there, as text, and was read as code;
    a template's tags stand around its markup. One pass over the code elements' tags, however many there are."""
    if not any(mark in text for mark in TEMPLATE_MARKS):  # a page of none: TEMPLATE's scan took 8 ms a 256 KiB page
        return False
    tags = iter(TEMPLATE.finditer(text))
    tag = next(tags, None)
    if tag is None:
        return False
    depth, start = 0, 0
    for mark in CODE_TAG.finditer(text):
        if not mark.group(1):  # an opening tag: a code element begins (or one inside another)
            if depth == 0:
                start = mark.start()
            depth += 1
            continue
        if depth == 0:  # a closing tag with nothing open
            continue
        depth -= 1
        if depth:
            continue
        while tag is not None and tag.start() < mark.end():  # tags before this code element's end
            if tag.start() < start:
                return True  # before it began: outside any code element
            tag = next(tags, None)
        if tag is None:
            return False
    return tag is not None and (depth == 0 or tag.start() < start)  # after the last one, or an unclosed one's


def check_lines(text: str) -> None:
    """Raise Skip when a line is too long to be prose (the 50 MB single-line file)."""
    start = 0 if len(text) > MAX_LINE_CHARS else len(text)
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if end - start > MAX_LINE_CHARS:
            raise Skip(f"a line of {end - start:,} characters (over {MAX_LINE_CHARS:,}): a data dump, "
                       "encoded blob or minified text, not prose")
        start = end + 1


def parse_text(path: str, text: str) -> Document:
    title = PurePosixPath(path).name
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    body = "\n".join(lines)
    sections = [Section(text=body, heading_path=[], start_line=1, end_line=max(1, len(lines)))] if body.strip() else []
    return Document(kind="text", title=title, sections=sections)
