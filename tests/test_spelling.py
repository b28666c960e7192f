"""A query word no published passage holds is named in a note, with the indexed word it was probably meant to be
(search.query.spelling): keyword search ORs the words, so a typo otherwise goes unsaid."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import built_once, engine_in, indexed_engine, ingest, write_tree

NOTES = {
    "ops/deploy.md": "# Deploying\n\nThe Kubernetes deployment rolls out one pod at a time; a failed deployment "
                     "is rolled back.\n",
    "ops/backup.md": "# Backups\n\nNightly backups of the database go to the storage bucket.\n",
    "工作/周报.md": "# 周报\n\n本周主要推进云仓WMS的验收，合同下周签字。\n",
}
ELSEWHERE = {"cooking.md": "# Pasta\n\nBoil the spaghetti for nine minutes.\n",
             "de.md": "# Übersetzung\n\nDie Übersetzung ist still offen; a banana.\n"}


def two_collections(root: Path) -> None:
    ingest(write_tree(root / "notes", NOTES))
    ingest(write_tree(root / "kitchen", ELSEWHERE), name="kitchen")


@pytest.fixture(scope="module")
def spelling_home(tmp_path_factory, model_path):
    """The two collections indexed once for the module's tests that only search them (each indexed them again)."""
    return built_once(tmp_path_factory, model_path, two_collections)


@pytest.fixture(params=["postings", "fts5"])
def engine(request, spelling_home, model_path, embedder, monkeypatch):
    """Two collections; keyword search from the postings in memory, and from FTS5 itself."""
    return engine_in(spelling_home, model_path, embedder, monkeypatch, request.param == "postings")


@pytest.fixture(params=["postings", "fts5"])
def own_engine(request, immediate, tmp_path, embedder):
    """``engine`` over an index of the test's own, for a test that adds a collection to it."""
    two_collections(tmp_path)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder,
                    keyword_postings=request.param == "postings")
    engine.warm()
    return engine


def spelling_notes(answer) -> list[str]:
    return [n for n in answer.notes if n.startswith("no passage contains")]


def test_misspelled_words_are_named_with_the_indexed_words_meant(engine):
    answer = engine.search("kubernetse deploymnet", mode="hybrid")
    assert spelling_notes(answer) == ["no passage contains 'kubernetse' or 'deploymnet' (did you mean 'Kubernetes', "
                                      "'deployment'?); searched for 'Kubernetes', 'deployment' in their place"], \
        "as the passage writes it"
    assert answer.hits[0].path == "ops/deploy.md" and answer.hits[0].keyword_rank == 1, "no longer by meaning only"
    # a query of misspelled words alone found nothing by keyword, the note saying what was meant: now it is
    # searched as meant, as a search engine's 'showing results for' (test_swapped_letters.py)
    keyword = engine.search("deploymnet", mode="keyword")
    assert [h.path for h in keyword.hits] == ["ops/deploy.md"]
    assert spelling_notes(keyword) == ["no passage contains 'deploymnet' (did you mean 'deployment'?); searched for "
                                       "'deployment' in its place"]
    assert spelling_notes(engine.search("kubernetes deployment", mode="hybrid")) == []
    assert spelling_notes(engine.search("deploying backup", mode="keyword")) == []  # stems of indexed words


def test_the_missing_words_are_given_as_data_too(engine):
    """The note was text only: a caller reading structured results had to parse it for the words and their
    suggestions. Every missing word is listed, as typed, its suggestion None when there is none (or, past the
    first CORRECTED, none was looked for); nothing when every word is somewhere."""
    answer = engine.search("Kubernetse zyxwvut backups", mode="hybrid")
    assert answer.unmatched == [{"word": "Kubernetse", "suggestion": "Kubernetes"},
                                {"word": "zyxwvut", "suggestion": None}]
    assert answer.as_dict()["unmatched"] == answer.unmatched
    many = engine.search("bakcups databse deploymnet kuberntes", mode="keyword").unmatched
    assert [(u["word"], u["suggestion"]) for u in many] == [
        ("bakcups", "backups"), ("databse", "database"), ("deploymnet", "deployment"), ("kuberntes", None)]
    assert engine.search("kubernetes deployment", mode="keyword").unmatched == []
    assert "unmatched" not in engine.search("kubernetes", mode="keyword").as_dict()
    assert engine.search("kubernetse", mode="semantic").unmatched == []  # no keyword search, no note


