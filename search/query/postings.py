"""Keyword search in memory: FTS5's postings as numpy arrays, scored with FTS5's own BM25.

FTS5 stays the index of record: the workers write it and its tokenizer decides
what a term is. Asking FTS5 for ``bm25()`` is slow for long OR queries, though:
it walks every match of every term through the auxiliary-function API (about
90 ms at 100k chunks). So the reader loads the postings once, through an
``fts5vocab`` instance table, keeps per term the documents and their
column-weighted frequencies, and scores a query with numpy in a few
milliseconds: the same formula (k1 1.2, b 0.75, the same column weights and
IDF), counted over the published chunks only.

Chunk ids are never used twice (schema V5), so after a new generation only
the rows above the highest id loaded are new: they are tokenized in a
temporary FTS5 table with the same tokenizer and appended. Rows that stop
being visible stay loaded but masked; when they outnumber the live ones, the
whole index is read again.
"""
from __future__ import annotations

import math
import re
import sqlite3
from collections import Counter
from typing import NamedTuple

import numpy as np

from search.index import chunk_reads, keyword_reads
from search.query.catalog import Catalog, Rows
from search.query.filters import Filters
from search.query.stem_reach import Beginnings

K1, B = 1.2, 0.75
COLUMNS = ("title", "headings", "body")
COMMON = 0.25  # a term in more than this share of chunks is "common"
# An instance's column, cheaply in SQL: the length of its name (title 5, headings 8, body 4).
_CODE_BITS = 4
assert len({len(c) for c in COLUMNS}) == len(COLUMNS) and max(map(len, COLUMNS)) < 2 ** _CODE_BITS
_TOKEN_CACHE = 50_000
_BATCH = 2_000_000  # tokens worked on at once while loading
LOAD_NEW_AT_MOST = 20_000  # more new rows than this: read the whole index again (in the background)


class Phrase(NamedTuple):
    """A query word FTS5 reads as several tokens (a camelCase name's words, 'stream writer'): searched as a phrase."""
    text: str


