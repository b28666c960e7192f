"""A keyword search whose words are all in half of the passages or more ranks by none of them: BM25 gives such a
word an IDF of 1e-6 (FTS5's floor). The engine says so in a note, and hybrid search ranks by meaning alone then
(search.query.keyword.weightless)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.query.engine import Engine
from tests.conftest import ingest, write_tree

NOTES = {
    "macros.md": "# Macros\n\nIn vim, record a macro with q and replay it with @; vim macros repeat edits.\n",
    "registers.md": "# Registers\n\nVim keeps yanked text in registers; the unnamed register is the default.\n",
    "folds.md": "# Folds\n\nvim vim vim: folds.\n",
    "spell.md": "# Spelling\n\nVim checks spelling with :set spell, and ]s jumps to the next misspelled word in "
                "the buffer; zg adds a word to the list of good words.\n",
    "windows.md": "# Windows\n\nSplit the vim window with :split or :vsplit and move between windows.\n",
}
UNRANKED = "'vim' is in half of the passages or more, which says nothing about which passage is meant: "


@pytest.fixture(params=["postings", "fts5"])
def engine(request, immediate, tmp_path, embedder):
    """Notes about vim, every one of which says 'vim'; keyword search from the postings in memory, and from FTS5."""
    ingest(write_tree(tmp_path / "notes", NOTES))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder,
                    keyword_postings=request.param == "postings")
    engine.warm()
    return engine


def test_a_keyword_search_by_words_in_most_passages_says_it_has_no_ranking(engine):
    """Every passage came back at a score that reads as 0, in an order that says nothing, and nothing said so."""
    answer = engine.search("Vim", mode="keyword")
    assert len(answer.hits) == len(NOTES) and all(h.score < 1e-4 for h in answer.hits)
    assert answer.notes == [UNRANKED.replace("'vim'", "'Vim'") + "the results carry no keyword ranking"], "as typed"
    two = engine.search("the vim", mode="keyword")
    assert two.notes == ["'the' and 'vim' are each in half of the passages or more, which says nothing about which "
                         "passage is meant: the results carry no keyword ranking"]


def test_a_word_that_ranks_or_is_missing_is_not_named(engine):
    assert engine.search("vim macros", mode="keyword").notes == [], "'macros' ranks"
    assert engine.search("vim kubernetes", mode="keyword").notes == [
        UNRANKED + "the results carry no keyword ranking", "no passage contains 'kubernetes'"]
    assert engine.search("kubernetes", mode="keyword").notes == ["no passage contains 'kubernetes'"]


def test_a_hybrid_search_by_such_words_ranks_by_meaning_alone(engine):
    """Fusion scales each ranking to 0..1: the keyword scores, millionths apart, counted as much as the meaning
    and reordered the passages (by how often each repeats 'vim' for its length)."""
    answer = engine.search("vim", mode="hybrid")
    assert answer.notes == [UNRANKED + "results are by meaning only, scored by similarity as in mode 'semantic'"]
    semantic = engine.search("vim", mode="semantic")
    assert [h.chunk_id for h in answer.hits] == [h.chunk_id for h in semantic.hits]
    assert all(h.keyword_rank is None for h in answer.hits)
