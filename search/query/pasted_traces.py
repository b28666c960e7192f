"""Where each stack trace of a paste begins, when one search holds several.

Two traces pasted one after the other (two Python tracebacks, an error and the one raised handling it, two of
Node's, Java's 'Caused by: …', the goroutines of one Go panic) were read as one: the frames of the second were taken
as the first's continuation, so that Python's, read the other way round as one list, put the second traceback's
frames first and the first's raising frame after all of them, and a Python traceback pasted above a Node trace had
the Node trace read backwards too. A trace begins at its header line: Python's 'Traceback (most recent call
last):', an error's line at a line's start ('TypeError: x is not a function', 'java.lang.IllegalStateException:
…', 'Uncaught Error: …', Node's 'TypeError [ERR_X]: …' and '  [cause]: Error: …'), Java's 'Caused by: …' and
'Exception in thread …', Go's
'panic: …' and 'goroutine 7 [running]:', Rust's "thread 'main' panicked at …". Python's own error line, last in
its traceback, begins a trace of no frames, which is none. Two traces' frames pasted alone, a blank line between
them, were one trace too: a blank line begins a trace where two frames or more stand on either side of it before
another blank line or header (one frame a block is a pytest report's, each frame's source after it).
"""
from __future__ import annotations

import bisect
import re

HEADER = re.compile(r"^[ \t|+]*(?:Exception Group )?Traceback \(most recent call last\):"  # 3.11's groups: '  | …'
                    r"|^(?:Caused by:|Exception in thread\b|panic:|goroutine \d+ \[|thread '[^'\n]*' panicked at\b)"
                    r"|^[ \t]*\[cause\]:"  # Node's printout of an error's cause, inside the error's
                    r"|^(?:Uncaught[ \t]+)?(?:[\w$]+\.)*[\w$]*(?:Error|Exception|Panic)(?:[ \t]*\[[^\]\n]*\])?:",
                    re.MULTILINE)


BLANK = re.compile(r"\n[ \t]*\n\s*")  # one blank line or more: what follows it may be another trace's frames
APART = 2  # frames on either side of a blank line, at least, for it to part two traces


def starts(query: str, frames: list[int] = ()) -> list[int]:
    """Where each trace the query holds begins (its header line's start, or the line after a blank line with
    APART of the ``frames``' offsets on either side of it), after the first, in order."""
    headers = [m.start() for m in HEADER.finditer(query) if m.start() > 0]
    gaps = [m.end() for m in BLANK.finditer(query)]
    bounds = sorted({0, *headers, *gaps, len(query) + 1})
    held = [0] * len(bounds)  # the frames from each bound to the next
    for at in frames:
        held[bisect.bisect_right(bounds, at) - 1] += 1
    parting = [gap for gap in gaps if gap not in headers and 0 < (i := bounds.index(gap)) < len(bounds) - 1
               and held[i - 1] >= APART and held[i] >= APART]
    return sorted({*headers, *parting})


def trace_of(starts_at: list[int], at: int) -> int:
    """The number (from 0) of the trace holding the offset ``at``, of those ``starts`` gives."""
    return bisect.bisect_right(starts_at, at)
