"""A mail's attachments read by Sift's readers, its thread shown, its Gmail labels as tags, and an mboxo body's
own 'From sender date' line (ingest.mail, mcp_server.reading). Mail as mail clients write it: an Apple Mail .eml
with attachments made by Python's email package, a Thunderbird folder ('From - …' lines, X-Mozilla-Status), a
Google Takeout mbox (X-GM-THRID, X-Gmail-Labels)."""
from __future__ import annotations

import io
from email.message import EmailMessage
from email.utils import format_datetime
from datetime import datetime, timezone

import pytest

from ingest.parse import parse_file
from tests.conftest import ingest, need_data

try:
    import docx
except ImportError:  # scripts/setup installs it
    docx = None

WHEN = datetime(2024, 3, 5, 9, 12, tzinfo=timezone.utc)


def _mail(subject: str, body: str, sender: str = "Anna Keller <anna@keller.example>", when: datetime = WHEN,
          **headers) -> EmailMessage:
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, "Bo <bo@example.com>", subject
    mail["Date"] = format_datetime(when)
    for name, value in headers.items():
        mail[name.replace("_", "-")] = value
    mail.set_content(body)
    return mail


def _thunderbird(*mails: EmailMessage) -> bytes:
    """A Thunderbird folder: each message after a 'From - <date>' line and its X-Mozilla-Status lines, a body's
    'From ' lines escaped '>From '."""
    out = []
    for mail in mails:
        raw = bytes(mail).replace(b"\r\n", b"\n").replace(b"\nFrom ", b"\n>From ")
        out.append(b"From - Tue Mar 05 09:12:00 2024\nX-Mozilla-Status: 0001\nX-Mozilla-Status2: 00000000\n" + raw
                   + (b"" if raw.endswith(b"\n") else b"\n") + b"\n")
    return b"".join(out)


def _docx(heading: str, text: str) -> bytes:
    document = docx.Document()
    document.add_heading(heading, 1)
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _with_attachments(pdf: bytes, encrypted: bytes) -> EmailMessage:
    """Apple Mail's kind of message: a text body and attachments, a PDF (inline, as Apple Mail sends one), a Word
    file, a note, a page, a CSV, a picture and a PDF that opens only with its password."""
    mail = _mail("Quarterly reports", "The reports are attached.\n")
    mail.add_attachment(pdf, maintype="application", subtype="pdf", filename="report.pdf", disposition="inline")
    if docx is not None:
        mail.add_attachment(_docx("Stairwell plan", "We repaint the stairwell in April with ochre paint."),
                            maintype="application",
                            subtype="vnd.openxmlformats-officedocument.wordprocessingml.document", filename="plan.docx")
    mail.add_attachment(b"# Minutes\n\nThe boiler gets a new pressure valve.\n", maintype="text", subtype="markdown",
                        filename="minutes.md")
    mail.add_attachment(b"<!DOCTYPE html><html><head><title>Menu</title></head><body><h1>Menu</h1>"
                        b"<p>Saffron risotto on Friday.</p></body></html>", maintype="text", subtype="html",
                        filename="menu.html")
    mail.add_attachment(b"item,cost\nladder,120\n", maintype="text", subtype="csv", filename="budget.csv")
    mail.add_attachment(b"\x89PNG\r\n\x1a\n" + bytes(200), maintype="image", subtype="png", filename="photo.png")
    mail.add_attachment(encrypted, maintype="application", subtype="pdf", filename="secret.pdf")
    return mail


