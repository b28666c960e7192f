"""The definitions of a name a query is, looked up by their headings where its words ranked none of them.

``@huey.task`` names Huey.task, whose passage is headed ``api > Huey > create_consumer, task``. Split into its words,
'huey' and 'task' are in nearly every passage of huey, so BM25 ranked the Django backend's ``enqueue`` and a hundred
other passages above it, and ``reordering.definitions_first`` never saw the definition to move it. A code passage's
heading path holds its module, classes and definitions, so the passages whose headings hold every part of the name
are few; those that define it (``symbols.defines``) come after the ranked ones, scored 0 and unranked.
"""
from __future__ import annotations

import re

from search.index import keyword_reads
from search.query.filters import Filters

HEADING_DEPTH = 30  # passages whose headings hold the name's parts, looked at for its definition
_WORD = re.compile(r"[^\W_]+")  # a part's words as FTS5's tokenizer splits them ('create_consumer': create, consumer)


def heading_expression(parts: list[str]) -> str | None:
    """The FTS5 expression matching a passage whose headings hold each word of ``parts`` ('headings : ("huey" AND
    "task")'); None where a part has no word."""
    words = [word for part in parts for word in _WORD.findall(part)]
    if not words or any(not _WORD.search(part) for part in parts):
        return None
    return "headings : (" + " AND ".join(f'"{word}"' for word in dict.fromkeys(words)) + ")"


def unranked_definitions(conn, parts: list[str], ranked: list, filters: Filters) -> list[int]:
    """The chunk ids (within ``filters``, not among ``ranked``) whose headings hold every part of the name
    ``parts``, best first, up to HEADING_DEPTH: the candidates ``symbols.defines`` is asked about."""
    expression = heading_expression(parts)
    if expression is None:
        return []
    where, params = filters.sql(conn)
    held = {hit[0] for hit in ranked}
    found = keyword_reads.keyword_search(conn, expression, (0.0, 1.0, 0.0), where, params, HEADING_DEPTH)
    return [cid for cid, _ in found if cid not in held]
