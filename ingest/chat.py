"""Chat exports read as conversations: Telegram's ``result.json`` (Telegram Desktop's 'Export chat history' as
JSON) and its HTML pages (``messages.html``, ``messages2.html`` …, the export's default), DiscordChatExporter's
JSON, a Slack workspace export's channel days (``general/2024-03-14.json`` beside ``users.json`` and
``channels.json``) and WhatsApp's 'Export chat' text (``WhatsApp Chat with Anna.txt``,
``_chat.txt``). Read before as the JSON or the plain text they are: a passage was JSON lines of ids, flags and
reactions, Slack's authors user ids ('U024BE7LH') and WhatsApp's a run of timestamps.

A conversation is a section per day, headed by where it was said and the day (``#general · 2024-03-14``), its text
the day in words (``Thursday 14 March 2024``, that 'March 2024' finds it, as a mail's Date line) and a line per
message, ``Anna: the invoice format is fine``, a message over several lines kept whole. Names are people's: a Slack
author's and a mention's (``<@U024BE7LH>``) real name from the export's ``users.json``, a link's label with its
address (``<https://…|the invoice>``), Discord's nickname where there is one. A message's attachments are named
(``[attached: invoice.pdf]``), its reactions, edits and ids are not read, and service messages (joins, pins, calls,
a group's new name, WhatsApp's 'Messages and calls are end-to-end encrypted') are left out. Each section is dated by
its first message (ingest.passage_dates' ``moment``, as a mail message is) and spans the lines of the file its
messages stand at, so read_file shows them.

What is read so is told by its shape alone, and anything else is read as before: Telegram's object of ``type``,
``id`` and ``messages`` (each a ``message`` or ``service`` of a ``date``; a whole account's export, its
``chats.list`` of them), its HTML page by its ``<div class="page_body chat_page">``, DiscordChatExporter's
``guild``, ``channel`` and ``messages`` (each a ``timestamp``, an ``author`` and ``content``), a Slack day file by
its folder (``slack_day``), WhatsApp's by its first lines (``14/03/2024, 09:15 - Anna: …`` from Android,
``[14/03/2024, 09:15:02] Anna: …`` from an iPhone; day and month in the order the file's dates tell, US ``3/14/24,
9:15 AM`` too; year first, ``2024-03-14 09:15 - Anna: …``, when its lines' authors are people's, not a log's
levels). A Slack export or a WhatsApp chat still zipped is read by its name
(ingest.kinds.CHAT_ZIP_NAME), or under any other by what its directory names (``zip_holds_chat``: a Telegram or
DiscordChatExporter export by its JSON's first bytes, Telegram's HTML pages by theirs, WeChat's MemoTrace TXT or CSV
by theirs: ingest.wechat.zipped_chats), as one file of its conversations, its parts counted as a .docx's
(ingest.zipped).
"""
from __future__ import annotations

import html
import json
import os
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from ingest.document import Document, Section, Skip
from ingest.mail import DAYS, MONTHS
from ingest.passage_dates import moment


@dataclass
class Message:
    when: datetime
    who: str
    text: str
    line: int = 0  # of the file (1-based) where it stands; 0: not known
    attached: list[str] = field(default_factory=list)
    # of a text export's message (WhatsApp's), the file's lines above its text's first: its head's, when nothing
    # follows the name ('[12/03/2024, 09:14] Ben: ', the text below), an attached file's name line over a caption
    lead: int = 0


def conversation(title: str, place: str, messages: list[Message], lines: int, meta: dict | None = None,
                 markup: bool = True) -> Document:
    """A document of ``messages`` (in the order said) a section a day, headed '``place`` · 2024-03-14', each from the
    line before its first message's (its first message's, without ``markup``) to the line before the next day's
    first (the last to ``lines``, the file's)."""
    days: list[list[Message]] = []
    for message in messages:
        if days and days[-1][0].when.date() == message.when.date():
            days[-1].append(message)
        else:
            days.append([message])
    firsts = [next((m.line for m in day if m.line), 0) for day in days]
    afters, after = [], lines + 1  # of each day, the first line known of a later day's messages
    for first in reversed(firsts):
        afters.append(after)
        after = first or after
    sections = []
    for day, first, after in zip(days, firsts, reversed(afters)):
        when = day[0].when
        said = [f"{DAYS[when.weekday()]} {when.day} {MONTHS[when.month - 1]} {when.year}"]
        said += [_line(message) for message in day]
        # from the line before its first message's, as its text's day line stands before it: a hit's lines are
        # its text's lines counted from there (a JSON message's '{', an HTML message's markup). A text export
        # (WhatsApp's) has no such line, the line before being the day before's last message: its day line is a
        # lead (Section.lead), its first message's line the section's first (a hit began a line early, that message
        # in it)
        start = first - markup if first else sections[-1].end_line + 1 if sections else 1
        start = min(max(1, start), max(1, lines))
        sections.append(Section(text="\n".join(said), heading_path=[f"{place} · {when.date().isoformat()}"],
                                start_line=start, end_line=max(start, after - 1), dated=moment(when), made=True,
                                lead=0 if markup else 1, marks=() if markup else _marks(day)))
    return Document(kind="note", title=title, sections=sections,
                    meta={**(meta or {}), "days": len(sections), "messages": len(messages),
                          "first_day": sections[0].heading_path[0] if sections else None,
                          **speakers_of([message.who for message in messages])})


# A chat's speakers, as its meta names them ("speakers"): the author filter takes a passage's line for a message's
# head only where it starts with one of them and ': ' (search.query.authors.speakers), for a line of a message over
# several may start 'Note: …' too. Past MAX_SPEAKERS (a huge group's export) none are named, and any line so
# begun is a head, as before.
MAX_SPEAKERS = 10_000


def speakers_of(names: list[str] | None) -> dict:
    """{"speakers": the names, each once, in the order first said} of a chat's messages; {} for more than
    MAX_SPEAKERS, or None (a part's not known)."""
    if names is None:
        return {}
    said = list(dict.fromkeys(names))  # as its messages' lines begin (``_line``)
    return {"speakers": said} if len(said) <= MAX_SPEAKERS else {}


def _speakers_of_parts(parts: list[Document]) -> list[str] | None:
    """The speakers the ``parts`` (a chat's conversations) name, each once; None where a part names none."""
    named = [part.meta.get("speakers") for part in parts]
    return None if any(names is None for names in named) else [name for names in named for name in names]


def _marks(day: list[Message]) -> tuple[tuple[int, int], ...]:
    """Of a text export's day (WhatsApp's), (its text's line, the file's) of each message's first line, its day
    line the text's line 0: the lines between that the text leaves out (a notice, 'Anna added Bo', a deleted
    message) made a passage cut from inside the day a line early for each one before it."""
    marks, at = [], 1
    for message in day:
        if message.line:  # its text's first line: below its head, or a file's name ('<attached: …>' over a caption)
            marks.append((at, message.line + message.lead))
        at += _line(message).count("\n") + 1
    return tuple(marks)


