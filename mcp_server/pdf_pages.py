"""A PDF's pages as read_file shows them: the text from the published index's chunks (the parsed text layer), a
page at a time or pages up to a limit, a page over it in pieces; and the pages under a heading of its outline."""
from __future__ import annotations

import json
import os
import posixpath

from ingest.links import converted_pdfs, listed_headings
from mcp_server import paths, render
from mcp_server.errors import Problem
from mcp_server.read_answer import MAX_BYTES, failure
from search.index import chunk_reads


MIN_OVERLAP = 8  # characters; shorter matches between chunks may be chance


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
        raise Problem(f"{target.name} is a PDF that is not in the published index ({failure(conn, target)}); "
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


def pdf_heading_pages(conn, target: paths.Target, indexed, wanted: tuple[str, ...],
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
