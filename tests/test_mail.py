"""Mail kept as files (ingest.mail): saved .eml messages and a Takeout .mbox, read by the real pipeline (huey in
immediate mode, SQLite) and searched with the real engine. Before, both were kinds Sift did not read."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.mail_corpus import message, write
from ingest.document import Skip
from ingest.kinds import kind_of
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

MBOX = "Takeout/Mail/All mail Including Spam and Trash.mbox"


def _archive(tmp_path: Path, monkeypatch) -> tuple[Path, dict]:
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    write(root)
    return root, ingest(root, "mail")["published"]


def _engine():
    from search.query.engine import Engine
    return Engine(Path(os.environ["SIFT_HOME"]) / "index.db")


def test_mail_files_are_notes():
    assert kind_of("Mail/invoice.eml") == kind_of("Takeout/All mail.MBOX") == "note"


def test_an_archive_is_searched_by_sender_subject_body_and_date(immediate, tmp_path, monkeypatch):
    """'mail from Anna about the invoice' finds Anna's .eml by its From line; a Chinese subject encoded as
    =?GBK?B?…?= and a GBK body, an HTML-only base64 message, ISO-8859-1 quoted-printable German, and messages of
    the mbox found by their words; the month in words finds a message of it."""
    root, published = _archive(tmp_path, monkeypatch)
    assert published["failures"] == [] and ".eml" not in published["unread"], published
    engine = _engine()

    def first(query: str) -> tuple[str, str]:
        hits = engine.search(query, mode="keyword").hits
        return (hits[0].path, hits[0].heading_path) if hits else ("", "")

    assert first("mail from Anna about the invoice") == ("Mail/invoice.eml", "Invoice 4471 for the kitchen renovation")
    text = parse_file("Mail/invoice.eml", (root / "Mail/invoice.eml").read_bytes()).sections[0].text
    assert "From: Anna Keller <anna@keller.example>" in text and "invoice-4471.pdf" in text, text
    assert first("第三季度销售报告") == ("Mail/report-zh.eml", "第三季度销售报告")  # GBK subject and body
    assert first("ABX72Q check-in") == ("Mail/flight.eml", "Your booking ABX72Q: Berlin to Lisbon")  # HTML, base64
    assert first("Nebenkostenabrechnung") == ("Mail/lease.eml", "Mieterhöhung ab 1. Dezember")  # ISO-8859-1, QP
    assert first("下周项目评审会议 数据迁移") == (MBOX, "下周项目评审会议")  # GBK inside the mbox
    assert first("windbreaker sunscreen") == (MBOX, "Sailing weekend at the lake")
    assert first("visa March 2024 Thursday") == ("Mail/visa-zh.eml", "签证材料清单")  # the Date line in words
    assert "<td>" not in engine.search("ABX72Q", mode="keyword").hits[0].snippet


def test_quoted_replies_and_signatures_are_left_out(immediate, tmp_path, monkeypatch):
    """A reply quotes the message it answers ('On … wrote:' and '> ' lines, '-----Original Message-----',
    '在 … 写道：'): a search for the original's words found the replies too, each as good a match. The signature
    ('-- ' and below) is no text anyone searches for."""
    root, _ = _archive(tmp_path, monkeypatch)
    engine = _engine()
    for query, original in [("windbreaker sunscreen harbour", "Sailing weekend at the lake"),
                            ("baseline without calibration", "Feedback on chapter 3 of the thesis"),
                            ("数据迁移方案", "下周项目评审会议"), ("magician puzzles", "Birthday party for Elsa")]:
        hits = engine.search(query, mode="keyword", limit=10).hits
        assert [h.heading_path for h in hits] == [original], (query, [(h.path, h.heading_path) for h in hits])
    assert engine.search("Interiors Phone 1234567", mode="keyword").hits == []
    reply = next(s for s in parse_file(MBOX, (root / MBOX).read_bytes()).sections if "sandwiches" in s.text)
    assert "wrote:" not in reply.text and "> " not in reply.text, reply.text


def test_each_message_of_an_mbox_is_read_at_its_own_lines(immediate, tmp_path, monkeypatch):
    """A hit in the mbox names the lines of its message: read_file at them shows that message's headers."""
    root, _ = _archive(tmp_path, monkeypatch)
    lines = (root / MBOX).read_bytes().decode("utf-8", "replace").split("\n")
    doc = parse_file(MBOX, (root / MBOX).read_bytes())
    assert doc.meta["messages"] == len(doc.sections) == 17
    for section in doc.sections:  # within its message, to its last line
        inside = lines[section.start_line:section.end_line]
        assert not any(line.startswith("From 1790") for line in inside), section.heading_path
        assert section.end_line >= len(lines) - 2 or lines[section.end_line].startswith("From 1790"), section
    hit = _engine().search("annual inspection oil change", mode="keyword").hits[0]
    shown = "\n".join(lines[hit.start_line - 1:hit.end_line])
    assert hit.heading_path == "Your car service is due" and "Volkswagen Golf" in shown and "oil change" in shown \
        and "From 1790" not in shown, (hit.start_line, hit.end_line, shown)
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    shown, data = reading.read(Sift(load()), f"mail/{MBOX}", hit.start_line, hit.end_line, None)
    assert "Volkswagen Golf" in shown and "From 1790" not in shown and data["start_line"] == hit.start_line, shown


