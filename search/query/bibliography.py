"""A paper's reference list, kept out of hybrid search's ranking by meaning.

A list of the field's titles is close in meaning to any query about the field: in four papers, reference-list
passages ranked above the body for topic words ('dense passage retrieval', 'negation embedding models'), and
four of them above the only passage holding 'retrievability'. ``ingest.pdf.references_apart`` puts a PDF's
reference list under its own heading; hybrid search leaves passages under such a heading out of the semantic
ranking it fuses, so they rank by their words alone (a cited title, an author's name still finds them).
"""
from __future__ import annotations

import re

from search.index import chunk_reads

# The same as ingest.pdf.BIBLIOGRAPHY (search does not import ingest; tests/test_pdf_references.py checks it).
HEADING = re.compile(
    r"(?:(?:\d{1,2}|[ivxlc]{1,6})\.?\s+)?(?:references?(?: and notes)?|bibliography|works cited|literature cited|"
    r"cited literature|literatur(?:verzeichnis)?|quellen(?:verzeichnis)?|références(?: bibliographiques)?|"
    r"bibliographie|referencias(?: bibliográficas)?|bibliografía|bibliografia|riferimenti bibliografici|"
    r"参考文献|參考文獻|引用文献)\s*:?", re.IGNORECASE)


def left_out(conn, ranking: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """``ranking`` without the PDF passages whose heading (the last part of its path) is a reference list's."""
    headings = chunk_reads.pdf_headings(conn, [cid for cid, _ in ranking]) if ranking else {}
    return [(cid, score) for cid, score in ranking
            if cid not in headings or not HEADING.fullmatch(headings[cid].rsplit(" > ", 1)[-1])]
