"""A reply that names no parent (a phone's or a web mail's: neither In-Reply-To nor References) is joined to its
thread by its Subject, as Thunderbird and JWZ's threading do: to the latest message before it in the mailbox of that
Subject without 'Re:', 'AW:', 'SV:', '回复:', 'Fwd:' …, among the same people, at most 30 days before it. Before,
such a reply was a thread of its own: its head named no message, read_file's heading='thread: …' showed it alone."""
from __future__ import annotations

from ingest.parse import parse_file
from tests.conftest import ingest


def message(sender: str, to: str, subject: str, date: str, own: str, body: str, *extra: str) -> bytes:
    head = [f"From: {sender}", f"To: {to}", f"Subject: {subject}", f"Date: {date}", f"Message-ID: {own}", *extra]
    return ("\n".join(head) + "\n\n" + body + "\n").encode()


def mbox(*messages: bytes) -> bytes:
    return b"".join(b"From someone@example.com Tue Mar  5 09:00:00 2024\n" + m + b"\n" for m in messages)


ANNA, BO = "Anna Keller <anna@example.com>", "Bo <bo@example.com>"
CAROL, DAN = "Carol <carol@example.com>", "Dan <dan@example.com>"
# two conversations titled 'Hello' with other people, replies naming no parent, one two months late, one that names
# its parent (joined by it, not by its Subject), and a Chinese client's '回复:'
INBOX = mbox(
    message(ANNA, BO, "Hello", "Tue, 05 Mar 2024 09:00:00 +0000", "<a1@example.com>", "Shall we plant the kelp beds?"),
    message(CAROL, DAN, "Hello", "Tue, 05 Mar 2024 10:00:00 +0000", "<c1@example.com>", "Chess on Friday evening?"),
    message(BO, ANNA, "Re: Hello", "Wed, 06 Mar 2024 08:00:00 +0100", "<b1@example.com>", "Yes, Thursday at noon."),
    message(DAN, CAROL, "AW: Hello", "Wed, 06 Mar 2024 11:00:00 +0000", "<d1@example.com>", "Friday suits me."),
    message(BO, ANNA, "Re: Hello", "Wed, 08 May 2024 08:00:00 +0000", "<b2@example.com>", "Months later, new topic."),
    message(ANNA, BO, "回复: Hello", "Thu, 07 Mar 2024 09:00:00 +0000", "<a2@example.com>", "Noon it is, bring boots."),
    message(CAROL, DAN, "Re: Hello", "Thu, 07 Mar 2024 12:00:00 +0000", "<c2@example.com>", "See you at the club.",
            "In-Reply-To: <d1@example.com>"))


def heads(data: bytes) -> list[str]:
    return [s.text.split("\n\n", 1)[0] for s in parse_file("Inbox.mbox", data).sections]


def test_a_reply_naming_no_parent_is_joined_by_its_subject_among_the_same_people():
    said = heads(INBOX)
    assert "In reply to" not in said[0] and "In reply to" not in said[1], said
    assert said[2].endswith("\nIn reply to: Hello (Anna Keller, line 1)"), said[2]
    assert said[3].endswith("\nIn reply to: Hello (Carol, line 10)"), said[3]  # not Anna's 'Hello': other people
    assert "In reply to" not in said[4], said[4]  # two months after: a conversation of its own
    assert said[5].endswith("\nIn reply to: Re: Hello (Bo, line 19)"), said[5]  # the latest before it
    assert said[6].endswith("\nIn reply to: AW: Hello (Dan, line 28)"), said[6]  # named by In-Reply-To
    rows = parse_file("Inbox.mbox", INBOX).meta["mail_messages"]
    assert [(own, key) for own, key, *_ in rows] == [
        ("<a1@example.com>", "<a1@example.com>"), ("<c1@example.com>", "<c1@example.com>"),
        ("<b1@example.com>", "<a1@example.com>"), ("<d1@example.com>", "<c1@example.com>"),
        ("<b2@example.com>", "<b2@example.com>"), ("<a2@example.com>", "<a1@example.com>"),
        ("<c2@example.com>", "<d1@example.com>")], rows
    # a message without 'Re:' is its own conversation, though the people and the Subject are the same
    alone = mbox(message(ANNA, BO, "Hello", "Tue, 05 Mar 2024 09:00:00 +0000", "<x1@example.com>", "First."),
                 message(ANNA, BO, "Hello", "Tue, 05 Mar 2024 10:00:00 +0000", "<x2@example.com>", "Second."))
    assert "In reply to" not in heads(alone)[1]
    # one's own replies in Sent, to Anna and then to Carol: their sender alone is no conversation
    sent = mbox(message(BO, ANNA, "Re: Budget", "Wed, 06 Mar 2024 08:00:00 +0000", "<s1@example.com>", "Zinc."),
                message(BO, CAROL, "Re: Budget", "Wed, 06 Mar 2024 09:00:00 +0000", "<s2@example.com>", "Pawns."),
                message(BO, f"{ANNA}, {CAROL}", "Re: Budget", "Wed, 06 Mar 2024 10:00:00 +0000", "<s3@example.com>",
                        "Both of you."))
    assert "In reply to" not in heads(sent)[1]
    # nor is one's own reply naming no parent a message answered: the third, to both, joins neither (a phone's
    # replies to a daily 'Standup' were joined each to the day before's, two months of them one thread)
    assert "In reply to" not in heads(sent)[2]


