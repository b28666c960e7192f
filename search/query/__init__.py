"""The query engine: engine.py answers a search over the published generations: keyword search (keyword.py:
FTS5's bm25(); postings.py: the same ranking from postings in memory), vector search (vector.py), both over one
catalog of the published chunks with filter masks (catalog.py, filters.py), fused (fusion.py), with snippets
(snippet.py); text.py normalises text as the keyword index does; reader.py reads the published files and
chunks. Around the ranking: the request checked (request.py), the ranked passages reordered (reordering.py), the
page of results (results_page.py), each hit shaped (hits.py), what an answer is (answer.py) and the notes it says
(answer_notes.py), and similar's own steps (similar.py)."""