def test_a_partly_matching_query_names_only_the_missing_word(engine):
    answer = engine.search("nightly bakcups", mode="keyword")
    assert answer.hits[0].path == "ops/backup.md"
    assert spelling_notes(answer) == ["no passage contains 'bakcups' (did you mean 'backups'?)"]


def test_a_word_outside_the_scope_searched_is_no_typo(engine):
    """'spaghetti' is in another collection: only the word in none is named, though neither is in 'notes'."""
    answer = engine.search("spaghetti databse", mode="keyword", filters=Filters(collection="notes"))
    assert spelling_notes(answer) == ["no passage contains 'databse' (did you mean 'database'?)"]


def test_a_word_without_a_near_indexed_word_is_named_without_a_suggestion(engine):
    answer = engine.search("backups zyxwvut", mode="keyword")
    assert spelling_notes(answer) == ["no passage contains 'zyxwvut'"]
    answer = engine.search("zyxwvut bakcups", mode="keyword")
    assert spelling_notes(answer) == ["no passage contains 'zyxwvut' or 'bakcups' (did you mean 'backups' for "
                                      "'bakcups'?); searched for 'backups' in its place"]


def test_only_the_first_few_missing_words_are_looked_up(engine):
    """Each lookup costs 45-100 ms through FTS5, under the engine's lock: a query of many typos named them all
    but looked for a word for each. The first CORRECTED are corrected; the rest are named only."""
    answer = engine.search("bakcups databse deploymnet kuberntes", mode="keyword")
    assert spelling_notes(answer) == ["no passage contains 'bakcups', 'databse', 'deploymnet' or 'kuberntes' (did you "
                                      "mean 'backups' for 'bakcups', 'database' for 'databse', 'deployment' for "
                                      "'deploymnet'?); searched for 'backups', 'database', 'deployment', 'kubernetes' "
                                      "in their place"], "the fourth as searched, as a passage writes it (it was the " \
                                                         "variant 'kubernets', no word): no suggestion was looked for"


def test_chinese_is_named_only_when_none_of_its_bigrams_is_indexed(engine):
    """A Chinese run is searched as its bigrams: one indexed bigram is a match (合同 in 合同条款), whose part that no
    passage holds is named (条款), and a run with none is named whole, never 'corrected'."""
    assert engine.search("合同条款", mode="keyword").hits
    assert spelling_notes(engine.search("合同条款", mode="keyword")) == ["no passage contains '条款'"]
    answer = engine.search("合同 量子物理", mode="keyword")
    assert spelling_notes(answer) == ["no passage contains '量子物理'"]


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_chinese_typo_inside_a_word_is_offered_what_the_passages_write(immediate, tmp_path, embedder, postings):
    """A character typed for one that sounds alike (布龙 for 布隆, 传透 for 穿透) was named, 'no passage contains
    '布龙'', with nothing offered, though the passages held the word a character away. What they write there is
    offered, in their script (庫 for the 裤 of 资料裤, in notes written in Traditional characters)."""
    write_tree(tmp_path / "notes", {"redis.md": "# 缓存\n\n缓存穿透可以用布隆过滤器解决，也可以缓存空值。\n",
                                    "db.md": "# 資料庫設計\n\n設計資料庫時要先畫出 ER 圖。\n",
                                    "other.md": "# 周报\n\n本周主要推进合同的验收。\n",
                                    "胃.md": "# 胃病\n\n治胃病的药要饭后吃。\n"})
    ingest(tmp_path / "notes")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    for query, said in (("布龙过滤器", "no passage contains '布龙' (did you mean '布隆'?)"),
                        ("缓存传透", "no passage contains '传透' (did you mean '穿透'?)"),
                        ("资料裤", "no passage contains '裤' (did you mean '庫'?)"),
                        ("合同条款", "no passage contains '条款'"),  # no passage holds 合同 with one other pair
                        ("治胃病良药", "no passage contains '良药'")):  # not 的药: 良药 is a word, 的 a particle
        answer = engine.search(query, mode="keyword")
        assert spelling_notes(answer) == [said], query
    assert engine.search("布龙过滤器", mode="keyword").unmatched == [{"word": "布龙", "suggestion": "布隆"}]


