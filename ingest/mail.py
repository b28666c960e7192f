"""Mail kept as files: a message saved as ``.eml`` (dragged out of a mail client, Apple Mail's or Thunderbird's
'Save as'), and a mailbox of many as ``.mbox`` (Thunderbird's export, Google Takeout's ``All mail Including Spam and
Trash.mbox``), read with the standard library's ``email``. Not read before (kinds Sift did not read): 'the mail from
Anna about the invoice' found nothing.

A message is a section titled by its Subject (an .eml's title too), its text headed by who sent it, to whom, when
(``Date: Tuesday 5 March 2024 09:12``, the month and weekday in words, so that 'March 2024' finds it), a Google
Takeout message's Gmail labels (``Labels: Inbox, Receipts``) and the attachments it names, then its body: the
text/plain part, or an HTML-only message's text as ``ingest.webpage`` reads a page. Encoded headers
(``=?UTF-8?B?…?=``), quoted-printable and base64 bodies and the declared charset (GBK and GB2312 read as GB18030,
their superset; ISO-8859-1 as Windows-1252, as mail clients do) are decoded; a
part without a charset, or one its charset does not decode (8-bit text labelled US-ASCII), is read as
``ingest.decode`` reads a file; a body said to be base64 that is plain text (most lines not base64) as it stands.
A message attached to it (forwarded as an attachment, message/rfc822) follows its text, read as a message is
('Attached message:', its sender, date and subject, its body).

What people do not search for is left out (not ranked down: it is the text of another message, which an archive
holds as its own): quoted replies (``> …`` lines, the ``On … wrote:`` line above them, Outlook's ``-----Original
Message-----``, a reply's Outlook block 'From: …' / 'Sent: …' below its text, and Chinese clients' ``原始邮件`` and
everything below them) and the signature (from a ``-- `` line).
An attachment is named with its type and size; one of a kind Sift reads (a PDF, a Word, Excel, PowerPoint or
OpenDocument file, a web page, a note, a CSV, a text file) is read by that kind's reader, its passages under
'Attachment: report.pdf' below its message's Subject, dated with the message (``attachment_sections``), read once
(what its reader made of it is kept in the home: ``ingest.attachment_cache``); a picture's contents are not read.
A reply's head names the message of the mailbox it replies to ('In reply to: Budget (Anna Keller, line 1)'), and
read_file shows a message's thread (``Threads``, mcp_server.reading). A message's Gmail
labels head its text and are its passages' own tags (Section.tags: '#receipts' puts those messages first, not the
whole Takeout); those every message of a mailbox holds (a Takeout of one label), and an .eml's, are its file's too.

An mbox's message starts at a line ``From …`` (mboxo/mboxrd, as Thunderbird and Takeout write them) with a header
under it (a body's own 'From the start …' line, or a whole 'From bo@… Mon Mar  4 08:00:00 2024' line, left unescaped
by an mboxo writer, is text); its date is
the message's when it has no Date header. Each section
covers its message's lines of the file, so read_file shows the message a passage is from. A message that cannot be
read as mail keeps its text as it stands, under ``[a message Sift could not read as mail: …]`` (and the count in the
document's ``unreadable_messages``, the first few by line and why in ``unreadable_why``: list_files says so): the other messages are read as usual. A mailbox over the 64 MiB a file may be
(a Takeout of gigabytes) is read in blocks as it comes (``read_mbox``, from ``ingest.files.read_mbox_file``).
"""
from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from itertools import chain
from collections.abc import Iterable, Iterator
from datetime import datetime, timezone
from email import policy
from email.errors import HeaderParseError
from email.header import decode_header
from email.message import Message
from email.parser import BytesParser
from email.utils import format_datetime, getaddresses, parsedate_to_datetime

from ingest.decode import decode
from ingest.document import Document, Section, Skip, title_from_name
from ingest.passage_dates import moment
from ingest.unreadable import Unreadable, what_is_wrong
from search.query.mail_people import SUBJECT_DAYS, own_guess, same_people
from search.query.mail_quotes import QUOTED_NEXT

HEADER_LINE = re.compile(rb"[!-9;-~]+:")  # a header's name and colon (RFC 5322's printable characters but ':')
# an mbox 'From ' line's date as asctime writes it ('Tue Mar  5 09:12:00 2024'; Takeout's: '+0000' before the year)
FROM_DATE = re.compile(rb"From \S+[ \t]+(?:[A-Za-z]{3}[ \t]+)?([A-Za-z]{3})[ \t]+(\d{1,2})[ \t]+"
                       rb"(\d{1,2}):(\d\d)(?::(\d\d))?[ \t]+(?:[+-]\d{4}[ \t]+|[A-Z]{3,5}[ \t]+)?(\d{4})\b")
MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
HEADER_SPAN = 998  # of a line, what HEADER_LINE is asked of (RFC 5322's longest line): the same, whole or in pieces
SHOWN_HEADERS = ("From", "To", "Cc")
# a Google Takeout message's X-Gmail-Labels ('Inbox,Opened,Category Purchases,Receipts') are shown, 'Labels: Inbox,
# Category Purchases, Receipts' ('the receipts label' found none of them), but for Gmail's read state
UNSHOWN_LABELS = {"opened", "unread"}
ADDRESSES = 20  # of a To or Cc line named: a list's 500 recipients would head every passage
CHARSETS = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "cp936": "gb18030", "big5": "cp950",
            "iso-8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252", "ks_c_5601-1987": "cp949",
            "unicode-1-1-utf-7": "utf-7"}  # not us-ascii: 8-bit text so labelled is read by its bytes (UTF-8…)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# a reply's quote of the message before it: 'On Tue, 5 Mar 2024, Anna wrote:' (Gmail, Apple Mail, Thunderbird),
# 'Am … schrieb …:', 'Le … a écrit :', '在 … 写道：'; it may wrap over two lines
QUOTE_INTRO = re.compile(r"^(?:On\b.{0,300}\bwrote|Am\b.{0,300}\bschrieb\b.{0,200}|Le\b.{0,300}\ba écrit ?|"
                         r"在.{0,300}写道)\s*[:：]\s*$", re.DOTALL)
# a forwarded or replied-to message below the reply (Outlook, Foxmail/QQ/NetEase): it and what follows are left out
ORIGINAL = re.compile(r"^\s*(?:-{3,}\s*(?:Original Message|Ursprüngliche Nachricht|Message d'origine)\s*-{3,}|"
                      r"-{3,}\s*原始邮件\s*-{3,}|-{3,}\s*回复的原邮件\s*-{3,})\s*$", re.IGNORECASE)
# a Subject's reply and forward prefixes, as mail clients write them in their languages: Outlook's Dutch 'Antw:',
# 'Doorst:', Portuguese 'RES:', 'ENC:', Spanish 'RV:', Polish and Czech 'Odp:', 'PD:', Swedish 'VB:', Finnish 'VL:',
# Turkish 'YNT:', Greek 'ΑΠ:', 'ΣΧΕΤ:', 'ΠΡΘ:', Korean '회신:', '전달:', Traditional Chinese '回覆:', '轉寄:' (a
# Brazilian colleague's 'RES: Orçamento' naming no parent was no reply, its topic 'res: orçamento')
REPLY_ONLY = re.compile(r"(?:\s*(?:re|fwd?|aw|wg|sv|vs|tr|rif|antw|doorst|res|enc|rv|odp|pd|vb|vl|ynt|απ|σχετ|πρθ"
                        r"|회신|전달|回复|答复|转发|回覆|轉寄)\s*(?:\[\d+\])?\s*[:：])*\s*", re.IGNORECASE)
SIGNATURE = re.compile(r"^--[ \t]?$")
# Outlook's block above the message a reply quotes: no '-----Original Message-----' line over it (or a line of
# underscores only), its From line in the language Outlook writes it, then its Sent line (mail_quotes.QUOTED_NEXT)
OUTLOOK_FROM = re.compile(r"\s*(?:From|Von|De|Da|Van|Från|Fra|Lähettäjä|Od|От|Feladó|Kimden|发件人|寄件者|差出人)\s*[:：]",
                          re.IGNORECASE)
