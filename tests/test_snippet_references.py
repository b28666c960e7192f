"""A search for 'Section 12.3(b)' ranked the passage citing it first (search.query.references) but its snippet marked
**Section** 12.3(**b**): the numbers, in most passages of a folder of contracts, are words keyword search drops as
common, and the snippet left them unmarked. The reference is marked as written now."""
from __future__ import annotations

import pytest

from search.query.snippet import snippet
from tests.author_helpers import build_notes, engine, home  # noqa: F401 - fixtures

NOTES = {  # '12' and '3' in every passage: common words keyword search drops
    "lease.md": "# Lease\n\nThe tenant may end the lease under Section 12.3(b) after 3 months of arrears.\n",
    "rent.md": "# Rent\n\nRent is paid 12 times a year, by the 3rd day of the month.\n",
    "deposit.md": "# Deposit\n\nThe deposit is 3 months' rent, returned within 12 weeks.\n",
    "notice.md": "# Notice\n\nNotice is 3 months, or 12 weeks for a flat.\n",
}


def _build(folder):
    build_notes(folder, NOTES)


def test_a_clause_reference_is_marked_whole_in_the_snippet(engine):
    answer = engine.search("Section 12.3(b)", mode="keyword")
    assert answer.hits and answer.hits[0].path == "lease.md", [hit.path for hit in answer.hits]
    assert "**12.3(b)**" in answer.hits[0].snippet, answer.hits[0].snippet


@pytest.mark.parametrize("query, marked", [
    ("Section 12.3(b)", "**Section** **12.3(b)**"), ("§ 5 Absatz 2", "**§ 5 Abs. 2**"), ("13.2.3", "**13.2.3**"),
    ("Art. 6 Abs. 1 lit. f", "**Art. 6 Abs. 1 lit. f**")])
def test_a_reference_is_marked_as_written_though_its_words_are_common(query, marked):
    text = "Under Section 12.3(b), see § 5 Abs. 2 BGB, clause 13.2.3 and Art. 6 Abs. 1 lit. f DSGVO."
    assert marked in snippet(text, query, skip=frozenset({"12", "3", "5", "2", "13", "6", "1", "f", "art"}))
