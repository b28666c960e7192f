"""An author asked for as people write names, and found in every kind of file that records one.

A name written another way was not matched ('A. Berg', 'Berg, A.', 'Anna B.' for Anna Berg); of a file recording
several authors ('author: [Anna Lee, Ben Okafor]') the first name of one and the last of another matched ('Anna
Okafor'); a chat's speakers were no authors; list_files took no author ('list what Ben wrote'); and 'posts by
category about python' was searched as 'category python', 'category' read as a writer."""
from __future__ import annotations

import json

import pytest

from search.query import authors
from search.query.filters import Filters
from search.query.question import content, writers_known
from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures
from tests.conftest import ingest_keyword_only, write_tree
from tests.test_document_authors import META, docx, epub, odp, odt, pptx

# --- names written another way, and the persons of one file -------------------------------------------------------

@pytest.mark.parametrize("recorded, asked", [
    ("Anna Berg", "A. Berg"), ("Anna Berg", "Berg, A."), ("Anna Berg", "Anna B."), ("Anna Berg", "a berg"),
    ("Berg, Anna", "A. Berg"), ("J. Smith", "John Smith"), ("Anna Berg, Ben Okafor", "B. Okafor"),
    ("Berg, A., Okafor, B.", "Ben Okafor"), ("Ben Okafor <ben@example.com>", "B. Okafor"),
    ("Carol Lee <c.lee@acme.com>", "C. Lee"),
])
def test_an_initial_stands_for_the_name_it_begins(recorded, asked):
    assert authors.wrote(recorded, asked), (recorded, asked)


@pytest.mark.parametrize("recorded, asked", [
    ("Alice Berg", "Anna Berg"), ("Anna Berg", "A"), ("Anna Berg", "A. B."), ("Benjamin Lee", "Ben"),
    ("Anna Lee, Ben Okafor", "Anna Okafor"), ("Anna Lee; Ben Okafor", "Anna Okafor"),
    ("Anna Lee and Ben Okafor", "Anna Okafor"), ("Berg, A., Okafor, B.", "A. Okafor"), ("王伟、李娜", "王伟 李娜"),
    ("Carol Lee <c.lee@acme.com>", "Chris Lee"), ("Ben Okafor <b.okafor@example.com>", "Bo Okafor"),
    ("Müller, Jana <j.muller@example.de>", "Jonas Müller"), ("Ann Lee Bo Chen", "Ann Chen"),
    ("Ann Lee Bo Chen", "A. Chen"), ("Ann Lee Bo Chen Dan Wu", "Ann Wu"),
])
def test_a_name_is_one_persons_not_words_of_several(recorded, asked):
    """'Anna Okafor' is neither Anna Lee nor Ben Okafor; an initial alone, or initials alone, name no one; 'Ben' is
    no initial of Benjamin (a short form of a name is not matched: it would find Bennett too); a letter of a mail
    address is no initial (Carol Lee's c.lee@ made her Chris Lee); of several written with nothing between them
    ('Ann Lee Bo Chen'), a two-word name is found only where its words stand together (Ann Chen was made of two)."""
    assert not authors.wrote(recorded, asked), (recorded, asked)


@pytest.mark.parametrize("recorded, asked", [
    ("Ann Lee Bo Chen", "Bo Chen"), ("Ann Lee Bo Chen", "Ann Lee"), ("Ann Lee Bo Chen", "Chen"),
    ("Ann Lee Bo Chen", "Chen Bo"), ("Ursula von der Leyen", "Ursula Leyen"), ("John A. Smith", "John Smith"),
    ("Mary Ann Lee", "Mary Lee"), ("Jan de Vries, Ann Lee", "Jan Vries"),
])
def test_a_name_standing_together_is_found_in_names_run_together(recorded, asked):
    """Where two words stand together (a particle or an initial between them may), or the person is of fewer than
    four words (a middle name: Mary Ann Lee is Mary Lee), the name is found as before."""
    assert authors.wrote(recorded, asked), (recorded, asked)


# --- search and list_files by these authors -----------------------------------------------------------------------

