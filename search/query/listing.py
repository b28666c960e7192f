"""The files of the collections and where each stands in the index: what the MCP tool ``list_files`` and
``ingest files`` both show, as plain data (the files and the notes on how the request was read); each caller
renders it its own way.

States: ``indexed`` (searchable in the published generation), ``pending``
(the generation being built has not finished with it), ``failed`` or
``skipped`` (with the reason), ``deleted`` (gone from disk; searchable until
the next publish). A big file embedded in the background, outside its build, is ``pending`` with how far its job
has got (search.index.working.background_state), not skipped; ``failed`` with why once its job failed for good. A PDF that a published note of its name stands for (paper.pdf beside paper.md, its
conversion: scans index the note instead) is listed as skipped, its reason naming the note.

The filters, the order and the limit are applied in SQL, so a call costs the
same with 200,000 files pending; only the files shown are looked at on disk,
and only those the index knows no size or time for. That look never follows a
symbolic link out of the root: a refused link is described as the link it is.
Sorted by modified time (or by the dates its passages are about: sort 'dated',
the default with a date range), files the index has no time for yet come first when
they are pending (they are what just changed) and last when failed or skipped.
``path_prefix`` is a folder ('tech' means tech/, not technology/); ``glob`` is
a shell pattern, the way to ask for names that begin with some text ('tech*').
Both match names in either Unicode normal form (NFC or NFD).
A file the index holds no version of (pending, failed, skipped) shows the kind a scan gives it (``kind_of``, the
caller's: the rule is ingest's, which search may not import): the one its name gives, or for a name without an
extension the one its shebang gives (only its first bytes are read, as the scan reads them), and for an HTML file the
one it is read as (a whole page a note, a fragment or a template code: its first bytes read); null when neither
gives one (a folder that could not be read); a refused link is a 'symlink'.
"""
from __future__ import annotations

import json
import os
import shlex
import stat
from typing import Callable

from search.index import (catalog_reads, collection_reads, file_reads, generation_reads, listing_reads, mail_reads,
                          progress_reads, tag_reads, working)
from search.index.db import snapshot
from search.index.status import root_missing, when
from search.query import mail_threads
from search.query.filters import path_match
from search.query.scope import Scope, Wording, collection_prefix

SORTS = ("modified", "path", "dated")
ORDERS = {"modified": "newest first", "path": "by path", "dated": "newest date first"}  # as the listing's head says it
MAX_LIMIT = 500
IN_FLIGHT_DETAIL = "waiting to be indexed ({change}; next: {stage})"
AT_WORK_DETAIL = "being indexed ({change}): {work}"  # a worker has been at it for a while (search.index.working)
# A file a part of a first build leaves to a later part (workers.tasks.first_part). It was listed 'skipped: not read
# yet: … (at parse)', as a file no scan will read, and a model told the user it was left out.
NOT_READ_YET = ("not read yet: the collection's first build is published in parts (SIFT_FIRST_PART) and this file "
                "comes in a later one; searchable once that part is published")
# A PDF with a note of its name beside it (its conversion), which scans index instead (ingest.links.converted_pdfs):
# it was in no listing at all, so list_files glob='*.pdf' did not find it.
STOOD_FOR = ("not indexed itself: the {what} {note} beside it, of the same name, stands for it ({why}, so its text "
             "is not indexed twice); search finds that {what}")
# what stands for a PDF, and what the PDF is to it: report.pdf beside report.docx is its export, main.pdf beside
# main.tex what LaTeX typeset from it; both were 'the note … (taken for its conversion)', as a Markdown note's PDF
SOURCES = (((".docx", ".odt", ".docm", ".fodt"), "Word document", "the PDF taken for its export"),
           ((".pptx", ".ppsx", ".pptm", ".ppsm", ".potx", ".potm", ".odp", ".fodp"), "slide deck",
            "the PDF taken for its export or handout"),
           ((".tex", ".ltx"), "LaTeX source", "the PDF taken for what LaTeX typeset from it"),
           ((".org", ".rst", ".adoc", ".asciidoc", ".fountain"), "source", "the PDF taken for what was built from it"))


