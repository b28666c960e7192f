"""Outlook's saved message (``.msg``: File > Save As, or a message dragged out of Outlook on Windows), which Sift
did not read at all: a lawyer's folder of correspondence with opposing counsel was a kind Sift does not read.

A .msg is an OLE2 compound file ([MS-CFB]) of the message's MAPI properties ([MS-OXMSG]), read with ``olefile``:
its property stream ``__properties_version1.0`` (fixed-size values: the time sent, the code page), a stream a
string or binary property (``__substg1.0_0037001F``, the Subject: property id, then its type, 001F UTF-16LE or 001E
8-bit text in the message's code page), a storage a recipient (``__recip_version1.0_#00000000``) and an attachment
(``__attach_version1.0_#00000000``: its long file name, its MIME type, its bytes; or a message attached to it, a
storage of its own). The message is written out as the mail it was (``as_mail``: its From, To, Cc, Date, Subject,
Message-ID, In-Reply-To and References; its plain body, else its HTML body, else its rich text; its files as
attachments; a message attached to it as message/rfc822) and read as an ``.eml`` is (``ingest.mail.parse_eml``):
its head, its people, its date, its body without quotes and signature, its attachments of kinds Sift reads read as
the message's own, its thread among the collection's mail. The headers Outlook kept of a received message
(``PR_TRANSPORT_MESSAGE_HEADERS``) fill in what its properties lack (its Date with the sender's offset, its
Message-ID and References).
"""
from __future__ import annotations

import base64
import io
import re
import struct
from datetime import datetime, timedelta, timezone
from email.utils import encode_rfc2231, format_datetime

from ingest.document import Document, Skip

SUBJECT, BODY, HTML, RTF = 0x0037, 0x1000, 0x1013, 0x1009
SENDER_NAME, SENDER_ADDRESS, SENDER_SMTP = 0x0C1A, 0x0C1F, 0x5D01
DISPLAY_TO, DISPLAY_CC = 0x0E04, 0x0E03
SUBMIT_TIME, DELIVERY_TIME = 0x0039, 0x0E06
MESSAGE_ID, IN_REPLY_TO, REFERENCES, HEADERS = 0x1035, 0x1042, 0x1039, 0x007D
CODE_PAGE, INTERNET_CPID = 0x3FFD, 0x3FDE
# of a recipient: its name, address (SMTP where Exchange wrote an X500 one), and whether To (1), Cc (2) or Bcc (3)
RECIPIENT_NAME, RECIPIENT_ADDRESS, RECIPIENT_SMTP, RECIPIENT_TYPE = 0x3001, 0x3003, 0x39FE, 0x0C15
# of an attachment: its long and short file names, its display name, MIME type, bytes, and how it is attached
LONG_NAME, SHORT_NAME, DISPLAY_NAME, MIME_TAG, DATA, METHOD = 0x3707, 0x3704, 0x3001, 0x370E, 0x3701, 0x3705
EMBEDDED = 5  # PR_ATTACH_METHOD's ATTACH_EMBEDDED_MSG: a message attached, its storage __substg1.0_3701000D
UNICODE, STRING8, BINARY, LONG, TIME = 0x001F, 0x001E, 0x0102, 0x0003, 0x0040
# of the property stream, the header before its 16-byte entries: a message's 32 bytes, an attached message's 24,
# an attachment's or recipient's 8
TOP_HEADER, EMBEDDED_HEADER, OBJECT_HEADER = 32, 24, 8
STORAGES = 2048  # attachments (and recipients) of one message, [MS-OXMSG]'s most
NESTED = 4  # messages attached inside one another that are read (ingest.mail.FORWARDS): deeper ones are named
CODE_PAGES = {65001: "utf-8", 20127: "ascii", 1200: "utf-16-le", 1201: "utf-16-be", 936: "gb18030", 54936: "gb18030",
              28591: "cp1252", 50220: "iso2022_jp", 50221: "iso2022_jp", 50222: "iso2022_jp", 51932: "euc_jp",
              20866: "koi8_r", 21866: "koi8_u", 51949: "euc_kr"}  # else cp<number> (cp1252, cp1251, cp932 …)
FILETIME_EPOCH = datetime(1601, 1, 1, tzinfo=timezone.utc)
OLE_SIGNATURE = bytes.fromhex("D0CF11E0A1B11AE1")  # [MS-CFB]'s header's first bytes


