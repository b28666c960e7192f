"""How many searches run at once, so that every other call is answered beside them rather than behind them.

The tools are plain functions that mcp runs in threads from anyio's default pool (40 at once), and so did the
stdio transport's reading of each line and writing of each answer. 150 searches sent at once took 40 threads,
which shared one interpreter and did not add up, and the line of a ``ping`` sent behind them was read only when
all but some 40 of them had finished: 4-14 s. Now at most SEARCHES_AT_ONCE of ``search`` and ``similar`` run,
the rest wait here without a thread, and the other tools (stats, list_files, read_file, refresh: reads of
milliseconds), pings and the transport's own reads and writes (transport.py has its own threads) get theirs at
once. Over HTTP the bound is the server's, shared by every client.
"""
from __future__ import annotations

import os

import anyio

SEARCHES = frozenset({"search", "similar"})  # the tools that can take a second; the others read a few rows
SEARCHES_AT_ONCE = max(2, min(4, os.cpu_count() or 1))  # more only share the cores (and the GIL) between them


class Pace:
    """The bound on running searches, made in the event loop that serves (one per server)."""

    def __init__(self, at_once: int = SEARCHES_AT_ONCE):
        self.at_once = at_once
        self._limiter: anyio.CapacityLimiter | None = None

    def slot(self, tool: str):
        """An async context to run ``tool`` in: a search waits for one of the bounded places, others go at once."""
        if tool not in SEARCHES:
            return _NOW
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.at_once)
        return self._limiter


class _Now:
    async def __aenter__(self):
        return None

    async def __aexit__(self, *_exc):
        return None


_NOW = _Now()