UNDERSCORES = re.compile(r"\s*_{10,}\s*")
# a Subject that says its message replies (not forwards: a forward's text is the message it carries)
REPLYING = re.compile(r"\s*(?:re|aw|sv|vs|rif|antw|res|odp|ynt|απ|σχετ|회신|回复|答复|回覆)\s*(?:\[\d+\])?\s*[:：]",
                      re.IGNORECASE)
UNREADABLE_CHARS = 20_000
UNREADABLE_SAID = 3  # messages not readable as mail named in a mailbox's meta, where and why (all are counted)
# An mbox is read as it comes (ingest.files.read_mbox_file: a Takeout of gigabytes): of a message, its first
# MAX_MESSAGE_BYTES are kept (its text comes before its attachments); of the mailbox, its messages until their text
# is MAX_TEXT_CHARS, as much as any other file may hold (ingest.files.MAX_FILE_BYTES)
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
MAX_TEXT_CHARS = 64 * 1024 * 1024
LINE_PIECE = 1 << 20  # of a message that cannot be read as mail, indexed as it stands


MESSAGE_ID = re.compile(r"<[^<>\s]{1,998}>")
# How deep multipart parts may nest (a part holding parts holding parts …): real mail nests a few deep; the email
# package recurses a few frames per level and failed with RecursionError on a message nested 2,000 deep (about 900
# here, fewer in a worker's deeper stack). Past it the message is read to this depth, the rest said (``cut_short``).
MAX_NESTING = 100
NESTING = re.compile(rb'(?im)\bboundary[ \t]*=[ \t]*(?:"([^"\r\n]*)"|([^\s;"]+))|^--([^\r\n]+?)--[ \t]*\r?$')
ADDRESS = re.compile(r"[^\s<>()\[\]\\,;:\"@]+@[^\s<>()\[\]\\,;:\"@]+")  # an address, for comparing
THREAD_IDS = 200_000  # Message-IDs of a mailbox kept to name what a later message replies to (a few MB)


class Threads:
    """The messages of a mailbox so far by their Message-IDs: what a message replies to (its In-Reply-To, else the
    last of its References) as its head names it, and the thread it belongs to (Gmail's X-GM-THRID; else the thread
    of the message it replies to, where that is in the mailbox before it; else the first of its References, what
    it replies to, or its own Message-ID). A reply's head said only 'Re: Budget': which message, and where, it did
    not. A reply naming no parent at all (a phone's or a web mail's: neither In-Reply-To nor References) replies to
    the message ``_by_subject`` finds, as Thunderbird and JWZ's threading join one by its Subject."""

    def __init__(self) -> None:
        self.known: dict[str, tuple[str, str, int, str]] = {}  # Message-ID -> (heading, From, line, thread)
        self.subjects: dict[str, list[Said]] = {}  # a normalised Subject -> its messages so far, the last few
        self.subjects_kept = 0  # messages in ``subjects``: at most THREAD_IDS (a Takeout of a million messages)
        self.key: str | None = None  # of the message last added, its thread's key across files (``message_row``)
        self.asked: tuple[Message | None, Said | None] = (None, None)  # ``_by_subject``'s last, asked again by add

    def replying(self, message: Message) -> str:
        """'Budget (Anna Keller, line 1)' of the message ``message`` replies to, where it is in the mailbox; ''."""
        said = _thread_headers(message)
        parent = self._parent(said)
        if parent in self.known:
            heading, sender, line, _ = self.known[parent]
        elif (earlier := self._by_subject(message, said)) is not None:
            heading, sender, line = earlier.heading, earlier.sender, earlier.line
        else:
            return ""
        who = getaddresses([words(sender)])  # read here, of the few messages replied to: each message's took a tenth
        name = (who[0][0] or who[0][1]) if who else ""
        return f"{heading} ({name + ', ' if name else ''}line {line})"

    def add(self, message: Message, heading: str, line: int) -> str:
        """Note ``message`` (headed ``heading``, from line ``line`` of the file); its thread's key."""
        said = _thread_headers(message)
        parent = self._parent(said)
        references = MESSAGE_ID.findall(said["references"])
        own = next(iter(MESSAGE_ID.findall(said["message-id"])), None)
        gmail = said["x-gm-thrid"].strip()
        earlier = self._by_subject(message, said)
        self.key = earlier.key if earlier is not None and earlier.key else thread_key(said, own)
        thread = (f"gmail {gmail}" if gmail else self.known[parent][3] if parent in self.known
                  else earlier.thread if earlier is not None
                  else references[0] if references else parent or own or f"line {line}")
        if own and own not in self.known and len(self.known) < THREAD_IDS:
            self.known[own] = (heading, said["from"], line, thread)
        self._keep(said, heading, line, thread)
        return thread

    @staticmethod
    def _parent(said: dict[str, str]) -> str | None:
        ids = MESSAGE_ID.findall(said["in-reply-to"]) or MESSAGE_ID.findall(said["references"])
        return ids[-1] if ids else None

    def _by_subject(self, message: Message, said: dict[str, str]) -> Said | None:
        """Of a message naming no parent (no In-Reply-To, References or Gmail thread) whose Subject says it replies
        or forwards ('Re:', 'AW:', 'SV:', '回复:', 'Fwd:' …), the latest message before it in the mailbox of that
        Subject among the same people (its sender is among the earlier one's From, To and Cc, and the earlier one's
        sender among its own), at most SUBJECT_DAYS before it; None for any other. Two conversations of 'Re:
        Hello' with other people, or months apart, stay apart; so does one whose client names its parent."""
        if self.asked[0] is message:
            return self.asked[1]
        self.asked = (message, self._subject_parent(said))
        return self.asked[1]

    def _subject_parent(self, said: dict[str, str]) -> Said | None:
        if said["in-reply-to"].strip() or said["references"].strip() or said["x-gm-thrid"].strip():
            return None
        subject = _plain(said["subject"])
        base = _subject_key(subject)
        kept = self.subjects.get(base)
        if not kept or base == subject.casefold():  # no 'Re:': a message of its own
            return None
        when = _when(said["date"])
        people, sender = _people(said), _people(said, ("from",))
        if when is None or not sender:
            return None
        found = None
        for earlier in kept:  # the few of its Subject: their dates read now, not each message's
            at = earlier.when()
            if (at is not None and when - SUBJECT_DAYS * 86400 <= at <= when and (found is None or at >= found.when())
                    and not own_guess(sender, earlier.orphan, earlier.senders())
                    and same_people(sender, people, earlier.senders(), earlier.people())):
                found = earlier
        return found

    def _keep(self, said: dict[str, str], heading: str, line: int, thread: str) -> None:
        base = _subject_key(heading)  # its Subject, decoded ('(no subject)': none)
        full = len(self.subjects.get(base, ())) >= SUBJECT_KEPT  # a new one takes the place of the oldest
        if not _said(heading) or (self.subjects_kept >= THREAD_IDS and not full):
            return
        kept = self.subjects.setdefault(base, [])
        self.subjects_kept += not full
        kept.append(Said(said["from"], f"{said['to']}, {said['cc']}", said["date"], heading, line, thread, self.key,
                         _orphan(said, _plain(said["subject"]))))
        del kept[:-SUBJECT_KEPT]


class Said:
    """A message of a mailbox as ``Threads`` keeps it to join a reply by its Subject: its From, To and Cc and Date
    as written, read when first asked (of the few messages a reply is compared with, not of each: read at once, a
    mailbox's headings took half as long again)."""
    __slots__ = ("sender", "recipients", "date", "heading", "line", "thread", "key", "orphan", "_read")

    def __init__(self, sender: str, recipients: str, date: str, heading: str, line: int, thread: str,
                 key: str | None, orphan: bool = False) -> None:
        self.sender, self.recipients, self.date = sender[:ADDRESS_CHARS], recipients[:ADDRESS_CHARS], date[:100]
        self.heading, self.line, self.thread, self.key = heading, line, thread, key  # key: its thread's across files
        self.orphan = orphan  # a reply naming no parent itself (subject_columns' last)
        self._read: tuple | None = None

    def when(self) -> float | None:
        return self._got()[0]

    def senders(self) -> frozenset:
        return self._got()[1]

    def people(self) -> frozenset:
        return self._got()[2]

    def _got(self) -> tuple:
        if self._read is None:
            senders = _addresses_of(self.sender)
            self._read = (_when(self.date), senders, senders | _addresses_of(self.recipients))
        return self._read


