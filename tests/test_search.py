"""Hybrid search on a small real index: Chinese, mixed text, proper nouns, stemming,
filters, hostile queries, empty and keyword-only indexes, and a search racing a publish."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from mcp_server import render
from search.query import fusion, keyword
from search.query.answer import SearchError
from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import built_once, in_home, ingest, run_ingest, write_tree

NOTES = {
    "工作/日报/2024-03-01.md": "# 日报\n\n今天和曲美讨论了合同条款，付款方式改为分期。曲美合同下周签字。\n",
    "工作/日报/2024-03-02.md": "# 日报\n\n云仓WMS项目上线，库存同步正常。\n",
    "工作/周报.md": "# 周报\n\n本周主要推进云仓WMS的验收。\n",
    "clients/qumei.md": "# Qumei (曲美)\n\nFurniture client. The contract renewal is due in May.\n",
    "tech/indexing.md": "# Indexing\n\nThe indexer indexes documents; indexed files are searchable.\n",
    "tech/cooking.md": "# Cooking pasta\n\nBoil water, add salt, cook the spaghetti for nine minutes.\n",
    "tech/guitar.md": "# Music\n\nA man is playing an acoustic guitar on the stage.\n",
    "src/cart.py": "class Cart:\n    def add_item(self, item):\n        \"\"\"Add an item to the shopping cart.\"\"\"\n        self.items.append(item)\n",
}

HOSTILE = ['"', '"合同', "合同 AND", "OR", "NOT contract", "NEAR(contract renewal)", "contract*", "^contract",
           "title:contract", "(contract", "contract)", "🙂 contract 🙂", "contract" + " renewal" * 2000,
           "\x00contract", "-contract", "c:o:n", "{contract}", "'; DROP TABLE chunks; --"]


@pytest.fixture(scope="module")
def notes_home(tmp_path_factory, model_path):
    """NOTES indexed once for the module's tests that only search them (``engine``)."""
    return built_once(tmp_path_factory, model_path, lambda folder: ingest(write_tree(folder / "notes", NOTES)))


@pytest.fixture(params=["postings", "fts5"])
def engine(request, notes_home, model_path, embedder, monkeypatch):
    """Each test runs twice: keyword search from the postings in memory, and from FTS5 itself."""
    engine = Engine(in_home(notes_home, model_path, monkeypatch), lambda: embedder,
                    keyword_postings=request.param == "postings")
    engine.warm()
    return engine


@pytest.fixture(params=["postings", "fts5"])
def own_engine(request, immediate, tmp_path, embedder):
    """``engine`` over an index of the test's own (tmp_path/notes), for a test that changes the notes."""
    root = write_tree(tmp_path / "notes", NOTES)
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder,
                    keyword_postings=request.param == "postings")
    engine.warm()
    return engine


def paths(answer):
    return [h.path for h in answer.hits]


@pytest.mark.parametrize("query, expected", [
    ("合同", "工作/日报/2024-03-01.md"),
    ("曲美合同", "工作/日报/2024-03-01.md"),
    ("云仓WMS", "工作/日报/2024-03-02.md"),
    ("库存", "工作/日报/2024-03-02.md"),
])
def test_chinese_words_are_found_inside_longer_runs(engine, query, expected):
    answer = engine.search(query, mode="keyword")
    assert expected in paths(answer)


def test_two_character_word_does_not_match_its_characters_apart(engine):
    assert engine.search("同合", mode="keyword").hits == []  # 合 and 同 occur, never as 同合


def test_whole_cjk_phrase_ranks_first(engine):
    assert paths(engine.search("曲美合同", mode="keyword"))[0] == "工作/日报/2024-03-01.md"


def test_proper_noun_across_scripts(engine):
    answer = engine.search("曲美", mode="keyword")
    assert {"clients/qumei.md", "工作/日报/2024-03-01.md"} <= set(paths(answer))
    assert engine.search("WMS", mode="keyword").hits[0].path.startswith("工作/")


def test_english_stemming(engine):
    answer = engine.search("indexing", mode="keyword")
    assert paths(answer)[0] == "tech/indexing.md"
    assert "**index" in answer.hits[0].snippet.lower()


def test_semantic_finds_meaning_without_shared_words(engine):
    answer = engine.search("someone performing music with a stringed instrument", mode="semantic")
    assert paths(answer)[0] == "tech/guitar.md"
    assert answer.hits[0].semantic_rank == 1 and answer.hits[0].keyword_rank is None


