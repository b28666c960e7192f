"""A git branch switch under the real watcher: how many generations, how many chunks embedded, how long.

Copies some folders of ../shared/data/notes-en into a git repository and makes a second branch that moves the first
two of them under lang/, edits ``--edited`` notes of the first and adds ``--added`` notes; runs
``huey_consumer`` and ``python -m workers.watch`` (bench/freshness.py's consumer mode), then checks out the other
branch and back, twice, and moves a folder by hand. For each: the generations made, the chunks embedded, the
seconds from the command to the index holding the files it left on disk, the watcher's log lines.

    SIFT_MODEL=minilm .venv/bin/python bench/branch_switch.py [--folders git python sqlite docker bash]
    [--edited 20] [--added 10]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

from common import fresh_home, shared_data, wait, watched

GIT = ["git", "-c", "user.email=bench@sift", "-c", "user.name=bench"]


def main() -> int:
    args = parse_args()
    os.environ.setdefault("SIFT_WORKERS", "2")
    home = fresh_home("branch-switch")
    root = home / "notes"
    for folder in args.folders:
        shutil.copytree(shared_data("notes-en") / folder, root / folder)
    make_branches(root, args.folders[:2], args.edited, args.added)
    with watched("consumer", root, home):
        from search.index import db
        conn = db.connect(home / "index.db", readonly=True)
        wait(lambda: calm(conn, root), "the first build", interval=1.0, deadline=7200)
        print(f"{len(on_disk(root))} notes; other branch: {' and '.join(args.folders[:2])} moved under lang/, "
              f"{args.edited} notes "
              f"edited, {args.added} added", flush=True)
        for command in (["git", "checkout", "-q", "other"], ["git", "checkout", "-q", "main"],
                        ["git", "checkout", "-q", "other"], ["git", "checkout", "-q", "main"],
                        ["mv", args.folders[1], args.folders[1] + "-moved"]):
            measure(conn, root, home, command)
    return 0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", nargs="+", default=["git", "python", "sqlite", "docker", "bash"])
    parser.add_argument("--edited", type=int, default=20)
    parser.add_argument("--added", type=int, default=10)
    return parser.parse_args()


def make_branches(root, moved: list[str], edited: int, added: int) -> None:
    def git(*args):
        subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", "main")
    git("checkout", "-qb", "other")
    for note in sorted((root / moved[0]).glob("*.md"))[:edited]:
        note.write_text(note.read_text() + f"\nReviewed on the other branch: {note.stem}.\n")
    (root / "lang").mkdir()
    for folder in moved:
        git("mv", folder, f"lang/{folder}")
    for i in range(added):
        (root / "lang" / f"added-{i}.md").write_text(f"# Added {i}\n\nA note only the other branch has, number {i}.\n")
    git("add", "-A")
    git("commit", "-qm", "other")
    git("checkout", "-q", "main")


def on_disk(root) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*.md") if ".git" not in p.parts}


def calm(conn, root) -> bool:
    from search.query import reader
    row = conn.execute("SELECT published, changes_noticed, (SELECT count(*) FROM generations WHERE state = "
                       "'building') AS building FROM collections").fetchone()
    if row is None or row["published"] is None or row["building"] or row["changes_noticed"]:
        return False
    return {f["path"] for f in reader.visible_files(conn)} == on_disk(root)


def measure(conn, root, home, command: list[str]) -> None:
    top = conn.execute("SELECT coalesce(max(id), 0) FROM generations").fetchone()[0]
    logged = (home / "processes.log").read_text(errors="replace").count("\n")
    started = time.monotonic()
    subprocess.run(command, cwd=root, check=True)
    wait(lambda: calm(conn, root), " ".join(command), interval=0.5, deadline=3600)
    took = time.monotonic() - started
    time.sleep(5)  # a second scan of the same burst would come within the watcher's tick
    generations = conn.execute("SELECT max(id) FROM generations").fetchone()[0] - top  # ids are never reused
    embedded = conn.execute("SELECT coalesce(sum(embedded), 0) FROM progress WHERE generation > ?",
                            (top,)).fetchone()[0]
    lines = (home / "processes.log").read_text(errors="replace").splitlines()[logged:]
    scans = [line.split("sift.watch ")[1] for line in lines if "sift.watch queued" in line]
    print(f"{' '.join(command)}: {generations} generation(s), {embedded} chunks embedded, searchable in {took:.1f} s; "
          f"watcher: {'; '.join(scans)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
