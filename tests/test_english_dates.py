"""A date written in English words, in a query and in the titles of a vault's notes ('Standup March 14'): the note
so titled comes first (titled-first), as it did before dates were also read as ISO (search.query.dates)."""
from __future__ import annotations

import pytest

from tests.conftest import indexed_engine, write_tree

VAULT = {
    "meetings/Standup March 14.md": "# Standup March 14\n\nThe release train is late; the flaky CI job was muted. "
                                    "Alice takes the database migration, Bob the billing export, Carol the on-call "
                                    "rota; the design review moves to Thursday and the retro to Friday afternoon.\n",
    "meetings/Standup March 21.md": "# Standup March 21\n\nThe release went out; nobody touched the CI.\n",
    "journal/Standup log March.md": "# Standup log March\n\n" + "The standup of March 14 ran long. " * 6 + "\n",
}
VAULT.update({f"misc/{name}.md": f"# {name}\n\n{text}\n" for name, text in [
    ("Garden", "Tomatoes need sun and a stake; beans climb the fence."),
    ("Books", "Thinking, Fast and Slow: system one is quick, system two is slow."),
    ("Recipes", "Braise the pork belly for an hour, then reduce the sauce."),
    ("Travel", "Taipei: the palace museum, the night market, Jiufen."),
    ("Fitness", "Squats, bench press and deadlifts three times a week."),
    ("Rent", "A one-bedroom flat, three months' deposit, a slow landlord."),
    ("Coffee", "A flat white at the corner shop; the beans are from Kenya."),
    ("Bike", "The chain skips in third gear; new brake pads in spring."),
    ("Tax", "Send the receipts to the accountant before the deadline."),
    ("Music", "Practise the scales slowly, then the etude at half speed."),
    ("Cat", "The vet says less dry food and more water."),
    ("Car", "Winter tyres on in November, the service every 15,000 km.")]})


@pytest.fixture(params=["postings", "fts5"])
def engine(request, immediate, tmp_path, embedder):
    return indexed_engine(write_tree(tmp_path / "vault", VAULT), "vault", embedder, request.param == "postings")


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["standup March 14", "March 14 standup"])
def test_a_note_titled_with_an_english_date_comes_first_for_that_date(engine, query, mode):
    """'standup March 14' was looked up in titles as 'standup 03-14' alone, which 'Standup March 14' does not
    hold: the journal saying standup and March 14 more often came first, above the note of that standup."""
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == "meetings/Standup March 14.md", [(h.path, h.score) for h in answer.hits[:3]]