SUBJECT_KEPT = 8  # messages of one Subject kept to choose from (the last ones of the mailbox)
ADDRESS_CHARS = 500  # of a message's From, and of its To and Cc, kept to choose by (a list's To is long)


def _subject_key(subject: str) -> str:
    """A Subject without its reply and forward prefixes ('Re: AW: Fwd[2]: Budget' -> 'budget'), casefolded."""
    return subject[REPLY_ONLY.match(subject).end():].casefold()


def _plain(header: str) -> str:
    """A header's text on one line: decoded (``words``) where it may need it, an encoded word or 8-bit text."""
    return words(header) if "=?" in header or not header.isascii() else " ".join(header.split())


def _people(said: dict[str, str], names: tuple[str, ...] = ("from", "to", "cc")) -> frozenset:
    """The addresses of a message's ``names`` headers, casefolded."""
    return _addresses_of(*(said[name] for name in names))


def _addresses_of(*headers: str) -> frozenset:
    """The addresses of From, To or Cc headers as written, casefolded (by their form: the email package's
    getaddresses, asked of each message, tripled the time mail_headings takes)."""
    return frozenset(address.casefold() for header in headers for address in ADDRESS.findall(header[:ADDRESS_CHARS]))


def _when(date: str) -> float | None:
    """A Date header's time as seconds since 1970 (one without a zone read as UTC); None for none readable."""
    text = _plain(date)
    try:
        when = parsedate_to_datetime(text) if text else None
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    return (when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)).timestamp()


def thread_key(said: dict[str, str], own: str | None) -> str | None:
    """A message's thread's key across files (``thread_meta``; ``said``: its ``_thread_headers``)."""
    gmail = said["x-gm-thrid"].strip()[:100]
    references = MESSAGE_ID.findall(said["references"])
    return f"gmail {gmail}" if gmail else references[0] if references else Threads._parent(said) or own


def message_row(message: Message, line: int, lines: int | None, subject: str, sent: str | None,
                key: str | None = None) -> list | None:
    """A message's row of its file's ``mail_messages`` (the index's table of them, schema V23): [its Message-ID,
    its thread's key (``thread_key``), its first line, its lines (None: the whole file, an .eml's), its Subject, when
    sent (``sent_time``)]; None for one that names neither a Message-ID nor a message it replies to. A reply saved
    as an .eml was joined to the other .eml files of its folder only, never to the message of a mailbox (.mbox) it
    replies to, nor was a message of one mailbox to its reply in another (Thunderbird's Inbox and Sent). ``key``:
    its thread's key as its mailbox's ``Threads`` found it (a reply joined by its Subject), else ``thread_key``'s."""
    said = _thread_headers(message)
    own = next(iter(MESSAGE_ID.findall(said["message-id"])), None)
    key = key or thread_key(said, own)
    return [own, key, line, lines, subject, sent, *subject_columns(said)] if own or key else None


def subject_columns(said: dict[str, str]) -> list:
    """A message's row's columns that join a reply naming no parent to its thread in another mail file (schema
    V24; search.query.mail_threads, as ``Threads`` joins one within its mailbox): its Subject without 'Re:' …
    (``topic``, None for none), its From's and its From, To and Cc's addresses (space between), and 1 where it
    is such a reply ('Re: Budget' naming no In-Reply-To, References nor Gmail thread), else 0. A phone's reply in
    Thunderbird's Sent was joined to nothing in Inbox."""
    plain = _plain(said["subject"])
    topic = _subject_key(plain) if _said(plain) else None
    return [topic, " ".join(sorted(_people(said, ("from",)))), " ".join(sorted(_people(said))),
            int(_orphan(said, plain))]


def _orphan(said: dict[str, str], plain: str) -> bool:
    """Whether a message is a reply naming no parent ('Re: Budget' without In-Reply-To, References nor Gmail
    thread; ``plain``: its Subject, ``_plain``). Its own, not ``subject_columns``': ``Threads._keep`` asks it of
    every message, and subject_columns read and sorted all its addresses for it (about 4% of a mailbox's parse)."""
    return not (said["in-reply-to"].strip() or said["references"].strip() or said["x-gm-thrid"].strip()) \
        and _said(plain) and _subject_key(plain) != plain.casefold()


def thread_meta(message: Message) -> dict[str, str]:
    """An .eml's place in a thread, for its file's meta: its Message-ID (``message_id``) and its thread's key
    (``mail_thread``: Gmail's X-GM-THRID; else the first of its References, the thread's first message; else what it
    replies to; else its own Message-ID). The messages of a folder of .eml files (Apple Mail's or Outlook's drag and
    drop) of one key, or one whose Message-ID is another's key, are a thread (search.query.mail_threads): a reply
    named none of them, each file read alone. {} for a message that names no Message-ID."""
    said = _thread_headers(message)
    own = next(iter(MESSAGE_ID.findall(said["message-id"])), None)
    key = thread_key(said, own)
    return {key_: value for key_, value in (("message_id", own), ("mail_thread", key)) if value}


THREAD_HEADERS = ("message-id", "in-reply-to", "references", "x-gm-thrid", "from", "to", "cc", "date", "subject")


def _thread_headers(message: Message) -> dict[str, str]:
    """The headers ``Threads`` reads of a message, as written ('' for one it has not), in one pass over them."""
    said = dict.fromkeys(THREAD_HEADERS, "")
    for key, value in message.raw_items():
        key = key.lower()
        if key in said and not said[key]:
            said[key] = str(value)
    return said


def parse_eml(path: str, data: bytes) -> Document:
    """One message: a note titled by its Subject."""
    try:
        message, nested = _bounded(data)
    except ValueError as exc:
        raise Skip(str(exc)) from None
    if not any(message.keys()):
        raise Skip("not a mail message: no header lines (From:, Subject:, Date: …) at its start")
    section, meta = _read(message)
    if nested:
        meta["cut_short"] = nested
    _place(section, data, 1)
    read = AttachmentsRead()
    files = attachment_sections(message, section, read)
    read.say(meta)
    if meta.get("labels"):  # its Gmail labels are its tags: '#receipts' finds it
        meta["tags"] = meta.pop("labels")
    meta.update(thread_meta(message))
    row = message_row(message, 1, None, section.heading_path[0], meta.get("mail_time"))
    if row:
        meta["mail_messages"] = [row]
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    subject = _header(message, "Subject")
    return Document(kind="note", title=subject if _said(subject) else title_from_name(stem),
                    sections=([section] if section.text.strip() else []) + files, meta=meta)


def message_text(raw: bytes) -> str:
    """A message of a mail file (an .eml's bytes, or a mailbox's from its 'From ' line) as it is indexed: its head
    (who, to whom, when, Subject, labels, attachments) and its body decoded, its quotes and signature left out.
    read_file showed a message as the file holds it: a Takeout's quoted-printable ('eur=' over 'os'), its text
    again as HTML, its headers of routes and ids; ValueError for one that cannot be read as mail."""
    body = raw[raw.index(b"\n") + 1:] if raw.startswith(b"From ") and b"\n" in raw else raw
    body = _dated(raw, re.sub(rb"(?m)^>(>*From )", rb"\1", body))
    message, _ = _bounded(body)
    return _read(message)[0].text


def parse_mbox(path: str, data: bytes) -> Document:
    """A mailbox: a section per message, titled by its Subject, at the lines of the file that hold it."""
    return read_mbox(path, [data])


