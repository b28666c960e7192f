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


def test_a_traces_guessed_forms_are_worked_out_once_for_its_keyword_step_and_its_note(immediate, tmp_path):
    """A trace's missing words' other-language forms (``keyword.held_forms``) were worked out by the keyword step,
    again by the spelling note (which asks of the query without its frames), and again for the next trace."""
    import os
    from pathlib import Path

    from search.query import keyword
    from search.query.engine import Engine
    from tests.conftest import ingest_keyword_only, write_tree
    ingest_keyword_only(write_tree(tmp_path / "notes", {"a.md": "# Uploads\n\nThe upload handler retries.\n",
                                                               "b.md": "# Pasta\n\nBoil it for nine minutes.\n"}))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    keyword._guessed_forms.cache_clear()
    answer = engine.search(TRACE, mode="keyword")
    assert any(n.startswith("no passage contains") for n in answer.notes)
    asked = keyword._guessed_forms.cache_info()
    assert asked.misses and asked.hits >= asked.misses - 1, "the note's look-up read the keyword step's forms"
    engine.search(TRACE.replace("upload", "render"), mode="keyword")
    assert keyword._guessed_forms.cache_info().misses <= asked.misses + 1, "the next trace's words were kept"
