"""Mail whose multipart parts nest 2,000 deep (a part holding a part holding a part …): the email package recurses
a few frames a level, and the .eml failed with 'RecursionError: maximum recursion depth exceeded', a reason no user
understands (an .mbox's message the same). Parts past ingest.mail.MAX_NESTING are now left unread before parsing,
the rest of the message indexed and the reason said ('mail nested 2,000 parts deep: read to depth 100')."""
from __future__ import annotations

from ingest import mail
from ingest.document import Skip

import pytest


def _deep(levels: int, text: bytes = b"the okapi at the bottom\n") -> bytes:
    out = [b"From: Anna <anna@example.org>\nSubject: Nested\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n"
           b"MIME-Version: 1.0\n"]
    for level in range(levels):
        out.append(b'Content-Type: multipart/mixed; boundary="b%d"\n\n--b%d\n' % (level, level))
    out.append(b"Content-Type: text/plain\n\n" + text)
    out += [b"--b%d--\n" % level for level in reversed(range(levels))]
    return b"".join(out)


def test_an_eml_nested_2000_deep_is_read_to_a_depth_and_says_so():
    doc = mail.parse_eml("deep.eml", _deep(2_000))
    assert doc.title == "Nested"
    assert doc.meta["cut_short"] == f"mail nested 2,000 parts deep: read to depth {mail.MAX_NESTING}"
    assert "Subject: Nested" in doc.sections[0].text


def test_mail_nested_within_the_bound_is_read_whole():
    doc = mail.parse_eml("deep.eml", _deep(mail.MAX_NESTING))
    assert "cut_short" not in doc.meta
    assert "the okapi at the bottom" in doc.sections[0].text
    parts = b"".join(b'--top\nContent-Type: multipart/mixed; boundary="s%d"\n\n--s%d\nContent-Type: text/plain\n\n'
                     b"part %d\n--s%d--\n" % (n, n, n, n) for n in range(mail.MAX_NESTING + 5))
    wide = b'From: a@example.org\nSubject: Wide\nContent-Type: multipart/mixed; boundary="top"\n\n' + parts + b"--top--\n"
    doc = mail.parse_eml("wide.eml", wide)  # many parts side by side: not deep
    assert "cut_short" not in doc.meta and f"part {mail.MAX_NESTING + 4}" in doc.sections[0].text


def test_an_mbox_message_nested_2000_deep_costs_only_its_depth():
    box = b"".join(b"From anna@example.org Mon Jan  1 10:00:00 2024\n" + _deep(levels, b"okapi %d\n" % levels) + b"\n"
                   for levels in (2, 2_000, 3))
    doc = mail.parse_mbox("deep.mbox", box)
    assert doc.meta["messages"] == 3 and "unreadable_messages" not in doc.meta
    assert doc.meta["cut_short"] == f"the message at line 18: mail nested 2,000 parts deep: read to depth {mail.MAX_NESTING}"
    text = "\n".join(section.text for section in doc.sections)
    assert "okapi 2" in text and "okapi 3" in text and "okapi 2000" not in text


def test_forwards_nested_past_the_bound_are_skipped_with_a_reason():
    data = (b"From: a@example.org\nSubject: Fw\n"
            + b"Content-Type: message/rfc822\n\nFrom: a@example.org\nSubject: Fw\n" * 3_000 + b"\nhi\n")
    with pytest.raises(Skip, match="mail nested too deep to read"):
        mail.parse_eml("forwarded.eml", data)
