"""What saying a mailbox's messages and threads costs list_files (search.query.listing.mailbox_messages): the
count of its messages from its meta, its threads joined from the index's table of messages (schema V23's
mail_messages) and those that go on in the collection's other mail files.

Writes a mailbox of ``MESSAGES`` messages in threads of four (a first message and three replies, each naming the
one before) and a Sent mailbox of a reply to every tenth thread; indexes them keyword-only in this process (huey in
immediate mode: the real pipeline and SQLite); then times the listing of the collection (its two files): with the
mailboxes' counts made afresh (a generation's first listing), with them kept from the one before (a later listing of
the same generation: search.query.mail_threads keeps them), and without them (listed plain 'indexed', the way
before), the median of RUNS runs each; then the first listing after a publish of a note of the collection (the
mailboxes unchanged: their counts are kept by the mail files' versions, not by the generation).

    .venv/bin/python bench/mailbox_listing.py [MESSAGES]
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
RUNS = 7


def message(n: int, at: int, reply_to: int | None) -> str:
    head = [f"From p{n % 7}@example.com Tue Mar  5 09:00:00 2024", f"From: Person {n % 7} <p{n % 7}@example.com>",
            "To: Bo <bo@example.com>", f"Subject: {'Re: ' if at else ''}Topic {n // 4}",
            f"Date: Tue, 05 Mar 2024 {9 + at:02d}:00:00 -0500", f"Message-ID: <m{n}@example.com>"]
    if reply_to is not None:
        head += [f"In-Reply-To: <m{reply_to}@example.com>", f"References: <m{reply_to - reply_to % 4}@example.com> "
                 f"<m{reply_to}@example.com>"]
    return "\n".join(head) + f"\n\nAbout topic {n // 4}, number {n}.\n\n"


def write(root: Path, messages: int) -> None:
    root.mkdir(parents=True)
    (root / "Inbox.mbox").write_text("".join(message(n, n % 4, n - 1 if n % 4 else None) for n in range(messages)))
    (root / "Sent.mbox").write_text("".join(message(messages + n, 3, n + 3) for n in range(0, messages, 40)))


def main() -> int:
    messages = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    scratch = Path(tempfile.mkdtemp(prefix="sift-mailbox-"))
    os.environ["SIFT_HOME"] = str(scratch / "home")
    os.environ["SIFT_EMBEDDINGS"] = "off"
    write(scratch / "mail", messages)
    from tests.conftest import ingest
    from workers import runtime
    from workers.app import huey
    huey.immediate = True
    started = time.perf_counter()
    ingest(scratch / "mail", "mail")
    print(f"indexed a mailbox of {messages:,} messages and a Sent one of {len(range(0, messages, 40)):,} in "
          f"{time.perf_counter() - started:.1f} s")
    from search.query import listing
    from search.query.scope import MCP, scope
    conn = runtime.index()
    roots = {"mail": str(scratch / "mail")}
    where = scope("mail", None, roots, MCP, conn)

    def listed() -> dict:
        return listing.files(conn, where, None, "path", 50, roots, MCP, lambda *_: "note")
    from search.query import mail_threads
    said = listing.mailbox_messages
    ways = {"counted (a generation's first listing)": (said, True), "counted before (listed again)": (said, False),
            "plain 'indexed' (before)": (lambda *_: None, False)}
    medians = {}
    for name, (way, afresh) in ways.items():
        listing.mailbox_messages = way
        shown = listed()
        times = []
        for _ in range(RUNS):
            if afresh:
                mail_threads._counted.clear()
            t = time.perf_counter()
            listed()
            times.append(time.perf_counter() - t)
        medians[name] = statistics.median(times)
        print(f"{name}: {medians[name] * 1000:.1f} ms a listing (median of {RUNS}); Inbox.mbox: "
              f"{next(f['reason'] for f in shown['files'] if f['path'] == 'mail/Inbox.mbox')}")
    listing.mailbox_messages = said
    first, again, old = medians.values()
    print(f"the mailboxes' counts add {(first - old) * 1000:.1f} ms to a generation's first listing, "
          f"{(again - old) * 1000:.2f} ms to a later one")
    times = []  # a note of the collection saved and published: the next listing (the mailboxes unchanged)
    for n in range(RUNS):
        (scratch / "mail" / "note.md").write_text(f"# A note\nSaved {n} times.\n")
        ingest(scratch / "mail", "mail")
        conn = runtime.index()
        where = scope("mail", None, roots, MCP, conn)
        t = time.perf_counter()
        listing.files(conn, where, None, "path", 50, roots, MCP, lambda *_: "note")
        times.append(time.perf_counter() - t)
    print(f"the first listing after a note's publish: {statistics.median(times) * 1000:.1f} ms (median of {RUNS})")
    counted = {}  # the Inbox's counts afresh, with the replies joined by their Subject to another file and without
    inbox = conn.execute("SELECT collection, id FROM files WHERE path = 'Inbox.mbox' AND gen_to IS NULL").fetchone()
    joined_across = mail_threads._joined_across
    for name, way in (("with the Subject joins", joined_across), ("without (before)", lambda *_: [])):
        mail_threads._joined_across = way
        times = []
        for _ in range(RUNS):
            t = time.perf_counter()
            mail_threads._count_threads(conn, inbox[0], inbox[1], "Inbox.mbox")
            times.append(time.perf_counter() - t)
        counted[name] = statistics.median(times)
    mail_threads._joined_across = joined_across
    print("the Inbox's threads counted afresh: " + ", ".join(f"{name} {t * 1000:.1f} ms" for name, t in counted.items())
          + f" (median of {RUNS})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
