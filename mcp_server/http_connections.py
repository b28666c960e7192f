"""The connections ``sift-mcp --http`` holds open: each must send its request (head and body) within
``SIFT_HTTP_READ_SECONDS`` of connecting or of its last answer, and at most MAX_CONNECTIONS are open at once.

uvicorn closes a connection idle after an answer (5 s), but none that never sends a whole request: a client,
even one without the token, that opened connections and sent nothing (or half a request, or a body's first
byte of a declared megabyte) held each for as long as it liked, and the Guard, which reads the body, waited
for it. Some thousand such connections (a Linux process's usual limit of 1,024 open files) would leave the
server unable to accept a client or open its index. A connection past the deadline is closed (a request
already read and being answered, a search say, is not cut); one past the cap is closed as it is accepted.
"""
from __future__ import annotations

from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_CONNECTIONS = 512  # open at once: well inside 1,024 open files, with room for the index and the model


def protocol(read_seconds: float, max_connections: int = MAX_CONNECTIONS) -> type:
    """uvicorn's h11 protocol with the deadline and the cap (``uvicorn.Config(http=...)``)."""

    class Bounded(H11Protocol):
        _deadline = None
        _waiting_for = None  # the request cycle that was current when the deadline was set

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.close()  # connection_lost forgets it
                return
            self._arm()

        def on_response_complete(self) -> None:
            answered = self.cycle
            super().on_response_complete()  # may begin a request pipelined behind it, read whole already
            self._arm(answered)  # the next request on this connection gets its own time

        def connection_lost(self, exc) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

        def _arm(self, answered=None) -> None:
            """The deadline for the request after ``answered`` (the cycle current now when None): one begun since,
            which came pipelined behind it, is past waiting for unless its body is still to come."""
            if self._deadline is not None:
                self._deadline.cancel()
            self._waiting_for = self.cycle if answered is None else answered
            self._deadline = self.loop.call_later(read_seconds, self._too_slow)

        def _too_slow(self) -> None:
            self._deadline = None
            cycle = self.cycle
            unread = cycle is self._waiting_for or (cycle is not None and cycle.more_body)  # no head, or no body
            if unread and not self.transport.is_closing():
                self.transport.close()

    return Bounded
