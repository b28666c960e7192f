"""Embedding with one llama.cpp thread against every core's, as the machine's load stands.

A worker process embeds with cores / SIFT_WORKERS threads (workers.queues.worker_threads): one each with the
default two workers on two cores, two with SIFT_WORKERS=1 (and in the in-process benchmarks, bench/common.py).
llama.cpp's threads wait for each other at every layer, so when other processes hold the cores a thread that is
not running holds back the one that is. This prints, per thread count, the median wall and CPU seconds (this
process's user + system time) of embedding the same notes-en passages, rounds interleaved so a busy spell hits
both alike, and the load average around the run.

    .venv/bin/python bench/embed_threads.py [--model PATH] [--texts 20] [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from common import median, shared_data


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a GGUF file (default: the default model of ~/.sift)")
    parser.add_argument("--texts", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from search.model.embedding import Embedder, resolve
    from search.model.info import read_model_info
    from search.settings import load
    default_home = Path(os.environ.get("SIFT_BENCH_MODEL_HOME", Path.home() / ".sift"))
    info = read_model_info(Path(args.model) if args.model else Path(resolve(load(home=default_home)).path))
    root = shared_data("notes-en")
    texts = [p.read_text(encoding="utf-8")[:1000] for p in sorted(root.rglob("*.md"))[1:1 + args.texts]]
    counts = sorted({1, os.cpu_count() or 1})
    embedders = {n: Embedder(info, threads=n) for n in counts}
    for embedder in embedders.values():
        embedder.embed(texts[:2])  # warm
    walls, cpus = {n: [] for n in counts}, {n: [] for n in counts}
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for n in counts:
            started, spent = time.perf_counter(), cpu()
            embedders[n].embed(texts)
            walls[n].append(time.perf_counter() - started)
            cpus[n].append(cpu() - spent)
        load.append(os.getloadavg()[0])
    print(f"{Path(info.path).name}: {len(texts)} passages, median of {args.rounds} rounds, "
          f"load average {min(load):.1f}-{max(load):.1f} on {os.cpu_count()} cores")
    for n in counts:
        print(f"  {n} thread{'s' if n > 1 else ''}: wall {median(walls[n]):.2f} s, CPU {median(cpus[n]):.2f} s "
              f"({len(texts) / median(walls[n]):.1f} passages/s)")
    if len(counts) > 1:
        one, most = counts[0], counts[-1]
        print(f"  {most} threads / 1 thread: wall {median(walls[most]) / median(walls[one]):.2f}x, "
              f"CPU {median(cpus[most]) / median(cpus[one]):.2f}x")


if __name__ == "__main__":
    main()
