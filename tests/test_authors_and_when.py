"""Who wrote a note and when, as an assistant asks about them: a note's author (front matter's ``author:``, Logseq's
``author::``) shown on its hit as a PDF's is; when it was written said as a weekday or a week in words ('last
Tuesday', 'letzte Woche', '上周的') left out of keyword search; and questions about an author ('what did Anna write
about the budget', 'papers by Smith 2019') searched by the name and the subject, not by 'write', 'notes' and 'by'."""
from __future__ import annotations

from datetime import date, datetime

import pytest

from mcp_server.render import hit_data, hits_text
from search.query.filters import Filters
from search.query.keyword import subject_words
from search.query.question import content
from tests.author_helpers import build_notes, home  # noqa: F401 - a fixture
from tests.conftest import engine_in
from tests.test_pdf_ingest import paged_pdf

NOTES = {
    "anna-budget.md": "---\nauthor: Anna Berg\ndate: 2026-03-10\n---\n# Q2 spending review\n\nThe budget for Q2 moves "
                      "marketing spend to hiring. Travel is cut by a third.\n",
    "ben-budget.md": "---\nauthor: Ben Okafor\ndate: 2026-03-12\n---\n# Cost notes\n\nOur budget is tight: cloud costs "
                     "grew, hiring is frozen until May.\n",
    # says 'last Tuesday', 'notes', 'wrote' and 'week' over and over, and nothing of a budget
    "standup.md": "# Standup\n\nLast Tuesday the standup ran long. Tuesday standups are notes of who wrote what last "
                  "week; last Tuesday we said little.\n",
    # says 'write', 'Anna', 'notes by' and 'about', and nothing of a budget
    "writing.md": "# Writing habits\n\nI write every morning; Anna said to write about what I read. Notes by hand.\n",
    "journal/2026-12-01.md": "# Tuesday\n\nThe budget meeting moved the offsite to spring.\n",
    "hiring.md": "# Hiring plan\n\nWe hire two engineers in March; Ben wrote the job ads.\n",
    "dune.md": "- type:: book\n  author:: Frank Herbert\n\n- The spice must flow through the budget of Arrakis.\n",
    "zh/预算.md": "---\nauthor: 张伟\n---\n# 预算\n\n第二季度的预算把市场费用挪到招聘。\n",
}
FILLER = " ".join(f"judged document {n} of the topic set" for n in range(5))
PDFS = {"smith2019.pdf": (["Pooling bias in test collections 2019", FILLER], "John Smith"),
        "smith2021.pdf": (["Dense retrieval with learned sparse terms", FILLER], "John Smith"),
        "lee2019.pdf": (["Pooling depth and dense retrieval 2019", FILLER], "Mei Lee")}


def _build(folder):
    """Without vectors: the module searches by keyword alone, and embedding is nearly all of a build's time."""
    build_notes(folder, NOTES, {name: paged_pdf(pages, info=f"/Author ({author})")
                                for name, (pages, author) in PDFS.items()})


@pytest.fixture
def engine(home, model_path, embedder, monkeypatch):
    return engine_in(home, model_path, embedder, monkeypatch)


def test_a_notes_author_is_on_its_hit_as_a_pdfs_is(engine):
    """A note's front matter author (and a Logseq page's author::) was searched, the title column holding it, but
    shown for PDFs alone: 'Herbert' found dune.md with no word of why. Its first hit now says '(by …)'; a note
    without one says nothing more."""
    hits = engine.search("budget", mode="keyword", limit=10).hits
    authors = {hit.path: hit.author for hit in hits}
    assert authors["anna-budget.md"] == "Anna Berg" and authors["dune.md"] == "Frank Herbert", authors
    assert authors["journal/2026-12-01.md"] is None, authors
    data = [{**hit_data(hit), "path": f"notes/{hit.path}"} for hit in hits]
    assert "author" not in {key for hit in data if hit["path"] == "notes/journal/2026-12-01.md"
                            for key, value in hit.items() if value is not None}
    shown = "\n".join(hits_text(data))
    assert shown.count("(by Anna Berg)") == 1 and "by Frank Herbert" in shown, shown
    journal = shown.index("notes/journal/2026-12-01.md")
    assert "(by" not in shown[journal:shown.index("\n", shown.index("\n", journal) + 1)], shown
    assert [hit.path for hit in engine.search("张伟", mode="keyword").hits][:1] == ["zh/预算.md"]
    assert engine.search("张伟", mode="keyword").hits[0].author == "张伟"


