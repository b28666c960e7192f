"""Outlook's ``winmail.dat`` (TNEF, Transport Neutral Encapsulation Format, ``application/ms-tnef``): a message sent
in Outlook's rich text, or through Exchange to a mailer that is not Outlook, carries its text and its attachments
inside this one attachment. It was named, '(winmail.dat (application/ms-tnef, 41 KB))', and nothing in it was read:
the PDF a colleague sent, and the message's words where they are only in there, were not found.

Read with ``tnefparse`` (the Python TNEF reader, pure Python, no dependencies: the container's attributes and the
MAPI properties inside them, which are fiddly to walk by hand: a property of any of 20 types, multi-valued, named
by GUID), its compressed RTF body unpacked by ``compressed_rtf`` ([MS-OXRTFCP]) and its RTF read as text by
``striprtf``. What is read: the message's text (its plain body, else its HTML one, else its RTF) and its attached
files (each by its long file name, its bytes), at most TNEF_FILES of them; an embedded message's attachments are not
read (named only)."""
from __future__ import annotations

from dataclasses import dataclass

TNEF_TYPES = {"application/ms-tnef", "application/vnd.ms-tnef"}
TNEF_FILES = 50  # of one winmail.dat, the attached files taken (each is then bounded as any attachment is)


@dataclass
class Tnef:
    text: str  # the message's text, '' where it has none
    html: bool  # whether ``text`` is HTML (read then as a page's)
    files: list[tuple[str, bytes]]  # (name, bytes) of each attached file


def is_tnef(content_type: str, name: str) -> bool:
    """Whether an attachment is Outlook's TNEF: by its type, or by its name (a mailer sending it as octets)."""
    return content_type.lower() in TNEF_TYPES or name.lower() in ("winmail.dat", "win.dat")


def read_tnef(data: bytes) -> Tnef:
    """A winmail.dat's text and files; ValueError for bytes that are no TNEF (or that tnefparse cannot read)."""
    from tnefparse import TNEF
    try:
        tnef = TNEF(data, do_checksum=False)
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001 - a damaged container is a reason, not a crash of its mailbox
        from ingest.unreadable import Unreadable, what_is_wrong
        raise Unreadable(f"not readable as TNEF: {what_is_wrong(exc)}") from None
    text, html = _text(tnef.body), False
    if not text.strip() and tnef.htmlbody:
        text, html = _text(tnef.htmlbody), True
    if not text.strip():
        text = _rtf_text(tnef)
    files = []
    for attachment in tnef.attachments[:TNEF_FILES]:
        data_ = attachment.data if isinstance(attachment.data, bytes) else b""
        name = _name(attachment).strip("\x00 ") or "unnamed"
        if data_ and not hasattr(attachment, "embed"):  # an embedded message's bytes are not a file
            files.append((name, data_))
    return Tnef(text=text.replace("\r\n", "\n").replace("\r", "\n").strip("\x00").strip(), html=html, files=files)


def _text(value) -> str:
    """A TNEF string: text as tnefparse gives it, or its bytes (8-bit, the message's code page) read as a file is."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.rstrip("\x00")
    from ingest.mail import decode_part
    return decode_part(bytes(value).rstrip(b"\x00"), None)


def _name(attachment) -> str:
    """An attached file's name: its long name, else its title. tnefparse decodes a title as UTF-8, and one in the
    message's code page ('März.txt' in cp1252, where no long name is given) raised: the whole winmail.dat was 'not
    readable', its text and every file in it lost for one name. Read as a file's bytes are then."""
    try:
        return _text(attachment.long_filename())
    except UnicodeDecodeError:
        return _text(getattr(attachment, "_name", b""))


def _rtf_text(tnef) -> str:
    """The text of a TNEF's compressed RTF body ('' for none, or one that does not unpack)."""
    try:
        rtf = tnef.rtfbody
    except Exception:  # noqa: BLE001 - a damaged RTF body: the message's other text stands
        return ""
    if not rtf:
        return ""
    from striprtf.striprtf import rtf_to_text
    try:
        return rtf_to_text(rtf.decode("latin-1") if isinstance(rtf, bytes) else rtf, errors="ignore")
    except Exception:  # noqa: BLE001
        return ""
