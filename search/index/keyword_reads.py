"""Reads of the keyword index (FTS5): a term's documents, the BM25 searches, the rows read into postings, and
this connection's own temporary tables (an instance view of chunks_fts and a scratch FTS5 table, to tokenize
as the index does: nothing of them is written to the index)."""
from __future__ import annotations

import sqlite3

from search.index.collection_reads import VISIBLE


def term_documents(conn: sqlite3.Connection, term: str) -> int:
    """How many chunk rows of the keyword index hold ``term`` (a token as FTS5 stores it)."""
    row = conn.execute("SELECT doc FROM chunks_fts_vocab WHERE term = ?", (term,)).fetchone()
    return row[0] if row else 0


def vocabulary_counts(conn: sqlite3.Connection, terms: list[str]) -> list[tuple[str, int]]:
    """(term, chunk rows holding it) of those of ``terms`` FTS5's vocabulary holds, in one statement (keep ``terms``
    under SQLite's 32,766 parameters)."""
    return conn.execute(f"SELECT term, doc FROM chunks_fts_vocab WHERE term IN ({','.join('?' * len(terms))})",
                        terms).fetchall()


def vocabulary_between(conn: sqlite3.Connection, start: str, end: str) -> list[tuple[str, int]]:
    """(term, chunk rows holding it) of every term of FTS5's vocabulary from ``start`` up to (not with) ``end``:
    one read of the vocabulary's range, where a word's many variants share their first letters."""
    return conn.execute("SELECT term, doc FROM chunks_fts_vocab WHERE term >= ? AND term < ?", (start, end)).fetchall()


def keyword_search(conn: sqlite3.Connection, expression: str, weights: tuple[float, ...], where: str,
                   params: dict, limit: int) -> list[tuple[int, float]]:
    """[(chunk id, FTS5 bm25: lower is better)] of the published chunks that match the FTS5 ``expression``, best
    first, with column ``weights``; ``where``: more conditions on files f and collections c (' AND …'), with its
    named ``params``."""
    sql = (f"SELECT ch.id, bm25(chunks_fts, {', '.join(map(str, weights))}) AS score FROM chunks_fts "
           f"JOIN chunks ch ON ch.id = chunks_fts.rowid JOIN files f ON f.id = ch.file "
           f"JOIN collections c ON c.id = f.collection "
           f"WHERE chunks_fts MATCH :expression AND {VISIBLE}{where} ORDER BY score LIMIT :limit")
    named = {**params, "expression": expression, "limit": limit}
    return [(row[0], row[1]) for row in conn.execute(sql, named).fetchall()]


def keyword_search_every(conn: sqlite3.Connection, expression: str, weights: tuple[float, ...],
                         limit: int) -> list[tuple[int, float]]:
    """As ``keyword_search`` over every row of the keyword index, without the joins that keep the published ones:
    for when every chunk row is published and nothing is filtered (the joins cost 70-180 ms for a word in 112,000
    of 200,000 passages)."""
    sql = (f"SELECT rowid, bm25(chunks_fts, {', '.join(map(str, weights))}) AS score FROM chunks_fts "
           "WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?")
    return [(row[0], row[1]) for row in conn.execute(sql, (expression, limit)).fetchall()]


def matching(conn: sqlite3.Connection, expression: str, ids: list[int]) -> set[int]:
    """Those of the chunks ``ids`` whose keyword index row matches the FTS5 ``expression``: the rows matching it
    anywhere, kept where they are among ``ids``. Asked with 'rowid IN (ids)', FTS5 evaluated the expression once per
    id, reading each word's doclist again each time: 65 ms per hybrid search of 'how does StreamWriter write data to
    the stream' (200 candidates, 100,120 passages; 'title : (… AND …)'), against 0.5 ms for the whole index, where
    its AND skips through the doclists once (a title holding 'the' and 'a', in 3,280 rows: 10 → 8 ms)."""
    wanted = set(ids)
    return {row[0] for row in conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (expression,))
            if row[0] in wanted}


def fts_rowids(conn: sqlite3.Connection):
    """Every rowid of the keyword index, ascending (an iterator)."""
    return (r[0] for r in conn.execute("SELECT rowid FROM chunks_fts ORDER BY rowid"))


def fts_count_after(conn: sqlite3.Connection, after: int) -> int:
    """How many rows of the keyword index have a rowid above ``after``."""
    return conn.execute("SELECT count(*) FROM chunks_fts WHERE rowid > ?", (after,)).fetchone()[0]