def stood_for(note: str) -> tuple[str, str]:
    """(what ``note``, the path of a file standing for a PDF of its name, is called; what the PDF is to it)."""
    for extensions, what, why in SOURCES:
        if note.lower().endswith(extensions):
            return what, why
    return "note", "taken for its conversion"


def stood_for_reason(note: str) -> str:
    """Why a PDF that ``note`` stands for is not indexed itself (list_files, ingest files)."""
    what, why = stood_for(note)
    return STOOD_FOR.format(what=what, note=note, why=why)
# what a date range lists: a file's date is the dates its passages are about (a mailbox has one a message), not
# one date of the file, so a mailbox modified today is listed for each month one of its messages is dated
DATED_NOTE = ("{after} / {before} list the files with a passage about a date in that range, as search finds "
              "passages: a daily note by the date in its name, a running log by its date headings, a chat by its "
              "days, a note by its front matter or Evernote/Keep created date, a mailbox by any of its messages' "
              "dates, any other file by its modified time; files not indexed yet are left out")
# ... and where no passage has a date of its own (code, an index read before Sift kept passage dates), that every
# file was listed by its modified time: the note above named daily notes and mailboxes none of which was read so
UNDATED_NOTE = ("no passage indexed has a date of its own (a daily note's name, a log's date heading, a chat's "
                "day, front matter's date, a mail message's Date, a document's created date): the files were listed "
                "by their modified times (an index read before Sift kept passage dates has them once its files are "
                "read again)")
# A note a sync client freed (iCloud's '.note.md.icloud' in its place) or keeps in the cloud (OneDrive's Files
# On-Demand): the index keeps its version, and it was listed plain 'indexed', as a note on this disk.
NOT_DOWNLOADED = "not downloaded on this machine (a sync client keeps it in the cloud): search answers from the version indexed"
LEFT_OUT = "not indexed: {why}"  # such a PDF that the scan leaves out anyway (SIFT_EXCLUDE='*.pdf', a .gitignore)


def sort_for(sort: str | None, dated: tuple[float | None, float | None] | None) -> str:
    """The order a listing is given in: ``sort``, or when none was asked for, by the dates the files are about
    ('dated') where a date range is given (daily notes all edited last week came in the order of those edits, not of
    their days), else newest modified first."""
    if sort is not None:
        return sort
    return "dated" if dated is not None and dated != (None, None) else "modified"