def test_hybrid_fuses_both_rankings_and_reports_them(engine):
    answer = engine.search("how long to cook spaghetti", mode="hybrid")
    top = answer.hits[0]
    assert top.path == "tech/cooking.md"
    assert top.keyword_rank == 1 and top.semantic_rank == 1
    assert answer.generations == {"notes": top.generation}


def test_long_natural_language_query_ranks_by_shared_words(engine):
    query = "what did we agree with the furniture client about the contract renewal date xylophone"
    assert paths(engine.search(query, mode="keyword"))[0] == "clients/qumei.md"


def test_hybrid_without_keyword_hits_scores_by_similarity_and_says_so(engine):
    """No passage holds 'xylophonist' or 'quorum': fused, the nearest by meaning scored 0.5 at the top whatever
    its meaning (scaled to 1 over the candidates), which read as a fair match. The answer is the semantic one,
    with its similarities, and one note says so (the spelling note, or, when the words are outside the folder
    searched, a note of its own)."""
    semantic = engine.search("xylophonist quorum", mode="semantic")
    answer = engine.search("xylophonist quorum")
    assert [(h.chunk_id, h.score) for h in answer.hits] == [(h.chunk_id, h.score) for h in semantic.hits]
    assert answer.notes == ["no passage contains 'xylophonist' or 'quorum'; " + keyword.BY_MEANING]
    scoped = Filters(path_prefix="tech/")
    answer = engine.search("contract renewal", filters=scoped)
    assert answer.hits and answer.hits[0].score == engine.search("contract renewal", mode="semantic", filters=scoped) \
        .hits[0].score < 0.5
    assert answer.notes == ["no passage searched holds any of the query's words: " + keyword.BY_MEANING]
    partly = engine.search("xylophonist spaghetti")
    assert partly.notes == ["no passage contains 'xylophonist'"] and partly.hits[0].keyword_rank == 1


@pytest.mark.parametrize("query", ["how long to cook spaghetti", "contract renewal", "the man on the stage", "合同"])
def test_hybrid_with_keyword_hits_is_the_convex_fusion_of_both_rankings(engine, query):
    """A query with keyword hits ranks and scores as before: fusion.convex of the keyword and the semantic
    ranking (both whole here: the index has fewer passages than the limit, the keyword one scaled from 0)."""
    ranked = fusion.convex(*[[(h.chunk_id, h.score) for h in engine.search(query, 50, mode).hits]
                             for mode in ("keyword", "semantic")], whole=True)
    answer = engine.search(query, 50)
    assert [h.chunk_id for h in answer.hits] == [cid for cid, _, _ in ranked]
    assert [h.score for h in answer.hits] == pytest.approx([score for _, score, _ in ranked], abs=1e-5)


def test_a_page_shows_at_most_two_passages_of_a_file_while_others_match(immediate, tmp_path, embedder):
    """A long list of links (a README naming every note) matched a query by many passages and took the whole
    page from the notes themselves: a page shows two passages of a file, the first saying how many more ranked
    among them; a search of that file alone still shows them all."""
    links = "\n\n".join(f"## Section {n}\n\n* [Contract renewal {n}](c{n}.md)\n* [Contract terms {n}](c{n}.md)"
                         for n in range(8))
    notes = {f"c{n}.md": f"# Client {n}\n\nThe contract renewal with client {n} is due in May.\n" for n in range(4)}
    ingest(write_tree(tmp_path / "notes", {"README.md": "# Index\n\n" + links + "\n", **notes}))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    for mode in ("keyword", "hybrid", "semantic"):
        every = engine.search("contract renewal", limit=6, mode=mode, filters=Filters(path_prefix="README.md"))
        assert len(every.hits) == 6 and all(h.more_in_file == 0 for h in every.hits), mode
        page = engine.search("contract renewal", limit=6, mode=mode)
        readme = [h for h in page.hits if h.path == "README.md"]
        assert len(readme) == 2 and {h.path for h in page.hits} >= set(notes), (mode, paths(page))
        assert readme[0].more_in_file > 0 and readme[1].more_in_file == 0, mode
    lines = render.hits_text([render.hit_data(h) for h in page.hits])
    assert f"+ {readme[0].more_in_file} more passages of this file matched" in "\n".join(lines)