def test_attachments_are_read_by_their_readers_as_passages_of_their_message():
    """A PDF, .docx, .md, .html or .csv attached to a mail was only named ('report.pdf (application/pdf, 78 KB)'):
    its words found nothing. Each is read by its kind's reader, its passages under 'Attachment: report.pdf' below
    the message's Subject, dated with the message; a picture stays named only; a PDF that opens only with its
    password is named in the meta with why, and costs the message nothing."""
    pdf = need_data("pdf/en/google-doc-document.pdf").read_bytes()
    encrypted = need_data("pdf/_problem/crazyones-encrypted-256.pdf").read_bytes()
    doc = parse_file("Mail/reports.eml", bytes(_with_attachments(pdf, encrypted)))
    message, *files = doc.sections
    assert message.heading_path == ["Quarterly reports"] and message.text.endswith("The reports are attached.")
    read = {" > ".join(s.heading_path): s.text for s in files}
    assert "Beautiful is better than ugly." in read["Quarterly reports > Attachment: report.pdf > page 1"], read
    if docx is not None:
        assert "ochre paint" in read["Quarterly reports > Attachment: plan.docx > Stairwell plan"], read
    assert "pressure valve" in read["Quarterly reports > Attachment: minutes.md > Minutes"], read
    assert any(key.startswith("Quarterly reports > Attachment: menu.html") and "Saffron risotto" in text
               for key, text in read.items()), read
    assert "ladder | 120" in read["Quarterly reports > Attachment: budget.csv"], read
    assert not any("photo.png" in key for key in read), read
    assert all(s.dated == message.dated == WHEN.replace(tzinfo=None).timestamp() for s in files)  # as its Date says
    assert all(s.start_line == 1 and s.end_line == message.end_line for s in files)
    assert doc.meta["attachments_not_read"] == 1, doc.meta
    assert doc.meta["attachments_not_read_why"][0].startswith(
        "secret.pdf (message 'Quarterly reports', line 1): encrypted"), doc.meta


def test_a_mailboxs_attachments_are_searched_and_those_not_read_are_listed_with_why(immediate, tmp_path,
                                                                                     monkeypatch):
    """In a Thunderbird folder: a search for a PDF attachment's words finds its message, headed by the
    attachment; list_files says which attachments were not read and why (an encrypted PDF, a damaged Word file,
    one over the bound), and the other messages are read as usual."""
    from mcp_server import tools
    from mcp_server.service import Sift
    from ingest import mail as mail_module
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    pdf = need_data("pdf/en/google-doc-document.pdf").read_bytes()
    encrypted = need_data("pdf/_problem/crazyones-encrypted-256.pdf").read_bytes()
    hostile = _mail("Broken attachment", "A damaged file.\n", when=WHEN.replace(day=6))
    hostile.add_attachment(b"PK\x03\x04 not a zip at all" * 10, maintype="application",
                           subtype="vnd.openxmlformats-officedocument.wordprocessingml.document", filename="bad.docx")
    monkeypatch.setattr(mail_module, "ATTACHMENT_BYTES", len(pdf) + 1)  # report.pdf is read, huge.log is over
    big_text = _mail("Huge log", "The log.\n", when=WHEN.replace(day=8))
    big_text.add_attachment(b"x" * (len(pdf) + 10), maintype="text", subtype="plain", filename="huge.log")
    again = _mail("Reports again", "The same report.\n", when=WHEN.replace(day=10))
    again.add_attachment(pdf, maintype="application", subtype="pdf", filename="report.pdf")
    root = tmp_path / "mail"
    (root / "Thunderbird").mkdir(parents=True)
    (root / "Thunderbird" / "Inbox").write_bytes(
        _thunderbird(_with_attachments(pdf, encrypted), hostile, big_text, again,
                     _mail("Chess club", "We study the Sicilian defence.\n", when=WHEN.replace(day=9))))
    assert ingest(root, "mail")["published"]["failures"] == []
    hits = Engine(load().index_path).search("Explicit is better than implicit", mode="keyword").hits
    assert hits and hits[0].path == "Thunderbird/Inbox", hits
    assert hits[0].heading_path == "Quarterly reports > Attachment: report.pdf > page 1", hits[0]
    assert Engine(load().index_path).search("Sicilian defence", mode="keyword").hits[0].heading_path == "Chess club"
    listed = tools.Tools(Sift(load())).list_files().structured_content["files"]
    reason = next(f for f in listed if f["path"].endswith("Thunderbird/Inbox"))["reason"]
    assert reason.startswith("5 messages in 5 threads (a mailbox"), reason  # what it holds, then what was not read
    assert "); 3 attachments not read: secret.pdf (message 'Quarterly reports', line 1): encrypted" in reason, reason
    assert "bad.docx (message 'Broken attachment', line " in reason, reason
    assert "huge.log (message 'Huge log', line " in reason and " MiB an attachment is read to" in reason, reason
    # read_file shows an attachment's text as indexed (the file's lines hold it as base64)
    from mcp_server import reading
    from mcp_server.errors import Problem
    sift = Sift(load())
    with pytest.raises(Problem, match="several messages hold an attachment 'report.pdf': give one of heading="
                                      "'Quarterly reports \\(line 1\\)#Attachment: report.pdf', 'Reports again"):
        reading.read(sift, "mail/Thunderbird/Inbox", None, None, None, heading="Attachment: report.pdf")
    for asked in ("Quarterly reports > Attachment: report.pdf > page 1", "quarterly reports#attachment: REPORT.pdf"):
        shown, data = reading.read(sift, "mail/Thunderbird/Inbox", None, None, None, heading=asked)
        assert "Beautiful is better than ugly." in shown and "JVBERi" not in shown, shown
        assert "attachment 'report.pdf' of the message 'Quarterly reports' at line 1" in shown.split("\n")[0], shown
        assert data["start_line"] == 1 and data["next_start_line"] is None, data
    with pytest.raises(Problem, match="has no attachment 'photo.png' read"):
        reading.read(sift, "mail/Thunderbird/Inbox", None, None, None, heading="Attachment: photo.png")


