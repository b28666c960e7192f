"""The first answer of a first build in parts whose folder holds one big note: notes-en's README.md (164 KB, 300
chunks, over SIFT_BACKGROUND_CHUNKS) and its first ``--notes`` other notes, built by a real consumer (two workers)
in parts of ``--first-part``. Prints the seconds from the first scan's generation beginning to the first part
published (the first answer) and to the whole folder searchable, for each of ``--runs`` fresh homes.

    SIFT_MODEL=minilm .venv/bin/python bench/first_part_big.py [--notes 60] [--first-part 20] [--runs 3]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

from common import BIN, consumer, fresh_home, median, shared_data, stop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=60)
    parser.add_argument("--first-part", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    notes = shared_data("notes-en")
    root = Path(tempfile.mkdtemp(prefix="sift-big-notes-")) / "notes"
    root.mkdir()
    shutil.copy(notes / "README.md", root / "README.md")
    for path in sorted(notes.rglob("*.md"))[:args.notes]:
        if path.name != "README.md":
            target = root / path.relative_to(notes)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    firsts, wholes = [], []
    for _ in range(args.runs):
        first, whole = _run(root, args.first_part)
        firsts.append(first)
        wholes.append(whole)
        print(f"first answer {first:.1f} s, the whole folder {whole:.1f} s")
    print(f"median of {args.runs}: first answer {median(firsts):.1f} s, the whole folder {median(wholes):.1f} s")
    return 0


def _run(root: Path, first_part: int) -> tuple[float, float]:
    home = fresh_home("first-part-big")
    env = dict(os.environ, SIFT_FIRST_PART=str(first_part))
    subprocess.run([str(BIN / "ingest"), "enqueue", str(root)], env=env, check=True, capture_output=True)
    proc = consumer("workers.app.huey", env, home / "consumer.log")
    try:
        db, began, first = home / "index.db", None, None
        while True:
            time.sleep(0.5)
            conn = sqlite3.connect(db, timeout=5)
            began = began or conn.execute("SELECT min(started) FROM generations").fetchone()[0]
            first = first or conn.execute("SELECT min(finished) FROM generations").fetchone()[0]
            done = conn.execute(
                "SELECT g.finished FROM collections c JOIN generations g ON g.id = c.published WHERE NOT EXISTS "
                "(SELECT 1 FROM progress p WHERE p.generation = g.id AND p.state IN ('failed', 'skipped')) AND NOT "
                "EXISTS (SELECT 1 FROM generations b WHERE b.state = 'building')").fetchone()
            conn.close()
            if done and first:
                return first - began, done[0] - began
    finally:
        stop(proc)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
