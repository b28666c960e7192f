"""One collection among several, as an assistant asks about it over the real MCP stdio client: stats of that
collection alone (stats took no argument, and 'collection' was refused), and a refresh of a collection whose
folder was moved, which said 'queued a re-scan' alone while the scan would find none of its files."""
from __future__ import annotations

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text


def test_stats_of_one_collection(immediate, tmp_path, sift_env, servers):
    ingest(write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n"}), "notes")
    ingest(write_tree(tmp_path / "code", {"x.py": "def x():\n    return 1\n"}), "code")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "stats"), await call(s, "stats", collection="code"),
                    await call(s, "stats", collection="nope"))
    every, code, unknown = run(scenario)
    assert [c["name"] for c in every.structured_content["collections"]] == ["code", "notes"]
    assert [c["name"] for c in code.structured_content["collections"]] == ["code"], text(code)
    assert code.structured_content["collections"][0]["files"] == 1
    assert f"code  {(tmp_path / 'code').resolve()}" in text(code) and "notes  " not in text(code), text(code)
    assert text(code).startswith("model: ") and "\nworker: " in text(code), "the model and worker as ever"
    assert unknown.is_error and "no collection named 'nope'; collections: code, notes" in text(unknown)


def test_refresh_of_a_collection_whose_folder_is_missing_says_so(immediate, tmp_path, sift_env, servers):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"})
    ingest(root, "notes")
    ingest(write_tree(tmp_path / "code", {"x.py": "def x():\n    return 1\n"}), "code")
    moved = root.rename(tmp_path / "notes-moved")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "refresh", collection="notes"), await call(s, "refresh")
    one, both = run(scenario)
    assert not one.is_error and "queued a re-scan of notes" in text(one)
    assert f"note: the folder of notes, {root.resolve()}, is missing: the re-scan finds none of its files" \
        in text(one), text(one)
    assert "`ingest enqueue NEW_FOLDER --name notes` follows it" in text(one)
    assert one.structured_content["folder_missing"] == ["notes"]
    assert both.structured_content["folder_missing"] == ["notes"] and "the folder of code" not in text(both)
    assert moved.exists()


def test_a_folder_that_is_lower_down_is_offered_where_path_prefix_named_it_at_the_root(immediate, tmp_path,
                                                                                        sift_env, servers):
    """path_prefix='tests' in a repository whose tests are in huey/tests: the note said only that there was no
    folder 'tests' and to list the files by path (82 of them) for the folders there are."""
    ingest(write_tree(tmp_path / "code", {"huey/tests/test_api.py": "def test_consumer():\n    pass\n",
                                          "huey/consumer.py": "class Consumer:\n    pass\n"}), "code")
    ingest(write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe consumer runs tasks\n"}), "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "search", query="consumer", path_prefix="tests", mode="keyword"),
                    await call(s, "list_files", collection="code", path_prefix="tests"),
                    await call(s, "search", query="consumer", path_prefix="code/huey/tests", mode="keyword"))
    everywhere, code, meant = run(scenario)
    assert everywhere.structured_content["results"] == []
    assert "there is no folder 'tests' in any collection (code, notes) (did you mean 'code/huey/tests'?)" \
        in text(everywhere), text(everywhere)
    assert "there is no folder 'tests' in collection 'code' (did you mean 'huey/tests'?)" in text(code), text(code)
    assert [r["path"] for r in meant.structured_content["results"]] == ["code/huey/tests/test_api.py"]


def test_a_path_of_a_removed_collection_is_told_the_collection_is_not_there(immediate, tmp_path, sift_env,
                                                                            servers):
    """A path a search gave ('notes/a.md') after `ingest remove notes`, while the server runs: read_file and
    similar said only that no such file was in the indexed folders, as if the file alone were gone."""
    from tests.conftest import run_ingest
    ingest(write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"}), "notes")
    ingest(write_tree(tmp_path / "code", {"x.py": "def x():\n    return 1\n", "lib/y.py": "Y = 2\n"}), "code")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            before = await call(s, "read_file", path="notes/a.md")
            assert run_ingest(sift_env, "remove", "notes").returncode == 0
            return (before, await call(s, "read_file", path="notes/a.md"),
                    await call(s, "similar", path="notes/a.md"), await call(s, "read_file", path="lib/z.py"))
    before, read, similar, folder = run(scenario)
    assert not before.is_error
    for result in (read, similar):
        assert result.is_error and "no file 'notes/a.md' in the indexed folders ('notes' names no collection, " \
            "they are code, nor a folder at their roots)" in text(result), text(result)
    assert folder.is_error and "names no collection" not in text(folder), "lib is a folder of code"
