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


def _index_of(text: str):
    """``tokens`` and ``documents`` (as held_forms takes them) of an index of one passage, ``text``, stemmed as the
    index stems: through a scratch FTS5 table of the real tokenizer."""
    import sqlite3
    from search.query.postings import tokenize
    conn = sqlite3.connect(":memory:")
    held = {t[0] for t in tokenize(conn, text.split()) if len(t) == 1}
    return (lambda words: tokenize(conn, words)), (lambda token: int(token in held))


def test_a_form_the_stemming_cuts_to_another_english_word_is_not_held():
    """'my favourite colour' was looked up as 'favour' in notes that say 'favour' and never 'favorite': Italian
    'favouriti', guessed for it, is 'favour' to Porter's stemming. Italian 'ricerca' for 'ricerche' is found still."""
    from search.query.keyword import held_forms
    tokens, documents = _index_of("I favour tea over coffee the colour of the ricerca Rechnung")
    assert held_forms("my favourite colour", tokens, documents) == {}
    assert held_forms("ricerche clienti", tokens, documents) == {"ricerche": ["ricerca"]}


def test_a_compound_of_three_and_a_capitalised_german_noun_are_split():
    """'Apfelkuchenrezept' was split into two held parts only ('apfelkuchen' held nowhere: not split at all), and
    'Hausaufgabe' not, as no letter joins its parts and the query showed no German: a word written as German writes a
    noun (a capital, then small letters; not a query's first word among others) is split as in German. English
    compounds in small letters stay as they were ('paracortical', 'namespace')."""
    from search.query.keyword import held_forms
    tokens, documents = _index_of("Apfel Kuchen Rezept Haus Aufgabe para cortical cells name space queue")
    assert held_forms("Apfelkuchenrezept", tokens, documents) == {"apfelkuchenrezept": ["apfel", "kuchen", "rezept"]}
    assert held_forms("meine Hausaufgabe", tokens, documents) == {"hausaufgabe": ["haus", "aufgabe"]}
    assert held_forms("Hausaufgabe", tokens, documents) == {"hausaufgabe": ["haus", "aufgabe"]}
    for query in ("paracortical cells", "Paracortical cells are", "namespace queue"):
        assert held_forms(query, tokens, documents) == {}, query
