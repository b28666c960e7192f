"""While a first build comes in parts (workers.tasks.first_part), a query word no passage read so far holds may be in
a file not read yet: the spelling note says so, and offers a near word as one read so far, not as the fix. It said
"no passage contains 'garnet' (did you mean 'gannet'?)" of a word in a file of the next part."""
from __future__ import annotations

from tests.conftest import write_tree
from tests.test_first_parts import run_jobs, same_time
from tests.test_mcp_server import call, run, text

NOTES = {f"n{i:02}.md": f"# Note {i}\n\nThe gannet number {i} dives at dawn.\n" for i in range(11)}
NOTES["n11.md"] = "# Note 11\n\nThe garnet ring was found on the beach.\n"


def test_a_word_in_a_file_not_read_yet_is_not_called_a_typo(sift_env, tmp_path, monkeypatch, servers):
    from search.index import collection_reads, progress_reads, store
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = same_time(write_tree(tmp_path / "notes", NOTES))
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            partial = await call(s, "search", query="garnet", mode="keyword")
            run_jobs(huey)  # the other parts: the word is found, and a typo is a typo again
            return (partial, await call(s, "search", query="garnet", mode="keyword"),
                    await call(s, "search", query="gannnet", mode="keyword"))
    partial, found, typo = run(scenario)
    said = text(partial)
    assert "note: no passage read so far contains 'garnet', but 7 files are not read yet (a first build in parts), " \
           "which may hold it; near words read so far: 'gannet' for 'garnet'" in said, said
    assert "did you mean" not in said and "no passage contains" not in said, said
    assert partial.structured_content["unmatched"] == [{"word": "garnet", "suggestion": "gannet"}]
    assert progress_reads.not_read_yet(conn) == 0
    assert "no passage" not in text(found) and "notes/n11.md" in text(found), text(found)
    assert "note: no passage contains 'gannnet' (did you mean 'gannet'?)" in text(typo), text(typo)


def test_the_files_not_read_yet_counted_are_the_searched_collection_s(sift_env, tmp_path, monkeypatch):
    """A search of one collection counts its own files not read yet, not another's first build: a search of a
    finished collection said '7 files are not read yet … which may hold it' of a word no file of it holds, the 7
    being another collection's next part."""
    from pathlib import Path
    from search.index import collection_reads, store
    from search.query.engine import Engine
    from search.query.filters import Filters
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    conn = runtime.index()
    done = store.ensure_collection(conn, "done", str(write_tree(tmp_path / "done", {"a.md": "# A\n\nThe heron.\n"})))
    tasks.discover(done["id"])
    run_jobs(huey)
    cid = store.ensure_collection(conn, "notes", str(same_time(write_tree(tmp_path / "notes", NOTES))))["id"]
    tasks.discover(cid)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    engine = Engine(Path(sift_env["SIFT_HOME"]) / "index.db")
    finished = " ".join(engine.search("garnet", mode="keyword", filters=Filters(collection="done")).notes)
    assert "no passage contains 'garnet'" in finished and "not read yet" not in finished, finished
    building = " ".join(engine.search("garnet", mode="keyword", filters=Filters(collection="notes")).notes)
    assert "7 files are not read yet" in building, building
    everywhere = " ".join(engine.search("garnet", mode="keyword").notes)
    assert "7 files are not read yet" in everywhere, everywhere
