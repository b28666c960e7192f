"""A text file's lines from disk, numbered like ``cat -n``, decoded as the indexer decodes it (``ingest.decode``:
UTF-8, UTF-16/32 by their BOM, or the legacy encoding the first 64 KiB read as; the same "binary file" and "not
UTF-8 text" verdicts). The file is read in blocks, never whole: where lines start is learnt by ``mcp_server.lines``
and only the lines shown are decoded, so a call costs bounded time and memory at any size. Output stops at
MAX_LINES lines or MAX_BYTES bytes (UTF-8) and says where to go on; a line longer than that is cut and continued
with ``start_offset`` (bytes into the line). Sparse files and special files (FIFOs, devices, sockets) are refused.
"""
from __future__ import annotations

import os

from ingest.decode import SAMPLE, Encoding, incremental, not_text, sniff
from ingest.document import Skip
from mcp_server import base64_runs, lines as line_maps, notebook_images, paths, render
from mcp_server.errors import Problem
from mcp_server.read_answer import MAX_BYTES, MAX_LINES, NUMBER, empty_answer, lines_answer, mb


WINDOW = 4 * MAX_BYTES + (1 << 16)  # file bytes read to show one answer: enough for MAX_BYTES in UTF-32
SPARSE_MIN = 1 << 20  # a file this big with under 1/8 of it on disk is sparse


def read_text(target: paths.Target, indexed, start: int, end: int | None, offset: int = 0,
              unindexed: str | None = None) -> tuple[str, dict]:
    """``unindexed``: why a file that is not in the published index is not (stats' reason), for the note."""
    if end is not None and end < start:
        raise Problem(f"end_line ({end}) is before start_line ({start})")
    fd = open_checked(target)
    try:
        st = os.fstat(fd)
        encoding = _encoding(fd, target)
        found = line_maps.line_map(target.absolute, st, encoding)
        with found.lock:
            budget = [line_maps.SCAN_BUDGET]
            if found.end == found.begin:
                return f"{target.name} is empty.", empty_answer(target, indexed)
            begin = _line_start(fd, found, target, start, budget)
            if offset:  # inside a character: from the next one, and the header names that byte, not the one asked
                at = _resume(fd, found, start, begin, offset, budget)
                offset, begin = at - begin, at
            last = min(end or start + MAX_LINES - 1, start + MAX_LINES - 1)
            shown, cut_at = _window(fd, found, target, begin, start, last, offset, budget)
            found.extend(fd, budget)
            total, complete = found.lines(fd), found.complete
            if not complete:  # what was shown may lie past the counted part
                total = max(total, shown[-1][0] if shown else start)
            rest = _rest(fd, found, shown, cut_at, total, budget) if complete and end is None else None
        mail = base64_runs.is_mail_file(fd, target.relative)  # its attachments' base64 folded
    finally:
        os.close(fd)
    return lines_answer(target, indexed, start, end, offset, shown, cut_at, total, complete, unindexed, encoding,
                        rest, mail)


def _rest(fd: int, found, shown, cut_at, total: int, budget: list[int]) -> tuple[int, int] | None:
    """(bytes, lines) of the file after what was shown, to its end; None when all of it was shown."""
    line, into = cut_at if cut_at else ((shown[-1][0] + 1) if shown else 1, 0)
    if line > total:
        return None
    at = found.start_of(fd, line, budget)
    return None if at is None else (found.end - at - into, total - line + 1)


def open_checked(target: paths.Target) -> int:
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
            raise Problem(f"{target.name} is a sparse file ({mb(st.st_size)} long, {mb(st.st_blocks * 512)} "
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
        raise Problem(f"{target.name} is {mb(found.end)}; counting its lines has reached line "
                      f"{found.lines(fd):,} so far, before line {start}: call read_file again to count on "
                      f"(each call counts {mb(line_maps.SCAN_BUDGET)} more)")
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
                          f"({mb(line_maps.SCAN_BUDGET)}): call read_file again to count on")
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
            offset: int, budget: list[int], used: int = 0) -> tuple[list[tuple[int, str]], tuple[int, int] | None]:
    """([(number, text)] of lines first..last from ``begin`` within MAX_BYTES (``used`` of it already), and (line,
    bytes into it) where the next call goes on when a line was cut, else None). Reads at most WINDOW bytes: enough
    for MAX_BYTES of text in any of the encodings; a notebook's image line is one short line naming it
    (mcp_server.notebook_images), and the lines after it are read from where it ends."""
    encoding, unit = found.encoding, found.encoding.unit
    notebook = not offset and notebook_images.is_notebook(target.relative)
    raw = os.pread(fd, min(WINDOW, found.end - begin), begin)
    raw = raw[:len(raw) // unit * unit]
    final = begin + len(raw) >= found.end
    a = line_maps.units(raw, encoding)
    after = line_maps.starts(a, raw.find(b"\r") >= 0, final)
    shown, line_start = [], 0
    for i, number in enumerate(range(first, last + 1)):
        if i > 0 and line_start >= len(a):
            break  # the end of the file
        whole = i < len(after) or final
        stop = int(after[i]) if i < len(after) else len(a)
        room = MAX_BYTES - used - NUMBER
        text = _without_break(_decode(raw, encoding, line_start, stop, room, whole, begin, target))
        folded = _image(fd, found, begin + line_start * unit, number, text, budget) if notebook else None
        if folded is not None and len(folded[0].encode("utf-8")) <= room:
            shown.append((number, folded[0]))
            used += len(folded[0].encode("utf-8")) + NUMBER
            if number < last and not whole:  # the image runs past what was read: on from the line after it
                more, cut_at = _window(fd, found, target, folded[1], number + 1, last, 0, budget, used)
                return shown + more, cut_at
            if i >= len(after):
                break
            line_start = int(after[i])
            continue
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


def _image(fd: int, found, at: int, number: int, text: str, budget: list[int]) -> tuple[str, int] | None:
    """(the line naming it, the next line's offset) of a notebook's image line ``number`` starting at byte ``at``,
    its ``text`` read so far; None for any other line."""
    if not notebook_images.IMAGE.match(text):
        return None
    after = found.start_of(fd, number + 1, budget)
    if after is None:
        return None
    shown = notebook_images.folded(text, after - at)
    return None if shown is None else (shown, after)


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
