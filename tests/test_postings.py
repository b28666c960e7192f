"""Keyword postings in memory (search/query/postings.py): the same BM25 as FTS5, kept current across generations."""
from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest

from search.index import chunk_reads, db, keyword_reads
from search.index.schema import TOKENIZER
from search.query import keyword, question
from search.query.engine import Engine
from search.query.filters import Filters
from search.query.text import query_words
from tests.conftest import ingest, write_tree

# Words that Porter stemming leaves as they are, so FTS5's own query and ours name the same terms.
WORDS = ("lake boat harbor wind stone iron cloud river forest meadow copper lantern falcon ember quartz "
         "willow tundra canyon glacier orchid velvet saddle anchor barrel candle dagger ferret goblet "
         "hammer kettle ladder magnet nectar pepper quiver saffron tulip walrus yonder zephyr").split()


def corpus(seed: int, files: int = 60) -> dict[str, str]:
    rng = random.Random(seed)
    tree = {}
    for i in range(files):
        title = " ".join(rng.sample(WORDS, 2))
        sections = [f"## {' '.join(rng.sample(WORDS, 2))}\n\n" + " ".join(rng.choices(WORDS, k=rng.randint(5, 120)))
                    for _ in range(rng.randint(1, 4))]
        tree[f"d{i // 10}/note{i}.md"] = f"# {title}\n\n" + "\n\n".join(sections) + "\n"
    return tree


def fts5_bm25(conn, words: list[str], limit: int) -> list[tuple[int, float]]:
    """FTS5's own ranking of the words OR-ed, with the index's column weights."""
    expression = " OR ".join(f'"{w}"' for w in words)
    weights = ", ".join(map(str, keyword.WEIGHTS))
    rows = conn.execute(f"SELECT rowid, -bm25(chunks_fts, {weights}) AS s FROM chunks_fts "
                        f"WHERE chunks_fts MATCH ? ORDER BY s DESC, rowid LIMIT ?", (expression, limit))
    return [(r[0], r[1]) for r in rows]


def memory_ranking(engine: Engine, words: list[str], limit: int, filters=Filters()) -> list[tuple[int, float]]:
    engine.warm()
    with engine._conn_lock, db.snapshot(engine._connection()) as conn:
        postings = engine._postings
        assert postings.catch_up(conn, engine._catalog[1])
        terms = [t[0] for t in postings.tokens(conn, words)]
        return postings.search(terms, limit, filters)


@pytest.fixture
def index(immediate, tmp_path, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from workers import runtime
    runtime.reset()
    root = write_tree(tmp_path / "notes", corpus(seed=7))
    ingest(root)
    return root, Path(os.environ["SIFT_HOME"]) / "index.db"


def test_scores_equal_fts5_bm25(index):
    """On a single generation (no hidden rows) every score and the order equal FTS5's bm25()."""
    _, path = index
    engine = Engine(path)
    conn = db.connect(path, readonly=True)
    rng = random.Random(1)
    for _ in range(40):
        words = rng.sample(WORDS, rng.randint(1, 2))  # one or two words: nothing dropped as common
        ours, theirs = memory_ranking(engine, words, 30), fts5_bm25(conn, words, 30)
        assert len(ours) == len(theirs) > 0
        assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], rel=1e-5)
        assert {cid for cid, s in ours if s > theirs[-1][1] + 1e-6} <= {cid for cid, _ in theirs}


def test_a_word_twice_by_its_stem_counts_twice_as_in_fts5(index):
    _, path = index
    engine = Engine(path)
    conn = db.connect(path, readonly=True)
    ours = memory_ranking(engine, ["anchor", "anchors"], 10)  # both stem to "anchor"
    theirs = fts5_bm25(conn, ["anchor", "anchors"], 10)
    assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], rel=1e-5)


def test_new_generations_are_read_as_a_delta_and_match_a_fresh_read(index):
    root, path = index
    engine = Engine(path)
    engine.warm()
    first = engine._postings
    (root / "d0/note0.md").write_text("# zeppelin\n\nzeppelin harbor zeppelin\n", encoding="utf-8")  # edit
    (root / "d9").mkdir()
    (root / "d9/new.md").write_text("# zeppelin walrus\n\nA zeppelin over the tundra.\n", encoding="utf-8")  # add
    removed = "d1/note11.md"
    gone_words = [w for w in (root / removed).read_text(encoding="utf-8").split() if w.isalpha()]
    (root / removed).unlink()  # delete
    ingest(root)
    later = engine.search("zeppelin", mode="keyword")
    assert engine._postings is first, "the new rows were added to the postings held, not read again"
    assert {h.path for h in later.hits} == {"d0/note0.md", "d9/new.md"}
    assert later.hits[0].path == "d0/note0.md"
    fresh = Engine(path)
    for words in (["zeppelin"], ["tundra", "walrus"], ["harbor"], gone_words[:2]):
        ours, theirs = memory_ranking(engine, words, 50), memory_ranking(fresh, words, 50)
        assert [cid for cid, _ in ours] == [cid for cid, _ in theirs]
        assert [s for _, s in ours] == pytest.approx([s for _, s in theirs], rel=1e-9)
    assert all(h.path != removed for h in engine.search(" ".join(gone_words[:3]), mode="keyword").hits)