NOTES = {
    "anna/budget.md": "---\nauthor: Anna Berg\n---\n# Q2 spending\n\nThe harbour budget moves to dredging.\n",
    "pair.md": "---\nauthor: [Anna Lee, Ben Okafor]\n---\n# Dredging plan\n\nThe harbour dredging plan.\n",
    "mentions.md": "# Harbour\n\nAnna Okafor and Ben Berg talk about the harbour, the harbour, the harbour.\n",
    "python.md": "# Posts\n\nPosts by category: the python posts list every category of python.\n",
    "python-tips.md": "# Python tips\n\nUse python generators for the harbour logs.\n",
}
CHAT = ("14/03/2024, 09:15 - Ben Okafor: The harbour crane is fixed.\n"
        "14/03/2024, 09:20 - Anna Lee: Good, the harbour opens on Monday.\n"
        "Note: the harbour fees are due first.\n"  # a line of Anna's message, no speaker's head
        "15/03/2024, 10:00 - Anna Lee: The harbour master signed it.\n"
        "15/03/2024, 10:05 - Anna Lee: Harbour fees go up in May, as the log says:\n"
        "Ben Okafor: yes, in May\n")  # a line of Anna's message, quoting Ben: Ben did not speak that day
MAIL = ("From: Ben Okafor <ben@example.com>\nTo: Anna Berg <anna@example.com>\nSubject: Harbour dredging\n"
        "Date: Tue, 10 Mar 2026 09:00:00 +0000\n\nThe harbour dredging starts on Friday.\n")
# a sender of no display name: named by the address's own part, carol.diaz (its domain is no name)
BARE = ("From: carol.diaz@example.org\nTo: Anna Berg <anna@example.com>\nSubject: Harbour lights\n"
        "Date: Wed, 11 Mar 2026 09:00:00 +0000\n\nThe harbour lights are out.\n")


def _build(folder):
    build_notes(folder, NOTES, {
        "mail.eml": MAIL, "lights.eml": BARE, "WhatsApp Chat with Anna.txt": CHAT,
        "survey.odt": odt("The harbour survey of Kvarven.", META.format("Ingrid Halvorsen", "")),
        "tides.odp": odp("Harbour tides at Kvarven.", META.format("Mei Lin", "")),
        "book.epub": epub("The harbour tide tables.", "<dc:creator>Okonkwo Eze</dc:creator>"),
        "deck.pptx": pptx("Harbour berths at Kvarven.", "Ben Okafor"),
        "report.docx": docx("The harbour report.", "王伟")})


def found(engine, author: str, query: str = "harbour") -> list[str]:
    return sorted({hit.path for hit in engine.search(query, mode="keyword", limit=50,
                                                    filters=Filters(author=author)).hits})


@pytest.mark.parametrize("author, paths", [
    ("A. Berg", ["anna/budget.md"]), ("Berg, A.", ["anna/budget.md"]), ("Anna B.", ["anna/budget.md"]),
    ("Anna Okafor", []), ("Ben Okafor", ["WhatsApp Chat with Anna.txt", "deck.pptx", "mail.eml", "pair.md"]),
    ("Anna Lee", ["WhatsApp Chat with Anna.txt", "pair.md"]),
    ("Ingrid Halvorsen", ["survey.odt"]), ("Mei Lin", ["tides.odp"]), ("Okonkwo", ["book.epub"]),
    ("王伟", ["report.docx"]),
])
def test_the_author_filter_finds_these_authors(engine, author, paths):
    assert found(engine, author) == paths


def test_a_chat_speaker_is_the_author_of_the_passages_they_spoke_in(engine):
    """A passage of a chat day is many speakers' messages: author='Ben' finds the day Ben spoke on, not the day only
    Anna spoke (the chat's speakers were no authors at all), though a line of her message there quotes 'Ben Okafor:
    yes' (it counted Ben among that day's speakers: only a message's first line names its speaker)."""
    hits = engine.search("harbour", mode="keyword", limit=50, filters=Filters(author="Ben")).hits
    assert [h.heading_path for h in hits if h.path.startswith("WhatsApp")] == ["WhatsApp Chat with Anna · 2024-03-14"]
    anna = engine.search("harbour", mode="keyword", limit=50, filters=Filters(author="anna lee")).hits
    assert sorted(h.heading_path for h in anna if h.path.startswith("WhatsApp")) == [
        "WhatsApp Chat with Anna · 2024-03-14", "WhatsApp Chat with Anna · 2024-03-15"]


