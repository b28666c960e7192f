"""Mail files and chat exports as read_file shows them: a mailbox's (an .eml's, an Evernote export's) messages as
headings, a message decoded as indexed, its thread in the file and across the collection's mail files, an
attachment's text as indexed; a chat export's days as headings."""
from __future__ import annotations

import os
import re
from pathlib import Path

from mcp_server import lines as line_maps, paths, render
from mcp_server.errors import Problem
from mcp_server.pdf_pages import merge_chunks
from mcp_server.read_answer import MAX_BYTES
from mcp_server.read_target import paths_target
from search.index import chunk_reads


# read_file heading='Attachment: report.pdf' of a mail file: the attachment's text as indexed (ingest.mail), its
# message's Subject before it where several hold one of that name ('Invoice March#Attachment: invoice.pdf', or as a
# hit heads it, 'Invoice March > Attachment: invoice.pdf > page 2'); '(line 13)' after the Subject as headings name
# messages sharing one
ATTACHMENT_ASKED = re.compile(r"^\s*(?:(?P<subject>.*?)\s*(?:#|>)\s*)?attachment:\s*(?P<name>.+?)\s*(?:>.*)?$",
                              re.IGNORECASE | re.DOTALL)
# (a line of no more digits than a file has lines: int() refused 5,000 of them with a ValueError, the tool's error)
MESSAGE_LINE = re.compile(r"^(?P<subject>.*?)\s*\(line (?P<line>[0-9]{1,15})\)$", re.DOTALL)


def read_attachment(sift, target: paths.Target, indexed, asked: re.Match) -> tuple[str, dict]:
    """read_file's answer for heading='Attachment: report.pdf' of a mail file: the attachment's passages as
    indexed, joined (their overlap once), within MAX_BYTES. read_file showed its message's lines, the attachment
    as base64: an assistant had the hit's snippet of a PDF sent by mail and no way to its text."""
    from mcp_server.reading import read  # read_file's entry, which calls this (at the top: a cycle)
    if indexed is None:
        raise Problem(f"{target.name} is not in the published index: its attachments' text can be read only once "
                      "it is indexed (see stats)")
    name, subject = asked.group("name").casefold(), (asked.group("subject") or "").strip()
    line = MESSAGE_LINE.match(subject)
    subject, line = (line.group("subject"), int(line.group("line"))) if line else (subject, None)
    groups: dict[tuple[str, int], list] = {}  # (Subject, its message's first line): the attachment's passages
    run = None  # the group the chunk before was of: an attachment's passages are one run, its first at the message's
    for chunk in chunk_reads.file_chunks(sift.conn(), indexed["id"]):
        path = chunk["heading_path"].split(" > ")
        if not (len(path) > 1 and path[1].casefold() == f"attachment: {name}"
                and (not subject or path[0].casefold() == subject.casefold())):
            run = None
            continue
        if run is None or run[0] != path[0]:
            run = (path[0], chunk["start_line"])
        groups.setdefault(run, []).append(chunk)
    groups = {key: chunks for key, chunks in groups.items() if line in (None, key[1])}
    if not groups:
        raise Problem(f"{target.name} has no attachment {asked.group('name')!r} read"
                      + (f" in the message {subject!r}" if subject else "") + " (only those of kinds Sift reads "
                      "are: list_files says which were not, and why); its message's head names its attachments")
    if len(groups) > 1:
        listed = ", ".join(f"'{key[0]} (line {key[1]})#Attachment: {asked.group('name')}'" for key in groups)
        raise Problem(f"{target.name}: several messages hold an attachment {asked.group('name')!r}: give one "
                      f"of heading={listed}")
    (message, first), chunks = next(iter(groups.items()))
    named = chunks[0]["heading_path"].split(" > ")[1].split(":", 1)[1].strip()  # as the mail names it
    text = merge_chunks(chunks)
    encoded = text.encode("utf-8", "surrogatepass")
    cut = len(encoded) > MAX_BYTES
    shown = encoded[:MAX_BYTES].decode("utf-8", "ignore") if cut else text
    _, data = read(sift, target.name, first, first, None)  # the message's first line: the answer's place
    note = (f"; stopped at the {MAX_BYTES // 1000} KB limit, {len(encoded) - MAX_BYTES:,} bytes not shown: search "
            f"with glob={target.relative!r} for the part you need" if cut else "")
    return (f"{render.shown(target.name)}  (attachment {named!r} of the message {message!r} at line "
            f"{first}, its text as indexed in generation {indexed['published']})\n{shown}\n"
            f"[the attachment's text as indexed{note}]"), {**data, "next_start_line": None}


