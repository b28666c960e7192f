"""The one kind of failure a tool reports on purpose."""
from __future__ import annotations


class Problem(Exception):
    """A request the server will not or cannot answer; str() says what to do instead."""


class NoIndexYet(Problem):
    """No index to read: none at all, or a file a worker is making, its tables not written yet. Stats answers
    with what it knows (the model, the worker); the other tools say nothing is indexed yet."""