def mail_headings(blocks: Iterable[bytes], mailbox: bool, threads: list[str] | None = None
                  ) -> list[tuple[int, int, str, int]]:
    """(line of the file, 0-based, level, name, lines) of each message of a mailbox (or of the one message of an
    .eml) given in blocks of its bytes: its heading as indexed, the Subject, from its first line, and the lines it
    spans, the blank ones after it left out. read_file's ``heading`` reads a message by them (mcp_server.reading):
    a hit's heading was 'archive.mbox — Sourdough recipe', and read_file with heading='Sourdough recipe' said the
    mailbox had no headings ('# …' lines). Only a message's header is parsed (each was parsed whole, its body too),
    and the mailbox is read as it comes: its first 16 MiB were read, and a message past them was 'no heading'.
    ``threads``, if given, gets each message's thread's key (``Threads.add``), in order: read_file shows a
    message's thread by them."""
    found, known = [], Threads()
    for raw, first, lines in _messages(blocks) if mailbox else [_whole(blocks)]:
        body = raw[raw.index(b"\n") + 1:] if mailbox and raw.startswith(b"From ") and b"\n" in raw else raw
        try:
            head = _head(body)
            if mailbox and head.get("Date") is None:  # its 'From ' line's date, as read_mbox reads it (``_dated``)
                head = _head(_dated(raw, body))
            subject = _header(head, "Subject")
            name = subject if _said(subject) else f"{subject} (no subject)".lstrip()
            thread = known.add(head, name, first)
        except Exception:  # noqa: BLE001 - as read_mbox: one message's trouble must not cost the mailbox
            name, thread = "(unreadable message)", f"line {first}"
        if threads is not None:
            threads.append(thread)
        whole = raw.count(b"\n") >= lines  # not cut at MAX_MESSAGE_BYTES
        blank = raw[len(raw.rstrip()):].count(b"\n") - raw.endswith(b"\n") if whole else 0  # the blank lines ending it
        found.append((first - 1, 1, name, max(1, lines - max(0, blank))))
    # a thread's messages share a Subject ('Re: Budget' twice): each such one is named with its first line, so
    # that heading='Re: Budget' lists them to choose from instead of reading the first whatever the hit was
    counts = Counter(name for _, _, name, _ in found)
    return [(line, level, f"{name} (line {line + 1})" if counts[name] > 1 else name, lines)
            for line, level, name, lines in found]


HEADER_END = re.compile(rb"\r?\n\r?\n")  # the blank line after a message's header


def _head(body: bytes) -> Message:
    """A message's header alone, parsed."""
    end = HEADER_END.search(body)
    return BytesParser(policy=policy.compat32).parsebytes(body[:end.end()] if end else body, headersonly=True)


def _whole(blocks: Iterable[bytes]) -> tuple[bytes, int, int]:
    """(its bytes, its first line, its lines) of the one message of an .eml given in blocks, as ``_messages`` gives
    a mailbox's: at most MAX_MESSAGE_BYTES of it kept, its lines all counted."""
    kept, size, lines, last = [], 0, 0, b""
    for block in blocks:
        if size <= MAX_MESSAGE_BYTES:
            kept.append(block)
            size += len(block)
        lines += block.count(b"\n")
        last = block or last
    return b"".join(kept), 1, lines + (bool(last) and not last.endswith(b"\n"))


def read_mbox(path: str, blocks: Iterable[bytes]) -> Document:
    """``parse_mbox`` of a mailbox given as blocks of its bytes, read as they come: a mailbox of any size in the
    memory of one message (at most MAX_MESSAGE_BYTES of it kept: the rest is its attachments) and of the text
    read, at most MAX_TEXT_CHARS (past them the rest of the mailbox is not read: ``cut_short`` says so)."""
    sections, unreadable, messages, text_chars = [], 0, 0, 0
    unreadable_why: list[str] = []  # the first UNREADABLE_SAID messages not readable as mail, where and why
    meta: dict = {}
    read = AttachmentsRead()
    threads = Threads()
    rows: list[list] = []  # each message's row of the index's mail_messages (``message_row``)
    common: dict[str, str] | None = None  # the Gmail labels every message read holds, casefolded: its tags
    nested: list[str] = []  # messages nested too deep, read to MAX_NESTING: where and how deep
    start, blocks = _peeked(blocks)
    if start and not start.startswith(b"From ") and not HEADER_LINE.match(start):
        raise Skip("not an mbox: it does not begin with a 'From ' line or a mail header")
    for raw, first, lines in _messages(blocks):
        messages += 1
        body = raw[raw.index(b"\n") + 1:] if raw.startswith(b"From ") and b"\n" in raw else raw
        body = re.sub(rb"(?m)^>(>*From )", rb"\1", body)  # mboxrd's escaped 'From ' lines
        body = _dated(raw, body)
        message = None
        try:
            message, deep = _bounded(body)
            if deep:
                nested.append(f"the message at line {first:,}: {deep}")
            section, said = _read(message, replying=threads.replying(message))
            labels = {label.casefold(): label for label in said.get("labels", [])}
            common = labels if common is None else {key: common[key] for key in common if key in labels}
            threads.add(message, section.heading_path[0], first)
            row = message_row(message, first, lines, section.heading_path[0], said.get("mail_time"), threads.key)
            if row and len(rows) < THREAD_IDS:
                rows.append(row)
        except Exception as exc:  # noqa: BLE001 - one message's trouble must not cost the mailbox
            unreadable += 1
            said = what_is_wrong(exc)
            if len(unreadable_why) < UNREADABLE_SAID:
                unreadable_why.append(f"line {first:,}: {said[:200]}")
            text = decode_part(body[:UNREADABLE_CHARS * 4], None)[:UNREADABLE_CHARS]
            section = Section(text=f"[a message Sift could not read as mail: {said}]\n{text}",
                              heading_path=["(unreadable message)"])
            message = None
        _place(section, raw, first, lines)
        files = [] if message is None else attachment_sections(message, section, read, first,
                                                                whole=raw.count(b"\n") >= lines)
        if section.text.strip():
            sections.append(section)
            text_chars += len(section.text)
        sections += files
        text_chars += sum(len(file.text) for file in files)
        if text_chars > MAX_TEXT_CHARS:
            read_ = "the first message read" if messages == 1 else f"the first {messages:,} messages read"
            meta["cut_short"] = (f"{read_}, to line {first + lines - 1:,}: {'its' if messages == 1 else 'their'} text "
                                 f"is over {MAX_TEXT_CHARS // (1 << 20)} MiB, the rest of the mailbox is not read")
            break
    meta["messages"] = messages
    if nested:
        said_ = "; ".join(nested[:UNREADABLE_SAID]) + (f"; {len(nested) - UNREADABLE_SAID:,} more"
                                                         if len(nested) > UNREADABLE_SAID else "")
        meta["cut_short"] = "; ".join(filter(None, (meta.get("cut_short"), said_)))
    if unreadable:
        meta["unreadable_messages"] = unreadable
        meta["unreadable_why"] = unreadable_why
    read.say(meta)
    if rows:
        meta["mail_messages"] = rows
    if common:  # a Takeout of one label ('Receipts.mbox'): a tag of the file is one of each of its messages
        meta["tags"] = list(common.values())
    return Document(kind="note", title=path.rsplit("/", 1)[-1], sections=sections, meta=meta)


def _peeked(blocks: Iterable[bytes]) -> tuple[bytes, Iterator[bytes]]:
    """(the first bytes of a mailbox given in blocks, past a header line's longest; its blocks, those among them).
    A file that is no mailbox (a sparse file of zeros named .mbox) was told so by its first message, found only at
    its end: gigabytes read and hashed for nothing."""
    blocks, start = iter(blocks), []
    for block in blocks:
        start.append(block)
        if sum(map(len, start)) > HEADER_SPAN:
            break
    return b"".join(start), chain(start, blocks)


