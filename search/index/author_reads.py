"""Reads of who wrote what: the authors files record (a note's front matter ``author:``, a Logseq page's
``author::``, a PDF's or a .docx's metadata author) and the heads of mail passages, whose ``From:`` line names a
message's sender (ingest.mail). search.query.authors decides who is meant."""
from __future__ import annotations

import sqlite3

from search.index.chunk_reads import AUTHOR
from search.index.collection_reads import VISIBLE

HEAD_CHARS = 400  # of a mail passage, read for its From line (a message's head: From, To, Cc, Date)


def file_authors(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    """(file id, its author as recorded) of every file version that records one."""
    return [(file, author) for file, author in conn.execute(
        f"SELECT f.id, {AUTHOR} FROM files f WHERE f.meta LIKE '%\"author\"%'") if author]


def mail_heads(conn: sqlite3.Connection) -> list[tuple[int, int, str]]:
    """(chunk id, file id, the passage's first HEAD_CHARS characters) of every mail file's passages (.eml, .mbox),
    by file and in passage order: a passage without a head is its message's, whose head came before it."""
    return conn.execute(f"SELECT ch.id, ch.file, substr(ch.text, 1, {HEAD_CHARS}) FROM chunks ch "
                        "JOIN files f ON f.id = ch.file WHERE f.path LIKE '%.eml' OR f.path LIKE '%.mbox' "
                        "ORDER BY ch.file, ch.ordinal").fetchall()


def visible_authors(conn: sqlite3.Connection) -> list[str]:
    """The authors the published files record, each once: whom a question may name as a writer."""
    return [author for (author,) in conn.execute(
        f"SELECT DISTINCT {AUTHOR} FROM files f JOIN collections c ON c.id = f.collection "
        f"WHERE f.meta LIKE '%\"author\"%' AND {VISIBLE}") if author]
