"""Where the lines of a text file start, found by scanning it in blocks: bounded memory at any size.

A line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (as the indexer splits it, so line numbers agree with
search results). In UTF-8, UTF-16 and UTF-32 these are the code units 10 and 13 and never part of
another character, so a block of the file is scanned as an array of code units (numpy) without decoding.

A ``LineMap`` remembers, for one version of one file (device, inode, size, mtime), a mark at every block
it has scanned: (byte offset, line starts before it). A later call on the same file starts from the
nearest mark instead of the top, so reading the middle or the end of a 1 GiB file costs one block.
Each call scans at most ``SCAN_BUDGET`` bytes the map does not know yet; past that the line count is
"at least N" and the next call counts on from where this one stopped.
"""
from __future__ import annotations

import bisect
import os
import threading
from collections import OrderedDict

from ingest.decode import Encoding

# numpy is imported in the functions that use it: sift-mcp's start (its answer to initialize) does not load it

BLOCK = 1 << 20  # bytes per read; a multiple of every code unit size
SCAN_BUDGET = 1 << 30  # bytes of not yet scanned file one call may scan
MAPS_KEPT = 16
NL, CR = 10, 13
DTYPES = {"utf-8": "u1", "utf-16-le": "<u2", "utf-16-be": ">u2", "utf-32-le": "<u4", "utf-32-be": ">u4"}


def units(raw: bytes, encoding: Encoding) -> np.ndarray:
    """``raw`` (a whole number of code units) as an array of code units."""
    import numpy as np
    # a legacy encoding (GB18030, Big5, Windows-1252) by its bytes: 10 and 13 are never part of a character there
    return np.frombuffer(raw, dtype=DTYPES.get(encoding.codec, "u1"))


def starts(a: np.ndarray, has_cr: bool, final: bool) -> np.ndarray:
    """Indices (1..len(a)) just after each line break in ``a``: after every LF, and after every CR that
    no LF follows. A CR in the last place counts only if no LF can follow it (``final``: the end of the
    file, or a block that left its last CR to the next)."""
    import numpy as np
    after_lf = np.flatnonzero(a == NL) + 1
    if not has_cr:
        return after_lf
    return np.union1d(after_lf, _lone_cr(a, final) + 1)


def count(a: np.ndarray, has_cr: bool, final: bool) -> int:
    """How many line breaks ``a`` holds (len(starts(...)) without listing them)."""
    import numpy as np
    n = int(np.count_nonzero(a == NL))
    return n + len(_lone_cr(a, final)) if has_cr else n


def _lone_cr(a: np.ndarray, final: bool) -> np.ndarray:
    import numpy as np
    cr = np.flatnonzero(a == CR)
    if len(cr) == 0:
        return cr
    inside = cr[cr + 1 < len(a)]
    lone = inside[a[inside + 1] != NL]
    if final and cr[-1] == len(a) - 1:
        lone = np.append(lone, cr[-1])
    return lone


