"""While a scan walks the folder (claimed, no plan recorded yet: 1–7 s on notes-en), `ingest stats` and the MCP
stats tool say so in the words of search's freshness line: `ingest stats` said only 'published: nothing yet'."""
from __future__ import annotations

from tests.conftest import run_ingest, write_tree
from tests.test_first_parts import run_jobs
from tests.test_mcp_server import call, run, text

NOTES = {f"n{i:02}.md": f"# Note {i}\n\nThe pelican number {i} flies at dawn.\n" for i in range(12)}


def test_stats_says_a_scan_is_walking_the_folder(sift_env, tmp_path, monkeypatch, servers):
    from search.index import collection_reads, freshness, store
    from workers import runtime, tasks
    from workers.app import huey
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = write_tree(tmp_path / "notes", NOTES)
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    assert freshness.begin_scan(conn, cid, True, 600) == freshness.PRESENT  # as discover claims it, then walks

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "stats"), await call(s, "search", query="pelican")
    first = run_ingest(sift_env, "stats").stdout
    mcp_stats, search = run(scenario)
    said = "its first scan is walking the folder (started "
    assert f"  published: nothing yet\n  scanning: {said}" in first, first
    assert f"  scanning: {said}" in text(mcp_stats) and said in text(search), text(mcp_stats)

    huey.storage.flush_all()
    tasks.discover(cid, resume=True)  # the scan goes on (its claim is its own)
    run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] is not None)
    huey.storage.flush_all()  # the next part's scan taken by a worker
    assert freshness.begin_scan(conn, cid, True, 600) == freshness.PRESENT
    later = run_ingest(sift_env, "stats").stdout
    assert "  scanning: the next part's scan is walking the folder (started " in later, later

    huey.storage.flush_all()
    tasks.discover(cid, resume=True)
    run_jobs(huey)  # the whole folder read: no scan walks, nothing said
    assert "scanning:" not in run_ingest(sift_env, "stats").stdout
