"""CPU time of a keyword search whose query is long and hostile: a pasted hash, a run of digits, a DOI of thousands,
the same mark or word thousands of times, each cut to the query's limit (search.query.request.MAX_QUERY_CHARS).

A query's framing and pieces are read by regular expressions several times a search; one that tries a run from each
of its characters takes time quadratic in the run's length (a query of 10,000 digits: 10 s of CPU before stop 55).
The index is two small notes (keyword only, no model), built in a temporary SIFT_HOME; each query is searched
``--runs`` times, each time in a fresh process's first search of it (nothing cached), and the figure is the median
CPU seconds of the search. A query over ``--slow`` seconds is marked SLOW.

    .venv/bin/python bench/long_queries.py [--runs 3] [--only NAME ...] [--slow 1.0]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import REPO, median

QUERIES = {
    "hex": "deadbeef" * 1250, "digits": "1" * 10000, "doi": "https://doi.org/10." + "1" * 9000,
    "dots": "a." * 5000, "dashes": "a-" * 5000, "colons": "1:" * 5000, "paths": "/a" * 5000,
    "clauses": "Section 1.1" + "(a)" * 3000, "statute": "§ 5 " + "Abs. 2 " * 1400, "parens": "12" + "(" * 9990,
    "errors": "Error" * 2000, "error lines": "x.Error: y\n" * 900, "han": "王" * 10000, "chinese": "王医生说" * 2500,
    "what did": "what did " + "王" * 9000 + " say about x", "by": "by " * 3333, "figures": "Fig. " * 2000,
    "dates": "18.12.2026 " * 900, "misspelt": "deploymnet " * 900, "tag": "#" + "a/" * 4900,
    "frames": "    at f (a.js:1:2)\n" * 450,
}
NOTES = {"a.md": "# Primary\n\nThe primary is db-prod-02 at 10.0.3.17:5432. Section 12.3(b) says § 5 Abs. 2.\n",
         "b.md": "# 王医生\n\n王医生说空腹血糖 Traceback (most recent call last):\nTypeError: bad\n"}
ONE = """
import os, sys, time
from search.query.engine import Engine
engine = Engine(os.path.join(os.environ["SIFT_HOME"], "index.db"))
engine.search("warm", mode="keyword")
query = sys.stdin.read()
start = time.process_time()
engine.search(query, mode="keyword")
print(time.process_time() - start)
"""
BUILD = """
import sys
from workers.app import huey
huey.immediate = True
from search.index import store
from workers import runtime, tasks
tasks.discover(store.ensure_collection(runtime.index(), "notes", sys.argv[1])["id"])
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--slow", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sift-long-queries-") as folder:
        root = Path(folder) / "notes"
        root.mkdir()
        for name, text in NOTES.items():
            (root / name).write_text(text)
        env = {**os.environ, "SIFT_HOME": str(Path(folder) / "home"), "SIFT_EMBEDDINGS": "off",
               "PYTHONPATH": str(REPO)}
        subprocess.run([sys.executable, "-c", BUILD, str(root)], env=env, check=True, cwd=REPO)
        for name in args.only or QUERIES:
            seconds = [float(subprocess.run([sys.executable, "-c", ONE], input=QUERIES[name], env=env, cwd=REPO,
                                            check=True, capture_output=True, text=True).stdout)
                       for _ in range(args.runs)]
            cpu = median(seconds)
            print(f"{name:12s} {len(QUERIES[name]):6,} chars  {cpu:7.3f} s CPU" + ("  SLOW" if cpu > args.slow else ""),
                  flush=True)


if __name__ == "__main__":
    main()