def test_the_search_that_shows_a_root_file_s_passages_keeps_to_that_file(immediate, tmp_path, sift_env):
    """The search given for the passages left off of a file at the collection's root named it by a bare glob
    ('Index.md'), which matches that name in every folder: with an older copy in old/, that search showed both
    files, two passages each, and the passages it promised stayed off. './Index.md' is the root's alone."""
    links = "\n\n".join(f"## Section {n}\n\n* [Contract renewal {n}](c{n}.md)" for n in range(8))
    notes = {f"c{n}.md": f"# Client {n}\n\nThe contract renewal with client {n} is due in May.\n" for n in range(4)}
    ingest(write_tree(tmp_path / "notes", {"Index.md": "# Index\n\n" + links + "\n", "old/Index.md": "# Old index\n\n"
                                           + links + "\n", **notes}))
    shown = run_ingest(sift_env, "search", "contract renewal", "--limit", "6").stdout
    line = next(line for line in shown.splitlines() if "more passages of this file" in line)
    glob = line.rsplit("--glob ", 1)[1].removesuffix(" to see them").strip("'")
    again = run_ingest(sift_env, "search", "contract renewal", "--limit", "20", "--collection", "notes",
                       "--glob", glob).stdout
    listed = [line for line in again.splitlines() if line[:3].strip().rstrip(".").isdigit()]
    first = next(line for line in shown.splitlines() if line[:3].strip().rstrip(".").isdigit())
    assert first.split()[1].startswith("notes/Index.md:"), shown  # the hint line is under its first hit
    assert len(listed) == 8 and all(line.split()[1].startswith("notes/Index.md:") for line in listed), again


def test_ingest_search_names_the_flags_that_show_a_file_s_passages_left_off(immediate, tmp_path, sift_env):
    """`ingest search` said '(read_file shows the file)' of the passages of a file left off its page, as the MCP
    tool did before it gave the search's arguments: it gives the flags, and that search shows them all."""
    links = "\n\n".join(f"## Section {n}\n\n* [Contract renewal {n}](c{n}.md)" for n in range(8))
    notes = {f"c{n}.md": f"# Client {n}\n\nThe contract renewal with client {n} is due in May.\n" for n in range(4)}
    ingest(write_tree(tmp_path / "notes", {"Index [2024].md": "# Index\n\n" + links + "\n", **notes}))
    shown = run_ingest(sift_env, "search", "contract renewal", "--limit", "6").stdout
    line = next(line for line in shown.splitlines() if "more passages of this file" in line)
    assert line.endswith("search again with --collection notes --glob './Index [[]2024].md' to see them"), shown
    again = run_ingest(sift_env, "search", "contract renewal", "--limit", "20", "--collection", "notes",
                       "--glob", "./Index [[]2024].md").stdout
    listed = [line for line in again.splitlines() if line[:3].strip().rstrip(".").isdigit()]
    assert len(listed) == 8 and all("notes/Index [2024].md" in line for line in listed), again


RUNNERS = {"a.md": "# Morning\n\nRunning by the river before work.\n", "b.md": "# Evening\n\nRunning with the dog.\n",
           "c.md": "# Weekend\n\nRunning up the hill, walking down.\n", "d.md": "# Plan\n\nMarathon training plan.\n",
           "e.md": "# Shoes\n\nWalking in new boots.\n", "f.md": "# Rest\n\nWalking and stretching.\n"}


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_common_words_are_dropped_by_their_stem_on_both_paths(immediate, tmp_path, embedder, postings):
    """'running' is indexed as 'run', in half the notes: a longer query drops it from postings and from FTS5
    alike (FTS5 looked up the unstemmed 'running', found it in none, kept it and listed every run); and a query
    whose only rarer word is in no note keeps its common words on both paths (FTS5 kept the missing word alone)."""
    ingest(write_tree(tmp_path / "notes", RUNNERS))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    answer = engine.search("running marathon training", mode="keyword")
    assert paths(answer) == ["d.md"]
    snippets = [h.snippet for h in engine.search("running marathon training", mode="semantic").hits]
    assert any("Running" in s for s in snippets) and not any("**Running**" in s for s in snippets), snippets
    assert set(paths(engine.search("running walking xylophonist", mode="keyword"))) == set(RUNNERS) - {"d.md"}


@pytest.mark.parametrize("mode", ["semantic", "hybrid", "keyword"])
def test_snippets_do_not_mark_the_common_words_keyword_search_drops(engine, mode):
    """'the' is in half the notes: keyword search leaves it out of a longer query, and a snippet marking it in
    every line is noise in an assistant's context (a semantic hit marked every 'the', 'a' and 'I')."""
    top = engine.search("the man on the stage", mode=mode).hits[0]
    assert top.path == "tech/guitar.md"
    assert "**man**" in top.snippet and "**stage**" in top.snippet, top.snippet
    assert "**the**" not in top.snippet.lower(), top.snippet
    assert "**the**" in engine.search("the stage", mode=mode).hits[0].snippet, "a short query marks every word"