def _messages(blocks: Iterable[bytes]):
    """(its bytes, its first line, its lines) of each message of an mbox given in blocks: a message starts at a
    line beginning 'From ' with a date or a header under it (``_marked``). At most MAX_MESSAGE_BYTES of a message are
    kept, its lines all counted."""
    kept: list[bytes] = []
    size, first, lines, line = 0, 1, 0, 1
    for piece, starts in _marked(blocks):
        if starts and (kept or lines):
            yield b"".join(kept), first, lines
            kept, size, first, lines = [], 0, line, 0
        if size <= MAX_MESSAGE_BYTES:  # past it, the rest of the message (its attachments) is counted, not kept
            kept.append(piece)
            size += len(piece)
        if piece.endswith(b"\n"):
            lines += 1
            line += 1
    if kept or lines:
        yield b"".join(kept), first, lines + (bool(kept) and not kept[-1].endswith(b"\n"))


def _dated(raw: bytes, body: bytes) -> bytes:
    """A message's ``body`` (its headers and text) with a Date header of its mbox 'From ' line's date ('From anna@…
    Tue Mar  5 09:12:00 2024') when its headers have none: such a message (a script's, a draft's, a mail client's
    export of it) was read with no date, and 'March 2024' did not find it."""
    split = re.search(rb"\r?\n\r?\n", body)
    if not HEADER_LINE.match(body) or re.search(rb"(?im)^date:", body[:split.start() if split else len(body)]):
        return body
    found = FROM_DATE.match(raw)
    if not found:
        return body
    month, day, hour, minute, second, year = found.groups()
    try:
        when = datetime(int(year), MONTH_NAMES.index(month.decode().title()) + 1, int(day), int(hour), int(minute),
                        int(second or 0))
    except ValueError:
        return body
    return b"Date: " + format_datetime(when).encode() + b"\n" + body


def _marked(blocks: Iterable[bytes]):
    """(piece, whether it starts a message) of the lines in ``blocks`` (as ``_lines`` gives them): a line beginning
    'From ' starts one when it has a date as mailers write it ('From anna@… Tue Mar  5 09:12:00 2024') or the line
    after it is a header ('From: …', 'Return-Path: …', Takeout's 'X-GM-THRID: …').
    A body's own line 'From the start, we…', which an mboxo writer (and a script appending to a mailbox) leaves
    unescaped, cut its message in two: the rest was an '(unreadable message)' and the line itself was lost."""
    held: list[bytes] = []  # a 'From ' line's pieces and the start of the next line, until that shows which it is
    for piece, line_start in _lines(blocks):
        if not held and not (line_start and piece.startswith(b"From ")):
            yield piece, False  # most lines: nothing held, no 'From ' line
            continue
        todo = [(piece, line_start)]
        while todo:
            piece, line_start = todo.pop(0)
            if not held:
                if line_start and piece.startswith(b"From "):
                    held.append(piece)
                else:
                    yield piece, False
                continue
            held.append(piece)
            end = next((at for at, part in enumerate(held) if part.endswith(b"\n")), None)
            after = b"".join(held[end + 1:]) if end is not None else b""
            if end is None or (b"\n" not in after and len(after) < HEADER_SPAN):
                continue
            yield held[0], _starts(b"".join(held[:end + 1]), after)
            yield from ((part, False) for part in held[1:end + 1])
            todo = [(part, held[at - 1].endswith(b"\n")) for at, part in enumerate(held) if at > end] + todo
            held = []
    if held:  # the file ends within the line after a 'From ' line (or the 'From ' line itself)
        end = next((at for at, part in enumerate(held) if part.endswith(b"\n")), len(held))
        yield held[0], _starts(b"".join(held[:end + 1]), b"".join(held[end + 1:]))
        yield from ((part, False) for part in held[1:])


# the headers a message's 'From ' line is followed by, as mailers write them: a 'From ' line without a date starts a
# message only before one of these ('From the start:' over 'Note: the budget' is a body's lines)
MAIL_HEADER = re.compile(rb"(?:from|to|cc|bcc|subject|date|return-path|received|delivered-to|envelope-to|message-id|"
                         rb"mime-version|content-[a-z-]+|reply-to|sender|in-reply-to|references|status|x-[!-9;-~]+|"
                         rb"dkim-signature|arc-[a-z-]+|authentication-results|received-spf|thread-[a-z]+)[ \t]*:",
                         re.IGNORECASE)


def _starts(from_line: bytes, after: bytes) -> bool:
    """Whether a 'From ' line (and ``after``, the line after it) starts a message: the line after it is a header
    (any, under a 'From ' line with a date; one mailers write, under one without), or the file ends there. A body's
    own 'From anna@example.com Tue Mar  5 09:12:00 2024' line (a pasted mbox, left unescaped by an mboxo writer)
    began a message: the rest of its message was read as one of no header, an '(unreadable message)'."""
    after = after[:HEADER_SPAN]
    if not after.strip():
        return FROM_DATE.match(from_line[:HEADER_SPAN]) is not None
    if FROM_DATE.match(from_line[:HEADER_SPAN]) is not None:
        return HEADER_LINE.match(after) is not None
    return MAIL_HEADER.match(after) is not None


def _lines(blocks: Iterable[bytes]):
    """(piece, whether it starts a line) of the lines in ``blocks``: a line longer than LINE_PIECE comes in
    pieces (a base64 attachment written without line breaks is no reason to hold it whole)."""
    carry, carry_start = b"", True
    for block in blocks:
        data = carry + block if carry else block
        at = 0
        line_start = True if not carry else carry_start
        while True:
            end = data.find(b"\n", at)
            if end < 0:
                break
            yield data[at:end + 1], line_start
            line_start = True
            at = end + 1
        carry, carry_start = data[at:], line_start
        while len(carry) > LINE_PIECE:
            yield carry[:LINE_PIECE], carry_start
            carry, carry_start = carry[LINE_PIECE:], False
    if carry:
        yield carry, carry_start


def _place(section: Section, raw: bytes, first: int, lines: int | None = None) -> None:
    """Put ``section`` at the lines of its message, ``raw`` (of ``lines`` lines: all of them, or the first part kept),
    which starts at line ``first`` of the file: to its last line, and from where its text's body lines meet the
    message's body (a plain body's passages show at their own lines; the lines of an encoded one are its
    message's), never before the message's first line."""
    lines = raw.count(b"\n") + (not raw.endswith(b"\n")) if lines is None else lines
    last = max(first, first + lines - 1)
    split = re.search(rb"\r?\n\r?\n", raw)
    body_line = first + raw.count(b"\n", 0, split.end()) if split else first
    text_body = section.text.find("\n\n")
    head_lines = section.text.count("\n", 0, text_body + 2) if text_body >= 0 else 0
    section.start_line, section.end_line = min(last, max(first, body_line - head_lines)), last


def _message(data: bytes) -> Message:
    # compat32: the headers as written, decoded by ``words`` (policy.default's header objects took half the time of
    # a 1 GiB mailbox)
    return BytesParser(policy=policy.compat32).parsebytes(data)


def _bounded(data: bytes) -> tuple[Message, str]:
    """``_message`` of a message whose parts nest at most MAX_NESTING deep, read to that depth (its bytes cut where
    the first deeper part is declared), and what was left out ('' when nothing was)."""
    if data.count(b"oundary") > MAX_NESTING:  # (cheap: only a message of that many parts can nest that deep)
        deepest, cut = _nesting(data)
        if cut is not None:
            return _message(data[:cut]), f"mail nested {deepest:,} parts deep: read to depth {MAX_NESTING}"
    try:
        return _message(data), ""
    except RecursionError:  # nested some other way (message/rfc822 in message/rfc822 …)
        raise Unreadable(f"mail nested too deep to read (over {MAX_NESTING} parts inside parts)") from None


def _nesting(data: bytes) -> tuple[int, int | None]:
    """How deep the parts of a message nest, by its boundaries (one declared opens a level; its closing line
    '--X--' ends it and the levels inside it), and where the line declaring the first part deeper than MAX_NESTING
    begins (None when there is none)."""
    stack: list[bytes] = []
    opened: Counter = Counter()
    deepest, cut = 0, None
    for found in NESTING.finditer(data):
        quoted, bare, closing = found.groups()
        if closing is None:
            stack.append(quoted if quoted is not None else bare)
            opened[stack[-1]] += 1
            deepest = max(deepest, len(stack))
            if cut is None and len(stack) > MAX_NESTING:
                cut = data.rfind(b"\n", 0, found.start()) + 1
        elif opened[closing]:
            while stack:
                gone = stack.pop()
                opened[gone] -= 1
                if gone == closing:
                    break
    return deepest, cut