def test_a_word_two_edits_away_is_found_through_its_stem(engine):
    """No one-edit variant of 'databaas' stems to an indexed term; its stem 'databaa' is one edit from the indexed
    'databas', which passages spell 'database'. It is two slips from 'database' alone (a swap and a letter changed),
    so keyword search looks that up too (``keyword._two_slips``)."""
    answer = engine.search("databaas", mode="keyword")
    assert spelling_notes(answer) == [
        "no passage contains 'databaas' (did you mean 'database'?); searched for 'database' in its place"]


def test_a_huge_missing_word_is_named_cut_short(engine):
    """A pasted blob of 10,000 letters was repeated whole in the note."""
    [said] = spelling_notes(engine.search("backups " + "x" * 10_000, mode="keyword"))
    assert said == "no passage contains '" + "x" * 39 + "…'"


def _statements(conn, run) -> list[str]:
    """The SQL statements ``run()`` executes on ``conn`` (each row of an executemany counts)."""
    said: list[str] = []
    conn.set_trace_callback(said.append)
    try:
        run()
    finally:
        conn.set_trace_callback(None)
    return said


def test_words_of_one_token_each_are_tokenized_in_one_row(engine):
    """The spelling check tokenizes every one-edit variant of a missing word (650 for 12 letters): a row of the
    scratch table each took 29 ms. Words of ASCII letters and digits share a row; others keep one each."""
    from search.index import db
    from search.query.postings import tokenize
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db", readonly=True)
    words = ["Deployment", "running", "e5-small", "café", "", "合同", "x2", "deployment"]
    assert tokenize(conn, words) == [("deploy",), ("run",), ("e5", "small"), ("cafe",), (), ("合同",), ("x2",),
                                     ("deploy",)]
    variants = [f"word{i}" for i in range(600)]
    said = _statements(conn, lambda: tokenize(conn, variants))
    assert sum("INSERT INTO temp.sift_scratch" in s for s in said) == 1
    assert tokenize(conn, variants)[599] == ("word599",)


def test_the_check_without_postings_makes_its_temporary_tables_once(engine):
    """Without the postings in memory each variant's stem is looked up in FTS5: the temporary tables were made
    again (three statements) before every one of the hundreds of lookups."""
    from search.index import db
    from search.query import spelling
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db", readonly=True)
    said = _statements(conn, lambda: spelling.note(conn, "deploymnet", None, "keyword"))
    assert sum(s.startswith("CREATE VIRTUAL TABLE IF NOT EXISTS") for s in said) < 30, len(said)


def test_a_word_typed_with_accents_is_offered_only_a_passage_word_that_has_them(engine):
    """The index folds accents: 'bañana' (a variant of 'mañana' that stems as 'banana') was offered though no
    passage spells it, and 'still' for the Swedish 'ställ' changed the accented letter a person typed on purpose.
    A passage's word with the accents is still offered."""
    assert spelling_notes(engine.search("mañana", mode="keyword")) == ["no passage contains 'mañana'"]
    assert spelling_notes(engine.search("ställ", mode="keyword")) == ["no passage contains 'ställ'"]
    assert spelling_notes(engine.search("übersetzng", mode="keyword")) == [
        "no passage contains 'übersetzng' (did you mean 'Übersetzung'?)"]
    assert spelling_notes(engine.search("stil", mode="keyword")) == [
        "no passage contains 'stil' (did you mean 'still'?)"], "a word typed without accents as before"