# read_file heading='thread: Budget': the messages of the thread of the message 'Budget' in a mailbox, together
THREAD_ASKED = re.compile(r"\s*thread\s*:\s*(\S.*)", re.IGNORECASE | re.DOTALL)
THREAD_LISTED = 30  # messages of a thread named in a note


def named_by_line(heading: str, headings: list, messages: list) -> str:
    """``heading`` ('Re: Budget (line 2791)', 'thread: …' before it) with its line any line of a message of that
    Subject, as a search hit's start_line is, read as that message's own heading ('Re: Budget (line 2790)'): a
    mailbox of ten years holds a hundred messages 'Re: Budget', and read_file named a dozen of them, asked for
    the one a hit was in (its heading 'Re: Budget', its lines 2791-2797); the rest as asked."""
    thread = THREAD_ASKED.match(heading)
    asked = MESSAGE_LINE.match((thread.group(1) if thread else heading).strip())
    if asked is None:
        return heading
    line, subject = int(asked.group("line")), _letters(asked.group("subject"))
    for (first, lines), (_, _, name) in zip(messages, headings):
        if first < line <= first + lines:  # the message holding it; its Subject the one asked, or no answer
            own = MESSAGE_LINE.match(name)
            if _letters(own.group("subject") if own else name) != subject:
                return heading
            return ("thread: " if thread else "") + name
    return heading


def _letters(name: str) -> str:
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def several_said(heading: str, found: str) -> str:
    """What read_file adds to 'several headings holding …' of a mailbox: how to name the one meant."""
    thread = THREAD_ASKED.match(heading)
    subject = (thread.group(1) if thread else heading).strip()
    return (f"; name the one you mean by a line of it, a search hit's start_line: "
            f"heading={('thread: ' if thread else '') + subject + ' (line N)'!r}"
            if found.startswith("several headings") else "")


def thread_of(index: int, threads: list[str] | None) -> list[int]:
    """The messages (indexes, in the file's order) of the thread of message ``index`` (ingest.mail.Threads)."""
    if not threads:
        return [index]
    return [at for at, key in enumerate(threads) if key == threads[index]]


def thread_list(shared: list[int], headings: list, messages: list) -> str:
    listed = ", ".join(f"{headings[at][2]!r} (lines {messages[at][0] + 1}-{sum(messages[at])})"
                       for at in shared[:THREAD_LISTED])
    return listed + (f" and {len(shared) - THREAD_LISTED} more" if len(shared) > THREAD_LISTED else "")


def read_thread(sift, name: str, index: int, headings: list, messages: list, threads: list) -> tuple[str, dict]:
    """read_file's answer for heading='thread: …': each message of the thread of message ``index``, in the file's
    order, as read_file shows its lines, as many as fit in MAX_BYTES; a note names them, and the rest. The data
    are the first's, to the last shown's end_line, next_start_line the first not shown's. A search hit in a
    reply showed 'Re: Budget' and no way to its thread: its messages lie apart in the mailbox, among others."""
    shared = thread_of(index, threads)
    texts, data, used = [], None, 0
    target = paths_target(sift, name)
    for at in shared:
        first, last = messages[at][0] + 1, sum(messages[at])
        text, read_data = read_message(sift, target, first, last)
        if texts and used + len(text.encode("utf-8")) > MAX_BYTES:
            break
        texts.append(text)
        used += len(text.encode("utf-8"))
        data = data or read_data
    rest = shared[len(texts):]
    note = (f"; not shown, past the {MAX_BYTES // 1000} KB limit: {thread_list(rest, headings, messages)} "
            "(read_file with heading= one of them)" if rest else "")
    shown = shared[:len(texts)]  # the data: from the first message shown to the last, and where the rest begins
    data = {**data, "end_line": sum(messages[shown[-1]]),
            "next_start_line": messages[rest[0]][0] + 1 if rest else None}
    return ("\n\n".join(texts) + f"\n[the thread of {headings[index][2]!r}, {len(shared)} message"
            f"{'s' if len(shared) != 1 else ''}: {thread_list(shared, headings, messages)}{note}]"), data


