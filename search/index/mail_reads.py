"""Reads of the mail messages the index keeps of each mail file (schema V23's mail_messages): a message's
Message-ID and thread key, found by file and line, and a collection's published messages by those keys."""
from __future__ import annotations

import json
import sqlite3

from search.index.collection_reads import VISIBLE


def keeps_messages(conn: sqlite3.Connection) -> bool:
    """Whether the index is of schema V23 or later (a reader does not migrate: an older one keeps no messages)."""
    return conn.execute("PRAGMA user_version").fetchone()[0] >= 23


def message_at(conn: sqlite3.Connection, file_id: int, line: int | None) -> dict | None:
    """The row of the message of ``file_id`` at ``line`` (an .eml's one, whatever the line): file, line, lines,
    thread, message_id; None where no message holds that line."""
    topic = "topic" if keeps_people(conn) else "NULL"  # a reader does not migrate: a V23 index has none
    row = conn.execute(f"SELECT file, line, lines, thread, message_id, {topic} FROM mail_messages WHERE file = ? "
                       "AND line <= ? ORDER BY line DESC LIMIT 1",
                       (file_id, line if line is not None else 1 << 62)).fetchone()
    if row is None or (row[2] is not None and line is not None and line >= row[1] + row[2]):
        return None
    return dict(zip(("file", "line", "lines", "thread", "message_id", "topic"), row))


def thread_messages(conn: sqlite3.Connection, collection_id: int, keys: list[str], limit: int) -> list[dict]:
    """The published messages of a collection whose thread's key or Message-ID is one of ``keys``, by the time
    sent, then file and line; at most ``limit``. Each a dict of file, path, title, thread, message_id, line, lines,
    subject, date, sent. ``sent`` is ISO 8601 with its sender's offset (ingest.mail.sent_time): ordered by the
    instant (julianday reads the offset: 10:00 +0200 before 09:30 +0000), dated by the day it writes, the message's
    own (23:30 -0500 on 5 March is 5 March, not UTC's 6th); a row written before that kept UTC, and its day."""
    if not keys:
        return []
    marks = ",".join("?" * len(keys))
    cursor = conn.execute(
        "SELECT m.file, f.path, f.title, m.thread, m.message_id, m.line, m.lines, m.subject, "
        "coalesce(substr(m.sent, 1, 10), json_extract(f.meta, '$.date')) AS date, m.sent "
        "FROM mail_messages m JOIN files f ON f.id = m.file JOIN collections c ON c.id = f.collection "
        f"WHERE (m.thread IN ({marks}) OR m.message_id IN ({marks})) AND f.collection = ? AND {VISIBLE} "
        "ORDER BY coalesce(julianday(m.sent), julianday(date), 0), f.path, m.line LIMIT ?",
        (*keys, *keys, collection_id, limit))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]


def keeps_people(conn: sqlite3.Connection) -> bool:
    """Whether the index is of schema V24 or later: its messages keep their Subject's topic and their people."""
    return conn.execute("PRAGMA user_version").fetchone()[0] >= 24


def topic_messages(conn: sqlite3.Connection, collection_id: int, topics: list[str], limit: int,
                   sent: tuple[str, str] | None = None) -> list[dict]:
    """The published messages of a collection whose Subject without 'Re:' … is one of ``topics`` (schema V24),
    as ``thread_messages`` gives them, with their topic, senders, people and by_subject; at most ``limit``, the
    latest first; with ``sent`` (two ISO 8601 times), those sent between them, the nearest their middle first."""
    if not topics:
        return []
    marks = ",".join("?" * len(topics))
    between = "AND julianday(m.sent) BETWEEN julianday(?) AND julianday(?) " if sent else ""
    cursor = conn.execute(
        "SELECT m.file, f.path, f.title, m.thread, m.message_id, m.line, m.lines, m.subject, "
        "coalesce(substr(m.sent, 1, 10), json_extract(f.meta, '$.date')) AS date, m.sent, m.topic, m.senders, "
        "m.people, m.by_subject FROM mail_messages m JOIN files f ON f.id = m.file "
        "JOIN collections c ON c.id = f.collection "
        f"WHERE m.topic IN ({marks}) AND f.collection = ? AND {VISIBLE} {between}"
        f"ORDER BY {'abs(julianday(m.sent) * 2 - julianday(?) - julianday(?))' if sent else 'julianday(m.sent) DESC'} "
        "LIMIT ?", (*topics, collection_id, *(sent or ()), *(sent or ()), limit))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]


def mailbox(conn: sqlite3.Connection, file_id: int) -> sqlite3.Row | None:
    """Of a mailbox's file version (ingest.mail.read_mbox: an .mbox, Thunderbird's 'Inbox'), how many messages it
    holds (``messages``: its meta's count, those not readable as mail among them) and how many could not be read as
    mail (``unreadable``); None for any other file (an .eml, a chat export, whose meta counts its messages too)."""
    row = conn.execute("SELECT json_extract(meta, '$.messages') AS messages, "
                       "coalesce(json_extract(meta, '$.unreadable_messages'), 0) AS unreadable FROM files "
                       "WHERE id = ? AND kind = 'note' AND meta LIKE '%\"messages\"%' AND json_valid(meta) "
                       "AND json_extract(meta, '$.chat_export') IS NULL", (file_id,)).fetchone()
    return row if row is not None and isinstance(row["messages"], int) else None


