"""The thread of a mail message across the mail files of its collection: a folder of .eml files (Apple Mail's or
Outlook's drag and drop) holds a conversation as a file a message, a reply saved as an .eml may answer a message of
a mailbox (.mbox) beside it, and Thunderbird keeps a message in Inbox and its reply in Sent. A reply's hit and
read_file named none of the others (a mailbox's thread within itself is its own file's: ingest.mail.Threads,
mcp_server.conversations). Found by the Message-IDs and thread keys the index keeps of each message (schema V23's
mail_messages, ingest.mail.message_row, read at parse time; before V23 an .eml's, in its meta), never by reading
the files. A reply naming no parent (a phone's 'Re: Budget' in Sent) is joined by its Subject and people to a message
of another file (V24's topic, senders and people: ``_subject_joins``)."""
from __future__ import annotations

import threading
from bisect import bisect_right
from datetime import datetime, timezone

from search.index import file_reads, mail_reads
from search.query.mail_people import SUBJECT_DAYS, own_guess, same_people

THREAD_SHOWN = 5  # of a hit's thread, the messages named
THREAD_FILES = 200  # messages looked up of each thread (a hit names the first few)
ROUNDS = 4  # lookups of the keys found: a reply to a reply whose References are missing keys by its parent alone

MAIL_ENDINGS = (".eml", ".mbox", ".msg")  # .msg: Outlook's saved message (ingest.outlook_msg)


def is_mail(path: str) -> bool:
    """Whether a hit's file may be a mail file with messages in the index's mail_messages: an .eml, a .msg, an .mbox, or
    a file of no extension (Thunderbird's folders, 'Inbox' and 'Sent', are mailboxes so named)."""
    name = path.rsplit("/", 1)[-1].lower()
    return name.endswith(MAIL_ENDINGS) or "." not in name.lstrip(".")


def threads(conn, asked: list[tuple]) -> dict[tuple[int, int | None], tuple[dict, list[dict]]]:
    """(file version id, line) -> (the message asked, the messages of its thread in its collection by the time sent,
    itself among them) for each (collection id, file version id[, line in the file]) of ``asked`` that is a mail
    message with another in its thread; a mailbox's message (asked with its line) only where its thread reaches
    another file. The rows: file, path, title, thread, message_id, line, lines (None: the whole file), subject,
    date, name ('mail/budget.eml', 'Inbox.mbox (line 12)')."""
    if not asked:
        return {}
    if not mail_reads.keeps_messages(conn):  # a reader does not migrate
        return _threads_of_meta(conn, [(c, f) for c, f, *_ in asked])
    found: dict = {}
    by_collection: dict[int, dict] = {}
    for collection, file_id, *line in asked:
        at = line[0] if line else None
        own = mail_reads.message_at(conn, file_id, at)
        if own is not None:
            by_collection.setdefault(collection, {})[(file_id, at)] = own
    for collection, mine in by_collection.items():
        looked: list[tuple[set, list[dict]]] = []  # each thread looked up: its keys, its messages
        for asked_, own in mine.items():
            start = {key for key in (own["thread"], own["message_id"]) if key}
            rows = next((rows for keys, rows in looked if start & keys), None)
            if rows is None:  # a thread of its own: looked up alone, at most THREAD_FILES of it
                keys, rows = _looked_up(conn, collection, start, own.get("topic"))
                looked.append((keys, rows))
            members = _members(own, rows)
            elsewhere = own["lines"] is None or any(m["file"] != own["file"] for m in members)
            if len(members) > 1 and elsewhere:
                found[asked_] = (own, members)
    return found


