"""How many passages hold each of many terms, asked of FTS5's vocabulary a few statements for all, not one a term.

While the postings are read (or when they are never held) keyword search and the spelling note ask FTS5 how many
passages hold a term: for a word no passage holds, of each word one edit away that FTS5 stems to a term, hundreds of
terms a word (thousands two slips away). One ``SELECT … WHERE term = ?`` a term made a query with two such words
(``kuberntes deploymet``) cost 200-300 ms more than one without. Each term FTS5 looks up costs about the same
(0.05-0.1 ms, a seek in its b-tree) however it is asked, so ``IN (…)`` alone saved little: a word's variants mostly
start with its own first two letters, and the vocabulary holds far fewer terms that start so than there are
variants, so such a group is read as a range of the vocabulary instead (bench/slip_lookups.py).
"""
from __future__ import annotations

import sqlite3

from search.index import keyword_reads

CHUNK = 5_000  # terms in one IN (…) at most: SQLite allows 32,766 parameters
RANGE_AT = 8  # terms sharing their first two letters from which the vocabulary's range of those is read instead
PREFIX = 2


class TermCounts:
    """``documents(term)`` of the keyword index, cached, with ``many(terms)`` asking for all at once. Counted over
    every chunk row of FTS5 (published or not), as ``keyword_reads.term_documents``."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.known: dict[str, int] = {}

    def __call__(self, term: str) -> int:
        if term not in self.known:
            self.many([term])
        return self.known[term]

    def many(self, terms: list[str]) -> list[int]:
        """How many chunk rows hold each of ``terms`` (tokens as FTS5 stores them), in their order."""
        asked = [t for t in dict.fromkeys(terms) if t not in self.known]
        self.known.update(dict.fromkeys(asked, 0))
        groups: dict[str, list[str]] = {}
        for term in asked:
            groups.setdefault(term[:PREFIX] if len(term) > PREFIX else "", []).append(term)
        alone = [t for prefix, its in groups.items() if not prefix or len(its) < RANGE_AT for t in its]
        for prefix in [p for p, its in groups.items() if p and len(its) >= RANGE_AT]:
            self._range(prefix, set(groups[prefix]))
        for start in range(0, len(alone), CHUNK):
            part = alone[start:start + CHUNK]
            self.known.update(keyword_reads.vocabulary_counts(self.conn, part))
        return [self.known[t] for t in terms]

    def _range(self, prefix: str, wanted: set[str]) -> None:
        """The counts of ``wanted`` among the vocabulary's terms that start with ``prefix``."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        self.known.update((term, n) for term, n in keyword_reads.vocabulary_between(self.conn, prefix, end)
                          if term in wanted)


def counted(documents, terms: list[str]) -> dict[str, int]:
    """{term: passages holding it} of ``terms`` by ``documents``: in a few statements where it can
    (``TermCounts.many``), else a term at a time (the postings in memory: a dict look-up each)."""
    many = getattr(documents, "many", None)
    return dict(zip(terms, many(terms))) if many is not None else {term: documents(term) for term in terms}
