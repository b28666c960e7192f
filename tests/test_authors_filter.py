"""Who wrote a passage, as search is asked it: the ``author`` filter (the MCP search tool's argument, ``ingest search
--author``) keeps the passages of files recording that author (a note's front matter ``author:``, a Logseq page's
``author::``, a PDF's or a .docx's author) and of mails that person sent; a question naming a known author as its
writer ('what did Ben write in March about hiring', 'notes by anna berg') puts that author's passages first. Before,
the name was a word like any other: a note merely mentioning Ben ranked above the note Ben wrote."""
from __future__ import annotations

import io
import json
from datetime import datetime

import pytest

from search.query.authors import named_author, senders, wanted, wrote
from search.query.filters import Filters
from search.query.question import content, writers, writers_known
from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures
from tests.conftest import ingest, ingest_keyword_only, write_tree

NOTES = {
    # mentions Ben, hiring and March over and over; written by no one it names
    "team/standup.md": "# Standup in March\n\nBen said hiring is slow. Ben asked about hiring in March; Ben will "
                       "write the hiring ads. Hiring, hiring: Ben again.\n",
    "ben/hiring.md": "---\nauthor: Ben Okafor\ndate: 2026-03-12\n---\n# Team growth\n\nTwo engineers join in March; "
                     "the hiring panel meets weekly.\n",
    "anna/budget.md": "---\nauthor: Anna Berg\n---\n# Q2 spending\n\nThe budget moves marketing spend to hiring.\n",
    "eu/green.md": "---\nauthor: Ursula von der Leyen\n---\n# Green deal\n\nThe budget of the green deal grows.\n",
    "nl/dikes.md": "---\nauthor: Jan de Vries\n---\n# Dikes\n\nThe budget for dikes and pumps.\n",
    "mentions.md": "# Ursula von der Leyen, Jan de Vries, Anna Berg on the budget\n\nUrsula von der Leyen on the budget; Jan de Vries on the budget; anna berg on "
                   "the budget, the budget, the budget.\n",
    "science/brain.md": "# The brain\n\nThe brain consolidates memories during sleep; the brain said so.\n",
    # products, no one's author: 'did Docker publish' is about publishing
    "tools/overlay.md": "# Overlay networks\n\nDocker will publish a fix for the overlay bug. Until then the Kubernetes "
                        "docs say to restart the pods.\n",
    "tools/images.md": "# Images\n\nDocker images and a fix of the build cache; a fix of the Docker pods.\n",
}
MAIL = ("From: Ben Okafor <ben@example.com>\nTo: Anna Berg <anna@example.com>\nSubject: Offer letters\n"
        "Date: Tue, 10 Mar 2026 09:00:00 +0000\n\nThe offer letters for the two hires go out on Friday.\n")
OTHER_MAIL = ("From: Anna Berg <anna@example.com>\nTo: Ben Okafor <ben@example.com>\nSubject: Re: Offer letters\n"
              "Date: Wed, 11 Mar 2026 09:00:00 +0000\n\nThanks Ben, the offer letters look right.\n")


def _docx(author: str, text: str) -> bytes:
    import docx
    document = docx.Document()
    document.core_properties.author = author
    document.core_properties.title = "Interview loop"
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _build(folder):
    build_notes(folder, NOTES, {
        "mail/offer.eml": MAIL, "mail/reply.eml": OTHER_MAIL,
        "loop.docx": _docx("Brian Wu", "The interview loop has four rounds of offer review."),
        "template.docx": _docx("python-docx", "A template's offer text.")})


def paths(answer):
    return [hit.path for hit in answer.hits]


def test_the_author_filter_keeps_what_that_person_wrote(engine):
    """'hiring' by keyword ranked the standup (Ben, hiring, March over and over) first; author='Ben' keeps Ben
    Okafor's note and the mail he sent, not the one sent to him, nor the note naming him."""
    assert paths(engine.search("hiring", mode="keyword"))[0] == "team/standup.md"
    found = paths(engine.search("hiring", mode="keyword", filters=Filters(author="Ben")))
    assert found == ["ben/hiring.md", "mail/offer.eml"], found  # 'two hires': the mail he sent
    letters = paths(engine.search("offer letters", mode="keyword", filters=Filters(author="okafor")))
    assert letters == ["mail/offer.eml"], letters
    assert paths(engine.search("offer letters", mode="keyword", filters=Filters(author="Anna Berg"))) == \
        ["mail/reply.eml"]
    assert paths(engine.search("budget", mode="keyword", filters=Filters(author="von der Leyen"))) == ["eu/green.md"]


