"""A unit of a millionth written as the notes do not: 'umol/L' for a note's µmol/L, 'mcg' for its µg, and the
other way round (search.query.micro_units): each found nothing but the notes typed the same way."""
from __future__ import annotations

import pytest

from search.query.micro_units import micro_forms
from search.query.text import normalise
from tests.conftest import engine_in, tree_built_once

NOTES = {
    "ward/aki.md": "# AKI on CKD\n\nCreatinine 210 µmol/L from a baseline of 140.\n",
    "ward/fentanyl.md": "# Fentanyl\n\nFentanyl 25 μg IV for breakthrough pain.\n",
    "ward/b12.md": "# Vitamin B12\n\nCyanocobalamin 1000 mcg IM monthly.\n",
    "labs/glucose.md": "# Glucose\n\nFasting glucose 5.4 mmol/L; the export writes umol for µmol.\n",
    "misc/garden.md": "# Garden\n\nTomatoes need sun and a stake; beans climb the fence.\n",
    "misc/bike.md": "# Bike\n\nThe chain skips in third gear; new brake pads in spring.\n",
}


@pytest.fixture(scope="module")
def home(tmp_path_factory, model_path):
    return tree_built_once(tmp_path_factory, model_path, NOTES, "micro")


@pytest.fixture(params=["postings", "fts5"])
def engine(request, home, model_path, embedder, monkeypatch):
    return engine_in(home, model_path, embedder, monkeypatch, request.param == "postings")


def test_a_unit_of_a_millionth_has_its_other_forms():
    assert micro_forms(normalise("µmol")) == ["umol"]  # the micro sign, as NFKC folds it
    assert micro_forms("umol") == ["μmol"]
    assert micro_forms("mcg") == ["μg", "ug"]
    assert micro_forms("um") == micro_forms("us") == micro_forms("mol") == micro_forms("mmol") == []


@pytest.mark.parametrize("query, path, shown", [
    ("creatinine umol/L", "ward/aki.md", "**µmol**/L"),
    ("fentanyl 25 mcg", "ward/fentanyl.md", "**μg**"),
    ("cyanocobalamin µg", "ward/b12.md", "**mcg**"),
])
def test_a_unit_typed_another_way_finds_the_note_and_marks_it(engine, query, path, shown):
    hit = next(hit for hit in engine.search(query, mode="keyword").hits if hit.path == path)
    assert shown in hit.snippet  # found by its other words before, its unit unmarked: not as the query writes it


def test_the_unit_typed_without_a_number_finds_each_way_of_writing_it(engine):
    paths = {hit.path for hit in engine.search("µmol", mode="keyword").hits}
    assert paths == {"ward/aki.md", "labs/glucose.md"}
