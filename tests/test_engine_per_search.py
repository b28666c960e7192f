"""Each search's own forms of its words (engine.Asked): a slip's word meant, a word read as pinyin, which its
spelling note and snippets use after its keyword step. They were kept on the Engine, which the MCP server's and
HTTP server's clients share: the last keyword step's, whichever search it was."""
from __future__ import annotations

import threading

from tests.test_spelling import engine, spelling_home  # noqa: F401 - fixtures: its index, an Engine both ways

WAIT = 300  # seconds: a safety net against a hung test, not a speed assertion
ASKED = {"deploymnet": "no passage contains 'deploymnet' (did you mean 'deployment'?); searched for 'deployment' "
                       "in its place",
         "zhoubao": "'zhoubao' read as pinyin: also searched as 周报"}


def test_two_searches_at_once_each_get_their_own_note(engine):
    """A slip's search and a pinyin one, on one engine from two threads at once: each answer names its own word."""
    answers: dict[str, list] = {query: [] for query in ASKED}
    start = threading.Barrier(len(ASKED))

    def run(query):
        start.wait(WAIT)
        for _ in range(8):
            answers[query].append(engine.search(query, mode="keyword"))

    threads = [threading.Thread(target=run, args=(query,), daemon=True) for query in ASKED]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
        assert not thread.is_alive(), "a search never finished"
    for query, said in ASKED.items():
        assert len(answers[query]) == 8, query
        for answer in answers[query]:
            assert said in answer.notes, (query, answer.notes)
            assert not any(other in note for other in ASKED if other != query for note in answer.notes), answer.notes


def test_a_search_reads_no_forms_of_the_last_one(engine):
    """A semantic search of 'deploymnet' looks up no word meant: its snippet marked 'deployment' only when a
    keyword search of the same words had run before it on the engine."""
    fresh = engine.search("deploymnet", mode="semantic").hits[0].snippet
    engine.search("deploymnet", mode="keyword")
    assert engine.search("deploymnet", mode="semantic").hits[0].snippet == fresh
    assert "**deployment**" not in fresh, fresh


def test_a_searchs_forms_are_kept_on_its_own_thread(engine):
    """The test above passes with the forms kept on the engine too: _conn_lock serializes searches today. What keeps
    them apart without it is that each thread has its own: another thread, searching nothing, sees none of them."""
    engine.search("deploymnet", mode="keyword")
    assert engine._asked.swapped[1], "the keyword step recorded the word meant"
    seen = []
    other = threading.Thread(target=lambda: seen.append(engine._asked.swapped), daemon=True)
    other.start()
    other.join(WAIT)
    assert seen == [("", {})], seen