def fts_rows(conn: sqlite3.Connection, after: int, upto: int) -> list[tuple]:
    """(rowid, title, headings, body) of the keyword index's rows with rowids in (after, upto], ascending."""
    rows = conn.execute("SELECT rowid, title, headings, body FROM chunks_fts WHERE rowid > ? AND rowid <= ? "
                        "ORDER BY rowid", (after, upto)).fetchall()
    return [tuple(r) for r in rows]


# This connection's own temporary tables (nothing is written to the index): an instance view of chunks_fts, and a
# scratch FTS5 table with the same columns and tokenizer, to tokenize new rows and query words as the index does.
INSTANCES, SCRATCH_INSTANCES = "sift_fts_instances", "sift_scratch_instances"


def make_scratch(conn: sqlite3.Connection, columns: tuple[str, ...]) -> None:
    """Create this connection's temporary tables (once): ``INSTANCES``, the scratch table and its instances."""
    from search.index.schema import TOKENIZER
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{INSTANCES} USING fts5vocab(main, chunks_fts, instance)")
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.sift_scratch USING fts5({', '.join(columns)}, "
                 f"tokenize = '{TOKENIZER}')")
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{SCRATCH_INSTANCES} "
                 f"USING fts5vocab(temp, sift_scratch, instance)")


def scratch_rows(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    """Put (rowid, title, headings, body) rows in the scratch table."""
    conn.executemany("INSERT INTO temp.sift_scratch(rowid, title, headings, body) VALUES (?, ?, ?, ?)", rows)


def scratch_words(conn: sqlite3.Connection, words: list[str]) -> None:
    """Put each word in the scratch table's body, as row 0, 1, 2 …"""
    conn.executemany("INSERT INTO temp.sift_scratch(rowid, body) VALUES (?, ?)", enumerate(words))


def clear_scratch(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM temp.sift_scratch")


def scratch_tokens(conn: sqlite3.Connection):
    """(row, token, offset) of every token in the scratch table (an iterator)."""
    return conn.execute(f"SELECT doc, term, offset FROM temp.{SCRATCH_INSTANCES}")


def instance_codes(conn: sqlite3.Connection, instances: str, bits: int):
    """Per term of an instance table (``INSTANCES`` or ``SCRATCH_INSTANCES``): (term, comma-separated codes), one
    code per occurrence: its row shifted left by ``bits``, plus the length of its column's name (an iterator)."""
    assert instances in (INSTANCES, SCRATCH_INSTANCES)
    return conn.execute(f"SELECT term, group_concat(doc * {2 ** bits} + length(col)) "
                        f"FROM temp.{instances} GROUP BY term")


def phrase_scores(conn: sqlite3.Connection, expression: str, weights: tuple[float, ...]) -> list[tuple[int, float]]:
    """[(rowid, BM25 score: higher is better)] of every row of the keyword index matching the FTS5 ``expression``
    (one phrase), by FTS5's bm25() with column ``weights``, in no order."""
    return conn.execute(f"SELECT rowid, -bm25(chunks_fts, {', '.join(map(str, weights))}) FROM chunks_fts "
                        "WHERE chunks_fts MATCH ?", (expression,)).fetchall()


# The published chunks holding a term (a token as FTS5 stores it), through the instance table (make_scratch first).
_HOLDING = (f"FROM temp.{INSTANCES} i JOIN chunks ch ON ch.id = i.doc JOIN files f ON f.id = ch.file "
            f"JOIN collections c ON c.id = f.collection WHERE i.term = ? AND {VISIBLE}")


def term_published(conn: sqlite3.Connection, term: str) -> bool:
    """Whether a published chunk holds ``term``; ``make_scratch`` first. Stops at the first such chunk, so a word
    in every chunk costs no more than a rare one."""
    return conn.execute(f"SELECT 1 {_HOLDING} LIMIT 1", (term,)).fetchone() is not None


def phrase_published(conn: sqlite3.Connection, phrase: str) -> bool:
    """Whether a published chunk holds the FTS5 ``phrase`` (its words side by side: '"get user"')."""
    return conn.execute("SELECT 1 FROM chunks_fts JOIN chunks ch ON ch.id = chunks_fts.rowid JOIN files f ON f.id = "
                        f"ch.file JOIN collections c ON c.id = f.collection WHERE chunks_fts MATCH ? AND {VISIBLE} "
                        "LIMIT 1", (phrase,)).fetchone() is not None


def term_texts(conn: sqlite3.Connection, term: str, limit: int) -> list[str]:
    """The text of up to ``limit`` published chunks that hold ``term``; ``make_scratch`` first."""
    return [r[0] for r in conn.execute(f"SELECT DISTINCT ch.text {_HOLDING} LIMIT ?", (term, limit))]
