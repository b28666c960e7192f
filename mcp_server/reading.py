"""read_file: a text file's lines from disk, or a PDF's pages from the index.

Text comes from the file as it is now, numbered like ``cat -n``, decoded as the
indexer decodes it (``ingest.decode``: UTF-8, UTF-16/32 by their BOM, or the
legacy encoding the first 64 KiB read as; the same "binary file" and "not
UTF-8 text" verdicts). The file is read in blocks,
never whole: where lines start is learnt by ``mcp_server.lines`` and only the
lines shown are decoded, so a call costs bounded time and memory at any size.
Output stops at MAX_LINES lines or MAX_BYTES bytes (UTF-8) and says where to go
on; a line longer than that is cut and continued with ``start_offset`` (bytes
into the line). Sparse files and special files (FIFOs, devices, sockets) are
refused. PDF text comes from the published index's chunks (the parsed text
layer), one page at a time.
"""
from __future__ import annotations

import json
import os
import posixpath
import re
from contextlib import contextmanager
from pathlib import Path

from ingest.decode import SAMPLE, Encoding, decode, incremental, not_text, sniff
from ingest.discover import why_not_indexed
from ingest.document import Skip
from ingest.links import WikiLink, converted_pdfs, heading_names, linked_lines, listed_headings, wiki_link
from ingest.logseq import journal_name, namespace_name
from mcp_server import backlinks, base64_runs, lines as line_maps, paths, render
from mcp_server.errors import Problem
from search.index import chunk_reads, file_reads, progress_reads
from search.query import files
from search.query.scope import file_place

MAX_LINES = 2000
MAX_BYTES = 40_000  # bytes of returned text (UTF-8), numbers included: about 10,000 tokens of English, 13,000
# Chinese characters, under the 25,000 tokens an MCP answer may hold in Claude Code (MAX_MCP_OUTPUT_TOKENS)
NUMBER = 8  # bytes each shown line adds: "{n:>6}\t" and its line break
WINDOW = 4 * MAX_BYTES + (1 << 16)  # file bytes read to show one answer: enough for MAX_BYTES in UTF-32
SPARSE_MIN = 1 << 20  # a file this big with under 1/8 of it on disk is sparse
MIN_OVERLAP = 8  # characters; shorter matches between chunks may be chance
WORD_BYTES = 64 << 20  # of a Word document read, as ingest reads it (ingest.files.MAX_FILE_BYTES: more is skipped)


def read(sift, raw_path: str, start_line: int | None, end_line: int | None, page: int | None,
         start_offset: int | None = None, end_page: int | None = None, heading: str | None = None) -> tuple[str, dict]:
    if heading is not None:
        return _read_heading(sift, raw_path, heading, (start_line, end_line, page, end_page, start_offset))
    conn, roots = sift.conn(), sift.roots()
    try:
        target = _target(conn, raw_path, roots)
    except Problem:
        _refuse_deleted(conn, raw_path, roots)
        place = _place_after(conn, raw_path, roots)
        if place is None:
            linked = _read_linked(sift, raw_path, start_line, end_line, start_offset)
            if linked is not None:
                return linked
            other = paths.in_other_script(raw_path, roots, lambda form: _target(conn, form, roots))
            if other is None:
                raise
            text, data = read(sift, other[1].name, start_line, end_line, page, start_offset, end_page)
            return text + (f"\n[no file {raw_path!r}: read it as {other[1].name!r}, its Chinese in the other "
                           "script (Simplified, Traditional)]"), data
        target, place = place
        if start_line is None and end_line is None and page is None:
            start_line, end_line, page = place.start_line, place.end_line, place.page
        text, data = read(sift, target.name, start_line, end_line, page, start_offset, end_page)
        return text + f"\n[read {raw_path!r} as the file {target.name!r} and the place written after it]", data
    _refuse_unindexable(sift, target, roots)
    indexed = file_reads.visible_file(conn, target.collection, target.relative)
    if target.relative.lower().endswith(".pdf") or (indexed is not None and indexed["kind"] == "pdf"):
        if start_line is not None or end_line is not None:
            raise Problem(f"{target.name} is a PDF: read it by page (page=1, page=2, …), not by line")
        if end_page is not None and end_page < (page or 1):
            raise Problem(f"end_page {end_page} is before page {page or 1}: give end_page at or after page")
        return read_pdf(conn, target, indexed, page or 1, start_offset or 0, end_page)
    if page is not None or end_page is not None:
        raise Problem(f"{target.name} is not a PDF: read it by start_line and end_line, not by page")
    unindexed = _failure(conn, target) if indexed is None else None
    if _is_word(target.relative, target.absolute):
        text, data = read_word(target, indexed, start_line or 1, end_line, start_offset or 0, unindexed)
    else:
        text, data = read_text(target, indexed, start_line or 1, end_line, start_offset or 0, unindexed)
    if (start_line or 1) == 1 and not start_offset:  # a note's first lines say which notes link to it
        linking, total = backlinks.linked_from(conn, target.collection, target.relative, indexed)
        if total:  # in the text only: the tools' output schemas stay within their budget (test_structured_output)
            text += "\n" + render.shown(backlinks.said(linking, total))  # a newline in a name escaped
    return text, data


def _target(conn, raw_path: str, roots: dict[str, str]) -> paths.Target:
    return paths.resolve(raw_path, roots, lambda name: (file_reads.visible_by_name(conn, name)
                                                        or files.beside_indexed(conn, name, roots)))


def _place_after(conn, raw_path: str, roots: dict[str, str]):
    """(file, location) of a path that names no file as written but does without the lines or page a result
    wrote after it ('notes/x.md:12-30', 'notes/x.md  lines 12-30', 'notes/paper.pdf  page 4'), the path with its
    Chinese in either script ('论文/繁体.pdf p.2' for 论文/繁體.pdf: neither way alone found it); else None."""
    place = paths.location(raw_path)
    if place is None:
        return None
    try:
        return _target(conn, place.path, roots), place
    except Problem:
        other = paths.in_other_script(place.path, roots, lambda form: _target(conn, form, roots))
        return None if other is None else (other[1], place)


LINKED_BYTES = 16 << 20  # a note read whole to find a heading or block a link names


