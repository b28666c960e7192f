"""A first build of notes-en: how long until a search first answers, and until the whole folder is searchable.

With a real ``huey_consumer`` (two workers, the default model unless SIFT_MODEL says otherwise): queues the first
scan of notes-en (1,874 files) in a fresh home and polls every half second with a keyword search of ``--word``
(the published generation, as a client searches); prints the seconds from the scan queued to the first answer (and
the files searchable then), and to the whole folder searchable (a published generation that leaves no file to a
later part, no build and no big file in the background under way). ``--first-part 0`` builds it as before, in one generation (the first answer is then the whole build).

    .venv/bin/python bench/first_answer.py [--first-part 100] [--files N]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from common import REPO, consumer, fresh_home, shared_data, stop

BIN = Path(sys.executable).parent
DEADLINE = 7200.0  # seconds to wait before giving up


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-part", type=int, default=100, help="SIFT_FIRST_PART (0: one generation)")
    parser.add_argument("--files", type=int, default=0, help="only the first N files of notes-en (0: all)")
    parser.add_argument("--word", default="the", help="the word searched for")
    args = parser.parse_args()
    home = fresh_home("first-answer")
    os.environ["SIFT_WORKERS"] = "2"
    os.environ["SIFT_FIRST_PART"] = str(args.first_part)
    source = shared_data("notes-en")
    root = source
    if args.files:
        root = home / "notes"
        for path in sorted(p for p in source.rglob("*") if p.is_file())[:args.files]:
            (root / path.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, root / path.relative_to(source))
    proc = consumer("workers.app.huey", dict(os.environ), home / "consumer.log")
    from search.query.engine import Engine
    try:
        queued = time.monotonic()
        subprocess.run([str(BIN / "ingest"), "enqueue", str(root), "--name", "notes"], cwd=REPO, check=True,
                       capture_output=True)
        first = whole = None
        first_files = 0
        while whole is None and time.monotonic() - queued < DEADLINE:
            time.sleep(0.5)
            if proc.poll() is not None:
                sys.exit(f"the consumer exited (log: {home / 'consumer.log'})")
            if not (home / "index.db").exists():
                continue
            if first is None and Engine(home / "index.db").search(args.word, limit=5, mode="keyword").hits:
                first = time.monotonic() - queued
                first_files = _searchable(home)[0]
            files, left, building = _searchable(home)
            if first is not None and files and not left and not building:
                whole = time.monotonic() - queued
        files = _searchable(home)[0]
        print(f"SIFT_FIRST_PART={args.first_part}, {files:,} files, model {os.environ['SIFT_MODEL']}: first answer "
              f"{first:.1f} s after the scan was queued ({first_files:,} files searchable then); the whole folder "
              f"searchable after {whole:.1f} s (log: {home / 'consumer.log'})", flush=True)
    finally:
        stop(proc)
    return 0


def _searchable(home: Path) -> tuple[int, int, bool]:
    """(files searchable, files the published part leaves to later parts, a generation being built or a big file
    embedded in the background)."""
    from search.index import generation_reads, progress_reads, work_reads
    conn = sqlite3.connect(home / "index.db")
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("SELECT id, published FROM collections WHERE name = 'notes'").fetchone()
        if row is None or row["published"] is None:
            return 0, 0, True
        # a big file embedded in the background (README.md of notes-en, 300 chunks) is under way too, till its build
        building = generation_reads.building_generation(conn, row["id"]) is not None or bool(work_reads.background(conn, row["id"]))
        return progress_reads.searchable(conn, row["id"], row["published"])[0], progress_reads.deferred(conn, row["published"]), \
            building
    finally:
        conn.close()


if __name__ == "__main__":
    sys.exit(main())
