"""list_files paged by offset while the index changes, over the real MCP stdio client: an offset counts the files
as they stand at each call, so a note indexed between two pages made the next page repeat files of the last one
(newest first, it sorts first), and a file removed made it leave one out, with nothing said. An offset the server
gave as next_offset now goes on after the file the page before showed last, and says the listing changed."""
from __future__ import annotations

import os

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text

START = 1_700_000_000  # the notes' modified times, one a minute, so that newest first is one order


def notes(root, names: list[str], first: int):
    write_tree(root, {name: f"# {name}\n\nA note called {name}.\n" for name in names})
    for n, name in enumerate(names):
        os.utime(root / name, (START + 60 * (first + n),) * 2)


def paths(result) -> list[str]:
    return [f["path"] for f in result.structured_content["files"]]


def indexed(tmp_path, count: int):
    """``count`` notes, old-00.md the oldest, indexed as collection 'notes'; their folder."""
    root = tmp_path / "notes"
    notes(root, [f"old-{n:02}.md" for n in range(count)], 0)
    ingest(root, "notes")
    return root


def test_a_page_after_files_were_indexed_goes_on_after_the_last_one_shown(immediate, tmp_path, sift_env, servers):
    root = indexed(tmp_path, 12)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            first = await call(s, "list_files", collection="notes", limit=5)
            notes(root, ["new-a.md", "new-b.md", "new-c.md"], 100)  # newer than all: they sort first
            ingest(root, "notes")
            second = await call(s, "list_files", collection="notes", limit=5, offset=first.structured_content[
                "next_offset"])
            (root / "old-11.md").unlink()  # shown on the first page and on the second: from offset 13 of the
            (root / "old-05.md").unlink()  # 13 left, the last two would never be shown
            ingest(root, "notes")
            third = await call(s, "list_files", collection="notes", limit=5,
                               offset=second.structured_content["next_offset"])
            return first, second, third
    first, second, third = run(scenario)
    newest_first = [f"notes/old-{n:02}.md" for n in range(11, -1, -1)]
    assert paths(first) == newest_first[:5]
    assert paths(second) == newest_first[5:10], text(second)
    assert "the listing changed since offset=5 was given" in text(second), text(second)
    assert "goes on after notes/old-07.md, the last file shown before, now at offset 8" in text(second)
    assert second.structured_content["total"] == 15 and second.structured_content["next_offset"] == 13
    assert "showing 9-13" in text(second)
    assert paths(third) == ["notes/old-01.md", "notes/old-00.md"], text(third)
    assert "note: the listing changed since offset=13 was given" in text(third)


def test_a_page_of_an_unchanged_listing_is_the_plain_offset(immediate, tmp_path, sift_env, servers):
    indexed(tmp_path, 7)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            first = await call(s, "list_files", collection="notes", limit=3)
            second = await call(s, "list_files", collection="notes", limit=3, offset=3)
            third = await call(s, "list_files", collection="notes", limit=3, offset=6)
            return first, second, third
    first, second, third = run(scenario)
    shown = paths(first) + paths(second) + paths(third)
    assert shown == [f"notes/old-{n:02}.md" for n in range(6, -1, -1)]
    assert "note:" not in text(second) + text(third) and second.structured_content["next_offset"] == 6
    assert "next_offset" not in third.structured_content


def test_a_page_of_the_largest_limit_is_whole_after_a_remembered_offset(immediate, tmp_path, sift_env, servers,
                                                                         monkeypatch):
    """The page after a remembered next_offset was listed from one file before it, with one file more, to see
    that nothing moved: at the largest limit (500) there was no room for that file, and the page held 499."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")  # a thousand notes' listing: their meaning is not asked
    sift_env = {**sift_env, "SIFT_EMBEDDINGS": "off"}
    root = tmp_path / "notes"
    write_tree(root, {f"n-{n:04}.md": f"# Note {n}\n\nline\n" for n in range(1002)})
    ingest(root, "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            first = await call(s, "list_files", collection="notes", limit=500, sort="path")
            second = await call(s, "list_files", collection="notes", limit=500, sort="path",
                                offset=first.structured_content["next_offset"])
            return first, second
    first, second = run(scenario)
    assert paths(first)[-1] == "notes/n-0499.md"
    assert len(paths(second)) == 500 and paths(second)[0] == "notes/n-0500.md", text(second)
    assert second.structured_content["next_offset"] == 1000 and "note:" not in text(second)
