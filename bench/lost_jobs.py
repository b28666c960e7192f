"""`bench/lost_jobs.py`: what the periodic check for jobs lost from the queue (workers.lost) costs at scale, and
what each job's record of work (workers.running) adds.

In a fresh home with the SQLite queue, one collection's generation is being built with ``--files`` files in flight
(200,000), all at parse. Measured in this process, each the median of ``--repeat`` runs:

- ``moving``: the build moved within ``SIFT_LOST_JOB_SECONDS`` (60; its plan was just recorded): the check reads
  when each build last moved (one statement), and nothing more;
- ``stopped``: the same build taken as stopped (``SIFT_LOST_JOB_SECONDS=0``), every file carried by a queued parse
  job (16 files each, as a big build's start looks): the check reads the index's files in flight once, and the
  queue once, and finds none alone;
- ``all alone``: the queue emptied (every job lost): the first check, which finds every file alone and keeps them
  for the next check (the second queues them all again, as a starting consumer does);
- ``record``: one job's record of work, written as it starts and deleted as it ends, on the same queue.

    .venv/bin/python bench/lost_jobs.py [--files 200000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

from common import fresh_home


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    fresh_home("lost")
    from search.index import store
    from workers import lost, running, runtime, tasks
    from workers.app import huey

    conn = runtime.index()
    collection = store.ensure_collection(conn, "big", "/nonexistent/big")
    gen = store.begin_generation(conn, collection["id"], None)
    paths = [f"area-{i // 1000:03d}/note-{i:06d}.md" for i in range(args.files)]
    began = time.perf_counter()
    store.record_plan(conn, gen, collection["id"], dict.fromkeys(paths, "added"), {}, len(paths))
    print(f"plan of {len(paths):,} files recorded in {time.perf_counter() - began:.1f} s")
    began = time.perf_counter()
    for i in range(0, len(paths), 16):
        tasks.parse(tasks.Batch(gen, collection["id"], paths[i:i + 16]))
    print(f"{huey.pending_count():,} parse jobs queued in {time.perf_counter() - began:.1f} s")

    def timed(run) -> float:
        times = []
        for _ in range(args.repeat):
            huey.delete(lost.SEEN)
            began = time.perf_counter()
            run()
            times.append(time.perf_counter() - began)
        return statistics.median(times)

    moving = timed(lambda: lost.check(huey))
    print(f"moving ({len(paths):,} files in flight, {huey.pending_count():,} jobs queued): check {moving:.3f} s")
    os.environ["SIFT_LOST_JOB_SECONDS"] = "0"
    runtime.reset()
    busy = timed(lambda: lost.check(huey))
    assert lost.check(huey) == {} and huey.get(lost.SEEN, peek=True) is None, "nothing alone while all are queued"
    print(f"stopped ({len(paths):,} files in flight, {huey.pending_count():,} jobs queued): check {busy:.2f} s")
    huey.flush()
    alone = timed(lambda: lost.check(huey))
    kept = huey.get(lost.SEEN, peek=True)
    assert len(kept["orphans"][gen]) == len(paths), "every file seen alone"
    print(f"all alone (queue empty): first check {alone:.2f} s")

    def record() -> None:
        with running.job(huey, gen, collection["id"], paths[:16]):
            pass

    record_times = []
    for _ in range(max(200, args.repeat)):
        began = time.perf_counter()
        record()
        record_times.append(time.perf_counter() - began)
    print(f"record of a job at work (put + delete on queue.db): {statistics.median(record_times) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
