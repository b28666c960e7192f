"""sift-mcp with SIFT_QUEUE pointing at a Redis that is not running: the notice said only `could not queue a scan
of 'notes': ConnectionError: …`, with no fix, and stats said `worker: running` beside it, as if the scan would be
taken, and search's freshness said 'up to date' though nothing new could be indexed. Real sift-mcp under the real stdio client, its own worker; a free port (nothing listens there)."""
from __future__ import annotations

import time

import anyio
import pytest

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text

DEADLINE = 300.0  # seconds: a safety net against a hung test, not a speed assertion


@pytest.mark.timeout(600)
def test_a_scan_not_queued_for_redis_down_says_what_to_do(immediate, sift_env, tmp_path, servers):
    from tests.redis_server import free_port
    port = free_port()
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"})
    ingest(root, "notes")  # published with the home's own queue; the server is then given a Redis that is down
    env = {**sift_env, "SIFT_QUEUE": f"redis://:secret@127.0.0.1:{port}/0"}

    async def scenario():
        async with servers.session(env, "--root", str(root), "--name", "notes") as s:
            deadline = time.monotonic() + DEADLINE
            while True:
                stats = await call(s, "stats")
                said = stats.structured_content
                if said.get("notices") and said.get("worker", {}).get("state") == "running" \
                        or time.monotonic() > deadline:
                    return stats, await call(s, "search", query="alpha", mode="keyword")
                await anyio.sleep(0.2)
    stats, search = run(scenario)
    notices = stats.structured_content["notices"]
    assert len(notices) == 1 and notices[0].startswith(
        f"could not queue a scan of 'notes': the queue's Redis at 127.0.0.1:{port}/0 cannot be used (") and \
        notices[0].endswith("): start Redis, or set SIFT_QUEUE to its URL with its password, "
                            "redis://:PASSWORD@HOST:PORT/DB"), notices
    assert "secret" not in text(stats)
    line = next(x for x in text(stats).splitlines() if x.startswith("worker: "))
    assert line.startswith("worker: running (pid ") and \
        line.endswith("; it takes no job while the queue cannot be read (next line)"), line
    # search's freshness said 'up to date': nothing new is indexed until a scan can be queued
    fresh = text(search).splitlines()[-1]
    assert fresh.startswith("freshness: notes: ") and "up to date" not in fresh and \
        f", its scan could not be queued at the server's start: the queue's Redis at 127.0.0.1:{port}/0 " in fresh, fresh
    [data] = search.structured_content["freshness"]
    assert data["scan_not_queued"].startswith("the queue's Redis at "), data