def files(conn, where: Scope, glob: str | None, sort: str | None, limit: int, roots: dict[str, str],
          say: Wording, kind_of: Callable[[str, str], str | None], offset: int = 0,
          left_out: Callable[[str, str], str | None] | None = None,
          dated: tuple[float | None, float | None] | None = None, tags: tuple[str, ...] = (),
          author: str | None = None, away: Callable[[str, str], bool] | None = None) -> dict:
    """``total`` (how many match), ``shown``, ``files`` (``limit`` of them, after the first ``offset``) and ``notes`` (how the
    folder was read; what to write instead when nothing matched, in ``say``'s terms). ``where`` is the
    collection and folder as search.query.scope read them; ``roots`` the collections' roots by name;
    ``kind_of(path on disk, relative path)`` the kind the file is read as (ingest.discover.listed_kind);
    ``left_out(root, relative path)`` why a scan leaves a file out (ingest.discover.why_not_indexed with the
    settings' rules), asked of a PDF a note stands for: the note names any same-stem PDF on disk, one that
    SIFT_EXCLUDE, SIFT_INCLUDE or a .gitignore keeps out included, which was listed as stood for by the note.
    ``dated`` (date_after, date_before as unix times, either None; None: no date range): only the files with a
    passage about a date in it, as search's date filters find passages (listing_reads._DATED), a note saying so.
    ``tags`` (as ``filters.wanted_tags`` gives them): only the files carrying each, as their own or a passage's; a
    tag no file holds is said, with the tags near it. ``author`` (as ``authors.wanted`` gives it): only the files
    that person wrote, as search's author filter finds passages (search.query.authors.files_by).
    ``away(root, relative path)``: whether an indexed file is not downloaded on this machine (ingest.discover.away:
    a sync client's placeholder, a cloud-only file), said in its reason (NOT_DOWNLOADED)."""
    dated = dated if dated is not None and dated != (None, None) else None
    sort = sort_for(sort, dated)
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)} (got {sort!r})")
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIMIT} (got {limit})")
    if offset < 0:
        raise ValueError(f"offset must be 0 or more (got {offset})")
    match, params = path_match(conn, where.folder, glob, "sift_glob")
    with snapshot(conn):
        authored, read_as = None, None
        if author:
            from search.query.authors import files_by, files_by_read
            authored, read_as = files_by(conn, author), files_by_read(conn, author)  # 王医生: who that is
        rows = listing_reads.listing(conn, where.collection, match, params, sort, limit, offset, dated, tags, authored)
        counted = rows or (listing_reads.listing(conn, where.collection, match, params, False, 1, 0, dated, tags,
                                                 authored) if offset else [])
        absent = []
        if tags and not rows and tag_reads.tags_indexed(conn):
            # imported here: search.query.tags brings keyword search and numpy, which sift-mcp must not load before
            # it answers initialize (tests/test_start_imports.py)
            from search.query.tags import missing
            absent = missing([tag for tag, _ in tag_reads.tag_counts(conn)], tags)
        shown = _entries(conn, rows)
        for entry, row in zip(shown, rows):
            entry["dated"] = _dated(conn, row["ref"], dated)
        undated = dated is not None and not catalog_reads.any_dated(conn)
    for entry in shown:
        _look_on_disk(entry)
        entry["kind"] = entry["kind"] or kind_of(os.path.join(entry["root"], entry["path"]), entry["path"])
        why = left_out(entry["root"], entry["path"]) if entry.pop("stood_for") and left_out else None
        if why:
            entry["reason"] = LEFT_OUT.format(why=why)
        if away is not None and entry["state"] == "indexed" and away(entry["root"], entry["path"]):
            entry["reason"] = "; ".join(filter(None, (NOT_DOWNLOADED, entry["reason"])))
    total = counted[0]["total"] if counted else 0  # an offset past the last file shows none of them
    hints = [] if total else [h for h in (glob_hint(glob, roots, say), *unscanned(conn, where.collection),
                                          *([f"no file is tagged {' or '.join(absent)}"] if absent else []),
                                          *([f"no file records {author} as its author (a note's author:, a "
                                             "document's author) nor holds a mail of that sender"]
                                            if authored == [] else []),
                                          *folder_left_out(roots, where, left_out)) if h]
    return {"total": total, "shown": len(shown), "files": [_public(e) for e in shown],
            "notes": where.notes(found=bool(total)) + ([DATED_NOTE.format(after=say.date_after, before=say.date_before)]
                                                       if dated else []) + ([UNDATED_NOTE] if undated else [])
            + ([read_as] if read_as and total else []) + missing_roots(where.collection, roots) + hints}


def folder_left_out(roots: dict[str, str], where: Scope, left_out) -> list[str]:
    """Why the scan leaves out the folder ``where`` names, in each collection searched whose root holds it
    (a vendored folder, a hidden one, one a .gitignore or SIFT_EXCLUDE names): the listing said only 'no files
    match' of vendor/ in a Go project, as of a folder that is not there (list_files, and ``ingest files`` too)."""
    if not where.folder or left_out is None:
        return []
    folder = where.folder.strip("/")
    said = []
    for name, root in sorted(roots.items()):
        if where.collection not in (None, name) or not os.path.isdir(os.path.join(root, folder)):
            continue
        why = left_out(root, f"{folder}/-")  # a name inside it: the folder's reason comes first
        if why and why.split(" ", 1)[0].endswith("/"):
            said.append(f"nothing of {name}/{folder}/ is indexed: {why}")
    return said


def missing_roots(collection: str | None, roots: dict[str, str]) -> list[str]:
    """A note per collection in scope whose folder is gone from disk: its files were listed as indexed, with
    nothing saying that none of them was there any more (before a scan has seen it, stats said nothing either)."""
    names = [collection] if collection else sorted(roots)
    return [f"collection {n!r}: its folder {roots[n]} is missing, so its files are listed as last indexed (still "
            "searchable until it has been gone for a whole rescan interval); if it was moved, `ingest enqueue "
            f"NEW_FOLDER --name {shlex.quote(n)}` follows it, and `ingest remove {shlex.quote(n)}` forgets the collection"
            for n in names if n in roots and root_missing(roots[n])]