@pytest.mark.parametrize("query, searched", [
    ("notes from last Tuesday about the budget", "the budget"),
    ("what did I write last Tuesday about the budget", "the budget"),
    ("the budget, this past Friday", "the budget"),
    ("budget notes from Tuesday last week", "budget notes"),
    ("Budget von letzter Woche", "Budget"), ("letzten Dienstag Budget", "Budget"),
    ("budget vor zwei Wochen", "budget"), ("mardi dernier budget", "budget"),
    ("budget de la semaine dernière", "budget"), ("el martes pasado presupuesto", "presupuesto"),
    ("presupuesto hace unos días", "presupuesto"), ("上周的预算", "预算"), ("上周二的预算", "预算"),
    ("三天前的预算", "预算"), ("先週の予算", "予算"),
])
def test_when_it_was_written_in_words_is_not_searched(query, searched):
    """'last Tuesday', 'letzte Woche', '上周的' were words of the subject: date_hints gives their dates to the
    date arguments, and no note says so of itself."""
    assert content(query) == searched


@pytest.mark.parametrize("query", ["the Tuesday standup", "KW 12 Budget", "notes from week 10", "最近邻搜索"])
def test_a_weekday_alone_and_a_numbered_week_stay(query):
    """A weekly note is headed by its week ('KW 12'), and 'the Tuesday standup' is what a note is about."""
    assert content(query) == query


def test_last_tuesday_finds_the_budget_not_the_notes_saying_tuesday(engine):
    hits = [hit.path for hit in engine.search("notes from last Tuesday about the budget", mode="keyword").hits]
    assert hits[0].endswith("budget.md") and "standup.md" not in hits[:3], hits


def _march():
    return Filters(date_after=datetime(2026, 3, 1).timestamp(), date_before=datetime(2026, 4, 1).timestamp())


# (question, what keyword search looks up, the file that should come first)
QUESTIONS = [
    ("what did Anna write about the budget", "Anna the budget", "anna-budget.md"),
    ("what did Anna Berg say about hiring", "Anna Berg hiring", "anna-budget.md"),
    ("notes by Anna about the budget", "Anna the budget", "anna-budget.md"),
    ("Anna's notes on the budget", "Anna's notes on the budget", "anna-budget.md"),
    ("papers by Smith 2019", "Smith 2019", "smith2019.pdf"),
    ("Smith's paper on pooling", "Smith's paper on pooling", "smith2019.pdf"),
    ("papers by John Smith about pooling", "John Smith pooling", "smith2019.pdf"),
    ("the paper Smith wrote in 2019 about pooling", "the paper Smith in 2019 about pooling", "smith2019.pdf"),
    ("what has Mei Lee written about dense retrieval", "Mei Lee dense retrieval", "lee2019.pdf"),
    ("what did I write last week about hiring", "hiring", "hiring.md"),
    ("notes by me from March", "March", "hiring.md"),
    ("which notes did Anna write in March", "Anna in March", "anna-budget.md"),  # with March as the dates
    ("anything Ben Okafor wrote on costs", "anything Ben Okafor costs", "ben-budget.md"),
    ("上周张伟写的预算笔记", "张伟 预算", "zh/预算.md"),  # 笔记 the kind of writing, as in 张伟写的关于预算的笔记
    ("Annas Notizen von letzter Woche zum Budget", "Annas Notizen zum Budget", "anna-budget.md"),
]


