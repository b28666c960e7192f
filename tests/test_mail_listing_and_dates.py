"""Mail in list_files and by date. A mailbox was listed plain 'indexed', where a chat export says '2 days, 7
messages': it says its messages and threads now, and how many of the threads go on in its collection's other mail
files (from the index's table of messages, search.query.listing.mailbox_messages). A message is dated by its Date as
its sender wrote it (ingest.mail.as_written): sent 23:30 -0500 on 5 March, its hit was dated 6 March (the instant,
in UTC), date_before=2024-03-06 left it out, and a thread's list named it 2024-03-06, while its own text says
'Date: Tuesday 5 March 2024 23:30'. The messages at -0500 and +0900 below are each a day apart from UTC's, in
opposite directions, so that on a machine of any time zone one of them was dated a day off before."""
from __future__ import annotations

from datetime import datetime

import pytest

from tests.conftest import in_home, tree_built_once


def message(subject: str, own: str | None, body: str, date: str, replying: str = "") -> str:
    head = ["From anna@example.com Tue Mar  5 09:00:00 2024", "From: Anna Keller <anna@example.com>",
            "To: Bo <bo@example.com>", f"Subject: {subject}", f"Date: {date}"]
    head += [f"Message-ID: {own}"] if own else []
    head += [f"In-Reply-To: {replying}", f"References: {replying}"] if replying else []
    return "\n".join(head) + "\n\n" + body + "\n\n"


FILES = {
    # a thread (Budget, its reply, and the reply to that in Sent), a message of no thread, one with no Message-ID
    "Inbox.mbox": message("Budget", "<a@example.com>", "The shed roof budget is 4,000 euros.",
                          "Tue, 05 Mar 2024 23:30:00 -0500")
    + message("Re: Budget", "<b@example.com>", "Could we lower the gutter costs?",
              "Wed, 06 Mar 2024 09:00:00 +0000", "<a@example.com>")
    + message("Holiday", "<d@example.com>", "The ferry leaves at noon on Friday.", "Fri, 08 Mar 2024 09:00:00 +0000")
    + message("Note to self", None, "Buy slate tiles for the porch.", "Fri, 08 Mar 2024 10:00:00 +0000"),
    "Sent.mbox": message("Re: Re: Budget", "<c@example.com>", "Yes, zinc gutters are cheaper.",
                         "Thu, 07 Mar 2024 00:30:00 +0900", "<b@example.com>"),
    "saved/offer.eml": "\n".join(message("Offer", "<e@example.com>", "The carpenter's offer for the porch.",
                                         "Mon, 11 Mar 2024 10:00:00 +0000").split("\n")[1:]),
}
MAILBOX = ("(a mailbox: each message a passage group headed by its Subject; 1 of the threads goes on in other mail "
           "files ")


@pytest.fixture(scope="module")
def home(tmp_path_factory, model_path):
    return tree_built_once(tmp_path_factory, model_path, FILES, "mail")


@pytest.fixture
def tools(home, model_path, monkeypatch):
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    in_home(home, model_path, monkeypatch)
    return Tools(Sift(load()))


def test_list_files_says_a_mailboxs_messages_and_threads(tools, capsys):
    said = {f["path"]: f.get("reason") for f in tools.list_files(sort="path").structured_content["files"]}
    assert said == {"mail/Inbox.mbox": "4 messages in 3 threads " + MAILBOX + "of the collection)",
                    "mail/Sent.mbox": "1 message " + MAILBOX + "of the collection)",
                    "mail/saved/offer.eml": None}, said
    from ingest.cli import main
    assert main(["files", "--sort", "path"]) == 0
    assert "mail/Inbox.mbox  note" in capsys.readouterr().out  # ingest files prints what list_files says
    assert main(["files", "--sort", "path", "--glob", "*.mbox"]) == 0
    assert "indexed: 4 messages in 3 threads (a mailbox" in capsys.readouterr().out


def test_a_messages_hit_is_dated_as_its_date_line_says(tools):
    for query, dated in (("roof budget", "2024-03-05 23:30:00"), ("zinc gutters", "2024-03-07 00:30:00")):
        found = tools.search(query=query, mode="keyword")
        hit = found.structured_content["results"][0]
        assert hit["dated"] == dated, hit
        assert f"dated {dated}" in found.content[0].text
    from search.query.engine import from_settings
    from search.settings import load
    hit = from_settings(load()).search("roof budget", mode="keyword").hits[0]
    assert hit.dated == datetime(2024, 3, 5, 23, 30).timestamp(), hit  # local time, as a daily note's day is


def test_date_filters_go_by_the_day_the_message_says(tools):
    def found(query: str, after: str, before: str) -> list[str]:
        answer = tools.search(query=query, mode="keyword", date_after=after, date_before=before)
        return [r["heading_path"] for r in answer.structured_content["results"]]
    assert found("shed roof", "2024-03-05", "2024-03-06") == ["Budget"]
    assert found("shed roof", "2024-03-06", "2024-03-07") == []
    assert found("zinc cheaper", "2024-03-07", "2024-03-08") == ["Re: Re: Budget"]
    assert found("zinc cheaper", "2024-03-06", "2024-03-07") == []
    listed = tools.list_files(date_after="2024-03-07", date_before="2024-03-08").structured_content["files"]
    assert [(f["path"], f["dated"]) for f in listed] == [("mail/Sent.mbox", "2024-03-07 00:30:00")], listed


def test_a_threads_list_dates_each_message_by_its_own_day_in_the_order_sent(tools):
    text = tools.read_file(path="mail/Sent.mbox", heading="thread: Re: Re: Budget").content[0].text
    assert "3 saved messages in mail: mail/Inbox.mbox (line 1) ('Budget', 2024-03-05), mail/Inbox.mbox (line 10) " \
           "('Re: Budget', 2024-03-06), mail/Sent.mbox (line 1) ('Re: Re: Budget', 2024-03-07)" in text, text
    assert text.index("4,000 euros") < text.index("gutter costs") < text.index("zinc gutters"), text


def test_a_messages_sent_time_keeps_its_senders_offset():
    from ingest.parse import parse_file
    meta = parse_file("offer.eml", FILES["Sent.mbox"].split("\n", 1)[1].encode()).meta
    assert meta["mail_time"] == "2024-03-07T00:30:00+09:00" and meta["date"] == "2024-03-07", meta
