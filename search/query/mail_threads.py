"""The thread of a saved message (.eml) among the other saved messages of its collection: a folder of .eml files
(Apple Mail's or Outlook's drag and drop) holds a conversation as a file a message, and a reply's hit and read_file
named none of the others (a mailbox's thread is its own file's: ingest.mail.Threads, mcp_server.reading). Found by
the Message-ID and thread key each one's meta holds (ingest.mail.thread_meta, read at parse time), never by reading
the files."""
from __future__ import annotations

from search.index import file_reads

THREAD_SHOWN = 5  # of a hit's thread, the messages named
THREAD_FILES = 200  # messages looked up for the threads of one call (a hit names the first few)


def threads(conn, asked: list[tuple[int, int]]) -> dict[int, list]:
    """file version id -> the messages of its thread in its collection, by date (rows: path, title, thread,
    message_id, date), itself among them, for each (collection id, file version id) of ``asked`` that is a saved
    message with another in its thread. Two lookups for them all (a page of hits): those of their keys and
    Message-IDs, then those of the keys and Message-IDs found, since a reply to a reply whose References are
    missing has the message it replies to as its key, not the thread's first."""
    own = file_reads.mail_thread_of(conn, [file_id for _, file_id in asked]) if asked else {}
    found: dict[int, list] = {}
    for collection in {c for c, file_id in asked if file_id in own}:
        mine = {file_id: {key for key in own[file_id] if key} for c, file_id in asked
                if c == collection and file_id in own}
        keys = set().union(*mine.values())
        rows = file_reads.mail_thread_files(conn, collection, sorted(keys), THREAD_FILES)
        more = {key for r in rows for key in (r["thread"], r["message_id"]) if key} - keys
        if more:
            rows = file_reads.mail_thread_files(conn, collection, sorted(keys | more), THREAD_FILES)
        for file_id, keys_ in mine.items():
            for _ in range(2):  # as the lookups went: its keys, then those of the messages they found
                keys_ |= {key for r in rows if r["thread"] in keys_ or r["message_id"] in keys_
                          for key in (r["thread"], r["message_id"]) if key}
            members = [r for r in rows if r["thread"] in keys_ or r["message_id"] in keys_]
            if len(members) > 1:
                found[file_id] = members
    return found


def thread_files(conn, collection_id: int, file_id: int) -> list:
    """The messages of the thread of file version ``file_id`` in its collection, by date, itself among them; []
    for a file not a saved message of a thread."""
    return threads(conn, [(collection_id, file_id)]).get(file_id, [])


def thread_line(others: list[str], heading: str) -> str:
    """A hit's line naming its thread: "its thread: 2 other messages, mail/budget.eml, mail/re-budget.eml
    (read_file with heading='thread: Re: Budget' on it shows them together)"."""
    named = ", ".join(others[:THREAD_SHOWN]) + (f" and {len(others) - THREAD_SHOWN} more"
                                                if len(others) > THREAD_SHOWN else "")
    return (f"its thread: {len(others)} other message{'s' if len(others) != 1 else ''}, {named} (read_file with "
            f"heading={'thread: ' + heading!r} on it shows them together)")