def unscanned(conn, collection: str | None) -> list[str]:
    """A note per collection in scope that no scan has listed yet (nothing published, nothing being built):
    a bare 'no files match' read as an empty folder, when the scan had not run (no worker yet)."""
    return [f"collection {c['name']!r} has not been scanned yet: its files are listed once a worker has scanned it"
            for c in collection_reads.collections(conn, collection)
            if c["published"] is None and generation_reads.building_generation(conn, c["id"]) is None]


def more(data: dict, say: Wording, offset: int = 0) -> str | None:
    """How to see the files a listing leaves out after those it shows (None: none are left), the listing having
    skipped the first ``offset``. Where the surface has an offset, it lists the next; otherwise, at the largest
    limit, raising it is no way: the call would be refused."""
    if offset + data["shown"] >= data["total"]:
        return None
    narrow = f"narrow with {say.prefix} or {say.glob}"
    after = f"{say.offset}={offset + data['shown']} lists the next ones, " if say.offset else ""
    if data["shown"] >= MAX_LIMIT:
        return f"{after}or {narrow}" if after else f"{narrow} ({MAX_LIMIT} is the largest {say.limit})"
    return f"raise {say.limit}, {after}or {narrow}"


def glob_hint(glob: str | None, roots: dict[str, str], say: Wording) -> str | None:
    """What to write instead, when a glob that matched nothing begins with a collection's name or is absolute."""
    if not glob:
        return None
    head = collection_prefix(glob, roots)
    if head is not None:
        return (f"{say.glob} matches paths relative to the collection root, without the collection name: "
                f"{say.given(head, glob[len(head) + 1:], say.glob)}")
    if os.path.isabs(glob):
        return f"{say.glob} matches paths relative to the collection root: not an absolute path, e.g. 'tech/*.md'"
    return None


def _entries(conn, rows) -> list[dict]:
    """The facts of the listed files: the kind, size and time of the version the index knows (for a file
    deleted meanwhile, the version it had), and the state."""
    shown, at_work, aside = [], {}, {}
    for r in rows:
        version = file_reads.file_version(conn, r["ref"]) if r["ref"] is not None else None
        if version is None and r["building"] is not None:  # gone: its version retired by the build
            version = file_reads.retired_version(conn, r["building"], r["collection"], r["path"])
        entry = {"collection": r["name"], "root": r["root"], "path": r["path"], "kind": None, "size": None,
                 "mtime": None, "state": "indexed", "reason": None, "stood_for": r["stood_for"] is not None}
        if version is not None:
            entry.update(kind=version["kind"], size=version["size"], mtime=version["mtime"])
        if r["generation"] is not None:
            p = progress_reads.progress_of(conn, r["generation"], r["path"])
            building = r["generation"] == r["building"]
            entry["state"], entry["reason"] = _state(p["change"] if building else None, p["stage"], p["state"],
                                                     p["reason"])
            if building and entry["state"] == "pending":
                work = _work_on(conn, r["generation"], r["path"], at_work)
                entry["reason"] = AT_WORK_DETAIL.format(change=p["change"], work=working.text(work)) \
                    if work else entry["reason"]
        if entry["state"] in ("skipped", "indexed", "failed"):  # its earlier version, if any, answers meanwhile
            work = _in_background(conn, r["collection"], r["path"], aside)
            if work is not None and work["words"]:  # its passages written, their vectors to come
                entry["reason"] = working.background_said(work)
            elif work is not None:
                entry["state"] = "failed" if work["state"] == "failed" else "pending"
                entry["reason"] = working.background_said(work)
        if r["stood_for"] is not None:
            entry["state"], entry["reason"] = "skipped", stood_for_reason(f"{r['name']}/{r['stood_for']}")
        if entry["state"] == "indexed" and version is not None and version["kind"] == "pdf" and version["cut_short"]:
            entry["reason"] = version["cut_short"]  # a PDF cut short: the pages that could be read
        elif entry["state"] == "indexed" and version is not None and version["pages_without_text"]:
            entry["reason"] = textless(version)  # a scanned page among pages of text
        elif entry["state"] == "indexed" and version is not None and version["data_file"]:
            entry["reason"] = data_rows(version)  # a data file: its first rows alone are searched
        elif entry["state"] == "indexed" and version is not None and version["sheet_rows"]:
            entry["reason"] = sheet_rows(conn, version)  # a workbook's data sheets: their first rows alone
        elif entry["state"] == "indexed" and version is not None and version["export_notes"] is not None:
            entry["reason"] = export_notes(version)  # an Evernote export: its notes, each its passages
        elif entry["state"] == "indexed" and version is not None and version["chat_export"]:
            entry["reason"] = chat_days(version)  # a chat export: its days and messages
        elif entry["state"] == "indexed" and version is not None and version["attachments_not_read"]:
            entry["reason"] = attachments_not_read(version)  # a mail's encrypted PDF, a 40 MB attachment
        if entry["state"] == "indexed" and version is not None and version["kind"] == "note":
            said = mailbox_messages(conn, version["id"], r["collection"], r["path"])
            # a mailbox's messages and threads, before what of them was not read (its attachments, a message)
            entry["reason"] = "; ".join(filter(None, (said, entry["reason"]))) if said else entry["reason"]
        if entry["state"] == "indexed" and version is not None and (version["unreadable_notes"]
                                                                     or version["unreadable_messages"]):
            # a mailbox's messages, an export's notes not readable: they were counted, but it was listed plain 'indexed'
            entry["reason"] = "; ".join(filter(None, (entry["reason"], unreadable(version))))
        if entry["state"] == "indexed" and version is not None and version["kind"] != "pdf" and version["cut_short"]:
            # a deck's slides not readable, a mailbox read to 64 MiB: said after what else is (it was said of PDFs
            # alone, a deck with a broken slide listed plain 'indexed')
            entry["reason"] = "; ".join(filter(None, (entry["reason"], version["cut_short"])))
        shown.append(entry)
    return shown


