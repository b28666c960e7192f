"""What one search reads of its candidate passages, each read once.

The steps after the ranking (quoted Chinese phrases, definitions, callers, pasted messages, the passages near by
meaning that are imports alone) and the page's snippets each read the candidates' rows (``chunk_reads.hit_rows``: the
text, the file, the collection): a hybrid search of three words read its ~200 candidates' texts for the pasted-message
step, after the semantic side had read 100 of them, and the page's again for its snippets. ``Passages`` keeps the rows
read in one snapshot, and a step that only looks at code reads only the code passages (their kind is in the catalog,
in memory): in a vault of notes it reads none.
"""
from __future__ import annotations

from search.index import chunk_reads
from search.query.catalog import Catalog


class Passages:
    def __init__(self, conn, catalog: Catalog):
        self.conn, self.catalog = conn, catalog  # one snapshot: the rows and the catalog stay true while it lasts
        self._rows: dict = {}

    def rows(self, ids, kind: str | None = None) -> dict:
        """{chunk id: its row (``chunk_reads.hit_rows``)} of the visible ``ids`` (of the files of ``kind`` alone, if
        given), each read from the index the first time it is asked for."""
        ids = list(dict.fromkeys(ids))
        if kind is not None:  # a chunk the catalog does not hold is read to be told
            ids = [cid for cid, its in zip(ids, self.catalog.kinds_of(ids)) if its in (kind, None)]
        missing = [cid for cid in ids if cid not in self._rows]
        if missing:
            self._rows.update((row["id"], row) for row in chunk_reads.hit_rows(self.conn, missing))
        return {cid: self._rows[cid] for cid in ids if cid in self._rows
                and (kind is None or self._rows[cid]["kind"] == kind)}
