"""A '#tag' in a query names a tag, as in Obsidian's tag search: the passages of the notes tagged so (or with a tag
nested in it: '#garden' holds '#garden/tools') come first, in keyword and hybrid search.

A tag's words are in its notes' title column, with their titles and aliases, and ranked there as any word is; where
they are in half of the passages or more ('garden' in a gardener's vault), keyword search gave them no weight and
hybrid search ranked by meaning alone, so a note tagged #garden that says tomatoes and beans came below the notes
that say garden. The tagged notes are found by the tag itself (the index's title column narrows them, their tags
decide), within the search's filters, and those the ranking left out come after the ones it found, scored 0.
"""
from __future__ import annotations

import difflib
import re

from search.index import keyword_reads
from search.query import keyword
from search.query.filters import Filters
from search.query.text import query_terms

# Obsidian's tag: '#' at the start or after a space, then letters, digits, '_', '-', '/'; not digits alone ('#123')
QUERY_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
FOUND = 500  # passages of title-column matches looked at for the tags


# A tag of several words, as Logseq writes one ('#[[performance work]]') and Bear ('#home office#'): ingest.markdown
WORDS_TAG = re.compile(r"(?<!\S)#(?:\[\[([^\[\]\n]{1,200})\]\]"
                       r"|([\w/-][\w/ \t-]{0,200}?[\w/-])(?<![ \t]\w)#(?![\w#]))")


def query_tags(query: str) -> list[str]:
    """The tags a query names ('#project/shed' → 'project/shed', '#[[performance work]]' → 'performance work'),
    casefolded, each once."""
    words = [" ".join((match.group(1) or match.group(2)).split()) for match in WORDS_TAG.finditer(query)]
    found = (tag.strip("/").casefold()
             for tag in [*words, *(match.group(1) for match in QUERY_TAG.finditer(WORDS_TAG.sub(" ", query)))])
    return list(dict.fromkeys(tag for tag in found if tag and not tag.replace("/", "").replace("-", "").isdigit()))


def tagged_first(conn, query: str, ranked: list, mode: str, filters: Filters, catalog) -> tuple[list, list[str]]:
    """(``ranked`` with the passages of the notes tagged as the query says first, the tags that moved or added
    any: [] when nothing changed). Which passages carry a tag is the search's ``catalog``'s (its tags read on the
    first such query): the same index of tags the ``tags`` filter reads (V22's table, or the JSON columns before
    it); a query none of whose tags any file holds is left as it is without looking (the title column's matches
    were ranked by FTS5's bm25() for each such query: 8-20 ms at 100,000 passages)."""
    tags = query_tags(query)
    if mode == "semantic" or not tags:
        return ranked, []
    catalog.load_tags(conn)
    if not any(catalog.held(tag) for tag in tags):
        return ranked, []
    terms = [term for tag in tags for term in query_terms(tag.replace("/", " "))]
    if not terms:
        return ranked, []
    where, params = filters.sql(conn)
    found = [cid for cid, _ in keyword_reads.keyword_search(conn, f"title : ({' OR '.join(terms)})", keyword.WEIGHTS,
                                                            where, params, FOUND)]
    # the ranked passages are looked at too: a tag on thousands of passages has more than FOUND title matches
    looked = list(dict.fromkeys([*(hit[0] for hit in ranked), *found]))
    carrying = {tag: dict(zip(looked, catalog.carrying(looked, tag))) for tag in tags}
    tagged = [cid for cid in looked if any(carrying[tag][cid] for tag in tags)]
    if not tagged:
        return ranked, []
    chosen = set(tagged)
    first = [hit for hit in ranked if hit[0] in chosen]
    shown = {hit[0] for hit in first}
    first += [(cid, 0.0, [None, None]) for cid in found if cid in chosen and cid not in shown]
    moved = first + [hit for hit in ranked if hit[0] not in chosen]
    if [hit[0] for hit in moved] == [hit[0] for hit in ranked]:
        return ranked, []
    return moved, [tag for tag in tags if any(carrying[tag][cid] for cid in tagged)]


def missing(held, tags) -> list[str]:
    """The ``tags`` a filter asks for that no file holds (nor a tag nested in one), each with the nearest tags
    ``held`` (the index's): ['#recipy (tags held near it: #recipe)']; [] when each is held. A tag nested under
    another ('sift' for 'project/sift') is offered by its full name."""
    held = sorted(held)
    said = []
    for tag in tags:
        if any(name == tag or name.startswith(tag + "/") for name in held):
            continue
        near = [name for name in held if name.endswith("/" + tag)][:3]
        near += [name for name in difflib.get_close_matches(tag, held, n=3, cutoff=0.6) if name not in near]
        said.append(f"#{tag}" + (f" (tags held near it: {', '.join('#' + n for n in near[:3])})" if near else ""))
    return said