def test_words_are_named_as_typed_and_suggested_as_the_passages_write_them(own_engine, tmp_path):
    """The note folded case: 'no passage contains 'geteventbyid' (did you mean 'geteventsbyid'?)' for a
    camelCase identifier, 'postgres' for a name the notes capitalise. What was typed is named as typed, and a
    suggestion is spelled as the passages write it most often (lower case on a tie)."""
    ingest(write_tree(tmp_path / "code", {"api.md": "# API\n\nCall getEventsById from the client; getEventsById "
                                                    "caches. The Postgres pool is shared; deployment is manual.\n"}),
           name="code")
    own_engine.warm()
    assert spelling_notes(own_engine.search("getEventById", mode="keyword")) == [
        "no passage contains 'getEventById' (did you mean 'getEventsById'?); searched for 'getEventsById' in its place"]
    assert spelling_notes(own_engine.search("Postgers pool", mode="keyword")) == [
        "no passage contains 'Postgers' (did you mean 'Postgres'?)"]
    assert spelling_notes(own_engine.search("DEPLOYMNET", mode="keyword")) == [
        "no passage contains 'DEPLOYMNET' (did you mean 'deployment'?); searched for 'deployment' in its place"]


def test_a_word_folded_by_more_than_case_is_still_named_as_typed(engine):
    """Full-width letters, 'ß' and 'İ' fold to other letters ('strasse', 'i' and a combining dot): the note and
    the data named the folded word ('no passage contains 'strasse''), which the query does not hold, so a client
    matching unmatched words against the query's found none."""
    answer = engine.search("ＫＵＢＥＲＮＥＴＳＥ Straße İstanbul", mode="keyword")
    assert [u["word"] for u in answer.unmatched] == ["ＫＵＢＥＲＮＥＴＳＥ", "Straße", "İstanbul"]
    assert answer.unmatched[0]["suggestion"] == "Kubernetes"
    assert spelling_notes(answer) == ["no passage contains 'ＫＵＢＥＲＮＥＴＳＥ', 'Straße' or 'İstanbul' (did you mean "
                                      "'Kubernetes' for 'ＫＵＢＥＲＮＥＴＳＥ'?); searched for 'Kubernetes' in its place"]


def test_a_stub_that_only_stems_alike_is_not_offered(own_engine, tmp_path):
    """'fixme' was offered 'fixe': it drops a letter and stems to 'fix', which passages hold, but no passage
    writes it. A variant no passage was seen to hold is offered only when it adds a letter or swaps two."""
    ingest(write_tree(tmp_path / "code", {"bugs.md": "# Bugs\n\nWe fixed the crash; the fix ships today.\n"}),
           name="code")
    own_engine.warm()
    assert spelling_notes(own_engine.search("fixme", mode="keyword")) == ["no passage contains 'fixme'"]
    assert spelling_notes(own_engine.search("crahs", mode="keyword")) == [
        "no passage contains 'crahs' (did you mean 'crash'?); searched for 'crash' in its place"]


def test_a_question_word_is_not_named_and_a_stems_stub_is_not_offered(own_engine, tmp_path):
    """'what time does the ferry leave' (no framing the keyword side drops: 'what time' asks about time) said 'no
    passage contains 'what', 'time' or 'does' (did you mean 'that' for 'what', 'timet' for 'time'?)' of a note
    saying 'timetable': a question word or an auxiliary is no typo and says nothing, and 'timet' is the stem of
    'timetable', no word: the passage's word is offered ('gener' of 'generation' here: the other collections say
    'time')."""
    ingest(write_tree(tmp_path / "travel", {"ferry.md": "# Ferry\n\nThe ferry leaves hourly; that timetable of "
                                                        "the new generation starts in November.\n"}), name="travel")
    own_engine.warm()
    answer = own_engine.search("what gene does the ferry leave", mode="keyword")
    assert spelling_notes(answer) == ["no passage contains 'gene' (did you mean 'generation'?)"]
    assert answer.unmatched == [{"word": "gene", "suggestion": "generation"}]
    quoted = own_engine.search('what does "does" mean', mode="keyword")
    assert "does" in {u["word"] for u in quoted.unmatched} and "what" not in {u["word"] for u in quoted.unmatched}, \
        "a quoted word is what is asked about"