def textless(version) -> str:
    """What an indexed PDF's pages without text are: '1 of 3 pages without text (…): page 2'. A scanned page among
    pages of text was listed as indexed like any other: what it shows was nowhere, and nothing said why."""
    named = json.loads(version["textless_pages"] or "[]")
    count, pages = version["pages_without_text"], version["pages"]
    which = ", ".join(map(str, named)) + (f" and {count - len(named):,} more" if count > len(named) else "")
    return (f"{count:,} of {pages:,} pages without text (blank, or an image such as a scan: not read, so search "
            f"does not find what {'it shows' if count == 1 else 'they show'})"
            + (f": page{'s' if count > 1 else ''} {which}" if named else ""))  # an index before V11 names none


def data_rows(version) -> str | None:
    """What search finds of a data file (ingest.table: numbers, dates and times): its first rows, 'first 12 of
    5,000 rows indexed (…)'; None when its passage holds them all. It was listed as indexed like any other table, its
    later rows found by no search, and only the README said so. A JSON data set (ingest.data_sets, kind code) the
    same of its records: 'first 5 of 3,000 records indexed (a data set …)'."""
    rows, indexed = version["rows"], version["rows_indexed"]
    if rows is not None and indexed is not None and indexed >= rows and not version["more_rows"]:
        return None  # a short one: all of it in its passage
    unit, what = ("records", "a data set of records: search finds it by its field names and first records, not by a "
                             "later record's values") if version["kind"] == "code" else \
        ("rows", "a data file, mostly numbers and dates: search finds it by its column names and first rows, not by "
                 "a later row's values")
    of = "" if rows is None else f" of {'over ' if version['more_rows'] else ''}{rows:,}"
    first = f"first {indexed:,}{of} {unit}" if indexed else f"first lines of {rows:,} {unit}" if rows else \
        f"first {unit}"
    return f"{first} indexed ({what}; read_file reads all of it)"


def export_notes(version) -> str:
    """What an Evernote export holds: '3 notes (an Evernote export: each a passage group headed by its title)',
    with what of it was read when it was cut short. It was listed as one note like any other."""
    count = version["export_notes"]
    said = f"{count:,} note{'s' if count != 1 else ''} (an Evernote export: each a passage group headed by its title)"
    return said + (f"; {version['export_cut']}" if version["export_cut"] else "")


