"""A notes folder synced between a laptop and a phone, under the real watcher and consumer: what each thing a sync
tool does to the folder costs, and what the index holds after it.

Copies ../shared/data/notes-en (or ``--folders`` of it) and makes up short notes until there are ``--notes`` files;
runs ``huey_consumer`` and ``python -m workers.watch`` (bench/freshness.py's consumer mode), then, one after the
other: a sync that sets every note's mtime without changing its bytes; conflict copies (Dropbox, Syncthing, Google
Drive, OneDrive) of ``--copies`` notes; Syncthing delivering an edit (its .syncthing.*.tmp renamed over the note,
the old version kept in .stversions/); iCloud freeing ``--freed`` notes to placeholders, then a tenth of them
deleted on the phone (their placeholders go); a rename storm of ``--renamed`` notes; a folder renamed on the phone;
two notes downloaded by browsers (Chrome's .crdownload, Firefox's empty file and .part), each under way for 7 s; and
what the sync clients and the system leave beside (.dropbox.cache/, ~$x.docx, .~lock.x.odt#, desktop.ini,
Thumbs.db, Icon\\r). For each: the generations made, the files read again, the chunks embedded, the seconds until
the index held what it should, whether it does (the files searchable against those expected: MISSING, EXTRA), and
how many files stats counts as not downloaded on this machine.

    SIFT_MODEL=minilm .venv/bin/python bench/synced_folder.py [--notes 2000] [--copies 20] [--freed 50]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from common import fresh_home, shared_data, wait, watched


def main() -> int:
    args = parse_args()
    os.environ.setdefault("SIFT_WORKERS", "2")
    home = fresh_home("synced-folder")
    root = home / "notes"
    source = shared_data("notes-en")
    for folder in args.folders or [p.name for p in source.iterdir() if p.is_dir()]:
        shutil.copytree(source / folder, root / folder)
    made = 0
    while len(notes(root)) < args.notes:
        (root / "phone").mkdir(exist_ok=True)
        (root / "phone" / f"memo-{made:04}.md").write_text(f"# Memo {made}\n\nA memo typed on the phone, number "
                                                           f"{made}, about errand {made % 37}.\n")
        made += 1
    expected = set(notes(root))
    with watched("consumer", root, home):
        from search.index import db
        conn = db.connect(home / "index.db", readonly=True)
        wait(lambda: calm(conn, expected), "the first build", deadline=7200, interval=0.5)
        print(f"{len(expected)} notes indexed", flush=True)
        for what, change in scenarios(root, args):
            expected = measure(conn, root, home, what, change, expected)
    return 0


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", nargs="*", help="folders of notes-en (all of them by default)")
    parser.add_argument("--notes", type=int, default=2000, help="made-up notes are added up to this many files")
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--freed", type=int, default=50)
    parser.add_argument("--renamed", type=int, default=500)
    return parser.parse_args()


def notes(root: Path) -> list[str]:
    """The notes a walk finds: *.md outside hidden folders, none of a sync client's own."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.md")
                  if not any(part.startswith(".") for part in p.relative_to(root).parts))


