"""Outlook's saved message (.msg): Sift did not read it at all (a kind it does not read), and mail had no kind of its
own to search by ('the mail from opposing counsel' was kept to mail only by glob='**/*.eml').

The .msg files here are made by tests/msg_writer.py ([MS-CFB] and [MS-OXMSG] as written there), not saved by
Outlook; each is checked to be read back by olefile. Real SQLite, keyword search (no vectors: the kind filter is the
point, not the model)."""
from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path

import olefile
import pytest

from ingest.document import Skip
from ingest.parse import parse_file
from tests.msg_writer import outlook_msg

SENT = datetime(2024, 3, 5, 9, 12, tzinfo=timezone.utc)
OFFER = dict(subject="Settlement offer", body="Dear counsel,\n\nOur client proposes a settlement of 40,000 EUR.\n\n"
             "> an earlier line quoted\n\n-- \nAnna Keller, Keller Law", sender=("Anna Keller", "anna@keller.example"),
             to=[("Bo Berg", "bo@berg.example")], cc=[("Carl Cho", "carl@cho.example")], sent=SENT,
             message_id="<offer-1@keller.example>",
             attachments=[{"name": "terms.txt", "mime": "text/plain",
                           "data": b"The payment terms are net thirty days. " * 120},  # over 4,096: a FAT stream
                          {"message": {"subject": "Earlier proposal", "body": "A first proposal of 30,000 EUR."}}])


def read(doc) -> dict[str, str]:
    return {" > ".join(section.heading_path): section.text for section in doc.sections}


def test_the_writer_is_read_by_olefile():
    ole = olefile.OleFileIO(io.BytesIO(outlook_msg(**OFFER)))
    assert ole.openstream("__substg1.0_0037001F").read().decode("utf-16-le") == "Settlement offer"
    assert ole.openstream("__attach_version1.0_#00000000/__substg1.0_37010102").read() == \
        OFFER["attachments"][0]["data"]
    assert ole.exists("__attach_version1.0_#00000001/__substg1.0_3701000D/__substg1.0_1000001F")


def test_a_msg_is_read_as_a_mail_is(sift_env):
    doc = parse_file("mail/offer.msg", outlook_msg(**OFFER))
    text = read(doc)
    assert doc.title == "Settlement offer" and doc.kind == "note"
    head = text["Settlement offer"]
    for line in ("From: Anna Keller <anna@keller.example>", "To: Bo Berg <bo@berg.example>",
                 "Cc: Carl Cho <carl@cho.example>", "Date: Tuesday 5 March 2024 09:12", "Subject: Settlement offer",
                 "Attachments: terms.txt (text/plain, 5 KB)", "a settlement of 40,000 EUR"):
        assert line in head, head
    assert "quoted" not in head and "Keller Law" not in head, "a quote and the signature left out, as of an .eml"
    assert "Attached message:" in head and "A first proposal of 30,000 EUR." in head, "an attached message read"
    assert "net thirty days" in text["Settlement offer > Attachment: terms.txt"], "its attachment read as its own"
    assert doc.meta["date"] == "2024-03-05" and doc.meta["message_id"] == "<offer-1@keller.example>"
    assert doc.sections[0].dated is not None


def test_an_html_only_body_and_eight_bit_strings_in_their_code_page(sift_env):
    doc = parse_file("brief.msg", outlook_msg(
        eight_bit={0x0037: "Записка по делу".encode("cp1251"), 0x0C1A: "Иван Петров".encode("cp1251")},
        code_page=1251, display_to="Bo Berg; Carl Cho", html=b"<html><body><p>The hearing moved to <b>Thursday</b>.</p></body></html>", sent=SENT))
    assert doc.title == "Записка по делу"
    head = read(doc)["Записка по делу"]
    assert "From: Иван Петров" in head and "To: Bo Berg, Carl Cho" in head and "The hearing moved to Thursday." in head and "<b>" not in head, head


def test_a_rich_text_body_is_read_and_one_that_does_not_unpack_is_said(sift_env):
    from compressed_rtf import compress
    doc = parse_file("rtf.msg", outlook_msg(subject="Deadline", rtf=compress(b"{\\rtf1\\ansi The filing deadline is "
                                                                               b"April 2.\\par}")))
    assert "The filing deadline is April 2." in read(doc)["Deadline"]
    doc = parse_file("rtf.msg", outlook_msg(subject="Deadline", rtf=b"\x00" * 40))
    assert "rich text (RTF) that could not be read" in doc.meta["cut_short"], doc.meta