def _looked_up(conn, collection_id: int, keys: set[str], topic: str | None = None) -> tuple[set[str], list[dict]]:
    """(its keys, its messages) of the thread of a message of ``keys``, by ROUNDS lookups of the keys found. A
    page's threads were looked up together, at most THREAD_FILES messages for all of them: one long thread (a
    mailing list's of 300 replies) pushed the others' out, and their hits named no thread. With the message's
    ``topic`` (its Subject without 'Re:'), the replies of that Subject naming no parent joined to a message of
    another file (``_subject_joins``), each row's ``joined`` the key of the thread it is joined to so: looked up
    again while the thread found reaches further in time."""
    rows: list[dict] = []
    joined: dict = {}
    asked = None  # the times the Subject's messages were looked up around
    for _ in range(ROUNDS):
        rows = _thread_rows(conn, collection_id, sorted(keys))
        more = {key for r in rows for key in (r["thread"], r["message_id"]) if key} - keys
        if not more and topic and (around := _span(rows)) != asked:
            asked, more = around, _subject_joins(conn, collection_id, topic, joined, around, keys) - keys
        if not more:
            break
        keys = keys | more
    for r in rows:
        r["joined"] = joined.get((r["file"], r["line"]))
    return keys, rows


def _span(rows: list[dict]) -> tuple[str, str] | None:
    """The times (ISO 8601, UTC) a reply joined by its Subject to one of ``rows``, or one of them to its earlier
    message, is sent between: SUBJECT_DAYS before the first of them to SUBJECT_DAYS after the last; None where none
    says when it was sent (none is joined so)."""
    times = [at for r in rows if (at := _at(r["sent"])) is not None]
    if not times:
        return None
    days = SUBJECT_DAYS * 86400
    return tuple(datetime.fromtimestamp(at, timezone.utc).isoformat() for at in (min(times) - days, max(times) + days))


def _at(sent: str | None) -> float | None:
    try:
        return datetime.fromisoformat(sent).timestamp() if sent else None
    except ValueError:
        return None


def _subject_joins(conn, collection_id: int, topic: str | None, joined: dict,
                   around: tuple[str, str] | None = None, thread: set[str] | None = None) -> set[str]:
    """The keys of the messages of Subject ``topic`` sent ``around`` (``_span``) joined by it across the
    collection's mail files: a reply naming no parent (a phone's 'Re: Budget' in Thunderbird's Sent: no In-Reply-To
    nor References) to the latest message before it of that Subject among the same people, at most SUBJECT_DAYS
    before it, as ingest.mail.Threads joins one within its mailbox (one it found there is joined by its key
    already). Notes in ``joined`` each reply's (file, line) -> the key of the thread it joins. The Subject's latest
    THREAD_FILES messages were looked at, whenever the hit was sent: of a 'Re: weekly report' of three years, a
    reply of the first year joined nothing. With ``thread`` (its keys), only the pairs joined to it, through one
    another: a daily 'Standup' has a pair a day, and each day's messages were looked up for a hit of one of them.
    An index before V24 keeps no topics."""
    if not topic or around is None or not mail_reads.keeps_people(conn):
        return set()
    said = mail_reads.topic_messages(conn, collection_id, [topic], THREAD_FILES, around)
    pairs = [(reply, earlier, {key for row in (reply, earlier) for key in (row["thread"], row["message_id"]) if key})
             for reply, earlier in subject_pairs(said) if earlier["file"] != reply["file"]]
    keys: set[str] = set()
    reached = set(thread) if thread is not None else None
    while pairs:  # a round a link of the chain: a few, of the at most THREAD_FILES messages' pairs
        taken = [pair for pair in pairs if reached is None or pair[2] & reached]
        if not taken:
            break
        for reply, earlier, its in taken:
            joined[(reply["file"], reply["line"])] = earlier["thread"] or earlier["message_id"]
            keys |= its
        reached = None if reached is None else reached | keys
        done = {id(pair) for pair in taken}
        pairs = [pair for pair in pairs if id(pair) not in done]
    return keys


def subject_pairs(said: list[dict]) -> list[tuple[dict, dict]]:
    """Of messages of one Subject (rows of mail_reads.topic_messages), each reply naming no parent and the message
    it is joined to: the latest before it among the same people, at most SUBJECT_DAYS before it."""
    for row in said:
        row["at"] = _at(row["sent"])
        row["from"], row["all"] = set((row["senders"] or "").split()), set((row["people"] or "").split())
    dated = sorted((row for row in said if row["at"] is not None), key=lambda row: row["at"])
    times = [row["at"] for row in dated]
    pairs = []
    for reply in dated:
        if not reply["by_subject"] or not reply["from"]:
            continue
        # the latest first, back to SUBJECT_DAYS before it: a Subject of thousands of messages, each reply's few
        for at in range(bisect_right(times, reply["at"]) - 1, -1, -1):
            row = dated[at]
            if row["at"] < reply["at"] - SUBJECT_DAYS * 86400:
                break
            if row is not reply and not own_guess(reply["from"], row["by_subject"], row["from"]) \
                    and same_people(reply["from"], reply["all"], row["from"], row["all"]):
                pairs.append((reply, row))
                break
    return pairs


