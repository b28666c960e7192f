"""A passage that is mostly a list of links to other notes (an index note, a README's table of contents, a reading
list) comes after the notes it links to that a search finds (search/query/lists.py); a question about the list
itself still finds it first."""
from __future__ import annotations

import pytest

from search.query import lists
from tests.conftest import engine_in, tree_built_once

MAC = {
    "mac/prevent-sleep-with-caffeinate.md": "# Prevent Sleep With Caffeinate\n\nRun `caffeinate -d -i` in a "
    "terminal: the display and the machine stay awake until you press Ctrl-C, or for a time with `-t 3600`.\n",
    "mac/resize-windows-from-the-keyboard.md": "# Resize Windows From The Keyboard\n\nRectangle gives each half of "
    "the screen a shortcut.\n",
    "mac/show-hidden-files-in-finder.md": "# Show Hidden Files In Finder\n\nPress Cmd-Shift-. in a Finder window.\n",
    "mac/take-a-screenshot-of-one-window.md": "# Take A Screenshot Of One Window\n\nCmd-Shift-4, then space, then "
    "click the window.\n",
    "mac/keep-the-mac-awake-while-downloading.md": "# Keep The Mac Awake While Downloading\n\nAmphetamine's "
    "trigger holds off sleep while a download runs.\n",
    "mac/lock-the-screen-quickly.md": "# Lock The Screen Quickly\n\nCtrl-Cmd-Q locks the Mac at once.\n",
    "git/undo-the-last-commit.md": "# Undo The Last Commit\n\n`git reset --soft HEAD~1` keeps the changes staged.\n",
}
INDEX = "# My notes\n\n## Mac\n\n" + "".join(
    f"- [{text.splitlines()[0][2:]}]({path})\n" for path, text in MAC.items() if path.startswith("mac/")) + \
    "\n## Git\n\n- [Undo The Last Commit](git/undo-the-last-commit.md)\n"
BOOKS = {
    "books/Dune.md": "# Dune\n\nFinished reading it in March: the spice, the desert, the sandworms.\n",
    "books/The Hobbit.md": "# The Hobbit\n\nReading it aloud took a month of evenings.\n",
    "books/Middlemarch.md": "# Middlemarch\n\nSlow reading, and worth it: Dorothea's marriage.\n",
    "Reading List.md": "# Reading List\n\n- [[Dune]]\n- [[The Hobbit]]\n- [[Middlemarch]]\n- [[Piranesi]]\n",
}
NOTES = {**MAC, "index.md": INDEX, **BOOKS}


@pytest.fixture(scope="module")
def vault(tmp_path_factory, model_path):
    return tree_built_once(tmp_path_factory, model_path, NOTES, "notes")


@pytest.fixture(params=["postings", "fts5"])
def engine(request, vault, model_path, embedder, monkeypatch):
    return engine_in(vault, model_path, embedder, monkeypatch, postings=request.param == "postings")


def paths(answer) -> list[str]:
    return list(dict.fromkeys(hit.path for hit in answer.hits))


def test_a_table_of_contents_is_a_list_of_links_and_a_paragraph_is_not():
    toc = lists.link_targets(INDEX, "index.md")
    assert toc is not None and "mac/prevent-sleep-with-caffeinate.md" in toc[0]
    assert lists.link_targets(BOOKS["Reading List.md"], "Reading List.md") == (set(), {"dune", "the hobbit",
                                                                                      "middlemarch", "piranesi"})
    nested = lists.link_targets("- [A b](../a.md)\n- [C d](/x/c.md)\n- [[sub/E f]]\n", "notes/in/toc.md")
    assert nested == ({"notes/a.md", "x/c.md", "sub/E f"}, set())
    prose = ("I read [the caffeinate note](mac/prevent-sleep-with-caffeinate.md) again today, then [the one on "
             "locking](mac/lock-the-screen-quickly.md), and wrote down why neither helped with the download that "
             "kept stopping overnight, see [Amphetamine](mac/keep-the-mac-awake-while-downloading.md).")
    assert lists.link_targets(prose, "journal.md") is None
    assert lists.link_targets("- [Dune](books/Dune.md)\n- [Emma](books/Emma.md)\n", "toc.md") is None  # two links
    places = [("notes", "toc.md"), ("notes", "books/Dune Messiah.md"), ("notes", "books/Dune.md"),
              ("notes", "books/The Hobbit.md"), ("other", "books/Emma.md"), ("notes", "books/Emma.md")]
    ranked = [(at, 0.0) for at in range(len(places))]
    # a path without its ending, a name in another case; not a longer name, nor a file of another collection
    moved = lists.after_their_notes(ranked, places, {0: ({"books/Dune"}, {"the hobbit"})})
    assert [at for at, _ in moved] == [1, 2, 3, 0, 4, 5]
    assert lists.after_their_notes(ranked, places, {0: (set(), {"emma"})})[-1][0] == 0
    assert lists.after_their_notes(ranked, places, {3: ({"books/Dune.md"}, set())}) == ranked  # ranked above it


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_note_comes_before_the_index_that_lists_it(engine, mode):
    """'caffeinate', 'mac', 'screen' and 'window' are all in the index's list of titles (each title twice, with its
    file name): it ranked first, above the note the question is about, which it links to."""
    answer = engine.search("caffeinate mac screen window", limit=10, mode=mode)
    found = paths(answer)
    assert found.index("mac/prevent-sleep-with-caffeinate.md") < found.index("index.md")
    assert any("list of links" in note for note in answer.notes)
    if mode == "keyword":  # moved, keeping its score: not scored again
        hits = {hit.path: hit.score for hit in answer.hits}
        assert hits["index.md"] > hits["mac/prevent-sleep-with-caffeinate.md"]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_move_is_said_only_where_the_page_shows_it(engine, mode):
    """notes-en's README is one long list of links, and it moved in 37 of bench/assistant_questions.py's 38
    questions: each answer said so, the list mostly off the page, nothing shown out of its order. Said only when
    the list is shown below a passage it outranked, whose score it then outdoes."""
    answer = engine.search("caffeinate mac screen window", limit=1, mode=mode)
    assert len(answer.hits) == 1 and "index.md" not in paths(answer), "the index moved off the page"
    assert not any("list of links" in note for note in answer.notes), answer.notes
    said = engine.search("slow reading", limit=2, mode="keyword")
    assert paths(said) == ["books/Middlemarch.md", "books/Dune.md"] and not any(
        "list of links" in note for note in said.notes), said.notes
    shown = engine.search("slow reading", limit=5, mode="keyword")
    assert any("list of links" in note for note in shown.notes), "shown fourth, below the books it outranked"


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_question_about_the_list_still_finds_the_list(engine, mode):
    """'my reading list' names the list (its title holds two of the three words): it stays first, above the books
    it links to, which say 'reading' (and are nearer in meaning)."""
    assert paths(engine.search("my reading list", limit=5, mode=mode))[0] == "Reading List.md"


def test_the_books_come_before_the_reading_list_that_links_them(engine):
    """'slow reading' is about a book: the list (its title holds 'reading', weighted twice) came second, above Dune
    and The Hobbit, which say 'reading' in their text; it comes after every book of it that is found now."""
    found = paths(engine.search("slow reading", limit=5, mode="keyword"))
    assert found[:3] == ["books/Middlemarch.md", "books/Dune.md", "books/The Hobbit.md"]
    assert found[3] == "Reading List.md"