@pytest.mark.parametrize("filters, allowed", [
    (Filters(path_prefix="工作/日报/"), lambda p: p.startswith("工作/日报/")),
    (Filters(kind="code"), lambda p: p.endswith(".py")),
    (Filters(collection="notes"), lambda p: True),
])
def test_filters_apply_before_top_k(engine, filters, allowed):
    for mode in ("keyword", "semantic", "hybrid"):
        answer = engine.search("合同 contract cart 日报", limit=3, mode=mode, filters=filters)
        assert answer.hits, mode
        assert all(allowed(h.path) for h in answer.hits), mode


def test_modified_filters(own_engine, tmp_path):
    engine = own_engine
    old = time.time() - 86400 * 30
    os.utime(tmp_path / "notes" / "tech/cooking.md", (old, old))
    ingest(tmp_path / "notes")
    recent = engine.search("spaghetti pasta", mode="keyword", filters=Filters(modified_after=time.time() - 3600))
    assert "tech/cooking.md" not in paths(recent)
    older = engine.search("spaghetti pasta", mode="keyword", filters=Filters(modified_before=time.time() - 3600))
    assert paths(older) == ["tech/cooking.md"]


def test_unknown_collection_filter_gives_nothing(engine):
    assert engine.search("contract", filters=Filters(collection="nope")).hits == []


def test_an_empty_collection_name_is_refused_in_every_mode(engine):
    for mode in ("hybrid", "keyword", "semantic"):
        with pytest.raises(SearchError, match="collection is empty"):
            engine.search("contract", mode=mode, filters=Filters(collection=""))


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_are_safe_and_still_match_their_words(engine, query):
    if not any(ch.isalnum() for ch in query):
        with pytest.raises(SearchError, match="no words, only punctuation"):
            engine.search(query, mode="keyword")
        return
    answer = engine.search(query, mode="keyword")
    if any(w in query.lower() for w in ("contract", "合同")):
        assert answer.hits, query
        assert answer.hits[0].path in ("clients/qumei.md", "工作/日报/2024-03-01.md")


def test_words_past_those_keyword_search_uses_are_noted(engine):
    many = " ".join(f"w{i}" for i in range(100))
    cut = engine.search(many + " contract", mode="keyword")
    assert any("first 64 different words" in note for note in cut.notes)
    assert paths(engine.search("contract " + many, mode="keyword"))[0] == "clients/qumei.md"
    assert engine.search("the contract renewal", mode="keyword").notes == []


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_a_query_of_only_punctuation_is_refused_as_having_no_words(engine, mode):
    """Keyword search found nothing for it, and semantic and hybrid answered passages ranked by the vector of
    '?!...'."""
    for query in ("*** ^^^ ()", "?!...", "？！。。"):
        with pytest.raises(SearchError, match="no words, only punctuation"):
            engine.search(query, mode=mode)
    assert engine.search("🙂 contract", mode=mode).hits


def test_a_keyword_search_of_emoji_alone_says_keyword_search_cannot_look_them_up(engine):
    """'🚀' is allowed (meaning can match it), but keyword search holds letters and digits only: the answer was a
    bare 'no results', as if no note mentioned a rocket."""
    said = engine.search("🚀 ✅", mode="keyword")
    assert said.hits == []
    assert said.notes == ["keyword search finds words and numbers, not emoji or other symbols: '🚀 ✅' has nothing it "
                          "can look up (mode 'hybrid' or 'semantic' matches it by meaning)"], said.notes
    assert engine.search("🚀", mode="hybrid").hits, "by meaning it finds passages, and says nothing of keywords"
    assert not any("emoji" in n for n in engine.search("🙂 contract", mode="keyword").notes)


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_a_letter_that_case_folds_to_a_combining_mark_is_found(immediate, tmp_path, embedder, postings):
    """Case folding turns İ into i and a combining dot (U+0307), which FTS5 keeps inside the word (and drops)."""
    ingest(write_tree(tmp_path / "notes", {"trip.md": "# Trip\n\nFlights to İstanbul and İzmir.\n",
                                           "other.md": "# Other\n\nNothing about cities.\n"}))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    for query in ("İstanbul", "istanbul", "İZMİR", "ǰ İstanbul"):
        assert paths(engine.search(query, mode="keyword")) == ["trip.md"], query


@pytest.mark.parametrize("bad", [dict(query=""), dict(query="x", limit=0), dict(query="x", limit=51),
                                 dict(query="x", mode="fuzzy")])
def test_bad_requests_get_clear_errors(engine, bad):
    with pytest.raises(SearchError):
        engine.search(**bad)


