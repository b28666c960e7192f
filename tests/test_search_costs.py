"""What a search does besides ranking, which costs time on every call: an assistant calls search many times per
question, each time with other words. Behaviour only; the figures are bench/new_queries.py's."""
from __future__ import annotations

import re

import pytest

from search.query import snippet
from search.query.engine import Engine
from tests.conftest import in_home, tree_built_once

TRACE = ('Traceback (most recent call last):\n  File "/srv/app/.venv/lib/python3.11/site-packages/shop/orders.py", '
         'line 12, in place_order\n    total = price + tax\nTypeError: unsupported operand type(s) for +: '
         "'NoneType' and 'int'")


def test_a_snippet_pattern_matches_only_its_words_in_any_case():
    """The query's words are marked in any case, and its CJK ranges' classes (a word's start, end and stem ending)
    are compiled without IGNORECASE: with it, each class was compiled looking up the case of each of 40,000
    characters, and a pasted stack trace's snippet pattern took 0.5 s of CPU on a new query."""
    snippet._pattern.cache_clear()
    pattern = snippet._pattern(TRACE)
    assert not pattern.flags & re.IGNORECASE
    assert snippet._pattern("Postgres INDEXING 3月14日 March 14").flags & re.IGNORECASE == 0
    shown, _ = snippet.snippet_window("POSTGRES indexed the rows on 14 march; 云仓Postgres too.",
                                      "Postgres INDEXING March 14")
    assert shown == "**POSTGRES** **indexed** the rows on **14 march**; 云仓**Postgres** too."


def test_the_bounds_of_a_querys_words_are_written_once():
    """A word's start and end and a stem's ending (classes of the CJK ranges, about 1.5 ms each to compile) stand
    once in the run of the query's words, not once a word: a long claim's pattern took 6 ms to compile, not 40."""
    pattern = snippet._pattern("postgres index rows vacuum analyze").pattern
    bounds = (snippet._START, snippet._END, snippet._ALPHA)
    for full, one in snippet._MASKED_CLASSES.items():  # compiled with one character for the CJK ranges
        bounds = tuple(bound.replace(full, one) for bound in bounds)
    assert [pattern.count(bound) for bound in bounds] == [1, 1, 1]
    shown, _ = snippet.snippet_window("vacuum analyzes the rows; postgres2 is no word", "postgres index rows vacuum analyze")
    assert shown == "**vacuum** **analyzes** the **rows**; postgres2 is no word"


def test_a_name_phrase_is_still_tried_before_its_words():
    """Written once for the run, the bounds and stem endings leave a name's words in a row tried before its word
    alone (the longest pattern first): get_user_name marked whole, not 'get' alone."""
    shown, _ = snippet.snippet_window("call get_user_name here", "getUserName get")
    assert shown == "call **get_user_name** here"


TREE = {"shop/orders.py": "def place_order(price, tax):\n    total = price + tax\n    return total\n",
        "notes/orders.md": "# Orders\n\nAn order's total is its price and its tax.\n"}


@pytest.fixture(scope="module")
def tree_home(tmp_path_factory, model_path):
    return tree_built_once(tmp_path_factory, model_path, TREE, "code")


def test_a_keyword_search_never_loads_the_model(tree_home, model_path, embedder, monkeypatch):
    """mode='keyword' on an index with embeddings neither loads an embedding model nor embeds the query, for a
    pasted stack trace too; hybrid loads it once."""
    loads = []

    def loader():
        loads.append(1)
        return embedder
    engine = Engine(in_home(tree_home, model_path, monkeypatch), loader)
    engine.warm()
    for query in (TRACE, "order total", "place_order"):
        assert engine.search(query, mode="keyword").hits
    assert loads == []
    assert engine.search("order total", mode="hybrid").mode == "hybrid"
    assert loads == [1]