def test_a_slip_that_keeps_every_typed_letter_wins_over_a_more_frequent_word(own_engine, tmp_path):
    """'macors' is one edit from 'macros' (two letters swapped) and from 'macOS' (a typed letter dropped): the
    stem in most passages won, so a collection about vim that mentions macOS more often than macros was told
    'macOS'. A variant that keeps every typed letter (a swap, a letter added) is preferred before frequency."""
    ingest(write_tree(tmp_path / "vim", {
        "install.md": "# Install\n\nOn macOS, install vim with brew.\n",
        "clipboard.md": "# Clipboard\n\nThe macOS clipboard needs +clipboard.\n",
        "fonts.md": "# Fonts\n\nmacOS ships Menlo.\n",
        "record.md": "# Recording\n\nRecord macros with q; replay macros with @.\n"}), name="vim")
    own_engine.warm()
    assert spelling_notes(own_engine.search("macors", mode="keyword")) == [
        "no passage contains 'macors' (did you mean 'macros'?); searched for 'macros' in its place"]
    assert spelling_notes(own_engine.search("macso", mode="keyword")) == [
        "no passage contains 'macso' (did you mean 'macOS'?); searched for 'macOS' in its place"], "a swap of macOS"


def test_the_part_of_a_chinese_word_no_passage_holds_is_named(engine):
    """Keyword search matches a Chinese run by its pairs of characters, so 区块链合同 found the notes holding 合同
    and said nothing of 区块链, which no passage holds: the results read as if they were about it. The part
    no passage holds is named now; a run whose every character some held pair covers is not (云仓验收: 云仓 and
    验收 are both held, only their join 仓验 is not)."""
    answer = engine.search("区块链合同", mode="keyword")
    assert answer.hits and spelling_notes(answer) == ["no passage contains '区块链'"], answer.notes
    assert answer.unmatched == [{"word": "区块链", "suggestion": None}]
    hybrid = engine.search("区块链合同", mode="hybrid")
    assert spelling_notes(hybrid) == ["no passage contains '区块链'"], "合同 matched: not by meaning only"
    assert spelling_notes(engine.search("云仓验收", mode="keyword")) == []
    assert spelling_notes(engine.search("雲倉驗收", mode="keyword")) == [], "held in the other script"
    assert spelling_notes(engine.search("新合同", mode="keyword")) == ["no passage contains '新'"]
    assert spelling_notes(engine.search("我想知道下周合同签字以后怎么办", mode="keyword")) == [], "a question: no parts"


def test_a_missing_part_is_named_without_the_particle_that_joins_it(engine):
    """'２０２４年３月的周报' was told "no passage contains '月的'": a pair across the 的 that joins two words is in no
    passage though both its characters are. The part is named without it, and a lone character held is not named."""
    assert spelling_notes(engine.search("字的周报", mode="keyword")) == []
    assert spelling_notes(engine.search("区块链的周报", mode="keyword")) == ["no passage contains '区块链'"]



def little_notes(root):
    return write_tree(root, {
        "db.md": "# Readers\n\nReaders of our database never wait for a write: WAL keeps the old pages.\n",
        "retry.py": "import time\n\n\ndef retry():\n    time.sleep(1)\n"})