def others(found: dict, file_id: int, line: int | None = None) -> list[str]:
    """The names of the other messages of the thread ``threads`` found for a hit ('budget.eml', 'Inbox.mbox (line
    12)'), by the time sent; [] for none."""
    got = found.get((file_id, line)) or found.get((file_id, None))
    if not got:
        return []
    own, members = got
    return [m["name"] for m in members if (m["file"], m["line"]) != (own["file"], own["line"])]


def thread_files(conn, collection_id: int, file_id: int, line: int | None = None) -> list[dict]:
    """The messages of the thread of the message of file version ``file_id`` (at ``line`` of a mailbox) in its
    collection, by date, itself among them; [] for one alone in its thread (a mailbox's: alone outside its file)."""
    got = threads(conn, [(collection_id, file_id, line)])
    return next(iter(got.values()))[1] if got else []


def _thread_rows(conn, collection_id: int, keys: list[str]) -> list[dict]:
    """The published messages of a collection whose thread's key or Message-ID is one of ``keys``, by the time
    sent, then file and line; at most THREAD_FILES; each named ('mail/budget.eml', 'Inbox.mbox (line 12)')."""
    rows = mail_reads.thread_messages(conn, collection_id, keys, THREAD_FILES)
    for r in rows:
        r["name"] = r["path"] if r["lines"] is None else f"{r['path']} (line {r['line']})"
    return rows


def _members(own: dict, rows: list[dict]) -> list[dict]:
    """Of ``rows``, those joined to ``own`` by a key (its thread's, a Message-ID), through one another."""
    keys = {key for key in (own["thread"], own["message_id"]) if key}
    while True:  # a reply joined by its Subject (``joined``) is joined to the thread of that key
        members = [r for r in rows if r["thread"] in keys or r["message_id"] in keys or r.get("joined") in keys]
        more = {key for r in members for key in (r["thread"], r["message_id"], r.get("joined")) if key} - keys
        if not more:
            return members
        keys |= more


def mailbox_threads(conn, collection_id: int, file_id: int, path: str) -> tuple[int, int, int]:
    """(messages kept, threads among them, threads of them that go on in another published mail file of the
    collection: a reply in Sent, a message saved as an .eml) of the mailbox file version ``file_id`` at ``path``,
    from the index's table of messages alone (its keys: a message's Message-ID and its thread's, joined as
    ``_members`` joins them). list_files said only 'indexed' of a mailbox of ten years, where a chat export says its
    days and messages. A message naming neither key has no row: the caller counts it a thread of its own."""
    key = (file_id, collection_id, path, mail_reads.other_mail_files(conn, collection_id, path))
    with _counted_lock:
        kept = _counted.get(key)
    if kept is None:
        kept = _count_threads(conn, collection_id, file_id, path)
        with _counted_lock:
            while len(_counted) >= COUNTS_KEPT:
                _counted.pop(next(iter(_counted)))
            _counted[key] = kept
    return kept


# A mailbox's counts by (file version, collection, path, the collection's other mail file versions): a file
# version's messages never change, and the other files' only with a new version of one. Counted afresh, a listing of
# a mailbox of 20,000 messages and its Sent took 0.18 s longer each time; kept, 0.04 ms (bench/mailbox_listing.py).
# Kept by the collection's published generation before, a publish of any note (a Markdown file saved) counted a
# mailbox of 100,000 messages afresh: the next list_files took about a second.
COUNTS_KEPT = 64
_counted: dict = {}
_counted_lock = threading.Lock()  # sift-mcp over HTTP lists from several threads