def test_filters_apply_before_the_top_k(index):
    _, path = index
    engine = Engine(path)
    everything = memory_ranking(engine, ["lake"], 1000)
    in_d3 = memory_ranking(engine, ["lake"], 5, Filters(path_prefix="d3/"))
    answer = engine.search("lake", limit=5, mode="keyword", filters=Filters(path_prefix="d3/"))
    assert in_d3 and all(h.path.startswith("d3/") for h in answer.hits)
    assert [h.chunk_id for h in answer.hits] == [cid for cid, _ in in_d3]
    assert len(everything) > len(in_d3)


def test_a_word_fts5_splits_in_two_is_answered_by_fts5_as_a_phrase(index):
    root, path = index
    (root / "split.md").write_text("# split\n\nab cd together, and ab apart from cd.\n", encoding="utf-8")
    ingest(root)
    engine = Engine(path)
    engine.warm()
    answer = engine.search("ab\u19b0cd", mode="keyword")  # New Tai Lue vowel: unicode61 separates, Python does not
    assert [h.path for h in answer.hits] == ["split.md"]


def test_searches_answer_before_the_postings_are_read(index):
    _, path = index
    engine = Engine(path)
    first = engine.search("walrus lantern", mode="keyword")  # the reader starts; FTS5 answers this one
    engine.warm()
    again = engine.search("walrus lantern", mode="keyword")
    assert first.hits and [h.chunk_id for h in first.hits] == [h.chunk_id for h in again.hits]


def test_tokenizer_constant_is_the_one_the_table_uses(index):
    _, path = index
    sql = sqlite3.connect(path).execute("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'").fetchone()[0]
    assert TOKENIZER in sql


def test_chunk_ids_are_never_used_again(index):
    """The postings read only rows above the highest id they hold: a deleted newest chunk's id must not return."""
    root, path = index
    conn = db.connect(path, readonly=True)
    newest_file = conn.execute("SELECT f.path, max(ch.id) FROM chunks ch JOIN files f ON f.id = ch.file").fetchone()
    (root / newest_file[0]).unlink()
    ingest(root)  # publish, then garbage collection deletes that file's rows
    (root / "after.md").write_text("# after\n\nwalrus\n", encoding="utf-8")
    ingest(root)
    first_new = conn.execute("SELECT min(ch.id) FROM chunks ch JOIN files f ON f.id = ch.file "
                             "WHERE f.path = 'after.md'").fetchone()[0]
    assert first_new > newest_file[1]


def test_vectors_are_read_once_and_retired_rows_dropped(immediate, tmp_path, embedder, monkeypatch):
    """After a publish only the new rows' vectors are read; answers equal a fresh engine's."""
    from search.query import vector
    monkeypatch.setattr(vector, "RETIRED_AT_MOST", 0.0)  # compact as soon as rows retire
    root = write_tree(tmp_path / "notes", corpus(seed=3, files=20))
    ingest(root)
    path = Path(os.environ["SIFT_HOME"]) / "index.db"
    reads: list[int] = []  # the id each read of vectors starts after
    read = vector.VectorIndex._read
    monkeypatch.setattr(vector.VectorIndex, "_read", lambda self, conn, newest: (reads.append(self.max_id),
                                                                                  read(self, conn, newest)))
    engine = Engine(path, lambda: embedder)
    engine.warm()
    first_rows, first_max = len(engine._vectors.matrix), engine._vectors.max_id
    (root / "d0/note0.md").write_text("# zeppelin\n\nAn airship floats over the harbor.\n", encoding="utf-8")
    ingest(root)
    answer = engine.search("airship over the water", mode="semantic")
    assert answer.hits[0].path == "d0/note0.md"
    vectors = engine._vectors
    assert len(vectors.matrix) < first_rows + 5, "only the edited file's rows were added"
    assert not vectors.rows.retired(), "the edited file's old rows were dropped"
    assert reads == [0, first_max], "the second read started after the rows already held"
    fresh = Engine(path, lambda: embedder)
    for query in ("airship", "copper lantern by the river", "walrus"):
        ours, theirs = engine.search(query, mode="semantic"), fresh.search(query, mode="semantic")
        assert [h.chunk_id for h in ours.hits] == [h.chunk_id for h in theirs.hits]
        assert [h.score for h in ours.hits] == pytest.approx([h.score for h in theirs.hits], abs=1e-6)


