"""Cheap calls under a flood of searches over stdio: how long a ping and a stats wait behind N searches sent at once.

Builds a keyword-only index of --files small notes (huey's immediate mode) in a fresh home, then starts
``sift-mcp --no-worker`` --runs times under the real stdio client (mcp.client.stdio). Each run sends one search
to warm the server, then --searches keyword searches at once, and a ping and a stats right behind them; it times
the ping and the stats from when they were sent, counts the searches answered before the ping, and times the
whole flood. Prints medians.

With --base DIR (another checkout of Sift, e.g. a git worktree of an older commit), every run starts the base
server and this one in turn (same index), and prints both.

    .venv/bin/python bench/calls_at_once.py [--base DIR] [--runs 5] [--searches 150] [--files 30]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import anyio

from common import REPO, fresh_home, indexed_notes, median

DEADLINE = 600  # seconds: a server that never answers fails the run rather than hanging it
WORDS = ["contract", "invoice", "budget", "rebase", "docker", "postgres", "pasta", "review", "python", "tomato"]


def build(home: Path, files: int) -> None:
    """``files`` small notes, indexed keyword-only as collection 'notes'."""
    indexed_notes(home, {f"note-{n}.md": f"# Note {n}\n\n" + "".join(
        f"Day {n}, point {p}: the {WORDS[(n + p) % len(WORDS)]} and the {WORDS[(n * p) % len(WORDS)]}, what "
        f"was tried and what to do next time.\n\n" for p in range(6)) for n in range(files)})


async def run(checkout: Path, searches: int) -> dict:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    env = dict(os.environ, PYTHONPATH=str(checkout))
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server", "--no-worker"], env=env,
                                   cwd=str(checkout))
    figures: dict = {}
    answered: list[str] = []
    with open(os.devnull, "w") as errlog, anyio.fail_after(DEADLINE):
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("search", {"query": "contract", "mode": "keyword"})

            async def search(n: int) -> None:
                await session.call_tool("search", {"query": f"{WORDS[n % len(WORDS)]} {n}", "mode": "keyword"})
                answered.append("search")

            async def cheap(name: str, ask) -> None:
                sent = time.perf_counter()
                await ask()
                figures[name] = time.perf_counter() - sent
                figures[f"searches before {name}"] = answered.count("search")

            began = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for n in range(searches):
                    tg.start_soon(search, n)
                await anyio.sleep(0)  # the searches' requests go first
                tg.start_soon(cheap, "ping", session.send_ping)
                tg.start_soon(cheap, "stats", lambda: session.call_tool("stats", {}))
            figures["all"] = time.perf_counter() - began
    return figures


def show(label: str, runs: list[dict], searches: int) -> None:
    print(f"{label}: {searches} searches at once: all answered in {median([r['all'] for r in runs]):.2f} s; "
          f"ping answered in {median([r['ping'] for r in runs]):.3f} s "
          f"(after {median([r['searches before ping'] for r in runs]):.0f} searches); "
          f"stats in {median([r['stats'] for r in runs]):.3f} s "
          f"(after {median([r['searches before stats'] for r in runs]):.0f}); medians of {len(runs)} runs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout to compare with")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--searches", type=int, default=150)
    parser.add_argument("--files", type=int, default=30)
    args = parser.parse_args()
    os.environ["SIFT_EMBEDDINGS"] = "off"
    home = fresh_home("calls-at-once")
    build(home, args.files)
    checkouts = [("base", args.base.resolve())] if args.base else []
    checkouts.append(("this", REPO))
    figures: dict = {label: [] for label, _ in checkouts}
    for _ in range(args.runs):
        for label, checkout in checkouts:
            figures[label].append(anyio.run(run, checkout, args.searches))
    print(f"{args.files} notes, keyword-only, {os.cpu_count()} cores")
    for label, _ in checkouts:
        show(label, figures[label], args.searches)


if __name__ == "__main__":
    main()