def _read_linked(sift, raw: str, start_line: int | None, end_line: int | None, start_offset: int | None):
    """read_file's answer for a wiki link that names no file as written ('[[Ranking Notes#BM25 tuning|how]]',
    'Sift#^decision', '![[Architecture Overview]]'), as Obsidian resolves it: the note of that name (with '.md'),
    and the heading's section or the block it names, unless lines are asked for. An assistant reading a note
    that embeds another one had no way to follow the embed but a search. None when no note answers."""
    link = wiki_link(raw)
    if link is None or (link == (raw.strip(), (), None) and raw.strip().lower().endswith(".md")):
        return None
    conn, roots = sift.conn(), sift.roots()
    target = None
    for name in dict.fromkeys((link.name, link.name + ".md")):
        try:
            target = _target(conn, name, roots)
            break
        except Problem:
            continue
    if target is None:
        target = _note_in_any_case(conn, link.name, roots)
    if target is None:
        return None
    place = ""
    if (link.headings or link.block) and start_line is None and end_line is None:
        names, whole = [], "the whole note"  # its headings, to list when none is the one named
        try:
            made = _word_headings(target) if _is_word(target.relative, target.absolute) else _mail_headings(target)
            if made is not None:  # '[[report.docx#Budget]]', '[[talk.pptx#Slide 3]]': its lines and headings as read
                whole = "the whole file"  # a deck, a document, a mailbox: no note
                note, headings, *messages = made  # a mail file's: where each message is in the file
                names = [name for _, _, name in headings]
                found = linked_lines(note, link, headings=headings)
                if isinstance(found, str) and not link.block:  # headings Sift made, named in part: 'Slide 3: Costs'
                    found = linked_lines(note, link, loose=True, headings=headings)
                if messages and not isinstance(found, str):  # the message's lines in the file, as _read_heading's
                    found = _message_lines(found, messages[0])
            else:
                with open(target.absolute, "rb") as f:
                    note = decode(f.read(LINKED_BYTES))
                names, found = heading_names(note), linked_lines(note, link)
        except (OSError, Skip, Problem):
            found = f"the {whole.split()[-1]} cannot be read as text"
        if isinstance(found, str):
            listed = f"; its headings: {listed_headings(names)}" if names and found.startswith("no heading") else ""
            raise Problem(f"{target.name} has {found}{listed}: read_file {target.name!r} shows {whole}") from None
        start_line, end_line = found
        place = f", lines {start_line}-{end_line}: " + (f"its block ^{link.block}" if link.block else
                                                        f"its section {' > '.join(link.headings)!r}")
    text, data = read(sift, target.name, start_line, end_line, None, start_offset)
    return text + f"\n[read {raw!r} as a link to the note {target.name}{place}]", data


def _read_heading(sift, raw_path: str, heading: str, places: tuple) -> tuple[str, dict]:
    """read_file's answer for ``heading``: the section under that heading, its subsections included ('The storm',
    'Chapter 3#The storm' for one inside another), matched on letters and digits in any case, else the one heading
    holding them; a note's from disk, a PDF's chapter by its pages as indexed. An assistant asked to read 'the
    section The storm of chapter 3' had to read the chapter from its start, 2,000 lines at a time, to find it."""
    if any(place is not None for place in places):
        raise Problem("give heading alone, or start_line/end_line (page/end_page for a PDF): the heading says "
                      "where to read; go on past a long section with the next_start_line its answer gives")
    readings = _heading_readings(heading)
    if not readings:
        raise Problem("heading is empty: give the text of a heading in the file, 'The storm' ('Part 2#The storm' "
                      "for one inside another)")
    conn, roots = sift.conn(), sift.roots()
    target = _target(conn, raw_path, roots)
    _refuse_unindexable(sift, target, roots)
    indexed = file_reads.visible_file(conn, target.collection, target.relative)
    if target.relative.lower().endswith(".pdf") or (indexed is not None and indexed["kind"] == "pdf"):
        for n, (wanted, loose) in enumerate(readings, 1):
            try:
                first, last = _pdf_heading_pages(conn, target, indexed, wanted, loose)
                break
            except Problem:
                if n == len(readings):
                    raise  # what the last reading, at every '#', says is refused
        text, data = read_pdf(conn, target, indexed, first, 0, last)
        return text + f"\n[the section {' > '.join(wanted)!r}: pages {first}-{last}]", data
    messages = threads = None  # a mail file's: (first line, lines) of each message, the note's lines; their threads
    try:
        if _is_word(target.relative, target.absolute):
            note, headings = _word_headings(target)
        elif (mail := _mail_headings(target)) is not None:
            note, headings, messages, threads = mail
        elif (chat := _chat_headings(target)) is not None:  # a chat export's days, '#general · 2024-03-14'
            note, headings, messages = chat
        else:
            with open(target.absolute, "rb") as f:
                note = decode(f.read(LINKED_BYTES))
            headings = _page_headings(target.relative, note)
    except (OSError, Skip):
        raise Problem(f"{target.name} cannot be read as text to find a heading in") from None
    thread = THREAD_ASKED.match(heading) if threads is not None else None
    for wanted, loose in readings:
        found = linked_lines(note, WikiLink(target.name, wanted, None), loose=loose, headings=headings)
        if not isinstance(found, str):
            break
    if isinstance(found, str) and threads is not None and (attachment := ATTACHMENT_ASKED.search(heading)):
        return _read_attachment(sift, target, indexed, attachment)
    if isinstance(found, str) and thread:  # 'thread: Budget': the thread of the message 'Budget'
        for wanted, loose in _heading_readings(thread.group(1)):
            found = linked_lines(note, WikiLink(target.name, wanted, None), loose=loose, headings=headings)
            if not isinstance(found, str):
                # its thread in the collection's mail files (other .eml files, other mailboxes), where it has one
                saved = _saved_thread(conn, target, indexed, messages[found[0] - 1][0] + 1)
                if saved:
                    return _read_saved_thread(sift, target, saved)
                return _read_thread(sift, target.name, found[0] - 1, headings, messages, threads)
    if isinstance(found, str):  # what the last reading, at every '#', says
        names = heading_names(note) if headings is None else [name for _, _, name in headings]
        raise Problem(f"{target.name} has {found}" + (f"; its headings: {listed_headings(names)}" if names else
                                                        "; it has no headings ('# …' lines)" if headings is None
                                                        else "; it has no headings"
                                                        + _of_a_page(target.relative))) from None
    start, end = _message_lines(found, messages) if messages else found
    text, data = (_read_message(sift, target, start, end)
                  if threads is not None and not target.relative.lower().endswith(".enex")
                  else read(sift, target.name, start, end, None))
    shared = _thread(found[0] - 1, threads) if messages and found[0] == found[1] else []
    more = (f"; its thread in this file, {len(shared)} messages: {_thread_list(shared, headings, messages)}: "
            f"read_file with heading={'thread: ' + headings[found[0] - 1][2]!r} shows them together"
            if len(shared) > 1 else "")
    saved = _saved_thread(conn, target, indexed, messages[found[0] - 1][0] + 1) \
        if messages and found[0] == found[1] else []
    if saved:  # its thread in the collection's mail files: other .eml files, other mailboxes
        more = (f"; its thread in {target.collection}, {len(saved)} messages: {_saved_list(target, saved)}: "
                f"read_file with heading={'thread: ' + headings[found[0] - 1][2]!r} shows them together")
    return text + f"\n[the section {' > '.join(wanted)!r}: lines {start}-{end}{more}]", data


# read_file heading='Attachment: report.pdf' of a mail file: the attachment's text as indexed (ingest.mail), its
# message's Subject before it where several hold one of that name ('Invoice March#Attachment: invoice.pdf', or as a
# hit heads it, 'Invoice March > Attachment: invoice.pdf > page 2'); '(line 13)' after the Subject as headings name
# messages sharing one
ATTACHMENT_ASKED = re.compile(r"^\s*(?:(?P<subject>.*?)\s*(?:#|>)\s*)?attachment:\s*(?P<name>.+?)\s*(?:>.*)?$",
                              re.IGNORECASE | re.DOTALL)
MESSAGE_LINE = re.compile(r"^(?P<subject>.*?)\s*\(line (?P<line>\d+)\)$", re.DOTALL)


