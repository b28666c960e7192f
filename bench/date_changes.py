"""How many files' dates a change to ingest.passage_dates changes: each file's name and folder date, and each
Markdown or org heading's, read by this tree's module and by an older revision's, over the folders given.

A date rule is checked against real paths for false dates before it is kept: a rule that dates 'Invoice
202403141530.pdf' or a project's '2024/Top 10/' would show here as a change.

    python bench/date_changes.py --against base-46 /work/shared/data /

A heading's reading is (year, month, day) of ingest.passage_dates.heading_parts, written_date's, and
ingest.short_dates.week's (year, week) where the revision has that module.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = ("/proc", "/sys", "/dev", "/run", "/tmp/rev-", "/tmp/bash_jobs")  # and this round's working copies
HEADING = re.compile(r"(?:#{1,6}|\*{1,6}) (.+)")
TEXT = (".md", ".markdown", ".org", ".txt", ".rst")


def _older(revision: str, name: str = "passage_dates"):
    """ingest.passage_dates (or another ingest module) as it was at ``revision``, loaded beside this tree's; None
    where the revision has no such module."""
    shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:ingest/{name}.py"],
                           capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    path = Path(tempfile.mkdtemp(prefix="date_changes-")) / f"older_{name}.py"
    path.write_text(shown.stdout)
    spec = importlib.util.spec_from_file_location(f"older_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(dates, short, heading: str) -> tuple:
    """What a revision reads of a heading: its parts, a front matter's date, a calendar week (ingest.short_dates,
    where the revision has it)."""
    return (dates.heading_parts(heading), dates.written_date(heading),
            short.week(heading.strip()) if short is not None else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", default="HEAD~1", help="the git revision to compare with")
    parser.add_argument("--shown", type=int, default=30, help="changes to print")
    parser.add_argument("roots", nargs="+")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import ingest.passage_dates as new
    import ingest.short_dates as new_short
    old, old_short = _older(args.against), _older(args.against, "short_dates")
    files = changed = headings = headings_changed = 0
    for root in args.roots:
        for folder, dirs, names in os.walk(root):
            if folder.startswith(SKIPPED):
                dirs[:] = []
                continue
            for name in names:
                path = os.path.relpath(os.path.join(folder, name), root)
                files += 1
                before = old.name_date(path) or old.folder_date(path)
                after = new.name_date(path) or new.folder_date(path)
                if before != after:
                    changed += 1
                    if changed <= args.shown:
                        print(f"name  {path}: {new.shown(before)} -> {new.shown(after)}")
                if not name.endswith(TEXT) or not os.path.isfile(os.path.join(folder, name)):
                    continue  # a FIFO named 'x.txt' would block the read
                try:
                    text = open(os.path.join(folder, name), encoding="utf-8", errors="replace").read(200_000)
                except OSError:
                    continue
                for found in map(HEADING.fullmatch, text.split("\n")):
                    if not found:
                        continue
                    headings += 1
                    heading = found[1]
                    before, after = _read(old, old_short, heading), _read(new, new_short, heading)
                    if before != after:
                        headings_changed += 1
                        if headings_changed <= args.shown:
                            print(f"heading  {path}: {heading[:80]!r}: {before} -> {after}")
    print(f"{files:,} files, {changed:,} of their name or folder dates change; "
          f"{headings:,} headings, {headings_changed:,} of their dates change")


if __name__ == "__main__":
    main()