def test_a_delta_that_fails_half_way_is_read_again_whole(index, monkeypatch):
    """A read of new rows that fails (a full temp disk, say) must not leave half-added rows behind."""
    from search.query import postings as postings_module
    root, path = index
    engine = Engine(path)
    engine.warm()
    (root / "d9").mkdir()
    (root / "d9/new.md").write_text("# zeppelin\n\nzeppelin over the tundra\n", encoding="utf-8")
    ingest(root)
    real_read = postings_module.Postings._read

    def full_disk(self, conn, vocab):
        if vocab == "sift_scratch_instances":
            raise sqlite3.OperationalError("database or disk is full")
        return real_read(self, conn, vocab)
    monkeypatch.setattr(postings_module.Postings, "_read", full_disk)
    held = engine._postings
    assert [h.path for h in engine.search("zeppelin", mode="keyword").hits] == ["d9/new.md"]  # FTS5 answered
    assert held.broken  # (a reader was started: it replaces them with postings read whole)
    monkeypatch.setattr(postings_module.Postings, "_read", real_read)
    engine.warm()
    assert [h.path for h in engine.search("zeppelin", mode="keyword").hits] == ["d9/new.md"]
    ids = engine._postings.ids
    assert len(set(ids.tolist())) == len(ids) and (ids[1:] > ids[:-1]).all(), "no row held twice"


def camel(words: list[str]) -> str:
    """Two or more words as one camelCase name ('lake', 'boat' -> 'lakeBoat'): keyword search looks it up whole and
    as its words in a row, a phrase."""
    return words[0] + "".join(w.capitalize() for w in words[1:])


def test_a_phrase_alone_goes_to_fts5_and_the_query_ranks_as_bm25_ranks_it(index):
    """A query with a camelCase name holds a phrase (its words in a row): the postings rank its other words, and
    FTS5's bm25() is asked for the phrase alone (its rows only), never for the whole query (every row holding any
    of its words, the path such a query took before): every score and the same rows as bm25() of the whole query
    (keyword.search), on a single generation, with names whose words stand side by side in some passages and not
    in others, beside prose words common and rare (some dropped as common)."""
    root, path = index
    tree = corpus(seed=11, files=30)
    tree["code/stream.py"] = ("class LakeBoat:\n    '''lake boat harbor: a lake boat and a boat lake'''\n\n"
                              "    def lake_boat(self):\n        return 'lake boat lake boat boat'\n")
    write_tree(root, tree)
    ingest(root)
    engine = Engine(path)
    engine.warm()
    conn = db.connect(path, readonly=True)
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    rng = random.Random(5)
    queries = ["lakeBoat", "how does LakeBoat sail the lake", "boatLake harbor wind",
               "zephyrYonder the lake"]  # the last: a phrase no passage holds, beside a common word
    queries += [" ".join([camel(rng.sample(WORDS, rng.choice((2, 2, 3))))] + rng.sample(WORDS, rng.randint(0, 4)))
                for _ in range(40)]
    asked: list[str] = []
    for query in queries[:4]:  # through the engine: the same hits and scores as an engine of FTS5 alone
        asked.clear()
        engine._connection().set_trace_callback(asked.append)
        answer = engine.search(query, mode="keyword", limit=50)
        engine._connection().set_trace_callback(None)
        plain = Engine(path, keyword_postings=False).search(query, mode="keyword", limit=50)
        ours, theirs = {h.chunk_id: h.score for h in answer.hits}, {h.chunk_id: h.score for h in plain.hits}
        assert set(ours) == set(theirs) and [ours[c] for c in theirs] == pytest.approx(list(theirs.values()), rel=1e-6)
        assert answer.hits and [sql for sql in asked if "bm25(" in sql]
        assert not [sql for sql in asked if "bm25(" in sql and " OR " in sql]
    from search.query.postings import Phrase
    with engine._conn_lock, db.snapshot(engine._connection()) as fast:
        postings = engine._postings
        assert postings.catch_up(fast, engine._catalog[1])
        asked.clear()
        fast.set_trace_callback(asked.append)
        phrases = 0
        for query in queries:
            words = query_words(question.content(query))[:keyword.MAX_TERMS]
            terms = [t[0] if len(t) == 1 else Phrase(w) for w, t in zip(words, postings.tokens(fast, words)) if t]
            phrases += any(isinstance(t, Phrase) for t in terms)
            ours = dict(postings.search(terms, 1000, Filters(), fast))
            theirs = dict(keyword.search(conn, query, 1000, Filters(), total, total))
            assert set(ours) == set(theirs), query
            assert [ours[c] for c in sorted(ours)] == pytest.approx([theirs[c] for c in sorted(theirs)], rel=1e-6)
        fast.set_trace_callback(None)
    assert phrases == len(queries)
    assert not [sql for sql in asked if "bm25(" in sql and " OR " in sql]