def _read_attachment(sift, target: paths.Target, indexed, asked: re.Match) -> tuple[str, dict]:
    """read_file's answer for heading='Attachment: report.pdf' of a mail file: the attachment's passages as
    indexed, joined (their overlap once), within MAX_BYTES. read_file showed its message's lines, the attachment
    as base64: an assistant had the hit's snippet of a PDF sent by mail and no way to its text."""
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


def _thread(index: int, threads: list[str] | None) -> list[int]:
    """The messages (indexes, in the file's order) of the thread of message ``index`` (ingest.mail.Threads)."""
    if not threads:
        return [index]
    return [at for at, key in enumerate(threads) if key == threads[index]]


def _thread_list(shared: list[int], headings: list, messages: list) -> str:
    listed = ", ".join(f"{headings[at][2]!r} (lines {messages[at][0] + 1}-{sum(messages[at])})"
                       for at in shared[:THREAD_LISTED])
    return listed + (f" and {len(shared) - THREAD_LISTED} more" if len(shared) > THREAD_LISTED else "")


def _read_thread(sift, name: str, index: int, headings: list, messages: list, threads: list) -> tuple[str, dict]:
    """read_file's answer for heading='thread: …': each message of the thread of message ``index``, in the file's
    order, as read_file shows its lines, as many as fit in MAX_BYTES; a note names them, and the rest. The data
    are the first's, to the last shown's end_line, next_start_line the first not shown's. A search hit in a
    reply showed 'Re: Budget' and no way to its thread: its messages lie apart in the mailbox, among others."""
    shared = _thread(index, threads)
    texts, data, used = [], None, 0
    target = paths_target(sift, name)
    for at in shared:
        first, last = messages[at][0] + 1, sum(messages[at])
        text, read_data = _read_message(sift, target, first, last)
        if texts and used + len(text.encode("utf-8")) > MAX_BYTES:
            break
        texts.append(text)
        used += len(text.encode("utf-8"))
        data = data or read_data
    rest = shared[len(texts):]
    note = (f"; not shown, past the {MAX_BYTES // 1000} KB limit: {_thread_list(rest, headings, messages)} "
            "(read_file with heading= one of them)" if rest else "")
    shown = shared[:len(texts)]  # the data: from the first message shown to the last, and where the rest begins
    data = {**data, "end_line": sum(messages[shown[-1]]),
            "next_start_line": messages[rest[0]][0] + 1 if rest else None}
    return ("\n\n".join(texts) + f"\n[the thread of {headings[index][2]!r}, {len(shared)} message"
            f"{'s' if len(shared) != 1 else ''}: {_thread_list(shared, headings, messages)}{note}]"), data


def _saved_thread(conn, target: paths.Target, indexed, line: int) -> list:
    """The thread of a mail message (an .eml's, or a mailbox's at ``line``) among its collection's mail files
    (search.query.mail_threads: by their Message-IDs, kept in the index), by date; [] for any other file, or one
    alone in its thread (a mailbox's message: alone outside its mailbox, whose own thread _read_thread shows)."""
    if indexed is None:
        return []
    from search.query.mail_threads import thread_files
    return thread_files(conn, indexed["collection"], indexed["id"], line)


def _subject(r: dict) -> str:
    """A thread's message as its list names it: an .eml's title, a mailbox's message's Subject."""
    return (r.get("subject") or r["title"]) if r.get("lines") else r["title"]


def _saved_list(target: paths.Target, saved: list) -> str:
    listed = ", ".join(f"{target.collection}/{r['name']} ({_subject(r)!r}{', ' + r['date'] if r['date'] else ''})"
                       for r in saved[:THREAD_LISTED])
    return listed + (f" and {len(saved) - THREAD_LISTED} more" if len(saved) > THREAD_LISTED else "")


def _read_saved_thread(sift, target: paths.Target, saved: list) -> tuple[str, dict]:
    """read_file's answer for heading='thread: …' of an .eml: each saved message of its thread in the collection,
    by date, as read_file shows it, as many as fit in MAX_BYTES; a note names them, and the rest. The data are the
    asked file's where it is shown, else the first's. A reply's .eml named no other message of its conversation,
    though the folder held them all (Apple Mail's and Outlook's drag and drop save a file a message)."""
    texts, data, used = [], None, 0
    for r in saved:  # an .eml whole, a mailbox's message its lines
        first, last = (None, None) if r["lines"] is None else (r["line"], r["line"] + r["lines"] - 1)
        text, read_data = _read_message(sift, paths_target(sift, f"{target.collection}/{r['path']}"), first, last)
        if texts and used + len(text.encode("utf-8")) > MAX_BYTES:
            break
        texts.append(text)
        used += len(text.encode("utf-8"))
        data = read_data if data is None or r["path"] == target.relative else data
    rest = saved[len(texts):]
    note = (f"; not shown, past the {MAX_BYTES // 1000} KB limit: {_saved_list(target, rest)} (read_file on each)"
            if rest else "")
    return ("\n\n".join(texts) + f"\n[the thread of {target.name}, {len(saved)} saved messages in "
            f"{target.collection}: {_saved_list(target, saved)}{note}]"), {**data, "next_start_line": None}


MESSAGE_READ_BYTES = 32 * 1024 * 1024  # of a message, what is decoded to show it (ingest.mail.MAX_MESSAGE_BYTES)


def paths_target(sift, name: str) -> paths.Target:
    conn, roots = sift.conn(), sift.roots()
    return _target(conn, name, roots)


def _read_message(sift, target: paths.Target, first: int | None, last: int | None) -> tuple[str, dict]:
    """read_file's answer for a mail message asked by its heading (its Subject, 'thread: …'): the message as it is
    indexed (ingest.mail.message_text: decoded, its quotes and signature left out), the data those of its lines
    (``first`` to ``last``; None: the whole file, an .eml). A Takeout message showed as the file holds it: its
    text quoted-printable, then again as HTML, under a dozen headers of routes and ids, a thread's second message
    past the 40 KB limit. Its lines as they are: read_file with start_line and end_line and no heading."""
    from ingest.mail import message_text
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


def _message_lines(found: tuple[int, int], messages: list[tuple[int, int]]) -> tuple[int, int]:
    """The lines in a mail file of the messages ``found`` names by their lines in _mail_headings' note (one a
    message)."""
    start, end = found
    return messages[start - 1][0] + 1, messages[end - 1][0] + messages[end - 1][1]


def _chat_headings(target: paths.Target) -> tuple[str, list[tuple[int, int, str]], list[tuple[int, int]]] | None:
    """A chat export's days (ingest.chat) in _mail_headings' shape: a note of a line per day, its heading
    ('#general · 2024-03-14'), the headings, and where each day is in the file ((first line, 0-based; its lines));
    None for a file no chat export. heading='#general · 2024-03-14', a hit's heading, was 'no heading' before: the
    file's JSON or text has no such line. The last few exports' days are kept while the file is unchanged (a 14 MB
    Telegram export of 100,000 messages takes 2.4 s to read again: reading several of its days)."""
    from ingest.chat import chat_headings
    if not target.relative.lower().endswith((".json", ".txt", ".text", ".html", ".htm")):
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


