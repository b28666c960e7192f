"""The one kind of failure a tool reports on purpose."""
from __future__ import annotations


class Problem(Exception):
    """A request the server will not or cannot answer; str() says what to do instead."""