def test_empty_index(sift_env, tmp_path, embedder):
    from search.index import db
    db.connect(tmp_path / "home" / "index.db").close()
    engine = Engine(tmp_path / "home" / "index.db", lambda: embedder)
    assert engine.search("anything").hits == []


def test_before_the_first_publish_no_mode_blames_embeddings(sift_env, tmp_path, embedder):
    """A collection registered and still being built (sift-mcp --root at its first start) is not a keyword-only index."""
    from search.index import db, store
    conn = db.connect(tmp_path / "home" / "index.db")
    store.ensure_collection(conn, "notes", str(tmp_path))
    conn.close()
    engine = Engine(tmp_path / "home" / "index.db", lambda: embedder)
    for mode in ("hybrid", "keyword", "semantic"):
        answer = engine.search("anything", mode=mode)
        assert answer.hits == [] and len(answer.notes) == 1, mode
        assert "nothing is searchable yet" in answer.notes[0] and "SIFT_EMBEDDINGS" not in answer.notes[0]
    with pytest.raises(SearchError, match="no passage with chunk id 1 in the published index"):
        engine.similar(chunk_id=1)
    # a whole number beyond SQLite's integers was told it 'must be a whole number as search results give it'
    with pytest.raises(SearchError, match="^no passage with chunk id 100000000000000000000 in the published index"):
        engine.similar(chunk_id=10 ** 20)


def test_a_collection_not_published_yet_beside_a_published_one_says_so(immediate, tmp_path, embedder):
    from search.index import db, store
    ingest(write_tree(tmp_path / "notes", NOTES))
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    store.ensure_collection(conn, "new", str(tmp_path))  # sift-mcp --root NEW: registered, its build to come
    conn.close()
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    for mode in ("hybrid", "keyword", "semantic"):
        answer = engine.search("contract", mode=mode, filters=Filters(collection="new"))
        assert answer.hits == [] and len(answer.notes) == 1, mode
        assert "nothing is searchable in 'new' yet" in answer.notes[0]
    assert engine.search("contract", filters=Filters(collection="notes")).notes == []


def test_keyword_only_index_answers_hybrid_with_keyword(immediate, tmp_path, monkeypatch):
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    ingest(write_tree(tmp_path / "notes", NOTES))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", embedder_loader=None)
    answer = engine.search("合同")
    assert answer.mode == "keyword" and answer.notes and paths(answer)[0] == "工作/日报/2024-03-01.md"
    with pytest.raises(SearchError, match="no embeddings"):
        engine.search("合同", mode="semantic")


def test_a_keyword_only_collection_beside_one_with_embeddings_is_said_so(immediate, tmp_path, monkeypatch,
                                                                         embedder):
    from workers import runtime
    ingest(write_tree(tmp_path / "vectors", {"a.md": "# A\n\nA man plays guitar on the stage.\n"}), "vectors")
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    ingest(write_tree(tmp_path / "words", {"b.md": "# B\n\nAn acoustic guitar concert.\n"}), "words")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    with pytest.raises(SearchError, match="'words' has no embeddings"):
        engine.search("guitar", mode="semantic", filters=Filters(collection="words"))
    hybrid = engine.search("guitar", filters=Filters(collection="words"))
    assert hybrid.mode == "keyword" and paths(hybrid) == ["b.md"] and "keyword-only" in hybrid.notes[0]
    everywhere = engine.search("guitar", mode="semantic")
    assert paths(everywhere) == ["a.md"] and len(everywhere.notes) == 1 and "words" in everywhere.notes[0]


def test_search_racing_a_publish_answers_from_one_generation(own_engine, tmp_path):
    engine = own_engine
    root = tmp_path / "notes"
    stop = threading.Event()
    seen: list[tuple] = []
    errors: list[BaseException] = []

    def searcher():
        while not stop.is_set():
            try:
                answer = engine.search("日报 合同 WMS", limit=10, mode="hybrid")
                seen.append((answer.generations["notes"], frozenset(paths(answer)),
                             {h.generation for h in answer.hits}))
            except BaseException as exc:  # noqa: BLE001 - any error fails the test below
                errors.append(exc)

    thread = threading.Thread(target=searcher)
    thread.start()
    for i in range(3):
        (root / f"工作/日报/2024-04-0{i + 1}.md").write_text(f"# 日报\n\n合同第{i}版，WMS 测试。\n", encoding="utf-8")
        ingest(root)
        _searched_since(seen, errors, len(seen), 2)  # the searcher ran on after this publish, not only during it
    stop.set()
    thread.join()
    assert not errors
    assert len({g for g, _, _ in seen}) >= 2, "the searches saw more than one generation"
    by_generation: dict[int, set] = {}
    for generation, found, hit_generations in seen:
        assert hit_generations <= {generation}, "every hit comes from the generation that answered"
        by_generation.setdefault(generation, set()).add(found)
    assert all(len(results) == 1 for results in by_generation.values()), "one generation, one answer"


