"""The index: one SQLite file of collections, generations, file versions, chunks and vectors.

schema.py (tables and migrations), db.py (the connection), queries.py (every read, by name), store.py (the
writer: the only module that changes the index), names.py (what may name a collection), freshness.py (scans
that wait their turn), status.py (what the index holds and how far builds have got), space.py (free disk and
the reserve)."""
