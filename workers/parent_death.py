"""The signal the kernel sends a worker of ``sift-mcp`` when the server dies, and taking it back once it stops.

``mcp_server.worker`` starts its consumer asking for SIGINT, huey's graceful stop, at the server's death
(Linux's PR_SET_PDEATHSIG), so that even a server killed with SIGKILL leaves no consumer behind. But a stop
usually comes first: the client closes stdin (or sends SIGTERM), the server sends SIGINT and waits, and the
client kills the server within seconds (the mcp SDK's stdio client: SIGTERM 2 s after closing stdin, SIGKILL
2 s later). Its death then reached the consumer as a second SIGINT, huey's "stop now": the running jobs were
cut off and done again at the next start. A consumer told to stop takes the request back (``disarm``): it
finishes its running jobs on its own (huey's -t bounds the wait) and exits.
"""
from __future__ import annotations

import sys

PR_SET_PDEATHSIG = 1


def prctl():
    """libc's prctl (Linux), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def disarm() -> None:
    """No signal at the parent's death any more (nothing where there is no prctl)."""
    call = prctl()
    if call is not None:
        call(PR_SET_PDEATHSIG, 0)