def test_a_broken_message_is_kept_and_said_and_costs_nothing_else(immediate, tmp_path, monkeypatch):
    """A message with a bogus charset, an unreadable date and a broken encoded word is read; a message with no
    header at all in an mbox is indexed as its text under a note saying so, the others as usual; an .eml that is
    no mail is a recorded skip, the other files indexed."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    good = message("car")
    mbox = (b"From a Thu Jan 01 00:00:00 2025\n" + good + b"\n" + b"From b Thu Jan 01 00:00:00 2025\n"
            + b"\n\xff\xfe just some bytes about the lost umbrella\n\n" + b"From c Thu Jan 01 00:00:00 2025\n"
            + message("broken"))
    root = tmp_path / "mail"
    write_tree(root, {"keep.md": "# Keep\n\nan umbrella note\n"})
    (root / "box.mbox").write_bytes(mbox)
    (root / "junk.eml").write_bytes(b"\x00\x01 nothing of a mail here\n")
    published = ingest(root, "mail")["published"]
    failures = {f["path"]: f["reason"] for f in published["failures"]}
    assert "no header lines" in failures.get("junk.eml", ""), published
    engine = _engine()
    hits = engine.search("lost umbrella", mode="keyword").hits
    assert hits and hits[0].path == "box.mbox" and hits[0].heading_path == "(unreadable message)", hits
    assert "[a message Sift could not read as mail: no header lines" in parse_file(
        "box.mbox", mbox).sections[1].text
    assert [h.heading_path for h in engine.search("garage door remote", mode="keyword").hits] == [
        "=?UTF-8?B?broken===?= header"]
    assert engine.search("oil change", mode="keyword").hits[0].path == "box.mbox"
    assert engine.search("umbrella note", mode="keyword").hits[0].path == "keep.md"


def test_charsets_and_encodings_of_single_messages():
    """Encoded headers and bodies as clients write them, read into the passage's text."""
    text = parse_file("a.eml", message("meeting-zh")).sections[0].text
    assert "Subject: 下周项目评审会议" in text and "From: 陈静 <chen.jing@example.cn>" in text and "数据迁移" in text
    assert "gemäß Mietvertrag" in parse_file("a.eml", message("lease")).sections[0].text
    assert "'The Overstory' by Richard Powers" in parse_file("a.eml", message("books")).sections[0].text
    dinner = parse_file("a.eml", message("dinner-zh"))
    assert dinner.title == "周末聚餐" and "桂花糕" in dinner.sections[0].text and "<p>" not in dinner.sections[0].text
    html_reply = (b"From: a@b\nSubject: Re: x\nContent-Type: text/html; charset=utf-8\n\n<html><body><p>Yes, Friday."
                  b"</p><div class=gmail_quote><div>On Mon, 4 Mar 2024, Bo wrote:</div><blockquote>the old hedgehog "
                  b"question</blockquote></div></body></html>")
    text = parse_file("r.eml", html_reply).sections[0].text
    assert "Yes, Friday." in text and "hedgehog" not in text and "wrote" not in text, text