def test_a_word_documents_author_is_read(engine):
    """A .docx's core properties author was not read: its hits said nothing of it and no search found it by it.
    python-docx's own placeholder is no author."""
    hits = engine.search("offer", mode="keyword", filters=Filters(author="Brian Wu")).hits
    assert [hit.path for hit in hits] == ["loop.docx"] and hits[0].author == "Brian Wu"
    assert next(h for h in engine.search("template offer", mode="keyword").hits
                if h.path == "template.docx").author is None


def test_an_author_no_file_records_is_told(engine):
    answer = engine.search("budget", mode="keyword", filters=Filters(author="Zed Nobody"))
    assert answer.hits == []
    assert any("by Zed Nobody: no file searched records that author" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize("given", ["", "  ", "!!!", "x" * 201])
def test_an_author_that_is_no_name_is_refused(given):
    with pytest.raises(ValueError, match="author must be a name"):
        Filters(author=given)


def test_names_match_by_their_words():
    assert wrote("Ben Okafor", "ben") and wrote("Berg, Anna", "Anna Berg") and wrote("José Müller", "jose muller")
    assert not wrote("Ben Lee", "Ben Okafor") and not wrote(None, "Ben")
    assert wanted("  Anna   Berg ") == "Anna Berg"
    heads = [(1, 7, "From: Ben <b@x>\nTo: A\n\nhi"), (2, 7, "the rest of Ben's message"), (3, 8, "no head here")]
    assert senders(heads) == [(1, "Ben <b@x>"), (2, "Ben <b@x>")], "a message's later passages; not another file's"


QUESTIONS = [  # (question, the file that should come first)
    ("what did Ben write in March about hiring", "ben/hiring.md"),
    ("notes by anna berg about the budget", "anna/budget.md"),
    ("what did anna write about the budget", "anna/budget.md"),
    ("what did Ursula von der Leyen write about the budget", "eu/green.md"),
    ("papers by Jan de Vries on the budget", "nl/dikes.md"),
]


@pytest.mark.parametrize("question, first", QUESTIONS)
def test_a_question_naming_its_writer_puts_their_notes_first(engine, question, first):
    """The standup says Ben, hiring and March more often than Ben's own note does, and the reading list names Anna
    Berg, Ursula von der Leyen and Jan de Vries beside 'the budget' again and again: they ranked first."""
    answer = engine.search(question, mode="keyword")
    assert paths(answer)[:1] == [first], paths(answer)


def test_the_note_says_whose_passages_come_first(engine):
    answer = engine.search("what did Ben write in March about hiring", mode="keyword")
    assert "the passages by Ben Okafor come first, each keeping the score it ranked with" in answer.notes


def test_a_name_no_file_records_moves_nothing(engine):
    """'Carol' is no one's author: the order is keyword search's."""
    answer = engine.search("what did Carol write about the budget", mode="keyword")
    assert not any(n.startswith("the passages by ") for n in answer.notes), answer.notes


@pytest.mark.parametrize("question, searched, names", [
    ("what did Ursula von der Leyen write about the budget", "Ursula von der Leyen the budget",
     ["Ursula von der Leyen", "Ursula von der", "Ursula von", "Ursula"]),
    ("papers by Jan de Vries on dikes", "Jan de Vries dikes", ["Jan de Vries", "Jan de", "Jan"]),
    ("notes by anna berg", "anna berg", ["anna berg", "anna"]),
    ("what did anna write about the budget", "anna the budget", ["anna"]),
    ("what did the docs say about timeouts", "timeouts", []),  # a speaker named by a role: framing
    ("sort notes by date", "sort notes by date", []),
    ("notes by me from March", "March", []),
])
def test_long_and_lower_case_names_are_read_as_writers(question, searched, names):
    """A name of four words with lower-case particles, or one typed in small letters, was no name: 'write' and
    'about' stayed words of the query."""
    assert content(question) == searched
    assert writers(question) == names


def test_a_named_writer_must_be_known():
    known = ["Ben Okafor", "Anna Berg"]
    assert named_author("notes by anna berg budget", known) == "anna berg"
    assert named_author("what did the team write", known) is None
    assert named_author("what did Carol write", known) is None


def test_the_mcp_search_tool_takes_an_author(home, model_path, monkeypatch):
    from mcp.server.mcpserver.exceptions import ToolError

    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    from tests.conftest import in_home
    in_home(home, model_path, monkeypatch)
    tools = Tools(Sift(load()))
    found = tools.search(query="hiring", mode="keyword", author="okafor").structured_content
    assert [r["path"] for r in found["results"]] == ["notes/ben/hiring.md", "notes/mail/offer.eml"], found
    with pytest.raises(ToolError, match="author must be a name"):
        tools.search(query="hiring", author="!!")


def test_the_author_filter_keeps_meaning_and_hybrid_search_to_that_author(sift_env, immediate, tmp_path, embedder):
    """By meaning the filter is the catalog's mask (the vectors' rows), by keyword FTS5's or the postings': each
    keeps Ben's note alone, where a note saying the same of Ben, unwritten by him, is as near."""
    from tests.conftest import indexed_engine
    root = write_tree(tmp_path / "n", {"a.md": "---\nauthor: Ben Okafor\n---\n# Hiring\n\nWe hire two engineers.\n",
                                       "b.md": "# Hiring\n\nBen said we hire two engineers.\n"})
    engine = indexed_engine(root, "n", embedder)
    for mode in ("semantic", "hybrid", "keyword"):
        answer = engine.search("hiring engineers", mode=mode, filters=Filters(author="Ben"))
        assert [h.path for h in answer.hits] == ["a.md"], (mode, answer.hits, answer.notes)


def test_a_word_documents_author_is_no_slip_of_another_word(engine):
    """'Brian', first in the query, held nowhere while a .docx's author was not read, was searched as 'brain', a
    word the notes write in small letters: the brain note came first. The document's author is held now."""
    answer = engine.search("Brian rounds", mode="keyword")
    assert paths(answer)[:1] == ["loop.docx"] and "science/brain.md" not in paths(answer), paths(answer)
    assert not answer.unmatched, answer.unmatched


@pytest.mark.parametrize("question, as_writer, as_subject", [
    ("Did Docker publish a fix", "Docker a fix", "Did Docker publish a fix"),
    ("did Kubernetes say anything about pods", "Kubernetes anything about pods",
     "did Kubernetes say anything about pods"),
    ("what did Ben write in March about hiring", "Ben in March hiring", "Ben write in March about hiring"),
    ("Docker wrote about layers", "Docker layers", "Docker wrote about layers"),
    ("papers by Docker", "Docker", "Docker"),  # 'by' says it is a writer, known or not
])
def test_a_name_before_a_verb_is_a_writer_only_if_the_index_knows_one(question, as_writer, as_subject):
    """'Did Docker publish a fix' was searched as 'Docker a fix': a capitalised word before a verb of writing was
    read as its writer, and the verb left out. Within a search it is one only where the index holds an author or
    sender so named; outside a search (no index to ask) it is read as a writer."""
    assert content(question) == as_writer
    with writers_known(lambda name: True):
        assert content(question) == as_writer
    with writers_known(lambda name: False):
        assert content(question) == as_subject
    assert content(question) == as_writer  # the search's answer does not outlive it


def test_a_product_before_a_verb_keeps_the_verb(engine):
    """No file records Docker or Kubernetes as its author: 'publish' and 'say' are searched and marked, and the note
    saying them comes first, where 'Docker a fix' ranked the note saying Docker and fix twice."""
    answer = engine.search("Did Docker publish a fix", mode="keyword")
    assert paths(answer)[0] == "tools/overlay.md", paths(answer)
    assert "**publish**" in answer.hits[0].snippet, answer.hits[0].snippet
    answer = engine.search("did Kubernetes say anything about pods", mode="keyword")
    assert paths(answer)[0] == "tools/overlay.md", paths(answer)
    assert "**say**" in answer.hits[0].snippet, answer.hits[0].snippet


def test_a_known_author_before_a_verb_is_still_its_writer(engine):
    """Ben Okafor is a recorded author: 'write' is no word of the subject (the standup says 'write'), and his note
    comes first."""
    answer = engine.search("what did Ben write about hiring", mode="keyword")
    assert paths(answer)[0] == "ben/hiring.md", paths(answer)
    assert not any("**write**" in hit.snippet for hit in answer.hits), [hit.snippet for hit in answer.hits]


def test_the_mail_senders_are_read_once_per_mail_file_version(sift_env, immediate, tmp_path):
    """Each catalog (each publish of any collection) and, by FTS5, each search with an author read every mail
    passage's head again: 2.3 s at 100,000 messages (bench/author_heads.py). The senders are kept by mail file
    version: read again, only a file added or changed is read, and what is found is what a whole read finds."""
    from search.index import author_reads
    from search.query import authors
    from workers import runtime
    root = write_tree(tmp_path / "m", {"a.md": "# A note\n\nNo mail.\n"})
    (root / "offer.eml").write_text(MAIL)
    (root / "reply.eml").write_text(OTHER_MAIL)
    ingest_keyword_only(root, "m")
    conn = runtime.index()
    read = []  # the mail files whose heads were read, by each statement reading heads
    conn.set_trace_callback(lambda sql: read.append(sql) if "substr(ch.text" in sql else None)
    try:
        def whole() -> list:
            return senders(author_reads.mail_heads(conn))
        assert authors.mail_senders(conn) == whole() and len(whole()) == 2
        read.clear()
        assert authors.mail_senders(conn) == whole()
        assert len(read) == 1, read  # the whole read's alone: none kept was read again
        (root / "later.eml").write_text(MAIL.replace("Ben Okafor <ben", "Chen Wu <chen").replace("Offer", "Later"))
        (root / "reply.eml").write_text(OTHER_MAIL.replace("Anna Berg <anna@example.com>\nTo", "Dana Lee <d@x>\nTo"))
        ingest_keyword_only(root, "m")
        read.clear()
        found = authors.mail_senders(conn)
        assert found == whole(), found
        assert {sender.split(" <")[0] for _, sender in found} == {"Ben Okafor", "Chen Wu", "Dana Lee"}
        changed = [f for f, path in conn.execute("SELECT id, path FROM files WHERE path LIKE '%.eml' ORDER BY id")
                   if path in ("later.eml", "reply.eml")]
        assert len(changed) == 2 and len(read) == 2 and f"json_each('{json.dumps(changed)}')" in read[0], read
        assert authors.condition(conn, "Chen Wu")[1]["author_chunks"] == json.dumps(
            [chunk for chunk, sender in whole() if sender.startswith("Chen Wu")])
    finally:
        conn.set_trace_callback(None)


def test_similar_takes_an_author(sift_env, immediate, tmp_path):
    """search and list_files took ``author``, similar did not: 'Ben's other notes like this one' was refused as an
    argument similar does not take. Now it keeps the passages by that author, as search's does."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    root = write_tree(tmp_path / "n", {
        "a.md": "---\nauthor: Ben Okafor\n---\n# Hiring\n\nWe hire two engineers in March.\n",
        "b.md": "---\nauthor: Anna Berg\n---\n# Hiring\n\nWe hire two engineers in April.\n",
        "c.md": "---\nauthor: Ben Okafor\n---\n# Recruiting\n\nTwo engineers join the team soon.\n"})
    ingest(root, "n")
    tools = Tools(Sift(load()))
    every = tools.similar(path="n/a.md").structured_content
    assert {r["path"] for r in every["results"]} == {"n/b.md", "n/c.md"}, every
    bens = tools.similar(path="n/a.md", author="Ben").structured_content
    assert [r["path"] for r in bens["results"]] == ["n/c.md"], bens