def _read(message: Message, depth: int = 0, replying: str = "") -> tuple[Section, dict]:
    """A message's section (heading: its Subject) and its meta (its date); ``replying``: the message it replies
    to, as ``Threads.replying`` names it ('In reply to: Budget (Anna Keller, line 1)' under its Subject)."""
    if not any(message.keys()):
        raise Unreadable("no header lines (From:, Subject:, Date: …) at its start")
    subject = _header(message, "Subject")
    head = []
    for name in SHOWN_HEADERS:
        value = _addresses(message, name)
        if value:
            head.append(f"{name}: {value}")
    meta = {}
    when = _date(message)
    if when is not None:
        head.append(f"Date: {DAYS[when.weekday()]} {when.day} {MONTHS[when.month - 1]} {when.year} "
                    f"{when:%H:%M}")
        meta["date"] = when.date().isoformat()
        meta["mail_time"] = sent_time(when)
    elif _header(message, "Date"):
        head.append(f"Date: {_header(message, 'Date')}")
    if subject:
        head.append(f"Subject: {subject}")
    if replying:
        head.append(f"In reply to: {replying}")
    labels = [label.strip() for label in _header(message, "X-Gmail-Labels").split(",")
              if label.strip() and label.strip().lower() not in UNSHOWN_LABELS]
    if labels:
        head.append("Labels: " + ", ".join(labels[:ADDRESSES]))
        meta["labels"] = labels[:ADDRESSES]
    attached = _attachments(message)
    if attached:
        head.append("Attachments: " + "; ".join(attached))
    body = _body(message, depth)
    text = "\n".join(head) + ("\n\n" + body if body else "")
    heading = subject if _said(subject) else f"{subject} (no subject)".lstrip()
    return Section(text=text, heading_path=[heading], dated=as_written(when), tags=tuple(meta.get("labels", ()))), meta


def as_written(when: datetime | None) -> float | None:
    """The date a message's passages are about (Section.dated): its Date as its sender's clock wrote it, read as
    local time, as a daily note's day is local midnight; None for none. A message sent 'Tue, 5 Mar 2024 23:30
    -0500' is about 5 March 23:30, as its text's 'Date: Tuesday 5 March 2024 23:30' says: read as the instant, a
    hit on a machine in UTC was dated 2024-03-06 04:30, and date_before=2024-03-06 left it out (the time it was
    sent, to the second, orders a thread: ``sent_time``)."""
    return moment(when.replace(tzinfo=None) if when is not None else None)


def sent_time(when: datetime) -> str:
    """A message's Date as its meta keeps it to order a thread by (search.query.mail_threads, by the instant):
    ISO 8601 to the second with the sender's offset, '2024-03-05T23:30:00-05:00' (a Date without a zone as written,
    '2024-03-14T09:15:02'). Its first ten characters are the day the message says, which a thread's list shows:
    kept in UTC ('2024-03-06T04:30:00Z'), the list dated it the day after its own Date line. The day alone was kept
    before that, and a thread's messages of one day stood in the order of their files' names."""
    if when.tzinfo is not None and when.utcoffset() is not None:
        return when.replace(microsecond=0).isoformat()
    return when.strftime("%Y-%m-%dT%H:%M:%S")


def _said(subject: str) -> bool:
    """Whether a Subject says something: not empty, not only 'Re:', 'Fwd:', 'AW:', '回复:' (their heading was
    '' or 'Re:', an .eml's title too; now '(no subject)', 'Re: (no subject)', an .eml titled by its file's name)."""
    return bool(subject) and not REPLY_ONLY.fullmatch(subject)


def _header(message: Message, name: str) -> str:
    """A header's text, decoded (RFC 2047's encoded words; raw 8-bit text read as UTF-8 or GB18030), one line."""
    raw = next((value for key, value in message.raw_items() if key.lower() == name.lower()), None)
    return "" if raw is None else words(str(raw))


def words(raw: str) -> str:
    """A header's (or a file name's) text, its encoded words ('=?GBK?B?…?=') decoded; one that decodes to nothing
    readable ('=?UTF-8?B?broken?=') kept as written."""
    if any("\udc80" <= char <= "\udcff" for char in raw):  # 8-bit bytes in a header: the parser kept them escaped
        raw = decode_part(raw.encode("utf-8", "surrogateescape"), None)
    if "=?" in raw:
        try:
            pieces = [_word(piece, charset) if isinstance(piece, bytes) else piece
                      for piece, charset in decode_header(raw)]
            decoded = "".join(pieces)
            raw = raw if "\ufffd" in decoded else decoded
        except (LookupError, UnicodeDecodeError, ValueError, HeaderParseError):
            pass
    return " ".join(raw.split())


def _word(piece: bytes, charset: str | None) -> str:
    """An encoded word's text by its charset; 8-bit text labelled US-ASCII as UTF-8 if it is, else Windows-1252."""
    if not charset:
        return piece.decode("raw-unicode-escape")
    charset = charset.lower()
    if charset in ("us-ascii", "ascii"):
        try:
            return piece.decode("utf-8")
        except UnicodeDecodeError:
            return piece.decode("cp1252")
    return piece.decode(CHARSETS.get(charset, charset))


def _addresses(message: Message, name: str) -> str:
    """'Anna Keller <anna@example.com>, Bo <bo@example.com>' of a From, To or Cc header, its first ADDRESSES."""
    text = _header(message, name)
    if not text:
        return ""
    pairs = getaddresses([text])
    shown = [f"{who} <{address}>" if who and address else who or address for who, address in pairs[:ADDRESSES]]
    more = f" and {len(pairs) - ADDRESSES} more" if len(pairs) > ADDRESSES else ""
    return (", ".join(item for item in shown if item) or text) + more


def _date(message: Message) -> datetime | None:
    text = _header(message, "Date")
    try:
        return parsedate_to_datetime(text) if text else None
    except (TypeError, ValueError, IndexError, OverflowError):
        pass
    try:  # '2024-03-05T09:12:00Z', '2024-03-05 09:12' (scripts' and some webmails' mail): ISO 8601
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _attachments(message: Message) -> list[str]:
    """'invoice.pdf (application/pdf, 34 KB)' of each attachment."""
    named = []
    for part in message.walk():
        if part.is_multipart():
            continue
        name = part.get_filename()
        name = words(str(name)) if name is not None else None
        if not name and part.get_content_disposition() != "attachment":
            continue
        length = _size(part)
        size = f"{length / 1024:,.0f} KB" if length >= 1024 else f"{length} bytes"
        inside = ""
        if _is_tnef(part):  # Outlook's winmail.dat: the files it holds, which are read as the message's attachments
            tnef, _ = _tnef(part)
            held = [" ".join(inner.split()) for inner, _ in tnef.files] if tnef is not None else []
            inside = f", holding {', '.join(held[:ADDRESSES])}" if held else ""
        named.append(f"{' '.join(str(name or 'unnamed').split())} ({part.get_content_type()}, {size}{inside})")
    return named


def _size(part: Message) -> int:
    """An attachment's size in bytes: a base64 one's from its encoded length (decoding a 50 MB video to count it
    took a second and its size in memory), another's decoded."""
    payload = part.get_payload()
    if isinstance(payload, str) and part.get("Content-Transfer-Encoding", "").strip().lower() == "base64":
        letters = len(payload) - sum(payload.count(space) for space in "\r\n \t")
        tail = payload[-8:].rstrip()
        return letters * 3 // 4 - tail.endswith("=") - tail.endswith("==")
    return len(part.get_payload(decode=True) or b"")