def test_a_forwarded_attached_message_is_read_with_its_sender_and_the_html_message_around_it_kept():
    """A mail forwarded as an attachment (message/rfc822) under an HTML-only message: its text/plain part stood for
    the whole message's text (the HTML body around it lost), and who sent it was not said. An empty text/plain
    beside the HTML a mailer really wrote stood for it too: the message had no text."""
    raw = (b"From: Bo <bo@example.org>\nSubject: Fwd: Harbour budget\nMIME-Version: 1.0\n"
           b"Content-Type: multipart/mixed; boundary=outer\n\n--outer\nContent-Type: text/html; charset=utf-8\n\n"
           b"<html><body><p>Please check the quay figures below.</p></body></html>\n--outer\n"
           b"Content-Type: message/rfc822\nContent-Disposition: attachment; filename=\"budget.eml\"\n\n"
           b"From: Carla Moreau <carla@example.org>\nSubject: Harbour budget\nDate: Tue, 5 Mar 2024 09:12:00 +0100\n"
           b"Content-Type: text/plain\n\nThe dredging costs twelve million kroner.\n--outer--\n")
    text = parse_file("fwd.eml", raw).sections[0].text
    assert "Please check the quay figures below." in text, text
    stub = (b"From: News <n@example.org>\nSubject: Tide tables\nMIME-Version: 1.0\n"
            b"Content-Type: multipart/alternative; boundary=alt\n\n--alt\nContent-Type: text/plain\n\n \n--alt\n"
            b"Content-Type: text/html\n\n"
            b"<p>Spring tides peak on the 12th.</p>\n--alt--\n")  # an empty text/plain beside the real HTML
    assert parse_file("stub.eml", stub).sections[0].text.endswith("\n\nSpring tides peak on the 12th."), stub
    assert ("Attached message:\nFrom: Carla Moreau <carla@example.org>\nDate: Tuesday 5 March 2024 09:12\n"
            "Subject: Harbour budget\n\nThe dredging costs twelve million kroner.") in text, text


def test_a_body_whose_declared_encoding_or_charset_lies_is_read_as_written():
    """Plain text declared base64 read as noise ('N\\x18�n�r…'); UTF-8 declared us-ascii read as Windows-1252
    ('GrÃ¼ÃŸe'); an ISO 8601 Date was shown as written, no date kept."""
    lies = (b"From: a@example.org\nSubject: Lies\nDate: 2024-03-05T09:12:00+01:00\nContent-Type: text/plain; "
            b"charset=utf-8\nContent-Transfer-Encoding: base64\n\n"
            b"This body is plain text, not base64.\nAnd so is this.\n")
    doc = parse_file("a.eml", lies)
    assert doc.sections[0].text.endswith("\n\nThis body is plain text, not base64.\nAnd so is this."), doc.sections
    assert "Date: Tuesday 5 March 2024 09:12" in doc.sections[0].text and doc.meta["date"] == "2024-03-05"
    footer = (b"From: a@example.org\nSubject: B64\nContent-Type: text/plain; charset=utf-8\n"
              b"Content-Transfer-Encoding: base64\n\nR3LDvMOfZSBhdXMgS8O2bG4sIHRoZSBsaXN0IHNheXMgaGkK\n"
              b"Z3LDvMOfZSB3aWVkZXIK\n_______________\n")  # a list's footer below real base64: still base64
    assert "Grüße aus Köln, the list says hi\ngrüße wieder" in parse_file("b.eml", footer).sections[0].text
    ascii_label = ("From: a@example.org\nSubject: =?us-ascii?Q?Gr=C3=BC=C3=9Fe?=\nContent-Type: text/plain; "
                   "charset=us-ascii\n\nGrüße aus Köln\n").encode()
    doc = parse_file("c.eml", ascii_label)
    assert doc.title == "Grüße" and doc.sections[0].text.endswith("Grüße aus Köln"), doc.sections


@pytest.mark.parametrize("size", [0, 1, 2, 3, 1023, 1024, 35_000])
def test_an_attachment_is_named_with_its_size(size):
    """A base64 attachment's size is counted from its encoded length (not decoded: a 50 MB video took seconds)."""
    import base64
    raw = (b"From: a@example.org\nSubject: Scan\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
           b"--b\nContent-Type: text/plain\n\nThe scan.\n--b\nContent-Type: application/pdf\n"
           b"Content-Disposition: attachment; filename=scan.pdf\nContent-Transfer-Encoding: base64\n\n"
           + base64.encodebytes(os.urandom(size)).replace(b"\n", b"\r\n") + b"--b--\n")
    shown = f"{size / 1024:,.0f} KB" if size >= 1024 else f"{size} bytes"
    assert f"Attachments: scan.pdf (application/pdf, {shown})" in parse_file("s.eml", raw).sections[0].text