_chats_kept: dict = {}  # (path, name, size, mtime, inode) -> _chat_headings' answer, oldest first


def _is_word(path: str, full: str) -> bool:
    from ingest.kinds import (EPUB_EXTENSIONS, SLIDE_EXTENSIONS, SPREADSHEET_EXTENSIONS, WORD_EXTENSIONS,
                              WORKBOOK_EXTENSIONS, chat_zip, suffix)
    return suffix(path).lower() in (WORD_EXTENSIONS | EPUB_EXTENSIONS | WORKBOOK_EXTENSIONS  # a workbook's: ingest.xlsx
                                    | SLIDE_EXTENSIONS | SPREADSHEET_EXTENSIONS) \
        or chat_zip(path, full)  # ingest.slides, ingest.ods; a chat export still zipped, by any name (ingest.chat)


def _mail_headings(target: paths.Target) -> tuple[str, list[tuple[int, int, str]], list[tuple[int, int]],
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
_mail_kept: dict = {}  # (path, size, mtime, inode) -> _mail_headings' answer, oldest first


def _word_headings(target: paths.Target) -> tuple[str, list[tuple[int, int, str]]]:
    """A Word document's lines as read_word shows them, joined, and its headings (ingest.word)."""
    from ingest.word import word_headings
    with _word_bytes(target) as data:
        return word_headings(data, target.relative)


def _of_a_page(path: str) -> str:
    from ingest.kinds import PAGE_EXTENSIONS, suffix
    return " (<h1> … <h6>)" if suffix(path).lower() in PAGE_EXTENSIONS else ""


def _page_headings(path: str, text: str) -> list[tuple[int, int, str]] | None:
    """The headings of an HTML page read as a note (ingest.webpage: <h1> … <h6>, not '#' lines, which it has
    none of: 'it has no headings'), of a LaTeX file (its \\section …) or a BibTeX file (its entries' citekeys:
    heading='vaswani2017attention' reads that entry), of an org-mode, reStructuredText or AsciiDoc file (its
    headlines or titles), or None for a file whose headings are '#' lines."""
    from ingest.kinds import BIBTEX_EXTENSIONS, LATEX_EXTENSIONS, MARKUP_EXTENSIONS, PAGE_EXTENSIONS, suffix
    from ingest.parse import is_page
    if suffix(path).lower() in LATEX_EXTENSIONS:
        from ingest.latex import latex_headings
        return latex_headings(text)
    if suffix(path).lower() in BIBTEX_EXTENSIONS:
        from ingest.bibtex import bibtex_headings
        return bibtex_headings(text)
    if suffix(path).lower() in MARKUP_EXTENSIONS:  # an .org file's headlines, an .rst or .adoc file's titles
        from ingest.parse import markup_reader
        return markup_reader(suffix(path).lower())[1](text)
    if suffix(path).lower() not in PAGE_EXTENSIONS or not is_page(text):
        return None
    from ingest.webpage import page_headings
    return page_headings(text)


def _heading_readings(heading: str) -> list[tuple[tuple[str, ...], bool]]:
    """The ways to read read_file's ``heading``, each (the headings, one inside the next; whether one may be a
    heading holding the words): as written, '#' and all, matched in full ('C# tips', 'F#': a '#' in a programmer's
    heading was taken for the mark of one heading inside another); then split at each '#' before a word
    ('Languages#C# tips'); then at every '#' ('Chapter 3 # The storm')."""
    readings: list[tuple[tuple[str, ...], bool]] = []
    if not any(part.strip() for part in heading.split("#")):
        return readings  # '#' alone names no heading
    for parts, loose in (([heading], False), (re.split(r"#(?=[^\s#])", heading), True), (heading.split("#"), True)):
        wanted = tuple(part.strip() for part in parts if part.strip())
        if wanted and ("#" in heading or loose) and (wanted, loose) not in readings:
            readings.append((wanted, loose))
    return readings


def _pdf_heading_pages(conn, target: paths.Target, indexed, wanted: tuple[str, ...],
                       loose: bool = True) -> tuple[int, int]:
    """(first, last) page of a PDF's passages under the outline heading ``wanted`` names (its last part matched as
    linked_lines matches a note's, the parts before it among the headings above)."""
    if indexed is None:
        read_pdf(conn, target, indexed, 1)  # says why it is not in the index
    chunks = [c for c in chunk_reads.file_chunks(conn, indexed["id"]) if c["page"]]
    paths_ = list(dict.fromkeys(c["heading_path"] or "" for c in chunks))
    key = lambda name: "".join(ch for ch in name.casefold() if ch.isalnum())  # noqa: E731

    def at(path: str, loose: bool) -> int | None:
        """Where in ``path`` the wanted headings end, or None."""
        names, i = path.split(" > "), 0
        for depth, name in enumerate(names):
            if key(name) == key(wanted[i]) or (loose and key(wanted[i]) and key(wanted[i]) in key(name)):
                i += 1
                if i == len(wanted):
                    return depth + 1
        return None
    for loose in (False, True)[:1 + loose]:
        heads = list(dict.fromkeys(" > ".join(p.split(" > ")[:at(p, loose)]) for p in paths_
                                   if at(p, loose) is not None))
        if len(heads) == 1:
            under = [c for c in chunks if (c["heading_path"] or "") == heads[0]
                     or (c["heading_path"] or "").startswith(heads[0] + " > ")]
            return min(c["page"] for c in under), max(c["end_page"] or c["page"] for c in under)
        if len(heads) > 1:
            raise Problem(f"{target.name} has several headings holding {' > '.join(wanted)!r}: "
                          f"{listed_headings(heads)}; give one of them")
    names = [p for p in paths_ if p]
    raise Problem(f"{target.name} has no heading {' > '.join(wanted)!r}" + (
        f"; its outline: {listed_headings(names)}" if names else "; it has no outline (bookmarks) to read by: "
        "read it by page"))


def _note_in_any_case(conn, name: str, roots: dict[str, str]) -> paths.Target | None:
    """The one published note a link's ``name`` names in another case ('garden shed' for Garden Shed.md, a path
    from the collection's folder when it holds a '/'), as Obsidian reads a link, or as Logseq names a page ('Mar 14th,
    2024' for journals/2024_03_14.md, 'projects/garden' for pages/projects___garden.md), else the one note aliased
    so ('alias:: sift', front matter's 'aliases:'); None for none or several."""
    wanted = {backlinks.folded(name), backlinks.folded(name + ".md")}
    # by its place on disk: under a root inside another's, one note is in both collections (read through the
    # innermost, as _target finds it)
    found = list({file_place(roots, collection, path): f"{collection}/{path}"
                  for collection, path in file_reads.visible_notes(conn)
                  if backlinks.folded(path if "/" in name else posixpath.basename(path)) in wanted
                  or ("/" in name and _namespace_page(path) in wanted)
                  or backlinks.folded(journal_name(path) or "") in wanted}.values())
    if not found:  # no note of that name: the one page aliased so ('alias:: sift'), as its backlinks read a link
        found = list({file_place(roots, collection, path): f"{collection}/{path}"
                      for collection, path, meta in file_reads.visible_note_aliases(conn)
                      if any(backlinks.folded(alias) in wanted for alias in backlinks.aliases(meta))}.values())
    if len(found) != 1:
        return None
    try:
        return _target(conn, found[0], roots)
    except Problem:
        return None


def _namespace_page(path: str) -> str | None:
    """A Logseq namespace page's name as a link writes it, folded: 'projects/garden' for pages/projects___garden.md
    (a link [[projects/garden]] names it)."""
    name = namespace_name(posixpath.splitext(posixpath.basename(path))[0])
    return backlinks.folded(name) if name else None


def _refuse_unindexable(sift, target: paths.Target, roots: dict[str, str]) -> None:
    """Refuse a file a scan would leave out: read_file reads what Sift indexes, so an assistant cannot read
    .env, .git/config or a file .gitignore keeps private just because it lies inside a root."""
    why = why_not_indexed(roots[target.collection], target.relative, sift.rules())
    if why is not None:
        raise Problem(f"refused: {target.name} is not a file Sift indexes ({why}); read_file reads only the "
                      "files search and list_files can find")


def _refuse_deleted(conn, raw_path: str, roots: dict[str, str]) -> None:
    """A Problem that says so when ``raw_path`` names a published file gone from disk since (search still
    gives its path until the next publish): 'no such file, find it with search' would send a client round.
    Named as search gives it, or by its absolute path (which said only 'no file …')."""
    named = paths.split_collection(raw_path, roots) or paths.under_a_root(raw_path, roots)
    indexed = file_reads.visible_file(conn, *named) if named is not None else None
    root = roots[named[0]] if named is not None else ""
    if indexed is not None and not os.path.lexists(os.path.join(root, named[1])):
        gone = "was deleted from disk" if os.path.isdir(root) else f"is not on disk: the folder {root} is missing"
        raise Problem(f"{'/'.join(named)} {gone} after generation {indexed['published']} indexed it: search "
                      "finds it until the generation that notices is published, but read_file reads files as "
                      "they are on disk now") from None


# --- text ---------------------------------------------------------------------------

def read_text(target: paths.Target, indexed, start: int, end: int | None, offset: int = 0,
              unindexed: str | None = None) -> tuple[str, dict]:
    """``unindexed``: why a file that is not in the published index is not (stats' reason), for the note."""
    if end is not None and end < start:
        raise Problem(f"end_line ({end}) is before start_line ({start})")
    fd = _open(target)
    try:
        st = os.fstat(fd)
        encoding = _encoding(fd, target)
        found = line_maps.line_map(target.absolute, st, encoding)
        with found.lock:
            budget = [line_maps.SCAN_BUDGET]
            if found.end == found.begin:
                return f"{target.name} is empty.", _empty(target, indexed)
            begin = _line_start(fd, found, target, start, budget)
            if offset:  # inside a character: from the next one, and the header names that byte, not the one asked
                at = _resume(fd, found, start, begin, offset, budget)
                offset, begin = at - begin, at
            last = min(end or start + MAX_LINES - 1, start + MAX_LINES - 1)
            shown, cut_at = _window(fd, found, target, begin, start, last, offset)
            found.extend(fd, budget)
            total, complete = found.lines(fd), found.complete
            if not complete:  # what was shown may lie past the counted part
                total = max(total, shown[-1][0] if shown else start)
            rest = _rest(fd, found, shown, cut_at, total, budget) if complete and end is None else None
        mail = base64_runs.is_mail_file(fd, target.relative)  # its attachments' base64 folded
    finally:
        os.close(fd)
    return _answer(target, indexed, start, end, offset, shown, cut_at, total, complete, unindexed, encoding, rest,
                   mail)


def _rest(fd: int, found, shown, cut_at, total: int, budget: list[int]) -> tuple[int, int] | None:
    """(bytes, lines) of the file after what was shown, to its end; None when all of it was shown."""
    line, into = cut_at if cut_at else ((shown[-1][0] + 1) if shown else 1, 0)
    if line > total:
        return None
    at = found.start_of(fd, line, budget)
    return None if at is None else (found.end - at - into, total - line + 1)


def _open(target: paths.Target) -> int:
    """A descriptor of the file, refused unless it is a regular file that is not sparse. Opened without
    blocking, so a FIFO put in its place after resolving cannot hang the server."""
    try:
        fd = os.open(target.absolute, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Problem(f"{target.name} cannot be read: {exc.strerror}") from None
    try:
        if not _is_checked_file(fd, target):
            raise Problem(f"refused: {target.name} changed while it was being opened (a folder on its path "
                          "replaced by a symbolic link?); read_file reads only files inside the indexed folders")
        st = os.fstat(fd)
        paths.refuse_special(target.name, st.st_mode)
        if st.st_size >= SPARSE_MIN and st.st_blocks * 512 < st.st_size // 8:
            raise Problem(f"{target.name} is a sparse file ({_mb(st.st_size)} long, {_mb(st.st_blocks * 512)} "
                          "on disk): mostly holes, not text; read_file does not read sparse files")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_checked_file(fd: int, target: paths.Target) -> bool:
    """Whether the open ``fd`` is the file ``paths.resolve`` checked (``target.absolute``, a real path inside
    a root): the path is opened after the check, so a folder on it swapped for a symbolic link in between
    would open a file outside. Asked of the descriptor itself (/proc); without /proc, the path must still be
    real (no link on it) and lead to the same file (device and inode)."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == target.absolute
    except OSError:
        pass
    try:
        opened, now = os.fstat(fd), os.stat(target.absolute)
    except OSError:
        return False
    return (os.path.realpath(target.absolute) == target.absolute
            and (opened.st_dev, opened.st_ino) == (now.st_dev, now.st_ino))


def _encoding(fd: int, target: paths.Target) -> Encoding:
    try:
        return sniff(os.pread(fd, SAMPLE, 0))
    except Skip as verdict:
        raise Problem(f"{target.name} looks like a {verdict}; read_file shows text only "
                      "(the index skips it too)") from None


def _line_start(fd: int, found, target: paths.Target, start: int, budget: list[int]) -> int:
    """Byte offset where line ``start`` begins; a Problem when the file has no such line."""
    begin = found.start_of(fd, start, budget)
    if begin is not None and (begin < found.end or start == 1):
        return begin
    if not found.complete:
        raise Problem(f"{target.name} is {_mb(found.end)}; counting its lines has reached line "
                      f"{found.lines(fd):,} so far, before line {start}: call read_file again to count on "
                      f"(each call counts {_mb(line_maps.SCAN_BUDGET)} more)")
    raise Problem(f"{target.name} has {render.count(found.lines(fd), 'line')}; start_line {start} is past the end")


def _resume(fd: int, found, line: int, begin: int, offset: int, budget: list[int]) -> int:
    """Where to go on inside line ``line`` (which begins at ``begin``), ``offset`` bytes into it: moved
    forward to the next character boundary; a Problem if that is past the line's end (no other line
    may start on the way: counted from the map's marks, or by a scan from ``begin`` past the budget)."""
    unit = found.encoding.unit
    # no further than just past the file's end (past the line all the same): os.pread cannot seek past 2**63
    at = min(begin + -(-offset // unit) * unit, found.end + unit)
    if found.encoding.legacy:  # GB18030, Big5: a byte does not say whether a character starts there
        at = _legacy_boundary(fd, found.encoding, begin, at)
    elif unit == 1:  # UTF-8: skip continuation bytes (10xxxxxx)
        head = os.pread(fd, 4, at)
        at += next((i for i, b in enumerate(head) if b & 0xC0 != 0x80), len(head))
    elif unit == 2:  # UTF-16: never start on the second half of a surrogate pair
        pair = os.pread(fd, 2, at)
        if len(pair) == 2 and 0xDC00 <= int.from_bytes(pair, "little" if found.encoding.codec.endswith("le")
                                                         else "big") <= 0xDFFF:
            at += 2
    if at <= found.end:
        known = found.starts_upto(fd, at, budget)
        if known is None and at - begin > line_maps.SCAN_BUDGET:  # the scan below would be unbounded
            raise Problem(f"start_offset {offset} lies beyond what one call counts "
                          f"({_mb(line_maps.SCAN_BUDGET)}): call read_file again to count on")
        later = known - (line - 1) if known is not None else found.breaks_between(fd, begin, at)
        if not later:
            return at
    raise Problem(f"start_offset {offset} is past the end of line {line}: give the next_start_offset a "
                  "cut line's answer named, or 0")


def _legacy_boundary(fd: int, encoding: Encoding, begin: int, at: int) -> int:
    """The first character boundary at or after ``at`` in a legacy encoding's line that begins at ``begin``:
    the line is decoded from its start (in blocks) up to there, as its characters can only be told apart so; no
    further than one call counts (past that, ``_resume`` refuses the offset)."""
    if at - begin > line_maps.SCAN_BUDGET:
        return at
    decoder, position = incremental(encoding, errors="replace"), begin
    while position < at:
        block = os.pread(fd, min(1 << 20, at - position), position)
        if not block:
            return at
        decoder.decode(block)
        position += len(block)
    pending = len(decoder.getstate()[0])
    while pending:  # inside a character: its remaining bytes
        byte = os.pread(fd, 1, position)
        if not byte:
            break
        decoder.decode(byte)
        position += 1
        pending = len(decoder.getstate()[0])
    return position


def _window(fd: int, found, target: paths.Target, begin: int, first: int, last: int,
            offset: int) -> tuple[list[tuple[int, str]], tuple[int, int] | None]:
    """([(number, text)] of lines first..last from ``begin`` within MAX_BYTES, and (line, bytes into
    it) where the next call goes on when a line was cut, else None). Reads at most WINDOW bytes: enough
    for MAX_BYTES of text in any of the encodings."""
    encoding, unit = found.encoding, found.encoding.unit
    raw = os.pread(fd, min(WINDOW, found.end - begin), begin)
    raw = raw[:len(raw) // unit * unit]
    final = begin + len(raw) >= found.end
    a = line_maps.units(raw, encoding)
    after = line_maps.starts(a, raw.find(b"\r") >= 0, final)
    shown, used, line_start = [], 0, 0
    for i, number in enumerate(range(first, last + 1)):
        if i > 0 and line_start >= len(a):
            break  # the end of the file
        whole = i < len(after) or final
        stop = int(after[i]) if i < len(after) else len(a)
        room = MAX_BYTES - used - NUMBER
        text = _without_break(_decode(raw, encoding, line_start, stop, room, whole, begin, target))
        size = len(text.encode("utf-8", "surrogatepass"))
        if whole and size <= room:
            shown.append((number, text))
            used += size + NUMBER
            if i >= len(after):
                break
            line_start = int(after[i])
            continue
        if shown:
            return shown, (number, 0)
        kept = text.encode("utf-8", "surrogatepass")[:max(room, 0)].decode("utf-8", "ignore")
        shown.append((number, kept))
        return shown, (number, offset + len(kept.encode(encoding.codec)))
    return shown, None


def _without_break(text: str) -> str:
    """The line without the LF, CR or CR LF that ends it (decoded with it, so an undecodable byte just
    before it is reported as the indexer reports it)."""
    if text.endswith("\r\n"):
        return text[:-2]
    return text[:-1] if text.endswith(("\n", "\r")) else text


def _decode(raw: bytes, encoding: Encoding, start: int, stop: int, room: int, whole: bool, begin: int,
            target: paths.Target) -> str:
    """The text of code units start..stop of ``raw``; only as much as can fill ``room`` bytes of UTF-8
    (four bytes of file at most for each) is decoded, and undecodable bytes there refuse the file."""
    unit = encoding.unit
    limit = max(0, room) + 4  # every code unit makes at least one byte of UTF-8
    cut = stop - start > limit
    piece = raw[start * unit:(start + limit if cut else stop) * unit]
    try:
        return incremental(encoding).decode(piece, final=whole and not cut)
    except UnicodeDecodeError as exc:
        raise Problem(f"{target.name} is {not_text(encoding, begin + start * unit + exc.start, exc.reason)}; "
                      "read_file shows text only (the index skips it too)") from None


def _answer(target, indexed, start, end, offset, shown, cut_at, total, complete,
            unindexed=None, encoding: Encoding | None = None, rest: tuple[int, int] | None = None,
            mail: bool = False) -> tuple[str, dict]:
    shown_to = shown[-1][0] if shown else start
    of = f"{total}" if complete else f"at least {total:,}"
    header = f"{render.shown(target.name)}  (lines {start}-{shown_to} of {of})"
    if encoding is not None and encoding.legacy:
        header += f"; {encoding.name} text, shown as the index reads it"
    if offset:
        header += f"; line {start} from byte {offset} of it"
    body = base64_runs.folded(shown) if mail else [f"{n:>6}\t{text}" for n, text in shown]
    if cut_at and cut_at[1]:
        body[-1] += " …[line cut here]"
    notes = _staleness(target, indexed, unindexed)
    if not complete:
        notes.append(f"[the file is long: lines counted so far: {total:,}; each call counts "
                     f"{_mb(line_maps.SCAN_BUDGET)} more]")
    wanted_to = min(end or total, total) if complete else (end or shown_to + 1)
    next_line, next_offset = cut_at if cut_at else (shown_to + 1, 0)
    more = cut_at is not None or shown_to < wanted_to
    if more:
        why = f"the {MAX_BYTES // 1000} KB limit" if cut_at else f"the {MAX_LINES}-line limit"
        where = f"start_line={next_line}" + (f", start_offset={next_offset}" if next_offset else "")
        what = (f"the rest of line {next_line} not shown" if next_offset
                else f"lines {next_line}-{wanted_to} not shown" if complete else f"lines from {next_line} not shown")
        notes.append(f"[stopped at {why}: {what}{_how_much(rest)}; call read_file with {where} for more"
                     f"{_or_search(target, indexed, rest)}]")
    has_more = cut_at is not None or shown_to < total or not complete
    data = {"path": target.name, "absolute_path": target.absolute, "start_line": start, "end_line": shown_to,
            "total_lines": total if complete else None, "total_lines_at_least": total,
            "next_start_line": next_line if has_more else None,
            "next_start_offset": next_offset if has_more and next_offset else None,
            "indexed_generation": indexed["published"] if indexed is not None else None}
    if offset:
        data["start_offset"] = offset
    if encoding is not None and encoding.legacy:
        data["encoding"] = encoding.name
    return "\n".join([header, *body, *notes]), data


def _calls(rest: tuple[int, int]) -> int:
    """About how many more answers the rest of a file takes: its bytes and each line's number (its line break is
    among the bytes already), or its lines."""
    size, count = rest
    return max(-(-(size + (NUMBER - 1) * count) // MAX_BYTES), -(-count // MAX_LINES))


def _how_much(rest: tuple[int, int] | None) -> str:
    """' (492.0 KB, about 16 more calls like this one)' of a rest longer than one more answer: 'lines
    1125-17018 not shown' left a model to find out, call by call, that reading a 500 KB note to its end takes
    16 more, some 160,000 tokens."""
    if rest is None or _calls(rest) < 2:
        return ""
    return f" ({_mb(rest[0])}, about {_calls(rest)} more calls like this one)"


def _or_search(target: paths.Target, indexed, rest: tuple[int, int] | None) -> str:
    """', or search with collection=…, glob=… for the part you need' when the rest takes more than one more
    answer and search finds the file."""
    args = render.search_args(target.collection, target.relative) if indexed is not None else None
    if rest is None or _calls(rest) < 2 or args is None:
        return ""
    return f", or search with {args} for the part you need"


def _empty(target: paths.Target, indexed) -> dict:
    """The data of an empty file, with the keys of any other read (it had ``lines``, which no other has)."""
    return {"path": target.name, "absolute_path": target.absolute, "start_line": 1, "end_line": 0,
            "total_lines": 0, "total_lines_at_least": 0, "next_start_line": None,
            "indexed_generation": indexed["published"] if indexed is not None else None}


def _mb(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def _staleness(target: paths.Target, indexed, why: str | None = None) -> list[str]:
    if indexed is None:  # it said "(new, excluded, or failed) … not find it yet" of a file skipped for good
        until = "" if why and why.startswith("skipped") else " until it is indexed"  # the reason says what would
        return [f"[this file is not in the published index ({why or 'not indexed yet'}): search does not find it"
                f"{until}]"]
    st = os.stat(target.absolute)
    if st.st_size != indexed["size"] or abs(st.st_mtime - indexed["mtime"]) > 1e-3:
        return [f"[changed on disk since generation {indexed['published']} indexed it: "
                "line numbers from search results may be off]"]
    return []


# --- Word -----------------------------------------------------------------------------

@contextmanager
def _word_bytes(target: paths.Target):
    """A Word document's bytes; over WORD_BYTES, the file open (a zip read part by part, as ingest.files reads a
    deck of photographs: ingest.files.read_zip_file). Its first 64 MiB were read, a zip cut short: 'cannot be read'."""
    fd = _open(target)  # a regular file, inside its root
    try:
        with os.fdopen(os.dup(fd), "rb") as f:
            from ingest.files import ZIPPED_EXTENSIONS
            from ingest.kinds import chat_zip, suffix
            if os.fstat(f.fileno()).st_size > WORD_BYTES and (suffix(target.relative).lower() in ZIPPED_EXTENSIONS
                                                               or chat_zip(target.relative, target.absolute)):
                yield f
            else:
                yield f.read(WORD_BYTES)
    finally:
        os.close(fd)


def read_word(target: paths.Target, indexed, start: int, end: int | None, offset: int = 0,
              unindexed: str | None = None) -> tuple[str, dict]:
    """A Word document's lines as the index reads them (ingest.word.word_lines: a paragraph or a table's row a
    line, empty paragraphs left out), numbered as its passages' lines are: the file's bytes are a zip of XML."""
    if end is not None and end < start:
        raise Problem(f"end_line ({end}) is before start_line ({start})")
    from ingest.word import word_lines
    try:
        with _word_bytes(target) as data:
            lines = word_lines(data, target.relative)
    except Skip as why:
        raise Problem(f"{target.name} cannot be read: {why}") from None
    if not lines:
        return f"{target.name} holds no text.", _empty(target, indexed)
    last = min(end or len(lines), len(lines), start + MAX_LINES - 1)
    shown, cut_at, room = [], None, MAX_BYTES
    for n in range(start, last + 1):
        line = lines[n - 1]
        if n == start and offset:
            line = line.encode()[offset:].decode("utf-8", "ignore")
        size = len(line.encode()) + NUMBER
        if size > room:
            if shown:  # the next answer starts with it
                cut_at = (n, 0)
            else:  # a paragraph longer than an answer: cut, and continued from that byte
                piece = line.encode()[:max(room - NUMBER, 1)].decode("utf-8", "ignore")
                shown.append((n, piece))
                cut_at = (n, offset + len(piece.encode()))
            break
        shown.append((n, line))
        room -= size
    text, data = _answer(target, indexed, start, end, offset, shown, cut_at, len(lines), True, unindexed)
    from ingest.kinds import SLIDE_EXTENSIONS, SPREADSHEET_EXTENSIONS, chat_zip, suffix
    if target.relative.lower().endswith(".epub"):
        return text + "\n[an EPUB book: its chapters' text as Sift reads it, a line a paragraph]", data
    if chat_zip(target.relative, target.absolute):
        return text + "\n[a chat export still zipped: its conversations as Sift reads them, a day's heading then " \
            "its messages, a line each]", data
    if target.relative.lower().endswith((".xlsx", ".xlsm")):
        return text + "\n[an Excel workbook: its text as Sift reads it, a sheet's name then its rows, a line each]", \
            data
    if suffix(target.relative).lower() in SPREADSHEET_EXTENSIONS:
        return text + "\n[a spreadsheet: its text as Sift reads it, a sheet's name then its rows, a line each]", data
    if suffix(target.relative).lower() in SLIDE_EXTENSIONS:
        return text + "\n[a slide deck: its text as Sift reads it, a slide's heading then its text and speaker " \
            "notes, a line a paragraph]", data
    return text + "\n[a Word document: its text as Sift reads it, a line a paragraph or a table's row]", data


# --- PDF ------------------------------------------------------------------------------

def read_pdf(conn, target: paths.Target, indexed, page: int, offset: int = 0,
             end_page: int | None = None) -> tuple[str, dict]:
    """Page ``page`` of the PDF as indexed, from ``offset`` bytes (UTF-8) into its text: a page over MAX_BYTES
    is shown in pieces, each saying the start_offset of the next. With ``end_page``, the pages up to it that fit
    in MAX_BYTES with the first, each under a ``[page N]`` line: a model reading a 100-page PDF page by page took
    a hundred calls."""
    if indexed is None:
        note = _note_standing_for(target)
        if note is not None:
            from search.query.listing import stood_for
            what, why = stood_for(note)
            raise Problem(f"{target.name} is not indexed itself: the {what} {target.collection}/{note} beside it, of "
                          f"the same name, stands for it ({why}, so its text is not indexed twice); read that {what}")
        raise Problem(f"{target.name} is a PDF that is not in the published index ({_failure(conn, target)}); "
                      "its text can be read only once it is indexed: see stats")
    chunks = chunk_reads.file_chunks(conn, indexed["id"])
    pages = max((c["end_page"] or c["page"] or 0 for c in chunks), default=0)
    if pages == 0:
        raise Problem(f"{target.name} has no text layer in the index (a scanned PDF?)")
    if page > pages:
        raise Problem(f"{target.name}: its text as indexed ends on page {pages}; page {page} is past the end")
        # (not 'has N pages with text': pages without text before the last, a cover or a PDF cut short, count)
    text, first, last = _page(chunks, page)
    span = f"page {page}" if first == last else f"page {page} (the passages shown run over pages {first}-{last})"
    text, cut_at = _page_piece(text, page, offset)
    if offset:
        span += f", from byte {offset:,} of its text"
    shown, body = page, text or "(no text on this page: blank, or an image such as a scan, which is not read)"
    if end_page is not None and cut_at is None and first == last:  # whole pages, each marked: the next ones too
        body = f"[page {page}]\n{body}"
        room = MAX_BYTES - len(body.encode("utf-8", "surrogatepass"))
        for number in range(page + 1, min(end_page, pages) + 1):
            piece = f"\n[page {number}]\n{_page(chunks, number)[0] or '(no text on this page: blank, or an image such as a scan, which is not read)'}"
            room -= len(piece.encode("utf-8", "surrogatepass"))
            if room < 0:
                break
            body += piece
            shown = last = number
        if shown > page:
            span = f"pages {page}-{shown}" + (f", from byte {offset:,} of page {page}'s text" if offset else "")
    header = f"{render.shown(target.name)}  ({span} of {pages}; text as indexed in generation {indexed['published']})"
    notes = []
    if cut_at is not None:  # the limit counts bytes, not characters
        notes.append(f"[stopped at the {MAX_BYTES // 1000} KB limit: the rest of page {page} not shown; call "
                     f"read_file with page={page}, start_offset={cut_at} for more]")
    elif shown < min(end_page or page, pages):
        notes.append(f"[stopped at the {MAX_BYTES // 1000} KB limit: call read_file with page={shown + 1}, "
                     f"end_page={min(end_page, pages)} for the rest]")
    elif shown < pages:
        notes.append(f"[call read_file with page={shown + 1} for the next page, or page={shown + 1}, "
                     f"end_page={_fitting(chunks, shown + 1, pages)} for the pages up to about "
                     f"{MAX_BYTES // 1000} KB]")
    data = {"path": target.name, "absolute_path": target.absolute, "page": page, "pages": pages,
            "first_page_shown": first, "last_page_shown": last, "indexed_generation": indexed["published"],
            # the last page shown as a hit and read_file's arguments name it (last_page_shown kept for clients)
            "end_page": last,
            "start_offset": offset or None, "next_start_offset": cut_at,
            # where to go on, as next_start_line is for text (null: the last page shown): only the text said it
            "next_page": page if cut_at is not None else (shown + 1 if shown < pages else None)}
    return "\n".join([header, body, *notes]), data


def _page(chunks, page: int) -> tuple[str, int, int]:
    """(text of ``page`` as indexed, the first and last page the text shown covers): the page alone, or for
    chunks written before V13 (no page_starts), the passages that cover it, whole."""
    covering = [c for c in chunks if c["page"] <= page <= (c["end_page"] or c["page"])]
    if all(c["page_starts"] is not None for c in covering):
        return page_text(covering, page), page, page
    return (merge_chunks(covering), min((c["page"] for c in covering), default=page),
            max((c["end_page"] or c["page"] for c in covering), default=page))


def _fitting(chunks, page: int, pages: int) -> int:
    """The last page that a read from ``page`` with end_page shows within MAX_BYTES (``page`` at least)."""
    room, last = MAX_BYTES, page
    for number in range(page, pages + 1):
        room -= len(f"\n[page {number}]\n{_page(chunks, number)[0]}".encode("utf-8", "surrogatepass"))
        if room < 0:
            break
        last = number
    return last


def _page_piece(text: str, page: int, offset: int) -> tuple[str, int | None]:
    """(the text of a page from byte ``offset`` within MAX_BYTES, the offset of the rest or None), cut between
    characters."""
    encoded = text.encode("utf-8", "surrogatepass")
    if offset and offset >= len(encoded):
        raise Problem(f"start_offset {offset} is past the end of page {page} ({len(encoded):,} bytes of text): "
                      "give the next_start_offset a cut page's answer named, or 0")
    while 0 < offset < len(encoded) and encoded[offset] & 0xC0 == 0x80:  # inside a character: from its start
        offset -= 1
    end = offset + MAX_BYTES
    if end >= len(encoded):
        return encoded[offset:].decode("utf-8", "ignore"), None
    while end > offset + 1 and encoded[end] & 0xC0 == 0x80:
        end -= 1
    return encoded[offset:end].decode("utf-8", "ignore"), end


def _note_standing_for(target: paths.Target) -> str | None:
    """The note of the PDF's name beside it (paper.md for paper.pdf, any Markdown suffix and case), which scans
    index instead of the PDF (ingest.links.converted_pdfs), the first by path of several (as list_files names it);
    None if there is none."""
    folder = posixpath.dirname(target.relative)
    try:
        names = os.listdir(os.path.dirname(target.absolute))
    except OSError:
        return None
    beside = {posixpath.join(folder, name) for name in names} | {target.relative}
    return min((note for note, pdf in converted_pdfs(beside).items() if pdf == target.relative), default=None)


def page_text(chunks, page: int) -> str:
    """The text of ``page`` from the chunks that cover it: each one's piece of the page laid where the index
    says it starts in the page (``page_starts``), so the overlap between chunks is shown once, exactly."""
    text = ""
    for chunk in chunks:
        starts = json.loads(chunk["page_starts"])
        for i, (offset, number, at) in enumerate(starts):
            if number == page:
                piece = chunk["text"][offset:starts[i + 1][0] if i + 1 < len(starts) else None]
                text = text[:at] + piece if at + len(piece) > len(text) else text
    return text.rstrip()  # without the blank line before the next page


def merge_chunks(chunks) -> str:
    """Join consecutive chunks, dropping the text each repeats from the one before (the overlap)."""
    out, previous = [], None
    for chunk in chunks:
        text = chunk["text"]
        if previous is not None:
            if previous["heading_path"] == chunk["heading_path"]:
                text = text[overlap(previous["text"], text):]
            elif not out[-1].endswith("\n"):
                out.append("\n")
        out.append(text)
        previous = chunk
    return "".join(out)


def overlap(a: str, b: str) -> int:
    """Length of the longest suffix of ``a`` that begins ``b`` (0 if under MIN_OVERLAP)."""
    if not a or not b:
        return 0
    position = a.find(b[0], max(0, len(a) - len(b)))
    while position >= 0:
        if len(a) - position < MIN_OVERLAP:
            return 0
        if b.startswith(a[position:]):
            return len(a) - position
        position = a.find(b[0], position + 1)
    return 0


def _failure(conn, target: paths.Target) -> str:
    row = progress_reads.latest_progress(conn, target.collection, target.relative)
    if row is None:
        return "not indexed yet"
    if row["reason"] == progress_reads.DEFERRED:  # a later part of a first build reads it: not skipped for good
        return row["reason"]
    if row["state"] in ("failed", "skipped"):
        return f"{row['state']} at {row['stage']}: {row['reason']}"
    return "waiting to be indexed"