def _thread() -> bytes:
    """Budget, an unrelated message, a reply to Budget (In-Reply-To and References), a reply to that reply
    (In-Reply-To only, as some clients write it)."""
    return _thunderbird(
        _mail("Budget", "The budget is 4,000.\n", Message_ID="<budget@keller.example>"),
        _mail("Chess club", "We study the Sicilian defence.\n", "Carol <carol@example.com>",
              Message_ID="<chess@example.com>"),
        _mail("Re: Budget", "Too low: the roof alone is 3,500.\n", "Bo <bo@example.com>",
              Message_ID="<re1@example.com>", In_Reply_To="<budget@keller.example>",
              References="<budget@keller.example>"),
        _mail("Re: Budget", "Then 6,000, and the kelp feed waits.\n", Message_ID="<re2@keller.example>",
              In_Reply_To="<re1@example.com>"))


def test_a_replys_head_names_the_message_it_replies_to_and_where():
    """A reply's head said 'Subject: Re: Budget' and nothing of which message it answered. It names the message
    of the mailbox its In-Reply-To (or References) gives, its sender and line."""
    from ingest.mail import mail_headings
    doc = parse_file("Inbox.mbox", _thread())
    heads = [s.text.split("\n\n", 1)[0] for s in doc.sections]
    assert "In reply to" not in heads[0] and "In reply to" not in heads[1], heads
    assert "\nIn reply to: Budget (Anna Keller, line 1)" in heads[2], heads[2]
    third = next(line for line, _, _, _ in mail_headings([_thread()], True)[2:3]) + 1  # its 'From ' line
    assert f"\nIn reply to: Re: Budget (Bo, line {third})" in heads[3], (heads[3], third)


