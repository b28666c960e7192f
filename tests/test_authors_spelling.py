"""The spelling note of a search naming a writer by another form of the recorded name ('Robert Smith' for the notes
recorded as Bob Smith's).

The spelling note leaves out the words of such a name (authors.names_read_out), and looked the keyword step's forms
up by the text without them, which they were not saved by: 'notes by Robert Smith about huancun' said "no passage
contains 'huancun'" and not that it was searched as 缓存, and a word two slips away lost its 'did you mean'. Now the
note says what it says for the name as recorded."""
from __future__ import annotations

import pytest

from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures

NOTES = {
    "smith.md": "---\nauthor: Bob Smith\n---\n# Rollout\n\nThe deployment of the harbour service, its 缓存 cleared.\n",
    "lee.md": "---\nauthor: Anna Lee\n---\n# Mill\n\nThe deployment of the mill, its 缓存 kept.\n",
    "ferry.md": "# Ferry\n\nThe ferry timetable.\n",
}


def _build(folder):
    build_notes(folder, NOTES)


@pytest.mark.parametrize("about", ["huancun", "dpeloymnet"])  # pinyin; two slips from 'deployment'
def test_a_writer_named_by_another_form_keeps_the_spelling_note(engine, about):
    """As for 'Bob Smith', the name recorded: the word read as pinyin is said so and not named as held nowhere, the
    word two slips away gets the word keyword search found for it; 'Robert' is not named either."""
    recorded = engine.search(f"notes by Bob Smith about {about}", mode="keyword")
    answer = engine.search(f"notes by Robert Smith about {about}", mode="keyword")
    assert [hit.path for hit in answer.hits][:1] == ["smith.md"], answer.notes
    assert answer.unmatched == recorded.unmatched, answer.notes
    said = [n for n in answer.notes if about in n]
    assert said == [n for n in recorded.notes if about in n] and said, (answer.notes, recorded.notes)
    assert not any("Robert" in n for n in answer.notes), answer.notes
    if about == "huancun":
        assert answer.unmatched == [] and "'huancun' read as pinyin: also searched as 缓存" in said, answer.notes
    else:
        assert answer.unmatched == [{"word": "dpeloymnet", "suggestion": "deployment"}], answer.notes


@pytest.mark.parametrize("query, author", [("deploymnet by Robert Smith", None), ("deploymnet by Robert Smith",
                                                                                   "Robert Smith")])
def test_a_name_read_as_a_person_and_by_are_no_missing_words(engine, query, author):
    """'deploymnet by Robert Smith' named 'by' and 'Robert' as words no passage holds, beside the slip: 'by' says
    nothing of what is sought, and Robert Smith is a writer the index knows (recorded as Bob Smith), asked after
    'by' or by the author filter. Only the slip is named now, and his note comes first."""
    from search.query.filters import Filters
    answer = engine.search(query, mode="keyword", filters=Filters(author=author) if author else None)
    assert [hit.path for hit in answer.hits][:1] == ["smith.md"], answer.notes
    assert answer.unmatched == [{"word": "deploymnet", "suggestion": "deployment"}], answer.notes
    assert not any("'by'" in n or "Robert" in n for n in answer.notes), answer.notes
