"""A query word no passage holds, held with two neighbouring letters swapped, is looked up as meant in keyword search
(``keyword.swapped_forms``): 'defualt' and 'prevnet … caffiene' were left out, and the query's other words alone
ranked other notes first. The spelling note still names the word and what it was taken for."""
from __future__ import annotations

import pytest

from search.query.keyword import swapped_forms
from tests.conftest import built_once, engine_in, ingest, write_tree

NOTES = {
    "rails/remove-the-default-value-on-a-column.md": "# Remove The Default Value On A Column\n\n"
    "`change_column_default :users, :admin, from: false, to: nil` drops a column's default.\n",
    "rails/remove-a-column-value-in-rails.md": "# Remove A Column Value In Rails\n\nTo remove a value from a rails "
    "column, set the column to nil: a rails update removes the column value.\n",
    "mac/prevent-sleep-with-caffeinate.md": "# Prevent Sleep With Caffeinate\n\nRun `caffeinate -d` so the Mac does "
    "not go to sleep.\n",
    "mac/sleep-timer-on-my-mac.md": "# Sleep Timer On My Mac\n\nMy Mac goes to sleep after ten minutes: going to "
    "sleep sooner is set in the Mac's battery settings.\n",
    "ops/backup.md": "# Nightly backups\n\nThe backup job runs every night.\n",
}


def keyword_only(folder):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SIFT_EMBEDDINGS", "off")
        ingest(write_tree(folder / "notes", NOTES), "notes")


@pytest.fixture(scope="module")
def vault(tmp_path_factory, model_path):
    return built_once(tmp_path_factory, model_path, keyword_only)


@pytest.fixture(params=["postings", "fts5"])
def engine(request, vault, model_path, embedder, monkeypatch):
    return engine_in(vault, model_path, embedder, monkeypatch, postings=request.param == "postings")


def paths(answer) -> list[str]:
    return list(dict.fromkeys(hit.path for hit in answer.hits))


def test_a_word_with_two_letters_swapped_is_searched_as_meant(engine):
    answer = engine.search("how to remove the defualt value on a rails column", mode="keyword")
    assert paths(answer)[0] == "rails/remove-the-default-value-on-a-column.md", paths(answer)
    assert answer.unmatched == [{"word": "defualt", "suggestion": "default"}], "still named, with what was meant"
    assert "**Default**" in answer.hits[0].snippet or "**default**" in answer.hits[0].snippet, answer.hits[0].snippet
    answer = engine.search("how do i prevnet my mac from going to sleep with caffiene", mode="keyword")
    assert paths(answer)[0] == "mac/prevent-sleep-with-caffeinate.md", paths(answer)
    assert [u["word"] for u in answer.unmatched] == ["prevnet", "caffiene"]


def test_a_query_of_misspelled_words_alone_still_finds_nothing(engine):
    """Nothing else of the query is held: the empty answer and the note's 'did you mean' stand (test_spelling's)."""
    answer = engine.search("defualt", mode="keyword")
    assert answer.hits == [] and answer.unmatched == [{"word": "defualt", "suggestion": "default"}]


def test_which_words_are_looked_up_swapped():
    held = {"default": 9, "prevent": 3, "caffein": 2, "rail": 4, "column": 5, "imms": 1, "mims": 0, "ricerca": 2}
    stem = {"caffeine": "caffein", "rails": "rail"}
    tokens = lambda words: [(stem.get(w, w),) for w in words]  # noqa: E731
    documents = lambda t: held.get(t, 0)  # noqa: E731
    assert swapped_forms("remove the defualt rails column", tokens, documents) == {"defualt": ["default"]}
    assert swapped_forms("prevnet caffiene rails", tokens, documents) == {"prevnet": ["prevent"],
                                                                          "caffiene": ["caffeine"]}
    assert swapped_forms("defualt prevnet", tokens, documents) == {}, "no other word held"
    assert swapped_forms('"defualt" rails', tokens, documents, quoted={"defualt"}) == {}, "quoted: as typed"
    assert swapped_forms("mims rails", tokens, documents) == {}, "too short: a name as often as a slip"
    assert swapped_forms("ricecra rails", tokens, documents, held={"ricecra": ["ricerca"]}) == {}, "found already"
    assert swapped_forms("deflaut rails", tokens, documents) == {}, "two swaps away: no swap is held"