def test_read_file_shows_a_thread_joined_by_subject_and_an_eml_reply_joins_it(immediate, tmp_path, monkeypatch):
    """read_file's heading='thread: Hello (line 1)' shows Anna's and Bo's messages, not Carol's and Dan's; a reply
    saved as an .eml to Bo's phone reply (its In-Reply-To) is of the same thread across files."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    (root / "Inbox.mbox").write_bytes(INBOX)
    (root / "boots.eml").write_bytes(message(BO, ANNA, "Re: Hello", "Fri, 08 Mar 2024 09:00:00 +0000",
                                             "<b3@example.com>", "Wellington boots, size 44.",
                                             "In-Reply-To: <b1@example.com>", "References: <b1@example.com>"))
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    text = tools.read_file(path="mail/Inbox.mbox", heading="thread: Hello (line 1)").content[0].text
    assert text.index("kelp beds") < text.index("Thursday at noon") < text.index("bring boots"), text
    assert "Chess" not in text and "Friday suits" not in text and "Months later" not in text, text
    hit = tools.search(query="wellington boots", mode="keyword").structured_content["results"][0]
    assert hit["path"] == "mail/boots.eml", hit
    assert hit["mail_thread"] == ["mail/Inbox.mbox (line 1)", "mail/Inbox.mbox (line 19)",
                                      "mail/Inbox.mbox (line 46)"], hit


def test_a_phones_reply_in_sent_joins_its_original_in_inbox(immediate, tmp_path, monkeypatch):
    """A reply naming no parent was joined by its Subject within its own mailbox only: Bo's phone reply 'Re: Budget',
    which Thunderbird keeps in Sent, named nothing of Anna's 'Budget' in Inbox, nor hers it. The index keeps each
    message's Subject without 'Re:' and its people (schema V24): the two name each other, and read_file's
    heading='thread: …' shows them together; Carol's 'Budget' with Bo, a reply to her and one two months late stay
    apart as within a mailbox. A reader of an index before V24 joins by Message-IDs as before."""
    import os
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    from tests.conftest import as_older_index
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    (root / "Inbox").write_bytes(mbox(  # Thunderbird's folders: mailboxes without an extension
        message(ANNA, BO, "Budget", "Tue, 05 Mar 2024 09:00:00 +0000", "<a1@example.com>", "The roof is 4,000 euros."),
        message(CAROL, BO, "Budget", "Tue, 05 Mar 2024 10:00:00 +0000", "<c1@example.com>", "The chess club fees.")))
    (root / "Sent").write_bytes(mbox(
        message(BO, ANNA, "Re: Budget", "Wed, 06 Mar 2024 08:00:00 +0100", "<b1@example.com>", "Zinc gutters, then."),
        message(BO, CAROL, "Re: Budget", "Wed, 06 Mar 2024 09:00:00 +0000", "<b2@example.com>", "Pawns are cheap."),
        message(BO, ANNA, "Re: Budget", "Wed, 08 May 2024 08:00:00 +0000", "<b3@example.com>", "Months later, a shed.")))
    (root / "saved").mkdir()  # Anna's answer, from her phone, saved as an .eml
    (root / "saved" / "re-budget.eml").write_bytes(message(ANNA, BO, "Re: Budget", "Thu, 07 Mar 2024 09:00:00 +0000",
                                                           "<a2@example.com>", "Copper instead, fine."))
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))

    def thread(query: str) -> list[str]:
        return tools.search(query=query, mode="keyword").structured_content["results"][0].get("mail_thread", [])

    assert thread("zinc gutters") == ["mail/Inbox (line 1)", "mail/saved/re-budget.eml"]
    assert thread("roof euros") == ["mail/Sent (line 1)", "mail/saved/re-budget.eml"]
    assert thread("copper instead") == ["mail/Inbox (line 1)", "mail/Sent (line 1)"]
    assert thread("pawns cheap") == ["mail/Inbox (line 10)"]
    assert thread("chess club fees") == ["mail/Sent (line 10)"]
    assert thread("months later shed") == []
    # list_files counts those threads as going on in other mail files too (it counted by Message-IDs alone: none)
    said = {f["path"]: f.get("reason") for f in tools.list_files(sort="path").structured_content["files"]}
    assert "2 messages in 2 threads" in said["mail/Inbox"] and "2 of the threads go on" in said["mail/Inbox"], said
    assert "3 messages in 3 threads" in said["mail/Sent"] and "2 of the threads go on" in said["mail/Sent"], said
    text = tools.read_file(path="mail/Sent", heading="thread: Re: Budget (line 1)").content[0].text
    assert text.index("4,000 euros") < text.index("Zinc gutters") < text.index("Copper") and "Pawns" not in text \
        and "shed" not in text, text
    as_older_index(dict(os.environ), "DROP INDEX mail_messages_topic; DROP INDEX mail_messages_before_people; "
                   "ALTER TABLE mail_messages DROP COLUMN topic; "
                   "ALTER TABLE mail_messages DROP COLUMN senders; ALTER TABLE mail_messages DROP COLUMN people; "
                   "ALTER TABLE mail_messages DROP COLUMN by_subject;", 23)
    tools = Tools(Sift(load()))
    assert thread("zinc gutters") == [] and thread("roof euros") == []
    # upgraded: the migration leaves those rows without people; stats says so, and the next scan reads the mail
    # files again, though none changed (they joined nothing by Subject until each mailbox changed)
    import sqlite3
    from search.index import schema
    from workers import runtime
    upgraded = sqlite3.connect(os.environ["SIFT_HOME"] + "/index.db")
    assert schema.migrate(upgraded) == len(schema.MIGRATIONS)
    upgraded.close()
    runtime.reset()
    tools = Tools(Sift(load()))
    said = tools.stats().content[0].text
    assert "3 mail files read before schema V24" in said, said
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    assert thread("zinc gutters") == ["mail/Inbox (line 1)", "mail/saved/re-budget.eml"]
    assert "schema V24" not in tools.stats().content[0].text


def test_a_reply_of_a_long_running_subject_joins_the_message_of_its_time(immediate, tmp_path, monkeypatch):
    """A Subject join looked at the Subject's latest THREAD_FILES messages, whenever the hit was sent: a phone's
    reply to Anna's 'Weekly report' of the first year (of three, 2,000 messages) joined nothing in Inbox. It looks
    at those sent around the hit's thread now, the nearest first (THREAD_FILES made 5 here: the Subject's 12
    messages stand for its thousands)."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.query import mail_threads
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    monkeypatch.setattr(mail_threads, "THREAD_FILES", 5)
    root = tmp_path / "mail"
    root.mkdir()
    days = ["05 Jan", "12 Jan", "19 Jan", "26 Jan", "02 Feb", "09 Feb", "16 Feb", "23 Feb", "01 Mar", "08 Mar",
            "15 Mar", "22 Mar"]
    (root / "Inbox").write_bytes(mbox(*(message(ANNA, BO, "Weekly report", f"Fri, {day} 2024 09:00:00 +0000",
                                                f"<w{n}@example.com>", f"Week {n}: the usual figures.")
                                        for n, day in enumerate(days))))
    (root / "Sent").write_bytes(mbox(message(BO, ANNA, "Re: Weekly report", "Sat, 13 Jan 2024 08:00:00 +0000",
                                             "<r1@example.com>", "The kelp numbers look right.")))
    assert ingest(root, "mail")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    hit = tools.search(query="kelp numbers", mode="keyword").structured_content["results"][0]
    assert hit.get("mail_thread") == ["mail/Inbox (line 10)"], hit  # week 1's, the 12th of January