# --- what is no name: a sender's address, a line of a chat message ------------------------------------------------

@pytest.mark.parametrize("recorded, asked", [
    ("Ben Okafor <ben@example.com>", "example"), ("Ben Okafor <ben@example.com>", "com"),
    ("Ben Okafor <ben@example.com>", "example com"), ("carol.diaz@example.org", "example"),
    ("Ben Okafor <ben.okafor@example.com>", "Okafor Okafor"), ("Ben <ben@example.com>", "en@example.com"),
    ("Ben <ben@example.com.au>", "ben@example.com"), ("aberg@acme.com", "Berg"), ("aberg@acme.com", "Bo Berg"),
    ("Carol Lee <aberg@acme.com>", "Anna Berg"),
])
def test_a_senders_address_is_no_name(recorded, asked):
    """A sender's domain named no one: author='example' found everyone writing from example.com, 'com' everyone at
    a .com; an address after a display name is no word of the name ('Okafor Okafor' is no one); 'aberg@' is no
    Berg alone (it may be Åberg's), nor Bo Berg's, nor Anna Berg's under Carol Lee's name."""
    assert not authors.wrote(recorded, asked), (recorded, asked)


@pytest.mark.parametrize("recorded, asked", [
    ("carol.diaz@example.org", "Carol Diaz"), ("carol_diaz@example.org", "C. Diaz"), ("ben+news@example.com", "Ben"),
    ("Berg, Anna <anna@example.com>", "Anna Berg"), ("anna@example.com <anna@example.com>", "anna"),
    ("Ben Okafor <ben@example.com>", "BEN@example.com"), ("Anna Berg <anna@x.com>, Bo Li <bo@y.com>", "Bo Li"),
    ("aberg@acme.com", "Anna Berg"), ("aberg@acme.com", "A. Berg"), ("<annaberg@acme.com>", "Anna Berg"),
    ("aberg@acme.com", "aberg"),
])
def test_a_sender_is_named_by_its_display_name_else_its_address(recorded, asked):
    """Where a message gives no display name, the address's own part is its sender's name, split at '.', '_', '-';
    one gluing an initial or a given name to a surname ('aberg@', as companies give them) is that person's too (it
    was the word 'aberg' alone: the user asking for Anna Berg's mail found none); an address asked for finds that
    address."""
    assert authors.wrote(recorded, asked), (recorded, asked)


@pytest.mark.parametrize("author, paths", [
    ("example", []), ("com", []), ("org", []), ("Carol Diaz", ["lights.eml"]), ("ben@example.com", ["mail.eml"]),
    ("Note", []),
])
def test_neither_a_domain_nor_a_chat_lines_first_word_is_an_author(engine, author, paths):
    """author='example' found the mail of every sender at example.com; 'Note' found the chat day in which a line of
    Anna's message began 'Note: …', read as a message's head."""
    assert found(engine, author) == paths