class Postings:
    """Every chunk row of the FTS5 table up to ``max_id``, and its terms."""

    def __init__(self, weights: tuple[float, ...]):
        self.column_weights = tuple(weights)
        self.weights = np.zeros(2 ** _CODE_BITS)
        for column, weight in zip(COLUMNS, weights):
            self.weights[len(column)] = weight
        self.rows = Rows()  # the chunk rows held, and which are visible
        self.lengths = np.zeros(0, dtype=np.float64)  # tokens per row, all columns
        self.terms: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}  # term -> [(rows, weighted tf)]
        self.max_id = 0  # every chunk row up to here has been read
        self._tokens: dict[str, tuple[str, ...]] = {}
        self._mean_length: tuple[Catalog, float] | None = None
        self._beginnings: tuple[int, Beginnings] | None = None  # (terms counted when made, the terms' beginnings)
        self.broken = False  # a read of new rows failed half-way

    @property
    def ids(self) -> np.ndarray:
        return self.rows.ids

    # -- loading -------------------------------------------------------------
    @classmethod
    def build(cls, conn: sqlite3.Connection, weights: tuple[float, ...]) -> "Postings":
        """Every row of chunks_fts, read inside the caller's snapshot."""
        postings = cls(weights)
        keyword_reads.make_scratch(conn, COLUMNS)
        postings.max_id = chunk_reads.newest_chunk(conn)
        postings.rows = Rows(np.fromiter(keyword_reads.fts_rowids(conn), dtype=np.int64))
        postings.lengths = np.zeros(len(postings.ids), dtype=np.float64)
        postings._read(conn, keyword_reads.INSTANCES)
        return postings

    def catch_up(self, conn: sqlite3.Connection, catalog: Catalog) -> bool:
        """Read the rows written since (inside the caller's snapshot) and take ``catalog``'s visibility.

        False, with nothing read, when the postings should be read again whole instead: ids went back
        (an index restored from a copy?), more retired rows than live ones, a failed earlier read, or more
        than ``LOAD_NEW_AT_MOST`` new rows. A failing read raises, and marks the postings broken.
        """
        newest = chunk_reads.newest_chunk(conn)
        self.rows.use(catalog)
        if self.broken or newest < self.max_id or self.rows.retired() > max(self.rows.count, 10_000):
            return False
        if newest > self.max_id:
            if keyword_reads.fts_count_after(conn, self.max_id) > LOAD_NEW_AT_MOST:
                return False
            self._load_new(conn, newest)
        return True

    def _load_new(self, conn, newest: int) -> None:
        rows = keyword_reads.fts_rows(conn, self.max_id, newest)
        keyword_reads.make_scratch(conn, COLUMNS)
        try:
            keyword_reads.scratch_rows(conn, rows)
            self.rows.append(np.array([r[0] for r in rows], dtype=np.int64))
            self.lengths = np.concatenate([self.lengths, np.zeros(len(rows))])
            self._read(conn, keyword_reads.SCRATCH_INSTANCES)
        except BaseException:
            self.broken = True  # half added: read everything again
            raise
        finally:
            keyword_reads.clear_scratch(conn)
        self.max_id = newest

    def _read(self, conn, vocab: str) -> None:
        """Add the postings an instance table lists (its documents must already be in ``ids``).

        Terms are worked on in batches of about ``_BATCH`` tokens, all at once:
        one array of (term, row, column) per token, summed per (term, row).
        """
        names, parsed, size = [], [], 0
        for term, codes in keyword_reads.instance_codes(conn, vocab, _CODE_BITS):
            names.append(term)
            parsed.append(np.fromstring(codes, dtype=np.int64, sep=","))
            size += len(parsed[-1])
            if size >= _BATCH:
                self._add(names, parsed)
                names, parsed, size = [], [], 0
        if names:
            self._add(names, parsed)

    def _add(self, names: list[str], parsed: list[np.ndarray]) -> None:
        codes = np.concatenate(parsed)
        term_of = np.repeat(np.arange(len(names), dtype=np.int64), [len(p) for p in parsed])
        rows = np.searchsorted(self.ids, codes >> _CODE_BITS)
        weights = self.weights[codes & (2 ** _CODE_BITS - 1)]
        key = term_of * (len(self.ids) + 1) + rows
        if np.any(key[1:] < key[:-1]):
            order = np.argsort(key, kind="stable")
            key, rows, weights, term_of = key[order], rows[order], weights[order], term_of[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        tf = np.add.reduceat(weights, starts).astype(np.float32)
        rows, term_of = rows[starts].astype(np.int32), term_of[starts]
        self.lengths += np.bincount(rows, weights=np.diff(np.r_[starts, len(key)]), minlength=len(self.ids))
        bounds = np.searchsorted(term_of, np.arange(len(names) + 1))
        for i, term in enumerate(names):
            self.terms.setdefault(term, []).append((rows[bounds[i]:bounds[i + 1]], tf[bounds[i]:bounds[i + 1]]))

    # -- searching -----------------------------------------------------------
    def tokens(self, conn: sqlite3.Connection, words: list[str]) -> list[tuple[str, ...]]:
        """FTS5's tokens for each word (stemmed, folded), through the index's own tokenizer."""
        missing = [w for w in dict.fromkeys(words) if w not in self._tokens]
        if missing:
            if len(self._tokens) + len(missing) > _TOKEN_CACHE:
                self._tokens.clear()  # and the words that were in it are missing now: they raised KeyError
                missing = list(dict.fromkeys(words))
            self._tokens.update(zip(missing, tokenize(conn, missing)))
        return [self._tokens[w] for w in words]

    def search(self, terms: list[str | Phrase], limit: int, filters: Filters,
               conn: sqlite3.Connection | None = None) -> list[tuple[int, float]]:
        """[(chunk id, bm25 score)], best first, for ``terms``: tokens, and ``Phrase``s (a query word FTS5 reads as
        several tokens, as a camelCase name's words), whose part of each score FTS5 gives through ``conn``.

        As in FTS5, a token given twice (two words with one stem) counts twice. Of more than two terms, those in
        over COMMON of the rows are dropped when a rarer one is found or a phrase is given (as keyword.dropped does
        for FTS5: a phrase is never dropped).
        """
        rows = self.rows
        if not rows.count:
            return []
        stats, phrases = [], []
        for term, times in Counter(terms).items():
            if isinstance(term, Phrase):
                phrases.append((term, times))
                continue
            held, tf = self._postings(term)
            seen = rows.visible[held]
            df = int(np.count_nonzero(seen))
            if df:
                stats.append((df, times, held[seen], tf[seen]))
        if len(terms) > 2:
            rare = [s for s in stats if s[0] <= COMMON * rows.count]
            stats = rare if rare or phrases else stats
        parts_rows, parts_scores = [], []
        mean_length = self._mean()
        for df, times, held, tf in stats:
            idf = max(math.log((rows.count - df + 0.5) / (df + 0.5)), 1e-6)
            norm = K1 * (1 - B + B * self.lengths[held] / mean_length)
            parts_rows.append(held)
            parts_scores.append(times * idf * tf * (K1 + 1) / (tf + norm))
        for phrase, times in phrases:
            held, scores = self.phrase(conn, phrase)
            parts_rows.append(held)
            parts_scores.append(times * scores)
        if not parts_rows:
            return []
        scores = np.bincount(np.concatenate(parts_rows), weights=np.concatenate(parts_scores),
                             minlength=len(self.ids))
        if filters != Filters():
            scores = np.where(rows.mask(filters), scores, 0.0)
        found = np.flatnonzero(scores)
        if len(found) > limit:
            found = found[np.argpartition(-scores[found], limit - 1)[:limit]]
        found = found[np.lexsort((self.ids[found], -scores[found]))]
        return [(int(self.ids[i]), float(scores[i])) for i in found]

    def phrase(self, conn: sqlite3.Connection, phrase: Phrase) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores): the visible rows holding ``phrase`` and its part of their BM25 score, as FTS5's bm25()
        gives it for the phrase alone (the rows holding it, its occurrences in each weighted by column), which is
        its part of a query's score: bm25() adds up each phrase's. Before, a query holding a phrase was sent whole
        to bm25(), which scored every row holding any of its words (keyword p50 20.0 ms for 'how does StreamWriter
        write data to the stream' and five such, 2.6 ms now, at 100,120 passages). The phrase's rarity and the mean length are
        FTS5's, over every row of its table: while a generation is built, those count rows not yet published, as
        bm25() always did."""
        found = keyword_reads.phrase_scores(conn, '"' + phrase.text.replace('"', '""') + '"', self.column_weights)
        if not found:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        docs = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
        scores = np.fromiter((r[1] for r in found), dtype=np.float64, count=len(found))
        at = np.searchsorted(self.ids, docs)
        known = at < len(self.ids)
        known[known] = self.ids[at[known]] == docs[known]  # a row written after this snapshot is none of ours
        at, scores = at[known], scores[known]
        seen = self.rows.visible[at]
        return at[seen], scores[seen]

    def holds(self, term: str) -> bool:
        """Whether a visible row holds ``term``: its first rows are looked at first, so a term in most rows is not
        counted through (the spelling check asks this of every word of every search)."""
        if term not in self.terms:
            return False
        held, _ = self._postings(term)
        visible = self.rows.visible
        return bool(visible[held[:64]].any() or visible[held].any())

    def documents(self, term: str) -> int:
        """How many visible (published) rows hold ``term``."""
        if term not in self.terms:
            return 0
        held, _ = self._postings(term)
        return int(np.count_nonzero(self.rows.visible[held]))

    def beginnings(self) -> Beginnings:
        """The first letters of every term held (``stem_reach``): a long word's two-slip variants whose stems can
        be none of them are not tokenized. Made again once new rows brought new terms (terms are only added)."""
        if self._beginnings is None or self._beginnings[0] != len(self.terms):
            self._beginnings = (len(self.terms), Beginnings(list(self.terms)))
        return self._beginnings[1]

    def _postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        segments = self.terms.get(term)
        if not segments:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float32)
        if len(segments) > 1:  # merge the segments appended by later generations
            segments[:] = [(np.concatenate([s[0] for s in segments]), np.concatenate([s[1] for s in segments]))]
        return segments[0]

    def _mean(self) -> float:
        """Mean tokens per visible row (FTS5's avgdl, over the published chunks)."""
        if self._mean_length is None or self._mean_length[0] is not self.rows.catalog:
            visible = self.lengths[self.rows.visible]
            self._mean_length = (self.rows.catalog, float(visible.mean()) if len(visible) else 1.0)
        return self._mean_length[1]


# A word unicode61 reads as exactly one token whatever stands beside it: ASCII letters and digits only.
_ONE_TOKEN = re.compile(r"[A-Za-z0-9]+")


def tokenize(conn: sqlite3.Connection, words: list[str]) -> list[tuple[str, ...]]:
    """FTS5's tokens for each of ``words`` (stemmed, folded), through the index's own tokenizer.

    A row of the scratch table costs about 45 µs to insert, so the words that make one token each go in one
    row together, a token's offset naming its word; any other word (several tokens, none, non-ASCII) gets a row
    of its own. The spelling check tokenizes every one-edit variant of a missing word: 650 of them for a word of
    12 letters took 29 ms one row each, 2 ms in one row."""
    simple = [i for i, word in enumerate(words) if _ONE_TOKEN.fullmatch(word)]
    others = [i for i, word in enumerate(words) if not _ONE_TOKEN.fullmatch(word)]
    found = _scratch_tokens(conn, [" ".join(words[i] for i in simple)] + [words[i] for i in others])
    joined = found.pop(0, [])
    if len(joined) != len(simple):  # not one token a word after all: each word in a row of its own
        return _each_in_a_row(conn, words)
    tokens: list[tuple[str, ...]] = [()] * len(words)
    for offset, term in joined:
        tokens[simple[offset]] = (term,)
    for row, i in enumerate(others, start=1):
        tokens[i] = tuple(term for _, term in sorted(found.get(row, [])))
    return tokens


def _each_in_a_row(conn: sqlite3.Connection, words: list[str]) -> list[tuple[str, ...]]:
    found = _scratch_tokens(conn, words)
    return [tuple(term for _, term in sorted(found.get(i, []))) for i in range(len(words))]


def _scratch_tokens(conn: sqlite3.Connection, rows: list[str]) -> dict[int, list[tuple[int, str]]]:
    """{row: [(offset, token)]} of ``rows`` put in the scratch table as rows 0, 1, 2 …"""
    keyword_reads.make_scratch(conn, COLUMNS)
    found: dict[int, list[tuple[int, str]]] = {}
    try:
        keyword_reads.scratch_words(conn, rows)
        for doc, term, offset in keyword_reads.scratch_tokens(conn):
            found.setdefault(doc, []).append((offset, term))
    finally:
        keyword_reads.clear_scratch(conn)
    return found
