"""An Outlook reply chain: each reply carries the messages before it below its own text, each under the header block
Outlook writes (From, Sent, To, Cc, Subject; no '-----Original Message-----' line above it). A reply's is left out,
as a quote is; a forward keeps the chain. A passage the chunker began inside that block, at its To, Cc or Subject
line, named no sender (the line read as the head of a message of no From: a draft's), so author='Bo' missed Bo's
own forward there. A passage's sender is its message's, wherever in the block it begins."""
from __future__ import annotations

import sqlite3

import pytest

from tests.conftest import built_once, in_home, ingest_keyword_only, write_tree

WORDS = ("the roof budget, the zinc gutters and the scaffolding need another look before spring, and the roofer "
         "wants an answer by Friday")


def _block(sender: str, sent: str, to: str, cc: str, subject: str) -> str:
    return f"From: {sender}\r\nSent: {sent}\r\nTo: {to}\r\nCc: {cc}\r\nSubject: {subject}\r\n\r\n"


def _said(who: str, n: int) -> str:
    return "\r\n\r\n".join(f"{who}'s point {k}: {WORDS[:20 + 7 * ((n + k) % 13)]}." for k in range(2 + n % 3))


TURNS = 30
CAROL = "Carol Jones <carol@example.com>"
BO = "Bo Lind <bo@example.com>"
DAN = "Dan Weber <dan@example.com>"


def _chain() -> str:
    """Bo's forward of TURNS turns between Carol and Bo to Dan, as Outlook writes it."""
    body = _said("Bo", 0)
    for turn in range(1, TURNS):
        who, other = (CAROL, BO) if turn % 2 else (BO, CAROL)
        body += "\r\n\r\n" + _block(who, f"Monday, March 4, 2024 {turn % 12 + 1}:{10 + turn} PM", other, DAN,
                                    "Budget" if turn == TURNS - 1 else "RE: Budget") + _said(who.split()[0], turn)
    return (f"From: {BO}\r\nTo: {DAN}\r\nSubject: FW: Budget\r\nMessage-ID: <b12@example.com>\r\n"
            "Date: Tue, 12 Mar 2024 09:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "\r\n" + body + "\r\n")


def _build(folder):
    root = write_tree(folder / "notes", {"about.md": "# House\n\nThe house and its garden.\n"})
    (root / "Mail").mkdir()
    (root / "Mail" / "RE Budget.eml").write_bytes(_chain().encode())
    ingest_keyword_only(root)


@pytest.fixture(scope="module")
def home(tmp_path_factory, model_path):
    return built_once(tmp_path_factory, model_path, _build)


def test_a_passage_begun_inside_outlooks_block_is_its_messages(home, model_path, monkeypatch):
    from search.query.authors import mail_senders
    conn = sqlite3.connect(in_home(home, model_path, monkeypatch))
    passages = conn.execute("SELECT ch.id, ch.text FROM chunks ch JOIN files f ON f.id = ch.file "
                            "WHERE f.path LIKE '%.eml' ORDER BY ch.ordinal").fetchall()
    inside = [chunk for chunk, text in passages if text.startswith(("To: ", "Cc: ", "Subject: "))]
    assert len(passages) > 5 and inside, passages  # the chunker cut the chain inside Outlook's blocks
    said = dict(mail_senders(conn))
    assert [said.get(chunk) for chunk, _ in passages] == [BO] * len(passages), said  # none Carol's, none no one's


def test_a_drafts_head_still_names_no_sender():
    from search.query.authors import senders
    own = "From: Bo Lind <bo@example.com>\nTo: Carol Jones <carol@example.com>\nDate: Tuesday 5 March 2024 09:00"
    quoted = "To: Bo Lind <bo@example.com>\nCc: Dan Weber <dan@example.com>\nSubject: RE: Budget\n\nCarol's point"
    assert senders([(1, 7, own), (2, 7, quoted)])[1] == (2, "Bo Lind <bo@example.com>")
    mac = "Date: Monday, 4 March 2024 at 17:12\nTo: Bo Lind <bo@example.com>\nSubject: Budget\n\nCarol's point"
    assert senders([(1, 7, own), (2, 7, mac)])[1] == (2, "Bo Lind <bo@example.com>")
    for draft in ("To: Carol Jones <carol@example.com>\nDate: Tuesday 5 March 2024 10:00\nSubject: Plan\n\nA plan",
                  "To: Carol Jones <carol@example.com>\nSubject: Plan\nAttachments: plan.pdf\n\nA plan",
                  "To: Carol Jones <carol@example.com>\nSubject: Plan"):  # cut before its blank line: not told
        assert senders([(1, 7, own), (2, 7, draft)]) == [(1, "Bo Lind <bo@example.com>")], draft


def test_an_outlook_replys_quote_is_left_out_a_forwards_kept():
    from ingest.parse import parse_file
    reply = _chain().replace("Subject: FW: Budget", "Subject: RE: Budget")
    said = parse_file("Mail/RE Budget.eml", reply.encode()).sections[0].text
    assert "Bo's point 0" in said and "Carol's point" not in said and "Sent:" not in said, said
    underlined = reply.replace("\r\n\r\nFrom: ", "\r\n\r\n________________________________\r\nFrom: ", 1)
    assert parse_file("Mail/RE Budget.eml", underlined.encode()).sections[0].text == said  # its line of underscores too
    german = reply.replace("From: Carol", "Von: Carol", 1).replace("\r\nSent: ", "\r\nGesendet: ", 1)
    assert parse_file("Mail/AW Budget.eml", german.encode()).sections[0].text == said
    forward = parse_file("Mail/FW Budget.eml", _chain().encode()).sections[0].text
    assert "Carol's point" in forward, forward


def test_an_outlook_html_replys_quote_is_left_out():
    """Outlook's HTML reply: its block is a paragraph of bold names and line breaks under a grey rule."""
    from ingest.parse import parse_file
    html = ("<html><body><div class=WordSection1><p class=MsoNormal>Thanks, I booked the roofer for Friday.</p>"
            "<p class=MsoNormal>&nbsp;</p><div style='border:none;border-top:solid #E1E1E1 1.0pt'>"
            "<p class=MsoNormal><b>From:</b> Carol Jones &lt;carol@example.com&gt; <br><b>Sent:</b> Monday, March 4, "
            "2024 5:12 PM<br><b>To:</b> Bo Lind &lt;bo@example.com&gt;<br><b>Subject:</b> Budget</p></div>"
            "<p class=MsoNormal>Copper pipes would outlast the house, I think.</p></div></body></html>")
    mail = (f"From: {BO}\nTo: {CAROL}\nSubject: RE: Budget\nDate: Tue, 05 Mar 2024 09:00:00 +0000\n"
            f"MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n{html}\n")
    said = parse_file("Mail/RE Budget.eml", mail.encode()).sections[0].text
    assert said.endswith("\n\nThanks, I booked the roofer for Friday."), said
