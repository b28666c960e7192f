"""Evernote's export (``.enex``): one XML file of many notes (``<en-export>`` of ``<note>``s, evernote-export3 and 4),
read as a mailbox is (ingest.mail): a note a section headed by its title, at the lines of the file that hold it.
Not read before (a kind Sift did not read): moving from Evernote, none of its notes were found.

A note's ``<content>`` is ENML (XHTML in CDATA) read as ``ingest.webpage`` reads a page, its checkboxes
(``<en-todo checked="true"/>``) as ``[x]`` and ``[ ]``, an encrypted part as ``[encrypted text]``; its text is headed by
when it was created (``Created: Thursday 14 March 2024 09:15``, the month and weekday in words as a mail's Date: so
that 'March 2024' finds it), its tags (``Tags: recipes, dinner``), the page it was clipped from, its author and the
attachments it holds (``<resource>``: their names, types and sizes; their base64 data is counted, never decoded nor
held). A passage is dated by its note's ``<created>`` (``20240314T091500Z``, UTC), as a message by its Date
(ingest.passage_dates). A note's tags are its passages' own (Section.tags): '#recipes' puts that note's passages
first, not the export's; the tags every note of the export holds are also the file's (all of a one-note export's).
The union as the file's made every note of a 5,000-note export match each tag word in its title column.

The file is read as it comes (expat, a block at a time: an export of gigabytes of pictures in the memory of one
note's text); an export over 64 MiB is read in blocks from the file (ingest.files.read_mbox_file). A note that
cannot be read is left out and counted (``unreadable_notes``, the first few named with why in ``unreadable_why``:
list_files says so, where the export was listed plain 'indexed'); XML that stops being XML stops the reading there,
the notes before it kept and the reason said (``cut_short``).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timezone
from xml.parsers import expat

from ingest.document import Document, Section, Skip, title_from_name
from ingest.passage_dates import moment

NOTE_TEXT_CHARS = 16 * 1024 * 1024  # of a note's ENML, what is read (the rest is cut off)
MAX_TEXT_CHARS = 64 * 1024 * 1024  # of the export's notes' text, as much as any other file may hold
UNREADABLE_SAID = 3  # notes not readable named in the meta, with why (all are counted)
FIELD_CHARS = 4096  # of a title, a tag, a URL …: what is kept
KEPT = {"title", "content", "created", "updated", "tag", "source-url", "author", "mime", "file-name"}
TODO = re.compile(r"<en-todo\b([^>]*?)/?>(?:\s*</en-todo>)?", re.IGNORECASE)
CHECKED = re.compile(r"""checked\s*=\s*["']?true""", re.IGNORECASE)
CELL_END = re.compile(r"</t[dh]\s*>\s*<t[dh](?:\s[^>]*)?>", re.IGNORECASE)  # a table's row a line, its cells ' | '
CRYPT = re.compile(r"<en-crypt\b[^>]*>.*?</en-crypt\s*>", re.IGNORECASE | re.DOTALL)
STAMP = re.compile(r"\s*(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z?\s*")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def parse_enex(path: str, data: bytes) -> Document:
    """An Evernote export: a section per note, titled by its title, at the lines of the file that hold it."""
    return read_enex(path, [data])


def read_enex(path: str, blocks: Iterable[bytes]) -> Document:
    """``parse_enex`` of an export given as blocks of its bytes, read as they come."""
    reader = _Reader()
    cut = _feed(reader, blocks)
    if cut and not reader.notes:  # nothing to index: it was 'indexed' with no passage, the reason in no listing
        raise Skip(cut.replace("the first 0 notes read", "no note read", 1))
    meta: dict = {"notes": reader.notes}
    if reader.tags:
        meta["tags"] = reader.tags
    if reader.unreadable:
        meta["unreadable_notes"] = reader.unreadable
        meta["unreadable_why"] = reader.unreadable_why
    if cut:
        meta["cut_short"] = cut
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    title = reader.sections[0].heading_path[0] if reader.notes == 1 and reader.sections else title_from_name(stem)
    return Document(kind="note", title=title, sections=reader.sections, meta=meta)


