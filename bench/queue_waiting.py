"""What stats' question 'does a scan wait?' costs on a long queue: queue.db made with huey's own SQLite storage,
holding ``--jobs`` jobs of a build's stages and one scan at the end, read as workers.queue_state.scans_waiting
tests it before importing huey: by the statement that counts each scan's jobs ahead (AT_PRIORITIES, as before)
and by whether one exists (ANY_AT_PRIORITIES). Medians of ``--rounds``.

    .venv/bin/python bench/queue_waiting.py [--jobs 100000] [--rounds 7]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from workers import queue_reader  # noqa: E402
from workers.queue_state import QUEUE_NAME, SCAN_PRIORITY, URGENT  # noqa: E402


def make_queue(path: Path, jobs: int) -> None:
    from huey.storage import SqliteStorage
    storage = SqliteStorage(QUEUE_NAME, filename=str(path))
    with storage.db(commit=True) as curs:  # the stages' jobs (priorities 10 to 50), then a scan's
        curs.executemany("INSERT INTO task (queue, data, priority) VALUES (?, ?, ?)",
                         ((QUEUE_NAME, b"x" * 200, 10 + i % 5 * 10) for i in range(jobs)))
        curs.execute("INSERT INTO task (queue, data, priority) VALUES (?, ?, ?)", (QUEUE_NAME, b"scan", SCAN_PRIORITY))
    storage.close()


def timed(read, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        read()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sift-queue-") as folder:
        path = Path(folder) / "queue.db"
        make_queue(path, args.jobs)
        priorities = (SCAN_PRIORITY, SCAN_PRIORITY + URGENT)
        assert queue_reader.any_at_priorities(str(path), QUEUE_NAME, priorities)
        counted = timed(lambda: queue_reader.at_priorities(str(path), QUEUE_NAME, priorities), args.rounds)
        exists = timed(lambda: queue_reader.any_at_priorities(str(path), QUEUE_NAME, priorities), args.rounds)
    print(f"{args.jobs:,} jobs and a scan waiting: counted (before) {counted * 1000:.2f} ms, "
          f"exists {exists * 1000:.2f} ms, {counted / exists:.1f}x")


if __name__ == "__main__":
    main()