def test_a_mailbox_over_the_file_limit_is_read_in_blocks_to_its_last_message(immediate, tmp_path, monkeypatch):
    """A Takeout mbox of gigabytes was refused ('larger than 64 MiB'): none of its messages found. Read in blocks
    (here of 1,000 bytes, a limit of 4 KiB: blocks end inside lines and inside 'From ' lines), it gives the
    sections the mailbox read whole gives, and its last message is found; a message's attachment past
    MAX_MESSAGE_BYTES is counted in its lines, not kept."""
    from ingest import files, mail
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    write(root)
    data = (root / MBOX).read_bytes()
    whole = parse_file(MBOX, data)
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 4096)
    monkeypatch.setattr(files, "MBOX_BLOCK", 1000)
    parsed = files.read_and_parse(root, MBOX)
    assert [(s.text, s.heading_path, s.start_line, s.end_line) for s in parsed.doc.sections] == [
        (s.text, s.heading_path, s.start_line, s.end_line) for s in whole.sections]
    assert parsed.size == len(data) and parsed.doc.meta["messages"] == 17, parsed.doc.meta
    import hashlib
    assert parsed.sha256 == hashlib.sha256(data).hexdigest()
    published = ingest(root, "mail")["published"]
    assert published["failures"] == [], published
    hits = _engine().search("garage door remote", mode="keyword").hits  # the last message
    assert (hits[0].path, hits[0].heading_path) == (MBOX, "=?UTF-8?B?broken===?= header"), hits
    monkeypatch.setattr(mail, "MAX_MESSAGE_BYTES", 600)  # the invoice's attachment is past it
    big = parse_file("x.mbox", b"From a\n" + message("invoice") + b"From b\n" + message("car"))
    assert [s.heading_path for s in big.sections] == [["Invoice 4471 for the kitchen renovation"],
                                                      ["Your car service is due"]]
    assert big.sections[1].end_line == (b"From a\n" + message("invoice") + b"From b\n" + message("car")).count(b"\n")


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sampled_from([
    b"From a@b Thu Jan 01 00:00:00 2025\n", b"From: Anna <a@b>\n", b"Subject: =?UTF-8?B?5Y+R56Wo?=\n",
    b"Subject: =?GBK?Q?=BB=E1?=\n", b"Date: Tue, 05 Mar 2024 09:12:00 +0100\n", b"Date: 99 Foo\n",
    b"Content-Type: multipart/mixed; boundary=XX\n", b"Content-Type: text/html; charset=gb2312\n",
    b"Content-Transfer-Encoding: base64\n", b"Content-Transfer-Encoding: quoted-printable\n", b"--XX\n", b"--XX--\n",
    b"\n", b"5Y+R56Wo\n", b"caf=E9 =\n", b"> quoted\n", b"On Mon, Bo wrote:\n", b"-- \n", b">From here\n",
    b"<p>hi</p><blockquote>old</blockquote>", b"\xff\xfe\x00", b"text", b"\r\n"]), max_size=50).map(b"".join),
    block=st.integers(1, 64))
@example(parts=b"From a\nSubject: s\n\nabcdefgFrom b c\n", block=3)  # 'From ' inside a line, where its piece starts
def test_any_mailbox_gives_sections_at_its_own_lines_read_whole_or_in_blocks(parts, block):
    """Headers, boundaries, encodings and quotes in any order: the messages' sections lie within the file's lines,
    each has text, and reading the mailbox in blocks of any size gives the same sections as reading it whole."""
    from ingest import mail
    from ingest.mail import read_mbox
    try:
        doc = parse_file("box.mbox", parts)
    except Skip:
        return
    lines = parts.count(b"\n") + (not parts.endswith(b"\n"))
    for section in doc.sections:
        assert 1 <= section.start_line <= section.end_line <= max(1, lines), (section, parts)
        assert section.text.strip(), (section, parts)
    blocks = [parts[at:at + block] for at in range(0, len(parts), block)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mail, "LINE_PIECE", 7)  # a long line comes in pieces: none of them starts a message
        in_blocks = read_mbox("box.mbox", blocks)
    assert [(s.text, s.start_line, s.end_line) for s in in_blocks.sections] == [
        (s.text, s.start_line, s.end_line) for s in doc.sections]