class LineMap:
    """Line starts of one version of a file, learnt block by block (see the module's docstring)."""

    def __init__(self, encoding: Encoding, size: int):
        self.encoding = encoding
        self.begin = encoding.bom  # where the text starts
        self.end = self.begin + (size - self.begin) // encoding.unit * encoding.unit  # whole code units only
        self.offsets = [self.begin]  # marks: byte offset ...
        self.before = [0]  # ... and the line starts found before (or at) it
        self.lock = threading.Lock()
        self.last_unit: int | None = None  # the file's last code unit, once the scan reaches it

    @property
    def frontier(self) -> int:
        return self.offsets[-1]

    @property
    def complete(self) -> bool:
        return self.frontier >= self.end

    def lines(self, fd: int) -> int:
        """Lines known so far: the file's line count when ``complete``, else a lower bound."""
        n = self.before[-1]
        if not self.complete:
            return n + 1
        if self.end == self.begin:
            return 0
        if self.last_unit is None:
            self.last_unit = int(units(os.pread(fd, self.encoding.unit, self.end - self.encoding.unit),
                                       self.encoding)[0])
        return n if self.last_unit in (NL, CR) else n + 1

    def start_of(self, fd: int, line: int, budget: list[int]) -> int | None:
        """Byte offset where ``line`` (1-based) starts; None if the file has fewer lines, or if the budget
        ran out before the scan got there (then ``complete`` is False)."""
        if line == 1:
            return self.begin
        wanted = line - 1  # the line starts at the (line-1)th start position
        at = bisect.bisect_left(self.before, wanted) - 1  # the last mark with fewer starts before it
        offset, seen = self.offsets[at], self.before[at]
        while offset < self.end:
            known = offset < self.frontier
            if not known and budget[0] <= 0:
                return None
            a, has_cr, next_offset = self._block(fd, offset)
            found = starts(a, has_cr, True)
            if not known:
                budget[0] -= next_offset - offset
                self._mark(next_offset, seen + len(found))
            if seen + len(found) >= wanted:
                return offset + int(found[wanted - seen - 1]) * self.encoding.unit
            offset, seen = next_offset, seen + len(found)
        return None

    def extend(self, fd: int, budget: list[int], until: int | None = None) -> None:
        """Count on from the frontier to the end of the file (or past byte ``until``), or until the budget
        runs out."""
        while not self.complete and budget[0] > 0 and (until is None or self.frontier < until):
            offset = self.frontier
            a, has_cr, next_offset = self._block(fd, offset)
            budget[0] -= next_offset - offset
            self._mark(next_offset, self.before[-1] + count(a, has_cr, True))

    def starts_upto(self, fd: int, at: int, budget: list[int]) -> int | None:
        """How many lines start after the first and at or before byte ``at``; None if the budget ran out
        before the scan got there. Costs one block once the map has got there."""
        self.extend(fd, budget, until=at)
        if self.frontier < at:
            return None
        i = bisect.bisect_right(self.offsets, at) - 1
        return self.before[i] + self.breaks_between(fd, self.offsets[i], at)

    def breaks_between(self, fd: int, start: int, stop: int) -> int:
        """Line starts in (start, stop]: 0 when ``stop`` is still on the line that begins at ``start``."""
        import numpy as np
        offset, n = start, 0
        while offset < stop:
            a, has_cr, next_offset = self._block(fd, offset, min(BLOCK, stop - offset + self.encoding.unit))
            found = starts(a, has_cr, True)
            n += int(np.count_nonzero(found <= (stop - offset) // self.encoding.unit))
            offset = next_offset
        return n

    def _block(self, fd: int, offset: int, size: int | None = None) -> tuple[np.ndarray, bool, int]:
        """The code units from ``offset`` (up to ``size`` bytes, BLOCK by default), whether they hold a CR, and
        where the next block starts. A CR in the last place is left to the next block, which can see whether
        an LF follows; so what follows the units returned is never an LF and a CR last among them is a line
        break (callers pass ``final=True``)."""
        unit = self.encoding.unit
        size = max(BLOCK if size is None else size, 2 * unit)  # room to leave a last CR to the next block
        raw = os.pread(fd, min(size, self.end - offset), offset)
        raw = raw[:len(raw) // unit * unit]
        if not raw:  # the file shrank under us: stop here
            return units(b"", self.encoding), False, self.end
        has_cr = raw.find(b"\r") >= 0
        a = units(raw, self.encoding)
        next_offset = offset + len(raw)
        if has_cr and next_offset < self.end and a[-1] == CR:
            a, next_offset = a[:-1], next_offset - unit
        return a, has_cr, next_offset

    def _mark(self, offset: int, before: int) -> None:
        if offset > self.frontier:
            self.offsets.append(offset)
            self.before.append(before)


_maps: OrderedDict = OrderedDict()
_maps_lock = threading.Lock()


def line_map(path: str, st: os.stat_result, encoding: Encoding) -> LineMap:
    """The map of this version of the file (a new one if it changed), kept for the next call."""
    key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, encoding)
    with _maps_lock:
        found = _maps.pop(key, None) or LineMap(encoding, st.st_size)
        _maps[key] = found
        while len(_maps) > MAPS_KEPT:
            _maps.popitem(last=False)
    return found
