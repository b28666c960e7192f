"""A thread across saved messages (.eml files: Apple Mail's or Outlook's drag and drop, a file a message): a reply's
hit and read_file(heading='thread: …') name and show the other messages of its conversation in the collection,
found by the Message-IDs kept in each file's meta at parse time (search.query.mail_threads). Before, a thread was
the messages of one mailbox: a reply's .eml named none of them."""
from __future__ import annotations

import pytest

from ingest.parse import parse_file
from tests.conftest import ingest


def eml(subject: str, own: str, body: str, date: str, replying: str = "", references: str = "") -> bytes:
    head = [f"From: Anna Keller <anna@example.com>", "To: Bo <bo@example.com>", f"Subject: {subject}",
            f"Date: {date}", f"Message-ID: {own}"]
    head += [f"In-Reply-To: {replying}"] if replying else []
    head += [f"References: {references}"] if references else []
    return ("\n".join(head) + "\n\n" + body + "\n").encode()


FILES = {
    "Inbox/budget.eml": eml("Budget", "<a@example.com>", "The shed roof budget is 4,000 euros.",
                            "Tue, 05 Mar 2024 09:00:00 +0000"),
    "Inbox/re-budget.eml": eml("Re: Budget", "<b@example.com>", "Could we lower the gutter costs?",
                               "Wed, 06 Mar 2024 09:00:00 +0000", "<a@example.com>", "<a@example.com>"),
    # a reply to the reply whose mailer wrote no References: its key is the reply's Message-ID
    "Sent/re-re-budget.eml": eml("Re: Re: Budget", "<c@example.com>", "Yes, zinc gutters are cheaper.",
                                 "Thu, 07 Mar 2024 09:00:00 +0000", "<b@example.com>"),
    "Inbox/holiday.eml": eml("Holiday", "<d@example.com>", "The ferry leaves at noon on Friday.",
                             "Fri, 08 Mar 2024 09:00:00 +0000"),
}


def test_an_eml_keeps_its_message_id_and_thread_key():
    meta = parse_file("a.eml", FILES["Inbox/re-budget.eml"]).meta
    assert (meta["message_id"], meta["mail_thread"]) == ("<b@example.com>", "<a@example.com>"), meta
    assert parse_file("a.eml", FILES["Inbox/budget.eml"]).meta["mail_thread"] == "<a@example.com>"
    assert parse_file("a.eml", FILES["Sent/re-re-budget.eml"]).meta["mail_thread"] == "<b@example.com>"


def test_a_replys_hit_and_read_file_name_and_show_its_thread_across_eml_files(immediate, tmp_path, monkeypatch):
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    for rel, data in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    found = tools.search(query="zinc gutters", mode="keyword")
    hit = found.structured_content["results"][0]
    assert hit["path"] == "mail/Sent/re-re-budget.eml", hit
    assert hit["mail_thread"] == ["mail/Inbox/budget.eml", "mail/Inbox/re-budget.eml"], hit
    assert "its thread: 2 other messages, mail/Inbox/budget.eml, mail/Inbox/re-budget.eml (read_file with " \
           "heading='thread: Re: Re: Budget' on it shows them together)" in found.content[0].text
    alone = tools.search(query="ferry", mode="keyword").structured_content["results"][0]
    assert alone["path"] == "mail/Inbox/holiday.eml" and "mail_thread" not in alone, alone
    read = tools.read_file(path="mail/Inbox/re-budget.eml", heading="thread: Re: Budget")
    text = read.content[0].text
    assert not read.is_error, text
    assert text.index("4,000 euros") < text.index("gutter costs") < text.index("zinc gutters"), text
    assert "ferry" not in text and "the thread of mail/Inbox/re-budget.eml, 3 saved messages in mail" in text, text
    one = tools.read_file(path="mail/Inbox/budget.eml", heading="Budget").content[0].text
    assert "its thread in mail, 3 messages: mail/Inbox/budget.eml ('Budget', 2024-03-05)" in one, one
    assert "zinc" not in one, one


