"""Word documents and the files read like them (OpenDocument text, EPUB books, workbooks, spreadsheets, slide
decks, a chat export still zipped) as read_file shows them: their lines as the index reads them, and their
headings."""
from __future__ import annotations

import os
from contextlib import contextmanager

from ingest.document import Skip
from mcp_server import paths
from mcp_server.errors import Problem
from mcp_server.read_answer import MAX_BYTES, MAX_LINES, NUMBER, empty_answer, lines_answer
from mcp_server.text_file import open_checked


WORD_BYTES = 64 << 20  # of a Word document read, as ingest reads it (ingest.files.MAX_FILE_BYTES: more is skipped)


def is_word(path: str, full: str) -> bool:
    from ingest.kinds import (EPUB_EXTENSIONS, OUTLOOK_EXTENSIONS, RTF_EXTENSIONS, SLIDE_EXTENSIONS,
                              SPREADSHEET_EXTENSIONS, WORD_EXTENSIONS, WORKBOOK_EXTENSIONS, chat_zip, suffix)
    from ingest.wechat import is_memotrace_page
    return suffix(path).lower() in (WORD_EXTENSIONS | EPUB_EXTENSIONS | WORKBOOK_EXTENSIONS  # a workbook's: ingest.xlsx
                                    | SLIDE_EXTENSIONS | SPREADSHEET_EXTENSIONS | OUTLOOK_EXTENSIONS | RTF_EXTENSIONS) \
        or chat_zip(path, full) or is_memotrace_page(path, full)  # a chat export zipped, MemoTrace's page (ingest.wechat)


@contextmanager
def _word_bytes(target: paths.Target):
    """A Word document's bytes; over WORD_BYTES, the file open (a zip read part by part, as ingest.files reads a
    deck of photographs: ingest.files.read_zip_file). Its first 64 MiB were read, a zip cut short: 'cannot be read'."""
    fd = open_checked(target)  # a regular file, inside its root
    try:
        with os.fdopen(os.dup(fd), "rb") as f:
            from ingest.files import ZIPPED_EXTENSIONS
            from ingest.kinds import chat_zip, suffix
            if os.fstat(f.fileno()).st_size > WORD_BYTES and (suffix(target.relative).lower() in ZIPPED_EXTENSIONS
                                                               or chat_zip(target.relative, target.absolute)):
                yield f
            else:
                yield f.read(WORD_BYTES)
    finally:
        os.close(fd)


def read_word(target: paths.Target, indexed, start: int, end: int | None, offset: int = 0,
              unindexed: str | None = None) -> tuple[str, dict]:
    """A Word document's lines as the index reads them (ingest.word.word_lines: a paragraph or a table's row a
    line, empty paragraphs left out), numbered as its passages' lines are: the file's bytes are a zip of XML."""
    if end is not None and end < start:
        raise Problem(f"end_line ({end}) is before start_line ({start})")
    from ingest.word import word_lines
    try:
        with _word_bytes(target) as data:
            lines = word_lines(data, target.relative)
    except Skip as why:
        raise Problem(f"{target.name} cannot be read: {why}") from None
    if not lines:
        return f"{target.name} holds no text.", empty_answer(target, indexed)
    last = min(end or len(lines), len(lines), start + MAX_LINES - 1)
    shown, cut_at, room = [], None, MAX_BYTES
    for n in range(start, last + 1):
        line = lines[n - 1]
        if n == start and offset:
            line = line.encode()[offset:].decode("utf-8", "ignore")
        size = len(line.encode()) + NUMBER
        if size > room:
            if shown:  # the next answer starts with it
                cut_at = (n, 0)
            else:  # a paragraph longer than an answer: cut, and continued from that byte
                piece = line.encode()[:max(room - NUMBER, 1)].decode("utf-8", "ignore")
                shown.append((n, piece))
                cut_at = (n, offset + len(piece.encode()))
            break
        shown.append((n, line))
        room -= size
    text, data = lines_answer(target, indexed, start, end, offset, shown, cut_at, len(lines), True, unindexed)
    from ingest.kinds import SLIDE_EXTENSIONS, SPREADSHEET_EXTENSIONS, chat_zip, suffix
    if target.relative.lower().endswith(".msg"):
        return text + "\n[an Outlook message: its text as Sift reads it, its Subject, head and body, then each " \
            "attachment read]", data
    if target.relative.lower().endswith(".epub"):
        return text + "\n[an EPUB book: its chapters' text as Sift reads it, a line a paragraph]", data
    if target.relative.lower().endswith(".rtf"):  # ingest.rtf
        return text + "\n[an RTF document: its text as Sift reads it, a line a paragraph]", data
    if target.relative.lower().endswith((".html", ".htm")):  # MemoTrace's page (ingest.wechat.is_memotrace_page)
        return text + "\n[a WeChat chat exported by MemoTrace as a web page: its messages as Sift reads them, a " \
            "day's heading then its messages, a line each]", data
    if chat_zip(target.relative, target.absolute):
        return text + "\n[a chat export still zipped: its conversations as Sift reads them, a day's heading then " \
            "its messages, a line each]", data
    if target.relative.lower().endswith((".xlsx", ".xlsm")):
        return text + "\n[an Excel workbook: its text as Sift reads it, a sheet's name then its rows, a line each]", \
            data
    if suffix(target.relative).lower() in SPREADSHEET_EXTENSIONS:
        return text + "\n[a spreadsheet: its text as Sift reads it, a sheet's name then its rows, a line each]", data
    if suffix(target.relative).lower() in SLIDE_EXTENSIONS:
        return text + "\n[a slide deck: its text as Sift reads it, a slide's heading then its text and speaker " \
            "notes, a line a paragraph]", data
    return text + "\n[a Word document: its text as Sift reads it, a line a paragraph or a table's row]", data


def document_headings(target: paths.Target) -> tuple[str, list[tuple[int, int, str]]]:
    """A Word document's lines as read_word shows them, joined, and its headings (ingest.word)."""
    from ingest.word import word_headings
    with _word_bytes(target) as data:
        return word_headings(data, target.relative)
