"""WeChat chats exported as text, read as conversations as WhatsApp's are (ingest.chat): a section a day, dated by
its first message, a line a message, ``王医生: 血压复查安排在下周三``, its speakers the chat's (the author filter's).
They were read as plain text, with no days, dates or speakers.

Three forms are read, each told by its content, not its name:

- MemoTrace's (留痕, WeChatMsg) TXT export: a message a block, its head ``2026-11-28 15:02:11 王医生`` (the time to
  the second, a space, who said it), its text on the lines below, a blank line after; a notice (``… 撤回了一条消息``)
  is a head line with its words after the time and no text below, and is left out.
- MemoTrace's CSV export: its header ``localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime``
  (then ``Remark,NickName,Sender``), a message a row: a text's (Type 1) StrContent, a picture, voice message, video,
  sticker or file named (``[图片]``, ``[语音]``, ``[视频]``, ``[表情包]``, ``[文件]``), a reply (Type 49, SubType 57,
  its words in a column the CSV leaves out) as ``[回复]``, system messages (Type 10000) and other cards' XML left out; its time StrTime (``2026-11-28 15:02:11``), who said it Remark, else NickName.
- WeChat's own merged forwarded chat (合并转发的聊天记录) pasted as text: a message's head ``王医生 2026-11-28 15:02``
  (who said it, a space, the day and the time to the minute or second), its text on the lines below; its first line
  may be the record's title, ``王医生和李娜的聊天记录`` (ending 聊天记录). Told apart from a note of dated lines by
  two speakers at least.

A log (``2026-11-28 15:02:11 INFO started``, a line after a line, no text below them) is none of them.

MemoTrace's HTML export (``王医生.html``) is read too (``read_html``): its page is a template whose script holds the
chat as a list of JavaScript objects, ``const chatMessages = [{ type:1, text: '…',is_send:0,…,timestamp:1795878131,
is_chatroom:0,displayname:'王医生'},…]`` (LC044/WeChatMsg, app/util/exporter/exporter_html.py), shown by the
browser: read as a web page it was the template's error text and no message. Its Word export: ingest.wechat_docx."""
from __future__ import annotations

import csv
import html
import io
import re
from collections import Counter
from datetime import datetime
from pathlib import Path

from ingest.chat import Message, conversation
from ingest.document import Document, Skip

# a log's level, where a chat's speaker stands: '2026-11-28 15:02:11 INFO started' is a log's line
LOG_LEVEL = re.compile(r"(?i)\[?(trace|debug|info|notice|warn|warning|error|err|critical|crit|fatal|severe|alert|"
                       r"emerg|emergency|stdout|stderr)\]?:?")
HEAD_LINES = 200  # of a text's first lines, those that tell a chat
MEMOTRACE_HEAD = re.compile(r"(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) (\S.{0,79})")
MERGED_HEAD = re.compile(r"(\S.{0,39}?) (\d{4}-\d{1,2}-\d{1,2} \d{1,2}:\d{2}(?::\d{2})?)")
MERGED_TITLE = re.compile(r".{1,80}聊天记录")
CSV_HEADER = "localId,TalkerId,Type,SubType,IsSender,CreateTime,Status,StrContent,StrTime"
# what a message of no text holds, by its Type (and a file's, Type 49 SubType 6), as MemoTrace's TXT names it
NAMED_TYPES = {"3": "[图片]", "34": "[语音]", "43": "[视频]", "47": "[表情包]"}
SYSTEM_TYPE = "10000"
# a reply (Type 49, SubType 57): its words and the message it quotes are in CompressContent, a column MemoTrace's CSV
# does not write (its StrContent is empty, LC044/WeChatMsg issues 344, 403): the row says who replied and when
REPLY = "[回复]"