def test_a_threads_messages_of_one_day_are_in_the_order_sent(immediate, tmp_path, monkeypatch):
    """A thread's messages were ordered by the day their meta kept, then by path: three of one morning read reply
    first ('a-re.eml' before 'z-first.eml'). Their Date's time is kept, with its offset, and orders them by the
    instant (10:00 at +0200 is before 09:30 at +0000)."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    files = {"z-first.eml": eml("Shed", "<s1@example.com>", "The shed needs a new roof.",
                                "Tue, 05 Mar 2024 10:00:00 +0200"),
             "a-re.eml": eml("Re: Shed", "<s2@example.com>", "Slate or zinc for the roof?",
                             "Tue, 05 Mar 2024 09:30:00 +0000", "<s1@example.com>", "<s1@example.com>"),
             "m-re-re.eml": eml("Re: Re: Shed", "<s3@example.com>", "Zinc, it is lighter.",
                                "Tue, 05 Mar 2024 09:45:00 +0000", "<s2@example.com>",
                                "<s1@example.com> <s2@example.com>")}
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    assert parse_file("a.eml", files["z-first.eml"]).meta["mail_time"] == "2024-03-05T10:00:00+02:00"
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    hit = tools.search(query="lighter", mode="keyword").structured_content["results"][0]
    assert hit["mail_thread"] == ["mail/z-first.eml", "mail/a-re.eml"], hit
    text = tools.read_file(path="mail/a-re.eml", heading="thread: Re: Shed").content[0].text
    assert text.index("new roof") < text.index("Slate or zinc") < text.index("it is lighter"), text


def mbox(*messages: bytes) -> bytes:
    return b"".join(b"From anna@example.com Tue Mar  5 09:00:00 2024\n" + m + b"\n" for m in messages)


# a thread across an mbox, an .eml and another mbox (Thunderbird's Inbox and Sent): the first message in the archive,
# the reply saved as an .eml, the reply to that in the Sent mailbox; the archive's other message is of no thread
ACROSS = {
    "archive.mbox": mbox(eml("Budget", "<a@example.com>", "The shed roof budget is 4,000 euros.",
                             "Tue, 05 Mar 2024 09:00:00 +0000"),
                         eml("Holiday", "<d@example.com>", "The ferry leaves at noon on Friday.",
                             "Fri, 08 Mar 2024 09:00:00 +0000")),
    "Inbox/re-budget.eml": eml("Re: Budget", "<b@example.com>", "Could we lower the gutter costs?",
                               "Wed, 06 Mar 2024 09:00:00 +0000", "<a@example.com>", "<a@example.com>"),
    "Sent.mbox": mbox(eml("Re: Re: Budget", "<c@example.com>", "Yes, zinc gutters are cheaper.",
                          "Thu, 07 Mar 2024 09:00:00 +0000", "<b@example.com>")),
}


def test_a_thread_is_joined_across_mailboxes_and_eml_files(immediate, tmp_path, monkeypatch):
    """A reply saved as an .eml to a message of a mailbox, and a reply to it in another mailbox (Thunderbird's
    Sent), were not joined: a thread was an .eml folder's, or one mailbox's. The index keeps each message's
    Message-ID and thread (schema V23's mail_messages): their hits name one another, and read_file's
    heading='thread: …' shows them in the order sent, from any of them."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    for rel, data in ACROSS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    hit = tools.search(query="gutter costs", mode="keyword").structured_content["results"][0]
    assert hit["path"] == "mail/Inbox/re-budget.eml", hit
    assert hit["mail_thread"] == ["mail/archive.mbox (line 1)", "mail/Sent.mbox (line 1)"], hit
    hit = tools.search(query="roof budget", mode="keyword").structured_content["results"][0]
    assert hit["path"] == "mail/archive.mbox", hit
    assert hit["mail_thread"] == ["mail/Inbox/re-budget.eml", "mail/Sent.mbox (line 1)"], hit
    alone = tools.search(query="ferry", mode="keyword").structured_content["results"][0]
    assert alone["path"] == "mail/archive.mbox" and "mail_thread" not in alone, alone
    for path, heading in (("mail/Inbox/re-budget.eml", "thread: Re: Budget"), ("mail/archive.mbox", "thread: Budget"),
                          ("mail/Sent.mbox", "thread: Re: Re: Budget")):
        read = tools.read_file(path=path, heading=heading)
        text = read.content[0].text
        assert not read.is_error, text
        assert text.index("4,000 euros") < text.index("gutter costs") < text.index("zinc gutters"), text
        assert "ferry" not in text, text
        assert "3 saved messages in mail: mail/archive.mbox (line 1) ('Budget', 2024-03-05), mail/Inbox/" \
               "re-budget.eml ('Re: Budget', 2024-03-06), mail/Sent.mbox (line 1) ('Re: Re: Budget', 2024-03-07)" \
               in text, text
    one = tools.read_file(path="mail/archive.mbox", heading="Budget").content[0].text
    assert "its thread in mail, 3 messages: mail/archive.mbox (line 1)" in one and "gutter" not in one, one
    # a mailbox gone: its messages' rows go with it, and the thread no longer names them
    (root / "Sent.mbox").unlink()
    assert ingest(root, "mail")["published"]["failures"] == []
    from workers import runtime
    conn = runtime.index()
    assert conn.execute("SELECT count(*) FROM mail_messages WHERE file NOT IN (SELECT id FROM files)").fetchone()[0] \
        == 0
    assert conn.execute("SELECT count(*) FROM mail_messages WHERE message_id = '<c@example.com>'").fetchone()[0] == 0
    hit = Tools(Sift(load())).search(query="gutter costs", mode="keyword").structured_content["results"][0]
    assert hit["mail_thread"] == ["mail/archive.mbox (line 1)"], hit


def test_an_index_before_v23_is_filled_with_its_eml_messages(immediate, tmp_path, monkeypatch):
    """The writer's migration to V23 fills mail_messages from the .eml files' meta (a mailbox's come when it is
    read again), and a reader of an index before V23 joins .eml files by their meta as before."""
    from search.index.db import connect
    from tests.conftest import as_older_index
    import os
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    for rel, data in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    assert ingest(root, "mail")["published"]["failures"] == []
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    path = as_older_index(dict(os.environ), "DROP TABLE mail_messages;", 22)
    hit = Tools(Sift(load())).search(query="zinc gutters", mode="keyword").structured_content["results"][0]
    assert hit["mail_thread"] == ["mail/Inbox/budget.eml", "mail/Inbox/re-budget.eml"], hit
    conn = connect(path)  # the writer's connection migrates
    rows = conn.execute("SELECT message_id, thread, line, lines FROM mail_messages ORDER BY 1").fetchall()
    conn.close()
    assert [tuple(r) for r in rows] == [("<a@example.com>", "<a@example.com>", 1, None),
                                        ("<b@example.com>", "<a@example.com>", 1, None),
                                        ("<c@example.com>", "<b@example.com>", 1, None),
                                        ("<d@example.com>", "<d@example.com>", 1, None)], rows


def test_a_long_thread_does_not_push_another_threads_messages_off_a_page(immediate, tmp_path, monkeypatch):
    """A page's threads were looked up together, at most 200 messages for all: a mailing list's thread of 205
    messages, sent before, left a reply's .eml on the same page naming none of its own thread. Each thread is looked
    up alone, 200 messages of it at most."""
    from search.query import mail_threads
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    (root / "list.mbox").write_bytes(mbox(*(
        eml("Re: Kelp" if n else "Kelp", f"<k{n}@example.com>", f"Kelp message {n}.",
            f"Tue, 05 Mar 2024 {n // 60:02d}:{n % 60:02d}:00 +0000", *(("<k0@example.com>",) * 2 if n else ()))
        for n in range(205))))
    (root / "shed.eml").write_bytes(eml("Shed", "<s1@example.com>", "The shed.", "Mon, 01 Apr 2024 09:00:00 +0000"))
    (root / "re-shed.eml").write_bytes(eml("Re: Shed", "<s2@example.com>", "Zinc.", "Tue, 02 Apr 2024 09:00:00 +0000",
                                           "<s1@example.com>", "<s1@example.com>"))
    assert ingest(root, "mail")["published"]["failures"] == []
    conn = runtime.index()
    ids = dict(conn.execute("SELECT path, id FROM files"))
    collection = conn.execute("SELECT collection FROM files WHERE path = 're-shed.eml'").fetchone()[0]
    found = mail_threads.threads(conn, [(collection, ids["list.mbox"], 1), (collection, ids["re-shed.eml"])])
    assert mail_threads.others(found, ids["re-shed.eml"]) == ["shed.eml"], found.get((ids["re-shed.eml"], None))


def test_a_mailboxs_counts_are_kept_over_a_publish_of_other_notes(immediate, tmp_path, monkeypatch):
    """A mailbox's messages and threads, which list_files says, were counted afresh after any publish of its
    collection (kept by the published generation): a saved note made the next listing of a mailbox of 100,000
    messages take about a second. They are kept while the collection's mail files are the same versions."""
    from search.query import mail_threads
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    for rel in ("archive.mbox", "Sent.mbox"):
        (root / rel).write_bytes(ACROSS[rel])
    (root / "notes.md").write_text("# Shed\nThe roof first.\n")
    assert ingest(root, "mail")["published"]["failures"] == []

    def counted() -> tuple:
        conn = runtime.index()
        file_id, collection = conn.execute("SELECT id, collection FROM files WHERE path = 'archive.mbox' AND "
                                           "gen_to IS NULL").fetchone()
        return mail_threads.mailbox_threads(conn, collection, file_id, "archive.mbox")

    mail_threads._counted.clear()
    assert counted() == (2, 2, 0)  # Budget's reply in Sent names b@, an .eml not here
    (root / "notes.md").write_text("# Shed\nThe roof first, then the gutters.\n")
    assert ingest(root, "mail")["published"]["failures"] == []
    assert counted() == (2, 2, 0) and len(mail_threads._counted) == 1, mail_threads._counted
    (root / "Sent.mbox").write_bytes(ACROSS["Sent.mbox"] + mbox(eml(
        "Re: Budget", "<e@example.com>", "And the door.", "Fri, 08 Mar 2024 09:00:00 +0000", "<a@example.com>")))
    assert ingest(root, "mail")["published"]["failures"] == []
    assert counted() == (2, 2, 1) and len(mail_threads._counted) == 2, mail_threads._counted


def _other_mail_files_steps(tmp_path, notes: int) -> tuple[str, int]:
    """(``other_mail_files`` of Inbox, the SQLite VM steps it took) in an index of ``notes`` notes, two mailboxes of
    another collection, an old version of Sent and the two mailboxes of the collection asked."""
    from search.index import db, mail_reads
    conn = db.connect(tmp_path / f"index-{notes}.db")
    conn.execute("INSERT INTO collections(id, name, root, published, created) VALUES (1, 'n', '/n', 2, 0), "
                 "(2, 'o', '/o', 1, 0)")
    add = "INSERT INTO files(collection, path, kind, size, mtime, sha256, title, meta, gen_from, gen_to) " \
          "VALUES (?, ?, 'note', 1, 0, 'x', 't', '{}', ?, ?)"
    conn.executemany(add, [(1, f"notes/{i}.md", 1, None) for i in range(notes)])
    for collection, path, gen_to in ((2, "Inbox", None), (2, "Sent", None), (1, "Sent", 2), (1, "Inbox", None),
                                     (1, "Sent", None)):
        file_id = conn.execute(add, (collection, path, 1, gen_to)).lastrowid
        conn.executemany("INSERT INTO mail_messages(file, message_id, thread, line, lines, subject, sent) "
                         "VALUES (?, ?, ?, ?, 5, 's', NULL)", [(file_id, f"<{file_id}.{n}>", "<t>", n) for n in range(50)])
    conn.commit()
    return _steps_of(conn, lambda: mail_reads.other_mail_files(conn, 1, "Inbox"))


def _steps_of(conn, ask):
    """What ``ask()`` answers and how many SQLite steps (of 100 instructions) it took; ``conn`` closed after."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0
    conn.set_progress_handler(count, 100)
    said = ask()
    conn.close()
    return said, steps[0]


def test_a_mailboxs_listing_key_does_not_read_every_file_of_the_collection(tmp_path):
    """list_files of a mailbox keeps its thread counts by the collection's other mail file versions
    (``mail_reads.other_mail_files``), which read every file of the collection to find them: 85 ms a mailbox at
    100,000 notes, each listing, for a count kept at 0.04 ms. The mail files are found through mail_messages'
    index by file: the work is the same at 20 notes as at 5,000."""
    few, few_steps = _other_mail_files_steps(tmp_path, 20)
    many, many_steps = _other_mail_files_steps(tmp_path, 5_000)
    sent = str(20 + 5)  # the collection's published Sent: not its old version, nor the other collection's
    assert few == sent and many == str(5_000 + 5)
    assert many_steps <= 2 * few_steps + 2, (few_steps, many_steps)


def _before_people_steps(tmp_path, notes: int, published: bool) -> tuple[list[str], int]:
    """(``before_people`` of a collection of ``notes`` notes and two mail files, Sent read before schema V24, and
    the SQLite VM steps it took)."""
    from search.index import db, mail_reads
    conn = db.connect(tmp_path / f"people-{notes}-{published}.db")
    conn.execute("INSERT INTO collections(id, name, root, published, created) VALUES (1, 'n', '/n', 1, 0)")
    add = "INSERT INTO files(collection, path, kind, size, mtime, sha256, title, meta, gen_from, gen_to) " \
          "VALUES (1, ?, 'note', 1, 0, 'x', 't', '{}', 1, NULL)"
    conn.executemany(add, [(f"notes/{i}.md",) for i in range(notes)])
    for path, senders in (("Inbox", "[]"), ("Sent", None)):
        file_id = conn.execute(add, (path,)).lastrowid
        conn.executemany("INSERT INTO mail_messages(file, message_id, thread, line, lines, subject, sent, senders) "
                         "VALUES (?, ?, '<t>', ?, 5, 's', NULL, ?)",
                         [(file_id, f"<{file_id}.{n}>", n, senders) for n in range(50)])
    conn.commit()
    return _steps_of(conn, lambda: mail_reads.before_people(conn, 1, published))


@pytest.mark.parametrize("published", [True, False])
def test_mail_read_before_v24_is_found_without_reading_every_file(tmp_path, published):
    """Every scan, the watcher's of one path too, asks which mail files were read before schema V24
    (``mail_reads.before_people``): it read each current file of the collection to probe the list of such files
    (10-20 ms a scan at 100,000 notes, none left to find). They are found through mail_messages' partial index."""
    few, few_steps = _before_people_steps(tmp_path, 20, published)
    many, many_steps = _before_people_steps(tmp_path, 5_000, published)
    assert few == many == ["Sent"]
    assert many_steps <= 2 * few_steps + 2, (few_steps, many_steps)