# An attachment of a kind Sift reads (a PDF, a Word, Excel, PowerPoint or OpenDocument file, a web page, a note, a
# CSV, a text file: ingest.kinds.kind_of of its name, or of its type's ending where its name has none Sift reads) is
# read by that kind's reader (ingest.parse.parse_file), its passages under 'Attachment: report.pdf' below its
# message's heading, dated with the message. Bounded: at most ATTACHMENT_BYTES of one (decoded), ATTACHMENTS of a
# message, ATTACHMENT_CHARS of one's text; one a reader refuses (an encrypted PDF, a scan) or over a bound is named,
# with why, in the mailbox's ``attachments_not_read`` (list_files shows it), and costs nothing else.
ATTACHMENT_BYTES = 16 * 1024 * 1024
# of a mailbox's attachments, as many bytes are read as one file may be (ingest.files.MAX_FILE_BYTES): a PDF takes
# 0.3-4 s to read, and a mailbox is read whole at each change (a Takeout of 10,000 PDFs took hours each time); what
# the readers made of them is kept (AttachmentsRead.parse, ingest.attachment_cache): the next change reads none again
MAILBOX_ATTACHMENT_BYTES = 64 * 1024 * 1024
ATTACHMENT_CHARS = 1 << 20
ATTACHMENTS = 20
NOT_READ_SAID = 20  # attachments not read named in the meta (all are counted)
TYPE_ENDINGS = {"application/pdf": ".pdf", "text/plain": ".txt", "text/markdown": ".md", "text/x-markdown": ".md",
                "text/csv": ".csv", "text/tab-separated-values": ".tsv", "text/html": ".html", "text/x-org": ".org",
                "text/x-rst": ".rst",
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
                "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
                "application/vnd.oasis.opendocument.text": ".odt",
                "application/vnd.oasis.opendocument.spreadsheet": ".ods",
                "application/vnd.oasis.opendocument.presentation": ".odp"}


class AttachmentsRead:
    """What a mail file's attachments have taken so far: the bytes read (MAILBOX_ATTACHMENT_BYTES at most), and why
    each one not read was not."""

    def __init__(self) -> None:
        self.left = MAILBOX_ATTACHMENT_BYTES
        self.not_read: list[str] = []
        self.cache = None  # ingest.attachment_cache.AttachmentCache, once an attachment is read

    def parse(self, name: str, data: bytes) -> Document:
        """The Document of an attachment's bytes ``data`` as ``name``'s reader reads it (ingest.parse.parse_file),
        or Skip with why it refused them: kept in the home's attachment cache, and taken from it when the same bytes
        were read before (a mailbox is read whole at each change: every PDF of it was read again)."""
        from ingest.attachment_cache import AttachmentCache
        from ingest.parse import parse_file
        if self.cache is None:
            self.cache = AttachmentCache.of_home()
        key = self.cache.key(name, data)
        kept = self.cache.get(key)
        if isinstance(kept, str):
            raise Skip(kept)
        if kept is not None:
            return kept
        try:
            doc = parse_file(name, data)
        except Skip as exc:
            self.cache.put(key, str(exc), ATTACHMENT_CHARS)
            raise
        self.cache.put(key, doc, ATTACHMENT_CHARS)
        return doc

    def say(self, meta: dict) -> None:
        """The attachments not read, in a document's meta: how many, and the first NOT_READ_SAID with why; and
        the attachment cache kept within its cap."""
        if self.cache is not None:
            self.cache.trim()
        if self.not_read:
            meta["attachments_not_read"] = len(self.not_read)
            meta["attachments_not_read_why"] = self.not_read[:NOT_READ_SAID]


def attachment_sections(message: Message, section: Section, read: AttachmentsRead, first: int = 1,
                        whole: bool = True) -> list[Section]:
    """The passages of ``message``'s attachments of kinds Sift reads, each read by its kind's reader, under
    [its message's heading, 'Attachment: report.pdf', the attachment's own headings], at its message's lines
    (from ``first`` to ``section``'s last), dated as ``section`` is. Why one is not read is added to ``read``'s
    ('report.pdf (message 'Budget', line 13): encrypted'); ``whole``: whether the message was kept whole (its last
    attachment past MAX_MESSAGE_BYTES is cut, and not read)."""
    if not message.is_multipart() and not message.get("Content-Disposition"):
        return []  # most messages: a text alone (walking its parts took a sixth of reading a mailbox)
    from ingest.kinds import MAIL_EXTENSIONS, OUTLOOK_EXTENSIONS, kind_of, suffix
    heading = section.heading_path[0] if section.heading_path else "(no subject)"
    # an attachment, or a file shown inline (Apple Mail sends a PDF 'inline; filename=report.pdf'): not a body's text
    parts = [part for part in _leaves(message) if part.get_content_type() != "message/rfc822" and (
        _attached(part) or (part.get_filename() is not None and part.get_content_maintype() != "text"))]
    found, count = [], 0
    for name, content_type, size, load, last in _files(parts, read, heading, first, whole):
        reader_name = name.replace("/", "_")
        # a mail file attached is no file to read as one (a .msg in a .msg in a .msg … would be read without end)
        if kind_of(reader_name) is None or suffix(reader_name).lower() in MAIL_EXTENSIONS | OUTLOOK_EXTENSIONS:
            reader_name = "attachment" + TYPE_ENDINGS.get(content_type, "")
        if kind_of(reader_name) is None:
            continue  # a picture, an archive, a calendar invitation: named in its message's head only
        where = f"{name} (message '{heading}', line {first})"
        if count >= ATTACHMENTS:
            why = f"over {ATTACHMENTS} attachments in one message"
        elif size > ATTACHMENT_BYTES:
            why = f"{size / (1 << 20):,.2f} MiB, over the {ATTACHMENT_BYTES / (1 << 20):.3g} MiB an attachment is read to"
        elif not whole and last:
            why = f"past the first {MAX_MESSAGE_BYTES >> 20} MiB of its message, which are all that is kept"
        elif size > read.left:
            why = (f"past the {MAILBOX_ATTACHMENT_BYTES / (1 << 20):.3g} MiB of attachments a mail file is read to "
                   "(the ones before it are read)")
        else:
            why = None
        if why is None:
            count += 1
            read.left -= size
            try:
                doc = read.parse(reader_name, load())
            except Skip as exc:
                why = str(exc)
            except Exception as exc:  # noqa: BLE001 - one attachment's trouble must not cost its message
                why = what_is_wrong(exc)
        if why is not None:
            read.not_read.append(f"{where}: {why}")
            continue
        found += _attached_sections(doc, [heading, f"Attachment: {name}"], section, first)
    return found


def _files(parts: list[Message], read: AttachmentsRead, heading: str, first: int, whole: bool):
    """(name, type, size, its bytes when called, whether it is the message's last part) of each attached file of
    ``parts``: a part itself, or each file inside Outlook's winmail.dat (TNEF: ingest.tnef), which was named and
    never opened. Why a winmail.dat is not read is added to ``read``'s."""
    from ingest.tnef import is_tnef
    for at, part in enumerate(parts):
        name = " ".join(words(str(part.get_filename() or "")).split()) or "unnamed"
        last = at == len(parts) - 1
        if not is_tnef(part.get_content_type(), name):
            yield name, part.get_content_type(), _size(part), lambda part=part: part.get_payload(decode=True) or b"", last
            continue
        tnef, why = _tnef(part) if whole or not last else (None, "past the kept part of its message")
        if tnef is None:
            read.not_read.append(f"{name} (message '{heading}', line {first}): {why}")
            continue
        for inner, data in tnef.files:
            yield " ".join(inner.split()), "", len(data), lambda data=data: data, False


def _tnef(part: Message):
    """(the ingest.tnef.Tnef of a winmail.dat part, '') or (None, why it is not read); read once a part (its text
    and its files are both asked for)."""
    kept = getattr(part, "_sift_tnef", None)
    if kept is not None:
        return kept
    from ingest.tnef import read_tnef
    size = _size(part)
    if size > ATTACHMENT_BYTES:
        kept = None, f"{size / (1 << 20):,.2f} MiB, over the {ATTACHMENT_BYTES / (1 << 20):.3g} MiB an attachment is read to"
    else:
        try:
            kept = read_tnef(part.get_payload(decode=True) or b""), ""
        except ValueError as exc:
            kept = None, f"Outlook's TNEF not readable: {exc}"
    part._sift_tnef = kept
    return kept