def test_list_files_by_a_domain_lists_nothing(home, model_path, monkeypatch):
    """list_files(author='example') listed every mail file of a sender at example.com."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    from tests.conftest import in_home
    in_home(home, model_path, monkeypatch)
    tools = Tools(Sift(load()))
    assert tools.list_files(author="example").structured_content["files"] == []
    assert [f["path"] for f in tools.list_files(author="carol diaz").structured_content["files"]] == \
        ["notes/lights.eml"]


def test_list_files_by_an_author_reads_the_files_again_only_once_the_index_changed(home):
    """list_files(author=…) read every file's meta (for its author, for a chat's speakers) at each call, where
    search keeps what it read per index state."""
    from search.index import db
    conn = db.connect(home / "index.db")
    first = authors.files_by(conn, "Ben Okafor")
    read = []
    conn.set_trace_callback(read.append)
    assert authors.files_by(conn, "Ben Okafor") == first and first
    assert not [sql for sql in read if "meta LIKE" in sql], read


def test_a_chat_export_names_its_speakers():
    """The heads the parser wrote are its messages' speakers (meta "speakers"), of a WhatsApp chat, a Telegram
    account's several chats and a zipped export; a passage read before they were named is read by its lines' form."""
    import io
    import zipfile

    from ingest.chat import parse_chat_zip, parse_telegram, parse_whatsapp
    parsed = parse_whatsapp("WhatsApp Chat with Anna.txt", CHAT)
    assert parsed.meta["speakers"] == ["Ben Okafor", "Anna Lee"]
    assert parsed.sections[1].text.endswith("Anna Lee: Harbour fees go up in May, as the log says:\n Ben Okafor: yes, "
                                            "in May"), parsed.sections[1].text  # the quote set in: no head
    chats = [{"name": name, "type": "personal_chat", "messages": [
        {"id": i, "type": "message", "date": "2024-03-14T09:15:00", "from": who, "text": "the harbour"}
        for i, who in enumerate(people)]} for name, people in (("Anna", ["Anna", "Bo"]), ("Cy", ["Cy", "Anna"]))]
    assert parse_telegram("result.json", "{}", chats).meta["speakers"] == ["Anna", "Bo", "Cy"]
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as z:
        z.writestr("_chat.txt", CHAT)
    assert parse_chat_zip("WhatsApp Chat - Anna.zip", packed.getvalue()).meta["speakers"] == ["Ben Okafor", "Anna Lee"]
    day = "Thursday 14 March 2024\nAnna Lee: Good.\nNote: fees.\nDr: Who: hello"
    assert authors.speakers([(1, 7, day)], {7: ["Anna Lee", "Dr: Who"]}) == [(1, "Anna Lee; Dr: Who")]
    assert authors.speakers([(1, 7, day)]) == [(1, "Anna Lee; Note; Dr")]  # named none: by the lines' form


def test_list_files_takes_an_author(home, model_path, monkeypatch):
    """'List what Ben wrote': the files recording Ben as their author, or holding a mail he sent."""
    from mcp.server.mcpserver.exceptions import ToolError

    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    from tests.conftest import in_home
    in_home(home, model_path, monkeypatch)
    tools = Tools(Sift(load()))
    listed = tools.list_files(author="ben", sort="path").structured_content
    assert [f["path"] for f in listed["files"]] == ["notes/WhatsApp Chat with Anna.txt", "notes/deck.pptx",
                                                    "notes/mail.eml", "notes/pair.md"], listed
    assert [f["path"] for f in tools.list_files(author="A. Berg").structured_content["files"]] == \
        ["notes/anna/budget.md"]
    none = tools.list_files(author="Anna Okafor").structured_content
    assert none["files"] == [] and any("no file records Anna Okafor as its author" in n for n in none["notes"]), none
    with pytest.raises(ToolError, match="author must be a name"):
        tools.list_files(author="!!")


@pytest.mark.parametrize("question, searched", [
    ("posts by category about python", "posts by category about python"),
    ("articles by topic on rust", "articles by topic on rust"),
    ("notes by ben about hiring", "ben hiring"),  # a writer the index knows
    ("notes by Carol about hiring", "Carol hiring"),  # a capitalised name after 'by' is one, known or not
])
def test_by_and_a_common_noun_names_no_writer(question, searched):
    """'by' and a word in small letters is a writer only where the index knows one so named."""
    with writers_known(lambda name: name in ("ben",)):
        assert content(question) == searched


def test_posts_by_category_is_searched_with_its_words(engine):
    """'posts by category about python' was searched as 'category python': 'posts' and 'by' left out as the framing
    of a writer's name; the note listing posts by category came no higher than a note saying python twice."""
    answer = engine.search("posts by category about python", mode="keyword")
    assert [hit.path for hit in answer.hits][:1] == ["python.md"], answer.hits
    assert "**Posts**" in answer.hits[0].snippet or "**posts**" in answer.hits[0].snippet, answer.hits[0].snippet


