"""sift-mcp's start-up, as an assistant sees it: from starting the server to its answers.

Builds a small index (--files small generated notes, huey's immediate mode) in a fresh home, then starts
``sift-mcp --no-worker`` (``--worker``: with its worker) --runs times under the real stdio client
(mcp.client.stdio) and times, from the start: initialize answered, tools/list answered, the first search
answered (hybrid: it waits for the model); and the server's CPU seconds for a start that only answers initialize
and tools/list (its own and its waited children's, from getrusage; the model starts loading in the background at
start, so this includes what it did before the client closed). Prints medians.

With --base DIR (another checkout of Sift, e.g. a git worktree of an older commit), every run starts the base
server and this one in turn (same index, same model), and prints both and the ratio base / this.

    .venv/bin/python bench/server_start.py [--base DIR] [--runs 7] [--files 12] [--worker]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import anyio

from common import REPO, fresh_home, indexed_notes, median

QUERY = "how do I undo the last commit"
DEADLINE = 300  # seconds: a server that never answers fails the run rather than hanging it


TOPICS = ["git rebase and undoing the last commit", "docker compose volumes", "a postgres index on two columns",
          "boiling pasta and a tomato sauce", "the quarterly budget review", "a python virtual environment"]


def build(home: Path, files: int) -> None:
    """``files`` small notes (a few paragraphs each), indexed in full with the model as collection 'notes'."""
    indexed_notes(home, {f"folder{n % 7}/note-{n}.md": f"# Note {n}: {TOPICS[n % len(TOPICS)]}\n\n" + "".join(
        f"## Part {p}\n\nThese are the notes of day {n} about {TOPICS[n % len(TOPICS)]}, point {p}: what was "
        f"tried, what worked and what to do next time.\n\n" for p in range(4)) for n in range(files)})


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def start(checkout: Path, worker: bool, search: bool) -> dict:
    """One server start: seconds to each answer, and the CPU seconds the server (and its children) used."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    env = dict(os.environ, PYTHONPATH=str(checkout))
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server", *([] if worker else
                                                                                        ["--no-worker"])],
                                   env=env, cwd=str(checkout))
    figures = {}
    cpu = children_cpu()
    began = time.perf_counter()
    with open(os.devnull, "w") as errlog, anyio.fail_after(DEADLINE):
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            figures["initialize"] = time.perf_counter() - began
            tools = (await session.list_tools()).tools
            figures["tools/list"] = time.perf_counter() - began
            assert len(tools) >= 6, tools
            if search:
                result = await session.call_tool("search", {"query": QUERY})
                figures["first search"] = time.perf_counter() - began
                assert not result.is_error, result
    figures["cpu"] = children_cpu() - cpu
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout of Sift to compare with")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=12, help="small notes indexed")
    parser.add_argument("--worker", action="store_true", help="let the server start its worker (default: "
                        "--no-worker)")
    args = parser.parse_args()
    home = fresh_home("server-start")
    build(home, args.files)
    checkouts = {"this": REPO} if args.base is None else {"base": args.base.resolve(), "this": REPO}
    runs: dict[str, list[dict]] = {name: [] for name in checkouts}
    for _ in range(args.runs):
        for name, checkout in checkouts.items():
            timed = anyio.run(start, checkout, args.worker, True)
            timed["cpu"] = anyio.run(start, checkout, args.worker, False)["cpu"]  # a start that only lists
            runs[name].append(timed)
    print(f"sift-mcp {'with' if args.worker else '--no-worker'}, {args.files} small notes, "
          f"SIFT_MODEL={os.environ.get('SIFT_MODEL')}, median of {args.runs} runs (load: {os.getloadavg()[0]:.2f})"
          f"{'; PYTHONDONTWRITEBYTECODE: Sift is compiled at every start' if os.environ.get('PYTHONDONTWRITEBYTECODE') else ''}")
    for key in ("initialize", "tools/list", "first search", "cpu"):
        values = {name: median([run[key] for run in runs[name]]) for name in checkouts}
        label = "CPU s per start (initialize + tools/list)" if key == "cpu" else f"start -> {key} answered (s)"
        line = "  ".join(f"{name} {value:6.3f}" for name, value in values.items())
        ratio = f"  base/this {values['base'] / values['this']:.2f}x" if "base" in values else ""
        print(f"{label:<42} {line}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