def saved_thread(conn, target: paths.Target, indexed, line: int) -> list:
    """The thread of a mail message (an .eml's, or a mailbox's at ``line``) among its collection's mail files
    (search.query.mail_threads: by their Message-IDs, kept in the index), by date; [] for any other file, or one
    alone in its thread (a mailbox's message: alone outside its mailbox, whose own thread read_thread shows)."""
    if indexed is None:
        return []
    from search.query.mail_threads import thread_files
    return thread_files(conn, indexed["collection"], indexed["id"], line)


def _subject(r: dict) -> str:
    """A thread's message as its list names it: an .eml's title, a mailbox's message's Subject."""
    return (r.get("subject") or r["title"]) if r.get("lines") else r["title"]


def saved_list(target: paths.Target, saved: list) -> str:
    listed = ", ".join(f"{target.collection}/{r['name']} ({_subject(r)!r}{', ' + r['date'] if r['date'] else ''})"
                       for r in saved[:THREAD_LISTED])
    return listed + (f" and {len(saved) - THREAD_LISTED} more" if len(saved) > THREAD_LISTED else "")


def read_saved_thread(sift, target: paths.Target, saved: list) -> tuple[str, dict]:
    """read_file's answer for heading='thread: …' of an .eml: each saved message of its thread in the collection,
    by date, as read_file shows it, as many as fit in MAX_BYTES; a note names them, and the rest. The data are the
    asked file's where it is shown, else the first's. A reply's .eml named no other message of its conversation,
    though the folder held them all (Apple Mail's and Outlook's drag and drop save a file a message)."""
    texts, data, used = [], None, 0
    for r in saved:  # an .eml whole, a mailbox's message its lines
        first, last = (None, None) if r["lines"] is None else (r["line"], r["line"] + r["lines"] - 1)
        text, read_data = read_message(sift, paths_target(sift, f"{target.collection}/{r['path']}"), first, last)
        if texts and used + len(text.encode("utf-8")) > MAX_BYTES:
            break
        texts.append(text)
        used += len(text.encode("utf-8"))
        data = read_data if data is None or r["path"] == target.relative else data
    rest = saved[len(texts):]
    note = (f"; not shown, past the {MAX_BYTES // 1000} KB limit: {saved_list(target, rest)} (read_file on each)"
            if rest else "")
    return ("\n\n".join(texts) + f"\n[the thread of {target.name}, {len(saved)} saved messages in "
            f"{target.collection}: {saved_list(target, saved)}{note}]"), {**data, "next_start_line": None}


MESSAGE_READ_BYTES = 32 * 1024 * 1024  # of a message, what is decoded to show it (ingest.mail.MAX_MESSAGE_BYTES)


def read_message(sift, target: paths.Target, first: int | None, last: int | None) -> tuple[str, dict]:
    """read_file's answer for a mail message asked by its heading (its Subject, 'thread: …'): the message as it is
    indexed (ingest.mail.message_text: decoded, its quotes and signature left out), the data those of its lines
    (``first`` to ``last``; None: the whole file, an .eml). A Takeout message showed as the file holds it: its
    text quoted-printable, then again as HTML, under a dozen headers of routes and ids, a thread's second message
    past the 40 KB limit. Its lines as they are: read_file with start_line and end_line and no heading."""
    from ingest.mail import message_text
    from mcp_server.reading import read  # read_file's entry, which calls this (at the top: a cycle)
    text, data = read(sift, target.name, first, last, None)
    start = data.get("start_line") or first or 1
    try:
        raw = _line_bytes(target, start, last)
        shown = message_text(raw)
    except Exception:  # noqa: BLE001 - not readable as mail: its lines as the file holds them, as before
        return text, data
    end = last or start + raw.count(b"\n") - (raw.endswith(b"\n"))
    encoded = shown.encode("utf-8", "surrogatepass")
    cut = len(encoded) > MAX_BYTES
    shown = encoded[:MAX_BYTES].decode("utf-8", "ignore") if cut else shown
    note = (f"; stopped at the {MAX_BYTES // 1000} KB limit, {len(encoded) - MAX_BYTES:,} bytes not shown" if cut
            else "")
    return (f"{render.shown(target.name)}  (the message at lines {start}-{end}, as read: decoded, its quotes and "
            f"signature left out{note}; start_line={start} and end_line={end} without heading show its lines as the "
            f"file holds them)\n{shown}"), {**data, "end_line": end, "next_start_line": None}