def test_a_suggestion_is_a_word_a_passage_writes(immediate, tmp_path, embedder):
    """The demo's '"during"' said 'did you mean 'ouring'?': 'ouring', one letter from 'during', stems to 'our', which
    a note holds, and it was offered, and searched, though no passage writes it ('sleeeping' was 'sleepeing',
    stemmed 'sleep', so). A word is offered and searched in place of a typed one only as a passage writes it."""
    root = little_notes(tmp_path / "notes")
    engine = indexed_engine(root, "notes", embedder)
    quoted = engine.search('"during" write', mode="keyword")
    assert quoted.unmatched == [{"word": "during", "suggestion": None}], "quoted: named, never 'ouring'"
    slept = engine.search("sleeeping", mode="keyword")
    assert slept.unmatched == [{"word": "sleeeping", "suggestion": None}] and slept.hits == [], \
        "the passages write 'sleep' alone: four letters away, no word to offer"
    write_tree(root, {"sleep.md": "# Sleep\n\nThe laptop keeps sleeping with the lid shut.\n"})
    engine = indexed_engine(root, "notes", embedder)
    slept = engine.search("sleeeping", mode="keyword")
    assert slept.unmatched == [{"word": "sleeeping", "suggestion": "sleeping"}]
    assert spelling_notes(slept) == ["no passage contains 'sleeeping' (did you mean 'sleeping'?); searched for "
                                     "'sleeping' in its place"]


def test_a_preposition_no_note_writes_is_not_named(immediate, tmp_path, embedder):
    """'readers during a write' (scripts/demo) named 'during', which no sample note writes: a preposition says
    nothing of what is sought, and the note read as a problem with the query. Named only when quoted (above), and
    never looked up as another word."""
    engine = indexed_engine(little_notes(tmp_path / "notes"), "notes", embedder)
    answer = engine.search("readers during a write", mode="hybrid")
    assert spelling_notes(answer) == [] and answer.unmatched == [], "a preposition: nothing to say"
    assert answer.hits[0].path == "db.md"
    alone = engine.search("during", mode="keyword")
    assert alone.hits == [] and alone.unmatched == [], "not searched as 'ouring' (our)"


def test_the_words_asking_which_notes_cite_a_key_are_not_named(immediate, tmp_path, embedder):
    """'which notes cite geobase2004nhn' said "no passage contains 'cite' (did you mean 'city'?)": the words asking
    for the files that cite something (search.query.question.CITING) were looked up as words of the subject, and
    'cite', which no note writes, was corrected. They are the question's form: not named, not corrected; the
    citekey is what is searched. 'cite' alone is still a word no passage holds."""
    root = write_tree(tmp_path / "research", {
        "library.bib": "@techreport{geobase2004nhn,\n  title = {National Hydro Network: Data Model},\n}\n",
        "notes/hydro.md": "# Week 12\n\nThe city gauge data could use linear referencing, as in @geobase2004nhn.\n"})
    engine = indexed_engine(root, "research", embedder)
    for query in ("which notes cite geobase2004nhn", "Which papers mention geobase2004nhn?",
                  "notes citing @geobase2004nhn"):
        answer = engine.search(query, mode="keyword")
        assert answer.unmatched == [] and spelling_notes(answer) == [], (query, answer.notes)
        assert {h.path for h in answer.hits} == {"library.bib", "notes/hydro.md"}, query
    assert engine.search("cite", mode="keyword").unmatched == [{"word": "cite", "suggestion": "city"}]


def test_a_suggestion_is_looked_up_again_once_the_index_changes(immediate, tmp_path, embedder):
    """The note's suggestions are kept per published index (a pasted trace's words were looked up again for every
    trace): one found before a collection is added must not outlive it. 'Postgers' had nothing near before the
    note saying 'Postgres' was indexed, and is offered it after."""
    ingest(write_tree(tmp_path / "notes", {"a.md": "# Backups\n\nNightly backups go to the bucket.\n"}))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    assert spelling_notes(engine.search("Postgers", mode="keyword")) == ["no passage contains 'Postgers'"]
    ingest(write_tree(tmp_path / "code", {"db.md": "# Database\n\nThe Postgres pool is shared.\n"}), name="code")
    assert spelling_notes(engine.search("Postgers", mode="keyword"))[0].startswith(
        "no passage contains 'Postgers' (did you mean 'Postgres'?)")
