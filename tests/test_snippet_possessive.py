"""A snippet marks what the query asks, as a novelist asks it: "Mara's eye colour" marked every possessive 's of a
character bible (father'**s** reading glasses, the ship'**s** books) and not its **Eyes**, a three-letter word
being marked only as written."""
from __future__ import annotations

from search.query.snippet import snippet

BIBLE = "- Eyes: green, flecked with brown; she wears her late father's reading glasses. Keeps the ship’s books."


def test_a_possessive_s_of_the_query_marks_no_s_of_the_passage():
    shown = snippet(BIBLE, "what colour are the captain's eyes")
    assert "'**s**" not in shown and "’**s**" not in shown, shown
    assert snippet("Mara's eyes and the captain’s boat", "Mara’s boat") == "**Mara**'s eyes and the captain’s **boat**"


def test_a_three_letter_word_marks_its_plural_as_keyword_search_finds_it():
    assert snippet(BIBLE, "Mara's eye colour").startswith("- **Eyes**: green"), snippet(BIBLE, "Mara's eye colour")
    assert "**boxes**" in snippet("two boxes of letters", "box"), snippet("two boxes of letters", "box")
