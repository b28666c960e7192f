"""A first build of notes-en as an assistant watches it: ``sift-mcp --root`` (its own worker and watcher) under the
real MCP stdio client, which every ``--interval`` seconds calls stats, search (keyword, semantic, hybrid), list_files,
read_file and similar and logs every answer; meanwhile the index is polled every 2 s for the published generations.
Prints the seconds from the first scan's generation beginning to the first answer (a published generation) and to
the whole folder searchable (one that leaves no file to a later part, nothing being built, no file in the
background), and the parts (generations published on the way).

    .venv/bin/python bench/first_build_mcp.py [--first-part 100] [--interval 60] [--log answers.log]
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path

import anyio
from common import BIN, fresh_home, shared_data

QUESTIONS = ("how to kill a tmux pane", "zsh vi mode")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-part", type=int, default=100, help="SIFT_FIRST_PART (0: one generation)")
    parser.add_argument("--interval", type=float, default=60.0, help="seconds between two rounds of questions")
    parser.add_argument("--log", default="first-build-answers.log", help="where every answer is written")
    args = parser.parse_args()
    root = shared_data("notes-en")
    home = fresh_home("first-build-mcp")
    env = dict(os.environ, SIFT_FIRST_PART=str(args.first_part))
    published: dict[int, tuple[float, float]] = {}
    done = threading.Event()
    threading.Thread(target=_poll, args=(home / "index.db", published, done), daemon=True).start()
    anyio.run(_watch, root, env, Path(args.log), args.interval, done)
    began = min(start for start, _ in published.values())
    first, last = min(end for _, end in published.values()), max(end for _, end in published.values())
    print(f"SIFT_FIRST_PART={args.first_part}: first answer {first - began:.0f} s after the first scan began, the "
          f"whole folder searchable after {last - began:.0f} s, {len(published)} generations published "
          f"(answers: {args.log})")
    return 0


def _poll(db: Path, published: dict, done: threading.Event) -> None:
    """The generations published, by id: (started, finished); superseded ones are deleted, so they are caught live."""
    while not done.is_set():
        try:
            conn = sqlite3.connect(db, timeout=5)
            for gen, started, finished in conn.execute("SELECT id, started, finished FROM generations "
                                                       "WHERE finished IS NOT NULL"):
                published.setdefault(gen, (started, finished))
            conn.close()
        except sqlite3.Error:
            pass  # not made yet
        time.sleep(2)


async def _watch(root: Path, env: dict, log: Path, interval: float, done: threading.Event) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.md"))
    params = StdioServerParameters(command=str(BIN / "sift-mcp"), args=["--root", str(root)], env=env)
    with open(log, "w") as out, open(log.with_suffix(".stderr"), "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()

                async def ask(name: str, arguments: dict):
                    answer = await s.call_tool(name, arguments)
                    said = "\n".join(c.text for c in answer.content if hasattr(c, "text"))
                    out.write(f"\n===== {time.strftime('%H:%M:%S')} {name} {arguments}\n{said}\n")
                    out.flush()
                    return answer
                n = 0
                while True:
                    n += 1
                    stats = (await ask("stats", {})).structured_content["collections"][0]
                    for query in QUESTIONS:
                        for mode in ("keyword", "semantic", "hybrid"):
                            await ask("search", {"query": query, "mode": mode, "limit": 3})
                    await ask("list_files", {"limit": 8, "sort": "path"})
                    path = files[n * 97 % len(files)]  # a file not read before
                    await ask("read_file", {"path": path, "end_line": 6})
                    await ask("similar", {"path": path, "limit": 3})
                    if (stats["published"] and not stats["published"].get("not_read_yet") and not stats["building"]
                            and not stats.get("background")):
                        break
                    await anyio.sleep(interval)
    done.set()


if __name__ == "__main__":
    sys.exit(main())
