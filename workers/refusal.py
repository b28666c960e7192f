"""How the consumer and the file watcher say why they cannot work: one line, to sift-mcp when it started them.

A consumer or watcher that cannot work (a damaged or read-only index or queue) says why in one line and exits
with status 2; sift-mcp starts it again every minute until the file is fixed (mcp_server/worker.py). Printed by
each start, that line came back every minute for as long as the file stayed damaged. Under sift-mcp the line
goes to the server instead, through a pipe whose descriptor it puts in SIFT_REPORT_FD, and the server prints
each distinct line once; a child whose checks passed says ``ready`` there, and the server says once that it
works again. Run by hand, the line goes to stderr.
"""
from __future__ import annotations

import os
import sys

REPORT_FD = "SIFT_REPORT_FD"
READY = "ready"
LINE_BYTES = 4000  # under PIPE_BUF: a line written to the pipe arrives whole


def refuse(line: str) -> None:
    """Say ``line`` (``sift worker: error: …``): to the sift-mcp that started this process, else on stderr."""
    if not _send(line):
        print(line, file=sys.stderr, flush=True)


def ready() -> None:
    """Tell the sift-mcp that started this process (if one did) that its checks passed: it works."""
    _send(READY)


def _send(line: str) -> bool:
    fd = os.environ.get(REPORT_FD)
    if not fd:
        return False
    try:
        os.write(int(fd), line.replace("\n", " ").encode("utf-8", "replace")[:LINE_BYTES] + b"\n")
        return True
    except (OSError, ValueError):
        return False


def pipe() -> tuple[int, int]:
    """(read end, write end) of a child's pipe, for sift-mcp; the read end never blocks."""
    read, write = os.pipe()
    os.set_blocking(read, False)
    return read, write


def received(fd: int) -> list[str]:
    """The lines written so far to the pipe whose read end is ``fd``."""
    data = b""
    while True:
        try:
            part = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not part:
            break
        data += part
    return data.decode("utf-8", "replace").splitlines()