def test_a_file_that_is_no_outlook_message_is_skipped_and_a_damaged_one_fails_with_why(sift_env):
    from ingest.unreadable import Unreadable
    from tests.msg_writer import compound_file
    with pytest.raises(Skip, match="not an OLE2 compound file"):
        parse_file("notes.msg", b"msgid \"hello\"\nmsgstr \"hallo\"\n")  # a gettext catalogue's name, say
    with pytest.raises(Skip, match="without a message's properties"):
        parse_file("other.msg", compound_file({"WordDocument": b"\x00" * 100}))
    whole = outlook_msg(**OFFER)
    with pytest.raises(Unreadable, match="its OLE2 file is damaged or cut short"):  # a copy cut short
        parse_file("offer.msg", whole[:len(whole) // 2])
    # an attachment's MIME type of damaged bytes (letters, not ASCII) is no type: the message is read all the same
    damaged = dict(OFFER, attachments=[{**OFFER["attachments"][0], "mime": "text/pl\u1c69in"}])
    assert "net thirty days" in read(parse_file("offer.msg", outlook_msg(**damaged)))[
        "Settlement offer > Attachment: terms.txt"]


def test_a_msg_beside_a_pdf_of_its_name_is_no_conversion_of_it():
    """invoice.msg beside the invoice.pdf it came with does not hold the PDF's text: both are read, as of an .eml."""
    from ingest.links import converted_pdfs
    assert converted_pdfs({"mail/invoice.msg", "mail/invoice.pdf"}) == {}
    assert converted_pdfs({"mail/invoice.md", "mail/invoice.pdf"}) == {"mail/invoice.md": "mail/invoice.pdf"}


def indexed(sift_env, tmp_path, embedder=None):
    """A collection 'notes' of a note, an .eml, a mailbox of no extension and a .msg, all about a settlement, indexed
    without vectors (with them, given ``embedder``); an Engine over it (keywords from postings, or from FTS5 with
    ``postings=False``)."""
    from search.query.engine import Engine
    from tests.conftest import ingest, ingest_keyword_only, write_tree
    from workers.app import huey
    eml = ("From: Bo Berg <bo@berg.example>\nTo: Anna Keller <anna@keller.example>\nSubject: Re: Settlement offer\n"
           "In-Reply-To: <offer-1@keller.example>\nDate: Wed, 06 Mar 2024 10:00:00 +0000\n\n"
           "The settlement figure is too low.\n")
    mbox = ("From carl@cho.example Thu Mar  7 08:00:00 2024\nFrom: Carl Cho <carl@cho.example>\n"
            "Subject: Settlement call\nDate: Thu, 07 Mar 2024 08:00:00 +0000\n\nA call on the settlement at ten.\n")
    root = write_tree(tmp_path / "notes", {"case/notes.md": "# Strategy\n\nThe settlement must cover costs.\n",
                                           "mail/reply.eml": eml, "mail/Inbox": mbox})
    (root / "mail/offer.msg").write_bytes(outlook_msg(**OFFER))
    huey.immediate = True  # the pipeline's jobs run in this process
    try:
        if embedder is None:
            ingest_keyword_only(root)
        else:
            assert ingest(root)["published"]["failures"] == []
    finally:
        huey.immediate = False
    return lambda postings=True: Engine(Path(sift_env["SIFT_HOME"]) / "index.db", lambda: embedder,
                                        keyword_postings=postings)


def test_an_indexed_msg_is_read_at_its_hits_lines_and_by_its_sender(sift_env, tmp_path):
    """read_file shows a .msg as it is indexed (it said 'looks like a binary file'): a hit's lines are its
    message's text, its attachment is read by its heading; its sender is its passages' author, and its thread
    joins the .eml replying to it, as an .eml's."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.query.filters import Filters
    from search.settings import load
    engine = indexed(sift_env, tmp_path)()
    by = engine.search("settlement", mode="keyword", filters=Filters(author="Anna Keller")).hits
    assert {hit.path for hit in by} == {"mail/offer.msg"}
    tools = Tools(Sift(load()))
    hit = next(h for h in engine.search("proposes", mode="keyword").hits if h.path == "mail/offer.msg")
    shown = tools.read_file(path="notes/mail/offer.msg", start_line=hit.start_line, end_line=hit.end_line)
    assert "From: Anna Keller <anna@keller.example>" in shown.content[0].text, shown.content[0].text
    assert "proposes a settlement of 40,000 EUR" in shown.content[0].text, shown.content[0].text
    attached = tools.read_file(path="notes/mail/offer.msg", heading="Attachment: terms.txt").content[0].text
    assert "net thirty days" in attached and "an Outlook message" in attached, attached
    # its thread: the .eml replying to it (In-Reply-To its Message-ID) is named by its hit and shown with it
    found = tools.search(query="proposes", mode="keyword").content[0].text
    assert "its thread: 1 other message, notes/mail/reply.eml" in found, found
    thread = tools.read_file(path="notes/mail/offer.msg", heading="thread: Settlement offer").content[0].text
    assert "proposes a settlement" in thread and "The settlement figure is too low." in thread, thread


def test_a_msg_attached_to_a_mail_is_named_not_read_as_a_file(sift_env):
    """A mail file attached as a file is named, as an attached .eml is: a .msg holding a .msg holding a .msg … was
    read one inside another, as deep as the bytes went."""
    import base64
    inner = base64.encodebytes(outlook_msg(subject="Inner", body="The inner message's words.")).decode()
    mail = ("From: Anna <anna@example.com>\nSubject: Forwarded item\nMIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"XX\"\n\n--XX\nContent-Type: text/plain\n\nSee attached.\n"
            "--XX\nContent-Type: application/vnd.ms-outlook; name=\"inner.msg\"\nContent-Transfer-Encoding: base64\n"
            "Content-Disposition: attachment; filename=\"inner.msg\"\n\n" + inner + "--XX--\n").encode()
    text = read(parse_file("forward.eml", mail))
    assert list(text) == ["Forwarded item"] and "inner.msg (application/vnd.ms-outlook" in text["Forwarded item"]


def test_mail_is_a_kind_to_search_by(sift_env, tmp_path, embedder):
    """kind='mail' keeps a .msg, an .eml and a mailbox of no extension, not a note about the same ('the mail from
    opposing counsel' was kept to mail only by glob='**/*.eml'); kind='note' still holds mail (it is read as
    notes). The same by keyword from postings and from FTS5, and by meaning."""
    from search.query.filters import Filters
    engines = indexed(sift_env, tmp_path, embedder)
    for engine, mode in ((engines(), "keyword"), (engines(postings=False), "keyword"), (engines(), "semantic")):
        paths = lambda kind: sorted({hit.path for hit in engine.search(  # noqa: E731
            "settlement", mode=mode, filters=Filters(kind=kind)).hits})
        assert paths("mail") == ["mail/Inbox", "mail/offer.msg", "mail/reply.eml"]
        assert paths("note") == ["case/notes.md", "mail/Inbox", "mail/offer.msg", "mail/reply.eml"] == paths(None)


def test_a_search_of_kind_mail_is_told_of_mail_not_read_yet(sift_env, tmp_path, monkeypatch):
    """In a collection whose first build comes in parts, kind='mail' is told of the mail files not read yet, as
    kind='note' is (mcp_server.report.partial_notes): by their names they are notes, never 'mail'."""
    from mcp_server import report
    from search.index import collection_reads, store
    from tests.conftest import write_tree
    from tests.test_first_parts import run_jobs, same_time
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "2")
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    mail = "From: Anna <anna@example.com>\nSubject: Offer {i}\n\nThe offer number {i}.\n"
    root = same_time(write_tree(tmp_path / "mail", {f"m{i:02}.eml": mail.format(i=i) for i in range(6)}))
    conn = runtime.index()
    cid = store.ensure_collection(conn, "mail", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    _, fresh = report.freshness(conn)
    assert report.partial_notes(conn, fresh, "mail") == report.partial_notes(conn, fresh) != []
    assert report.partial_notes(conn, fresh, "code") == []


def test_a_received_messages_kept_headers_fill_what_its_properties_lack(sift_env):
    """Outlook keeps a received message's headers (PR_TRANSPORT_MESSAGE_HEADERS): its Date gives the sender's
    offset (the properties' time is UTC), its Message-ID and References its place in a thread."""
    headers = ("Received: from mx.keller.example by mx.berg.example; Tue, 5 Mar 2024 09:12:05 +0000\r\n"
               "Date: Tue, 5 Mar 2024 10:12:00 +0100\r\nMessage-ID: <offer-2@keller.example>\r\n"
               "References: <offer-1@keller.example>\r\nSubject: Revised offer\r\n")
    doc = parse_file("revised.msg", outlook_msg(subject="Revised offer", body="We revise the offer.", sent=SENT,
                                                sender=("Anna Keller", "anna@keller.example"),
                                                transport_headers=headers))
    assert doc.meta["mail_time"] == "2024-03-05T10:12:00+01:00", doc.meta
    assert (doc.meta["message_id"], doc.meta["mail_thread"]) == ("<offer-2@keller.example>", "<offer-1@keller.example>")
    assert "Date: Tuesday 5 March 2024 10:12" in read(doc)["Revised offer"]
