"""Reading the published index: what a search (or a person) can see.

Everything here reads only the last published generation of each collection,
inside one read transaction, so the answer comes whole from one state. The
queries live in the query layer (``search.index.chunk_reads``, ``search.index.file_reads``); tests and
benches ask them here.
"""
from __future__ import annotations

from search.index.chunk_reads import visible_chunks  # noqa: F401 (the published chunks)
from search.index.file_reads import visible_files  # noqa: F401 (the published files)