def read(path: str, text: str) -> Document | None:
    """The WeChat chat ``text`` is, as a conversation; None for a text that is none of the forms read."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    ext = Path(path).suffix.lower()
    if ext == ".csv":
        return _csv(path, text) if text.startswith(CSV_HEADER) else None
    lines = text.split("\n")
    for heads, form in ((_memotrace_heads, "MemoTrace TXT"), (_merged_heads, "merged forwarded chat")):
        found = heads(lines)
        if found is not None:
            return _conversation(path, _messages(lines, found), len(lines) - (not lines[-1]),
                                 f"a WeChat chat export ({form})")
    return None


def _memotrace_heads(lines: list[str]) -> list[tuple[int, datetime, str]] | None:
    """(line index, time, who) of each head of a MemoTrace TXT export (a head line after a blank one, or the
    file's first), or None when its first lines are not one: its first line a head, two messages with text below
    their heads at least, no author a log's, and no dated line but a head's (a log's lines follow each other).
    MemoTrace writes no header (LC044/WeChatMsg, exporter_txt.py): what tells a chat from a journal whose entries
    open so (``2026-11-28 09:00:00 Standup``, its text below) is who speaks: speakers who said more than one
    message said half the messages at least (a journal's titles seldom repeat; it was read as a chat, each title a
    speaker, an author the author filter found). One speaker may say them all (文件传输助手, the File Transfer chat). Nor is a
    journal whose title repeats (``Standup`` most days): its times are a person's, most at a whole minute
    (``09:00:00``), where a message's is the second it was sent, one in sixty at ``:00`` (it was read as a chat)."""
    if not lines or not MEMOTRACE_HEAD.fullmatch(lines[0]):
        return None
    heads = [(at, found) for at, line in enumerate(lines)  # a head of no date (2026-02-30) is text: it failed the file
             if (at == 0 or not lines[at - 1].strip()) and (found := MEMOTRACE_HEAD.fullmatch(line))
             and _time(found[1]) is not None]
    if not heads or heads[0][0]:  # its first line's date is none: no head
        return None
    told = [(at, found) for at, found in heads if at < HEAD_LINES]
    others = sum(1 for at, line in enumerate(lines[:HEAD_LINES])
                 if MEMOTRACE_HEAD.match(line) and at and lines[at - 1].strip())
    said = [found for at, found in told if at + 1 < len(lines) and lines[at + 1].strip()]
    if len(said) < 2 or others or any(LOG_LEVEL.fullmatch(found[2].split(" ", 1)[0]) for found in said):
        return None
    speakers = Counter(found[2].strip() for found in said)
    if 2 * sum(n for n in speakers.values() if n > 1) < len(said):
        return None
    if 2 * sum(found[1].endswith(":00") for found in said) > len(said):
        return None  # most at a whole minute: a person's times (a journal's), not a message's sent time
    return [(at, _time(found[1]), found[2].strip()) for at, found in heads]


def _merged_heads(lines: list[str]) -> list[tuple[int, datetime, str]] | None:
    """(line index, time, who) of each head of a merged forwarded chat's text, or None when its first lines are not
    one: its first line (after its title, if any) a head, two speakers with text below their heads at least, no
    author a log's."""
    first = 1 if lines and MERGED_TITLE.fullmatch(lines[0].strip()) and len(lines) > 1 else 0
    if len(lines) <= first or not MERGED_HEAD.fullmatch(lines[first].strip()):
        return None
    heads = []
    for at, line in enumerate(lines):
        found = MERGED_HEAD.fullmatch(line.strip()) if at >= first else None
        when = _time(found[2]) if found else None
        if when is not None:
            heads.append((at, when, found[1].strip()))
    told = [(at, who) for at, _, who in heads if at < HEAD_LINES + first]
    said = {who for at, who in told if at + 1 < len(lines) and lines[at + 1].strip()
            and not MERGED_HEAD.fullmatch(lines[at + 1].strip())}
    if len(said) < 2 or any(LOG_LEVEL.fullmatch(who.split(" ", 1)[0]) for who in said):
        return None
    return heads


def _time(said: str) -> datetime | None:
    day, clock = said.split(" ")
    try:
        return datetime(*map(int, day.split("-")), *map(int, clock.split(":")))
    except (TypeError, ValueError):
        return None


def _messages(lines: list[str], heads: list[tuple[int, datetime, str]]) -> list[Message]:
    """A message of each head with text below it, its text the lines to the next head (blank ones at its ends
    left out); a head with none below is a notice, left out."""
    messages = []
    for index, (at, when, who) in enumerate(heads):
        end = heads[index + 1][0] if index + 1 < len(heads) else len(lines)
        body = "\n".join(lines[at + 1:end]).strip("\n")
        if body.strip():
            lead = 1 + next(n for n, line in enumerate(lines[at + 1:end]) if line.strip())
            messages.append(Message(when, who, body.rstrip(), line=at + 1, lead=lead))
    return messages


def _csv(path: str, text: str) -> Document | None:
    """MemoTrace's CSV export as a conversation: a message a row, its line the row's first."""
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(rows)
        messages, line = [], rows.line_num
        for row in rows:
            at, line = line + 1, rows.line_num
            said = dict(zip(header, row))
            message = _csv_message(said, at)
            if message is not None:
                messages.append(message)
    except csv.Error:
        return None
    if not messages:
        return None
    lines = text.count("\n") + (not text.endswith("\n"))
    return _conversation(path, messages, lines, "a WeChat chat export (MemoTrace CSV)")


def _csv_message(said: dict, at: int) -> Message | None:
    kind, content = said.get("Type", ""), said.get("StrContent", "")
    if kind == SYSTEM_TYPE:
        return None
    if kind == "49" and said.get("SubType") == "6":
        content = "[文件]"
    elif kind == "49" and said.get("SubType") == "57":
        content = REPLY
    elif kind in NAMED_TYPES:
        content = NAMED_TYPES[kind]
    elif kind != "1" or not content.strip() or content.lstrip().startswith("<"):
        return None  # a card's XML, nothing
    try:
        when = datetime.strptime(said.get("StrTime", ""), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    who = (said.get("Remark") or said.get("NickName") or said.get("Sender") or "").strip()
    return Message(when, who or "?", content.strip(), line=at) if who or content else None


# MemoTrace's HTML export: the template's script, 'const chatMessages = [' then a message an object, each key's value
# a number or a quoted string escaped for JavaScript ('\\n', "\\'") of text escaped for HTML (its emoji as <img>)
MEMOTRACE_HTML = re.compile(r"const chatMessages = \[\s*(?:\{ ?type:|\];)")
JS_PAIR = re.compile(r"(\w+)\s*:\s*(?:'((?:[^'\\]|\\.)*)'|([^,}'\s]*))", re.DOTALL)
JS_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
JS_ESCAPES = {"n": "\n", "r": "", "t": "\t"}
TAG = re.compile(r"<[^>]*>")
# what a message of no text says, by its type (and a card's sub_type), as MemoTrace's TXT names them; a key of the
# object read after it ('file_name': the file's name)
HTML_NAMED = {"3": ("[图片]", ""), "34": ("[语音]", "voice_to_text"), "43": ("[视频]", ""),
              "49/6": ("[文件]", "file_name"), "49/3": ("[音乐]", "title"), "49/5": ("[链接]", "title"),
              "49/2000": ("[转账]", "text"), "50": ("[通话]", "text")}


def is_memotrace_html(text: str) -> bool:
    """Whether ``text`` (an .html file's, or its first bytes) is MemoTrace's HTML export of a chat."""
    return MEMOTRACE_HTML.search(text) is not None


def read_html(path: str, text: str) -> Document | None:
    """MemoTrace's HTML export as a conversation (``html_read``); None for a page that is none."""
    read = html_read(path, text)
    return None if read is None else read[1]


def html_read(path: str, text: str):
    """(ingest.word.WordText, Document) of MemoTrace's HTML export: a message an object of its script's list (from
    its ``type`` key to the next one's), its time ``timestamp`` (the exporting machine's local time, as its page
    shows it), who said it ``displayname``; a system message (type 0) left out. Its messages are one line of the
    page (a hit's lines were that line: read_file showed the whole chat): its lines are those read_file shows, a
    day's heading then its messages (ingest.chat.days_as_lines), as a zipped chat's are. None for a page that is
    none."""
    found = MEMOTRACE_HTML.search(text)
    if found is None:
        return None
    start = text.index("[", found.start()) + 1
    end = text.find("\n];", start)
    end = len(text) if end < 0 else end
    objects: list[dict] = []  # each message's keys' values
    for pair in JS_PAIR.finditer(text, start, end):
        if pair[1] == "type":
            objects.append({})
        if objects:
            objects[-1][pair[1]] = pair[3] if pair[2] is None else _js_text(pair[2])
    messages = [message for said in objects if (message := _html_message(said)) is not None]
    doc = _conversation(path, messages, 1, "a WeChat chat export (MemoTrace HTML)")
    if doc is None:
        return None
    from ingest.chat import days_as_lines
    read, doc.sections = days_as_lines(doc.title, doc.sections)
    return read, doc


HTML_HEAD_BYTES = 64 * 1024  # of an .html file, what tells it MemoTrace's page (as ingest.parse reads it)


def is_memotrace_page(path: str, source) -> bool:
    """Whether ``path`` is MemoTrace's HTML export of a chat, by its first bytes (``source``: the file on disk, or
    its bytes): read_file shows it as read (``html_text``), not its one line of script."""
    if Path(path).suffix.lower() not in (".html", ".htm"):
        return False
    from ingest.decode import head_text
    if isinstance(source, (bytes, bytearray, memoryview)):
        head = bytes(source[:HTML_HEAD_BYTES])
    else:
        try:
            with open(source, "rb") as f:
                head = f.read(HTML_HEAD_BYTES)
        except OSError:
            return False
    return is_memotrace_html(head_text(head))


def html_text(data, path: str):
    """The lines read_file shows of MemoTrace's page ``data`` (its bytes), and its headings (ingest.word.WordText);
    Skip for a page that is none."""
    from ingest.decode import decode
    read = html_read(path, decode(bytes(data)))
    if read is None:
        raise Skip("not MemoTrace's HTML export of a WeChat chat: no message in its script")
    return read[0]


def _js_text(value: str) -> str:
    """A JavaScript string's text (its escapes undone) as the page shows it: its tags (an emoji's <img>) left out,
    its HTML escapes undone."""
    value = JS_ESCAPE.sub(lambda m: JS_ESCAPES.get(m[1], m[1]), value)
    return html.unescape(TAG.sub("", value)).strip()


def _html_message(said: dict) -> Message | None:
    kind = said.get("type", "")
    key = f"{kind}/{said.get('sub_type', '')}" if kind == "49" else kind
    if kind == "1" or key == "49/57":
        text = said.get("text", "")
        if key == "49/57" and said.get("refer_text"):
            text += f"\n引用:{said['refer_text']}"  # as MemoTrace's TXT export writes a reply's quote
    elif key in HTML_NAMED:
        name, detail = HTML_NAMED[key]
        detail = said.get(detail, "") if detail else ""
        text = f"{name} {detail}" if detail and detail != "None" else name
    else:
        return None  # a system message (type 0), a card of no kind read
    try:
        when = datetime.fromtimestamp(int(said.get("timestamp", "")))
    except (ValueError, OverflowError, OSError):
        return None
    who = said.get("displayname", "").strip()
    return Message(when, who or "?", text.strip()) if text.strip() else None


# MemoTrace's export zipped, as it is shared: its folder ('聊天记录/王医生/王医生.txt', '王医生_utf8.csv' beside, its
# pictures in 'image/') or its files alone; a chat's TXT read where its CSV is beside it (the TXT holds replies' words)
ZIPPED_PART = re.compile(r"(?:[^/]+/){0,3}[^/]+\.(?:txt|csv)", re.IGNORECASE)


def zipped_chats(names, head, peeked: int | None = None) -> list[str]:
    """Of a zip's part ``names``, those that are a WeChat chat exported as text (``head``: a part's first bytes as
    text, the file unzipped's decoding): a MemoTrace TXT or a merged chat pasted (``read`` of its first lines), a
    MemoTrace CSV (its header); a folder's chat once. With ``peeked``, the first found, of at most that many parts
    looked at (a zip's kind is told so; read, all are)."""
    parts = sorted((name for name in names if ZIPPED_PART.fullmatch(name) and not name.startswith("__MACOSX/")),
                   key=lambda name: (*_chat_of(name), not name.lower().endswith(".txt"), name))
    found, chats = [], set()
    for name in parts[:peeked] if peeked else parts:
        if _chat_of(name) in chats:
            continue
        told = head(name)
        if name.lower().endswith(".csv"):
            its = told.startswith(CSV_HEADER)
        else:
            its = read(name, told.rsplit("\n", 1)[0] if "\n" in told else told) is not None
        if its:
            found.append(name)
            chats.add(_chat_of(name))
            if peeked:
                break
    return found


def _chat_of(name: str) -> tuple[str, str]:
    folder, _, file = name.rpartition("/")
    stem = file.rsplit(".", 1)[0]
    return folder, stem[:-len("_utf8")] if stem.endswith("_utf8") else stem


def read_zipped(parts, head) -> list[Document] | None:
    """The WeChat chats a zip's ``parts`` (ingest.zipped.Parts) hold as text (``zipped_chats``), each a
    conversation titled by its file's name; None for none."""
    from ingest.decode import decode
    docs = [read(name, decode(parts.read(name))) for name in zipped_chats(parts.names, head)]
    return [doc for doc in docs if doc is not None] or None


def _conversation(path: str, messages: list[Message], lines: int, what: str) -> Document | None:
    if not messages:
        return None
    stem = Path(path).name.rsplit(".", 1)[0]
    title = stem[:-len("_utf8")] if stem.endswith("_utf8") else stem  # MemoTrace's CSV: '王医生_utf8.csv'
    return conversation(title, title, messages, lines, {"chat_export": what}, markup=False)

