"""A question that says a definition's name in words, and the passages of that definition.

'how does pypdf rebuild a broken xref table' asks for ``PdfReader._rebuild_xref_table``; keyword search ranked the
passages saying 'xref' and 'table' most (a function raising "Broken xref table", the xref stream readers) above it,
and a file's first two passages left it off the page (search.query.results_page.PER_FILE). ``symbols.worded`` says
whether a code passage's heading names a definition whose every word the question says.
"""
from __future__ import annotations

from search.query import symbols
from search.query.passages import Passages
from search.query.reordering import moved_first


def worded_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the code passages of the definitions whose names the query says in words (``symbols.worded``)
    first, the name of more words first, then in their order, in keyword and hybrid search, for a query of three
    words or more (two are a name written with a space: ``definitions_first``). Scores stay as ranked; a note says so
    when the order changed."""
    if mode == "semantic" or len(query.split()) < 3 or not ranked:
        return ranked
    code = read.rows([hit[0] for hit in ranked], kind="code")
    said = {cid: symbols.worded(query, r["heading_path"] or "") for cid, r in code.items()}
    first = sorted((hit for hit in ranked if said.get(hit[0])), key=lambda hit: -said[hit[0]])
    return moved_first(ranked, first, notes, "the code passages of the definitions whose names the question says in "
                                             "words")
