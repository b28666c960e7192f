"""The query engine: engine.py answers a search over the published generations: keyword search (keyword.py:
FTS5's bm25(); postings.py: the same ranking from postings in memory), vector search (vector.py), both over one
catalog of the published chunks with filter masks (catalog.py, filters.py), fused (fusion.py), with snippets
(snippet.py); text.py normalises text as the keyword index does; reader.py reads the published files and
chunks."""
