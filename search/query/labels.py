"""A query that is a paper's table, figure or equation by its number ('Table 2', 'Fig. 3b', 'Eq. 4'): the passages
writing it first, in hybrid search.

Such a label has no meaning for the embedding model: in a hybrid search for 'Table 2' abstracts that hold a '2'
and passages near in meaning to 'table' ranked above the paper's page writing 'Table 2. Fracture outcomes' (not
among the first ten), where keyword search, which looks the label up as a phrase both ways ('Fig. 3' as 'Figure
3' too: search.query.references), ranks it among the first."""
from __future__ import annotations

import re

from search.query.passages import Passages
from search.query.question import content
from search.query.references import LABEL, phrases


def labels_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the passages keyword search found that write the label first, in their order, when the query
    is one label (its question's framing words aside), in hybrid search; scores stay as ranked, a note says so."""
    from search.query.reordering import moved_first
    asked = content(query).strip().rstrip("?？!,;")
    if mode != "hybrid" or not ranked or not LABEL.fullmatch(asked.rstrip(".")):
        return ranked
    written = re.compile(r"(?<!\w)(?:" + "|".join(r"\W*".join(map(re.escape, form.split()))
                                                 for form in phrases(asked)) + r")(?![\w/-]|\.\d)", re.IGNORECASE)
    found = [hit for hit in ranked if hit[2][0] is not None]
    rows = read.rows([hit[0] for hit in found])
    writing = [hit for hit in found if hit[0] in rows and written.search(rows[hit[0]]["text"])]
    return moved_first(ranked, writing, notes, f"the passages writing {asked.rstrip('.')}")
