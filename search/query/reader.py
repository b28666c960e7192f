"""Reading the published index: what a search (or a person) can see.

Everything here reads only the last published generation of each collection,
inside one read transaction, so the answer comes whole from one state. The
queries live in the query layer (``search.index.queries``); tests and benches ask
them here.
"""
from __future__ import annotations

from search.index.queries import visible_chunks, visible_files  # noqa: F401 (the published files and chunks)