def test_mail_read_before_v24_is_read_again_by_the_watchers_scan_of_other_paths(immediate, tmp_path, monkeypatch):
    """An upgraded index's mail (senders NULL, as V24's migration left it) was read again at a full scan only:
    the watcher scans the paths it saw change, so a folder whose notes are edited every few minutes never had one,
    and Bo's reply in Sent joined nothing in Inbox. The watcher's scan of a note reads those mail files too, once."""
    import os
    import sqlite3
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.index import collection_reads
    from search.settings import load
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    (root / "Inbox").write_bytes(mbox(
        message(ANNA, BO, "Budget", "Tue, 05 Mar 2024 09:00:00 +0000", "<a1@example.com>", "The roof is 4,000 euros.")))
    (root / "Sent").write_bytes(mbox(
        message(BO, ANNA, "Re: Budget", "Wed, 06 Mar 2024 08:00:00 +0100", "<b1@example.com>", "Zinc gutters, then.")))
    (root / "plans.md").write_text("# Plans\n\nThe garden shed.\n", encoding="utf-8")
    assert ingest(root, "mail")["published"]["failures"] == []
    index = sqlite3.connect(os.environ["SIFT_HOME"] + "/index.db")  # what V24's migration left of those rows
    index.execute("UPDATE mail_messages SET topic = NULL, senders = NULL, people = NULL, by_subject = NULL")
    index.commit()
    index.close()
    runtime.reset()
    assert "2 mail files read before schema V24" in Tools(Sift(load())).stats().content[0].text
    (root / "plans.md").write_text("# Plans\n\nThe garden shed, in larch.\n", encoding="utf-8")
    conn = runtime.index()
    collection = next(c for c in collection_reads.collections(conn) if c["name"] == "mail")
    tasks.scan(collection["id"], conn, paths=["plans.md"])  # the watcher's scan: the note it saw change
    tools = Tools(Sift(load()))
    said = tools.stats().content[0].text
    assert "schema V24" not in said, said
    hit = tools.search(query="zinc gutters", mode="keyword").structured_content["results"][0]
    assert hit.get("mail_thread") == ["mail/Inbox (line 1)"], hit
    assert tools.search(query="larch", mode="keyword").structured_content["results"][0]["path"] == "mail/plans.md"


