"""A query word no passage holds, searched by its held forms (keyword.held_forms): the hit's snippet marks the form
it was found by."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.query.engine import Engine
from tests.conftest import ingest, write_tree

NOTES = {
    "kunde.md": "# Kunde\n\nDer Kunde hat eine neue Nummer, die Rechnung eine alte.",
    "proveedores.md": "# Proveedores\n\nLa búsqueda de un proveedor nuevo de embalajes.",
    "other.md": "# Queue\n\nThe job queue retries a failed upload three times.",
}


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_hit_found_by_a_held_form_marks_it(immediate, tmp_path, monkeypatch, postings):
    """'Kundennummer' found the note saying 'Kunde' and 'Nummer' (the compound's parts), 'buscar' the one saying
    'búsqueda', but their snippets marked nothing: a snippet marked the query's words and their stems only, and
    neither word's stem is in the passage. A hit looked as if found by meaning alone."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    ingest(write_tree(tmp_path / "notes", NOTES))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", keyword_postings=postings)
    engine.warm()
    for query, path, marked in [("Kundennummer", "kunde.md", ["**Kunde**", "**Nummer**"]),
                                ("buscar proveedor", "proveedores.md", ["**búsqueda**", "**proveedor**"])]:
        hits = engine.search(query, mode="keyword").hits
        assert [hit.path for hit in hits][:1] == [path], (query, hits)
        assert all(mark in hits[0].snippet for mark in marked), (query, hits[0].snippet)
        assert "**Rechnung**" not in hits[0].snippet and "**neue**" not in hits[0].snippet, hits[0].snippet


def test_an_english_compound_is_not_split_at_the_s_its_second_word_begins_with():
    """In a query that shows no language, a word no passage holds was split at a joining 's' after any first word:
    'namespace' was looked up as 'name' and 'pace', 'screenshot' as 'screen' and 'hot', 'landscape' as 'land' and
    'cape', 'tablespace' as 'tabl' (the index's 'table', at a joining 'es') and 'pace' (their hits ranked by those
    words, and the spelling note no longer named them). An s joins German words
    after -ung, -heit, -keit, -schaft, -ion … ('Rechnungsnummer'); after any word in a query that shows German."""
    from search.query.keyword import held_forms
    held = {w: 3 for w in ("name", "pace", "tabl", "screen", "hot", "land", "cape", "rechnung", "nummer", "kunde",
                           "sicherheit", "lücke", "arbeit", "platz", "queue")}
    tokens = lambda words: [(w,) for w in words]  # noqa: E731  (no stemming: the words are their own tokens)
    documents = lambda t: held.get(t, 0)  # noqa: E731
    for query in ("namespace queue", "screenshot queue", "landscape queue", "tablespace queue"):
        assert held_forms(query, tokens, documents) == {}, query
    assert held_forms("rechnungsnummer queue", tokens, documents) == {"rechnungsnummer": ["rechnung", "nummer"]}
    assert held_forms("kundennummer queue", tokens, documents) == {"kundennummer": ["kunde", "nummer"]}
    assert held_forms("sicherheitslücke queue", tokens, documents) == {"sicherheitslücke": ["sicherheit", "lücke"]}
    assert held_forms("der arbeitsplatz", tokens, documents) == {"arbeitsplatz": ["arbeit", "platz"]}  # German
