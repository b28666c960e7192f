"""What a keyword search with misspelled words costs while the postings are read (FTS5 answers), and with them held.

A word no passage holds is looked up as the word meant (``keyword.slip_forms``) and the spelling note looks for a
suggestion (``spelling.note``): both ask how many passages hold each stem of the word's one-edit variants, hundreds of
terms a word. FTS5 was asked a term at a time; now all of a word's are asked in one statement
(``term_counts.TermCounts``). This script times both ways in one process on notes-en (built into ``--home`` unless it
is there; ``SIFT_EMBEDDINGS=off`` is enough): "one by one" puts back a statement a term (the old way), "at once" is the
code as it is. The runs alternate, each figure the median of ``--runs``, with its ratio (at once / one by one).
Then, with the postings in memory, the look-ups of a word no passage holds (one edit and two slips away,
``keyword._two_slips``, and the note's) tokenizing every variant ("every variant", the old way) or only those whose
stem could be a held term ("can stem", ``keyword.stemmable``), both with the variants' tokens cached (a query asked
again) and with them cleared before each run (a word asked the first time).

    SIFT_MODEL=minilm SIFT_EMBEDDINGS=off .venv/bin/python bench/slip_lookups.py --home DIR [--runs 7]
"""
from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path

from common import median, shared_data
from quality import build_index

QUERIES = ["kuberntes deploymet", "deflaut", "how to remove the defualt value on a rails column",
           "kubernetes deployment", "budget review with Karlsson",
           "elastcisaerch cluster"]  # a word whose first vowel and consonant come early (stem_reach.untouched)


def one_by_one(documents, terms):
    """The old way: each term asked in a statement of its own."""
    return {term: documents(term) for term in terms}


@contextlib.contextmanager
def old_way():
    """Put back a statement a term, in keyword search's look-ups and in the spelling note's."""
    from search.query import keyword, spelling
    if not hasattr(keyword, "counted"):  # an older checkout (run there to time it): its own way already
        yield
        return
    saved = keyword.counted, spelling.counted, spelling._Vocabulary.held
    keyword.counted = spelling.counted = one_by_one
    spelling._Vocabulary.held = lambda self, terms: {t for t in dict.fromkeys(terms) if self.holds(t)}
    try:
        yield
    finally:
        keyword.counted, spelling.counted, spelling._Vocabulary.held = saved


@contextlib.contextmanager
def every_variant():
    """Tokenize and count every variant of a word, as before ``stem_reach``, in keyword search and the note."""
    from search.query import keyword, spelling
    saved = getattr(keyword, "stemmable", None)
    if saved is None:  # an older checkout: its own way already
        yield
        return
    keyword.stemmable = spelling.stemmable = lambda variants, postings: variants
    try:
        yield
    finally:
        keyword.stemmable = spelling.stemmable = saved


def timed(engine, query: str) -> float:
    started = time.perf_counter()
    engine.search(query, mode="keyword")
    return (time.perf_counter() - started) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="a Sift home to build the index in, or reuse")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    index = build_index(shared_data("notes-en"), args.home, "notes")
    from search.query.engine import Engine
    for postings in (False, True):
        engine = Engine(index, None, keyword_postings=postings)
        engine.warm()
        print(f"keyword postings {'in memory' if postings else 'not held (FTS5 answers)'}; median ms of {args.runs}")
        print(f"{'one by one':>11} {'at once':>8} {'ratio':>6}  query")
        for query in QUERIES:
            with old_way():
                timed(engine, query)  # warm-up: the temporary tables, the page cache
            timed(engine, query)
            before, after = [], []
            for _ in range(args.runs):
                with old_way():
                    before.append(timed(engine, query))
                after.append(timed(engine, query))
            print(f"{median(before):>11.1f} {median(after):>8.1f} {median(after) / median(before):>6.2f}  {query}")
    print(f"two-slip variants, keyword postings in memory; median ms of {args.runs}")
    print(f"{'every variant':>13} {'can stem':>9} {'ratio':>6}  query")
    for first in (False, True):
        for query in QUERIES:
            before, after = [], []
            for _ in range(args.runs + 1):
                with every_variant():
                    before.append(timed_fresh(engine, query) if first else timed(engine, query))
                after.append(timed_fresh(engine, query) if first else timed(engine, query))
            before, after = median(before[1:]), median(after[1:])  # the first a warm-up
            print(f"{before:>13.1f} {after:>9.1f} {after / before:>6.2f}  {query}{' (first time)' if first else ''}")


def timed_fresh(engine, query: str) -> float:
    """``timed``, the postings' cached tokens cleared first: the cost of a word asked the first time."""
    engine._postings._tokens.clear()
    return timed(engine, query)


if __name__ == "__main__":
    main()