def file_messages(conn: sqlite3.Connection, file_id: int) -> list[tuple[str | None, str | None]]:
    """(Message-ID, thread's key) of each message of file version ``file_id`` the index keeps (those naming
    either: ingest.mail.message_row)."""
    return _pairs(conn, "SELECT message_id, thread FROM mail_messages WHERE file = ?", (file_id,))


def other_messages(conn: sqlite3.Connection, collection_id: int, path: str) -> list[tuple[str | None, str | None]]:
    """(Message-ID, thread's key) of each message of the collection's published mail files other than the one at
    ``path``: what a thread of that file may go on in. A seek a file of the collection (mail_messages' index by
    file)."""
    return _pairs(conn, "SELECT m.message_id, m.thread FROM files f JOIN collections c ON c.id = f.collection "
                  f"JOIN mail_messages m ON m.file = f.id WHERE f.collection = ? AND {VISIBLE} AND f.path != ? "
                  "AND f.kind = 'note'", (collection_id, path))


def other_topic_messages(conn: sqlite3.Connection, collection_id: int, file_id: int, path: str) -> list[dict]:
    """Of the collection's published mail files other than the one at ``path``, the messages of a Subject (its
    topic, schema V24) of a message of file version ``file_id``: file, line, message_id, thread, topic, sent,
    senders, people, by_subject; what a reply naming no parent joins across the two by (search.query.mail_threads).
    A seek a file of the collection, its messages by their topics."""
    return _dicts(conn, "SELECT m.file, m.line, m.message_id, m.thread, m.topic, m.sent, m.senders, m.people, "
                  "m.by_subject FROM files f JOIN collections c ON c.id = f.collection JOIN mail_messages m ON "
                  f"m.file = f.id WHERE f.collection = ? AND {VISIBLE} AND f.path != ? AND f.kind = 'note' AND "
                  "m.topic IN (SELECT topic FROM mail_messages WHERE file = ? AND topic IS NOT NULL)",
                  (collection_id, path, file_id))


def file_topic_messages(conn: sqlite3.Connection, file_id: int, topics: list[str]) -> list[dict]:
    """The messages of file version ``file_id`` of one of ``topics``, as ``other_topic_messages`` gives them."""
    return _dicts(conn, "SELECT file, line, message_id, thread, topic, sent, senders, people, by_subject FROM "
                  "mail_messages WHERE file = ? AND topic IN (SELECT value FROM json_each(?))",
                  (file_id, json.dumps(topics)))


def _dicts(conn: sqlite3.Connection, sql: str, params: tuple) -> list[dict]:
    cursor = conn.cursor()
    cursor.row_factory = None
    cursor.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]


def before_people(conn: sqlite3.Connection, collection_id: int, published: bool = True) -> list[str]:
    """The paths of the collection's mail files (published, else current: being built too) whose messages were
    read before schema V24 (mail_messages' senders NULL, as its migration left them): a reply naming no parent
    joins no other file by its Subject until they are read again (workers.tasks.discover reads them once, at the
    next scan, of the watcher's paths too). V25's
    partial index holds those rows alone: none, once they are read again."""
    if not keeps_people(conn):
        return []
    which = f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE} AND" if published else "WHERE f.gen_to IS NULL AND"
    # from those rows to their files (CROSS JOIN keeps the order): every scan asks, and the files of the collection
    # probed against them took 10-20 ms a scan at 100,000 notes with none left
    return [path for path, in conn.execute(
        "SELECT f.path FROM (SELECT DISTINCT file FROM mail_messages WHERE senders IS NULL) m CROSS JOIN files f "
        f"ON f.id = m.file {which} f.collection = ? ORDER BY f.path", (collection_id,))]


def other_mail_files(conn: sqlite3.Connection, collection_id: int, path: str) -> str:
    """The ids of the collection's published mail file versions other than the one at ``path``, '1,5,9': what
    ``other_messages`` reads, the same while none of them changes (a file's new version has a new id), whatever
    else a publish changed. The files holding messages are found by a seek of mail_messages' index by file each
    (``mail``), not by reading every file of the collection: at 100,000 notes that took 85 ms a mailbox at each
    listing, for counts kept at 0.04 ms."""
    row = conn.execute("WITH RECURSIVE mail(file) AS (SELECT (SELECT min(file) FROM mail_messages) UNION ALL "
                       "SELECT (SELECT min(file) FROM mail_messages WHERE file > mail.file) FROM mail "
                       "WHERE mail.file IS NOT NULL) "
                       "SELECT group_concat(id) FROM (SELECT f.id FROM mail JOIN files f ON f.id = mail.file "
                       f"JOIN collections c ON c.id = f.collection WHERE f.collection = ? AND {VISIBLE} "
                       "AND f.path != ? AND f.kind = 'note' ORDER BY f.id)", (collection_id, path)).fetchone()
    return row[0] or ""


def _pairs(conn: sqlite3.Connection, sql: str, params: tuple) -> list[tuple[str | None, str | None]]:
    """The rows of ``sql`` as plain tuples: a mailbox's 100,000 rows as sqlite3.Row took twice as long."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params).fetchall()