def parse_msg(path: str, data: bytes) -> Document:
    """A .msg read as an .eml is: a note titled by its Subject (ingest.mail.parse_eml), its passages at the lines
    read_file shows of it (``msg_text``)."""
    return _read(path, data)[0]


def msg_text(data: bytes, path: str):
    """The .msg as read_file shows it (an ingest.word.WordText: its lines, its headings): its Subject, the message
    as indexed (its head, its body), then each attachment read, under a line naming it ('Attachment: terms.txt').
    The bytes are an OLE2 file: read_file called it binary, and a hit's lines were those of no text."""
    from ingest.word import WordText
    doc, lines, headings = _read(path, data)
    return WordText(lines=lines, headings=headings, title=doc.title)


def _read(path: str, data: bytes) -> tuple[Document, list[str], list[tuple[int, int, str]]]:
    """(the Document, the lines read_file shows, its headings as (line, 0-based, level, name)): each section put
    at its text's lines."""
    from ingest.mail import parse_eml
    mail, said = as_mail(data)
    doc = parse_eml(path, mail)
    if said:  # its rich-text body could not be read: said in its listing, as a part left out is
        doc.meta["cut_short"] = "; ".join(filter(None, (doc.meta.get("cut_short"), said)))
    lines, headings, under = [], [], None
    for section in doc.sections:
        if not headings or section.heading_path[1:2] != under:  # the message, then each attachment, a heading
            under = section.heading_path[1:2]
            name = " > ".join(section.heading_path[:1] if not headings else under)
            headings.append((len(lines), 1 if not headings else 2, name))
            lines += [name, ""]
        section.start_line = len(lines) + 1
        lines += section.text.split("\n")
        section.end_line = len(lines)
        lines.append("")
    return doc, lines, headings


