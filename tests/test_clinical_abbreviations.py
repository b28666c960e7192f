"""A clinical term written out in a query finds the notes that abbreviate it ('hypertension': 'Known HTN'), and
their snippets mark the abbreviation (search.query.clinical_abbreviations): keyword search found only the words as
written, and by meaning the small model put the ward note below others."""
from __future__ import annotations

import pytest

from search.query.clinical_abbreviations import other_forms
from tests.conftest import engine_in, tree_built_once

NOTES = {
    "ward/round.md": "# Ward round\n\nMr K., 64, NSTEMI on admission. Known HTN and T2DM. Old inferior MI in 2019.\n",
    "ward/renal.md": "# Renal\n\nAKI on CKD: creatinine 210 from a baseline of 140.\n",
    "labs/diabetes.md": "# Diabetes clinic\n\nPatient 14 had HbA1c 7.2% in March, down from 8.4%.\n",
    "papers/ukpds.md": "# UKPDS\n\nMetformin in overweight patients reduced deaths from diabetes.\n",
    "misc/garden.md": "# Garden\n\nTomatoes need sun and a stake; beans climb the fence.\n",
    "misc/bike.md": "# Bike\n\nThe chain skips in third gear; new brake pads in spring.\n",
}


@pytest.fixture(scope="module")
def home(tmp_path_factory, model_path):
    return tree_built_once(tmp_path_factory, model_path, NOTES, "clinic")


@pytest.fixture(params=["postings", "fts5"])
def engine(request, home, model_path, embedder, monkeypatch):
    return engine_in(home, model_path, embedder, monkeypatch, request.param == "postings")


def test_a_meaning_written_out_gives_its_abbreviations_the_longest_first():
    assert other_forms("known hypertension") == (("hypertension", ("htn",)),)
    assert other_forms("non-ST elevation myocardial infarction") == (
        ("non st elevation myocardial infarction", ("nstemi",)),)
    assert other_forms("Gastro-oesophageal reflux disease") == (("gastro oesophageal reflux disease", ("gord", "gerd")),)
    assert other_forms("MI") == other_forms("blood pressure") == ()  # not the other way; no BP


@pytest.mark.parametrize("query, path, shown", [
    ("hypertension", "ward/round.md", "**HTN**"),
    ("type 2 diabetes mellitus", "ward/round.md", "**T2DM**"),
    ("acute kidney injury", "ward/renal.md", "**AKI**"),
    ("A1c", "labs/diabetes.md", "**HbA1c**"),  # the lab's way of writing it
])
def test_a_term_written_out_finds_the_note_abbreviating_it(engine, query, path, shown):
    hit = next((hit for hit in engine.search(query, mode="keyword").hits if hit.path == path), None)
    assert hit is not None and shown in hit.snippet  # found by none of its words before
