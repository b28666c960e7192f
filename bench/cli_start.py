"""What each ``ingest`` command costs to start: the CPU seconds of one run, and the heavy libraries it imports.

Users run ``ingest stats``, ``ingest search``, ``ingest files`` by hand and from scripts, and the test suite runs
``ingest`` as a process hundreds of times: a command that only reads the index paid for huey, Redis's client and
every parser (workers.app) before it read anything. Builds a small index (--files small notes, huey's immediate
mode, the model of SIFT_MODEL) in a fresh home, then runs each command --runs times as its own process, as the
``ingest`` script does (``ingest.cli.main``), and prints the median CPU seconds (user + system, from getrusage of
the waited child) and the heavy modules it loaded. An empty Python start is timed beside them: the floor.

With --base DIR (another checkout of Sift, e.g. a clone of an older commit), every run times the base's command
and this one's in turn, on the same home, and prints both and the ratio base / this.

    .venv/bin/python bench/cli_start.py [--base DIR] [--runs 5] [--files 12] [--only search]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from common import REPO, fresh_home, median

HEAVY = ("huey", "redis", "llama_cpp", "numpy", "pathspec", "pypdf", "workers.app", "workers.tasks", "ingest.code",
         "ingest.files")  # ingest.code: the code parser; ingest.files: every parser
# the ingest script, as pip writes it; SIFT_BENCH_LOADED: a file to write the heavy modules loaded into at exit
RUN = ("import atexit, json, os, sys\n"
       "def said():\n"
       "    if os.environ.get('SIFT_BENCH_LOADED'):\n"
       f"        open(os.environ['SIFT_BENCH_LOADED'], 'w').write(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
       "atexit.register(said)\n"
       "from ingest.cli import main\n"
       "sys.argv[0] = 'ingest'\n"
       "sys.exit(main())\n")
COMMANDS = {  # name shown: the arguments (NOTES: the folder indexed)
    "python -c pass (the floor)": None,
    "ingest --help": ["--help"],
    "ingest stats": ["stats"],
    "ingest stats (no index yet)": ["stats"],
    "ingest stats --json": ["stats", "--json"],
    "ingest files": ["files"],
    "ingest search x (hybrid: loads the model)": ["search", "x"],
    "ingest search x --mode keyword": ["search", "x", "--mode", "keyword"],
    "ingest similar FILE": ["similar", "notes/note-0.md"],
    "ingest enqueue NOTES (queues a rescan)": ["enqueue", "NOTES"],
    "ingest retry-failed (none failed)": ["retry-failed"],
    "ingest model info": ["model", "info"],
}
TOPICS = ["git rebase and undoing the last commit", "docker compose volumes", "a postgres index on two columns",
          "boiling pasta and a tomato sauce", "the quarterly budget review", "a python virtual environment"]


def build(home: Path, files: int) -> Path:
    """``files`` small notes, indexed in full with the model as collection 'notes'; returns their folder."""
    root = home / "notes"
    for n in range(files):
        path = root / f"note-{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}: {TOPICS[n % len(TOPICS)]}\n\nWhat was tried on day {n}, what worked.\n",
                        encoding="utf-8")
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    huey.immediate = True
    tasks.discover(store.ensure_collection(runtime.index(), "notes", str(root))["id"])
    runtime.reset()
    return root


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(checkout: Path, args: list[str] | None, env: dict, loaded: Path | None = None) -> float:
    """One command's CPU seconds; ``loaded``: where it writes the heavy modules it imported."""
    code = ["-c", "pass"] if args is None else ["-c", RUN, *args]
    env = dict(env, PYTHONPATH=str(checkout), **({"SIFT_BENCH_LOADED": str(loaded)} if loaded else {}))
    before = children_cpu()
    done = subprocess.run([sys.executable, *code], cwd=checkout, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"ingest {' '.join(args or [])} failed ({done.returncode}) in {checkout}: {done.stderr[-2000:]}")
    return children_cpu() - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout of Sift to compare with")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, default=12, help="small notes indexed")
    parser.add_argument("--only", help="time only the commands whose name holds this ('search': on a big index, "
                                       "with SIFT_EMBEDDINGS=off to build it without the model)")
    args = parser.parse_args()
    home = fresh_home("cli-start")
    root = build(home, args.files)
    empty = Path(tempfile.mkdtemp(prefix="sift-cli-start-empty-"))
    checkouts = {"this": REPO} if args.base is None else {"base": args.base.resolve(), "this": REPO}
    env = {k: v for k, v in os.environ.items() if k != "SIFT_QUEUE_IMMEDIATE"}
    cpu: dict[str, dict[str, list[float]]] = {name: {c: [] for c in COMMANDS} for name in checkouts}
    heavy: dict[str, dict[str, list[str]]] = {name: {} for name in checkouts}
    commands = {c: a for c, a in COMMANDS.items() if args.only is None or args.only in c or a is None}
    for command, argv in commands.items():
        argv = None if argv is None else [str(root) if a == "NOTES" else a for a in argv]
        there = dict(env, SIFT_HOME=str(empty if "no index" in command else home))
        for name, checkout in checkouts.items():
            loaded = home / "loaded.json"
            if argv is not None:
                run(checkout, argv, there, loaded)
                heavy[name][command] = json.loads(loaded.read_text())
        for _ in range(args.runs):
            for name, checkout in checkouts.items():
                cpu[name][command].append(run(checkout, argv, there))
    print(f"ingest commands' start, {args.files} small notes indexed, SIFT_MODEL={os.environ.get('SIFT_MODEL')}, "
          f"CPU seconds of a run, median of {args.runs} (load: {os.getloadavg()[0]:.2f})")
    for command in commands:
        values = {name: median(cpu[name][command]) for name in checkouts}
        line = "  ".join(f"{name} {value:6.3f}" for name, value in values.items())
        ratio = f"  base/this {values['base'] / values['this']:5.2f}x" if "base" in values else ""
        print(f"{command:<44} {line}{ratio}")
        for name in checkouts:
            if COMMANDS[command] is not None:
                print(f"{'':<46}{name} imports: {', '.join(heavy[name][command]) or '(none of them)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