def unreadable(version) -> str:
    """What of a mailbox or an Evernote export could not be read: "3 of 200 notes not readable (left out: 'Ideas'
    (line 40): …); the others read", "1 of 40 messages not readable as mail (indexed as their text as it stands,
    under '(unreadable message)': line 12: …); the others read". They were counted, and it was listed plain
    'indexed'."""
    named = json.loads(version["unreadable_why"] or "[]")
    if version["unreadable_notes"]:
        count, total, what = version["unreadable_notes"], version["export_notes"], "note"
        how = "left out"
    else:
        count, total, what = version["unreadable_messages"], version["mail_messages"], "message"
        how = "indexed as their text as it stands, under '(unreadable message)'"
    which = "; ".join(named) + (f" and {count - len(named):,} more" if count > len(named) else "") if named else ""
    of = f"{count:,} of {total:,} {what}s" if total else f"{count:,} {what}{'s' if count != 1 else ''}"
    return (f"{of} not readable{' as mail' if what == 'message' else ''} ({how}{': ' + which if which else ''}); "
            "the others read")


def chat_days(version) -> str:
    """What a chat export holds (ingest.chat): '12 days, 340 messages (a Telegram chat export: each day a passage
    group headed by its chat and date, as 'Boat club · 2024-03-14')', its first day's heading (read_file's heading=
    reads a day). It was listed as 'indexed' like any note."""
    days, messages, first = version["chat_days"] or 0, version["chat_messages"] or 0, version["chat_first_day"]
    return (f"{days:,} day{'s' if days != 1 else ''}, {messages:,} message{'s' if messages != 1 else ''} "
            f"({version['chat_export']}: each day a passage group headed by its chat and date"
            + (f", as '{first}')" if first else ")"))


MESSAGES_KEPT = 200_000  # of a mailbox, the messages the index keeps a row of (ingest.mail.THREAD_IDS)


def mailbox_messages(conn, file_id: int, collection_id: int, path: str) -> str | None:
    """What a mailbox holds (ingest.mail.read_mbox), from what the index keeps of it: '40 messages in 12 threads (a
    mailbox: each message a passage group headed by its Subject; 3 of the threads go on in other mail files of the
    collection)'; None for any other file. It was listed as 'indexed' like any note, where a chat export says its
    days and messages. A message naming no Message-ID nor one it replies to is a thread of its own."""
    box = mail_reads.mailbox(conn, file_id) if mail_threads.is_mail(path) else None  # a mailbox's name: no other note's
    if box is None:
        return None
    messages = box["messages"]
    kept, threads, going_on = mail_threads.mailbox_threads(conn, collection_id, file_id, path)
    threads += max(0, messages - box["unreadable"] - kept)
    counted = f"{messages:,} message{'s' if messages != 1 else ''}"
    if messages > 1 and kept < MESSAGES_KEPT:
        counted += f" in {threads:,} thread{'s' if threads != 1 else ''}"
    elsewhere = (f"; {going_on:,} of the threads go{'es' if going_on == 1 else ''} on in other mail files of the "
                 "collection" if going_on else "")
    return f"{counted} (a mailbox: each message a passage group headed by its Subject{elsewhere})"


def attachments_not_read(version) -> str:
    """What of a mail's (or a mailbox's) attachments was not read, and why (ingest.mail.attachment_sections):
    "1 attachment not read: secret.pdf (message 'Reports', line 1): encrypted: …"; the first SAID_NOT_READ."""
    count = version["attachments_not_read"]
    try:
        why = json.loads(version["attachments_not_read_why"] or "[]")
    except (ValueError, TypeError):
        why = []
    more = f"; and {count - SAID_NOT_READ:,} more" if count > SAID_NOT_READ else ""
    return (f"{count:,} attachment{'s' if count != 1 else ''} not read: " + "; ".join(why[:SAID_NOT_READ]) + more)


SAID_NOT_READ = 3


