"""MemoTrace's (留痕, WeChatMsg) Word export of a WeChat chat (``王医生_1.docx``, ``王医生_2.docx`` …, 200 messages a
file; LC044/WeChatMsg, app/util/exporter/exporter_docx.py), read as a conversation (ingest.chat), as its TXT, CSV and
HTML exports are (ingest.wechat). It was read as a Word document: a table a message, no speaker's name, no date but a
centred time line now and then; the author filter and a date found none of it.

Its body: a centred paragraph of a time (``2026-11-28 15:02:11``) where five minutes passed since the last one shown,
then a message a table of one row and two cells, an avatar's picture in one and the message in the other (the avatar
on the right, the text on the left, for a message the exporting user sent; the other way round for one received),
an empty paragraph after it; a system message (``你撤回了一条消息``) a centred paragraph. A message's time is the last
time shown above it (at most five minutes early), its speaker ``我`` (me) for one sent, the chat's (the file's name,
``王医生``) for one received; a group's, whose members' avatars differ, ``?`` (the export names none). A picture is
``[图片]``; voice, stickers, files and videos are as the export writes them (``【语音】``).

Told by its shape: every table of its body such a row, two of them at least, and a time line among them (a later
file's first messages, said within five minutes of the last time the one before showed, take its first); any other
.docx is read as a document (ingest.word)."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

from ingest.chat import Message, conversation, days_as_lines
from ingest.document import Skip

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
# what a document's first bytes hold when MemoTrace wrote it: a time alone in a run, and a table holding a picture
HEAD_BYTES = 64 * 1024
HEAD_TIME = re.compile(rb"<w:t(?: [^>]*)?>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}</w:t>")
ME = "我"  # the exporting user: the export does not name them
PICTURE = "[图片]"
NAME_PART = re.compile(r"_\d+$")  # '王医生_1': a file of the chat's 200 messages


def read_memotrace_docx(path: str, data):
    """(ingest.word.WordText, Document) of MemoTrace's Word export ``data`` (its bytes, or a binary file open on it):
    a day a section at the lines read_file shows (a day's heading, a line a message); None for any other .docx."""
    if Path(path).suffix.lower() != ".docx":
        return None
    from ingest.zipped import opened
    try:
        with opened(data, "Word document", ".docx") as parts:
            if "word/document.xml" not in parts.names:
                return None
            with parts.open("word/document.xml") as stream:
                head = stream.read(HEAD_BYTES)
            if not HEAD_TIME.search(head) or b"<w:tbl>" not in head or b"<w:drawing>" not in head:
                return None
            body = parts.xml("word/document.xml").find(f"{W}body")
    except (Skip, ET.ParseError):
        return None  # read as a document, which says why it cannot be
    messages = _messages(body) if body is not None else None
    if not messages:
        return None
    title = NAME_PART.sub("", Path(path).name.rsplit(".", 1)[0])
    received = {who for _, who, _ in messages if who != ME}  # their avatars' pictures: a group's differ
    named = [Message(when, ME if who == ME else title if len(received) == 1 else "?", text)
             for when, who, text in messages]
    doc = conversation(title, title, named, 1, {"chat_export": "a WeChat chat export (MemoTrace Word)"},
                       markup=False)
    read, doc.sections = days_as_lines(title, doc.sections)
    return read, doc


def _messages(body) -> list[tuple[datetime, object, str]] | None:
    """(time, ME or the received message's avatar, text) of each message of the body; None when its tables are not
    all a message's, fewer than two, or no time is shown. A file after the chat's first (``王医生_2.docx``) may
    begin within five minutes of the last time shown in the one before: its first messages take its first time."""
    said, when, first = [], None, None
    for element in body:
        if element.tag == f"{W}p" and TIME.fullmatch(shown := _text(element)):
            try:
                when = datetime.strptime(shown, "%Y-%m-%d %H:%M:%S")
            except ValueError:
                return None
            first = first or when
        elif element.tag == f"{W}tbl":
            message = _message(element)
            if message is None:
                return None
            said.append((when, *message))
    if first is None or len(said) < 2:
        return None
    return [(when or first, who, text) for when, who, text in said]


def _message(table) -> tuple[object, str] | None:
    """(ME, or the received message's avatar picture's part id; its text) of a message's table: one row of two
    cells, the avatar's picture alone in the right one for a message sent (the table set right), in the left one
    for one received; None for any other table."""
    rows = table.findall(f"{W}tr")
    cells = rows[0].findall(f"{W}tc") if len(rows) == 1 else []
    if len(cells) != 2:
        return None
    placed = table.find(f"{W}tblPr/{W}jc")
    side = 1 if placed is not None and placed.get(f"{W}val") in ("right", "end") else 0
    avatar = cells[side]
    if _text(avatar) or avatar.find(f".//{W}drawing") is None:
        return None
    lines = [_text(paragraph) for paragraph in cells[1 - side].findall(f"{W}p")]
    text = "\n".join(line for line in lines if line) or PICTURE  # a picture, or one not found to export
    return (ME if side == 1 else _blip(avatar) or "?"), text


def _text(element) -> str:
    return "".join(node.text or "" for node in element.iter(f"{W}t")).strip()


def _blip(cell) -> str:
    found = cell.find(f".//{A}blip")
    return "" if found is None else found.get(f"{R}embed", "")