def _line(message: Message) -> str:
    """'Anna: the invoice format is fine', a line of the message's text below its first that reads as a message's
    head ('Ben Okafor: yes' of a quote or a pasted log) set in by a space: only a message's first line names its
    speaker (search.query.authors.speakers), where a quoted 'Ben Okafor: yes' counted Ben among the day's."""
    first, *rest = [line.rstrip() for line in message.text.strip().split("\n")]
    text = "\n".join([first, *(f" {line}" if ": " in line and not line[:1].isspace() else line for line in rest)])
    attached = " ".join(f"[attached: {name}]" for name in message.attached)
    return f"{message.who}: " + " ".join(part for part in (text, attached) if part)


def _locate(text: str, key: re.Pattern, values: list[str]) -> list[int]:
    """The line (1-based) of each of ``values`` (a message's id or timestamp, in order) where ``key`` (its field as
    the file writes it, the value its group) holds it: the first after the one before (a Slack thread's parent names
    its replies' timestamps above them); 0 for one not found. One pass over the text, however many messages."""
    at: dict[str, list[int]] = {}
    line, last = 1, 0
    for found in key.finditer(text):
        line += text.count("\n", last, found.start())
        last = found.start()
        at.setdefault(found[1], []).append(line)
    lines, floor = [], 0
    for value in values:
        seen = at.get(value, [])
        index = bisect_left(seen, floor)
        lines.append(seen[index] if index < len(seen) else 0)
        floor = lines[-1] or floor
    return lines


