"""Reads of who wrote what: the authors files record (a note's front matter ``author:``, a Logseq page's
``author::``, a document's metadata author), the heads of mail passages, whose ``From:`` line names a message's
sender (ingest.mail), and chat passages, whose lines name their speakers (ingest.chat). search.query.authors decides
who is meant."""
from __future__ import annotations

import json
import sqlite3

from search.index.chunk_reads import AUTHOR
from search.index.collection_reads import VISIBLE

HEAD_CHARS = 400  # of a mail passage, read for its From line (a message's head: From, To, Cc, Date)


# a file whose author is a field written for each person apart: a note's front matter (an .Rmd's and .qmd's too) or
# Logseq page (a list, or one text a person typed), an EPUB's dc:creator (one element each); a document's metadata
# author (PDF, Word, OpenDocument, slides) is one text a program fills, with several persons run together where it
# joined them by spaces
_APART = ("(lower(f.path) LIKE '%.md' OR lower(f.path) LIKE '%.markdown' OR lower(f.path) LIKE '%.mdx' "
          "OR lower(f.path) LIKE '%.rmd' OR lower(f.path) LIKE '%.qmd' OR lower(f.path) LIKE '%.epub')")


def file_authors(conn: sqlite3.Connection) -> list[tuple[int, str, bool]]:
    """(file id, its author as recorded, whether its field names each person apart: ``_APART``) of every file
    version that records one."""
    return [(file, author, bool(apart)) for file, author, apart in conn.execute(
        f"SELECT f.id, {AUTHOR}, {_APART} FROM files f WHERE f.meta LIKE '%\"author\"%'") if author]


def mail_heads(conn: sqlite3.Connection, files: list[int] | None = None) -> list[tuple[int, int, str]]:
    """(chunk id, file id, the passage's first HEAD_CHARS characters) of every mail file's passages (.eml, .mbox, a
    mailbox of no extension), or of the ``files`` given, by file and in passage order: a passage without a head is
    its message's, whose head came before it."""
    if files is not None:
        return conn.execute(f"SELECT ch.id, ch.file, substr(ch.text, 1, {HEAD_CHARS}) FROM chunks ch "
                            "WHERE ch.file IN (SELECT value FROM json_each(?)) ORDER BY ch.file, ch.ordinal",
                            (json.dumps(files),)).fetchall()
    return conn.execute(f"SELECT ch.id, ch.file, substr(ch.text, 1, {HEAD_CHARS}) FROM chunks ch "
                        f"JOIN files f ON f.id = ch.file WHERE {_MAIL} ORDER BY ch.file, ch.ordinal").fetchall()


def tails_before(conn: sqlite3.Connection, chunks: list[int], chars: int) -> dict[int, str]:
    """The last ``chars`` characters of the passage before each of the ``chunks`` in its file (by ordinal): where a
    passage begun at a long To line tells Outlook's block from a draft's own head (search.query.mail_quotes). Only
    the files of ``chunks`` are ordered, by their passages' ids and ordinals."""
    return dict(conn.execute(
        f"SELECT c.id, substr(p.text, -{int(chars)}) FROM (SELECT id, lag(id) OVER (PARTITION BY file ORDER BY ordinal) "
        "AS before FROM chunks WHERE file IN (SELECT file FROM chunks WHERE id IN (SELECT value FROM json_each(:ids)))"
        ") c JOIN chunks p ON p.id = c.before WHERE c.id IN (SELECT value FROM json_each(:ids))",
        {"ids": json.dumps(chunks)}).fetchall())


# a file's name, its folders left out: a mailbox of no extension is one (Thunderbird's 'Inbox', 'Sent'), as
# search.query.mail_threads.is_mail has it; its senders were no authors
_NAME = "replace(f.path, rtrim(f.path, replace(f.path, '/', '')), '')"
_MAIL = (f"(f.path LIKE '%.eml' OR f.path LIKE '%.mbox' OR f.path LIKE '%.msg' "  # .msg: Outlook's (ingest.outlook_msg)
         f"OR (f.kind = 'note' AND instr({_NAME}, '.') = 0))")