def test_the_fts5_author_condition_is_made_once_per_index_state(sift_env, immediate, tmp_path):
    """By FTS5 (`ingest search --author`) each search read every file's author and every mail file again and
    matched each sender; the condition is kept now, made again once the index changes."""
    from search.query import authors
    from workers import runtime
    root = write_tree(tmp_path / "n", {"a.md": "---\nauthor: Ben Okafor\n---\n# A\n\nThe harbour.\n"})
    (root / "mail.eml").write_text(MAIL)
    ingest_keyword_only(root, "n")
    conn = runtime.index()
    read = []
    conn.set_trace_callback(lambda sql: read.append(sql) if "meta LIKE" in sql else None)
    try:
        first = authors.condition(conn, "Ben Okafor")
        assert read, "the first condition reads the authors"
        read.clear()
        assert authors.condition(conn, "Ben Okafor") == first and read == [], read
        (root / "b.md").write_text("---\nauthor: B. Okafor\n---\n# B\n\nThe quay.\n")
        ingest_keyword_only(root, "n")
        again = authors.condition(conn, "Ben Okafor")
        assert read and len(json.loads(again[1]["author_files"])) == len(json.loads(first[1]["author_files"])) + 1
    finally:
        conn.set_trace_callback(None)


def test_a_hostile_name_against_a_hostile_author_is_matched_in_few_steps():
    """Of 200 words each side, 'a a … a zzz' against 'a1 a2 … a200', the words were tried every way (each initial
    on each free word in turn): steps exponential in the words. Counted by first letter, a few per word. Steps are
    counted (Python's line events in authors), past a bound the match is stopped, so the old way fails, not hangs."""
    import sys
    person = tuple(f"a{i}" for i in range(200))
    words = ("a",) * 199 + ("zzz",)
    hostile = [(person, words), (person[:199] + ("a",), ("a",) * 200), (("a",) * 200, ("ab",) * 199 + ("a",))]
    steps, bound = [0], 20_000

    def count(frame, event, arg):
        if frame.f_code.co_filename == authors.__file__ and event == "line":
            steps[0] += 1
            if steps[0] > bound:
                raise RuntimeError(f"over {bound} steps")
        return count
    sys.settrace(count)
    try:
        answers = [authors._holds(*pair) for pair in hostile]
    finally:
        sys.settrace(None)
    assert answers == [False, True, True] and steps[0] < bound, (answers, steps)


def test_the_addresses_a_from_line_leaves_unnamed_are_no_person():
    """ingest.mail names a From line's first 20 addresses and writes '… and 5 more': the 'and' between persons made
    '5 more' one, so author='more' found the message. The senders named are found still."""
    from email import message_from_string

    from ingest.mail import _addresses
    senders = ", ".join(f"Person{i} Surname{i} <p{i}@example.com>" for i in range(25))
    line = _addresses(message_from_string(f"From: {senders}\nSubject: x\n\nbody\n"), "From")
    assert line.endswith(" and 5 more"), line
    assert not authors.wrote(line, "more") and not authors.wrote(line, "5 more"), line
    assert authors.wrote(line, "Person19 Surname19") and authors.wrote(line, "P. Surname0")


@pytest.mark.parametrize("recorded, asked, found", [
    ("Benjamin Okafor", "Ben Okafor", True), ("Okafor, Benjamin", "Ben Okafor", True),
    ("Anna Lee; Alexandra Berg", "Alex Berg", True), ("Benjamin Okafor", "Ben", False),
    ("Benjamin O.", "Ben Okafor", False), ("Benjamin Lee", "Ben Okafor", False), ("Robert Smith", "Bob", False),
    ("Alan Berg", "Al Berg", False), ("Anna Lee; Benjamin Okafor", "Ben Lee", False),
])
def test_a_short_given_name_is_found_with_its_surname(recorded, asked, found):
    """'Ben Okafor' did not find Benjamin Okafor. A given name's short form that begins the recorded one (three
    letters or more) finds it beside the surname held whole; alone it finds no one (every Benjamin and Bennett, every
    Robert for Bob: tests/test_authors_nicknames.py)."""
    assert authors.wrote(recorded, asked) is found, (recorded, asked)