def scenarios(root: Path, args):
    """(what, change): ``change()`` alters the folder and returns the files the index should hold after it,
    given those it held (a set)."""
    every = notes(root)

    def touch(held):
        later = time.time() + 3600
        for rel in every:
            os.utime(root / rel, (later, later))  # bytes unchanged: the sync only set the other device's mtime
        return held

    def conflict_copies(held):
        made = set()
        for rel in every[:args.copies]:
            text, stem = (root / rel).read_text(), rel[:-3]
            for copy in (f"{stem} (conflicted copy 2024-03-14).md", f"{stem}.sync-conflict-20240314-101112-ABCDEFG.md",
                         f"{stem} (1).md", f"{stem}-DESKTOP-AB12CDE.md"):
                (root / copy).write_text(text + "\nEdited on the phone.\n")
                made.add(copy)
        return held | made

    def syncthing_delivers(held):
        rel = every[-1]
        folder, name = (root / rel).parent, (root / rel).name
        (root / ".stfolder").mkdir(exist_ok=True)
        (root / ".stversions" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, root / ".stversions" / f"{rel[:-3]}~20240314-101112.md")
        temp = folder / f".syncthing.{name}.tmp"
        temp.write_text((root / rel).read_text() + "\nA line added on the phone: kumquats.\n")
        os.replace(temp, root / rel)
        return held

    freed = every[len(every) // 20:len(every) // 20 + args.freed]

    def icloud_frees(held):
        for rel in freed:
            path = root / rel
            path.unlink()
            (path.parent / f".{path.name}.icloud").write_bytes(b"bplist00placeholder")
        return held

    def phone_deletes(held):
        gone = freed[:max(1, len(freed) // 10)]
        for rel in gone:
            (root / rel).parent.joinpath(f".{Path(rel).name}.icloud").unlink()
        return held - set(gone)

    def rename_storm(held):
        moved = [rel for rel in every[len(every) // 5:len(every) // 5 + args.renamed] if (root / rel).exists()]
        for rel in moved:
            os.rename(root / rel, root / f"{rel[:-3]} renamed.md")
        return (held - set(moved)) | {f"{rel[:-3]} renamed.md" for rel in moved}

    def folder_renamed(held):
        folder = sorted({rel.split("/")[0] for rel in every[len(every) // 2:] if "/" in rel})[0]
        freed_in = len(list((root / folder).rglob(".*.icloud")))  # their placeholders move with the folder
        print(f"  (the folder {folder}/ holds {freed_in} freed note(s), not on this disk)", flush=True)
        os.rename(root / folder, root / f"{folder}-phone")
        return {f"{folder}-phone/{rel[len(folder) + 1:]}" if rel.startswith(folder + "/") else rel for rel in held}

    def leftovers(held):
        (root / ".dropbox.cache" / "old").mkdir(parents=True, exist_ok=True)
        (root / ".dropbox.cache" / "old" / "note.md").write_text("# A partial download\n")
        for folder in sorted({Path(rel).parent for rel in notes(root)})[:20]:  # as they are now: one was renamed
            (root / folder / "desktop.ini").write_text("[.ShellClassInfo]\nIconResource=x\n")
            (root / folder / "Thumbs.db").write_bytes(b"\0" * 64)
            (root / folder / "Icon\r").write_bytes(b"")
        (root / "~$report.docx").write_bytes(b"x" * 162)
        (root / ".~lock.budget.ods#").write_text("x")
        return held

    def browser_downloads(held):
        chrome = root / "Unconfirmed 482913.crdownload"  # Chrome: a name of its own, then the file's with .crdownload
        chrome.write_text("# Kumquat marmalade\n\nSimmer the kumquats")
        time.sleep(7)  # longer than the watcher's burst: a download under way is seen alone
        os.rename(chrome, root / "kumquats.md.crdownload")
        with open(root / "kumquats.md.crdownload", "a") as rest:
            rest.write(" for an hour with sugar.\n")
        os.rename(root / "kumquats.md.crdownload", root / "kumquats.md")
        (root / "quince.md").write_bytes(b"")  # Firefox: an empty file of the final name, the bytes in .part
        (root / "quince.md.part").write_text("# Quince paste\n\nCook the quince with sugar")
        time.sleep(7)
        with open(root / "quince.md.part", "a") as rest:
            rest.write(" until it is dark red.\n")
        os.replace(root / "quince.md.part", root / "quince.md")
        return held | {"kumquats.md", "quince.md"}

    return [("a sync sets every note's mtime, bytes unchanged", touch),
            (f"conflict copies of {args.copies} notes (4 tools)", conflict_copies),
            ("Syncthing delivers an edit (.syncthing.*.tmp renamed over it, .stversions/ kept)", syncthing_delivers),
            (f"iCloud frees {len(freed)} notes to placeholders", icloud_frees),
            ("the phone deletes a tenth of them (their placeholders go)", phone_deletes),
            (f"a rename storm of {args.renamed} notes", rename_storm),
            ("a folder renamed on the phone", folder_renamed),
            ("browser downloads (Chrome's .crdownload; Firefox's empty file and .part), 7 s each", browser_downloads),
            ("sync and system leftovers (.dropbox.cache/, desktop.ini, Thumbs.db, Icon\\r, ~$, .~lock)", leftovers)]


def held(conn) -> set[str]:
    from search.query import reader
    return {f["path"] for f in reader.visible_files(conn)}


def calm(conn, expected: set[str] | None = None) -> bool:
    row = conn.execute("SELECT published, changes_noticed, (SELECT count(*) FROM generations WHERE state = "
                       "'building') AS building FROM collections").fetchone()
    if row is None or row["published"] is None or row["building"] or row["changes_noticed"]:
        return False
    return expected is None or held(conn) == expected


def measure(conn, root: Path, home: Path, what: str, change, expected: set[str]) -> set[str]:
    top = conn.execute("SELECT coalesce(max(id), 0) FROM generations").fetchone()[0]
    logged = (home / "processes.log").read_text(errors="replace").count("\n")
    started = time.monotonic()
    expected = change(expected)
    # the index may already hold what it should (a touch, a placeholder kept): wait for the watcher's scan first
    end = time.monotonic() + 15  # none comes for what the watcher leaves alone
    while not scanned(home, logged) and time.monotonic() < end:
        time.sleep(0.2)
    # until the index holds what it should (a scan queued may not have begun: calm alone ended a rename storm's
    # measure before its generation, which the next one counted), or a minute at most: what is wrong then is said
    end = time.monotonic() + 60
    while not calm(conn, expected) and time.monotonic() < end:
        time.sleep(0.2)
    wait(lambda: calm(conn), what, deadline=3600, interval=0.5)
    took = time.monotonic() - started
    time.sleep(5)  # a second scan of the same burst would come within the watcher's tick
    wait(lambda: calm(conn), what, deadline=3600, interval=0.5)
    generations = conn.execute("SELECT max(id) FROM generations").fetchone()[0] - top  # ids are never reused
    embedded, read = conn.execute("SELECT coalesce(sum(embedded), 0), coalesce(sum(change IN ('added', 'changed')), 0)"
                                  " FROM progress WHERE generation > ?", (top,)).fetchone()
    now = held(conn)
    lines = (home / "processes.log").read_text(errors="replace").splitlines()[logged:]
    scans = [line.split("sift.watch ")[1] for line in lines if "sift.watch queued" in line]
    verdict = f"; MISSING {len(expected - now)} (e.g. {sorted(expected - now)[:2]}), EXTRA {len(now - expected)} " \
            f"(e.g. {sorted(now - expected)[:2]})" if now != expected else ", as expected (MISSING 0, EXTRA 0)"
    print(f"{what}: {generations} generation(s), {read} files read, {embedded} chunks embedded, done in {took:.1f} s; "
          f"{len(now)} files searchable{verdict}; stats: {away(conn)} not downloaded; watcher: {'; '.join(scans[:3])}",
          flush=True)
    return expected


def away(conn) -> int:
    """The files stats counts as not downloaded on this machine (as the last scan found them)."""
    from search.index import file_reads
    return sum(file_reads.away_count(conn, row[0]) for row in conn.execute("SELECT id FROM collections"))


def scanned(home: Path, logged: int) -> bool:
    lines = (home / "processes.log").read_text(errors="replace").splitlines()[logged:]
    return any("sift.watch queued" in line for line in lines)


if __name__ == "__main__":
    sys.exit(main())