def enex_headings(blocks: Iterable[bytes]) -> list[tuple[int, int, str, int]]:
    """(line of the file, 0-based, level, title, lines) of each note of an export given in blocks of its bytes, as its
    hits are headed, from its ``<note>`` line to its ``</note>``: read_file's ``heading`` reads a note by them
    (mcp_server.conversations: mailbox_headings, as a mailbox's messages by their Subjects). Only titles are kept,
    the file read as it comes; notes sharing a title are each named with their first line ('Ideas (line 40)'), as a mailbox's thread is."""
    reader = _Reader(titles=True)
    _feed(reader, blocks)
    found = [(s.start_line - 1, 1, s.heading_path[0], s.end_line - s.start_line + 1) for s in reader.sections]
    counts = Counter(name for _, _, name, _ in found)
    return [(line, level, f"{name} (line {line + 1})" if counts[name] > 1 else name, lines)
            for line, level, name, lines in found]


def _feed(reader: "_Reader", blocks: Iterable[bytes]) -> str | None:
    """Give ``blocks`` to expat and ``reader``: None, or why the rest was not read (its text over MAX_TEXT_CHARS,
    XML that breaks off). Raises Skip for no export."""
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.buffer_size = 1 << 16  # a picture's base64 in fewer, larger pieces
    parser.StartElementHandler = lambda name, attrs: reader.start(name, attrs, parser.CurrentLineNumber)
    parser.EndElementHandler = lambda name: reader.end(name, parser.CurrentLineNumber)
    parser.CharacterDataHandler = reader.text
    cut = None
    try:
        for block in blocks:
            parser.Parse(block, False)
            if reader.chars > MAX_TEXT_CHARS:
                cut = (f"the first {len(reader.sections):,} notes read: their text is over "
                       f"{MAX_TEXT_CHARS // (1 << 20)} MiB, the rest of the export is not read")
                break
        else:
            parser.Parse(b"", True)
    except expat.ExpatError as exc:
        if not reader.seen_export:
            raise Skip(f"not an Evernote export: {exc}") from None
        cut = f"the first {len(reader.sections):,} notes read: the XML breaks off ({exc})"
    if not reader.seen_export:
        raise Skip("not an Evernote export: no <en-export> element")
    return cut


class _Reader:
    """expat's handlers: each <note>'s fields, a section made at its end."""

    def __init__(self, titles: bool = False) -> None:
        self.titles = titles  # only each note's title and lines (read_file's headings)
        self.sections: list[Section] = []
        self.tags: list[str] | None = None  # those every note read so far holds
        self.notes = self.unreadable = self.chars = 0
        self.unreadable_why: list[str] = []  # the first UNREADABLE_SAID, with why (list_files shows them)
        self.seen_export = False
        self.note: dict | None = None
        self.field: str | None = None  # the kept element we are in
        self.resource: dict | None = None
        self.in_data = False
        self.kept = 0  # characters of the current field kept

    def start(self, name: str, attrs: dict, line: int) -> None:
        if name == "en-export":
            self.seen_export = True
        elif name == "note" and self.seen_export:
            self.note = {"line": line, "tag": [], "resources": []}
        elif self.note is None:
            return
        elif name == "resource":
            self.resource = {"size": 0}
        elif name == "data" and self.resource is not None:
            self.in_data = True
        elif name == "tag" and not self.titles:
            self.field, self.kept = name, 0
            self.note["tag"].append([])
        elif name in KEPT and (self.resource is not None or name not in ("mime", "file-name")) \
                and not (self.titles and name != "title"):
            self.field, self.kept = name, 0
            (self.resource if self.resource is not None else self.note).setdefault(name, []).append([])

    def text(self, data: str) -> None:
        if self.in_data:
            self.resource["size"] += len(data) - data.count("\n") - data.count(" ")  # base64 letters, not kept
            return
        if self.field is None:
            return
        room = (NOTE_TEXT_CHARS if self.field == "content" else FIELD_CHARS) - self.kept
        if room > 0:
            self.kept += min(room, len(data))  # pieces, joined at the note's end
            where = self.note if self.field == "tag" or self.resource is None else self.resource
            where[self.field][-1].append(data[:room])

    def end(self, name: str, line: int) -> None:
        if self.note is None:
            return
        if name == "data":
            self.in_data = False
        elif name == "resource" and self.resource is not None:
            self.note["resources"].append(self.resource)
            self.resource = None
        elif name == "note":
            note, self.note = self.note, None
            self.notes += 1
            if self.titles:
                title = _first(note, "title") or "(untitled note)"
                self.sections.append(Section(text="", heading_path=[title], start_line=note["line"],
                                             end_line=max(note["line"], line)))
                return
            from ingest.parse import check_lines  # here: the MCP server reads an export's headings without it
            try:
                section = _section(note, line)
                check_lines(section.text)  # a note of one 50 MB line took 27 s to cut, then the export was skipped
            except Exception as exc:  # noqa: BLE001 - one note's trouble must not cost the export
                self.unreadable += 1
                if len(self.unreadable_why) < UNREADABLE_SAID:
                    from ingest.unreadable import what_is_wrong
                    self.unreadable_why.append(f"{_first(note, 'title') or '(untitled note)'!r} (line {note['line']}): "
                                               f"{what_is_wrong(exc)}")
                return
            held = _tags(note)
            self.tags = held if self.tags is None else [tag for tag in self.tags if tag in held]
            self.sections.append(section)
            self.chars += len(section.text)
        if name == self.field:
            self.field = None


