"""What knowing a mail archive's writers costs a search (search.query.authors): the ``author`` filter and a question
naming a writer ('what did Ben write about …', 'did Docker publish …') read every mail passage's sender once per
catalog (a published generation), ``Catalog.load_authors``.

Writes a mailbox of MESSAGES messages (default 100,000) from 500 senders, each message a passage or two, and
indexes it keyword-only in this process (huey in immediate mode: the real pipeline and SQLite); HOME reuses an index
built before. Then times, medians of RUNS runs each on a fresh catalog: the senders' read (``load_authors``) the first
time in a process and for a later catalog (a publish since: the mail files' senders are kept by file version,
``authors.mail_senders``), the read of every catalog before (every mail passage's first 400 characters,
``author_reads.mail_heads``, its From line found in Python), and a first keyword search with ``author=`` on a fresh
engine against a later one (by FTS5: ``authors.condition``, which read every head for each search before).

    .venv/bin/python bench/author_heads.py [MESSAGES] [HOME]
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
RUNS = 5
SENDERS = 500


def message(n: int) -> str:
    who = n % SENDERS
    body = f"About the budget line {n}, and the plan for quarter {n % 4 + 1}.\n"
    if n % 10 == 0:  # a long one: more than one passage, the later ones without the head
        body += "\n".join(f"Paragraph {k} of the long report number {n}: " + "figures and notes " * 30
                          for k in range(12)) + "\n"
    return (f"From p{who}@example.com Tue Mar  5 09:00:00 2024\nFrom: Person{who} Surname{who} <p{who}@example.com>\n"
            f"To: Bo <bo@example.com>\nSubject: Budget {n}\nDate: Tue, 05 Mar 2024 09:00:00 +0000\n"
            f"Message-ID: <m{n}@example.com>\n\n{body}\n")


def build(home: Path, messages: int) -> None:
    root = home.parent / "mail"
    root.mkdir(parents=True)
    with open(root / "Inbox.mbox", "w") as out:
        for n in range(messages):
            out.write(message(n))
    from tests.conftest import ingest
    started = time.perf_counter()
    ingest(root, "mail")
    print(f"indexed a mailbox of {messages:,} messages in {time.perf_counter() - started:.1f} s")


def median_ms(way, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        way()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> int:
    messages = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    home = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="sift-authors-")) / "home"
    os.environ["SIFT_HOME"] = str(home)
    os.environ["SIFT_EMBEDDINGS"] = "off"
    from workers.app import huey
    huey.immediate = True
    if not (home / "index.db").exists():
        build(home, messages)
    from search.index import author_reads
    from search.query.authors import senders
    from search.query.catalog import Catalog
    from search.query.engine import Engine
    from search.query.filters import Filters
    from workers import runtime
    conn = runtime.index()
    catalog = Catalog.load(conn)
    mail = conn.execute("SELECT count(*) FROM chunks ch JOIN files f ON f.id = ch.file "
                        "WHERE f.path LIKE '%.mbox' AND f.gen_to IS NULL").fetchone()[0]
    print(f"{len(catalog.ids):,} passages, {mail:,} of them mail")
    from search.query import authors

    def first() -> None:
        getattr(authors, "_KEPT", {}).clear()  # as in a process that has read none of this index's senders (none kept before)
        Catalog.load(conn).load_authors(conn)
    ways = {"load_authors, the first in a process": first,
            "load_authors, a later catalog (after a publish)": lambda: Catalog.load(conn).load_authors(conn),
            "the mail passages' heads and senders (every catalog, before)":
                lambda: senders(author_reads.mail_heads(conn))}
    load_ms = median_ms(lambda: Catalog.load(conn))
    print(f"Catalog.load alone: {load_ms:.1f} ms (median of {RUNS})")
    for name, way in ways.items():
        print(f"{name}: {median_ms(way):.1f} ms (median of {RUNS})")
    known = Catalog.load(conn).load_authors(conn)
    print(f"{len(known.known_authors()):,} writers known; Person7 Surname7 wrote "
          f"{int(known.author_mask('Person7 Surname7').sum()):,} passages")
    firsts, laters = [], []
    for _ in range(RUNS):
        engine = Engine(home / "index.db", None, keyword_postings=False)
        t = time.perf_counter()
        found = engine.search("budget", mode="keyword", filters=Filters(author="Person7 Surname7"))
        firsts.append(time.perf_counter() - t)
        t = time.perf_counter()
        engine.search("plan", mode="keyword", filters=Filters(author="Person7 Surname7"))
        laters.append(time.perf_counter() - t)
        engine.close()
    print(f"search 'budget' author='Person7 Surname7': first on a fresh engine {statistics.median(firsts) * 1000:.0f} "
          f"ms, a later one {statistics.median(laters) * 1000:.0f} ms (medians of {RUNS}); {len(found.hits)} hits")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