@pytest.mark.parametrize("question, searched, first", QUESTIONS)
def test_an_author_or_date_question_is_searched_by_the_name_and_subject(engine, question, searched, first):
    """'write', 'notes by', 'has … written' and when were words of the subject: writing.md (I write … Anna said
    to write about … Notes by hand) ranked above Anna's note on the budget and Mei Lee's paper."""
    assert content(question) == searched
    filters = _march() if "March" in question and "Anna" in question else None
    hits = [hit.path for hit in engine.search(question, mode="keyword", filters=filters).hits]
    assert hits[:1] == [first], hits


def test_ben_in_march_about_hiring_keeps_the_name_and_the_month():
    assert content("what did Ben write in March about hiring") == "Ben in March hiring"


@pytest.mark.parametrize("given, said", [
    ("Tuesday last week", "for Tuesday 2026-11-24, give date_after=2026-11-24 and date_before=2026-11-25"),
    ("letzter Woche", "'letzter Woche' is 'last week': "), ("先週", "'先週' is 'last week': "),
    ("l'année dernière", "'l'année dernière' is 'last year': "), ("el año pasado", "'el año pasado' is 'last year': "),
    ("vor zwei Wochen", "'vor zwei Wochen' is '2 weeks ago': "), ("vor einer Woche", "'vor einer Woche' is '1 week ago'"),
    ("il y a trois jours", "'il y a trois jours' is '3 days ago': "), ("hace dos días", "'hace dos días' is '2 days ago'"),
    ("三天前", "'三天前' is '3 days ago': "), ("两周前", "'两周前' is '2 weeks ago': "),
])
def test_what_the_query_leaves_out_the_date_arguments_are_told(given, said):
    """A period left out of keyword search is what an assistant passes to date_after and date_before: these were
    refused with the ISO forms alone ('Tuesday last week' told to count from today, as if no day were said)."""
    from search.query.date_hints import hint
    assert hint(given, "date_after", date(2026, 12, 6)).startswith(said), hint(given, "date_after", date(2026, 12, 6))


def test_a_few_days_ago_in_another_language_is_no_count_to_answer_for():
    from search.query.date_hints import hint
    assert hint("hace unos días", "date_after", date(2026, 12, 6)) is None


@pytest.mark.parametrize("query, searched", [("notes about the budget", "the budget"),
                                             ("release notes about the API", "release notes about the API")])
def test_notes_about_is_framing_but_release_notes_are_a_subject(query, searched):
    assert content(query) == searched


def test_a_preposition_before_the_is_not_the_subject(engine):
    """'about the budget' found writing.md alone: in a small corpus 'about' (one note) was its rarest word, and
    'budget', in more than a quarter of the passages, was dropped as common beside it. A preposition an article
    follows leads to its subject and is not searched; the budget notes come first."""
    hits = [hit.path for hit in engine.search("about the budget", mode="keyword", limit=10).hits]
    assert {"anna-budget.md", "ben-budget.md"} <= set(hits[:2]) and "writing.md" not in hits, hits


def test_the_article_after_a_left_out_preposition_is_not_searched(engine):
    """With 'about' left out, 'the budget' was two words, and common words are dropped only from three: every note
    saying 'the' (the standup, the job ads) was a hit of 'about the budget'. The article goes with the preposition."""
    hits = [hit.path for hit in engine.search("about the budget", mode="keyword", limit=20).hits]
    assert "standup.md" not in hits and "hiring.md" not in hits, hits
    assert content("about the budget") == "about the budget", "the spelling note and meaning see the words whole"


@pytest.mark.parametrize("words, quoted, kept", [
    (["about", "the", "budget"], set(), ["budget"]), (["about", "the"], set(), ["about", "the"]),
    (["during", "this", "week"], set(), ["this", "week"]),
    (["about", "the", "budget"], {"about"}, ["about", "the", "budget"]),
    (["about", "the", "budget"], {"the"}, ["the", "budget"]), (["about", "my", "budget"], set(), ["my", "budget"]),
    (["blank", "lines", "above", "and", "below"], set(), ["blank", "lines", "above", "and", "below"]),
    (["while", "loop", "in", "bash"], set(), ["while", "loop", "in", "bash"]),
])
def test_a_preposition_that_stands_for_itself_stays(words, quoted, kept):
    assert subject_words(words, quoted) == kept
