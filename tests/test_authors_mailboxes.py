"""The author filter over every mail file Sift reads as mail: a Thunderbird profile's mailboxes have no extension
('Inbox', 'Sent'), read as mailboxes by their first line (ingest.files), but the filter read the senders of .eml and
.mbox files alone, so author='Ben' found nothing Ben sent to a Thunderbird Inbox. And a message of no From line
(a draft) was taken for the sender of the message before it in its mailbox."""
from __future__ import annotations

from search.query.filters import Filters
from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures

INBOX = ("From - Tue Mar 10 09:00:00 2026\nFrom: Ben Okafor <ben@example.com>\nTo: Anna Berg <anna@example.com>\n"
         "Subject: Offer letters\nMessage-ID: <offer@example.com>\nDate: Tue, 10 Mar 2026 09:00:00 +0000\n\n"
         "The offer letters for the two hires go out on Friday.\n\n"
         "From - Tue Mar 10 10:00:00 2026\nTo: Anna Berg <anna@example.com>\nSubject: Draft offer\n"
         "Message-ID: <draft@example.com>\nDate: Tue, 10 Mar 2026 10:00:00 +0000\n\n"
         "A draft offer with no sender, saved by some tool.\n\n"
         "From - Wed Mar 11 09:00:00 2026\nFrom: Carol Diaz <carol@example.com>\nTo: Anna Berg <anna@example.com>\n"
         "Subject: Lunch\nMessage-ID: <lunch@example.com>\nDate: Wed, 11 Mar 2026 09:00:00 +0000\n\n"
         "The offer of lunch on Friday stands.\n")


def _build(folder):
    build_notes(folder, {"about.md": "# Offer\n\nThe offer letters, the offer of lunch.\n"}, {"Mail/Inbox": INBOX})


def test_a_thunderbird_inbox_senders_are_authors(engine):
    answer = engine.search("offer", mode="keyword", filters=Filters(author="Ben"))
    assert [(h.path, h.heading_path) for h in answer.hits] == [("Mail/Inbox", "Offer letters")], answer  # no draft
    carol = engine.search("offer", mode="keyword", filters=Filters(author="carol diaz"))
    assert [h.heading_path for h in carol.hits] == ["Lunch"], carol
    first = engine.search("what did Ben write about the offer", mode="keyword")
    assert [h.path for h in first.hits][:1] == ["Mail/Inbox"], first


def test_an_ascii_author_lacking_a_word_of_the_name_is_not_read(monkeypatch):
    """A question naming a writer is matched against every sender of a mail archive (bench/author_match.py): one in
    ASCII that lacks a word of the name is told apart without its words read, and a match is still a match by words
    ('Benjamin' holds 'ben' but is not Ben)."""
    from search.query import authors
    authors.persons.cache_clear()  # a recorded author's persons are kept: read here, not by an earlier test
    read = []
    real = authors.name_words
    monkeypatch.setattr(authors, "name_words", lambda text: read.append(text) or real(text))
    assert not authors.wrote("Person17 Surname17 <p17@example.com>", "Zed Nobody") and read == []
    assert not authors.wrote("Benjamin Lee", "Ben") and read == ["Benjamin Lee"]
    assert authors.wrote("Ben Okafor <ben@example.com>", "okafor") and authors.wrote("José Müller", "jose muller")