def _searched_since(seen: list, errors: list, before: int, searches: int, timeout: float = 60.0) -> None:
    """Wait until the searcher thread has answered ``searches`` more times (it can be starved of the GIL while a
    build runs, and then saw one generation only)."""
    deadline = time.monotonic() + timeout
    while len(seen) < before + searches and not errors and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_query_asked_again_in_another_mode_is_embedded_once(immediate, tmp_path, embedder):
    ingest(write_tree(tmp_path / "notes", NOTES))
    embedded: list[str] = []

    class Counting:
        info = embedder.info

        def embed(self, texts, kind="passage"):
            assert kind == "query", "the engine embeds queries as queries (the model's query prefix)"
            embedded.extend(texts)
            return embedder.embed(texts, kind)

    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: Counting())
    semantic = engine.search("a stringed instrument on stage", mode="semantic")
    hybrid = engine.search("a stringed instrument on stage", mode="hybrid")
    engine.search("boil the pasta", mode="semantic")
    assert embedded == ["a stringed instrument on stage", "boil the pasta"]
    assert semantic.hits[0].path == hybrid.hits[0].path == "tech/guitar.md"


@pytest.mark.parametrize("query", ["\u200b", "\ufeff \u200b", "\u2060\u00ad", "\u200e\t\u3000", "\x00\x01"])
def test_a_query_of_invisible_characters_is_empty(engine, query):
    """Zero-width spaces, a BOM, joiners, direction marks and control characters show nothing to search for:
    the query is refused as empty in every mode, not answered with passages the vectors rank for nothing."""
    for mode in ("keyword", "semantic", "hybrid"):
        with pytest.raises(SearchError, match="the query is empty"):
            engine.search(query, mode=mode)


def test_a_time_range_that_ends_before_it_starts_is_refused(engine):
    """modified_after later than modified_before can match no file: say so rather than answer 'no passages'."""
    day = 86400.0
    for mode in ("keyword", "semantic", "hybrid"):
        with pytest.raises(SearchError, match="modified_after .* is later than modified_before"):
            engine.search("contract", mode=mode, filters=Filters(modified_after=time.time(),
                                                                  modified_before=time.time() - 365 * day))
    assert engine.search("contract", mode="keyword", filters=Filters(modified_after=time.time() - day,
                                                                     modified_before=time.time() + day)).hits


def test_the_same_date_as_both_ends_of_the_range_is_refused_with_the_day_after(engine):
    """modified_after = modified_before = '2024-03-01' (files modified that day, as a model may ask) is an empty
    range, modified_before leaving its moment out: it answered 'no passages match: try other words'."""
    from datetime import datetime
    day = datetime(2024, 3, 1).timestamp()  # the MCP tool and the command line read a date as local midnight
    for mode in ("keyword", "semantic", "hybrid"):
        with pytest.raises(SearchError, match=r"modified_after and modified_before are the same moment .* give "
                                              r"modified_before the day after \(2024-03-02\)"):
            engine.search("contract", mode=mode, filters=Filters(modified_after=day, modified_before=day))


def test_a_heading_with_nothing_under_it_is_no_passage_but_its_words_still_find_the_file(immediate, tmp_path,
                                                                                          embedder):
    """'## Stash' right above its sibling '## Rebase' (or a shallower heading) made a passage of heading lines
    only, which took a result slot for any query with the heading's words. It now opens the section below it:
    no published passage is only headings, the heading's words still find the note, at lines that hold them."""
    from search.index import db
    from search.query import reader
    note = "# Git tips\n\n## Undo\nreset --soft keeps the changes\n\n## Stash\n## Rebase\nrebase moves commits\n" \
           "\n### Squash\n# Appendix\nlinks to the manual\n## Aliases\n"
    ingest(write_tree(tmp_path / "notes", {"git.md": note, "other.md": "# Other\n\nNothing about git.\n"}))
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    chunks = [c for c in reader.visible_chunks(conn) if c["path"] == "git.md"]
    conn.close()
    for chunk in chunks:
        assert any(line.strip() and not line.lstrip().startswith("#") for line in chunk["text"].split("\n")), \
            f"a passage of headings only: {chunk['text']!r}"
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    lines = note.split("\n")
    for word, line in (("stash", "## Stash"), ("squash", "### Squash"), ("aliases", "## Aliases")):
        [hit] = engine.search(word, mode="keyword").hits
        assert hit.path == "git.md" and line in lines[hit.start_line - 1:hit.end_line], word


