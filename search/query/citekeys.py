"""A query that is a BibTeX citekey (``@geobase2004nhn``, ``smith2020``): the passages holding it first.

A citekey has no meaning for the embedding model: in a hybrid search the passages found by meaning alone (a PDF's
title page, a lorem-ipsum paper) ranked above the reading note that cites the key (6th of 10), where keyword
search finds just the entry and the notes citing it."""
from __future__ import annotations

import re

from search.query.hits import BIBLIOGRAPHY_ENDINGS
from search.query.passages import Passages
from search.query.question import content

CITEKEY = re.compile(r"@?([^\W_][\w:.+/-]*)")  # Better BibTeX's keys and Pandoc's @key, one word


def citing_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the passages keyword search found first, in their order, when the query is one word (its
    question's framing words aside) that heads a .bib entry among them (its citekey), in hybrid search; scores stay
    as ranked, a note says so."""
    from search.query.reordering import moved_first
    # the key asked about in a question ('which files refer to geobase2004nhn', question.CITING) is the key too
    # and the key asked with a sentence's end ('geobase2004nhn?', 'smith2020.'), which no key ends with
    asked = CITEKEY.fullmatch(content(query).strip().rstrip("?？.!,;"))
    if mode != "hybrid" or not ranked or asked is None:
        return ranked
    files = read.catalog.files([hit[0] for hit in ranked])
    entries = [hit[0] for hit, row in zip(ranked, files)
               if read.catalog.paths[row].lower().endswith(BIBLIOGRAPHY_ENDINGS)]
    key = asked.group(1).casefold()
    if not any((row["heading_path"] or "").casefold() == key for row in read.rows(entries).values()):
        return ranked
    found = [hit for hit in ranked if hit[2][0] is not None]
    return moved_first(ranked, found, notes, f"the passages holding the citekey {asked.group(1)}")
