"""Which first build's partial note (search.index.status.partial_text) each conversation was told in full: it was
said before the passages of every search while a first build came in parts, 297 characters each time, 4,400 of
the 74,000 an assistant read in bench/assistant_calls.py. A conversation told it is told the counts alone again
(status.partial_again) while the same part answers; a new part's counts say it whole, as does a search
AGAIN_SECONDS after it was said whole.

A conversation is the client's MCP connection: one a stdio server's, one per session over HTTP, where one server
answers several. The note comes again after AGAIN_SECONDS: Claude Desktop keeps one server for every
conversation of the day, and a new one was told nothing of what the first one read."""
from __future__ import annotations

import threading
import time
import weakref

# a conversation's span: longer, and a new conversation with the same server would not be told the whole note
AGAIN_SECONDS = 15 * 60


class Told:
    """The partial notes said in full to each session, and when."""

    def __init__(self):
        self._said: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()  # tool calls run in threads, several at once over HTTP

    def asker(self, session):
        """status.partial_note's ``told`` for ``session`` (None when there is no session to remember by, as a tool
        called outside a request: every note whole)."""
        if session is None:
            return None
        return lambda name, note: self._told(session, name, note)

    def _told(self, session, name: str, note: str) -> bool:
        """Whether ``session`` was told ``note`` of collection ``name`` within AGAIN_SECONDS; when not, it is told
        it now."""
        now = time.monotonic()
        with self._lock:
            said = self._said.setdefault(session, {})
            before = said.get(name)
            if before is not None and before[0] == note and now - before[1] < AGAIN_SECONDS:
                return True
            said[name] = (note, now)
            return False


def session_of(ctx) -> object | None:
    """The client connection a tool call came over (the stdio client's; each HTTP session's); None outside a
    request, every note then said whole. mcp 2.3 makes a ServerSession for each request, the client's Connection
    kept in its ``_connection``: a note remembered by the session was never found again."""
    try:
        session = ctx.request_context.session if ctx is not None else None
    except ValueError:  # a Context made outside a request
        return None
    return getattr(session, "_connection", None)