def test_a_thunderbird_folder_without_an_extension_is_a_mailbox(immediate, tmp_path, monkeypatch):
    """Thunderbird keeps a folder as a mailbox named as the folder ('Inbox', 'Sent' beside 'Inbox.msf'): a name
    without an extension, not read before. One beginning with a 'From ' line and a header is read as an .mbox is,
    in blocks when it is over the file limit; a README without an extension whose first word is 'From' is not."""
    from ingest.discover import kind_on_disk
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "profile"
    folder = root / "Mail" / "Local Folders"
    folder.mkdir(parents=True)
    inbox = (b"From - Tue Feb 20 12:00:00 2024\nX-Mozilla-Status: 0001\n" + message("car") + b"\n"
             b"From - Sat May 18 11:05:00 2024\nX-Mozilla-Status: 0001\n" + message("boat"))
    (folder / "Inbox").write_bytes(inbox)
    assert len(inbox) > 256
    (folder / "Inbox.msf").write_bytes(b"// <!-- <mdb:mork:z v=\"1.4\"/> -->\n")
    (folder / "NOTES").write_bytes(b"From the desk of Sam: nothing here is mail\n")
    assert kind_on_disk(folder / "Inbox", "Mail/Local Folders/Inbox") == "note"
    assert kind_on_disk(folder / "NOTES", "Mail/Local Folders/NOTES") is None
    from ingest import files
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 256)  # an Inbox of gigabytes: read in blocks, as an .mbox is
    published = ingest(root, "profile")["published"]
    assert published["failures"] == [], published
    hits = _engine().search("windbreaker sunscreen", mode="keyword").hits
    assert [(h.path, h.heading_path) for h in hits] == [("Mail/Local Folders/Inbox", "Sailing weekend at the lake")]
    assert _engine().search("oil change", mode="keyword").hits[0].start_line > 2


def test_a_mail_beside_the_pdf_of_its_name_does_not_stand_for_it():
    """invoice.eml came with invoice.pdf: the message names the attachment, it does not hold its text."""
    from ingest.links import converted_pdfs
    assert converted_pdfs({"invoice.pdf", "invoice.eml", "box.mbox", "box.pdf", "note.md", "note.pdf"}) == \
        {"note.md": "note.pdf"}


def test_a_mailbox_appended_to_embeds_only_its_new_message(immediate, tmp_path):
    """Thunderbird and Takeout append to a mailbox: the messages already read keep their passages' vectors (the
    same text), and only the new message is embedded."""
    from workers import runtime
    root = tmp_path / "mail"
    root.mkdir()
    box = root / "Inbox.mbox"
    messages = [f"From a{n}@example.org Tue Mar  {n} 09:12:00 2024\nFrom: Sender {n} <a{n}@example.org>\n"
                f"Subject: Harbour note {n}\nDate: Tue, {n} Mar 2024 09:12:00 +0100\n\nThe quay's piling number {n} "
                f"was inspected and found sound.\n>From the diver's log: no cracks at {n} m.\n\n" for n in (1, 2, 3)]
    box.write_text("".join(messages[:2]))
    ingest(root, "mail")
    box.write_text("".join(messages))
    published = ingest(root, "mail")["published"]
    conn = runtime.index()
    generation = conn.execute("SELECT published FROM collections WHERE name = 'mail'").fetchone()[0]
    rows = conn.execute("SELECT embedded FROM progress WHERE generation = ? AND path = 'Inbox.mbox'",
                        (generation,)).fetchall()
    assert [r[0] for r in rows] == [1], (published, [dict(r) for r in rows])