def _first(fields: dict, name: str) -> str:
    return " ".join("".join((fields.get(name) or [[]])[0]).split())


def when(stamp: str) -> datetime | None:
    """An ENEX date ('20240314T091500Z', UTC) as a datetime; None for none or anything else."""
    found = STAMP.fullmatch(stamp or "")
    if not found:
        return None
    try:
        return datetime(*map(int, found.groups()), tzinfo=timezone.utc)
    except ValueError:
        return None


def written(moment_: datetime) -> str:
    """'Thursday 14 March 2024 09:15' (local time, as search's dates are read) of a note's date."""
    local = moment_.astimezone()
    return f"{DAYS[local.weekday()]} {local.day} {MONTHS[local.month - 1]} {local.year} {local:%H:%M}"


def _section(note: dict, last: int) -> Section:
    title = _first(note, "title") or "(untitled note)"
    head = []
    created, updated = when(_first(note, "created")), when(_first(note, "updated"))
    if created is not None:
        head.append(f"Created: {written(created)}")
    if updated is not None and updated != created:
        head.append(f"Updated: {written(updated)}")
    tags = _tags(note)
    if tags:
        head.append("Tags: " + ", ".join(tags))
    for name, said in (("source-url", "Source"), ("author", "Author")):
        if _first(note, name):
            head.append(f"{said}: {_first(note, name)}")
    attached = [_attachment(resource) for resource in note["resources"]]
    if attached:
        head.append("Attachments: " + "; ".join(attached))
    body = enml_text("".join(piece for pieces in note.get("content") or [] for piece in pieces))
    text = "\n".join(head) + ("\n\n" + body if body else "")
    return Section(text=text, heading_path=[title], start_line=note["line"], end_line=max(note["line"], last),
                   dated=moment(created), made=True, tags=tuple(tags))


def _tags(note: dict) -> list[str]:
    return list(dict.fromkeys(tag for tag in (" ".join("".join(pieces).split()) for pieces in note["tag"]) if tag))


def _attachment(resource: dict) -> str:
    """'receipt.pdf (application/pdf, 34 KB)' of a resource, its size from its base64 length."""
    size = resource["size"] * 3 // 4
    shown = f"{size / 1024:,.0f} KB" if size >= 1024 else f"{size} bytes"
    return f"{_first(resource, 'file-name') or 'unnamed'} ({_first(resource, 'mime') or 'unknown type'}, {shown})"


def enml_text(enml: str) -> str:
    """A note's ENML as text: as ingest.webpage reads a page, its checkboxes '[x] ' and '[ ] ', a table's
    row a line, its cells ' | ' apart."""
    if not enml.strip():
        return ""
    from ingest.webpage import parse_page
    enml = TODO.sub(lambda found: "[x] " if CHECKED.search(found.group(1)) else "[ ] ", enml)
    enml = CRYPT.sub("[encrypted text]", enml)
    enml = CELL_END.sub(" | ", enml)
    return "\n".join(section.text for section in parse_page("note.html", enml).sections).strip()