def test_read_file_shows_a_messages_thread(immediate, tmp_path, monkeypatch):
    """read_file of one message of a thread named no other; a search hit in a reply gave no way to the thread. Its
    answer lists the thread's messages and how to read them together: heading='thread: Budget' shows them, in
    the file's order, without the message between them."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    (root / "Inbox.mbox").write_bytes(_thread())
    assert ingest(root, "mail")["published"]["failures"] == []
    sift = Sift(load())
    shown, data = reading.read(sift, "mail/Inbox.mbox", None, None, None, heading="Budget")
    assert "4,000" in shown and "Too low" not in shown, shown
    assert "its thread in this file, 3 messages: 'Budget' (lines 1-" in shown, shown
    assert "read_file with heading='thread: Budget' shows them together" in shown, shown
    shown, data = reading.read(sift, "mail/Inbox.mbox", None, None, None, heading="thread: Budget")
    assert "4,000" in shown and "Too low" in shown and "kelp feed" in shown and "Sicilian" not in shown, shown
    assert (data["start_line"], data["end_line"], data["next_start_line"]) == (1, 58, None), data
    assert shown.endswith("[the thread of 'Budget', 3 messages: 'Budget' (lines 1-13), 'Re: Budget (line 29)' "
                          "(lines 29-43), 'Re: Budget (line 45)' (lines 45-58)]"), shown
    assert shown.index("4,000") < shown.index("Too low") < shown.index("kelp feed")
    shown, _ = reading.read(sift, "mail/Inbox.mbox", None, None, None, heading="thread: Re: Budget (line 45)")
    assert "4,000" in shown and "kelp feed" in shown and "Sicilian" not in shown, shown
    shown, _ = reading.read(sift, "mail/Inbox.mbox", None, None, None, heading="Chess club")
    assert "its thread" not in shown, shown


def _takeout(*messages: tuple[str, str, str, str]) -> bytes:
    """Google Takeout's mbox: 'From <thread id>@xxx <date>' lines, X-GM-THRID and X-Gmail-Labels headers."""
    return b"".join(
        b"From %s@xxx Tue Mar 05 09:12:00 +0000 2024\nX-GM-THRID: %s\nX-Gmail-Labels: %s\n"
        b"From: Shop <shop@example.com>\nDate: Tue, 05 Mar 2024 09:12:00 +0000\nSubject: %s\n\n%s\n\n"
        % (thread.encode(), thread.encode(), labels.encode(), subject.encode(), body.encode())
        for thread, labels, subject, body in messages)


def test_gmail_labels_every_message_holds_are_the_mailboxs_tags_and_threads_go_by_gmails(immediate, tmp_path,
                                                                                          monkeypatch):
    """Gmail's labels were words of a message's text, not tags: '#receipts' ranked nothing first. A Takeout of one
    label ('Receipts.mbox'), and an .eml, are tagged with the labels every message holds (Gmail's read state left
    out); a Takeout of all mail, whose messages differ, only by the labels all of them share. Gmail's X-GM-THRID
    makes the thread."""
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    receipts = _takeout(("1790", "Receipts,Opened,Inbox", "Your order", "A kettle, shipped."),
                        ("1791", "Receipts,Unread", "Your refund", "The toaster refund."))
    assert parse_file("Receipts.mbox", receipts).meta["tags"] == ["Receipts"]
    mixed = _takeout(("1790", "Receipts,Inbox", "Your order", "A kettle, shipped."),
                     ("1792", "Inbox,Work/Projects", "Standup", "The kettle standup notes."),
                     ("1790", "Inbox", "Re: Your order", "Where is my kettle?"))
    doc = parse_file("All mail.mbox", mixed)
    assert doc.meta["tags"] == ["Inbox"], doc.meta
    assert "\nIn reply to" not in doc.sections[2].text  # no Message-IDs: the thread is Gmail's
    eml = parse_file("order.eml", b"X-Gmail-Labels: Receipts,Opened\nFrom: shop@example.com\nSubject: Kettle\n\nx\n")
    assert eml.meta["tags"] == ["Receipts"], eml.meta
    root = tmp_path / "mail"
    root.mkdir()
    (root / "Receipts.mbox").write_bytes(receipts)
    (root / "All mail.mbox").write_bytes(mixed)
    (root / "kettle.md").write_text("# Kettle\n\nThe kettle descaling notes, kettle kettle.\n")
    assert ingest(root, "mail")["published"]["failures"] == []
    hits = Engine(load().index_path).search("#receipts kettle", mode="keyword").hits
    assert hits[0].path == "Receipts.mbox", [(h.path, h.heading_path) for h in hits]


