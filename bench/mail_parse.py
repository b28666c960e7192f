"""A mailbox's parse (ingest.mail.parse_mbox): CPU time of reading a Thunderbird folder of plain messages, each
addressed to several people, in threads of replies (a third of the replies a phone's, naming no parent), medians
of several runs; and the share of it ``Threads`` spends keeping each message to join a reply by its Subject
(``Threads._keep``, by cProfile). ``PYTHONPATH=older-checkout`` measures another Sift.

    .venv/bin/python bench/mail_parse.py [MESSAGES] [RUNS]
"""
from __future__ import annotations

import cProfile
import os
import pstats
import statistics
import sys
import time
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]  # bench/ingest.py is not the package
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, os.path.dirname(HERE))

PEOPLE = [f"Person {n} <person{n}@example.com>" for n in range(40)]


def mailbox(messages: int) -> bytes:
    out, start = [], datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
    for n in range(messages):
        thread, turn = divmod(n, 4)
        when = start + timedelta(hours=n)
        sender = PEOPLE[(thread + turn) % 40]
        to = ", ".join(PEOPLE[(thread + turn + k) % 40] for k in range(1, 6))
        cc = ", ".join(PEOPLE[(thread + turn + k) % 40] for k in range(6, 9))
        head = [f"From - {when:%a %b %d %H:%M:%S %Y}", f"From: {sender}", f"To: {to}", f"Cc: {cc}",
                f"Subject: {'Re: ' if turn else ''}Budget of project {thread}", f"Date: {format_datetime(when)}",
                f"Message-ID: <m{n}@example.com>"]
        if turn and n % 3:  # a phone's reply names no parent
            head.append(f"In-Reply-To: <m{n - 1}@example.com>")
        body = f"Point {n}: the roof budget and the zinc gutters need another look before spring.\n" * 4
        out.append("\n".join(head) + "\n\n" + body)
    return "\n".join(out).encode()


def main() -> None:
    from ingest.mail import parse_mbox
    messages = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    data = mailbox(messages)
    times = []
    for _ in range(runs):
        began = time.process_time()
        doc = parse_mbox("Inbox", data)
        times.append(time.process_time() - began)
    profile = cProfile.Profile()
    profile.enable()
    parse_mbox("Inbox", data)
    profile.disable()
    stats = pstats.Stats(profile).stats
    total = max(cum for _, _, _, cum, _ in stats.values())
    keep = sum(cum for (_, _, name), (_, _, _, cum, _) in stats.items() if name == "_keep")
    print(f"{messages} messages, {len(data) / 2**20:.1f} MiB, {len(doc.sections)} sections: parse median "
          f"{statistics.median(times):.3f} s CPU of {runs} ({', '.join(f'{t:.3f}' for t in times)}); "
          f"Threads._keep {keep / total:.1%} of the profiled parse")


if __name__ == "__main__":
    main()