def test_the_time_taken_is_given_as_precisely_as_it_is_known():
    """took_ms had two decimals ('1853.78 ms', '11.78 ms'): noise, as the same search varies by more. Tenths
    under 10 ms, whole milliseconds (an int, printed without '.0') above."""
    from search.query.answer import took_ms
    slow = took_ms(time.perf_counter() - 1.8537)
    assert isinstance(slow, int) and 1853 <= slow <= 1900, slow
    fast = took_ms(time.perf_counter() - 0.00312)
    assert fast == round(fast, 1) and 3.1 <= fast < 10, fast
    assert isinstance(took_ms(time.perf_counter() - 0.00998), int), "9.98 ms rounds to 10: no '10.0'"


@pytest.mark.parametrize("postings", [True, False])
def test_a_chinese_word_finds_its_form_in_the_other_script(immediate, tmp_path, embedder, postings):
    """Notes mix Simplified and Traditional Chinese (a note copied from a Taiwanese page, one typed on a
    Traditional keyboard): 资料 found nothing in a note writing 資料, and said nothing either, since 资料 was in
    another note. A Chinese word is looked up in both scripts now, its matches marked in either."""
    root = write_tree(tmp_path / "notes", {
        "學習/資料結構.md": "# 資料結構筆記\n\n關聯式資料庫的正規化可以減少資料重複。\n",
        "学习/数据库.md": "# 数据库\n\n索引与资料的整理。\n",
        "生活/旅行.md": "# 旅行\n\n成都的火锅很好吃。\n",
        # 资料 (資料) is held in one script, so two notes of five hold it: under the half that makes it say nothing
        "生活/跑步.md": "# 跑步\n\n周日跑了十公里。\n", "生活/读书.md": "# 读书\n\n这个月读了两本小说。\n"})
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    answer = engine.search("资料", mode="keyword")
    assert set(paths(answer)) == {"學習/資料結構.md", "学习/数据库.md"}, paths(answer)
    traditional = next(h for h in answer.hits if h.path == "學習/資料結構.md")
    assert "**資料**庫" in traditional.snippet, traditional.snippet
    assert paths(engine.search("資料", mode="keyword", filters=Filters(path_prefix="学习")))[0] == "学习/数据库.md"
    assert paths(engine.search("火鍋", mode="keyword")) == ["生活/旅行.md"]
    assert not answer.notes and not engine.search("雲倉", mode="keyword").hits


@pytest.mark.parametrize("postings", [True, False])
def test_a_chinese_word_finds_its_traditional_forms_other_than_openccs_first(immediate, tmp_path, embedder, postings):
    """Traditional text writes some characters as Simplified does, or in another of their forms: Taiwan writes 台灣
    (OpenCC: 臺灣), 麵條 (面條), Hong Kong 這裏 (這裡). 台湾出版社 found the note writing 台灣出版社 by 出版社 alone
    and marked 台**灣出版社**; 面条 found nothing. Each character is looked up in any of its forms now."""
    root = write_tree(tmp_path / "notes", {
        "讀書.md": "# 讀書筆記\n\n這本書從台灣出版社買的。\n",
        "食譜.md": "# 食譜\n\n牛肉麵條要煮八分鐘。\n",
        "香港.md": "# 旅行\n\n這裏的茶餐廳很好。\n",
        "其他.md": "# 其他\n\n今天天气很好。\n"})
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    found = engine.search("台湾", mode="keyword")
    assert paths(found) == ["讀書.md"] and "**台灣**" in found.hits[0].snippet, [h.snippet for h in found.hits]
    assert paths(engine.search("面条", mode="keyword")) == ["食譜.md"]
    assert paths(engine.search("这里", mode="keyword")) == ["香港.md"]
    assert not engine.search("台湾", mode="keyword").notes


