"""A client that closes sift-mcp's stdin and kills it seconds later no longer cuts its worker's running job off.

The mcp SDK's stdio client (as Claude Desktop does, in its own time) closes stdin, sends SIGTERM 2 s later and
SIGKILL 2 s after that. The server told its consumer to stop (SIGINT: finish the running jobs) and waited; its
death then reached the consumer as a second SIGINT (PR_SET_PDEATHSIG), huey's "stop now", and the job was done
again at the next start. Real processes: the mcp client, sift-mcp, its huey consumer; keyword-only (no model).
"""
from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import VENV_BIN, processes, write_tree

SAFETY = 120  # seconds: a guard against a hung test, never a speed assertion


def _until(ready, what: str) -> None:
    deadline = time.monotonic() + SAFETY
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened (hang guard, {SAFETY} s): {what}")
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_job_running_when_the_client_closes_and_kills_the_server_is_finished(sift_env, tmp_path):
    root = write_tree(tmp_path / "notes", {f"n{i}.md": f"# Note {i}\n\nthe heron waits by the weir {i}\n"
                                          for i in range(5)})
    release, log = tmp_path / "release-discover", tmp_path / "server-stderr.log"
    # the scan the server queues for --root is held just before it records its plan, until the test lets it go
    env = {**sift_env, "SIFT_EMBEDDINGS": "off", "SIFT_FAULT_PAUSE_DISCOVER": "120",
           "SIFT_FAULT_RELEASE_DISCOVER": str(release)}
    params = StdioServerParameters(command=str(VENV_BIN / "sift-mcp"), env=env,
                                   args=["--root", str(root), "--name", "notes"])

    async def session() -> int:
        with open(log, "a") as errlog, anyio.fail_after(SAFETY):
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                while "SIFT_FAULT_PAUSE_DISCOVER: discover of" not in log.read_text(errors="replace"):
                    await anyio.sleep(0.1)
                stats = await s.call_tool("stats", {})
                return stats.structured_content["worker"]["pid"]
            # leaving: the client closes stdin, then SIGTERM, then SIGKILL, as it does with any server
    consumer = anyio.run(session)
    release.touch()  # the job held goes on, after the server is gone
    _until(lambda: not [p for p in processes() if p[3] == consumer and p[1] != "Z"], "the consumer's group gone")
    said = log.read_text(errors="replace")
    assert "Received request to shut down now" not in said, said[-3000:]
    assert "All workers have stopped" in said, said[-3000:]
    conn = sqlite3.connect(Path(env["SIFT_HOME"]) / "index.db")
    planned = conn.execute("SELECT count(*) FROM generations WHERE discovered IS NOT NULL").fetchone()[0]
    assert planned == 1, "the scan running when the client left recorded its plan"
