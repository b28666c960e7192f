"""Where a search's time goes at about 100,000 passages: p50 / p95 per query kind and mode, and per step.

The query-side steps that run on every search (quoted Chinese phrases, titled-first with its dates, #tags, quoted
phrases, definitions, stack traces, callers-first, pasted messages, the spelling hint, the common words, the page's
snippets) are timed one by one, by wrapping each in this process (the engine is not changed for it). The query kinds
are those an assistant sends: English prose, Chinese, code names, dates in three scripts, #tags, long pasted error
messages and stack traces, caller questions ('who calls create_task').

The index is ``bench/queries_at_scale.py``'s (notes-en, zh-retrieval's documents and code, copied as further
collections to ``--target`` passages), built into ``--home`` unless it is there already. Each kind is timed in a fresh
process that only serves searches; with ``--before REV`` the same is run on the code of git revision REV (checked out
in a temporary worktree, put first on the path of its own serving process: this script times both) and each figure is
printed with its ratio (after / before); the runs alternate, ``--rounds`` times each, and each figure is the median of
the rounds. Wall clock and the searching thread's CPU time are both given: on shared cores the CPU time is the steadier.
``--top10 FILE`` writes every query's top 10 (and the notes) per mode for each side, and says whether they are the same.

    SIFT_MODEL=minilm .venv/bin/python bench/query_steps.py --home DIR [--before REV] [--rounds 3] [--runs 5]
        [--top10 FILE] [--modes keyword]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import REPO, percentile
from queries_at_scale import GROUPS

HERE = Path(__file__).resolve().parent
_ERROR = ("ValueError: The scheduler interval must be a factor of 60: 7 was given while starting the consumer on "
          "worker-3 at 2026-11-30 04:12:09, retrying in 30 s")
_TRACE = ('Traceback (most recent call last):\n  File "/srv/app/.venv/lib/python3.11/site-packages/aiosqlite/core.py", '
          'line 153, in _execute\n    raise ValueError("Connection closed")\n  File '
          '"/srv/app/.venv/lib/python3.11/site-packages/huey/api.py", line 370, in execute\n    return task.execute()\n'
          "ValueError: Connection closed")
KINDS = {
    "english": GROUPS["english"],
    "chinese": GROUPS["chinese"],
    "code names": GROUPS["code"][:6] + ["streams.py", "huey/api.py"],
    "dates": ["standup March 14", "2024-03-14", "3月14日的会议", "meeting notes 2024-03-20", "Mar 3, 2024 retro",
              "2024年3月21日 会议"],
    "#tags": ["#git", "#docker volumes", "#python asyncio streams", "#project/shed", "#vim", "#postgres index"],
    "pasted errors": ["ValueError: Connection closed", "RuntimeError: Task runner is already running.",
                      "readexactly size can not be less than zero", _ERROR, _TRACE,
                      "NotImplementedError: Task priorities are not supported by this storage. " * 20],
    "callers": ["who calls create_task", "where is periodic_task used", "usages of open_connection",
                "what calls Connection.execute", "who uses StreamWriter", "callers of enqueue"],
}
MODES = ("keyword", "semantic", "hybrid")
# (where, name): the steps timed; a step missing from a revision is left out of its figures. The reorderings and the
# page's steps were the engine module's own (_phrased …) before they moved to search.query.reordering and
# results_page: both places are wrapped, and a step is named without its leading underscore, so that --before a
# revision of either layout compares the same steps.
STEPS = [("engine", "_phrased"), ("engine", "_titled_first"), ("tags", "tagged_first"), ("engine", "_phrases_first"),
         ("engine", "_definitions_first"), ("engine", "_traced_first"), ("Engine", "_users_first"),
         ("engine", "_messages_first"), ("Engine", "_spelling"), ("Engine", "_common_words"),
         ("engine", "_twins_left_out"), ("engine", "_per_file"), ("Engine", "_hits"), ("Engine", "_keyword"),
         ("Engine", "_semantic"), ("Engine", "_rank"),
         ("reordering", "phrased"), ("reordering", "titled_first"), ("reordering", "phrases_first"),
         ("reordering", "definitions_first"), ("reordering", "traced_first"), ("reordering", "messages_first"),
         ("results_page", "twins_left_out"), ("results_page", "per_file")]


def _timers(spent: dict) -> None:
    """Wrap each step so that its CPU time (summed over its calls in a search) is added to ``spent[name]``."""
    import importlib
    from search.query import engine, tags
    owners = {"engine": engine, "tags": tags, "Engine": engine.Engine}
    for where in ("reordering", "results_page"):
        try:
            owners[where] = importlib.import_module(f"search.query.{where}")
        except ImportError:  # a revision before the split: its steps are the engine module's
            pass
    for where, name in STEPS:
        owner = owners.get(where)
        step = getattr(owner, name, None)
        if step is None:
            continue

        def timed(*args, _step=step, _name=name.lstrip("_"), **kwargs):
            started = time.thread_time()  # CPU time: the wall clock of a step is mostly the shared cores' load
            try:
                return _step(*args, **kwargs)
            finally:
                spent[_name] += (time.thread_time() - started) * 1000
        setattr(owner, name, timed)


def serve(home: Path, runs: int, kinds: list[str], out: Path, source: Path, modes=MODES) -> None:
    """In a fresh process: time ``kinds``' queries in each mode, whole and per step, with the code at ``source``;
    JSON to ``out``."""
    os.environ["SIFT_HOME"] = str(home)
    sys.path.insert(0, str(source))
    from search.query import snippet
    from search.query.engine import from_settings
    from search.settings import load
    spent: dict = defaultdict(float)
    _timers(spent)
    engine = from_settings(load())
    engine.warm()
    figures, tops = {}, {}
    for kind in kinds:
        for mode in modes:
            for query in KINDS[kind]:  # warm: model loaded, pages cached
                engine.search(query, limit=10, mode=mode)
            whole, cpu, steps = [], [], defaultdict(list)
            for query in KINDS[kind]:
                times, cpus, per_step = [], [], defaultdict(list)
                for _ in range(runs):
                    for kept in (getattr(snippet, "_matches", None), getattr(snippet, "_shown", None)):
                        getattr(kept, "cache_clear", lambda: None)()
                    spent.clear()
                    started, used = time.perf_counter(), time.thread_time()
                    answer = engine.search(query, limit=10, mode=mode)  # query vectors kept: embedding is llama.cpp's
                    times.append((time.perf_counter() - started) * 1000)
                    cpus.append((time.thread_time() - used) * 1000)
                    for name, ms in spent.items():
                        per_step[name].append(ms)
                whole.append(statistics.median(times))
                cpu.append(statistics.median(cpus))
                for name, its in per_step.items():
                    steps[name].append(statistics.median(its))
                tops[f"{mode}|{query}"] = {"hits": [[h.chunk_id, round(h.score, 6)] for h in answer.hits],
                                           "notes": answer.notes}
            figures[f"{kind}|{mode}"] = {"p50": percentile(whole, 0.5), "p95": percentile(whole, 0.95),
                                         "cpu50": percentile(cpu, 0.5), "cpu95": percentile(cpu, 0.95),
                                         "steps": {n: [percentile(v, 0.5), percentile(v, 0.95)]
                                                   for n, v in steps.items()}}
    out.write_text(json.dumps({"figures": figures, "tops": tops}, ensure_ascii=False))


def _run(source: Path, home: Path, runs: int, kinds: list[str], modes=MODES) -> dict:
    """``serve`` with the code at ``source`` first on the path, in a process of its own."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, __file__, "--serve", "--home", str(home), "--source", str(source),
                        "--runs", str(runs), "--out", out.name, "--kinds", *kinds, "--modes", *modes], check=True)
        return json.loads(Path(out.name).read_text())