def test_a_reply_in_outlooks_other_languages_is_joined_by_its_subject():
    """Outlook writes a reply's prefix in its user's language: a Brazilian colleague's 'RES: Orçamento', a Dutch
    'Antw: Begroting', a Polish 'Odp:', a Greek 'ΑΠ:'. Naming no parent, each was a conversation of its own (its
    topic 'res: orçamento'), and 'RES:' alone a Subject that says something."""
    said = heads(mbox(
        message(ANNA, BO, "Orçamento", "Tue, 05 Mar 2024 09:00:00 +0000", "<o1@example.com>", "O telhado custa mais."),
        message(BO, ANNA, "RES: Orçamento", "Tue, 05 Mar 2024 11:00:00 +0000", "<o2@example.com>", "Quanto mais?"),
        message(ANNA, BO, "Antw: RES: Orçamento", "Wed, 06 Mar 2024 09:00:00 +0000", "<o3@example.com>", "Dez."),
        message(BO, ANNA, "ΑΠ: Orçamento", "Wed, 06 Mar 2024 10:00:00 +0000", "<o4@example.com>", "Certo."),
        message(BO, ANNA, "RES:", "Thu, 07 Mar 2024 10:00:00 +0000", "<o5@example.com>", "Sem assunto.")))
    assert said[1].endswith("\nIn reply to: Orçamento (Anna Keller, line 1)"), said[1]
    assert said[2].endswith("\nIn reply to: RES: Orçamento (Bo, line 10)"), said[2]
    assert said[3].endswith("\nIn reply to: Antw: RES: Orçamento (Anna Keller, line 19)"), said[3]
    rows = parse_file("Inbox.mbox", mbox(message(BO, ANNA, "Odp: Budżet", "Thu, 07 Mar 2024 10:00:00 +0000",
                                                 "<p1@example.com>", "Tak."))).meta["mail_messages"]
    assert rows[0][6] == "budżet", rows  # its topic, which joins it to 'Budżet' in another mail file
    assert [s.heading_path for s in parse_file("Inbox.mbox", mbox(message(
        BO, ANNA, "RES:", "Thu, 07 Mar 2024 10:00:00 +0000", "<o5@example.com>", "Sem assunto."))).sections] \
        == [["RES: (no subject)"]]
