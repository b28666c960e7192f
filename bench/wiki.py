"""A team's wiki exported from Notion and Confluence: where the page a question is about ranks.

Writes the export of bench/wiki_corpus.py (75 pages: Notion Markdown with ids in the names, percent-encoded
links, property blocks and CSV databases; Confluence HTML with breadcrumbs, a page tree and a footer on every
page), indexes it with a real ``huey_consumer`` and ``ingest enqueue --wait``, then asks each question of
wiki_corpus.QUESTIONS through ``sift-mcp --no-worker`` under the real MCP stdio client (the ``search`` tool, hybrid,
limit 10) and prints the rank of the first hit whose path is an answer (99: not in the ten), then how many came
first and how many in the top five. The model is the configured one (the default: multilingual-e5-small).

    .venv/bin/python bench/wiki.py [--home DIR]   # --home: build there (a home with the collection is reused)
    SIFT_EMBEDDINGS=off .venv/bin/python bench/wiki.py          # keyword only: no embedding, a minute or two
    PYTHONPATH=../older-checkout .venv/bin/python bench/wiki.py  # another Sift's reading (worker and server)
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from common import BIN, REPO, consumer, fresh_home, stop
from wiki_corpus import QUESTIONS, write

NOTION_ID = re.compile(r" [0-9a-f]{32}")


def build(home: Path) -> None:
    root = home / "wiki"
    if (home / "index.db").exists():
        return
    print(f"{write(root)} pages written to {root}", flush=True)
    # ranks are measured, not time: the worker keeps its priority (SIFT_NICE=10 starved it behind other jobs)
    proc = consumer("workers.app.huey", {"SIFT_NICE": "0", **os.environ}, home / "consumer.log")
    try:
        subprocess.run([str(BIN / "ingest"), "enqueue", str(root), "--name", "wiki", "--wait"], cwd=REPO,
                       check=True, timeout=3600, stdout=subprocess.DEVNULL)
    finally:
        stop(proc)


async def ask() -> list[int]:
    params = StdioServerParameters(command=str(BIN / "sift-mcp"), args=["--no-worker"], env=dict(os.environ))
    ranks = []
    with open(Path(os.environ["SIFT_HOME"]) / "server.log", "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write_):
            async with ClientSession(read, write_) as session:
                await session.initialize()
                for question, answers in QUESTIONS:
                    found = await session.call_tool("search", {"query": question, "limit": 10})
                    paths = [NOTION_ID.sub("", hit["path"]) for hit in found.structured_content["results"]]
                    paths = list(dict.fromkeys(paths))
                    rank = next((i + 1 for i, path in enumerate(paths) if any(a in path for a in answers)), 99)
                    ranks.append(rank)
                    print(f"{rank:>3}  {question}  [{paths[0] if paths else '-'}]", flush=True)
    return ranks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped (SIGTERM)"))  # the worker is stopped on the way out
    args = parser.parse_args()
    home = fresh_home("wiki")
    if args.home:
        args.home.mkdir(parents=True, exist_ok=True)
        os.environ["SIFT_HOME"] = str(home := args.home.resolve())
    build(home)
    ranks = anyio.run(ask)
    print(f"first {sum(r == 1 for r in ranks)}/{len(ranks)}, top five {sum(r <= 5 for r in ranks)}/{len(ranks)}, "
          f"MRR {sum(1 / r for r in ranks) / len(ranks):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