def test_a_message_without_a_subject_is_headed_no_subject():
    """No Subject, or only 'Re:': the message's heading was '' (nothing named it in a hit) or 'Re:', an .eml's
    title 'Re:'; now '(no subject)' or 'Re: (no subject)', as mail clients show it, an .eml titled by its name."""
    box = (b"From a@example.org Tue Mar  5 09:12:00 2024\nFrom: Anna <a@example.org>\n\nThe ferry leaves at nine.\n\n"
           b"From b@example.org Tue Mar  5 10:12:00 2024\nFrom: Bo <b@example.org>\nSubject: Re:\n\nSee you there.\n\n"
           b"From c@example.org Tue Mar  5 11:12:00 2024\nFrom: Cy <c@example.org>\nSubject: AW: Re: Ferry\n\nOk.\n")
    assert [s.heading_path for s in parse_file("box.mbox", box).sections] == [
        ["(no subject)"], ["Re: (no subject)"], ["AW: Re: Ferry"]]
    doc = parse_file("Mail/ferry time.eml", b"From: Bo <b@example.org>\nSubject: Re:\n\nSee you there.\n")
    assert doc.title == "ferry time" and doc.sections[0].heading_path == ["Re: (no subject)"], doc


def test_read_file_reads_a_message_by_the_subject_its_hit_is_headed_by(immediate, tmp_path, monkeypatch):
    """A hit is headed 'archive.mbox — Sourdough recipe'; read_file with heading='Sourdough recipe' said the mailbox
    had 'no headings (# … lines)'. A message's Subject is its heading: the message is read from its 'From ' line
    to the next one, in an .mbox, a Thunderbird folder, an .eml; a Subject not there lists those there."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    box = (b"From alice@example.com Mon Jan  5 09:00:00 2026\nFrom: Alice <alice@example.com>\n"
           b"Subject: Lighthouse trip\n\nBring binoculars for the puffins.\n\n"
           b"From carol@example.com Tue Jan  6 12:00:00 2026\nFrom: Carol <carol@example.com>\n"
           b"Subject: Sourdough recipe\n\nFeed the starter with rye flour.\n\n"
           b"From dave@example.com Wed Jan  7 15:00:00 2026\nFrom: Dave <dave@example.com>\n"
           b"Subject: Chess club\n\nWe study the Sicilian defence.\n")
    root = tmp_path / "mail"
    (root / "Thunderbird").mkdir(parents=True)
    (root / "archive.mbox").write_bytes(box)
    (root / "Thunderbird" / "Inbox").write_bytes(box)
    (root / "kayak.eml").write_bytes(b"From: Alice <alice@example.com>\nSubject: Kayak rental\n\nPay in 30 days.\n")
    assert ingest(root, "mail")["published"]["failures"] == []
    sift = Sift(load())
    for path in ("mail/archive.mbox", "mail/Thunderbird/Inbox"):
        shown, data = reading.read(sift, path, None, None, None, heading="Sourdough recipe")
        assert (data["start_line"], data["end_line"]) == (7, 11), (path, shown)
        assert "rye flour" in shown and "puffins" not in shown and "Sicilian" not in shown, shown
        with pytest.raises(Problem, match="its headings: 'Lighthouse trip', 'Sourdough recipe', 'Chess club'"):
            reading.read(sift, path, None, None, None, heading="Budget")
    shown, data = reading.read(sift, "mail/kayak.eml", None, None, None, heading="kayak rental")
    assert (data["start_line"], data["end_line"]) == (1, 4) and "Pay in 30 days." in shown, shown


def test_read_file_lists_the_messages_of_a_thread_sharing_a_subject_to_choose_from(immediate, tmp_path, monkeypatch):
    """Replies share a Subject: heading='Re: Budget' read the first of them, whichever the hit was. Each is named
    with its first line, so the heading lists them, and the one named reads that message."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    box = b"".join(b"From %s@example.com Mon Jan  5 09:00:00 2026\nFrom: %s <%s@example.com>\nSubject: %s\n\n%s\n\n"
                   % (who, who, who, subject, body) for who, subject, body in
                   [(b"ann", b"Budget", b"The budget is 4,000."), (b"ben", b"Re: Budget", b"Too low for pumps."),
                    (b"cat", b"Re: Budget", b"Raise it to kelp feed.")])
    root = tmp_path / "mail"
    root.mkdir()
    (root / "thread.mbox").write_bytes(box)
    assert ingest(root, "mail")["published"]["failures"] == []
    sift = Sift(load())
    with pytest.raises(Problem, match="several headings holding 'Re: Budget': 'Re: Budget \\(line 7\\)', "
                                      "'Re: Budget \\(line 13\\)'"):
        reading.read(sift, "mail/thread.mbox", None, None, None, heading="Re: Budget")
    shown, data = reading.read(sift, "mail/thread.mbox", None, None, None, heading="Re: Budget (line 13)")
    assert "kelp feed" in shown and "Too low" not in shown and data["start_line"] == 13, shown
    shown, _ = reading.read(sift, "mail/thread.mbox", None, None, None, heading="Budget")
    assert "4,000" in shown and "Too low" not in shown, shown


