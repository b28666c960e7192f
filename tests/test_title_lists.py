"""A list of notes' titles without links (an index note of plain '- Title' lines) comes after the notes it names that
a search finds, as a list of links does (search/query/lists.py); a list of short lines naming no note stays."""
from __future__ import annotations

import pytest

from search.query import lists
from tests.conftest import built_once, ingest, write_tree
from tests.test_swapped_letters import engine, paths  # noqa: F401 (engine: a fixture, over this module's vault)

MAC = {
    "Prevent Sleep With Caffeinate.md": "# Prevent Sleep With Caffeinate\n\nRun `caffeinate -d -i` in a terminal "
    "while a long job runs.\n",
    "resize-windows-from-the-keyboard.md": "# Resize Windows From The Keyboard\n\nRectangle gives each half a "
    "shortcut.\n",
    "Show Hidden Files In Finder.md": "# Show Hidden Files In Finder\n\nPress Cmd-Shift-. in a window.\n",
    "Lock The Screen Quickly.md": "# Lock The Screen Quickly\n\nCtrl-Cmd-Q locks it at once.\n",
    "Keep Downloads Going Overnight.md": "# Keep Downloads Going Overnight\n\nAmphetamine holds it off while a "
    "download runs.\n",
}
INDEX = ("# Mac index\n\n- Prevent Sleep With Caffeinate\n- Resize Windows From The Keyboard\n"
         "- Show Hidden Files In Finder\n- Lock The Screen Quickly\n- Keep Downloads Going Overnight\n")
FINDER = ("# Finder search scope\n\nThe scopes Finder offers:\n\n- Search This Mac\n- Search The Current Folder\n"
          "- Search The Previous Scope\n")
NOTES = {**MAC, "Mac index.md": INDEX, "Finder search scope.md": FINDER,
         "Finder tags.md": "# Finder tags\n\nTags colour a file in Finder; search by one in the sidebar.\n"}


def keyword_only(folder):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SIFT_EMBEDDINGS", "off")
        ingest(write_tree(folder / "notes", NOTES), "notes")


@pytest.fixture(scope="module")
def vault(tmp_path_factory, model_path):
    return built_once(tmp_path_factory, model_path, keyword_only)


def test_plain_lines_are_names_and_prose_is_not():
    names = lists.title_names(INDEX)
    assert {"prevent sleep with caffeinate", "resize-windows-from-the-keyboard"} <= names
    assert lists.title_names("# Notes\n\nI ran caffeinate again today and the screen still locked after a while, "
                             "so I wrote down what the settings say about it.\n- one\n- two\n") is None
    assert lists.title_names("- [Dune](Dune.md)\n- [Emma](Emma.md)\n- [Ulysses](Ulysses.md)\n") is None  # links


def test_a_list_of_titles_comes_after_the_notes_it_names(engine):
    """Each word of the question is in one title: the index holding them all ranked first."""
    answer = engine.search("prevent sleep, resize windows, show hidden files, lock the screen quickly", mode="keyword")
    found = paths(answer)
    assert found[0] != "Mac index.md", found
    assert found.index("Mac index.md") > found.index("Lock The Screen Quickly.md"), found
    assert any("list of links" in note for note in answer.notes)


def test_a_list_naming_no_note_and_the_list_asked_for_stay_first(engine):
    answer = engine.search("finder search scope this mac current folder previous", mode="keyword")
    assert paths(answer)[0] == "Finder search scope.md", paths(answer)
    assert paths(engine.search("my mac index", mode="keyword"))[0] == "Mac index.md"


def test_which_notes_do_i_have_about_a_subject_keeps_its_index_first(engine):
    """'which notes do I have about mac' was searched by 'which', 'notes', 'have' too, so the index naming the subject
    in its title did not count as asked for, and came after every note it lists; it is the request 'my notes about
    mac' makes, whose framing was left out already."""
    asked = paths(engine.search("which notes do I have about mac", mode="keyword"))
    assert asked[0] == "Mac index.md", asked
    assert asked == paths(engine.search("my notes about mac", mode="keyword"))
