"""read_file: the file a path names and the part of it asked for, read by the reader of its kind.

``read`` finds the file (``mcp_server.read_target``: as written, with the place a result wrote after it, in the
other Chinese script, or as a wiki link names a note) and the part asked: lines, pages, or a heading's section
(``mcp_server.headings``), and hands it to the reader of its kind: a text file's lines from disk
(``mcp_server.text_file``), a PDF's pages as indexed (``mcp_server.pdf_pages``), a Word document, deck, workbook or
EPUB as the index reads it (``mcp_server.word_files``), a mail file's message, thread or attachment and a chat
export's day (``mcp_server.conversations``). The answer's limits, its shape and its notes are
``mcp_server.read_answer``'s.
"""
from __future__ import annotations

from ingest.decode import decode
from ingest.document import Skip
from ingest.links import WikiLink, heading_names, linked_lines, listed_headings, wiki_link
from mcp_server import backlinks, paths, render
from mcp_server.conversations import (ATTACHMENT_ASKED, THREAD_ASKED, chat_days, mailbox_headings, message_lines,
                                      named_by_line, read_attachment, read_message, read_saved_thread, read_thread,
                                      saved_list, saved_thread, several_said, thread_list, thread_of)
from mcp_server.errors import Problem
from mcp_server.headings import heading_readings, headings_by_kind, of_a_page
from mcp_server.pdf_pages import pdf_heading_pages, read_pdf
from mcp_server.read_answer import failure
from mcp_server.read_target import find_target, note_in_any_case, place_after, refuse_deleted, refuse_unindexable
from mcp_server.text_file import read_text
from mcp_server.transcripts import SUBTITLES, transcript_headings
from mcp_server.word_files import document_headings, is_word, read_word
from search.index import file_reads


