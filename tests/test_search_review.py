"""Review of the last stop's search code and its leftovers: a snippet marking part of a citekey, a citekey search
ranking the .bib entries above the note that cites it."""
from __future__ import annotations

from search.query.snippet import snippet

ENTRY = ("@mueller2021graph (article)\nSparse Graph Attention for Molecular Property Prediction\n"
         "Jonas Müller, Ana García (2021)")


def test_a_stem_marks_a_whole_word_not_the_start_of_a_citekey():
    """The index reads 'mueller2021graph' as one token, which 'Müller' does not find: the snippet marked its start,
    @**mueller**2021graph, as though search had."""
    shown = snippet(ENTRY, "the paper by Müller on graph attention")
    assert "@mueller2021graph" in shown and "Jonas **Müller**" in shown, shown
    assert snippet("indexing indexed index2 indexes", "indexing") == "**indexing** **indexed** index2 **indexes**"