def test_an_unescaped_from_line_with_a_date_in_a_body_does_not_start_a_message():
    """An mboxo writer leaves a body's own 'From bo@example.com Mon Mar  4 08:00:00 2024' line (a pasted mailbox)
    unescaped: it started a message, the rest of the body one of no headers, '(unreadable message)'. A 'From '
    line starts one only where a header follows it."""
    from ingest.mail import mail_headings
    data = (b"From anna@example.com Tue Mar  5 09:12:00 2024\nFrom: Anna <anna@example.com>\nSubject: Budget\n\n"
            b"Hello Bo, the old box said:\n\nFrom bo@example.com Mon Mar  4 08:00:00 2024\nthe numbers were wrong.\n"
            b"Anna\n\nFrom bo@example.com Wed Mar  6 10:00:00 2024\nFrom: Bo <bo@example.com>\nSubject: Other\n\n"
            b"body two\n\nFrom - Thu Mar 07 10:00:00 2024\nX-Mozilla-Status: 0001\nFrom: Cy <cy@example.com>\n"
            b"Subject: Third\n\nbody three\n")
    doc = parse_file("box.mbox", data)
    assert [s.heading_path for s in doc.sections] == [["Budget"], ["Other"], ["Third"]], doc.sections
    assert "From bo@example.com Mon Mar  4 08:00:00 2024\nthe numbers were wrong." in doc.sections[0].text
    assert doc.meta == {"messages": 3}
    assert [name for _, _, name, _ in mail_headings([data], True)] == ["Budget", "Other", "Third"]


def test_a_mailboxs_attachments_are_read_to_a_bound_and_the_rest_named(monkeypatch):
    """A mailbox is read whole at each change, and a PDF takes 0.3-4 s to read: of its attachments, those until
    MAILBOX_ATTACHMENT_BYTES are read, the rest named with why; its messages are all read."""
    from ingest import mail as mail_module
    monkeypatch.setattr(mail_module, "MAILBOX_ATTACHMENT_BYTES", 150)
    mails = []
    for n, subject in enumerate(("Rota", "Seeds", "Compost")):
        mail = _mail(subject, f"Message {n}.\n")
        mail.add_attachment(b"item,cost\n" + b"ladder,120\n" * 8, maintype="text", subtype="csv",
                            filename=f"list{n}.csv")
        mails.append(mail)
    doc = mail_module.read_mbox("Inbox", [_thunderbird(*mails)])
    paths = list(dict.fromkeys(" > ".join(s.heading_path[:2]) for s in doc.sections))  # a CSV: a passage a row
    assert paths == ["Rota", "Rota > Attachment: list0.csv", "Seeds", "Compost"], paths
    assert doc.meta["attachments_not_read"] == 2 and "past the 0.000143 MiB of attachments a mail file is read to" \
        in doc.meta["attachments_not_read_why"][0], doc.meta


@pytest.mark.timeout(600)
def test_over_mcp_a_thread_an_attachments_hit_and_the_attachments_not_read(immediate, sift_env, tmp_path, servers):
    """The real server over stdio: read_file heading='thread: Budget' and heading='Attachment: report.pdf' answer
    within read_file's outputSchema, a hybrid search finds a PDF attachment's words headed by it, and list_files
    says which attachment was not read."""
    from tests.test_mcp_server import call, run, text
    pdf = need_data("pdf/en/google-doc-document.pdf").read_bytes()
    encrypted = need_data("pdf/_problem/crazyones-encrypted-256.pdf").read_bytes()
    root = tmp_path / "mail"
    root.mkdir()
    (root / "Inbox.mbox").write_bytes(_thread())
    (root / "reports.eml").write_bytes(bytes(_with_attachments(pdf, encrypted)))
    assert ingest(root, "mail")["published"]["failures"] == []

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "read_file", path="mail/Inbox.mbox", heading="thread: Budget"),
                    await call(s, "search", query="Explicit is better than implicit", limit=3),
                    await call(s, "list_files", sort="path"),
                    await call(s, "read_file", path="mail/reports.eml", heading="Attachment: report.pdf"))
    thread, found, listed, attached = run(scenario)
    assert not attached.is_error and "Beautiful is better than ugly." in text(attached), text(attached)
    assert not thread.is_error and "kelp feed" in text(thread) and "Sicilian" not in text(thread), text(thread)
    assert thread.structured_content["end_line"] == 58, thread.structured_content
    hit = found.structured_content["results"][0]
    assert hit["path"] == "mail/reports.eml" and hit["heading_path"].endswith("Attachment: report.pdf > page 1"), hit
    eml = next(f for f in listed.structured_content["files"] if f["path"] == "mail/reports.eml")
    assert eml["reason"].startswith("1 attachment not read: secret.pdf (message 'Quarterly reports', line 1): "
                                    "encrypted"), eml
