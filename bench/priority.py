"""What a build leaves of the CPU to the user: a real huey_consumer (two worker processes, as the README starts
it) embeds notes-en while this process, at its own priority, does a user's work: a Python loop (an editor, a
browser's scripts) and query embeddings on one thread (what sift-mcp does for a search). Once with SIFT_NICE=0
(the worker at the priority it was started with, as before SIFT_NICE) and once with the default, alternating,
``--rounds`` times each; medians.

    .venv/bin/python bench/priority.py [--rounds 3] [--seconds 10]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (REPO, cpu_seconds, consumer, fresh_home, group_pids, median, percentile,  # noqa: E402
                    shared_data, stop)

QUERIES = ["how do I rebase onto another branch", "format a date in javascript", "postgres index on expression",
           "vim replace across files", "docker compose environment variables"]


def user_loop(seconds: float) -> float:
    """Loop iterations per second of wall time: the share of a core this process got."""
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10_000):
            n += 1
    return n / (time.perf_counter() - start)


def query_ms(embedder, rounds: int = 4) -> list[float]:
    times = []
    for _ in range(rounds):
        for query in QUERIES:
            start = time.perf_counter()
            embedder.embed([query], kind="query")
            times.append((time.perf_counter() - start) * 1000)
    return times


def one(nice: int, seconds: float, embedder, log: Path) -> dict:
    home = fresh_home("priority")
    env = {**os.environ, "SIFT_NICE": str(nice)}
    env.pop("SIFT_WORKERS", None)  # the default: two worker processes of one thread each on two cores
    corpus = home / "notes"
    shutil.copytree(shared_data("notes-en"), corpus)
    proc = consumer("workers.app.huey", env, log)
    try:
        from subprocess import run
        run([str(Path(sys.executable).parent / "ingest"), "enqueue", str(corpus), "--name", "notes"], cwd=REPO,
            env=env, check=True, capture_output=True)
        time.sleep(15)  # the model loaded and embedding under way
        pids = group_pids(proc.pid)
        worker_cpu = sum(cpu_seconds(p) for p in pids)
        loop = user_loop(seconds)
        queries = query_ms(embedder)
        worker_cpu = sum(cpu_seconds(p) for p in group_pids(proc.pid)) - worker_cpu
        nices = sorted({os.getpriority(os.PRIO_PROCESS, p) for p in pids})
    finally:
        stop(proc)
        shutil.rmtree(home, ignore_errors=True)
    return {"loop": loop, "q50": median(queries), "q95": percentile(queries, 0.95), "worker_cpu": worker_cpu,
            "nice": nices}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    fresh_home("priority-model")  # sets SIFT_MODEL to the default model's file
    from search.model.embedding import Embedder, QUERY_THREADS
    from search.model.info import read_model_info
    embedder = Embedder(read_model_info(Path(os.environ["SIFT_MODEL"])), threads=QUERY_THREADS)
    alone = user_loop(args.seconds)
    results: dict[int, list[dict]] = {0: [], 10: []}
    log = Path(os.environ["SIFT_HOME"]) / "consumer.log"
    for _ in range(args.rounds):
        for nice in (0, 10):
            r = one(nice, args.seconds, embedder, log)
            results[nice].append(r)
            print(f"SIFT_NICE={nice:>2} (worker nice {r['nice']}): user loop {r['loop'] / alone:.0%} of its "
                  f"speed alone, query p50 {r['q50']:.0f} ms p95 {r['q95']:.0f} ms, worker CPU "
                  f"{r['worker_cpu']:.1f} s", flush=True)
    for nice, rs in results.items():
        print(f"median SIFT_NICE={nice:>2}: user loop {median([r['loop'] for r in rs]) / alone:.0%} of its speed "
              f"alone, query p50 {median([r['q50'] for r in rs]):.0f} ms, p95 {median([r['q95'] for r in rs]):.0f} "
              f"ms, worker CPU {median([r['worker_cpu'] for r in rs]):.1f} s in the window")


if __name__ == "__main__":
    main()