@pytest.mark.parametrize("postings", [True, False])
def test_a_quoted_chinese_phrase_finds_the_passages_that_hold_it_as_written(immediate, tmp_path, embedder, postings):
    """A quoted "付款方式" was searched as its bigrams alone, so notes holding only 方式 (or 付款) came after the one
    holding the phrase, as if the quotes were not there. A quoted Chinese phrase now keeps the passages holding
    it as written (in either script); when none does, all stay and a note says so."""
    root = write_tree(tmp_path / "notes", {
        "日报.md": "# 日报\n\n和曲美讨论了合同条款，付款方式改为分期。\n",
        "治疗.md": "# 治疗\n\n根据医生的建议决定治疗方式。\n",
        "付款.md": "# 付款\n\n下个月付款，方式另议。\n",
        "推荐.md": "# 評審\n\n「智能推薦」先做測試。\n",
        "缓存.md": "# 缓存\n\n推荐用 allkeys-lru。\n",
        **{f"其他{i}.md": f"# 其他 {i}\n\n今天天气很好。\n" for i in range(8)}})
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    assert set(paths(engine.search("付款方式", mode="keyword"))) == {"日报.md", "付款.md", "治疗.md"}
    for query in ('"付款方式"', "“付款方式”", "「付款方式」"):
        answer = engine.search(query, mode="keyword")
        assert paths(answer) == ["日报.md"] and not answer.notes, (query, paths(answer), answer.notes)
    assert paths(engine.search("「智能推荐」", mode="keyword")) == ["推荐.md"]
    missing = engine.search('"方式付款"', mode="keyword")
    assert len(missing.hits) == 3 and missing.notes == [
        'no passage found holds "方式付款" as quoted: the results are those holding some of its words']


def test_a_long_chinese_question_is_told_what_a_word_is_when_it_is_cut(engine):
    """A Chinese question of 70 characters was told 'keyword search used the query's first 64 different words',
    though it holds perhaps twenty words: keyword search counts each pair of neighbouring characters."""
    question = "我想知道合同条款里面的付款方式是不是已经改成分期付款了如果已经改了那么第一笔款项什么时候到账以及尾款在验收之后多久结清比较合适呢请帮我查一下"
    notes = engine.search(question, mode="keyword").notes
    assert any("first 64 different words (each pair of neighbouring Chinese or Japanese characters is one" in n
               for n in notes), notes


def test_a_note_snippet_leaves_out_markdown_marks_and_code_keeps_its_comments(immediate, tmp_path, embedder):
    """A note's heading '#', table rule and code fence lines said nothing in a one-line snippet ('# Kiwi plan |
    fruit | count | |---|---:| …'); in code, and inside a note's fence, a '#' starts a comment and stays."""
    root = write_tree(tmp_path / "notes", {
        "plan.md": "# Kiwi plan\n\n| fruit | count |\n|---|---:|\n| kiwi | 3 |\n\n```bash\n# kiwi comment\n```\n",
        "grow.py": "# kiwi grows here\nx = 1\n", "seeds.py": "def plantKiwiSeeds():\n    pass\n"})
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    snippets = {h.path: h.snippet for h in engine.search("kiwi", mode="keyword").hits}
    # the heading 'Kiwi plan' is the title shown above the snippet: left out of it
    assert snippets["plan.md"] == "| fruit | count | | **kiwi** | 3 | # **kiwi** comment"
    assert snippets["grow.py"] == "# **kiwi** grows here x = 1"
    assert snippets["seeds.py"] == "def plant**Kiwi**Seeds(): pass", "a camelCase name's word, as search found it"




GERMAN = {"skript.md": "# Geometrie\n\nEine reguläre Überlagerung ist ein Homöomorphismus auf jeder Faser. Die Größe "
                       "der Faser heißt Blätterzahl.\n",
          "alt.md": "# Alte Schreibweise\n\nDie Fundamentalgruppe wirkt auf der Ueberlagerung durch "
                    "Decktransformationen.\n",
          "other.md": "# Unrelated\n\nA queue of blue boats.\n"}


@pytest.mark.parametrize("postings", [True, False], ids=["postings", "fts5"])
def test_german_typed_without_umlauts_finds_the_text_with_them_and_the_other_way_round(
        immediate, tmp_path, embedder, postings):
    """'Ueberlagerung' found nothing in a German script that writes 'Überlagerung' (no passage contains it, said
    the note), nor 'Überlagerung' a text that writes 'Ueberlagerung': a German word is looked up both ways."""
    ingest(write_tree(tmp_path / "notes", GERMAN))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    for query, expected in [("Ueberlagerung", {"skript.md", "alt.md"}), ("Überlagerung", {"skript.md", "alt.md"}),
                            ("Homoeomorphismus", {"skript.md"}), ("Groesse", {"skript.md"}),
                            ("Blaetterzahl", {"skript.md"}), ("heisst", {"skript.md"})]:
        answer = engine.search(query, mode="keyword")
        assert set(paths(answer)) == expected, query
        assert not answer.notes, (query, answer.notes)
    assert paths(engine.search("queue", mode="keyword")) == ["other.md"]