def _count_lines(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n"))


# Telegram

TELEGRAM_TYPES = {"message", "service"}
TELEGRAM_ID = re.compile(r'"id":\s*(-?\d+)(?![\w.])')  # a message's id as the export writes it ('"id": 4,')


def telegram_chats(value) -> list[dict] | None:
    """The chats of a Telegram export (one chat's result.json, or a whole account's ``chats.list``); None when
    ``value`` is no such thing."""
    if isinstance(value, dict) and isinstance(value.get("chats"), dict) and "messages" not in value:
        chats = value["chats"].get("list")
        if isinstance(chats, list) and chats and all(_telegram_chat(chat) for chat in chats):
            return chats
        return None
    return [value] if _telegram_chat(value) else None


def _telegram_chat(value) -> bool:
    if not isinstance(value, dict) or not {"type", "id", "messages"} <= value.keys():
        return False
    messages = value["messages"]
    return isinstance(messages, list) and bool(messages) and all(
        isinstance(m, dict) and m.get("type") in TELEGRAM_TYPES and isinstance(m.get("date"), str) for m in messages)


def parse_telegram(path: str, text: str, chats: list[dict]) -> Document:
    messages = []
    for chat in chats:
        place = str(chat.get("name") or ("Saved Messages" if chat.get("type") == "saved_messages" else "Telegram"))
        kept = []
        for item in chat["messages"]:
            when = _iso(item.get("date"))
            if item.get("type") != "message" or when is None:
                continue  # a service message: joined, pinned, a call, the group's new name
            said = _telegram_text(item.get("text"))
            sticker = item.get("media_type") == "sticker"
            attached = [name for name in (None if sticker else _file_name(item.get("file_name") or item.get("file")),
                                          _file_name(item.get("photo"))) if name]
            if sticker:
                said = " ".join(part for part in (said, "[sticker]") if part.strip())
            if not said.strip() and not attached:
                continue  # a poll, a location without a word
            who = str(item.get("from") or "Deleted Account")
            if isinstance(item.get("forwarded_from"), str) and item["forwarded_from"].strip():
                who += f" (forwarded from {item['forwarded_from'].strip()})"  # its words are another's
            kept.append((item, Message(when, who, said, attached=attached)))
        where = _locate(text, TELEGRAM_ID, [str(item.get("id")) for item, _ in kept])
        for (_, message), line in zip(kept, where):
            message.line = line
        messages.append((place, [message for _, message in kept]))
    if len(messages) == 1:
        place, said = messages[0]
        return conversation(place, place, said, _count_lines(text), {"chat_export": "a Telegram chat export"})
    doc = Document(kind="note", title=Path(path).name, sections=[],
                   meta={"chat_export": f"a Telegram export of {len(messages):,} chats", "days": 0, "messages": 0})
    for place, said in messages:  # a whole account: each chat's days, one after another
        part = conversation(place, place, said, _count_lines(text))
        doc.sections += part.sections
        doc.meta["messages"] += part.meta["messages"]
        doc.meta["days"] += part.meta["days"]
        doc.meta["first_day"] = doc.meta.get("first_day") or part.meta["first_day"]
    doc.meta.update(speakers_of([message.who for _, said in messages for message in said]))
    return doc


def _telegram_text(value) -> str:
    """A message's text: a string, or a list of strings and entities ({'type': 'link', 'text': …})."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part if isinstance(part, str) else str(part.get("text", "")) if isinstance(part, dict) else ""
                       for part in value)
    return ""


def _file_name(value) -> str:
    """An attachment's name as the export keeps it ('files/invoice.pdf' → 'invoice.pdf'); '' for none, or one the
    export left out ('(File not included. Change data exporting settings to download.)')."""
    if not isinstance(value, str) or not value.strip() or value.startswith("("):
        return ""
    return value.replace("\\", "/").rsplit("/", 1)[-1]


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _iso(value) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


# Telegram's HTML export (Telegram Desktop's default: 'ChatExport_2024-03-14/messages.html', messages2.html … a
# thousand messages a file), a message a <div class="message default clearfix" id="message3">, its time in its date
# div's title ('14.03.2024 09:15:02 UTC+01:00'), its author's name in from_name (none in a 'joined' one: the last
# author's again), its words in its text div, a forward's in a 'forwarded body' div

TELEGRAM_PAGE = re.compile(r'<div class="page_body chat_page">')
TELEGRAM_MESSAGE = re.compile(r'<div class="message (default|service)[^"]*" id="message-?\d+"')
TELEGRAM_TIME = re.compile(r'class="pull_right date details" title="(\d\d)\.(\d\d)\.(\d{4}) (\d\d):(\d\d):(\d\d)'
                           r'(?: UTC([+-]\d\d):(\d\d))?"')
TELEGRAM_FROM = re.compile(r'<div class="from_name">([^<]*)')  # the name's text, as the export escapes it
TELEGRAM_MEDIA = re.compile(r'<a class="(?:media|photo_wrap|video_file_wrap|sticker_wrap|animated_wrap) [^"]*" '
                            r'href="([^"]+)"')
TAG = re.compile(r"<[^>]+>")


def is_telegram_html(text: str) -> bool:
    """Whether ``text`` (an .html file's, or its first bytes) is a page of Telegram's HTML export of a chat."""
    return TELEGRAM_PAGE.search(text) is not None


def parse_telegram_html(path: str, text: str) -> Document:
    """A page of Telegram's HTML export as its conversation, named by the page's header (its chat's name)."""
    place = telegram_chat_name(text) or "Telegram"
    return conversation(place, place, telegram_html_messages(text), _count_lines(text),
                        {"chat_export": "a Telegram chat export (HTML)"})


# Telegram Desktop writes a chat's pages a thousand messages each (messages.html, messages2.html …), each page from a
# day's header, so a day going on from one page to the next was two sections of one heading in two files, its
# morning in one and its afternoon in the other, and nothing said so. Where the page before ends on the day a page
# begins with (or the next begins on the day it ends with), its heading says so: 'Accounts team · 2024-03-14
# (continued from messages.html)', '… (continues in messages2.html)'. (Zipped, the pages are read as one: a day is one.)
TELEGRAM_PAGE_NAME = re.compile(r"messages(\d*)\.html?", re.IGNORECASE)
PAGE_EDGE_BYTES = 256 * 1024  # of a page beside, what is read for its first or last message's day


def mark_continued_days(doc: Document, full: Path) -> None:
    """Say in the headings of ``doc`` (a Telegram HTML page's, read from ``full``) where its first day began on the
    page before or its last day goes on in the next (``telegram_page_day`` of the pages beside it)."""
    found = TELEGRAM_PAGE_NAME.fullmatch(full.name)
    if not found or not doc.sections or doc.meta.get("chat_export") != "a Telegram chat export (HTML)":
        return
    number = int(found[1] or 1)
    ending = full.name[found.end(1):]  # '.html', as the export names its pages
    before = full.with_name(f"messages{number - 1 if number > 2 else ''}{ending}") if number > 1 else None
    after = full.with_name(f"messages{number + 1}{ending}")
    first, last = doc.sections[0], doc.sections[-1]
    if before is not None and _day_of(first) and telegram_page_day(before, last=True) == _day_of(first):
        first.heading_path = [f"{first.heading_path[0]} (continued from {before.name})", *first.heading_path[1:]]
    if _day_of(last) and telegram_page_day(after, last=False) == _day_of(last):
        last.heading_path = [f"{last.heading_path[0]} (continues in {after.name})", *last.heading_path[1:]]


def telegram_pages_beside(name: str) -> list[str]:
    """The names of the pages beside a page of Telegram's HTML export named ``name`` ('messages2.html':
    messages.html and messages3.html), whose headings say whether a day goes on into it; [] for a name no page's."""
    folder, _, base = name.rpartition("/")
    found = TELEGRAM_PAGE_NAME.fullmatch(base)
    if not found:
        return []
    number, ending = int(found[1] or 1), base[found.end(1):]
    beside = ([f"messages{number - 1 if number > 2 else ''}{ending}"] if number > 1 else []) + \
        [f"messages{number + 1}{ending}"]
    return [f"{folder}/{page}" if folder else page for page in beside]


def pages_to_mark_again(root: Path, changed, unchanged) -> set[str]:
    """Of the ``unchanged`` files (a collection's paths), the pages of Telegram's HTML export beside a ``changed``
    one (changed, added or gone): a page's '(continues in messages2.html)' is of the page beside, so it is read
    again with it (only its first bytes are looked at here, for a page's markup)."""
    again = set()
    for path in changed:
        for page in telegram_pages_beside(path):
            if page in unchanged and page not in again:
                try:
                    with open(Path(root) / page, "rb") as f:
                        head = f.read(PAGE_HEAD_BYTES).decode("utf-8", "replace")
                except OSError:
                    continue  # gone since the walk: parse says so
                if is_telegram_html(head):
                    again.add(page)
    return again


PAGE_HEAD_BYTES = 16 * 1024  # of a page beside a changed one, what is read to tell Telegram's (its page_body div)


def _day_of(section: Section) -> str:
    """The day a conversation's section is of, as its heading ends ('#general · 2024-03-14'): '2024-03-14'."""
    return section.heading_path[0].rsplit(" · ", 1)[-1][:10] if section.heading_path else ""


def telegram_page_day(page: Path, last: bool) -> str | None:
    """The day ('2024-03-14') of the first (or ``last``) message of a page of Telegram's HTML export, from its first
    (or last) PAGE_EDGE_BYTES; None for no such page, or one of no message there."""
    try:
        with open(page, "rb") as f:
            if last:
                f.seek(max(0, f.seek(0, os.SEEK_END) - PAGE_EDGE_BYTES))
            text = f.read(PAGE_EDGE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    times = list(TELEGRAM_TIME.finditer(text)) if last else [TELEGRAM_TIME.search(text)]
    when = _telegram_html_time(times[-1] if times and times[-1] else None)
    return when.date().isoformat() if when else None


def telegram_html_messages(text: str) -> list[Message]:
    """The messages of a page of Telegram's HTML export in order, each at the line of its div; its service
    messages (a day's header, a join, a pin) and those of no words nor attachment (a poll, a location) left out."""
    messages, who = [], "Deleted Account"
    starts = list(TELEGRAM_MESSAGE.finditer(text))
    line, last = 1, 0
    for n, start in enumerate(starts):
        line += text.count("\n", last, start.start())
        last = start.start()
        if start[1] == "service":
            continue  # a day's header, a join, a pin, the group's new name
        block = text[start.end():starts[n + 1].start() if n + 1 < len(starts) else len(text)]
        own, _, forwarded = block.partition('<div class="forwarded body">')
        when = _telegram_html_time(TELEGRAM_TIME.search(own))
        if when is None:
            continue
        author = TELEGRAM_FROM.search(own)
        who = _html_text(author[1]) if author else who  # a 'joined' message: the author of the one before
        said_in = forwarded or own
        said = _html_text(_between(said_in, '<div class="text">', "</div>"))
        attached, sticker = [], False
        for href in TELEGRAM_MEDIA.findall(said_in):
            sticker = sticker or href.startswith("stickers/")
            name = "" if href.startswith(("stickers/", "http")) else _file_name(html.unescape(href))
            attached += [name] if name else []
        if sticker:
            said = " ".join(part for part in (said, "[sticker]") if part)
        if not said and not attached:
            continue
        name = who
        if forwarded:
            source = TELEGRAM_FROM.search(forwarded)
            name += f" (forwarded from {_html_text(source[1])})" if source and _html_text(source[1]) else ""
        messages.append(Message(when, name, said, line=line, attached=attached))
    return messages


def telegram_chat_name(text: str) -> str:
    """The chat's name a page of Telegram's HTML export is headed by ('' for none), from its first TOLD_BYTES."""
    header = _between(text[:TOLD_BYTES], '<div class="page_header">', '<div class="page_body')
    return _html_text(_between(header, '<div class="text bold">', "<"))


def _between(text: str, start: str, end: str) -> str:
    """What ``text`` holds from its first ``start`` to the ``end`` after it (to its end without one); ''
    without ``start``. str.find: a regular expression's lazy match went again from each ``start`` without an end."""
    at = text.find(start)
    if at < 0:
        return ""
    after = text.find(end, at + len(start))
    return text[at + len(start):after if after >= 0 else len(text)]


def _telegram_html_time(found: re.Match | None) -> datetime | None:
    """A message's time from its date div's title: '14.03.2024 09:15:02 UTC+01:00' (older exports: no zone)."""
    from datetime import timedelta, timezone
    if found is None:
        return None
    day, month, year, hour, minute, second, zone_hours, zone_minutes = found.groups()
    try:
        when = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second))
        if zone_hours:
            sign = -1 if zone_hours.startswith("-") else 1
            when = when.replace(tzinfo=timezone(sign * timedelta(hours=abs(int(zone_hours)),
                                                                 minutes=int(zone_minutes))))
    except ValueError:  # a day or a zone no clock has ('UTC+25:00')
        return None
    return when


def _html_text(fragment: str) -> str:
    """An HTML fragment's words: a <br> a line break, its tags dropped, its entities read, each line stripped."""
    fragment = re.sub(r"(?i)<br\s*/?>", "\n", fragment)
    text = html.unescape(TAG.sub("", fragment))
    return "\n".join(line.strip() for line in text.strip().split("\n")).strip()


# DiscordChatExporter

DISCORD_ID = re.compile(r'"id":\s*"(\d+)"')
DISCORD_KEPT = {"Default", "Reply", "ThreadStarterMessage", "ApplicationCommand", "ContextMenuCommand"}


def is_discord(value) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("guild"), dict) \
            or not isinstance(value.get("channel"), dict):
        return False
    messages = value.get("messages")
    return isinstance(messages, list) and bool(messages) and all(
        isinstance(m, dict) and isinstance(m.get("timestamp"), str) and isinstance(m.get("author"), dict)
        and "content" in m for m in messages)


def parse_discord(path: str, text: str, value: dict) -> Document:
    guild, channel = value["guild"], value["channel"]
    name = str(channel.get("name") or "channel")
    place = name if channel.get("type") in ("DirectTextChat", "DirectGroupTextChat") else f"#{name}"
    kept = []
    for item in value["messages"]:
        when = _iso(item["timestamp"])
        if when is None or item.get("type", "Default") not in DISCORD_KEPT:
            continue  # a member joined, a pin, a call, a thread made
        author = item["author"]
        who = str(author.get("nickname") or author.get("name") or "unknown")
        attached = [_file_name(a.get("fileName")) for a in _list(item.get("attachments")) if isinstance(a, dict)]
        said = "\n".join(part for part in [str(item.get("content") or ""), *_embeds(item.get("embeds"))] if part)
        if _list(item.get("stickers")):
            said = " ".join(part for part in (said, "[sticker]") if part)
        if not said.strip() and not any(attached):
            continue
        # the day and time the export writes (its exporter's clock), as a mail's Date is read (ingest.mail.as_written):
        # read as the instant, '2024-03-14T23:30:00-05:00' was dated the 15th on a machine in UTC
        kept.append((item, Message(when.replace(tzinfo=None), who, said, attached=[a for a in attached if a])))
    where = _locate(text, DISCORD_ID, [str(item.get("id")) for item, _ in kept])
    for (_, message), line in zip(kept, where):
        message.line = line
    title = " · ".join(str(part) for part in (guild.get("name"), place) if part)
    return conversation(title, place, [message for _, message in kept], _count_lines(text),
                        {"chat_export": "a DiscordChatExporter export"})


def _embeds(value) -> list[str]:
    """A Discord message's embeds as read: a link's preview, a bot's card: '[embed: its title] its description'
    and its fields' 'name: value' (their words were left out: a bot's alert said nothing but its card)."""
    shown = []
    for embed in _list(value):
        if not isinstance(embed, dict):
            continue
        title, about = (str(embed.get(key) or "").strip() for key in ("title", "description"))
        fields = [f"{str(f.get('name') or '').strip()}: {str(f.get('value') or '').strip()}"
                  for f in _list(embed.get("fields")) if isinstance(f, dict) and (f.get("name") or f.get("value"))]
        said = " ".join(part for part in ((f"[embed: {title}]" if title else "[embed]") if title or about or fields
                                          else "", about, *fields) if part)
        if said:
            shown.append(said)
    return shown


def parse_chat_json(path: str, text: str) -> Document | None:
    """A Telegram or DiscordChatExporter export's conversation; None for any other JSON (read as before)."""
    if '"messages"' not in text:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    chats = telegram_chats(value)
    if chats is not None:
        return parse_telegram(path, text, chats)
    if is_discord(value):
        return parse_discord(path, text, value)
    return None


# Slack

SLACK_TS = re.compile(r'"ts":\s*"([^"\\]+)"')
SLACK_DAY = re.compile(r"\d{4}-\d\d-\d\d\.json")
SLACK_LISTS = ("channels.json", "groups.json", "mpims.json", "dms.json")  # a channel's, a private one's, a DM's
# a Slack message's subtypes that are someone saying something; the rest (channel_join, channel_topic, pinned_item,
# bot_add …) is Slack's own notice
SLACK_SAID = {None, "thread_broadcast", "file_share", "bot_message", "me_message", "file_comment"}


def slack_day(full: Path) -> tuple[dict[str, str], str] | None:
    """Of a Slack export's channel day (``<export>/general/2024-03-14.json``, ``users.json`` and ``channels.json``
    beside its folder): each user id's name, and where it was said: '#general', or a direct message's or a group
    message's people ('Alice Smith, Bob Jones': their folder is named by an id, 'D024BE7LH', or 'mpdm-alice--bob-1').
    None for any other file."""
    if not SLACK_DAY.fullmatch(full.name):
        return None
    export = full.parent.parent
    if not any((export / name).is_file() for name in SLACK_LISTS):
        return None
    listed = _json_file(export / "users.json")
    if not isinstance(listed, list):
        return None
    users = {str(user["id"]): _slack_name(user) for user in listed if isinstance(user, dict) and "id" in user}
    folder = full.parent.name
    for name in ("dms.json", "mpims.json"):
        found = next((item for item in _json_file(export / name) or [] if isinstance(item, dict)
                      and folder in (item.get("id"), item.get("name"))), None)
        if found is not None and isinstance(found.get("members"), list):
            return users, ", ".join(users.get(str(member), str(member)) for member in found["members"])
    return users, f"#{folder}"


# a Slack export's own lists beside its channels' folders: what of them is read, read into the days (ingest.files
# skips them: 'Ana Ruiz' found the raw users.json, its ids, avatars and time zones, second after her messages)
SLACK_METADATA = {
    "users.json": "users: their names are read into its days (a message's author, a mention)",
    "channels.json": "channels: their names are read into its days' headings ('#general · 2024-03-14')",
    "groups.json": "private channels: their names are read into its days' headings",
    "dms.json": "direct messages: their people are read into its days' headings",
    "mpims.json": "group messages: their people are read into its days' headings",
    "integration_logs.json": "log of apps added and removed: Slack's own notices, no conversation",
    "canvases.json": "list of canvases: their ids and names, no conversation",
}


def slack_metadata(full: Path) -> str | None:
    """Why ``full``, a Slack export's own list (SLACK_METADATA: users.json, channels.json …), is not read as a file
    of its own; None for any other file, a users.json of no Slack export among them. A Slack export as slack_day
    tells it: users.json (a list) beside a channel list and a folder of day files (``general/2024-03-14.json``)."""
    why = SLACK_METADATA.get(full.name)
    export = full.parent
    if why is None or not any((export / name).is_file() for name in SLACK_LISTS) \
            or not isinstance(_json_file(export / "users.json"), list):
        return None
    try:
        folders = [entry.path for entry in os.scandir(export) if entry.is_dir(follow_symlinks=False)]
        if not any(SLACK_DAY.fullmatch(name) for folder in folders for name in os.listdir(folder)):
            return None
    except OSError:
        return None
    return f"a Slack export's {why}"


def _json_file(path: Path):
    """A JSON file's value (users.json, dms.json); None for none or one that is no JSON. Kept while the file is
    unchanged: each day file of an export asks it (a workspace of 10,000 users' users.json is megabytes)."""
    try:
        seen = path.stat()
    except OSError:
        return None
    return _json_value(str(path), seen.st_size, seen.st_mtime_ns)


@lru_cache(maxsize=4)
def _json_value(path: str, size: int, mtime: int):
    try:
        return json.loads(Path(path).read_bytes())
    except (OSError, ValueError, RecursionError):
        return None


def _slack_name(user: dict) -> str:
    profile = user.get("profile") if isinstance(user.get("profile"), dict) else {}
    for name in (profile.get("real_name"), user.get("real_name"), profile.get("display_name"), user.get("name")):
        if isinstance(name, str) and name.strip():
            return name.strip()
    return str(user.get("id"))


def parse_slack_day(path: str, data: bytes, users: dict[str, str], place: str) -> Document | None:
    """A Slack channel's day (a JSON array of its messages) as a conversation; None for a file of another shape."""
    try:
        text = data.decode("utf-8-sig")
        value = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(value, list) or not all(isinstance(m, dict) and "ts" in m for m in value):
        return None
    kept = []
    for item in value:
        try:
            when = datetime.fromtimestamp(float(item["ts"]))
        except (TypeError, ValueError, OverflowError, OSError):
            continue
        if item.get("type", "message") != "message" or item.get("subtype") not in SLACK_SAID:
            continue
        profile = item.get("user_profile") if isinstance(item.get("user_profile"), dict) else {}
        who = users.get(str(item.get("user"))) or profile.get("real_name") or item.get("username") \
            or str(item.get("user") or item.get("bot_id") or "unknown")
        attached = [_file_name(f.get("name") or f.get("title")) for f in _list(item.get("files"))
                    if isinstance(f, dict)]
        said = slack_text(str(item.get("text") or ""), users)
        if not said.strip() and not any(attached):
            continue
        kept.append((item, Message(when, str(who), said, attached=[a for a in attached if a])))
    kept.sort(key=lambda pair: pair[1].when)  # as said: a thread's replies are in order already
    where = _locate(text, SLACK_TS, [str(item["ts"]) for item, _ in kept])
    lines = text.split("\n")
    for (_, message), line in zip(kept, where):
        message.line = _first_key(lines, line)
    return conversation(place, place, [message for _, message in kept], _count_lines(text),
                        {"chat_export": "a Slack export's channel day"})


def _first_key(lines: list[str], line: int) -> int:
    """The line (1-based) of the first key of the message whose ``"ts"`` is at ``line``: the one after the '{'
    opening it, the nearest line above less indented (Slack writes ``"text"`` and ``"user"`` before ``"ts"``: a
    day's lines began below its first message's text, read_file at its heading showed the message's ids alone)."""
    if not line or line > len(lines):
        return line
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    for at in range(line - 1, max(line - 200, 0), -1):  # 1-based ``at``: the lines above ``line``
        above = lines[at - 1]
        if above.strip() and len(above) - len(above.lstrip()) < indent:
            return at + 1 if above.rstrip().endswith("{") else line
    return line


SLACK_MARK = re.compile(r"<([@#!])([^<>|]*)(?:\|([^<>]*))?>|<([^<>|]+)(?:\|([^<>]*))?>")


def slack_text(text: str, users: dict[str, str]) -> str:
    """Slack's markup as read: '<@U024BE7LH>' → '@Anna Keller', '<#C024BE7LF|general>' → '#general',
    '<https://…|the invoice>' → 'the invoice (https://…)', '<!here>' → '@here'; '&lt;' '&gt;' '&amp;' as their
    characters."""
    def shown(found: re.Match) -> str:
        mark, ident, label, address, named = found.groups()
        if mark == "@":
            return "@" + (users.get(ident) or label or ident)
        if mark == "#":
            return "#" + (label or ident)
        if mark == "!":
            return (label or "@" + ident.split("^", 1)[0]) if label or ident else ""
        address = address.removeprefix("mailto:")
        return f"{named} ({address})" if named and named != address else address
    return html.unescape(SLACK_MARK.sub(shown, text))


# WhatsApp

# a 12-hour clock's half of the day written before the hour, as a Chinese or Japanese phone writes it ('2024/3/14
# 下午3:02 - 王医生: …', '午後3:02'): such an export was read as plain text, its messages one run of lines
HALF_BEFORE = r"(?:(?P<before>上午|下午|午前|午後)\s?)?"
HALF_AFTER = {"上午": "a", "午前": "a", "下午": "p", "午後": "p"}
# a message's first line: '14/03/2024, 09:15 - Anna: …' (Android), '[14/03/2024, 09:15:02] Anna: …' (iPhone), the
# date's parts by '/', '.' or '-', the year of 2 or 4 digits, a 12-hour time with its AM/PM (after a narrow space)
WHATSAPP_LINE = re.compile(
    r"^[\u200e\u200f]?\[?(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{2}|\d{4}),? " + HALF_BEFORE + r"(\d{1,2})[:.](\d\d)"
    r"(?:[:.](\d\d))?(?:[\s\u202f\u00a0]*(?P<half>[AaPp])\.?\s?[Mm]\.?)?(?:\] | - )(?P<said>.*)$")
WHATSAPP_HEAD_LINES = 20  # of the first lines, one must be a message with its author
# year first ('2024-03-14 09:15 - Anna: …', some Swedish and Chinese phones; '[2024-03-14 09:15:02] Anna: …'): a
# log's line too ('2024-03-14 09:15 - INFO: started'), so told by more of its lines (YEAR_FIRST_LINES, below)
WHATSAPP_YEAR_LINE = re.compile(
    r"^[\u200e\u200f]?\[?(\d{4})[/.\-](\d{1,2})[/.\-](\d{1,2}),? " + HALF_BEFORE + r"(\d{1,2})[:.](\d\d)"
    r"(?:[:.](\d\d))?(?:[\s\u202f\u00a0]*(?P<half>[AaPp])\.?\s?[Mm]\.?)?(?:\] | - )(?P<said>.*)$")
YEAR_FIRST_LINES = 200  # of the first lines read to tell a year-first chat from a log
YEAR_FIRST_SAID = 0.8  # of its dated lines, those of an author and a colon ('Anna: …'); a notice is not (one is
# allowed however few lines: 'Messages and calls are end-to-end encrypted' heads every export)
# an author no person is: a log's level or its logger ('INFO', 'app.server', 'uvicorn.error', '[main]', 'db_pool');
# a person may be a phone number ('+46 70 123 45 67') or 'Dr. Anna'
LOG_AUTHOR = re.compile(r"(?i)(trace|debug|info|notice|warn|warning|error|err|critical|crit|fatal|severe|alert|"
                        r"emerg|emergency|stdout|stderr)|.*(\w\.\w|[_/\\\[\]=<>{}|]).*")
NAME = re.compile(r"([^:\n]{1,80}?): (.*)$", re.DOTALL)
MEDIA = re.compile(r"^<?(Media omitted|(?:image|video|audio|sticker|GIF|document) omitted)>?$", re.IGNORECASE)
ATTACHED = re.compile(r"^<attached: ([^>]+)>$|^(.+\.\w{2,5}) \(file attached\)$")
# an iPhone's document or location sent, marked left-to-right as its notices are: '‎Invoice.pdf • ‎2 pages ‎document
# omitted', '‎Location: https://maps.google.com/?q=…'. Both were taken for notices and left out: the file Anna sent
# on Tuesday, and where to meet, were not found
DOCUMENT_OMITTED = re.compile(r"^(.+?\.\w{1,5})\s*•.*\bdocument omitted$", re.IGNORECASE | re.DOTALL)
LOCATION = re.compile(r"^(?:Location|Live location shared): https?://\S+$", re.IGNORECASE)
DIRECTION = "\u200e\u200f"
DELETED = {"this message was deleted", "this message was deleted.", "you deleted this message",
           "you deleted this message.", "null"}  # what a deleted message leaves (Android writes 'null' for some)
EDITED = re.compile(r"\s*<This message was edited>$")  # what an edited message's last line ends in


def is_whatsapp(text: str) -> bool:
    """Whether ``text`` is a WhatsApp chat export: its first line a message's or a notice's, one of its first lines
    a message with its author."""
    lines = text.lstrip("\ufeff").split("\n", WHATSAPP_HEAD_LINES)[:WHATSAPP_HEAD_LINES]
    if lines and WHATSAPP_YEAR_LINE.match(lines[0].rstrip("\r")):
        return _year_first(text)
    if not lines or not WHATSAPP_LINE.match(lines[0].rstrip("\r")):
        return False
    return any((found := WHATSAPP_LINE.match(line.rstrip("\r"))) and NAME.match(found["said"]) for line in lines)


def _year_first(text: str) -> bool:
    """Whether ``text``, its first line dated year first, is a WhatsApp chat, not a log: of its first
    YEAR_FIRST_LINES lines, YEAR_FIRST_SAID of those dated (all but one of a few) are someone's ('Anna: …'), at
    least two, and no author is a log's level or logger ('INFO: started', 'app.db: connected')."""
    heads = [found for line in text.lstrip("\ufeff").split("\n", YEAR_FIRST_LINES)[:YEAR_FIRST_LINES]
             if (found := WHATSAPP_YEAR_LINE.match(line.rstrip("\r")))]
    authors = [said[1].strip(DIRECTION + " ") for found in heads if (said := NAME.match(found["said"]))]
    return len(authors) >= 2 and len(heads) - len(authors) <= max(1, (1 - YEAR_FIRST_SAID) * len(heads)) \
        and not any(LOG_AUTHOR.fullmatch(author) for author in authors)


def parse_whatsapp(path: str, text: str) -> Document:
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    pattern = WHATSAPP_YEAR_LINE if WHATSAPP_YEAR_LINE.match(lines[0]) else WHATSAPP_LINE
    heads = [(at, found) for at, line in enumerate(lines) if (found := pattern.match(line))]
    day_first = _day_first([found for _, found in heads])
    messages: list[Message] = []
    for index, (at, found) in enumerate(heads):
        end = heads[index + 1][0] if index + 1 < len(heads) else len(lines)
        # a message whose text starts on the next line: 'Ben: ' (or 'Ben:', its space trimmed) ends the head line
        said = NAME.match(found["said"] + (" " if found["said"].endswith(":") and end > at + 1 else ""))
        when = _whatsapp_time(found, day_first)
        if said is None or when is None:
            continue  # a notice: 'Messages and calls are end-to-end encrypted', 'Anna added Bo'
        raw = [said[2], *lines[at + 1:end]]
        lead = _blank_lines(raw)  # a head line bare of words: its text is below it
        body = "\n".join(raw[lead:]).rstrip()
        bare = body.replace("\u200e", "").strip(DIRECTION + " ")  # an iPhone's marks inside it too ('• ‎2 pages')
        # a file sent with words is its name's line over theirs: an iPhone's (its name marked) was left out whole
        if body.lstrip().startswith(tuple(DIRECTION)) and not ATTACHED.match(bare.split("\n", 1)[0]) and not any(
                form.match(bare) for form in (MEDIA, DOCUMENT_OMITTED, LOCATION)):
            continue  # an iPhone's notice, marked left-to-right: '‎Anna changed the group name'
        body = EDITED.sub("", bare)
        if (document := DOCUMENT_OMITTED.match(body)) is not None:
            body = f"<attached: {document[1]}>"  # named as a file sent with the export is
        if body.lower() in DELETED:
            continue  # nothing said any more
        attached = []
        file = ATTACHED.match(body.split("\n", 1)[0])
        if file:
            attached.append(file[1] or file[2])
            body = body.split("\n", 1)[1] if "\n" in body else ""
            lead += (1 + _blank_lines(raw[lead + 1:])) if body.strip() else 0  # its caption's line, below the name's
        elif MEDIA.match(body):
            body = f"[{MEDIA.match(body)[1].lower()}]"
        messages.append(Message(when, said[1].strip(DIRECTION + " "), body, line=at + 1, attached=attached,
                                lead=lead))
    stem = Path(path).name.rsplit(".", 1)[0]
    title = "WhatsApp chat" if stem.strip("_").lower() == "chat" else stem
    return conversation(title, title, messages, len(lines) - (not lines[-1]),
                        {"chat_export": "a WhatsApp chat export"}, markup=False)


def _blank_lines(lines: list[str]) -> int:
    """How many of ``lines`` come before the first holding a word (an iPhone's direction marks are none)."""
    return next((n for n, line in enumerate(lines) if line.strip(DIRECTION + " \t")), len(lines))


def _day_first(found: list[re.Match]) -> bool:
    """Whether the file's dates are day/month (most of the world) or month/day (the US): told by a part over 12;
    when none is, a 12-hour clock's (AM/PM) are month/day, a 24-hour clock's day/month, and a Chinese one's (上午/下午
    before the hour: Hong Kong's, Singapore's '5/3/2024 下午3:02') day/month too: no phone writes month/day so."""
    if any(int(f[1]) > 12 for f in found):
        return True
    if any(int(f[2]) > 12 for f in found):
        return False
    return not any(f["half"] for f in found)


def _whatsapp_time(found: re.Match, day_first: bool) -> datetime | None:
    first, second, year, _, hour, minute, seconds, half = found.groups()[:8]
    half = half or HALF_AFTER.get(found["before"])
    day, month = (first, second) if day_first else (second, first)
    if found.re is WHATSAPP_YEAR_LINE:  # '2024-03-14': year, month, day
        year, month, day = first, second, year
    hour = int(hour)
    if half:
        hour = hour % 12 + (12 if half.lower() == "p" else 0)
    try:
        return datetime(int(year) + (2000 if len(year) == 2 else 0), int(month), int(day), hour, int(minute),
                        int(seconds or 0))
    except ValueError:
        return None


# read_file's heading

CHAT_READ_BYTES = 64 * 1024 * 1024  # of a file read again to find its days: as much as ingest reads of one
TOLD_BYTES = 64 * 1024  # of a text file read first: its first lines (YEAR_FIRST_LINES of them) tell WhatsApp's


def chat_headings(path: str, full: Path) -> list[tuple[str, int, int]] | None:
    """Each day of the chat export at ``full`` (``path`` its name in the collection) as read: (its heading,
    '#general · 2024-03-14', its first and last line in the file); None for a file no chat export (read_file's
    heading= then reads it as any other). The file is read as ingest reads it, whole, to CHAT_READ_BYTES."""
    from ingest.decode import decode, head_text
    from ingest import wechat
    ext = Path(path).suffix.lower()
    if ext not in (".json", ".txt", ".text", ".html", ".htm", ".csv"):
        return None
    try:
        if full.stat().st_size > CHAT_READ_BYTES:
            return None
        with open(full, "rb") as f:
            head = f.read(TOLD_BYTES)  # a text file's first lines tell WhatsApp's: no other is read whole
            whole = head_text(head)  # as the file is decoded: a GBK chat's names too
            told = whole.rsplit("\n", 1)[0]
            whatsapp = ext in (".txt", ".text") and is_whatsapp(told)
            # MemoTrace's page: its messages are one line, cut where its first bytes end
            if ext in (".html", ".htm") and not is_telegram_html(told) and not wechat.is_memotrace_html(whole) \
                    or ext in (".txt", ".text", ".csv") \
                    and not whatsapp and wechat.read(path, told) is None:  # WeChat's (ingest.wechat)
                return None
            data = head + f.read()
    except (OSError, Skip):
        return None
    slack = slack_day(full) if ext == ".json" else None
    if slack is not None:
        doc = parse_slack_day(path, data, *slack)
    else:
        text = decode(data)
        doc = parse_chat_json(path, text) if ext == ".json" else (
            parse_telegram_html(path, text) if is_telegram_html(told) else wechat.read_html(path, text)) \
            if ext in (".html", ".htm") else parse_whatsapp(path, text) if whatsapp else wechat.read(path, text)
    if doc is None:
        return None
    mark_continued_days(doc, full)  # as ingest.files reads it
    return [(section.heading_path[0], section.start_line, section.end_line) for section in doc.sections]


# An export still zipped: a Slack workspace's ('Acme Slack export Mar 1 2024 - Mar 14 2024.zip': its channels' day
# files, users.json) or a WhatsApp chat's with its media ('WhatsApp Chat with Anna.zip': _chat.txt), read as one
# file of conversations (ingest.kinds.CHAT_ZIP_NAME), its parts counted as they unzip (ingest.zipped)



def parse_chat_zip(path: str, data) -> Document:
    """A chat export still zipped as one document: each day a section, its lines those chat_zip_text shows
    (read_file reads them): its heading ('#general · 2024-03-14'), then its text."""
    return chat_zip_text(data, path)[1]


def chat_zip_text(data, path: str):
    """(ingest.word.WordText, Document) of the zip ``data`` (its bytes, or a binary file open on it): its days in
    order, a heading line each then its text's lines. Skip when it holds no chat export (``_zipped_days``), or
    unzips to more than ingest.zipped bounds (an export that big is read unzipped: a day file at a time)."""
    from ingest.zipped import opened
    try:
        with opened(data, "chat export", ".zip") as parts:
            what, days = _zipped_days(parts, path)
    except Skip as why:
        if "zip bomb" in str(why):  # a big workspace's export, likely, not a bomb: said so, with what to do
            counted = str(why).split(": a zip bomb", 1)[0]
            raise Skip(f"{counted}: more than Sift unzips of one file (its bound against zip bombs); an export this "
                       "big is read unzipped, a day file at a time: unzip it") from None
        raise
    if days is None:
        raise Skip("a .zip taken for a chat export holding none: no users.json and channel day files (Slack's), "
                   "no .txt that reads as WhatsApp's or WeChat's chat, no result.json (Telegram's) nor a "
                   "DiscordChatExporter JSON")
    read, kept = days_as_lines(Path(path).name.rsplit(".", 1)[0], [s for day in days for s in day.sections])
    return read, Document(kind="note", title=read.title, sections=kept,
                          meta={"chat_export": f"{what}, zipped",
                                "days": len(kept), "messages": sum(day.meta["messages"] for day in days),
                                "first_day": kept[0].heading_path[0] if kept else None,
                                **speakers_of(_speakers_of_parts(days))})


def days_as_lines(title: str, days: list[Section]):
    """(ingest.word.WordText, its sections) of a chat's ``days`` as read_file shows a file of no lines of its own
    (a zip, MemoTrace's one-line page): a heading line each then its text's lines, each section at its text's."""
    from ingest.word import WordText
    read, kept = WordText(title=title), []
    for section in days:
        read.headings.append((len(read.lines), 1, section.heading_path[0]))
        read.lines.append(section.heading_path[0])
        start = len(read.lines) + 1
        read.lines += section.text.split("\n")
        kept.append(Section(text=section.text, heading_path=section.heading_path, start_line=start,
                            end_line=len(read.lines), dated=section.dated))
    return read, kept


def _zipped_days(parts, path: str) -> tuple[str, list[Document] | None]:
    """What the zip holds ('a Slack export') and its conversations: Slack's days, Telegram's or Discord's chats, or
    WhatsApp's; None for none of them."""
    if "users.json" in parts.names:
        return "a Slack export", _zipped_slack(parts)
    found = _json_chats(parts.names, lambda name: _head(parts.open_unchecked(name)))
    from ingest.decode import decode
    if found is not None:
        what, names = found
        docs = [parse_chat_json(name, decode(parts.read(name))) for name in names]
        return what, [doc for doc in docs if doc is not None] or None
    pages = _telegram_pages(parts.names, lambda name: _head(parts.open_unchecked(name)))
    if pages:
        docs = []
        for folder, names in pages.items():  # a chat's pages, messages.html, messages2.html …: one conversation
            texts = [decode(parts.read(name)) for name in names]
            place = telegram_chat_name(texts[0]) or folder.rsplit("/", 1)[-1] or "Telegram"
            said = [message for text in texts for message in telegram_html_messages(text)]
            docs.append(conversation(place, place, said, 0))
        return "a Telegram export (HTML)", docs
    whatsapp = _zipped_whatsapp(parts, path)
    if whatsapp is not None:
        return "a WhatsApp chat export", whatsapp
    from ingest import wechat  # MemoTrace's TXT or CSV, zipped as it is shared
    chats = wechat.read_zipped(parts, lambda name: _head(parts.open_unchecked(name)))
    forms = {doc.meta["chat_export"] for doc in chats or []}
    return (forms.pop() if len(forms) == 1 else "a WeChat chat export"), chats


# Telegram's or DiscordChatExporter's JSON in a zip, at its top or a folder or two down ('ChatExport_2024-03-14/
# result.json', Telegram Desktop's folder zipped whole; 'Acme - billing [1234].json'), told by its first bytes
CHAT_JSON_PART = re.compile(r"(?:[^/]+/){0,2}[^/]+\.json", re.IGNORECASE)
TELEGRAM_HEAD = re.compile(r'\s*\{[\s\S]*(?:"messages"\s*:\s*\[\s*\{\s*"id"\s*:\s*-?\d'
                           r'|"personal_information"\s*:\s*\{)')
DISCORD_HEAD = re.compile(r'\s*\{\s*"guild"\s*:\s*\{')
CHAT_JSON_PEEKED = 64  # of a zip's .json parts, those whose first bytes are looked at to tell it a Discord export


def _json_chats(names, head, peeked: int | None = None) -> tuple[str, list[str]] | None:
    """('a Telegram export', its result.json parts) or ('a DiscordChatExporter export', its channels' parts) of a
    zip's part ``names``, ``head`` a part's first bytes as text; None for neither. With ``peeked``, the first that
    tells it alone, of at most that many .json parts looked at (a zip's kind is told so; read, all are)."""
    jsons = sorted(name for name in names if CHAT_JSON_PART.fullmatch(name))
    results = [name for name in jsons if name.rsplit("/", 1)[-1] == "result.json"]
    telegram = [name for name in (results[:peeked] if peeked else results) if TELEGRAM_HEAD.match(head(name))]
    if telegram:
        return "a Telegram export", telegram[:1] if peeked else telegram
    discord = []
    for name in jsons[:peeked] if peeked else jsons:
        if DISCORD_HEAD.match(head(name)):
            discord.append(name)
            if peeked:
                break
    return ("a DiscordChatExporter export", discord) if discord else None


TELEGRAM_HTML_PART = re.compile(r"((?:[^/]+/){0,3})messages(\d*)\.html")


def _telegram_pages(names, head, peeked: int | None = None) -> dict[str, list[str]]:
    """Of a zip's part ``names``, the pages of Telegram's HTML export a chat's folder ('ChatExport_2024-03-14/',
    'chats/chat_001/'; '' at its top) holds, in order (messages.html, messages2.html …), those whose folder's first
    page reads as one (``head``: a part's first bytes as text); with ``peeked``, of at most that many folders."""
    folders: dict[str, list[tuple[int, str]]] = {}
    for name in names:
        found = TELEGRAM_HTML_PART.fullmatch(name)
        if found:
            folders.setdefault(found[1], []).append((int(found[2] or 1), name))
    pages = {}
    for folder in sorted(folders)[:peeked] if peeked else sorted(folders):
        names_ = [name for _, name in sorted(folders[folder])]
        if is_telegram_html(head(names_[0])):
            pages[folder.rstrip("/")] = names_
            if peeked:
                break
    return pages


def _head(stream) -> str:
    """A zip part's first bytes as text, decoded as the file unzipped would be (a GBK chat's too)."""
    from ingest.decode import head_text
    with stream:
        return head_text(stream.read(CHAT_HEAD_BYTES)).lstrip("\ufeff")


def _zipped_slack(parts) -> list[Document] | None:
    """A Slack export's channel days, a channel's in order of its folder, then of its days."""
    listed = _zipped_json(parts, "users.json")
    if not isinstance(listed, list):
        return None
    users = {str(user["id"]): _slack_name(user) for user in listed if isinstance(user, dict) and "id" in user}
    groups = [item for name in ("dms.json", "mpims.json") for item in _zipped_json(parts, name) or []
              if isinstance(item, dict) and isinstance(item.get("members"), list)]
    days = sorted(name for name in parts.names if name.count("/") == 1 and SLACK_DAY.fullmatch(name.split("/")[1]))
    if not days:
        return None
    read = []
    for name in days:
        folder = name.split("/")[0]
        found = next((item for item in groups if folder in (item.get("id"), item.get("name"))), None)
        place = ", ".join(users.get(str(m), str(m)) for m in found["members"]) if found else f"#{folder}"
        day = parse_slack_day(name, parts.read(name), users, place)
        read += [day] if day is not None else []
    return read


def _zipped_json(parts, name: str):
    if name not in parts.names:
        return None
    try:
        return json.loads(parts.read(name))
    except (ValueError, RecursionError):
        return None


def _zipped_whatsapp(parts, path: str) -> list[Document] | None:
    """A WhatsApp export's chat (``_whatsapp_part``: '_chat.txt', 'WhatsApp Chat with Anna.txt' or any .txt at its
    top that reads as one), titled by the zip's name."""
    from ingest.decode import decode
    chat = _whatsapp_part(parts.names, lambda name: _head(parts.open_unchecked(name)))
    if chat is None:
        return None
    text = decode(parts.read(chat))
    if not is_whatsapp(text):
        return None
    return [parse_whatsapp(Path(path).name.rsplit(".", 1)[0] + ".txt", text)]


def _whatsapp_part(names, head) -> str | None:
    """Of a zip's part ``names``, its WhatsApp chat: a .txt at its top whose first lines (``head``: a part's first
    bytes as text) read as one, whatever its name, which is the phone's language's ('_chat.txt', 'WhatsApp Chat with
    Anna.txt', '与王医生的 WhatsApp 聊天.txt'); English-named ones looked at first, at most CHAT_JSON_PEEKED of all."""
    texts = sorted((name for name in names if "/" not in name and name.lower().endswith(".txt")),
                   key=lambda name: (name != "_chat.txt" and not name.lower().startswith("whatsapp chat"), name))
    for name in texts[:CHAT_JSON_PEEKED]:
        told = head(name)
        if is_whatsapp(told.rsplit("\n", 1)[0] if "\n" in told else told):
            return name
    return None


def zip_holds_chat(source) -> bool:
    """Whether the zip ``source`` (a path on disk, its bytes, or a binary file open on it) is a Slack workspace's
    export (``users.json`` at its top, with ``channels.json`` or a channel's day file, ``general/2024-03-14.json``),
    a WhatsApp chat's (a .txt at its top whose first bytes read as one, ``_whatsapp_part``), a Telegram export's
    (its ``result.json``) or a DiscordChatExporter one's (``_json_chats``), whatever its name: its directory is
    read (at most CHAT_DIRECTORY_BYTES of it) and the first CHAT_HEAD_BYTES of a WhatsApp chat's text or of
    CHAT_JSON_PEEKED JSON parts, nothing else. A file on disk is looked at once while unchanged
    (a scan asks of every .zip)."""
    if isinstance(source, (str, os.PathLike)):
        try:
            st = os.stat(source)
        except OSError:
            return False
        key = (os.fspath(source), st.st_size, st.st_mtime_ns, st.st_ino)
        if key not in _zips_seen:
            while len(_zips_seen) >= ZIPS_SEEN:
                _zips_seen.pop(next(iter(_zips_seen)))
            try:
                with open(source, "rb") as f:
                    _zips_seen[key] = _holds_chat(f)
            except OSError:
                return False
        return _zips_seen[key]
    if isinstance(source, (bytes, bytearray, memoryview)):
        import io
        return _holds_chat(io.BytesIO(source))
    at = source.tell()
    try:
        return _holds_chat(source)
    finally:
        source.seek(at)


CHAT_DIRECTORY_BYTES = 16 * 1024 * 1024  # of a zip's directory, what is read to tell a chat export (a 1-day-a-file
# Slack export of years holds a hundred thousand names)
ZIPS_SEEN = 4096  # zips on disk whose answer is kept while they are unchanged
_zips_seen: dict = {}  # (path, size, mtime, inode) -> zip_holds_chat's answer, oldest first


def _holds_chat(f) -> bool:
    import zipfile
    from ingest.zipped import directory_size
    try:
        size = directory_size(f)
        if size is None or size > CHAT_DIRECTORY_BYTES:
            return False
        f.seek(0)
        with zipfile.ZipFile(f) as package:
            names = package.namelist()
            if "users.json" in names and ("channels.json" in names or any(
                    name.count("/") == 1 and SLACK_DAY.fullmatch(name.rsplit("/", 1)[-1]) for name in names)):
                return True
            if _json_chats(names, lambda name: _head(package.open(name)), CHAT_JSON_PEEKED) is not None:
                return True
            if _telegram_pages(names, lambda name: _head(package.open(name)), CHAT_JSON_PEEKED):
                return True
            if _whatsapp_part(names, lambda name: _head(package.open(name))) is not None:
                return True
            from ingest import wechat
            return bool(wechat.zipped_chats(names, lambda name: _head(package.open(name)), CHAT_JSON_PEEKED))
    except (OSError, ValueError, EOFError, RuntimeError, NotImplementedError, zipfile.BadZipFile):
        return False


CHAT_HEAD_BYTES = 4096  # of a zip's text read to tell WhatsApp's chat
