"""Which first build's partial note (search.index.status.partial_text) each conversation was told in full: it was
said before the passages of every search while a first build came in parts, 297 characters each time, 4,400 of
the 74,000 an assistant read in bench/assistant_calls.py. A conversation told it is told the counts alone again
(status.partial_again) while the same part answers; a new part's counts say it whole, as does a search
AGAIN_SECONDS after it was said whole.

A conversation begins with the client's `initialize`: a stdio server's client may start several over one server's
pipe (a new ClientSession on the same streams), an HTTP server has one per session. The memory is keyed on the
`initialize` parameters the connection recorded (mcp's public ServerSession.client_params, a new object at each
`initialize`); keyed on the connection, a second conversation on one stdio server within AGAIN_SECONDS was told the
short note of a note it had never read whole. The note comes again after AGAIN_SECONDS as well: Claude Desktop
keeps one server, and one `initialize`, for every conversation of the day, and a new one was told nothing of
what the first one read."""
from __future__ import annotations

import threading
import time
import weakref

# a conversation's span: longer, and a new conversation with the same server would not be told the whole note
AGAIN_SECONDS = 15 * 60


class Told:
    """The partial notes said in full to each conversation, and when."""

    def __init__(self):
        # id() of a conversation's initialize parameters -> {collection: (note, when)}: the parameters are not
        # hashable (a pydantic model), so by id, each entry dropped as its parameters go (weakref.finalize)
        # and before their id can be another's
        self._said: dict[int, dict[str, tuple[str, float]]] = {}
        self._lock = threading.Lock()  # tool calls run in threads, several at once over HTTP

    def asker(self, conversation):
        """status.partial_note's ``told`` for ``conversation`` (session_of's; None when there is none to remember
        by, as a tool called outside a request: every note whole)."""
        if conversation is None:
            return None
        return lambda name, note: self._told(conversation, name, note)

    def _told(self, conversation, name: str, note: str) -> bool:
        """Whether ``conversation`` was told ``note`` of collection ``name`` within AGAIN_SECONDS; when not, it is
        told it now."""
        now = time.monotonic()
        key = id(conversation)
        with self._lock:
            said = self._said.get(key)
            if said is None:
                said = self._said[key] = {}
                weakref.finalize(conversation, self._forget, key)
            before = said.get(name)
            if before is not None and before[0] == note and now - before[1] < AGAIN_SECONDS:
                return True
            said[name] = (note, now)
            return False

    def _forget(self, key: int) -> None:
        with self._lock:
            self._said.pop(key, None)


def session_of(ctx) -> object | None:
    """What marks the conversation a tool call is of: the ``initialize`` parameters its connection recorded
    (ServerSession.client_params, a new object at each ``initialize``: the stdio client's, each HTTP session's).
    None outside a request, or from a client that sent none, every note then said whole. mcp 2.3 makes a
    ServerSession for each request: a note remembered by the session itself was never found again."""
    try:
        session = ctx.request_context.session if ctx is not None else None
    except ValueError:  # a Context made outside a request
        return None
    return getattr(session, "client_params", None)
