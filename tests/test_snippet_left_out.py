"""A hit's snippet marks the words keyword search looked up, not those it left out of the query: a preposition
before an article ('about the budget' searches 'the budget'), a phrase of when a note was written ('last
Tuesday'). A marked word tells the reader (an assistant) that it matched."""
import re

import pytest

from tests.conftest import built_once, engine_in, ingest_keyword_only, write_tree

NOTES = {
    "budget.md": "# Spending\n\nWe talked about the budget for Q2: the budget moves the marketing spend to hiring.\n",
    "standup.md": "# Standup\n\nLast Tuesday the standup ran long, and the notes from it are short.\n",
    "sqlite.md": "# SQLite\n\nIn WAL mode readers do not block a write, and a write does not block readers, "
                 "during a checkpoint too.\n",
    "config.md": "# Config\n\nThe default port is 8080; change the default in the settings.\n",
    # the same words as the others but 'about' and 'during': they stay rare, so not left unmarked as common
    **{f"filler{n}.md": f"# Filler {n}\n\nThe garden needs the rain in week {n}.\n" for n in range(6)},
}


def _build(folder):
    """Without vectors: the module searches by keyword alone."""
    root = write_tree(folder / "notes", NOTES)
    ingest_keyword_only(root)


@pytest.fixture(scope="module")
def home(tmp_path_factory, model_path):
    return built_once(tmp_path_factory, model_path, _build)


@pytest.fixture(params=[True, False], ids=["postings", "fts5"])
def engine(request, home, model_path, embedder, monkeypatch):
    return engine_in(home, model_path, embedder, monkeypatch, postings=request.param)


def _marked(engine, query: str) -> dict[str, set[str]]:
    """{path: the words its hit's snippet marks (folded)}."""
    hits = engine.search(query, mode="keyword", limit=10).hits
    return {hit.path: {w.casefold() for w in re.findall(r"\*\*(.+?)\*\*", hit.snippet)} for hit in hits}


def test_a_preposition_left_out_of_the_search_is_not_marked(engine):
    """'readers during a write' searches 'readers a write' (search.query.keyword.subject_words); its snippet marked
    **during** as well, which the note holds, as though it had matched."""
    marked = _marked(engine, "readers during a write")
    assert {"readers", "write"} <= marked["sqlite.md"] and "during" not in marked["sqlite.md"], marked
    marked = _marked(engine, "about the budget")
    assert "budget" in marked["budget.md"] and "about" not in marked["budget.md"], marked
    # quoted, it is searched, and marked
    assert "during" in _marked(engine, 'readers "during" a write')["sqlite.md"]


def test_when_a_note_was_written_is_not_marked(engine):
    """'notes from last Tuesday about the budget' searches 'the budget' (search.query.question): neither 'about' nor
    'Tuesday', 'last', 'notes' and 'from', which the notes hold, is marked in any hit."""
    marked = _marked(engine, "notes from last Tuesday about the budget")
    assert "budget" in marked["budget.md"], marked
    assert not {"about", "tuesday", "last", "notes", "from"} & set().union(*marked.values()), marked


def test_a_slip_searched_as_meant_marks_the_word_meant(engine):
    """'deflaut' is searched as 'default' (two slips): the snippet marks what was searched."""
    assert "default" in _marked(engine, "deflaut")["config.md"]
