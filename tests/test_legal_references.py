"""A reference a lawyer searches for as one thing ('Section 12.3(b)', 'VI ZR 123/19') is searched as a phrase too
(search/query/references.py). Its pieces are numbers and single letters, common in a folder of contracts: keyword
search dropped '3' and 'b' as common and ranked every passage saying 'section' and '12' above the mail that writes
'Section 12.3(b)'; '12.3(b)' alone, each of whose words is in half of the passages, ranked by none of them."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.query.engine import Engine
from search.query.references import other_parts, phrases
from tests.conftest import ingest_keyword_only, write_tree

FILES = {
    "mail/markup.txt": "Dear Sarah, we cannot accept the carve-out in Section 12.3(b) of your draft.\n",
    "contracts/sla.txt": "Section 12 Limitation. Section 12.1 caps the fees. Section 12.2 excludes Section 12.1 "
                         "for fraud; Section 12 survives.\n",
    "contracts/nda.txt": "Section 12 Liability. 12.1 Nothing limits liability for fraud.\n",
    # its words apart, more often than the mail writes them: only the reference searched as a phrase puts the mail
    # first (without it this ranked first, for keyword search from postings and from FTS5 alike)
    "contracts/msa.txt": "Section 12.3 caps the fees at the amount in (b); Section 12.3 survives, b.\n",
    "contracts/avv.txt": "§ 7 Haftung. Die Haftung ist nach § 7 Abs. 1 auf 100.000 EUR begrenzt.\n",
    "contracts/kauf.txt": "Absatz 3 gilt entsprechend; die Frist nach Absatz 2 beträgt 7 Tage, mindestens 1 Woche.\n",
    **{f"schedules/s{i}.txt": f"Schedule {i}: table 3 row b, column 3 of part b; annex {i}b.\n" for i in range(6)},
}


def warmed(index: Path, postings: bool) -> Engine:
    """An Engine whose postings are read (``warm``) when it ranks from them: a cold one answers from FTS5 while it
    reads them, so the 'postings' cases searched FTS5 too and held with the postings path's phrase taken out."""
    engine = Engine(index, keyword_postings=postings)
    if postings:
        engine.warm()
    return engine


@pytest.fixture
def home(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    ingest_keyword_only(write_tree(tmp_path / "firm", FILES), "firm")
    return Path(os.environ["SIFT_HOME"]) / "index.db"


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
@pytest.mark.parametrize("query", ["Section 12.3(b)", "12.3(b)"])
def test_a_clause_reference_finds_the_passage_that_writes_it_first(home, postings, query):
    hits = warmed(home, postings).search(query, mode="keyword").hits
    assert hits and hits[0].path == "mail/markup.txt", [h.path for h in hits]


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_statutes_paragraph_written_long_finds_it_written_short(home, postings):
    """'§ 7 Absatz 1' found the passage saying 'Absatz' twice, not the one citing '§ 7 Abs. 1'."""
    hits = warmed(home, postings).search("§ 7 Absatz 1", mode="keyword").hits
    assert hits and hits[0].path == "contracts/avv.txt", [h.path for h in hits]


def test_the_references_of_a_lawyers_queries():
    assert phrases("Section 12.3(b)") == ["12 3 b"]
    assert phrases("§ 5 Abs. 2") == ["5 Abs 2", "5 absatz 2"]
    assert phrases("§ 7 Absatz 1") == ["7 Absatz 1", "7 abs 1"]
    assert phrases("Art. 6 Abs. 1 lit. f DSGVO") == ["Art 6 Abs 1 lit f", "Art 6 absatz 1 buchstabe f"]
    assert phrases("BGH, Urteil vom 12.05.2020 – VI ZR 123/19") == ["12 05 2020", "VI ZR 123 19"]
    assert phrases("[2019] UKSC 12") == ["2019 UKSC 12"]
    assert phrases("which contract caps liability within 30 days") == []
    assert phrases("find the entry with DOI 10.18653/v1/N19-1423") == []  # a DOI is searched whole


def test_a_parts_letter_is_not_read_as_a_part():
    """'lit. s' is the letter s: it was searched as 'satz' too ('Art 6 absatz 1 buchstabe satz'), and the spelling
    note took 's' for a part written short."""
    assert phrases("Art. 6 Abs. 1 lit. s DSGVO") == ["Art 6 Abs 1 lit s", "Art 6 absatz 1 buchstabe s"]
    assert phrases("§ 3 Abs. 2 Nr. s") == ["3 Abs 2 Nr s", "3 absatz 2 nummer s"]
    assert other_parts("Art. 6 Abs. 1 lit. s") == {"abs": "absatz", "lit": "buchstabe"}
    assert phrases("§ 5 Abs. 2 S. 1") == ["5 Abs 2 S 1", "5 absatz 2 satz 1"]  # a part named 'S.' still is one


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_statutes_part_found_written_short_is_not_said_to_be_nowhere(immediate, tmp_path, monkeypatch, postings):
    """'§ 573 Absatz 2' found the lease citing '§ 573 Abs. 2', under 'note: no passage contains 'Absatz'': as if
    the search had failed. A part the passages hold written the other way is not named; a word held nowhere is."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    ingest_keyword_only(write_tree(tmp_path / "leases", {
        "lease.txt": "Die Kündigung richtet sich nach § 573 Abs. 2 BGB.\n",
        "other.txt": "Die Miete ist monatlich im Voraus zu zahlen.\n"}), "leases")
    engine = warmed(Path(os.environ["SIFT_HOME"]) / "index.db", postings)
    found = engine.search("§ 573 Absatz 2", mode="keyword")
    assert found.hits[0].path == "lease.txt" and not any("Absatz" in n for n in found.notes), found.notes
    missing = engine.search("§ 573 Absatz 2 Kaution", mode="keyword")
    assert any("no passage contains 'Kaution'" in n and "Absatz" not in n for n in missing.notes), missing.notes
