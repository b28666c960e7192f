"""A forward carrying a message sent to a team: Outlook's block above it ('From: Bo Lind' / 'Sent: …' / 'To: …' of
30 people / 'Subject: …') has a To line longer than a passage's head (search.index.author_reads.HEAD_CHARS) and
than the passage: the chunker cut the block after its Sent line, and the passage beginning at its To line named no
sender, nor did the passages after it: author='Dan' found none of his forward past the block."""
from __future__ import annotations

import sqlite3

from search.query.filters import Filters
from tests.author_helpers import build_notes, forward_mailbox, home  # noqa: F401 - a fixture
from tests.conftest import engine_in

TEAM = "; ".join(f"Member{n} Facilities <member{n}.facilities@riverside.example.com>" for n in range(30))
NOTE = "\n\n".join(f"Point {n}: the roof budget, the zinc gutters and the scaffolding need another look before "
                   "spring, and the roofer wants an answer by Friday." for n in range(6))
INBOX = forward_mailbox("Bo Lind", "Dan Ek", "Budget", "Copper pipes would outlast the house, I think.", NOTE,
                        f"Sent: Monday, March 4, 2024 5:12 PM\nTo: {TEAM}\n")


# Outlook for Mac's block joins its To line's addresses with ',' as ingest.mail's own head does, and writes its Date
# line below the From line ('Date: Monday, 4 March 2024 at 17:12') where Outlook for Windows writes 'Sent:'
CREW = ", ".join(f"Member{n} Roofing <member{n}.roofing@riverside.example.com>" for n in range(30))
SLATES = "\n\n".join(f"Item {n}: the slate tiles, the lead flashing and the chimney pots want pricing before "
                     "autumn, and the slater wants an answer by Monday." for n in range(6))
MAC = forward_mailbox("Eva Holm", "Finn Berg", "Slates", "Welsh slate would outlast the house, I think.", SLATES,
                      f"Date: Monday, 4 March 2024 at 17:12\nTo: {CREW}\n")


def _build(folder):
    build_notes(folder, {"about.md": "# House\n\nThe house and its garden.\n"}, {"Mail/Inbox": INBOX, "Mail/Mac": MAC})


def test_a_passage_begun_at_outlooks_long_to_line_is_the_forwarders(home, model_path, embedder, monkeypatch):
    engine = engine_in(home, model_path, embedder, monkeypatch)
    dan = engine.search("Member7 Facilities", mode="keyword", filters=Filters(author="Dan"))
    assert dan.hits, dan
    with sqlite3.connect(home / "index.db") as conn:  # the case: a passage begun at Outlook's To line
        assert conn.execute("SELECT text FROM chunks WHERE id = ?", (dan.hits[0].chunk_id,)).fetchone()[0] \
            .startswith("To: Member0")
    copper = engine.search("copper pipes", mode="keyword", filters=Filters(author="Dan"))
    assert [h.heading_path for h in copper.hits] == ["FW: Budget"], copper  # the passage after it, his too
    bo = engine.search("copper pipes", mode="keyword", filters=Filters(author="Bo"))
    assert [h.heading_path for h in bo.hits] == ["Budget"], bo  # Bo's own message, not Dan's forward of it


def test_a_drafts_own_long_to_line_still_names_no_sender():
    """ingest.mail's own head of a message of no From line (a draft's) joins its addresses with ',': a head cut
    inside it is a message's own, naming no sender, as before."""
    from search.index.author_reads import HEAD_CHARS
    from search.query.authors import senders
    own = "From: Bo Lind <bo@example.com>\nTo: Carol Jones <carol@example.com>\nDate: Tuesday 5 March 2024 09:00"
    draft = ("To: " + ", ".join(f"Person {n} <p{n}@example.com>" for n in range(20)))[:HEAD_CHARS]
    outlook = ("To: " + "; ".join(f"Keller, Person {n} <p{n}@example.com>" for n in range(30)))[:HEAD_CHARS]
    assert senders([(1, 7, own), (2, 7, draft)]) == [(1, "Bo Lind <bo@example.com>")]
    assert senders([(1, 7, own), (2, 7, outlook)])[1] == (2, "Bo Lind <bo@example.com>")


def test_a_passage_begun_at_outlook_for_macs_long_to_line_is_the_forwarders(home, model_path, embedder,
                                                                           monkeypatch):
    """Outlook for Mac joins the To line's addresses with ',', as ingest.mail's own head of a draft does: the
    passage begun there named no sender, nor did the ones after it, so author='Finn' found none of his forward past
    the block. The passage before it ends at the block's From and Date lines: that tells it."""
    engine = engine_in(home, model_path, embedder, monkeypatch)
    with sqlite3.connect(home / "index.db") as conn:  # the case: a passage begun at the block's To line
        texts = [text for (text,) in conn.execute("SELECT ch.text FROM chunks ch JOIN files f ON f.id = ch.file "
                                                  "WHERE f.path LIKE '%Mac' ORDER BY ch.ordinal")]
    assert any(text.startswith("To: Member0") for text in texts), texts
    for member in ("Member7", "Member29"):  # the passage begun at the To line, and the one after it
        assert engine.search(member, mode="keyword", filters=Filters(author="Finn")).hits, member
    welsh = engine.search("welsh slate", mode="keyword", filters=Filters(author="Finn"))
    assert {h.heading_path for h in welsh.hits} == {"FW: Slates"}, welsh  # the forward's passages, his
    eva = engine.search("welsh slate", mode="keyword", filters=Filters(author="Eva"))
    assert [h.heading_path for h in eva.hits] == ["Slates"], eva  # Eva's own message, not Finn's forward of it


def test_a_drafts_own_long_to_line_after_a_message_names_no_sender():
    """Told by the passage before: a draft's own head follows its message before's end, not Outlook's From and
    Date lines."""
    from search.index.author_reads import HEAD_CHARS
    from search.query.authors import senders
    own = "From: Bo Lind <bo@example.com>\nTo: Carol Jones <carol@example.com>\nDate: Tuesday 5 March 2024 09:00"
    draft = ("To: " + ", ".join(f"Person {n} <p{n}@example.com>" for n in range(20)))[:HEAD_CHARS]
    ended = "the answer by Friday.\n\nFrom: Carol Jones <carol@example.com>\nDate: Monday, 4 March 2024 at 17:12\n\nOk."
    assert senders([(1, 7, own), (2, 7, draft)], {2: ended}) == [(1, "Bo Lind <bo@example.com>")]
    block = "the answer by Friday.\n\nFrom: Carol Jones <carol@example.com>\nDate: Monday, 4 March 2024 at 17:12\n" \
        + draft[:60]
    assert senders([(1, 7, own), (2, 7, draft)], {2: block})[1] == (2, "Bo Lind <bo@example.com>")
