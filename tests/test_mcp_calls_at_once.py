"""Many calls sent at once to the real ``sift-mcp`` over stdio (mcp.client.stdio): a ping and a stats sent behind a
flood of searches are answered while most searches are still pending, not after them (the figures:
bench/calls_at_once.py)."""
from __future__ import annotations

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import VENV_BIN, write_tree
from tests.test_disk_faults import built_index, keyword_env  # noqa: F401  (fixture: a keyword-only home)

SEARCHES = 100
WORDS = ["contract", "invoice", "budget", "rebase", "docker", "postgres", "pasta", "review"]


@pytest.mark.timeout(300)
def test_a_ping_and_stats_sent_behind_many_searches_are_answered_before_most_of_them(immediate, keyword_env,
                                                                                      tmp_path):
    """150 searches sent at once held a ping sent behind them 14 s: the tools ran in anyio's pool of 40 threads,
    and so did the reading of each line, so the ping's line was read only once all but some 40 searches had
    finished (110 of 150 answered before it). Now a few searches run at once, the rest wait without a thread, and
    the ping and stats are read and answered beside them."""
    root = write_tree(tmp_path / "a", {f"n{n}.md": f"# Note {n}\n\n" + "".join(
        f"Point {p}: the {WORDS[(n + p) % len(WORDS)]} and the {WORDS[(n * p) % len(WORDS)]}.\n\n"
        for p in range(6)) for n in range(30)})
    built_index(root)
    params = StdioServerParameters(command=str(VENV_BIN / "sift-mcp"), args=["--no-worker"], env=keyword_env)
    answered: list[str] = []
    before: dict[str, int] = {}

    async def scenario():
        with open(tmp_path / "server-stderr.log", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                assert not (await session.call_tool("search", {"query": "contract", "mode": "keyword"})).is_error

                async def search(n: int) -> None:
                    result = await session.call_tool("search", {"query": f"{WORDS[n % len(WORDS)]} {n}",
                                                                "mode": "keyword"})
                    assert not result.is_error, result
                    answered.append("search")

                async def cheap(name: str, ask) -> None:
                    await ask()
                    before[name] = len(answered)

                async with anyio.create_task_group() as tg:
                    for n in range(SEARCHES):
                        tg.start_soon(search, n)
                    await anyio.sleep(0)  # the searches' requests are written first
                    tg.start_soon(cheap, "ping", session.send_ping)
                    tg.start_soon(cheap, "stats", lambda: session.call_tool("stats", {}))

    anyio.run(scenario)
    assert len(answered) == SEARCHES
    assert before["ping"] < SEARCHES // 2 and before["stats"] < SEARCHES // 2, before
