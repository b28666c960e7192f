"""similar over several collections, as an assistant calls it over the real MCP stdio client: narrowed to a
collection, a folder or a kind (a personal note's neighbours were the user's code tests, and nothing narrowed
them), and never the file asked about, or a file twice, when one collection's root holds another's."""
from __future__ import annotations

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text

NOTES = {
    "music/guitar.md": "# Guitar practice\n\nChords G, C, D and Em; the F barre chord slowly. Strumming on the stage.\n",
    "music/piano.md": "# Piano lessons\n\nScales and chords on the piano keyboard, practised slowly every evening.\n",
    "food/pasta.md": "# Pasta\n\nBoil water, add salt, cook the spaghetti for nine minutes.\n",
}
CODE = {
    "chords.py": "def guitar_chords():\n    \"\"\"The guitar chords G, C, D and Em, and the F barre chord.\"\"\"\n"
                 "    return ['G', 'C', 'D', 'Em', 'F']\n",
    "boil.py": "def boil_pasta(minutes=9):\n    \"\"\"Cook the spaghetti in salted water.\"\"\"\n    return minutes\n",
}


def paths(result) -> list[str]:
    return [hit["path"] for hit in result.structured_content["results"]]


def test_similar_keeps_to_the_collection_folder_or_kind_asked(immediate, tmp_path, sift_env, servers):
    ingest(write_tree(tmp_path / "notes", NOTES), "notes")
    ingest(write_tree(tmp_path / "code", CODE), "code")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "similar", path="notes/music/guitar.md", limit=5),
                    await call(s, "similar", path="notes/music/guitar.md", collection="notes", limit=5),
                    await call(s, "similar", path="notes/music/guitar.md", kind="code", limit=5),
                    await call(s, "similar", path="notes/music/guitar.md", path_prefix="notes/food", limit=5),
                    await call(s, "similar", path="notes/music/guitar.md", glob="*.py", limit=5),
                    await call(s, "similar", path="notes/music/guitar.md", collection="nope"))
    everywhere, notes, code, folder, globbed, unknown = run(scenario)
    assert {p.split("/")[0] for p in paths(everywhere)} == {"notes", "code"}, text(everywhere)
    assert paths(notes) and all(p.startswith("notes/") for p in paths(notes)), text(notes)
    assert paths(notes)[0] == "notes/music/piano.md", text(notes)
    assert sorted(paths(code)) == ["code/boil.py", "code/chords.py"], text(code)
    assert paths(folder) == ["notes/food/pasta.md"], text(folder)
    assert "read as" not in text(folder), "'notes/food' is read as the paths show it: no note says so"
    assert sorted(paths(globbed)) == ["code/boil.py", "code/chords.py"], text(globbed)
    assert unknown.is_error and "no collection named 'nope'; collections: code, notes" in text(unknown)


def test_similar_never_gives_the_file_asked_about_through_an_outer_collection(immediate, tmp_path, sift_env,
                                                                               servers):
    """A folder registered after a collection inside it holds that collection's files too (search shows their
    passages twice, as registering it said). similar on notes/music/guitar.md gave all/notes/music/guitar.md
    first, score 1.0, as the nearest 'other file', and every other file twice."""
    home = tmp_path / "home"
    inner = write_tree(home / "notes", NOTES)
    write_tree(home / "misc", {"garden.md": "# Garden\n\nWater the tomatoes and the basil in the morning.\n"})
    ingest(inner, "notes")
    ingest(home, "all")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "similar", path="notes/music/guitar.md", limit=10),
                    await call(s, "similar", path="all/notes/music/guitar.md", limit=10),
                    await call(s, "similar", path="notes/music/guitar.md", collection="all", limit=10))
    inner_asked, outer_asked, outer_only = run(scenario)
    others = ["food/pasta.md", "music/piano.md"]
    for result in (inner_asked, outer_asked):
        found = paths(result)
        assert not any(p.endswith("music/guitar.md") for p in found), text(result)
        assert sorted(p.removeprefix("all/").removeprefix("notes/") for p in found if "misc/" not in p) == others, \
            text(result)
        assert sorted(p for p in found if not p.startswith("all/misc/")) == [f"notes/{p}" for p in others], \
            "each twin shown as the innermost collection has it"
        assert "all/misc/garden.md" in found
    assert sorted(paths(outer_only)) == ["all/misc/garden.md"] + [f"all/notes/{p}" for p in others], \
        text(outer_only)
