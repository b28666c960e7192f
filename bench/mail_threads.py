"""The thread lookup of a page of mail hits (search.query.mail_threads): by the index's table of messages (schema
V23, mail_messages) against the way before it, the .eml files' meta read as JSON (json_extract over every file
that has a thread, ``_threads_of_meta``).

Writes a folder of ``EML`` saved messages in threads of four (a first message and three replies, each naming the one
before) and a mailbox of ``MBOX`` messages in threads of four of its own; indexes it
keyword-only in this process (huey in immediate mode: the real pipeline and SQLite); then times the lookup for a
page of ten hits (ten .eml replies) both ways, the median of RUNS runs each, and the ratio.

Then a long-running Subject: a mailbox 'Reports' of ``WEEKLY`` messages 'Weekly report' from Anna over three years
and a 'Sent' of a phone's reply naming no parent ('Re: Weekly report') to every hundredth (55 days apart: no reply
joins another): the lookup for a page of the first ten of those replies (each joined by its Subject to the report
before it), its time and how many of the ten it joins.

    .venv/bin/python bench/mail_threads.py [EML] [MBOX] [WEEKLY]
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from email.utils import formatdate
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
RUNS = 15


def message(n: int, thread: int, at: int) -> str:
    head = [f"From: Person {n % 7} <p{n % 7}@example.com>", "To: Bo <bo@example.com>",
            f"Subject: {'Re: ' if at else ''}Topic {thread}", f"Date: Tue, 05 Mar 2024 {9 + at:02d}:00:00 +0000",
            f"Message-ID: <m{n}@example.com>"]
    if at:
        head += [f"In-Reply-To: <m{n - 1}@example.com>", f"References: <m{n - at}@example.com> <m{n - 1}@example.com>"]
    return "\n".join(head) + f"\n\nThe {['plan', 'reply', 'answer', 'close'][at]} about topic {thread}, number {n}.\n"


def write(root: Path, eml: int, mbox: int) -> None:
    (root / "Saved").mkdir(parents=True)
    for n in range(eml):
        (root / "Saved" / f"{n:05d}.eml").write_text(message(n, n // 4, n % 4))
    box = []
    for n in range(eml, eml + mbox):
        box.append("From bo@example.com Tue Mar  5 09:00:00 2024\n" + message(n, n // 4, n % 4) + "\n")
    (root / "archive.mbox").write_text("".join(box))


def write_reports(root: Path, weekly: int) -> None:
    """``weekly`` reports over three years in 'Reports', a reply naming no parent ten minutes after every hundredth."""
    start, step = 1_700_000_000, 3 * 365 * 86400 // weekly
    head = "From anna@example.com Tue Mar  5 09:00:00 2024\nFrom: Anna <anna@example.com>\nTo: Bo <bo@example.com>\n"
    (root / "Reports").write_text("".join(
        f"{head}Subject: Weekly report\nDate: {formatdate(start + n * step)}\nMessage-ID: <w{n}@example.com>\n\n"
        f"Report {n}.\n\n" for n in range(weekly)))
    head = "From bo@example.com Tue Mar  5 09:00:00 2024\nFrom: Bo <bo@example.com>\nTo: Anna <anna@example.com>\n"
    (root / "Sent").write_text("".join(
        f"{head}Subject: Re: Weekly report\nDate: {formatdate(start + n * step + 600)}\n"
        f"Message-ID: <r{n}@example.com>\n\nThanks for report {n}.\n\n" for n in range(0, weekly, 100)))


def reports(conn, runs: int) -> None:
    from search.query import mail_threads
    rows = conn.execute("SELECT f.collection, f.id, m.line FROM files f JOIN mail_messages m ON m.file = f.id "
                        "WHERE f.path = 'Sent' AND f.gen_to IS NULL ORDER BY m.line").fetchall()
    page = [tuple(r) for r in rows[:10]]  # the first ten replies: of the Subject's earliest messages
    found = mail_threads.threads(conn, page)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        mail_threads.threads(conn, page)
        times.append(time.perf_counter() - t)
    print(f"a long-running Subject: {statistics.median(times) * 1000:.2f} ms for a page of ten replies naming no "
          f"parent (median of {runs}); {len(found)} of the ten joined to a report")


def main() -> int:
    eml, mbox, weekly = (int(a) for a in (sys.argv[1:4] + ["4000", "4000", "2000"][len(sys.argv[1:4]):]))
    scratch = Path(tempfile.mkdtemp(prefix="sift-threads-"))
    os.environ["SIFT_HOME"] = str(scratch / "home")
    os.environ["SIFT_EMBEDDINGS"] = "off"
    write(scratch / "mail", eml, mbox)
    write_reports(scratch / "mail", weekly)
    from tests.conftest import ingest
    from workers import runtime
    from workers.app import huey
    huey.immediate = True
    started = time.perf_counter()
    ingest(scratch / "mail", "mail")
    print(f"indexed {eml:,} .eml files and a mailbox of {mbox:,} messages in {time.perf_counter() - started:.1f} s")
    from search.query import mail_threads
    conn = runtime.index()
    rows = conn.execute("SELECT f.collection, f.id FROM files f WHERE f.path LIKE 'Saved/%' AND f.gen_to IS NULL "
                        "ORDER BY f.path").fetchall()
    page = [(c, f, 1) for c, f in rows[1:4 * 10:4]][:10]  # ten replies, each of another thread
    ways = {"mail_messages (V23)": lambda: mail_threads.threads(conn, page),
            "files.meta JSON (before)": lambda: mail_threads._threads_of_meta(conn, [(c, f) for c, f, _ in page])}
    medians = {}
    for name, way in ways.items():
        found = way()
        times = []
        for _ in range(RUNS):
            t = time.perf_counter()
            way()
            times.append(time.perf_counter() - t)
        medians[name] = statistics.median(times)
        print(f"{name}: {medians[name] * 1000:.2f} ms for a page of ten hits (median of {RUNS}); "
              f"{sum(len(m) for _, m in found.values())} thread messages found")
    new, old = medians.values()
    print(f"ratio: the table takes {new / old:.2f} of the time the meta took")
    reports(conn, RUNS)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
