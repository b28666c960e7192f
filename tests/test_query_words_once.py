"""A query's words (``text.query_pieces``) are worked out once per query, not at each of the 15-20 steps of a search
that read them (keyword step, held and slip forms, spelling note, reordering, snippets): a pasted trace's cost
about 3 ms each time. They depend on the query's text alone, so nothing of the index can make them stale."""
from __future__ import annotations

from search.query import text
from search.query.text import query_pieces, query_words, written_words

TRACE = ('Traceback (most recent call last):\n  File "/srv/app/upload/core.py", line 10, in upload_handler\n'
         "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'")


def test_a_querys_words_are_worked_out_once_and_a_callers_change_does_not_stick():
    text._pieces.cache_clear()
    first = query_pieces(TRACE)
    words, written = query_words(TRACE), written_words(TRACE)
    assert text._pieces.cache_info().misses == 1, "query_words and written_words read the pieces kept"
    first[0][1].append("changed")  # a caller's own list
    words.append("changed")
    written.clear()
    assert query_pieces(TRACE) != first and "changed" not in query_pieces(TRACE)[0][1]
    assert "changed" not in query_words(TRACE) and written_words(TRACE)
    assert text._pieces.cache_info().misses == 1
