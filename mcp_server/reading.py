"""read_file: a text file's lines from disk, or a PDF's pages from the index.

Text comes from the file as it is now, numbered like ``cat -n``; output stops
at MAX_LINES lines or MAX_BYTES bytes and says where to go on. PDF text comes
from the published index's chunks (the parsed text layer), one page at a time.
"""
from __future__ import annotations

import os

from mcp_server import paths
from mcp_server.errors import Problem

MAX_LINES = 2000
MAX_BYTES = 200_000
MIN_OVERLAP = 8  # characters; shorter matches between chunks may be chance


def read(sift, raw_path: str, start_line: int | None, end_line: int | None, page: int | None) -> tuple[str, dict]:
    conn = sift.conn()
    target = paths.resolve(raw_path, sift.roots(), lambda name: indexed_by_name(conn, name))
    indexed = indexed_row(conn, target)
    if target.relative.lower().endswith(".pdf") or (indexed is not None and indexed["kind"] == "pdf"):
        if start_line is not None or end_line is not None:
            raise Problem(f"{target.name} is a PDF: read it by page (page=1, page=2, …), not by line")
        return read_pdf(conn, target, indexed, page or 1)
    if page is not None:
        raise Problem(f"{target.name} is not a PDF: read it by start_line and end_line, not by page")
    return read_text(target, indexed, start_line or 1, end_line)


def indexed_by_name(conn, name: str) -> list[tuple[str, str]]:
    """(collection, path) of every published file whose file name is ``name``."""
    from search.store import VISIBLE
    rows = conn.execute(f"SELECT c.name, f.path FROM files f JOIN collections c ON c.id = f.collection "
                        f"WHERE {VISIBLE} AND (f.path = ? OR substr(f.path, -length(?) - 1) = '/' || ?)",
                        (name, name, name)).fetchall()
    return [(r[0], r[1]) for r in rows]


def indexed_row(conn, target: paths.Target):
    from search.store import VISIBLE
    return conn.execute(f"SELECT f.*, c.published FROM files f JOIN collections c ON c.id = f.collection "
                        f"WHERE c.name = ? AND f.path = ? AND {VISIBLE}",
                        (target.collection, target.relative)).fetchone()


# --- text ---------------------------------------------------------------------------

def read_text(target: paths.Target, indexed, start: int, end: int | None) -> tuple[str, dict]:
    if end is not None and end < start:
        raise Problem(f"end_line ({end}) is before start_line ({start})")
    last = min(end or start + MAX_LINES - 1, start + MAX_LINES - 1)
    lines, total, cut = _lines(target, start, last)
    if total == 0:
        return f"{target.name} is empty.", {"path": target.name, "total_lines": 0, "lines": []}
    if start > total:
        raise Problem(f"{target.name} has {total} lines; start_line {start} is past the end")
    shown_to = start + len(lines) - 1
    header = f"{target.name}  (lines {start}-{shown_to} of {total})"
    body = [f"{n:>6}\t{text}" for n, text in lines]
    notes = _staleness(target, indexed)
    wanted_to = min(end or total, total)
    if shown_to < wanted_to:
        why = f"the {MAX_BYTES // 1000} KB limit" if cut else f"the {MAX_LINES}-line limit"
        notes.append(f"[stopped at {why}: lines {shown_to + 1}-{wanted_to} not shown; "
                     f"call read_file with start_line={shown_to + 1} for more]")
    data = {"path": target.name, "absolute_path": target.absolute, "start_line": start, "end_line": shown_to,
            "total_lines": total, "next_start_line": shown_to + 1 if shown_to < total else None,
            "indexed_generation": indexed["published"] if indexed is not None else None}
    return "\n".join([header, *body, *notes]), data


def _lines(target: paths.Target, start: int, last: int) -> tuple[list[tuple[int, str]], int, bool]:
    """([(number, text)] for start..last within MAX_BYTES, the file's line count, whether bytes ran out)."""
    lines, total, used, cut = [], 0, 0, False
    with open(target.absolute, "rb") as f:
        if b"\x00" in f.read(8192):
            raise Problem(f"{target.name} looks like a binary file; read_file shows text only")
        f.seek(0)
        for total, raw in enumerate(f, start=1):
            if cut or not start <= total <= last:
                continue
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            if used + len(text) > MAX_BYTES:
                cut = True
                if lines:
                    continue
                text = text[:MAX_BYTES] + " …[line cut here]"
            lines.append((total, text))
            used += len(text) + 8
    return lines, total, cut


def _staleness(target: paths.Target, indexed) -> list[str]:
    if indexed is None:
        return ["[this file is not in the published index (new, excluded, or failed): search will not find it yet]"]
    stat = os.stat(target.absolute)
    if stat.st_size != indexed["size"] or abs(stat.st_mtime - indexed["mtime"]) > 1e-3:
        return [f"[changed on disk since generation {indexed['published']} indexed it: "
                "line numbers from search results may be off]"]
    return []


# --- PDF ------------------------------------------------------------------------------

def read_pdf(conn, target: paths.Target, indexed, page: int) -> tuple[str, dict]:
    if indexed is None:
        raise Problem(f"{target.name} is a PDF that is not in the published index ({_failure(conn, target)}); "
                      "its text can be read only once it is indexed: see stats")
    chunks = conn.execute("SELECT ordinal, heading_path, page, end_page, text FROM chunks WHERE file = ? "
                          "ORDER BY ordinal", (indexed["id"],)).fetchall()
    pages = max((c["end_page"] or c["page"] or 0 for c in chunks), default=0)
    if pages == 0:
        raise Problem(f"{target.name} has no text layer in the index (a scanned PDF?)")
    if page > pages:
        raise Problem(f"{target.name} has {pages} pages with text; page {page} is past the end")
    covering = [c for c in chunks if c["page"] <= page <= (c["end_page"] or c["page"])]
    text = merge_chunks(covering)
    first = min((c["page"] for c in covering), default=page)
    last = max((c["end_page"] or c["page"] for c in covering), default=page)
    span = f"page {page}" if first == last else f"page {page} (the passages shown run over pages {first}-{last})"
    header = f"{target.name}  ({span} of {pages}; text as indexed in generation {indexed['published']})"
    notes = []
    if len(text) > MAX_BYTES:
        text = text[:MAX_BYTES]
        notes.append(f"[stopped at the {MAX_BYTES // 1000} KB limit]")
    if page < pages:
        notes.append(f"[call read_file with page={page + 1} for the next page]")
    data = {"path": target.name, "absolute_path": target.absolute, "page": page, "pages": pages,
            "first_page_shown": first, "last_page_shown": last, "indexed_generation": indexed["published"]}
    return "\n".join([header, text or "(no text on this page)", *notes]), data


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
    row = conn.execute("SELECT p.state, p.stage, p.reason FROM progress p JOIN generations g ON g.id = p.generation "
                       "JOIN collections c ON c.id = g.collection WHERE c.name = ? AND p.path = ? "
                       "ORDER BY p.generation DESC LIMIT 1", (target.collection, target.relative)).fetchone()
    if row is None:
        return "not indexed yet"
    if row["state"] in ("failed", "skipped"):
        return f"{row['state']} at {row['stage']}: {row['reason']}"
    return "waiting to be indexed"