def sheet_rows(conn, version) -> str | None:
    """What search finds of a workbook's data sheets (ingest.xlsx, a workbook of several sheets): each one's first
    rows, "data sheets 'Readings': first 12 of 3,000 rows, … indexed (…)"; None when their passages hold them all. A
    workbook of one data sheet is a data file (data_rows); one of more sheets was listed as indexed, its data sheets'
    later rows found by no search."""
    try:
        sheets = json.loads(version["sheet_rows"])
    except (ValueError, TypeError):
        return None
    firsts = file_reads.first_passages(conn, version["id"])
    said = []
    for sheet, rows, more in sheets:
        text = next((text for path, text in firsts if path.split(" > ")[1:2] == [sheet]), "")
        indexed = text.count("\n") + 1 if text else 0
        if indexed < rows or more:
            said.append(f"{sheet!r}: first {indexed:,} of {'over ' if more else ''}{rows:,} rows")
    if not said:
        return None
    return (f"data sheet{'s' if len(said) > 1 else ''} {', '.join(said)} indexed (mostly numbers and dates: search "
            "finds a sheet by its column names and first rows, not by a later row's values; read_file reads all of "
            "it)")


def _state(change, stage, state, reason) -> tuple[str, str | None]:
    if reason == progress_reads.DEFERRED:  # a part of a first build leaves it to a later part: on its way, not skipped
        return "pending", NOT_READ_YET
    if state in ("failed", "skipped"):
        return state, f"{reason} (at {stage})"
    if change == "deleted":
        return "deleted", "gone from disk; searchable until the generation being built is published"
    if stage == "write" and state == "done":
        return "pending", "indexed in the generation being built; searchable once it is published"
    return "pending", IN_FLIGHT_DETAIL.format(change=change, stage=_next(stage, state))


def _next(stage: str, state: str) -> str:
    """The stage a file goes through next: progress records the last one done ('chunk' done: next 'embed')."""
    if state == "queued" or stage == progress_reads.STAGES[-1]:
        return stage
    return progress_reads.STAGES[progress_reads.STAGES.index(stage) + 1]


def _work_on(conn, gen: int, path: str, at_work: dict) -> dict | None:
    """The slow work a live worker is doing on ``path`` in generation ``gen`` (a batch's work is named by its
    first file), read once per generation listed (``at_work``)."""
    if gen not in at_work:
        at_work[gen] = {w["path"]: w for w in working.slow(conn, gen)}
    return at_work[gen].get(path)


def _in_background(conn, collection_id: int, path: str, aside: dict) -> dict | None:
    """The big file ``path`` as a job embeds it in the background (search.index.working.in_background), read once
    per collection listed (``aside``): its build showed it 'skipped', read as 'will never be indexed'."""
    if collection_id not in aside:
        aside[collection_id] = {w["path"]: w for w in working.in_background(conn, collection_id)}
    return aside[collection_id].get(path)


def _look_on_disk(entry: dict) -> None:
    """Size and time of a shown file the index knows nothing of. A symbolic link is followed only to a
    file inside the root; otherwise what is shown is the link's own (lstat), never its target's."""
    if entry["mtime"] is not None:
        return
    path = os.path.join(entry["root"], entry["path"])
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            real, root = os.path.realpath(path), os.path.realpath(entry["root"])
            if os.path.commonpath([real, root]) == root and os.path.isfile(real):
                st = os.stat(real)
            else:
                entry["kind"] = entry["kind"] or "symlink"
    except (OSError, ValueError):
        return
    entry["size"], entry["mtime"] = st.st_size, st.st_mtime


def _dated(conn, ref: int | None, dated: tuple[float | None, float | None] | None) -> list[float] | None:
    """The first and last date (unix times, one where they are the same) that the passages of a file listed by a
    date range are about within it; None: no range, or none of its passages has a date of its own (its modified time
    put it in the range). A mailbox modified today was listed for March 2024, nothing saying why."""
    if dated is None or ref is None or not catalog_reads.passage_dates_kept(conn):
        return None
    found = file_reads.dates_in(conn, ref, *dated)
    if found["first"] is None:
        return None
    return [found["first"]] if found["first"] == found["last"] else [found["first"], found["last"]]


def _public(e: dict) -> dict:
    return {"path": f"{e['collection']}/{e['path']}", "collection": e["collection"], "relative_path": e["path"],
            "kind": e["kind"], "size": e["size"], "modified": when(e["mtime"]), "state": e["state"],
            "reason": e["reason"], **({"dated": e["dated"]} if e.get("dated") else {})}