def test_matching_asks_fts5_once_and_finds_what_each_candidate_matched(index):
    """keyword_reads.matching (passages whose title holds every word, quoted phrases) matches the expression over the
    whole index once and keeps the candidates: asked with 'rowid IN (candidates)', FTS5 evaluated it once per
    candidate (65 ms per hybrid search at 100,120 passages). The same rows as that form, for titles and phrases."""
    _, path = index
    conn = db.connect(path, readonly=True)
    every = [r[0] for r in conn.execute("SELECT rowid FROM chunks_fts ORDER BY rowid")]
    rng = random.Random(3)
    asked: list[str] = []
    conn.set_trace_callback(asked.append)
    checked = 0
    for _ in range(30):
        a, b = rng.sample(WORDS, 2)
        for expression in (f'title : ("{a}" AND "{b}")', f'"{a} {b}"', f'title : ("{a}")'):
            ids = rng.sample(every, rng.randint(1, len(every)))
            found = keyword_reads.matching(conn, expression, ids)
            marks = ",".join("?" * len(ids))
            conn.set_trace_callback(None)
            each = {r[0] for r in conn.execute(f"SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN "
                                               f"({marks})", [expression, *ids])}
            conn.set_trace_callback(asked.append)
            assert found == each, expression
            checked += bool(found)
    assert checked > 10
    assert asked and not [sql for sql in asked if "rowid IN" in sql]


def test_each_hit_is_matched_for_its_snippet_once(index, monkeypatch):
    """A hit's text is searched for the query's words once: for the words whose stems to check and for its snippet
    alike (each took half of a semantic search's time at 100,120 passages, done twice); the snippets are those made
    from nothing kept."""
    from search.query import snippet as snippets
    _, path = index
    engine = Engine(path)
    engine.warm()
    folded = []
    real = snippets._folded
    monkeypatch.setattr(snippets, "_folded", lambda text, camel=False: folded.append(text) or real(text, camel))
    for query in ("harbor lantern", "walrus", "copper kettle ladder"):
        for kept in (snippets._matches, snippets._shown):
            getattr(kept, "cache_clear", lambda: None)()
        folded.clear()
        answer = engine.search(query, mode="keyword", limit=20)
        assert answer.hits and len(folded) == len({h.chunk_id for h in answer.hits}), query
        rows = {r["id"]: r for r in chunk_reads.hit_rows(db.connect(path, readonly=True), [h.chunk_id for h in answer.hits])}
        for hit in answer.hits:
            for kept in (snippets._matches, snippets._shown):
                getattr(kept, "cache_clear", lambda: None)()
            r = rows[hit.chunk_id]
            fresh = snippets.snippet(r["text"], query, note=True, accept=None,
                                     above=(r["title"] or "", *(r["heading_path"] or "").split(" > ")))
            assert hit.snippet == fresh


def test_tokens_asked_when_the_cache_is_full_are_all_tokenized(monkeypatch):
    """The postings keep the tokens of the words asked (``_TOKEN_CACHE`` at most), and empty the cache when it is
    full: the words of that call that were in it were gone too, and a keyword search raised KeyError once enough
    misspelled words' variants had been asked (notes-en: the 30th query with two slips in a word)."""
    from search.query import postings as postings_module
    monkeypatch.setattr(postings_module, "_TOKEN_CACHE", 3)
    conn = sqlite3.connect(":memory:")
    postings = postings_module.Postings(keyword.WEIGHTS)
    assert postings.tokens(conn, ["running", "columns"]) == [("run",), ("column",)]
    assert postings.tokens(conn, ["columns", "tables", "rows"]) == [("column",), ("tabl",), ("row",)]