def read(sift, raw_path: str, start_line: int | None, end_line: int | None, page: int | None,
         start_offset: int | None = None, end_page: int | None = None, heading: str | None = None) -> tuple[str, dict]:
    if heading is not None:
        return _read_heading(sift, raw_path, heading, (start_line, end_line, page, end_page, start_offset))
    conn, roots = sift.conn(), sift.roots()
    try:
        target = find_target(conn, raw_path, roots)
    except Problem:
        refuse_deleted(conn, raw_path, roots)
        place = place_after(conn, raw_path, roots)
        if place is None:
            linked = _read_linked(sift, raw_path, start_line, end_line, start_offset)
            if linked is not None:
                return linked
            other = paths.in_other_script(raw_path, roots, lambda form: find_target(conn, form, roots))
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
    refuse_unindexable(sift, target, roots)
    indexed = file_reads.visible_file(conn, target.collection, target.relative)
    if target.relative.lower().endswith(".pdf") or (indexed is not None and indexed["kind"] == "pdf"):
        if start_line is not None or end_line is not None:
            raise Problem(f"{target.name} is a PDF: read it by page (page=1, page=2, …), not by line")
        if end_page is not None and end_page < (page or 1):
            raise Problem(f"end_page {end_page} is before page {page or 1}: give end_page at or after page")
        text, data = read_pdf(conn, target, indexed, page or 1, start_offset or 0, end_page)
        if (page or 1) == 1 and not start_offset:  # a paper's first page names the notes citing it (its backlinks)
            citing, total = backlinks.citing(conn, target.collection, target.relative, indexed)
            if total:
                text += "\n" + render.shown(backlinks.cited_said(citing, total))
        return text, data
    if page is not None or end_page is not None:
        raise Problem(f"{target.name} is not a PDF: read it by start_line and end_line, not by page")
    unindexed = failure(conn, target) if indexed is None else None
    if is_word(target.relative, target.absolute):
        text, data = read_word(target, indexed, start_line or 1, end_line, start_offset or 0, unindexed)
    else:
        text, data = read_text(target, indexed, start_line or 1, end_line, start_offset or 0, unindexed)
    if (start_line or 1) == 1 and not start_offset:  # a note's first lines say which notes link to it
        linking, total = backlinks.linked_from(conn, target.collection, target.relative, indexed)
        if total:  # in the text only: the tools' output schemas stay within their budget (test_structured_output)
            text += "\n" + render.shown(backlinks.said(linking, total))  # a newline in a name escaped
    return text, data


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
            target = find_target(conn, name, roots)
            break
        except Problem:
            continue
    if target is None:
        target = note_in_any_case(conn, link.name, roots)
    if target is None:
        return None
    place = ""
    if (link.headings or link.block) and start_line is None and end_line is None:
        names, whole = [], "the whole note"  # its headings, to list when none is the one named
        try:
            made = document_headings(target) if is_word(target.relative, target.absolute) else mailbox_headings(target)
            if made is not None:  # '[[report.docx#Budget]]', '[[talk.pptx#Slide 3]]': its lines and headings as read
                whole = "the whole file"  # a deck, a document, a mailbox: no note
                note, headings, *messages = made  # a mail file's: where each message is in the file
                names = [name for _, _, name in headings]
                found = linked_lines(note, link, headings=headings)
                if isinstance(found, str) and not link.block:  # headings Sift made, named in part: 'Slide 3: Costs'
                    found = linked_lines(note, link, loose=True, headings=headings)
                if messages and not isinstance(found, str):  # the message's lines in the file, as _read_heading's
                    found = message_lines(found, messages[0])
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
    readings = heading_readings(heading)
    if not readings:
        raise Problem("heading is empty: give the text of a heading in the file, 'The storm' ('Part 2#The storm' "
                      "for one inside another)")
    conn, roots = sift.conn(), sift.roots()
    target = find_target(conn, raw_path, roots)
    refuse_unindexable(sift, target, roots)
    indexed = file_reads.visible_file(conn, target.collection, target.relative)
    if target.relative.lower().endswith(".pdf") or (indexed is not None and indexed["kind"] == "pdf"):
        for n, (wanted, loose) in enumerate(readings, 1):
            try:
                first, last = pdf_heading_pages(conn, target, indexed, wanted, loose)
                break
            except Problem:
                if n == len(readings):
                    raise  # what the last reading, at every '#', says is refused
        text, data = read_pdf(conn, target, indexed, first, 0, last)
        return text + f"\n[the section {' > '.join(wanted)!r}: pages {first}-{last}]", data
    messages = threads = None  # a mail file's: (first line, lines) of each message, the note's lines; their threads
    try:
        if is_word(target.relative, target.absolute):
            note, headings = document_headings(target)
            if target.relative.lower().endswith(".msg") and THREAD_ASKED.match(heading) and (
                    saved := saved_thread(conn, target, indexed, 1)):  # Outlook's message: its thread, as an .eml's
                return read_saved_thread(sift, target, saved)
        elif (mail := mailbox_headings(target)) is not None:
            note, headings, messages, threads = mail
        elif (chat := chat_days(target)) is not None:  # a chat export's days, '#general · 2024-03-14'
            note, headings, messages = chat
        else:
            with open(target.absolute, "rb") as f:
                note = decode(f.read(LINKED_BYTES))
            headings = transcript_headings(conn, target.relative, indexed) or headings_by_kind(target.relative, note)
            if headings and target.relative.lower().endswith(SUBTITLES):  # a hit's 'Lecture 07 > 00:41:12' as written
                readings = heading_readings(heading.replace(" > ", "#"))
    except (OSError, Skip):
        raise Problem(f"{target.name} cannot be read as text to find a heading in") from None
    if threads is not None:  # a mail file's 'Re: Budget (line 2791)': the message of that Subject holding the line
        heading = named_by_line(heading, headings, messages)
        readings = heading_readings(heading)
    thread = THREAD_ASKED.match(heading) if threads is not None else None
    for wanted, loose in readings:
        found = linked_lines(note, WikiLink(target.name, wanted, None), loose=loose, headings=headings)
        if not isinstance(found, str):
            break
    if isinstance(found, str) and threads is not None and (attachment := ATTACHMENT_ASKED.search(heading)):
        return read_attachment(sift, target, indexed, attachment)
    if isinstance(found, str) and thread:  # 'thread: Budget': the thread of the message 'Budget'
        for wanted, loose in heading_readings(thread.group(1)):
            found = linked_lines(note, WikiLink(target.name, wanted, None), loose=loose, headings=headings)
            if not isinstance(found, str):
                # its thread in the collection's mail files (other .eml files, other mailboxes), where it has one
                saved = saved_thread(conn, target, indexed, messages[found[0] - 1][0] + 1)
                if saved:
                    return read_saved_thread(sift, target, saved)
                return read_thread(sift, target.name, found[0] - 1, headings, messages, threads)
    if isinstance(found, str):  # what the last reading, at every '#', says
        names = heading_names(note) if headings is None else [name for _, _, name in headings]
        found += several_said(heading, found) if threads is not None else ""  # a mailbox's: how to name one
        raise Problem(f"{target.name} has {found}" + (f"; its headings: {listed_headings(names)}" if names else
                                                        "; it has no headings ('# …' lines)" if headings is None
                                                        else "; it has no headings"
                                                        + of_a_page(target.relative))) from None
    start, end = message_lines(found, messages) if messages else found
    text, data = (read_message(sift, target, start, end)
                  if threads is not None and not target.relative.lower().endswith(".enex")
                  else read(sift, target.name, start, end, None))
    shared = thread_of(found[0] - 1, threads) if messages and found[0] == found[1] else []
    more = (f"; its thread in this file, {len(shared)} messages: {thread_list(shared, headings, messages)}: "
            f"read_file with heading={'thread: ' + headings[found[0] - 1][2]!r} shows them together"
            if len(shared) > 1 else "")
    saved = saved_thread(conn, target, indexed, messages[found[0] - 1][0] + 1) \
        if messages and found[0] == found[1] else []
    if saved:  # its thread in the collection's mail files: other .eml files, other mailboxes
        more = (f"; its thread in {target.collection}, {len(saved)} messages: {saved_list(target, saved)}: "
                f"read_file with heading={'thread: ' + headings[found[0] - 1][2]!r} shows them together")
    return text + f"\n[the section {' > '.join(wanted)!r}: lines {start}-{end}{more}]", data