def test_a_body_line_beginning_from_does_not_cut_its_message_and_the_from_line_dates_an_undated_one():
    """An mboxo writer (a script appending to a mailbox) leaves a body's 'From the start …' line unescaped: it cut
    the message in two, its rest an '(unreadable message)' and the line lost. A 'From ' line starts a message only
    where a header follows it. A message without a Date header had no date: its 'From ' line's date is taken."""
    from ingest.mail import read_mbox
    data = (b"From anna@example.com Tue Mar  5 09:12:00 2024\nFrom: Anna <anna@example.com>\nSubject: Budget\n\n"
            b"Hello Bo,\n\nFrom the start we said no to the extension.\nAnna\n\n"
            b"From 1790000000000000000@xxx Wed Mar 06 10:00:00 +0000 2024\nX-GM-THRID: 1790\n"
            b"From: Bo <bo@example.com>\n"
            b"Date: Thu, 07 Mar 2024 08:00:00 +0000\nSubject: Other\n\nbody two\n")
    doc = parse_file("box.mbox", data)
    assert [s.heading_path for s in doc.sections] == [["Budget"], ["Other"]], doc.sections
    assert "From the start we said no to the extension." in doc.sections[0].text
    assert "Date: Tuesday 5 March 2024 09:12" in doc.sections[0].text
    assert "Date: Thursday 7 March 2024 08:00" in doc.sections[1].text  # its own Date, not the 'From ' line's
    assert (doc.sections[0].start_line, doc.sections[0].end_line, doc.sections[1].end_line) == (1, 9, 16)
    assert doc.meta["messages"] == 2 and "unreadable_messages" not in doc.meta, doc.meta
    for size in (1, 5, 60):
        blocks = [data[at:at + size] for at in range(0, len(data), size)]
        assert [(s.text, s.start_line, s.end_line) for s in read_mbox("box.mbox", blocks).sections] == [
            (s.text, s.start_line, s.end_line) for s in doc.sections]


def test_a_one_word_body_said_to_be_base64_is_read_as_written():
    """'Thanks' as the whole body of a part said to be base64 was decoded into noise ('N\\x16\\xad…'); base64 of
    'Ok' (T2s=) is still decoded."""
    head = (b"From: a@example.com\nSubject: x\nContent-Type: text/plain; charset=utf-8\n"
            b"Content-Transfer-Encoding: base64\n\n")
    assert parse_file("a.eml", head + b"Thanks\n").sections[0].text.endswith("\n\nThanks")
    assert parse_file("a.eml", head + b"Okay\n").sections[0].text.endswith("\n\nOkay")
    assert parse_file("a.eml", head + b"T2s=\n").sections[0].text.endswith("\n\nOk")


def test_a_takeout_messages_gmail_labels_are_shown_with_its_headers():
    """Google Takeout keeps a message's Gmail labels in X-Gmail-Labels: they were not read, and a search for the
    label 'Receipts' found none of its messages. They head its text as 'Labels: …', Gmail's read state left out."""
    data = (b"From 1790000000000000000@xxx Thu Jan 01 00:00:00 +0000 2025\nX-GM-THRID: 1790\n"
            b"X-Gmail-Labels: Inbox,Opened,Category Purchases,Receipts\nFrom: Shop <shop@example.com>\n"
            b"Subject: Your order\n\nThanks for your order.\n")
    text = parse_file("takeout.mbox", data).sections[0].text
    assert "\nLabels: Inbox, Category Purchases, Receipts\n" in text and "Opened" not in text, text


