"""The index: one SQLite file of collections, generations, file versions, chunks and vectors.

schema.py (tables and migrations), db.py (the connection), the query layer: every read, by name, in a module
named for what it reads (collection_reads.py, generation_reads.py, scan_reads.py, file_reads.py, listing_reads.py,
catalog_reads.py, progress_reads.py, chunk_reads.py, tag_reads.py, link_reads.py, vector_reads.py, keyword_reads.py:
FTS5, work_reads.py: the work under way), store.py (the writer: the only module that changes the index),
names.py (what may name a collection), freshness.py (scans that wait their turn), status.py (what the index
holds and how far builds have got), space.py (free disk and the reserve)."""
