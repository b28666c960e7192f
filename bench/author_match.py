"""What telling a recorded author from a name asked for costs over a mail archive's senders
(search.query.authors.wrote): a question naming its writer ('what did marketing decide') is matched against every
known author and sender (``named_author``), and the author filter against every mail passage's sender
(``Catalog.author_mask``). Synthetic senders ('Person17 Surname17 <p17@example17.com>'), in ASCII as most are;
each way timed seven times, interleaved: the medians, and the ratio against reading every sender's words.

With --initials, the addresses are initial.surname ('<p.surname17@example17.com>'), as most companies give them:
a letter alone, which sent every sender past the ASCII check to reading its words.

    .venv/bin/python bench/author_match.py [--senders 50000] [--passages 300000] [--initials]
"""
from __future__ import annotations

import argparse
import statistics
import time

from search.query.authors import name_words, named_author, wrote


def old_wrote(recorded: str | None, name: str) -> bool:  # before: every recorded author's words read
    return bool(recorded) and set(name_words(name)) <= set(name_words(recorded))


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--senders", type=int, default=50_000)
    parser.add_argument("--passages", type=int, default=300_000)
    parser.add_argument("--initials", action="store_true", help="addresses initial.surname: p.surname17@")
    args = parser.parse_args()
    local = "p.surname{i}" if args.initials else "p{i}"
    known = [f"Person{i} Surname{i} <{local.format(i=i)}@example{i % 50}.com>" for i in range(args.senders)]
    chunks = [known[i % len(known)] for i in range(args.passages)]
    question = "what did marketing decide about the budget"
    ways = {
        "question (named_author), old": lambda: any(old_wrote(a, "marketing") for a in known),
        "question (named_author), new": lambda: named_author(question, known),
        "filter (passages' senders), old": lambda: [old_wrote(s, "ben") for s in chunks],
        "filter (passages' senders), new": lambda: [wrote(s, "ben") for s in chunks],
    }
    runs: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(7):
        for name, run in ways.items():
            runs[name].append(timed(run))
    medians = {name: statistics.median(times) for name, times in runs.items()}
    for name, median in medians.items():
        print(f"{name:34} {median * 1000:8.1f} ms")
    for what in ("question (named_author)", "filter (passages' senders)"):
        print(f"{what}: {medians[what + ', old'] / medians[what + ', new']:.1f}x faster")


if __name__ == "__main__":
    main()