def test_an_attached_text_file_is_read_as_a_passage_of_its_message():
    """An attachment was named only: the minutes a .txt attached to a mail held were not found. A text file
    (text/plain, a .csv sent as application/octet-stream, a .log sent as text/plain) is read by its kind's reader,
    under 'Attachment: …' below its message's Subject; a damaged PDF is named, with why, in the meta."""
    from email.message import EmailMessage
    mail = EmailMessage()
    mail["From"], mail["Subject"] = "Bo <bo@example.com>", "Minutes"
    mail.set_content("See the attached minutes.\n")
    mail.add_attachment(b"Decided: repaint the stairwell in April.\n", maintype="text", subtype="plain",
                        filename="minutes.txt")
    mail.add_attachment(b"item,cost\nladder,120\n", maintype="application", subtype="octet-stream",
                        filename="budget.csv")
    mail.add_attachment(b"boiler pressure log\n" * 3600, maintype="text", subtype="plain", filename="big.log")
    mail.add_attachment(b"%PDF-1.4 stairwell quote\n", maintype="application", subtype="pdf", filename="quote.pdf")
    doc = parse_file("minutes.eml", bytes(mail))
    assert doc.sections[0].text.endswith("\n\nSee the attached minutes."), doc.sections[0].text
    read = {tuple(s.heading_path): s.text for s in doc.sections[1:]}
    assert read[("Minutes", "Attachment: minutes.txt")] == "Decided: repaint the stairwell in April."
    assert "ladder | 120" in read[("Minutes", "Attachment: budget.csv")], read
    assert read[("Minutes", "Attachment: big.log")].startswith("boiler pressure log\n"), read
    assert doc.meta["attachments_not_read"] == 1, doc.meta
    assert doc.meta["attachments_not_read_why"][0].startswith("quote.pdf (message 'Minutes', line 1): "), doc.meta

def test_list_files_says_how_many_messages_of_a_mailbox_were_not_readable(immediate, tmp_path, monkeypatch):
    """A mailbox with a message of no header at all: list_files (and ingest files) said plain 'indexed', though the
    count was recorded; now '1 of 3 messages not readable as mail (…: line 4: …); the others read'."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    mbox = (b"From a Thu Jan 01 00:00:00 2025\n" + message("car") + b"\n" + b"From b Thu Jan 01 00:00:00 2025\n"
            + b"\n\xff\xfe just some bytes about the lost umbrella\n\n" + b"From c Thu Jan 01 00:00:00 2025\n"
            + message("broken"))
    root = tmp_path / "mail"
    root.mkdir()
    (root / "box.mbox").write_bytes(mbox)
    (root / "good.mbox").write_bytes(b"From a Thu Jan 01 00:00:00 2025\n" + message("car"))
    assert ingest(root, "mail")["published"]["failures"] == []
    files = {f["path"]: f for f in Tools(Sift(load())).list_files().structured_content["files"]}
    said = files["mail/box.mbox"]["reason"] or ""
    line = mbox.split(b"\n").index(b"From b Thu Jan 01 00:00:00 2025") + 1
    assert files["mail/box.mbox"]["state"] == "indexed" and said.startswith("3 messages in 2 threads (a mailbox") \
        and ("; 1 of 3 messages not readable as mail (indexed as their text as it stands, under '(unreadable "
             f"message)': line {line}: no header lines") in said, said
    assert said.endswith("); the others read"), said
    assert files["mail/good.mbox"]["reason"].startswith("1 message (a mailbox"), files
    assert "not readable" not in files["mail/good.mbox"]["reason"], files


def test_a_sparse_mbox_of_zeros_is_refused_at_its_first_block(tmp_path):
    """A sparse file of zeros named .mbox (over the 64 MiB read whole: read in blocks) was told to be no mailbox by
    its first message, found only at its end: all of it read and hashed for nothing. Its first block tells."""
    from ingest.files import read_mbox_file
    from ingest.mail import read_mbox
    path = tmp_path / "zeros.mbox"
    with open(path, "wb") as f:
        f.truncate(80 * 1024 * 1024)
    taken = []

    def counting(name, blocks):
        return read_mbox(name, (taken.append(len(block)) or block for block in blocks))
    with pytest.raises(Skip, match="not an mbox"):
        read_mbox_file(path, counting)
    assert sum(taken) <= 1 << 20, sum(taken)
