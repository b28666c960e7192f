"""A pair of numbers with a slash measures, pages or counts as often as it dates: '3/16 inch', '1/16 cup', 'page
1/20' were read as March 16, January 16 and January 20 (search.query.dates), their other forms looked up too and
a note of that day put first. What is written around the pair decides now; dated questions still find their day."""
from __future__ import annotations

import pytest

from search.query.text import query_pieces
from tests.conftest import engine_in, tree_built_once

VAULT = {
    "journal/2024-03-16.md": "# 2024-03-16\n\nHardware store: plywood for the shelf, wood glue, sandpaper. The inch "
                             "tape broke; the plywood sheet waits in the garage.\n",
    "journal/2024-01-20.md": "# 2024-01-20\n\nRewrote the pricing page copy; it loads slowly on phones.\n",
    "journal/2024-03-14.md": "# 2024-03-14\n\nStandup ran long; the release train is late again.\n",
    "meetings/Standup March 14.md": "# Standup March 14\n\nAlice takes the migration, Bob the billing export.\n",
    "diy/Bookshelf.md": "# Bookshelf\n\nThe back panel is 3/16 inch plywood, nailed every 6 inches. Cut the "
                        "dados before the glue-up; sand the shelves first.\n",
    "manuals/Printer manual.md": "# Printer manual\n\nPage 1/20 covers unpacking: remove the orange tape and the "
                                 "cardboard insert before switching it on. Landing tray on the left.\n",
    "kitchen/Pancakes.md": "# Pancakes\n\nTwo cups of flour, 1/16 cup of sugar, a pinch of salt, two eggs.\n",
}
VAULT.update({f"misc/{name}.md": f"# {name}\n\n{text}\n" for name, text in [
    ("Garden", "Tomatoes need sun and a stake; beans climb the fence."),
    ("Books", "Thinking, Fast and Slow: system one is quick, system two is slow."),
    ("Travel", "Taipei: the palace museum, the night market, Jiufen."),
    ("Bike", "The chain skips in third gear; new brake pads in spring."),
    ("Tax", "Send the receipts to the accountant before the deadline.")]})


def dated(query: str) -> dict[str, list[str]]:
    """The query's words that keyword search looks up by more than themselves (a date's other forms)."""
    return {word: terms[1:] for word, terms in query_pieces(query) if len(terms) > 1}


@pytest.mark.parametrize("query", ["3/16 inch plywood", "drill bit 3/16\"", "1/16 cup of sugar", "page 1/20",
                                   "see p. 3/14", "1 3/16 inch", "3/16 of an inch", "3/16-inch bit", "5/8 in.",
                                   "1/2 cup", "May 5 agents share one pool?"])
def test_a_measure_a_page_or_a_question_is_no_date(query):
    assert dated(query) == {}, dated(query)


@pytest.mark.parametrize("query, forms", [
    ("standup 3/14", {"3": ["03 14", "3 月 14", "3 월 14", "march 14"]}),
    ("what did we decide on 3/14?", {"3": ["03 14", "3 月 14", "3 월 14", "march 14"]}),
    ("3/14 meeting in Berlin", {"3": ["03 14", "3 月 14", "3 월 14", "march 14"]}),
    ("standup 14/3/2024", {"3": ["2024 03 14", "3 月 14", "3 월 14", "march 14"]}),
    ("May 5 planning", {"may": ["05 05", "5 月 5", "5 월 5"]}),
    ("Is the May 5 review moved?", {"may": ["05 05", "5 月 5", "5 월 5"]})])
def test_a_slashed_or_worded_date_with_nothing_measured_is_still_one(query, forms):
    assert dated(query) == forms, dated(query)


@pytest.mark.parametrize("query, forms", [
    # a quoted phrase ending in a date: its closing quote is no inch mark ('5/8"' is one)
    ('"standup 3/14"', {"3": ["03 14", "3 月 14", "3 월 14", "march 14"]}),
    ("\u201creview 3/20\u201d", {"3": ["03 20", "3 月 20", "3 월 20", "march 20"]}),
    # a question whose first word May (or Dec) names the day it asks about, not whether things may do something
    ("May 5 standup: what did we decide?", {"may": ["05 05", "5 月 5", "5 월 5"]}),
    ("May 12 outage - root cause?", {"may": ["05 12", "5 月 12", "5 월 12"]}),
    ("May 5 meeting notes?", {"may": ["05 05", "5 月 5", "5 월 5"]}),
    ("Dec 12 retro?", {"dec": ["12 12", "12 月 12", "12 월 12", "december 12"]}),
    ("5 May releases ship late?", {"may": ["05 05", "5 月 5", "5 월 5"]})])  # the day first: no verb May
def test_a_quoted_date_and_a_question_about_a_may_day_are_dates(query, forms):
    """B's rules read '"standup 3/14"' (the closing quote as an inch mark) and any question beginning 'May 5' or
    'Dec 12' as no date: the note of that day was not looked up by its other forms."""
    assert dated(query) == forms, dated(query)


@pytest.mark.parametrize("query", ["May 31 sales figures?", "May 15 payments missing?", "May 20 invoices sent?",
                                   "May 14 orders shipped?", "May 12 deploys broke prod?", "May 3 orders paid?"])
def test_a_question_beginning_with_a_may_day_and_what_of_it_is_a_date(query):
    """'May 31 sales figures?', 'May 14 orders shipped?' were read as 'may 31 sales figure …?' (whether things may
    do something) and not looked up as the day: after the plural comes a noun, a past or an -ing form, no verb May
    could govern ('May 5 agents share one pool?' still is no date)."""
    assert list(dated(query)) == ["may"], dated(query)


@pytest.mark.parametrize("query", ["24/7 support rotation", "who is on call 24/7?", '5/8" plywood "back panel"',
                                   "\u201cdrill 3/16\u2033 bit\u201d"])
def test_round_the_clock_and_an_inch_mark_before_a_quoted_phrase_are_no_dates(query):
    """'24/7 support' was read as the 24th of July, its notes of July 24 looked up."""
    assert dated(query) == {}, dated(query)


@pytest.fixture(scope="module")
def vault_home(tmp_path_factory, model_path):
    """VAULT indexed once for the module: its tests only search it (each indexed it again)."""
    return tree_built_once(tmp_path_factory, model_path, VAULT, "vault")


@pytest.fixture
def engine(vault_home, model_path, embedder, monkeypatch):
    return engine_in(vault_home, model_path, embedder, monkeypatch)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, first", [("3/16 inch plywood", "diy/Bookshelf.md"),
                                          ("1/16 cup sugar", "kitchen/Pancakes.md")])
def test_a_measure_finds_the_note_that_measures_not_a_note_of_that_day(engine, query, first, mode):
    """'3/16 inch plywood' put the journal of March 16 (plywood, inch) above the bookshelf of 3/16 inch plywood."""
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == first, [(h.path, h.score) for h in answer.hits[:3]]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, first", [("standup 3/14", "meetings/Standup March 14.md"),
                                          ('"standup 3/14"', "meetings/Standup March 14.md"),
                                          ("3/16", "journal/2024-03-16.md"),
                                          ("pricing copy 1/20", "journal/2024-01-20.md"),
                                          ("plywood 3/16/2024", "journal/2024-03-16.md")])
def test_a_dated_question_still_finds_its_day(engine, query, first, mode):
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == first, [(h.path, h.score) for h in answer.hits[:3]]
