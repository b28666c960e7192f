"""A folder filter matches the same files in every search path, whichever Unicode normal form the filter and the
names on disk are in: keyword from the postings in memory, keyword from FTS5, and semantic (search.query.filters)."""
from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from search.query.engine import Engine, from_settings
from search.query.filters import Filters
from search.settings import load
from tests.conftest import ingest, write_tree

CAFE_NFC, CAFE_NFD = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
CV_NFC = unicodedata.normalize("NFC", "résumé")
TEXT = "# Croissant\n\nA croissant and a coffee at the corner bakery every morning.\n"
FILES = {  # folders named as different systems wrote them, one path in both forms at once
    f"{CAFE_NFC}/menu.md": TEXT,
    f"{CAFE_NFD}/carte.md": TEXT,
    f"{CAFE_NFD}/{CV_NFC}/cv.md": TEXT,
    "cafeteria/lunch.md": TEXT,
    f"other/{CAFE_NFC}.md": TEXT,
}
IN_CAFE = {f"{CAFE_NFC}/menu.md", f"{CAFE_NFD}/carte.md", f"{CAFE_NFD}/{CV_NFC}/cv.md"}
IN_CV = {f"{CAFE_NFD}/{CV_NFC}/cv.md"}


@pytest.fixture
def engines(immediate, tmp_path):
    ingest(write_tree(tmp_path / "notes", FILES))
    index = Path(os.environ["SIFT_HOME"]) / "index.db"
    held = Engine(index)
    held.warm()  # the keyword postings are read into memory
    assert held._postings is not None, "the postings answer, not FTS5"
    semantic = from_settings(load())
    return {"keyword from postings": (held, "keyword"),
            "keyword from FTS5": (Engine(index, keyword_postings=False), "keyword"),
            "semantic": (semantic, "semantic")}


@pytest.mark.parametrize("folder, want", [
    (CAFE_NFC, IN_CAFE), (CAFE_NFD, IN_CAFE), (CAFE_NFC + "/", IN_CAFE), (CAFE_NFD + "/", IN_CAFE),
    (f"{CAFE_NFC}/{CV_NFC}", IN_CV), (unicodedata.normalize("NFD", f"{CAFE_NFC}/{CV_NFC}"), IN_CV),
    (f"{CAFE_NFD}/{CV_NFC}/", IN_CV),
], ids=["nfc", "nfd", "nfc/", "nfd/", "nested-nfc", "nested-nfd", "nested-as-on-disk"])
def test_a_folder_filter_finds_the_same_files_in_every_search_path(engines, folder, want):
    found = {}
    for name, (engine, mode) in engines.items():
        answer = engine.search("croissant", mode=mode, limit=20, filters=Filters(path_prefix=folder))
        found[name] = {hit.path for hit in answer.hits}
    assert found == dict.fromkeys(engines, want)