def _attached_sections(doc: Document, path: list[str], section: Section, first: int) -> list[Section]:
    """An attachment's Document's sections as its message's: under ``path``, at its lines, dated with it, at
    most ATTACHMENT_CHARS of text (a PDF's page kept in the heading: its pages are not the mailbox's)."""
    found, chars = [], 0
    for part in doc.sections:
        if not part.text.strip():
            continue
        text = part.text[:max(0, ATTACHMENT_CHARS - chars)]
        if not text.strip():
            break
        chars += len(text)
        pages = [] if part.page is None else [
            f"page {part.page}" if part.end_page in (None, part.page) else f"pages {part.page}-{part.end_page}"]
        found.append(Section(text=text, heading_path=[*path, *part.heading_path, *pages],
                             start_line=first, end_line=section.end_line, dated=section.dated, tags=section.tags,
                             atomic=[(a, b) for a, b in part.atomic if b <= len(text)]))
    return found


def _body(message: Message, depth: int = 0) -> str:
    """The message's text: its text/plain part (each, when several), else its text/html's as a page reads; then
    each message attached to it (a mail forwarded as an attachment, message/rfc822) as ``_read`` reads it, headed
    by its sender, date and subject."""
    plain, html, attached, tnefs = [], [], [], []
    for part in _leaves(message):
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload(0) if isinstance(part.get_payload(), list) and part.get_payload() else None
            if inner is not None and depth < FORWARDS and any(inner.keys()):
                attached.append("Attached message:\n" + _read(inner, depth + 1)[0].text)
            continue
        if _is_tnef(part):
            tnefs.append(part)
            continue
        if part.get_content_maintype() != "text" or _attached(part):
            continue
        if part.get_content_type() == "text/plain":
            plain.append(part)
        elif part.get_content_type() == "text/html":
            html.append(part)
    texts = [_text(part) for part in plain]
    if not any(text.strip() for text in texts):  # none, or an empty stub beside the HTML a mailer really wrote
        texts = [_html_text(_text(part)) for part in html]
    if not any(text.strip() for text in texts):  # Outlook's rich text: its words only inside winmail.dat (TNEF)
        read = [tnef for tnef, _ in map(_tnef, tnefs) if tnef is not None and tnef.text.strip()]
        texts = [_html_text(tnef.text) if tnef.html else tnef.text for tnef in read]
    reply = REPLYING.match(_header(message, "Subject")) is not None
    return "\n\n".join([text for text in (without_quotes(t, reply) for t in texts) if text] + attached)


FORWARDS = 4  # attached messages read inside one another: deeper ones are only named


def _leaves(part: Message):
    """A message's parts that are not multipart, and its attached messages (message/rfc822) whole: their parts
    were read as the message's own (a forwarded mail's text/plain stood for an HTML-only message's text, and its
    sender was not said)."""
    if part.get_content_type() == "message/rfc822" or not part.is_multipart():
        yield part
        return
    for sub in part.get_payload():
        yield from _leaves(sub)


def _is_tnef(part: Message) -> bool:
    from ingest.tnef import is_tnef
    return is_tnef(part.get_content_type(), words(str(part.get_filename() or "")))


def _attached(part: Message) -> bool:
    return part.get_content_disposition() == "attachment" or (part.get_filename() is not None
                                                                and part.get_content_disposition() != "inline")


def _text(part: Message) -> str:
    payload = part.get_payload(decode=True) or b""
    if _not_base64(part):
        payload = str(part.get_payload(decode=False)).encode("ascii", "surrogateescape")
    return decode_part(payload, part.get_content_charset()).replace("\r\n", "\n").replace("\r", "\n")


NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=\s]|\S\s+\S")


def _not_base64(part: Message) -> bool:
    """Whether a part said to be base64 is text as it stands (most of its lines are not base64: spaces between
    words, punctuation): read as base64 it was noise ('N\x18�n�r��ej)…'). A list's footer added below a base64
    body is a line or two, and leaves it base64. A body of one word ('Thanks') is text when it is no base64 of
    UTF-8 text (its length not a multiple of 4, or its bytes no UTF-8): it was noise too."""
    if part.get("Content-Transfer-Encoding", "").strip().lower() != "base64":
        return False
    lines = [line.strip() for line in str(part.get_payload(decode=False)).splitlines() if line.strip()]
    if len(lines) == 1 and not NOT_BASE64.search(lines[0]):  # one word ('Thanks'): is it base64 of text?
        try:
            decoded = base64.b64decode(lines[0], validate=True)
            if (part.get_content_charset() or "utf-8").lower() in ("utf-8", "utf8", "us-ascii", "ascii"):
                decoded.decode("utf-8")
        except (binascii.Error, ValueError):  # UnicodeDecodeError too
            return True
    return sum(1 for line in lines if NOT_BASE64.search(line)) > len(lines) / 2


def decode_part(payload: bytes, charset: str | None) -> str:
    """A part's bytes as text: by its charset (GBK as GB18030 …) when that decodes them, else as a file is read
    (UTF-8, GB18030, Big5 or Windows-1252 by its bytes), else UTF-8 with U+FFFD for what is not."""
    if charset:
        charset = CHARSETS.get(charset.lower(), charset.lower())
        try:
            return payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return decode(payload)
    except Skip:
        return payload.decode("utf-8", "replace")


BLOCKQUOTE = re.compile(r"<blockquote\b.*?</blockquote\s*>", re.IGNORECASE | re.DOTALL)


def _html_text(html: str) -> str:
    """An HTML body's text, as ingest.webpage reads a page, without its <blockquote>s: the quoted message of a
    reply (Gmail's, Apple Mail's, Outlook's HTML)."""
    from ingest.webpage import parse_page
    html = BLOCKQUOTE.sub("", html)
    return "\n\n".join(section.text for section in parse_page("message.html", html).sections)


def without_quotes(text: str, reply: bool = False) -> str:
    """A body without what it quotes of the message before (``> `` lines and the ``On … wrote:`` line above
    them; an ``-----Original Message-----`` and all below; of a ``reply``, below its own text, Outlook's block of
    the message it quotes, 'From: …' / 'Sent: …', and all below) and without its signature (from a ``-- `` line).
    An Outlook reply kept each message before it whole: 'copper pipes' found Carol's words in every reply of the
    chain after hers, each its sender's."""
    kept: list[str] = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if SIGNATURE.match(line) or ORIGINAL.match(line) or reply and _outlook_quote(lines, index, kept):
            break
        if line.lstrip().startswith(">"):
            _drop_intro(kept)
            continue
        kept.append(line)
    _drop_intro(kept)  # an HTML reply's quote (its <blockquote> left out) leaves the 'On … wrote:' line last
    while kept and not kept[-1].strip():
        kept.pop()
    while kept and not kept[0].strip():
        kept.pop(0)
    return "\n".join(kept)


def _outlook_quote(lines: list[str], index: int, kept: list[str]) -> bool:
    """Whether line ``index`` begins Outlook's block above a quoted message, below the reply's own text (``kept``):
    then its line of underscores, where it writes one, is taken off ``kept``."""
    if not OUTLOOK_FROM.match(lines[index]) or index + 1 >= len(lines) or not QUOTED_NEXT.match(lines[index + 1]):
        return False
    while kept and (not kept[-1].strip() or UNDERSCORES.fullmatch(kept[-1])):
        kept.pop()
    return bool(kept)  # a reply of no text of its own keeps what it quotes


def _drop_intro(kept: list[str]) -> None:
    """Take the 'On … wrote:' line (one or two lines, a blank one between it and the quote) off ``kept``'s end."""
    end = len(kept)
    while end and not kept[end - 1].strip():
        end -= 1
    for start in (end - 1, end - 2):
        if start >= 0 and QUOTE_INTRO.match("\n".join(kept[start:end]).strip()):
            del kept[start:]
            return
