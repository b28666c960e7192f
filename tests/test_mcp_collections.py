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
