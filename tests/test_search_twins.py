"""A file reached through two collections (a root inside another's) is one hit of search, under the innermost
collection, saying the other path: it was two hits at the same score, taking two of the page's places."""
from __future__ import annotations

from tests.conftest import ingest, run_ingest, write_tree
from tests.test_mcp_server import call, run, text

NOTES = {"x.md": "# Kayak\n\nThe kayak paddle is stored in the garage rafters.\n",
         "y.md": "# Bike\n\nThe bike pump lives beside the kayak paddle hook.\n"}


def test_search_shows_a_file_of_two_collections_once_and_names_the_other(immediate, tmp_path, sift_env, servers):
    home = tmp_path / "home"
    write_tree(home / "personal", NOTES)
    write_tree(home / "misc", {"z.md": "# Canoe\n\nA canoe paddle is longer than a kayak paddle.\n",
                               **{f"other{i}.md": f"# Other {i}\n\nGroceries and errands for week {i}.\n"
                                  for i in range(6)}})
    ingest(home / "personal", "personal")
    ingest(home, "all")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return (await call(s, "search", query="kayak paddle", mode="keyword"),
                    await call(s, "search", query="kayak paddle", mode="keyword", collection="all"))
    both, outer = run(scenario)
    results = both.structured_content["results"]
    assert [r["path"] for r in results if "z.md" not in r["path"]] in (
        ["personal/x.md", "personal/y.md"], ["personal/y.md", "personal/x.md"]), text(both)
    assert "all/misc/z.md" in [r["path"] for r in results], text(both)
    also = {r["path"]: r.get("also_in") for r in results}
    assert also == {"personal/x.md": ["all/personal/x.md"], "personal/y.md": ["all/personal/y.md"],
                    "all/misc/z.md": None}, also
    assert "(the same file as all/personal/x.md)" in text(both), text(both)
    # limited to the outer collection, its own paths, and nothing to tell apart
    assert sorted(r["path"] for r in outer.structured_content["results"]) == [
        "all/misc/z.md", "all/personal/x.md", "all/personal/y.md"], text(outer)
    assert all("also_in" not in r for r in outer.structured_content["results"]), text(outer)


def test_ingest_search_names_the_other_paths_of_a_file_as_the_tool_does(immediate, tmp_path, sift_env):
    """The MCP text said "(the same file as all/personal/x.md)" under such a hit; ingest search's text said
    nothing, as if the file were in one collection only."""
    home = tmp_path / "home"
    write_tree(home / "personal", NOTES)
    write_tree(home / "misc", {f"other{i}.md": f"# Other {i}\n\nGroceries and errands for week {i}.\n" for i in range(6)})
    ingest(home / "personal", "personal")
    ingest(home, "all")
    found = run_ingest(sift_env, "search", "kayak paddle", "--mode", "keyword")
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    at = next(n for n, line in enumerate(lines) if line.split()[1:2] and line.split()[1].startswith("personal/x.md"))
    assert "    (the same file as all/personal/x.md)" in lines[at + 1:at + 4], found.stdout
    assert found.stdout.count("(the same file as") == 2, found.stdout  # x.md and y.md, each once
