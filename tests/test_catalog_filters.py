"""The in-memory filters of search (keyword postings and vectors share a Catalog's masks): a folder or a glob
narrowed by its literal text (filters.glob_literals, as list_files narrows them in SQL) before the Python
comparison, with the same files kept as the comparison alone keeps."""
from __future__ import annotations

import numpy as np

from search.query import catalog
from search.query.filters import Filters, glob_matcher, in_folder
from tests.test_listing_glob import PATTERNS, TRICKY, nfd

FOLDERS = ["tech", "tech/deep", "tec", "src", "Keys", "résumés", nfd("résumés"), "a b", ".hidden", "x", "tech.md",
           "area-1", "new", "odd[1].md"]
FOUR_HUNDRED = [f"area-{i % 9}/note-{i:04d}.md" for i in range(385)] + [f"tech/t{i}.md" for i in range(10)] + \
    [nfd(f"café-{i}/note.md") for i in range(5)]


def of(paths: list[str]) -> catalog.Catalog:
    """A catalog of one chunk per path."""
    files = [("notes", path, "note", 0.0) for path in paths]
    return catalog.Catalog(np.arange(len(paths), dtype=np.int64), np.arange(len(paths), dtype=np.int32), files)


def kept(held: catalog.Catalog, filters: Filters) -> list[str]:
    return [path for path, keep in zip(held.paths, held.mask(filters)) if keep]


def test_a_glob_or_a_folder_keeps_what_the_python_comparison_alone_keeps():
    paths = TRICKY + FOUR_HUNDRED
    held = of(paths)
    for glob in PATTERNS + ["area-1/*", "**/note-0*", "*-1.md", "note-*1234*"]:
        assert kept(held, Filters(glob=glob)) == [p for p in paths if glob_matcher(glob)(p)], glob
    for folder in FOLDERS:
        assert kept(held, Filters(path_prefix=folder)) == [p for p in paths if in_folder(p, folder)], folder
    assert kept(held, Filters(path_prefix="tech", glob="*.md")) == \
        [p for p in paths if in_folder(p, "tech") and glob_matcher("*.md")(p)]


def test_the_python_comparison_sees_only_the_paths_the_literal_text_allows(monkeypatch):
    """Over 400 paths, 10 in tech/ and 5 named in NFD: the glob's match and the folder's comparison were called on
    every path (317 / 75 ms for the first search with a new filter at 200,000 files); now on the ASCII paths that
    hold the pattern's text where it says (or begin with the folder) and on the others (read in NFC)."""
    looked_at = _count_python_matches(catalog, monkeypatch)
    held = of(FOUR_HUNDRED)
    assert kept(held, Filters(glob="tech/**/*.md")) == [f"tech/t{i}.md" for i in range(10)]
    assert len(looked_at) == 15, f"{len(looked_at)} paths matched in Python for 10 kept"
    looked_at.clear()
    assert kept(held, Filters(path_prefix="tech")) == [f"tech/t{i}.md" for i in range(10)]
    assert len(looked_at) == 15, f"{len(looked_at)} paths compared in Python for 10 kept"
    looked_at.clear()
    assert len(kept(held, Filters(glob="**/note-*12*.md"))) == 14  # 0012, 0112, 0120 … 0129, 0212, 0312
    assert len(looked_at) == 14 + 5, f"{len(looked_at)} paths matched in Python for 14 kept"


def test_keyword_search_from_fts5_matches_in_python_only_the_passages_the_literal_text_allows(
        immediate, tmp_path, monkeypatch):
    """While the postings are read, FTS5 answers keyword searches, filtered in SQL (Filters.sql): the glob's match
    and the folder's comparison were called on every passage FTS5 found ('invoice': 112,000 at 200,000 chunks);
    now, as list_files (filters.path_match), only on those whose path holds the literal text, and on the others."""
    import os
    from pathlib import Path

    from search.query import filters
    from search.query.engine import Engine
    from tests.conftest import ingest_keyword_only, write_tree
    notes = {path: f"# Note {i}\n\nAn invoice for the contract.\n" for i, path in enumerate(FOUR_HUNDRED[::5])}
    ingest_keyword_only(write_tree(tmp_path / "notes", notes))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", keyword_postings=False)
    looked_at = _count_python_matches(filters, monkeypatch)
    tech = sorted(p for p in notes if p.startswith("tech/"))
    for given in ({"glob": "tech/*.md"}, {"path_prefix": "tech"}):
        looked_at.clear()
        answer = engine.search("invoice", limit=50, mode="keyword", filters=Filters(**given))
        assert sorted(hit.path for hit in answer.hits) == tech, given
        assert len(set(looked_at)) == len(tech) + 1, f"{len(set(looked_at))} paths matched in Python ({given})"


def _count_python_matches(module, monkeypatch) -> list[str]:
    """The paths given to ``module``'s glob match and folder comparison, as they are called (a list filled in)."""
    looked_at = []
    real_glob, real_folder = module.glob_matcher, module.in_folder

    def counting_glob(glob):
        match = real_glob(glob)
        return lambda path: looked_at.append(path) or match(path)

    def counting_folder(path, folder):
        looked_at.append(path)
        return real_folder(path, folder)
    monkeypatch.setattr(module, "glob_matcher", counting_glob)
    monkeypatch.setattr(module, "in_folder", counting_folder)
    return looked_at
