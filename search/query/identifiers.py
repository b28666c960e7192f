"""A query that is one identifier the embedding model cannot read, a DOI (``10.1016/S2213-8587(20)30001-5``, as a
``https://doi.org/…`` link or ``doi:…`` too) or a paper's table, figure or equation by its number (``Table 2``,
``Fig. 3b``): the passages writing it first, in hybrid search.

Such a query has no meaning for the model: in a hybrid search for 'Fig. 3' abstracts holding a '3' and passages
near in meaning to 'figure' ranked above the paper's page writing 'Figure 3.' (not among the first ten), and for a
DOI pasted as its link an abstract about the paper's subject and another .bib entry came first, the entry holding
it not among the first four; keyword search, which looks either up as a phrase (search.query.references,
search.query.text.doi_phrases), ranked them first. As for a citekey (search.query.citekeys)."""
from __future__ import annotations

import re

from search.index import keyword_reads
from search.query.joined_words import AMONG, writing_pattern, written_whole
from search.query.passages import Passages
from search.query.question import FRAMING, STOPWORDS, content
from search.query.references import LABEL, phrases
from search.query.text import DOI, WORD, normalise

DOI_LINK = re.compile(r"(?:https?://)?(?:dx\.)?doi\.org/(?=10\.)|doi:\s*(?=10\.)", re.IGNORECASE)


def writing_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the passages keyword search found that write the DOI or label first, in their order, when the
    query is one (its question's framing words aside) or holds one among a few other words (the passages keyword
    search found hold those too: 'Table 2 response rates' is the table of response rates, not a note that says
    table, rates and response more often), in hybrid search; those writing an address, host or path the
    query types (``_joined_first``), in keyword search too; scores stay as ranked, a note says so."""
    from search.query.reordering import moved_first
    if mode == "semantic" or not ranked:
        return ranked
    joined = written_whole(query)
    if joined:
        return _joined_first(read, joined, ranked, notes)
    if mode != "hybrid":
        return ranked
    asked = content(query).strip().rstrip("?？!,;")
    bare = DOI_LINK.sub("", asked, count=1).rstrip(".")
    if DOI.fullmatch(bare):
        forms = [" ".join(WORD.findall(normalise(bare)))]
    elif LABEL.fullmatch(asked.rstrip(".")):
        forms = phrases(asked)
    elif "\n" not in query.strip() and len(query.split()) <= AMONG:  # among other words: 'Table 2 response rates'
        dois = [m.group() for m in DOI.finditer(DOI_LINK.sub("", query))]
        labels = [m.group() for m in LABEL.finditer(query)]
        forms = [" ".join(WORD.findall(normalise(doi))) for doi in dois] + [p for label in labels
                                                                           for p in phrases(label)]
        rest = DOI.sub(" ", DOI_LINK.sub("", query))
        others = [w for w in WORD.findall(normalise(LABEL.sub(" ", rest))) if w not in FRAMING | STOPWORDS]
        if not forms:
            return ranked
        bare = " or ".join(dois + labels)
        if others:  # the passages holding every other word of it too: another paper's 'Table 2' is no answer
            holding = keyword_reads.matching(read.conn, " AND ".join(f'"{w}"' for w in dict.fromkeys(others)),
                                             [hit[0] for hit in ranked])
            return moved_first(ranked, _writing(read, [hit for hit in ranked if hit[0] in holding], forms), notes,
                               f"the passages writing {bare}")
    else:
        return ranked
    return moved_first(ranked, _writing(read, ranked, forms), notes, f"the passages writing {bare}")


def _writing(read: Passages, ranked: list, forms: list[str]) -> list:
    """Those of ``ranked`` keyword search found whose text writes one of ``forms`` (a DOI's or label's words)."""
    written = re.compile(r"(?<!\w)(?:" + "|".join(r"\W*".join(map(re.escape, form.split())) for form in forms)
                         + r")(?![\w/-]|\.\d)", re.IGNORECASE)
    found = [hit for hit in ranked if hit[2][0] is not None]
    rows = read.rows([hit[0] for hit in found])
    return [hit for hit in found if hit[0] in rows and written.search(normalise(rows[hit[0]]["text"]))]


def _joined_first(read: Passages, joined: list[str], ranked: list, notes: list[str]) -> list:
    """``ranked`` with the passages keyword search found that write one of the ``joined`` words (addresses, hosts,
    paths: ``joined_words.written_whole``) as written first, in their order: '~/.ssh/authorized_keys' and 'web-01'
    were looked up as their words, anywhere in a passage (a note saying ssh, authorized and keys more often came
    first), and '10.0.3.17:5432' in hybrid search by meaning too, for which its parts apart are as near."""
    from search.query.reordering import moved_first
    patterns = [writing_pattern(token) for token in joined]
    catalog = read.catalog
    named = tuple("/" + token.lstrip("~.").lstrip("/") for token in joined if "/" in token)
    # the file a path names, which an earlier step put first (search.query.reordering.definitions_first), stays
    file_rows = catalog.files([hit[0] for hit in ranked])
    files = {hit[0]: "/" + catalog.paths[row].casefold() for hit, row in zip(ranked, file_rows)}
    found = [hit for hit in ranked if hit[2][0] is not None or (named and files[hit[0]].endswith(named))]
    rows = read.rows([hit[0] for hit in found])
    writing = [hit for hit in found if (named and files[hit[0]].endswith(named)) or hit[0] in rows
               and any(p.search(normalise(rows[hit[0]]["text"])) for p in patterns)]
    return moved_first(ranked, writing, notes, f"the passages writing {' or '.join(map(_shown, joined))}")


def _shown(word: str) -> str:
    """``word`` cut at spelling.SHOWN characters, as keyword search's notes cut a query's word: a pasted path of
    10,000 characters was repeated whole."""
    from search.query.spelling import SHOWN  # here: spelling imports this module
    return word if len(word) <= SHOWN else word[:SHOWN - 1] + "…"
