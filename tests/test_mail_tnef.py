"""Outlook's winmail.dat (TNEF, application/ms-tnef): a message sent in Outlook's rich text carries its text and its
attachments inside it. It was named, '(winmail.dat (application/ms-tnef, …))', and nothing in it was read
(ingest.tnef).

The TNEF here is built by ``tnef`` below, attribute by attribute as [MS-OXTNEF] 2.1.3 lays them out (a signature, a
key, then each attribute's level, id and type, length, data and checksum; MAPI properties as their count, then each
type, id, value count, length and value padded to 4): the file it writes was checked with Debian's ``tnef`` 1.4.18
(an independent C decoder: ``tnef -C out -f winmail.dat`` unpacks ``quarterly-report.txt`` with its text) and with
tnefparse's checksums on."""
from __future__ import annotations

import base64
import struct

from ingest.parse import parse_file


def attribute(level: int, kind: int, ident: int, data: bytes) -> bytes:
    """One TNEF attribute: level (1 the message's, 2 an attachment's), id (its type in the high word), length, data,
    checksum (the sum of its data's bytes)."""
    return struct.pack("<BII", level, (kind << 16) | ident, len(data)) + data + struct.pack("<H", sum(data) & 0xFFFF)


def mapi_props(*props: tuple[int, int, bytes]) -> bytes:
    out = struct.pack("<I", len(props))
    for kind, ident, value in props:
        out += struct.pack("<HHII", kind, ident, 1, len(value)) + value + b"\0" * (-len(value) % 4)
    return out


def tnef(body: str, files: dict[str, bytes], rtf: bytes = b"", long_names: bool = True) -> bytes:
    out = struct.pack("<IH", 0x223E9F78, 0x0001)
    out += attribute(1, 0x0008, 0x9006, struct.pack("<I", 0x00010000))  # attTnefVersion
    out += attribute(1, 0x0006, 0x9007, struct.pack("<II", 1252, 0))  # attOemCodepage
    out += attribute(1, 0x0007, 0x8008, b"IPM.Microsoft Mail.Note\0")  # attMessageClass
    if body:
        out += attribute(1, 0x0006, 0x9003, mapi_props((0x001E, 0x1000, body.encode("cp1252") + b"\0")))  # PR_BODY
    if rtf:  # Outlook's rich text: PR_RTF_COMPRESSED, its RTF compressed as [MS-OXRTFCP] says
        from compressed_rtf import compress
        out += attribute(1, 0x0006, 0x9003, mapi_props((0x0102, 0x1009, compress(rtf))))
    for name, data in files.items():
        out += attribute(2, 0x0006, 0x9002, struct.pack("<HIHHI", 1, 0xFFFFFFFF, 0xFFFF, 0xFFFF, 0))  # attAttachRendData
        title = name.encode("cp1252")[:8 if long_names else None]
        out += attribute(2, 0x0001, 0x8010, title + b"\0")  # attAttachTitle: an 8.3 name (or the name alone)
        out += attribute(2, 0x0006, 0x800F, data)  # attAttachData
        if long_names:
            out += attribute(2, 0x0006, 0x9005, mapi_props((0x001E, 0x3707, name.encode("cp1252") + b"\0")))
    return out


def outlook_mail(winmail: bytes, plain: str = "") -> bytes:
    """A message as Exchange sends Outlook's rich text to another mailer: its text only in winmail.dat, or a plain
    part beside it."""
    parts = [f"Content-Type: text/plain; charset=us-ascii\n\n{plain}\n"] if plain else []
    parts.append("Content-Type: application/ms-tnef; name=\"winmail.dat\"\nContent-Transfer-Encoding: base64\n"
                 "Content-Disposition: attachment; filename=\"winmail.dat\"\n\n"
                 + base64.encodebytes(winmail).decode())
    return ("From: Anna Keller <anna@example.com>\nTo: Bo <bo@example.com>\nSubject: Q3 figures\n"
            "Date: Tue, 05 Mar 2024 09:00:00 +0000\nMIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"XX\"\n\n"
            + "".join(f"--XX\n{part}\n" for part in parts) + "--XX--\n").encode()


WINMAIL = tnef("The quarterly figures are in the attached sheet.",
               {"quarterly-report.txt": b"Revenue rose 12 percent in the third quarter.\n"})


def test_a_winmail_dats_text_and_attachments_are_read(sift_env):
    doc = parse_file("q3.eml", outlook_mail(WINMAIL))
    read = {" > ".join(s.heading_path): s.text for s in doc.sections}
    assert "The quarterly figures are in the attached sheet." in read["Q3 figures"], read
    assert "winmail.dat (application/ms-tnef, " in read["Q3 figures"] and "holding quarterly-report.txt)" \
        in read["Q3 figures"], read
    assert "Revenue rose 12 percent" in read["Q3 figures > Attachment: quarterly-report.txt"], read
    # a plain part beside it is the message's text: the TNEF's copy of it is not read twice
    doc = parse_file("q3.eml", outlook_mail(WINMAIL, plain="Figures attached, see the sheet."))
    assert "Figures attached" in doc.sections[0].text and "quarterly figures" not in doc.sections[0].text, doc
    assert any("Revenue rose" in s.text for s in doc.sections[1:]), doc.sections


def test_a_winmail_dat_that_is_no_tnef_is_said_and_its_message_read(sift_env):
    doc = parse_file("q3.eml", outlook_mail(b"not a TNEF at all", plain="Figures attached."))
    assert "Figures attached." in doc.sections[0].text, doc
    assert len(doc.sections) == 1 and doc.meta["attachments_not_read"] == 1, doc.meta
    assert "winmail.dat (message 'Q3 figures', line 1): Outlook's TNEF not readable" \
        in doc.meta["attachments_not_read_why"][0], doc.meta


def test_a_winmail_dats_rich_text_is_read_as_its_words(sift_env):
    """Outlook's rich text keeps a message's words only as compressed RTF (PR_RTF_COMPRESSED): read as text."""
    rtf = (rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fswiss Arial;}}\f0\fs20 The shed roof "
           rb"needs \b zinc\b0  gutters.\par Caf\'e9 at noon.\par}")
    doc = parse_file("q3.eml", outlook_mail(tnef("", {}, rtf=rtf)))
    text = doc.sections[0].text
    assert "The shed roof needs zinc gutters." in text and "Café at noon." in text, text
    assert "fonttbl" not in text and "Arial" not in text, text


def test_a_winmail_dats_file_named_in_its_code_page_alone_is_read(sift_env):
    """A file named by its title alone (no long name property), in the message's code page ('März.txt' in
    cp1252): tnefparse decodes that name as UTF-8 and raised, and the whole winmail.dat was 'not readable', its
    text and every file in it lost for one name."""
    winmail = tnef("Die Zahlen vom März im Anhang.", {"Umsatz März.txt": b"Der Umsatz stieg um 12 Prozent.\n"},
                   long_names=False)
    doc = parse_file("q3.eml", outlook_mail(winmail))
    read = {" > ".join(s.heading_path): s.text for s in doc.sections}
    assert "Die Zahlen vom März im Anhang." in read["Q3 figures"], read
    assert "Der Umsatz stieg" in read["Q3 figures > Attachment: Umsatz März.txt"], read
    assert "attachments_not_read" not in doc.meta, doc.meta