def _median_of(results: list[dict]) -> dict:
    figures = {}
    for key in results[0]["figures"]:
        each = [r["figures"][key] for r in results]
        steps = {name: [statistics.median(e["steps"][name][i] for e in each if name in e["steps"]) for i in (0, 1)]
                 for name in each[0]["steps"]}
        figures[key] = {**{k: statistics.median(e[k] for e in each) for k in ("p50", "p95", "cpu50", "cpu95")},
                        "steps": steps}
    return figures


def report(after: dict, before: dict | None) -> None:
    ratio = lambda a, b: f"{a / b:5.2f}×" if b else "   - "  # noqa: E731
    for label, p50, p95 in (("wall clock", "p50", "p95"), ("CPU time of the searching thread", "cpu50", "cpu95")):
        print(f"{label}\n{'kind':<14}{'mode':<10}{'p50 ms':>8}{'p95 ms':>8}"
              + ("   before p50 / p95   ratio p50 / p95" if before else ""))
        for key, fig in after.items():
            kind, mode = key.split("|")
            line = f"{kind:<14}{mode:<10}{fig[p50]:>8.1f}{fig[p95]:>8.1f}"
            if before and key in before:
                b = before[key]
                line += f"   {b[p50]:>7.1f} / {b[p95]:<7.1f}  {ratio(fig[p50], b[p50])}  {ratio(fig[p95], b[p95])}"
            print(line)
        print()
    print("per step (CPU ms of the searching thread, p50 / p95 over the kind's queries; a step's time includes the "
          "steps it calls; _semantic's leaves out BLAS threads)")
    for key, fig in after.items():
        for name, (p50, p95) in sorted(fig["steps"].items(), key=lambda item: -item[1][1]):
            if p95 < 0.05 and not (before and before.get(key, {}).get("steps", {}).get(name, [0, 0])[1] >= 0.05):
                continue
            line = f"  {key:<24}{name:<20}{p50:>7.2f} /{p95:>7.2f}"
            if before and name in before.get(key, {}).get("steps", {}):
                b50, b95 = before[key]["steps"][name]
                line += f"   before {b50:>7.2f} /{b95:>7.2f}  {ratio(p50, b50)} {ratio(p95, b95)}"
            print(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True, help="the index (built by queries_at_scale.py if absent)")
    parser.add_argument("--target", type=int, default=100_000)
    parser.add_argument("--before", help="a git revision to compare with (its code, the same index)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5, help="times each query is searched per round (its median)")
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES,
                        help="keyword alone times an index built with SIFT_EMBEDDINGS=off (nothing embedded)")
    parser.add_argument("--top10", type=Path)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.home.resolve(), args.runs, args.kinds, args.out, args.source, args.modes)
        return
    home = args.home.resolve()
    if not (home / "index.db").exists():
        subprocess.run([sys.executable, str(HERE / "queries_at_scale.py"), "--home", str(home), "--target",
                        str(args.target), "--build-only"], check=True)
    worktree = None
    if args.before:
        worktree = Path(tempfile.mkdtemp(prefix="sift-before-"))
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(worktree), args.before],
                       check=True)
    try:
        afters, befores = [], []
        for _ in range(args.rounds):
            if worktree:
                befores.append(_run(worktree, home, args.runs, args.kinds, args.modes))
            afters.append(_run(REPO, home, args.runs, args.kinds, args.modes))
    finally:
        if worktree:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(worktree)], check=False)
    report(_median_of(afters), _median_of(befores) if befores else None)
    if befores:
        differ = [key for key in afters[-1]["tops"] if afters[-1]["tops"][key] != befores[-1]["tops"].get(key)]
        print(f"\n{len(afters[-1]['tops'])} answers (top 10 and notes) compared with {args.before}: "
              f"{len(differ)} differ"
              + "".join(f"\n  {key}" for key in differ))
    if args.top10:
        args.top10.write_text(json.dumps({"after": afters[-1]["tops"],
                                          "before": befores[-1]["tops"] if befores else None}, ensure_ascii=False,
                                         indent=1))


if __name__ == "__main__":
    main()