def _count_threads(conn, collection_id: int, file_id: int, path: str) -> tuple[int, int, int]:
    rows = mail_reads.file_messages(conn, file_id)
    found: dict[str, str] = {}  # a key -> a key of its thread (union-find: followed to the thread's own)

    def thread_of(key: str) -> str:
        while found[key] != key:
            found[key] = found[found[key]]
            key = found[key]
        return key

    for keys in rows:
        named = [key for key in keys if key]
        for key in named:
            found.setdefault(key, key)
        for key in named[1:]:
            found[thread_of(key)] = thread_of(named[0])
    threads = {thread_of(key) for key in found}
    if not threads:
        return len(rows), 0, 0
    going_on = {thread_of(key) for keys in mail_reads.other_messages(conn, collection_id, path) for key in keys
                if key in found}
    for row in _joined_across(conn, collection_id, file_id, path):  # a reply joined by its Subject, either way
        going_on |= {thread_of(key) for key in (row["message_id"], row["thread"]) if key in found}
    return len(rows), len(threads), len(going_on)


def _joined_across(conn, collection_id: int, file_id: int, path: str) -> list[dict]:
    """The messages of file version ``file_id`` joined by their Subject (``subject_pairs``) to a message of another
    of the collection's mail files, a reply to its earlier message or an earlier message to its reply: a phone's
    reply in Sent to a message of Inbox. list_files counted only the threads going on elsewhere by their keys."""
    if not mail_reads.keeps_people(conn):
        return []
    others = mail_reads.other_topic_messages(conn, collection_id, file_id, path)
    if not others:
        return []
    by_topic: dict[str, list[dict]] = {}
    for row in others + mail_reads.file_topic_messages(conn, file_id, sorted({row["topic"] for row in others})):
        by_topic.setdefault(row["topic"], []).append(row)
    mine = []
    for said in by_topic.values():
        if any(row["by_subject"] for row in said):
            mine += [row for pair in subject_pairs(said) if pair[0]["file"] != pair[1]["file"] for row in pair
                     if row["file"] == file_id]
    return mine


def _threads_of_meta(conn, asked: list[tuple[int, int]]) -> dict:
    """``threads`` of an index before V23: the .eml files' keys in their meta (a mailbox's messages are not)."""
    own = file_reads.mail_thread_of(conn, [file_id for _, file_id in asked])
    found: dict = {}
    for collection in {c for c, file_id in asked if file_id in own}:
        mine = {file_id: {key for key in own[file_id] if key} for c, file_id in asked
                if c == collection and file_id in own}
        keys = set().union(*mine.values())
        rows = file_reads.mail_thread_files(conn, collection, sorted(keys), THREAD_FILES)
        more = {key for r in rows for key in (r["thread"], r["message_id"]) if key} - keys
        if more:
            rows = file_reads.mail_thread_files(conn, collection, sorted(keys | more), THREAD_FILES)
        rows = [{**dict(r), "file": None, "line": 1, "lines": None, "name": r["path"]} for r in rows]
        for file_id, keys_ in mine.items():
            me = {"file": file_id, "line": 1, "lines": None, "thread": own[file_id][0], "message_id": own[file_id][1]}
            members = _members(me, rows)
            if len(members) > 1:
                for m in members:  # the rows name no file id: itself is the one of its Message-ID
                    if m["message_id"] == me["message_id"] and m["thread"] == me["thread"]:
                        m["file"] = file_id
                found[(file_id, None)] = (me, members)
    return found


def thread_line(others: list[str], heading: str) -> str:
    """A hit's line naming its thread: "its thread: 2 other messages, mail/budget.eml, mail/re-budget.eml
    (read_file with heading='thread: Re: Budget' on it shows them together)"."""
    named = ", ".join(others[:THREAD_SHOWN]) + (f" and {len(others) - THREAD_SHOWN} more"
                                                if len(others) > THREAD_SHOWN else "")
    return (f"its thread: {len(others)} other message{'s' if len(others) != 1 else ''}, {named} (read_file with "
            f"heading={'thread: ' + heading!r} on it shows them together)")
