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