def as_mail(data: bytes) -> tuple[bytes, str]:
    """(the .msg ``data`` written as an RFC 5322 message, what of it could not be read ('' when all could)); Skip
    for a file that is no Outlook message."""
    import olefile
    from ingest.unreadable import Unreadable
    try:
        ole = olefile.OleFileIO(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - olefile's refusals are OSError, its stumbles on damage anything
        if not data.startswith(OLE_SIGNATURE):
            raise Skip(f"not an Outlook message: not an OLE2 compound file ({_said(exc)})") from None
        raise Unreadable(f"Outlook message not readable: its OLE2 file is damaged or cut short ({_said(exc)})") \
            from None
    try:
        if not ole.exists("__properties_version1.0") and not any(
                entry[0].lower().startswith("__substg1.0_") for entry in ole.listdir(streams=True, storages=False)):
            raise Skip("not an Outlook message: an OLE2 compound file without a message's properties (a .msg of "
                       "another program)")
        said: list[str] = []
        return _message(_Storage(ole, [], TOP_HEADER), 0, said), "; ".join(said)
    except Skip:
        raise
    except Exception as exc:  # noqa: BLE001 - a damaged container is a reason, not a crash of its folder
        raise Unreadable(f"Outlook message not readable: its OLE2 file is damaged ({_said(exc)})") from None
    finally:
        ole.close()


def _said(exc: Exception) -> str:
    """olefile's words for what is wrong ('incomplete OLE sector'), on one line, short."""
    return " ".join(str(exc).split())[:200] or type(exc).__name__


class _Storage:
    """A message's, recipient's or attachment's storage: its properties by id."""

    def __init__(self, ole, path: list[str], header: int):
        self.ole, self.path = ole, path
        self.fixed: dict[int, tuple[int, bytes]] = {}  # id -> (type, its 8 bytes) of the property stream
        stream = self._read("__properties_version1.0")
        if stream is not None:
            for at in range(header, len(stream) - 15, 16):
                tag, _, value = struct.unpack_from("<II8s", stream, at)
                self.fixed[tag >> 16] = (tag & 0xFFFF, value)
        self.cpid = self.number(INTERNET_CPID) or self.number(CODE_PAGE)

    def _read(self, name: str) -> bytes | None:
        where = [*self.path, name]
        return self.ole.openstream(where).read() if self.ole.exists("/".join(where)) else None

    def number(self, pid: int) -> int | None:
        kind, value = self.fixed.get(pid, (None, b""))
        return struct.unpack_from("<i", value)[0] if kind == LONG else None

    def time(self, pid: int) -> datetime | None:
        kind, value = self.fixed.get(pid, (None, b""))
        if kind != TIME:
            return None
        ticks = struct.unpack_from("<Q", value)[0]
        try:
            return FILETIME_EPOCH + timedelta(microseconds=ticks // 10)
        except OverflowError:
            return None

    def binary(self, pid: int) -> bytes | None:
        return self._read(f"__substg1.0_{pid:04X}{BINARY:04X}")

    def text(self, pid: int, cpid: int | None = None) -> str:
        """A string property: UTF-16LE (001F), else 8-bit text in the message's code page (001E); '' for none."""
        wide = self._read(f"__substg1.0_{pid:04X}{UNICODE:04X}")
        if wide is not None:
            return wide.decode("utf-16-le", "replace").split("\x00", 1)[0]
        narrow = self._read(f"__substg1.0_{pid:04X}{STRING8:04X}")
        return "" if narrow is None else in_code_page(narrow.split(b"\x00", 1)[0], cpid or self.cpid)

    def storages(self, prefix: str) -> list[list[str]]:
        """The paths of this storage's sub-storages named ``prefix``#XXXXXXXX, in order, at most STORAGES."""
        found = set()
        for entry in self.ole.listdir(streams=True, storages=True):
            if len(entry) > len(self.path) and [p.lower() for p in entry[:len(self.path)]] == \
                    [p.lower() for p in self.path] and entry[len(self.path)].lower().startswith(prefix):
                found.add(entry[len(self.path)])
        return [[*self.path, name] for name in sorted(found, key=str.lower)[:STORAGES]]


def in_code_page(raw: bytes, cpid: int | None) -> str:
    """8-bit text in Windows code page ``cpid`` (None: read as a file is, ingest.decode)."""
    from ingest.mail import decode_part
    return decode_part(raw, CODE_PAGES.get(cpid, f"cp{cpid}") if cpid else None)


def _message(store: _Storage, depth: int, said: list[str]) -> bytes:
    """The message of ``store`` as RFC 5322 bytes: its headers, its body, its attachments (multipart/mixed)."""
    kept = _kept_headers(store.text(HEADERS))
    sender = _sender(store)
    to, cc = _recipients(store)
    when = store.time(SUBMIT_TIME) or store.time(DELIVERY_TIME)
    headers = [("From", sender or kept.get("from", "")),
               ("To", to or _names(store.text(DISPLAY_TO)) or kept.get("to", "")),
               ("Cc", cc or _names(store.text(DISPLAY_CC)) or kept.get("cc", "")),
               ("Date", kept.get("date") or (format_datetime(when) if when else "")),
               ("Subject", store.text(SUBJECT) or kept.get("subject", "")),
               ("Message-ID", store.text(MESSAGE_ID) or kept.get("message-id", "")),
               ("In-Reply-To", store.text(IN_REPLY_TO) or kept.get("in-reply-to", "")),
               ("References", store.text(REFERENCES) or kept.get("references", ""))]
    boundary = f"sift-msg-{depth}-boundary"
    lines = [f"{name}: {_one_line(value)}" for name, value in headers if value.strip()]
    lines += ["MIME-Version: 1.0", f'Content-Type: multipart/mixed; boundary="{boundary}"', ""]
    parts = [_body(store, said)]
    for path in store.storages("__attach_version1.0_#"):
        parts.append(_attachment(store.ole, path, depth, said))
    out = "\n".join(lines).encode("utf-8") + b"\n"
    for part in filter(None, parts):
        out += f"--{boundary}\n".encode() + part + b"\n"
    return out + f"--{boundary}--\n".encode()


def _kept_headers(text: str) -> dict[str, str]:
    """The headers of a received message as Outlook kept them (PR_TRANSPORT_MESSAGE_HEADERS), by lower-case name."""
    if not text.strip():
        return {}
    from email.parser import Parser
    from email import policy
    head = Parser(policy=policy.compat32).parsestr(text, headersonly=True)
    return {key.lower(): str(value) for key, value in reversed(head.items())}


def _one_line(value: str) -> str:
    return " ".join(value.replace("\x00", "").split())


def _sender(store: _Storage) -> str:
    name = store.text(SENDER_NAME)
    address = next((a for a in (store.text(SENDER_SMTP), store.text(SENDER_ADDRESS)) if "@" in a), "")
    return _address(name, address)


def _names(display: str) -> str:
    """Outlook's display To or Cc ('Bo Berg; Carl Cho': names alone, ';' between) as a mail's To line."""
    return ", ".join(filter(None, (_address(name, "") for name in display.split(";"))))


def _address(name: str, address: str) -> str:
    name = _one_line(name).replace('"', "'").replace("\\", "")
    if not address:  # a name alone ('Иван Петров', Outlook's display To): quoted, or its words were taken apart
        return f'"{name}"' if name else ""
    return f'"{name}" <{address}>' if name and name != address else address


def _recipients(store: _Storage) -> tuple[str, str]:
    """(To, Cc) as mail writes them, from the message's recipients' storages; ('', '') where it has none."""
    to, cc = [], []
    for path in store.storages("__recip_version1.0_#"):
        recipient = _Storage(store.ole, path, OBJECT_HEADER)
        recipient.cpid = recipient.cpid or store.cpid
        kind = recipient.number(RECIPIENT_TYPE)
        address = next((a for a in (recipient.text(RECIPIENT_SMTP), recipient.text(RECIPIENT_ADDRESS)) if "@" in a), "")
        said = _address(recipient.text(RECIPIENT_NAME), address)
        if said and kind in (1, None):
            to.append(said)
        elif said and kind == 2:
            cc.append(said)
    return ", ".join(to), ", ".join(cc)


def _body(store: _Storage, said: list[str]) -> bytes:
    """The message's text as a MIME part: its plain body, else its HTML body, else its compressed rich text read
    as text (as a winmail.dat's is, ingest.tnef); b'' for none."""
    plain = store.text(BODY)
    if plain.strip():
        return _part("text/plain; charset=utf-8", plain.encode("utf-8"))
    html = store.binary(HTML)
    if html is None and store.text(HTML):  # written as a string by some programs
        html = store.text(HTML).encode("utf-8")
        return _part("text/html; charset=utf-8", html)
    if html:
        charset = CODE_PAGES.get(store.cpid, f"cp{store.cpid}") if store.cpid else "utf-8"
        return _part(f"text/html; charset={charset}", html)
    rtf = store.binary(RTF)
    if rtf:
        text = rtf_text(rtf)
        if text.strip():
            return _part("text/plain; charset=utf-8", text.encode("utf-8"))
        said.append("its body is rich text (RTF) that could not be read")
    return b""


def rtf_text(compressed: bytes) -> str:
    """The text of a compressed RTF body ([MS-OXRTFCP], compressed_rtf; its RTF read by striprtf); '' for one
    that does not unpack."""
    try:
        from compressed_rtf import decompress
        from striprtf.striprtf import rtf_to_text
        return rtf_to_text(decompress(compressed).decode("latin-1"), errors="ignore").strip()
    except Exception:  # noqa: BLE001 - a damaged RTF body: said as not read
        return ""


def _attachment(ole, path: list[str], depth: int, said: list[str]) -> bytes:
    """An attachment's MIME part: a file (base64, by its long name and MIME type), or a message attached
    (message/rfc822, read to NESTED deep); b'' for one of neither."""
    attached = _Storage(ole, path, OBJECT_HEADER)
    name = _one_line(attached.text(LONG_NAME) or attached.text(SHORT_NAME) or attached.text(DISPLAY_NAME))
    inner = [*path, "__substg1.0_3701000D"]
    if attached.number(METHOD) == EMBEDDED or ole.exists("/".join(inner)):
        if depth + 1 >= NESTED or not ole.exists("/".join(inner)):
            return _part("application/vnd.ms-outlook", b"", name or "attached message.msg")
        message = _message(_Storage(ole, inner, EMBEDDED_HEADER), depth + 1, said)
        return b"Content-Type: message/rfc822\nContent-Disposition: attachment\n\n" + message
    data = attached.binary(DATA)
    if data is None:
        return b""
    kind = _one_line(attached.text(MIME_TAG)) or "application/octet-stream"
    return _part(kind if re.fullmatch(r"[\w.+-]+/[\w.+-]+", kind, re.ASCII) else "application/octet-stream", data,
                 name or "unnamed")


def _part(content_type: str, data: bytes, name: str | None = None) -> bytes:
    """A MIME part of ``data``, base64 (a body's lines as they are, a file's bytes whatever they hold)."""
    head = [f"Content-Type: {content_type}", "Content-Transfer-Encoding: base64"]
    if name is not None:
        head.append(f"Content-Disposition: attachment; filename*={encode_rfc2231(name, 'utf-8')}")
    encoded = base64.encodebytes(data).decode("ascii")
    return ("\n".join(head) + "\n\n" + encoded).encode("ascii")
