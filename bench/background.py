"""A big file and a later edit in the same collection: how long the edit takes to be searchable.

With a real ``huey_consumer`` (two workers): indexes a folder of one small note, adds a note of ``--sections``
sections (one chunk each, about 200 tokens) and queues a scan; once the big note is being embedded, edits the
small note and queues a scan; prints the seconds from the edit to the edit found by a keyword search, and from
the big note's scan to the big note found by a keyword search, and to its own build written with its vectors
(searchable by meaning). Before workers.tasks.embed_in_background the edit waited for the big note's build; before
its words were written by the build that hands it to the background, it was found by no search until then.

    .venv/bin/python bench/background.py [--sections 1000]   # SIFT_MODEL as usual (the default model if unset)
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from common import REPO, consumer, fresh_home, stop

BIN = Path(sys.executable).parent
DEADLINE = 3600.0  # seconds to wait for any one thing before giving up


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=1000, help="sections (chunks) of the big note")
    args = parser.parse_args()
    home = fresh_home("background")
    os.environ["SIFT_WORKERS"] = "2"
    root = home / "notes"
    root.mkdir()
    (root / "small.md").write_text("# Small\n\nThe pelican sings at dawn.\n")
    proc = consumer("workers.app.huey", dict(os.environ), home / "consumer.log")
    try:
        ingest("enqueue", str(root), "--name", "notes", "--wait")
        from search.query.engine import Engine
        engine = Engine(home / "index.db")
        (root / "big.md").write_text("".join(f"# Part {i}\n\n" + " ".join(
            f"Line {j} of part {i} of the long log tells of narwhal {i}.{j} and where it travelled that season."
            for j in range(12)) + "\n\n" for i in range(args.sections)))
        big_queued = time.monotonic()
        ingest("enqueue", str(root), "--name", "notes")
        wait(lambda: embedding_big(home / "index.db"), "the big note being embedded", proc)
        (root / "small.md").write_text("# Small\n\nThe heron sings at dawn.\n")
        edited = time.monotonic()
        ingest("enqueue", str(root), "--name", "notes")
        wait(lambda: found(engine, "heron"), "the edit", proc)
        edit_seconds = time.monotonic() - edited
        big_then = found(engine, "narwhal")
        wait(lambda: found(engine, "narwhal"), "the big note", proc)
        big_seconds = time.monotonic() - big_queued
        wait(lambda: by_meaning(home / "index.db"), "the big note's vectors", proc)
        meaning_seconds = time.monotonic() - big_queued
        print(f"big note of {args.sections} sections, model {os.environ['SIFT_MODEL']}: edit searchable "
              f"{edit_seconds:.1f} s after it was made ({'after' if big_then else 'before'} the big note); big note "
              f"searchable by keyword {big_seconds:.1f} s after its scan was queued, by meaning {meaning_seconds:.1f} s;"
              f" heron still found: "
              f"{found(engine, 'heron')} (logs: {home / 'consumer.log'})", flush=True)
    finally:
        stop(proc)
    return 0


def ingest(*args: str) -> None:
    subprocess.run([str(BIN / "ingest"), *args], cwd=REPO, check=True, capture_output=True, timeout=DEADLINE)


def embedding_big(index: Path) -> bool:
    """Some of big.md's chunks are embedded: by a job of its build (``working``), or in the background with no
    build under way (``background``, where that table exists)."""
    conn = sqlite3.connect(index)
    try:
        if conn.execute("SELECT 1 FROM working WHERE path = 'big.md' AND stage = 'embed' AND done > 0").fetchone():
            return True
        aside = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'background'").fetchone() and \
            conn.execute("SELECT 1 FROM background WHERE done > 0").fetchone()
        return bool(aside) and not conn.execute("SELECT 1 FROM generations WHERE state = 'building'").fetchone()
    finally:
        conn.close()


def by_meaning(index: Path) -> bool:
    """big.md's own build is published: no background row, no build under way, a vector for each of its chunks."""
    conn = sqlite3.connect(index)
    try:
        if conn.execute("SELECT 1 FROM generations WHERE state = 'building'").fetchone() or (
                conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'background'").fetchone()
                and conn.execute("SELECT 1 FROM background").fetchone()):
            return False
        return conn.execute("SELECT count(*) > 0 AND count(*) = count(v.text_hash) FROM files f JOIN chunks ch "
                            "ON ch.file = f.id LEFT JOIN vectors v ON v.text_hash = ch.text_hash "
                            "WHERE f.path = 'big.md' AND f.gen_to IS NULL").fetchone()[0] == 1
    finally:
        conn.close()


def found(engine, word: str) -> bool:
    return bool(engine.search(word, limit=5, mode="keyword").hits)


def wait(check, what: str, proc) -> None:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if check():
            return
        if proc.poll() is not None:
            sys.exit(f"the consumer exited while waiting for {what}")
        time.sleep(0.2)
    sys.exit(f"timed out waiting for {what}")


if __name__ == "__main__":
    sys.exit(main())