def mail_files(conn: sqlite3.Connection) -> list[tuple[int, str, int, int]]:
    """(file id, its sha256, how many passages, its last passage's id) of every mail file version with passages
    (.eml, .mbox, a mailbox of no extension): what its passages' senders are kept by
    (search.query.authors.mail_senders). Counted in the index of chunks by file, without reading a passage (113,841
    mail passages: their heads took 2.3 s)."""
    return conn.execute("SELECT f.id, f.sha256, count(*), max(ch.id) FROM files f JOIN chunks ch ON ch.file = f.id "
                        f"WHERE {_MAIL} GROUP BY f.id ORDER BY f.id").fetchall()


def database(conn: sqlite3.Connection) -> str:
    """The file of ``conn``'s index ('' for one in memory)."""
    return next((row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"), "")


def visible_authors(conn: sqlite3.Connection) -> list[str]:
    """The authors the published files record, each once: whom a question may name as a writer."""
    return [author for (author,) in conn.execute(
        f"SELECT DISTINCT {AUTHOR} FROM files f JOIN collections c ON c.id = f.collection "
        f"WHERE f.meta LIKE '%\"author\"%' AND {VISIBLE}") if author]


def files_of(conn: sqlite3.Connection, chunks: list[int]) -> list[int]:
    """The files the ``chunks`` are passages of, each once."""
    return [file for (file,) in conn.execute("SELECT DISTINCT file FROM chunks WHERE id IN "
                                              "(SELECT value FROM json_each(?))", (json.dumps(chunks),))]


# a chat export read as a conversation (ingest.chat): its meta says which
_CHAT = "f.meta LIKE '%\"chat_export\"%'"


def chat_files(conn: sqlite3.Connection) -> list[tuple[int, str, int, int]]:
    """(file id, its sha256, how many passages, its last passage's id) of every chat export's file version with
    passages, as ``mail_files`` gives a mail file's: what its passages' speakers are kept by."""
    return conn.execute("SELECT f.id, f.sha256, count(*), max(ch.id) FROM files f JOIN chunks ch ON ch.file = f.id "
                        f"WHERE {_CHAT} GROUP BY f.id ORDER BY f.id").fetchall()


def chat_speakers(conn: sqlite3.Connection, files: list[int]) -> dict[int, list[str] | None]:
    """The speakers each of the chat ``files`` names (its meta's "speakers", ingest.chat.speakers_of); None for one
    naming none (read before they were named, or of more speakers than a meta names)."""
    return {file: json.loads(names) if names else None for file, names in conn.execute(
        "SELECT f.id, CASE WHEN json_valid(f.meta) AND json_type(f.meta, '$.speakers') = 'array' "
        "THEN json_extract(f.meta, '$.speakers') END FROM files f WHERE f.id IN (SELECT value FROM json_each(?))",
        (json.dumps(files),))}


def passage_texts(conn: sqlite3.Connection, files: list[int]) -> list[tuple[int, int, str]]:
    """(chunk id, file id, text) of the ``files``' passages, by file and in passage order: a chat's, whose lines
    name their speakers."""
    return conn.execute("SELECT ch.id, ch.file, ch.text FROM chunks ch WHERE ch.file IN "
                        "(SELECT value FROM json_each(?)) ORDER BY ch.file, ch.ordinal", (json.dumps(files),)).fetchall()


def stamp(conn: sqlite3.Connection) -> tuple:
    """What changes whenever the files or passages an author could be found in do: each collection's published
    generation, the last file and passage ids (a row is added, never changed in place, for a new version). Read in
    three looks up an index, not a scan."""
    return (tuple(conn.execute("SELECT id, published FROM collections ORDER BY id").fetchall()),
            conn.execute("SELECT max(id) FROM files").fetchone()[0],
            conn.execute("SELECT max(id) FROM chunks").fetchone()[0])