def _line_bytes(target: paths.Target, first: int, last: int | None) -> bytes:
    """The bytes of lines ``first`` to ``last`` (None: to the end) of a file, at most MESSAGE_READ_BYTES."""
    kept, size = [], 0
    with open(target.absolute, "rb") as f:
        for number, line in enumerate(f, 1):
            if number < first:
                continue
            if (last is not None and number > last) or size > MESSAGE_READ_BYTES:
                break
            kept.append(line)
            size += len(line)
    return b"".join(kept)


def message_lines(found: tuple[int, int], messages: list[tuple[int, int]]) -> tuple[int, int]:
    """The lines in a mail file of the messages ``found`` names by their lines in mailbox_headings' note (one a
    message)."""
    start, end = found
    return messages[start - 1][0] + 1, messages[end - 1][0] + messages[end - 1][1]


def mailbox_headings(target: paths.Target) -> tuple[str, list[tuple[int, int, str]], list[tuple[int, int]],
                                                   list[str]] | None:
    """A mail file's messages as a note of one line per message, their Subjects its headings (ingest.mail), and
    where each message is in the file ((first line, 0-based; its lines)), and each one's thread's key; or None for
    a file no mail: an .eml, an .mbox, a Thunderbird folder ('Inbox', no extension) read as one. The file is read in blocks, its messages'
    headers alone parsed: one past the first LINKED_BYTES was 'no heading', though its hit was headed by it. The
    last few mailboxes' are kept while the file is unchanged (reading several messages of one mailbox)."""
    from ingest.kinds import MAIL_EXTENSIONS, SHEBANG_BYTES, is_mailbox, suffix
    ext = suffix(target.relative).lower()
    if ext and ext not in MAIL_EXTENSIONS and ext != ".enex":  # an Evernote export's notes as messages (ingest.enex)
        return None
    with open(target.absolute, "rb") as f:
        st = os.fstat(f.fileno())
        key = (target.absolute, st.st_size, st.st_mtime_ns, st.st_ino)
        if key in _mail_kept:
            return _mail_kept[key]
        if not ext and not is_mailbox(f.read(SHEBANG_BYTES)):
            return None
        f.seek(0)
        from ingest.enex import enex_headings
        from ingest.mail import mail_headings
        threads: list[str] = []
        blocks = iter(lambda: f.read(line_maps.BLOCK), b"")
        found = enex_headings(blocks) if ext == ".enex" else mail_headings(blocks, ext != ".eml", threads)
    note = "\n".join(name for _, _, name, _ in found)  # a line per message, its heading
    kept = (note, [(n, 1, name) for n, (_, _, name, _) in enumerate(found)],
            [(line, lines) for line, _, _, lines in found], threads)
    while len(_mail_kept) >= MAILBOXES_KEPT:
        _mail_kept.pop(next(iter(_mail_kept)))
    _mail_kept[key] = kept
    return kept


MAILBOXES_KEPT = 2  # mailboxes whose headings are kept: a few hundred bytes a message
_mail_kept: dict = {}  # (path, size, mtime, inode) -> mailbox_headings' answer, oldest first


def chat_days(target: paths.Target) -> tuple[str, list[tuple[int, int, str]], list[tuple[int, int]]] | None:
    """A chat export's days (ingest.chat) in mailbox_headings' shape: a note of a line per day, its heading
    ('#general · 2024-03-14'), the headings, and where each day is in the file ((first line, 0-based; its lines));
    None for a file no chat export. heading='#general · 2024-03-14', a hit's heading, was 'no heading' before: the
    file's JSON or text has no such line. The last few exports' days are kept while the file is unchanged (a 14 MB
    Telegram export of 100,000 messages takes 2.4 s to read again: reading several of its days)."""
    from ingest.chat import chat_headings
    if not target.relative.lower().endswith((".json", ".txt", ".text", ".html", ".htm", ".csv")):  # .csv: WeChat's
        return None
    try:
        st = os.stat(target.absolute)
    except OSError:
        return None
    key = (target.absolute, target.relative, st.st_size, st.st_mtime_ns, st.st_ino)
    if key not in _chats_kept:
        days = chat_headings(target.relative, Path(target.absolute))
        while len(_chats_kept) >= MAILBOXES_KEPT:
            _chats_kept.pop(next(iter(_chats_kept)))
        _chats_kept[key] = None if days is None else (
            "\n".join(name for name, _, _ in days), [(n, 1, name) for n, (name, _, _) in enumerate(days)],
            [(first - 1, last - first + 1) for _, first, last in days])
    return _chats_kept[key]


_chats_kept: dict = {}  # (path, name, size, mtime, inode) -> chat_days' answer, oldest first
