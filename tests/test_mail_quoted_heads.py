"""A long forward's passage that starts at the header block Outlook writes above the message it forwards (or a reply
quotes: since chunker version 27 a reply's is left out) ('From: Carol Jones …' / 'Sent: …' / 'To: …', no
'-----Original Message-----' line above it) was credited to Carol: author='Carol' found Bo's forward, and 'what did
Carol write' put it first. It is Bo's passage, as the rest of his
message is."""
from __future__ import annotations

import pytest

from search.query.filters import Filters
from tests.author_helpers import build_notes, forward_mailbox, home  # noqa: F401 - a fixture
from tests.conftest import engine_in

REPLY = "\n\n".join(f"Point {n}: the roof budget, the zinc gutters and the scaffolding need another look before "
                    "spring, and the roofer wants an answer by Friday." for n in range(14))
INBOX = forward_mailbox("Carol Jones", "Bo Lind", "Budget", "Copper pipes would outlast the house, I think.", REPLY,
                        "Sent: Monday, March 4, 2024 5:12 PM\nTo: Bo Lind <bo@example.com>\n")


def _build(folder):
    build_notes(folder, {"about.md": "# House\n\nThe house and its garden.\n"}, {"Mail/Inbox": INBOX})


def test_a_passage_starting_at_an_outlook_quote_is_its_messages_senders(home, model_path, embedder, monkeypatch):
    engine = engine_in(home, model_path, embedder, monkeypatch)
    carol = engine.search("copper pipes", mode="keyword", filters=Filters(author="Carol"))
    assert [h.heading_path for h in carol.hits] == ["Budget"], carol  # her message, not Bo's quote of it
    bo = engine.search("copper pipes", mode="keyword", filters=Filters(author="Bo"))
    assert [h.heading_path for h in bo.hits] == ["FW: Budget"], bo
    assert bo.hits[0].start_line > 20, bo.hits[0]  # the passage of the quote, not the reply's first
    first = engine.search("what did Carol write about copper pipes", mode="keyword")
    assert [h.heading_path for h in first.hits][:1] == ["Budget"], first


@pytest.mark.parametrize("quoted", [
    "From: Carol Jones <carol@example.com>\nSent: Monday, March 4, 2024 5:12 PM\nTo: Bo",  # Outlook
    "From: Carol Jones <carol@example.com>\nGesendet: Montag, 4. März 2024 17:12\nAn: Bo",  # Outlook in German
    "From: Carol Jones <carol@example.com>\nDate: Monday, 4 March 2024 at 17:12\nTo: Bo",  # Outlook for Mac
    "the answer by Friday.\n\nFrom: Carol Jones <carol@example.com>\nSent: Monday, March 4, 2024\nTo: Bo"])
def test_outlooks_quoted_head_names_no_sender(quoted):
    from search.query.authors import senders
    own = "From: Bo Lind <bo@example.com>\nTo: Carol Jones <carol@example.com>\nDate: Tuesday 5 March 2024 09:00"
    assert senders([(1, 7, own), (2, 7, quoted)]) == [(1, "Bo Lind <bo@example.com>"), (2, "Bo Lind <bo@example.com>")]
    # a message of no To nor Cc: its own Date line right after its From line, as ingest.mail writes it
    alone = "From: Dan <dan@example.com>\nDate: Tuesday 5 March 2024 10:00\nSubject: Notes"
    assert senders([(1, 7, own), (2, 7, alone)])[1] == (2, "Dan <dan@example.com>")


def test_a_quoted_from_line_cut_at_the_heads_end_names_no_sender():
    """A passage's head is its first HEAD_CHARS characters: a quoted From line reaching that end had no Sent line
    after it to be told by, and was read as the message's own (Carol credited with Bo's reply)."""
    from search.index.author_reads import HEAD_CHARS
    from search.query.authors import senders
    own = "From: Bo Lind <bo@example.com>\nTo: Carol Jones <carol@example.com>\nDate: Tuesday 5 March 2024 09:00"
    before = "the answer by Friday.\n\nFrom: Carol Jones, Facilities Committee of the Riverside Housing Cooperative "
    quoted = (before + "x" * HEAD_CHARS)[:HEAD_CHARS - len(" <carol@example.com>")] + " <carol@example.com>"
    assert len(quoted) == HEAD_CHARS and quoted.index("From:") < 200
    assert senders([(1, 7, own), (2, 7, quoted)])[1] == (2, "Bo Lind <bo@example.com>")
    # a message's own head begins its passage, its From line of many addresses cut as well
    many = ("From: " + ", ".join(f"Person {n} <p{n}@example.com>" for n in range(30)))[:HEAD_CHARS]
    assert senders([(1, 7, own), (2, 7, many)])[1] == (2, many[6:])
