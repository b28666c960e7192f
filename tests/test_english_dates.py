"""A date written in English words, in a query and in the titles of a vault's notes ('Standup March 14'): the note
so titled comes first (titled-first), as it did before dates were also read as ISO (search.query.dates)."""
from __future__ import annotations

import pytest

from search.query.text import query_pieces
from tests.conftest import engine_in, tree_built_once

VAULT = {
    "meetings/Standup March 14.md": "# Standup March 14\n\nThe release train is late; the flaky CI job was muted. "
                                    "Alice takes the database migration, Bob the billing export, Carol the on-call "
                                    "rota; the design review moves to Thursday and the retro to Friday afternoon.\n",
    "meetings/Standup March 21.md": "# Standup March 21\n\nThe release went out; nobody touched the CI.\n",
    "journal/Standup log March.md": "# Standup log March\n\n" + "The standup of March 14 ran long. " * 6 + "\n",
    "meetings/Retro Sep 9.md": "# Retro Sep 9\n\nThe deploy freeze worked; the pager was quiet all week.\n",
    "journal/Retro log September.md": "# Retro log September\n\n" + "The retro of September 9 ran long. " * 6 + "\n",
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


@pytest.fixture(scope="module")
def vault_home(tmp_path_factory, model_path):
    """VAULT indexed once for the module: its tests only search it (each indexed it again)."""
    return tree_built_once(tmp_path_factory, model_path, VAULT, "vault")


@pytest.fixture(params=["postings", "fts5"])
def engine(request, vault_home, model_path, embedder, monkeypatch):
    return engine_in(vault_home, model_path, embedder, monkeypatch, request.param == "postings")


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["standup March 14", "March 14 standup"])
def test_a_note_titled_with_an_english_date_comes_first_for_that_date(engine, query, mode):
    """'standup March 14' was looked up in titles as 'standup 03-14' alone, which 'Standup March 14' does not
    hold: the journal saying standup and March 14 more often came first, above the note of that standup."""
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == "meetings/Standup March 14.md", [(h.path, h.score) for h in answer.hits[:3]]



@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, titled", [("standup Mar 14", "meetings/Standup March 14.md"),
                                           ("retro September 9", "meetings/Retro Sep 9.md")])
def test_a_month_abbreviated_finds_the_note_titled_with_it_in_full_and_the_reverse(engine, query, titled, mode):
    """'standup Mar 14' was looked up in titles as 'standup 03-14' and as written, neither of which 'Standup March
    14' holds: the journal that says standup and 14 more often came first (and 'Retro Sep 9' for 'retro September
    9'). Each English date is now also looked up with its month written the other way."""
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == titled, [(h.path, h.score) for h in answer.hits[:3]]


def dated(query: str) -> dict[str, list[str]]:
    """The query's words that keyword search looks up by more than themselves (a date's other forms)."""
    return {word: terms[1:] for word, terms in query_pieces(query) if len(terms) > 1}


@pytest.mark.parametrize("query", ["retry the upload, it may 5 times fail", "dec 10 in the loop",
                                   "upgrade the IDE to 2024.3.1", "march on", "May 5 people attended",
                                   "March 12 new users signed up", "Apr 31", "Feb 30 deadline", "Feb 29, 2023",
                                   "1.2.3", "python 3.14", "3/4 cup of flour", "1/2/2024", "IntelliJ 2023.10.1"])
def test_a_month_word_that_is_a_common_word_or_a_version_number_is_no_date(query):
    """'may 5', 'dec 10' and '2024.3.1' were read as dates (May 5th, 10 December, 1 March 2024), their month looked
    up as '05 05', '12 10', '2024 03 01' too, and a note titled with that date put first; so were a count after a
    month ('May 5 people': in May, 5 people) and days their month does not have (Apr 31, Feb 30)."""
    assert dated(query) == {}, dated(query)


@pytest.mark.parametrize("query, month, forms", [
    ("May 5 planning", "may", ["05 05", "5 月 5", "5 월 5"]), ("may 5, 2024 planning", "may", ["2024 05 05", "5 月 5", "5 월 5"]),
    ("Dec 10 review", "dec", ["12 10", "12 月 10", "12 월 10", "december 10"]), ("march 14", "march", ["03 14", "3 月 14", "3 월 14", "mar 14"]),
    ("release 2024.03.01", "03", ["2024 03 01", "3 月 1", "3 월 1"]), ("May 5th people", "may", ["05 05", "5 月 5", "5 월 5"]),
    ("Feb 29, 2024", "feb", ["2024 02 29", "2 月 29", "2 월 29", "february 29"]), ("Apr 30", "apr", ["04 30", "4 月 30", "4 월 30", "april 30"]),
    ("14 March 2024 standup", "march", ["2024 03 14", "3 月 14", "3 월 14", "mar 14"]), ("14 Mar", "mar", ["03 14", "3 月 14", "3 월 14", "march 14"]),
    ("the 14th of March", "march", ["03 14", "3 月 14", "3 월 14", "mar 14"]), ("standup 3/14", "3", ["03 14", "3 月 14", "3 월 14", "march 14"]),
    ("standup 14/3", "3", ["03 14", "3 月 14", "3 월 14", "march 14"]), ("3/14/2024", "3", ["2024 03 14", "3 月 14", "3 월 14", "march 14"]),
    ("release 2024.3.14", "3", ["2024 03 14", "3 月 14", "3 월 14"])])
def test_a_month_word_is_a_date_when_capitalised_or_with_a_year_or_a_full_date(query, month, forms):
    assert dated(query) == {month: forms}, dated(query)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["standup 14 March", "standup 14 Mar", "standup 3/14", "standup 14/3"])
def test_a_date_written_day_first_or_with_slashes_finds_the_note_titled_with_it(engine, query, mode):
    """'standup 14 March' and 'standup 3/14' were no dates: the journal saying standup and 14 more often came first."""
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == "meetings/Standup March 14.md", [(h.path, h.score) for h in answer.hits[:3]]
