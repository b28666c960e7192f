"""Hybrid search over the published index: keyword (BM25), semantic (vectors), fused.

``Engine`` is the Python API that the MCP server and ``ingest search`` call.
Every answer is read inside one snapshot of the database, so it comes whole
from one set of published generations, and names them.

Queries are embedded with the model each published generation was embedded
with, found by its id (``embedder_loader(model_id)``), never with whatever
model is configured: after SIFT_MODEL changes, the old generation answers with
its own model until the re-embedded one is published. Collections published
with different models are searched per model and merged by rank.
"""
from __future__ import annotations

import functools
import inspect
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from search.log_names import is_log
from search.index import chunk_reads, collection_reads, db, keyword_reads, link_reads, schema
from search.model.info import ModelError
from search.query import answer_notes, authors, bibliography, citekeys, footnotes, fusion, identifiers, keyword, \
    mail_threads, passage_words, pinyin, question, references, reordering, results_page, spelling, symbols, tags, \
    worded_names
from search.query.answer import Answer, Hit, SearchError, took_ms
from search.query.answer_notes import CJK_WORDS, NOTHING_PUBLISHED, NOTHING_REGISTERED, filter_notes, no_terms, note
from search.query.catalog import Catalog
from search.query.filters import Filters
from search.query.hits import (BIBLIOGRAPHY_ENDINGS, LINKS_SHOWN, headings_above, named_in, pages_shown,
                               resolved_pdfs, stem_matches, why_not_indexed)
from search.query.listing import data_rows
from search.query.passages import Passages
from search.query.postings import Phrase, Postings, tokenize
from search.query.request import MAX_LIMIT, SQLITE_INT, checked_filters, is_text, validate, whole
from search.query.similar import (copies_named, file_of, kin_left_out, kin_note, named_copy, one_per_file,
                                  others_compared, source_chunks)
from search.query.snippet import marked_words, snippet_window
from search.query.term_counts import TermCounts
from search.query.text import CJK_RUN, query_pieces, query_words, written_words
from search.query.vector import VectorIndex

# Candidates per ranking before fusion. More give the convex fusion both scores for more chunks: hybrid nDCG@10
# with 50 / 100 / 200: SciFact e5 0.717 / 0.721 / 0.724, MiniLM 0.734 / 0.736 / 0.736, zh-retrieval 0.323 each;
# p50 of a hybrid search on SciFact unchanged (2.2 / 2.1 ms, query vector cached).
CANDIDATES = 100
QUERY_VECTORS_KEPT = 256
SUGGESTED_KEPT = 4096  # words whose spelling suggestion is kept for the published generations (``_suggested_for``)
WARM_SLICE = 10_000  # chunk ids whose vectors warm() reads while holding the connection (about 0.2 s of CPU)


@dataclass
class Asked:
    """One search's forms of its words, found by its keyword step and read again by its spelling note and snippets:
    each (the query's content they are of, the forms). Kept per search, on the thread running it, not on the engine
    that the MCP server's and HTTP server's clients share: one search's pinyin or slip note was read from the
    engine's last keyword step, whichever search that was."""
    held: tuple[str, dict] = ("", {})  # the query's held forms (``keyword.held_forms``)
    swapped: tuple[str, dict] = ("", {})  # its words looked up as the word meant (two letters swapped, one
    # dropped, added or changed: ``keyword.slip_forms``), which the spelling note still names
    pinyin: tuple[str, dict] = ("", {})  # its words read as pinyin: their Chinese


class Engine:
    def __init__(self, index_path: Path | str, embedder_loader: Callable | None = None,
                 keyword_postings: bool = True, models_changed: Callable[[list[str]], None] | None = None):
        """``embedder_loader(model_id)``: the Embedder of that model (a loader without a parameter gives
        the one model it has, checked against the index's). ``keyword_postings=False``: never hold the
        keyword postings in memory (FTS5 answers every search). ``models_changed(models)``: told the models
        the published generations use whenever they change, so whoever loads the models can let go of
        the others (sift-mcp's ModelState)."""
        self.index_path = Path(index_path)
        self._hold_postings = keyword_postings
        self._conn = None
        self._identity: tuple | None = None  # the file ``_conn`` reads and its -wal, as it connected: db.opened
        self._conn_lock = threading.Lock()
        self._embedder_loader = embedder_loader
        self._embedders: dict[str, object] = {}  # model id -> Embedder, for the models published now
        self._loading: dict[str, threading.Lock] = {}  # model id -> held while it loads (outside _conn_lock)
        self._loading_lock = threading.Lock()
        self._models_changed = models_changed
        self._models_seen: list[str] | None = None  # the published models when last looked at
        self._vector_indexes: dict[str, VectorIndex] = {}  # model id -> its vectors of the published chunks
        self._postings: Postings | None = None  # read in the background; FTS5 answers until then
        self._postings_lock = threading.Lock()
        self._postings_reader: threading.Thread | None = None
        self.postings_error: str | None = None  # why the last reading of the postings failed
        self._postings_failed: float | None = None  # when; no new reader for a minute after
        self._catalog: tuple | None = None  # (generations key, Catalog)
        self._totals: dict = {}
        self._pdf_names: dict = {}  # (collection id, published generation) -> {file name casefolded: [paths of PDFs]}
        self._query_vectors: dict[tuple[str, str], object] = {}  # (model id, query) -> vector, oldest first
        self._suggested: tuple = (None, {})  # (generations key, {word: the spelling note's suggestion})
        self._per_search = threading.local()  # .asked: the running search's own ``Asked``, never another's
        self.query_vectors_kept = QUERY_VECTORS_KEPT  # 0: embed every query (benchmarks)
        self.warm_slice = WARM_SLICE

    # -- public ------------------------------------------------------------
    def search(self, query: str, limit: int = 10, mode: str = "hybrid", filters: Filters | None = None) -> Answer:
        known = authors.KnownWriters()  # 'did Docker publish': a writer only if the index knows one so named
        self._per_search.asked = Asked()  # this search's forms, on its own thread: none of the last one's
        phrases = question.KnownPhrases(lambda: known.read)  # 'which notes reference counting': a phrase held
        with question.writers_known(known), question.phrases_known(phrases):
            return self._search(query, limit, mode, filters, known)

    def _search(self, query: str, limit: int, mode: str, filters: Filters | None, known) -> Answer:
        started = time.perf_counter()
        notes: list[str] = []
        unmatched: list[dict] = []
        query, limit, mode = validate(query, limit, mode, notes)
        filters = checked_filters(filters)
        prepared: dict = {}  # model id -> its Embedder, or why it could not be had, loaded outside the lock
        while True:
            with self._conn_lock:
                conn = self._connection()
                with db.snapshot(conn):
                    state = _published(conn)
                    self._forget_other_models(state["models"])
                    used = self._choose_mode(mode, state, filters, notes)
                    wanted = [] if used == "keyword" else _models_in_scope(state, filters)
                    missing = [m for m in wanted if m not in prepared and m not in self._embedders]
                    if not missing:
                        read = Passages(conn, self._catalog_for(conn, state, filters))  # each row read once
                        known.read = read
                        ranked, used, models = self._rank(conn, query, limit, used, filters, state, notes,
                                                          prepared, read)
                        ranked = reordering.phrased(read, query, ranked, used, notes)
                        common_words = functools.cache(lambda: self._common_words(conn, query, state))  # once
                        ranked = reordering.lists_after_their_notes(read, query, ranked, notes, limit)
                        ranked = reordering.titled_first(conn, query, ranked, used, notes, common_words() if ranked else set())
                        ranked, tagged = tags.tagged_first(conn, query, ranked, used, filters, read.catalog)
                        if tagged:  # a '#tag' names the tag, however common its words (search.query.tags)
                            note(notes, f"the passages of notes tagged {', '.join('#' + t for t in tagged)} come "
                                        "first, each keeping the score it ranked with")
                        ranked = reordering.phrases_first(conn, query, ranked, used, notes)
                        ranked = reordering.code_before_tests(read, query, ranked, used, notes)
                        ranked = reordering.definitions_first(read, query, ranked, used, filters, notes)
                        ranked = reordering.worded_definitions_first(read, query, ranked, used, notes)
                        ranked = reordering.traced_first(read, query, ranked, used, filters, notes)
                        ranked = self._users_first(read, query, ranked, used, filters, state, notes)
                        ranked = reordering.messages_first(read, query, ranked, used, notes)
                        ranked = worded_names.worded_first(read, query, ranked, used, notes)
                        ranked = citekeys.citing_first(read, query, ranked, used, notes)
                        ranked = identifiers.writing_first(read, query, ranked, used, notes)
                        ranked = reordering.own_notes_first(read, query, ranked, used, notes)
                        ranked = authors.theirs_first(read, query, ranked, used, filters, notes)
                        # nothing searched, or its filters (kind='code' in notes alone) left no file: no word missed,
                        # and 'did you mean …' sent the reader to other words, which cannot help
                        emptied = not ranked and (kept := read.catalog.mask(filters)) is not None and not kept.any()
                        unmatched = self._spelling(conn, query, used, state, notes, filters.collection) \
                            if _in_scope(state["generations"], filters) and not emptied else []
                        answer_notes.by_meaning(notes, ranked, used)
                        no_terms(notes, query, used, bool(state["models"]))
                        common = common_words() if ranked else set()
                        roots = {r["name"]: r["root"] for r in collection_reads.collections(conn)}
                        ranked, also = results_page.twins_left_out(ranked, self._catalog_for(conn, state), roots)
                        ranked, copied, copy_of = results_page.copies_folded(ranked, self._catalog_for(conn, state),
                                                                             read, query, common)
                        page, more = results_page.per_file(ranked, limit, self._catalog_for(conn, state),
                                                           symbols.asks_how(query))
                        hits = self._hits(read, query, page, common)
                        for hit in hits:
                            left_off = more.pop(hit.chunk_id, [])
                            hit.more_in_file = len(left_off)
                            hit.more_in_file_names = results_page.left_off_names(read, left_off)
                            if left_off:
                                catalog = self._catalog_for(conn, state)
                                hit.file_passages = catalog.passages(catalog.files([hit.chunk_id])[0])
                            hit.also_in = also.get((hit.collection, hit.path), [])
                            hit.conflict_copies = copied.get((hit.collection, hit.path), [])
                            hit.conflict_copy_of, hit.conflict_original_matched = copy_of.get(
                                (hit.collection, hit.path), (None, False))
                        if not hits or filters.date_after is not None or filters.date_before is not None:
                            notes += filter_notes(self._catalog_for(conn, state), filters, bool(hits))
                        break
            prepared.update(self._prepare(missing))  # seconds for a first load: other searches go on meanwhile
        answer = Answer(query=query, mode=used, hits=hits, generations=_in_scope(state["generations"], filters),
                        notes=notes, models=models, unmatched=unmatched)
        answer.took_ms = took_ms(started)
        return answer

    @property
    def _asked(self) -> Asked:
        """The forms of the running search's words (similar's snippets, outside a search, get empty ones)."""
        if getattr(self._per_search, "asked", None) is None:
            self._per_search.asked = Asked()
        return self._per_search.asked

    def embedder(self, model_id: str):
        """The Embedder of ``model_id``, loaded once; refuses one that is another model. Callers that come
        while it loads wait for that same load (never for the index connection: see ``_prepare``)."""
        with self._loading_lock:
            gate = self._loading.setdefault(model_id, threading.Lock())
        with gate:
            embedder = self._embedders.get(model_id)
            if embedder is None:
                embedder = self._embedders[model_id] = self._load_embedder(model_id)
        return embedder

    def _load_embedder(self, model_id: str):
        if self._embedder_loader is None:
            raise SearchError("no embedding model is configured for this engine")
        loader = self._embedder_loader
        takes_id = bool(inspect.signature(loader).parameters)
        embedder = loader(model_id) if takes_id else loader()
        if embedder.info.model_id != model_id:
            raise SearchError(f"the index was embedded with {model_id}, and the model at hand is "
                              f"{embedder.info.model_id}: a query is never compared with another model's "
                              "vectors; keyword search still works")
        return embedder

    def _prepare(self, model_ids: list[str]) -> dict:
        """The Embedders of ``model_ids``, or why each could not be had; called without ``_conn_lock``, as a
        first load takes seconds (e5) and must not hold back searches that need no model."""
        prepared = {}
        for model_id in model_ids:
            try:
                prepared[model_id] = self.embedder(model_id)
            except (ModelError, SearchError) as exc:  # the ranking says so (or falls back to keyword)
                prepared[model_id] = exc
        return prepared

    @property
    def _vectors(self) -> VectorIndex:
        """The vectors of the one model the index answers with (the first, if several)."""
        if not self._vector_indexes:
            return VectorIndex()
        return self._vector_indexes[sorted(self._vector_indexes)[0]]

    def _vector_index(self, conn, model_id: str, catalog) -> VectorIndex:
        """``model_id``'s vectors of the published chunks, read (or caught up) inside this snapshot."""
        index = self._vector_indexes.setdefault(model_id, VectorIndex())
        index.ensure(conn, model_id, catalog)
        return index

    def _forget_other_models(self, models: list[str]) -> None:
        """Drop the vectors and embedders of models no published generation uses any more, and tell
        ``models_changed`` when the published models change (the loader may hold them too)."""
        for held in (self._vector_indexes, self._embedders):
            for model_id in [m for m in list(held) if m not in models]:  # list(): a load may add one
                held.pop(model_id, None)
        if models != self._models_seen:
            self._models_seen = list(models)
            if self._models_changed is not None:
                self._models_changed(list(models))

    # -- steps --------------------------------------------------------------
    def _connection(self):
        if self._conn is None:
            identity = db.opened(self.index_path)  # before connecting: a file swapped meanwhile makes it stale
            self._conn = db.connect(self.index_path, readonly=True)
            self._identity = identity
        return self._conn

    def close(self) -> None:
        """Close the connection (once a search using it is done); the next search opens one again."""
        with self._conn_lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def stale(self) -> bool:
        """Whether the index file is no longer the one this engine reads (deleted, perhaps made again): its
        connection and everything it holds in memory are of the old one; its keeper makes a new engine."""
        return self._conn is not None and db.replaced(self.index_path, self._identity)

    def _choose_mode(self, mode: str, state: dict, filters: Filters, notes: list[str]) -> str:
        if not state["generations"]:  # the first build is still running: no answer, and no verdict on embeddings
            registered = collection_reads.collections(self._connection())
            note(notes, NOTHING_PUBLISHED if registered else NOTHING_REGISTERED)
            return mode
        if filters.collection is not None and filters.collection not in state["generations"]:
            note(notes, f"nothing is searchable in {filters.collection!r} yet: it has published no generation "
                        "(its first may still be being built: stats shows its progress)")
            return mode
        if mode == "keyword":
            return mode
        if not state["model"]:
            if mode == "semantic":
                raise SearchError("this index has no embeddings (built with SIFT_EMBEDDINGS=off): "
                                  "use mode 'keyword' or 'hybrid'")
            if state["generations"]:
                notes.append("keyword-only index (built with SIFT_EMBEDDINGS=off): answered by keyword search")
            return "keyword"
        without = sorted(c for c, model in state["by_collection"].items()
                         if not model and filters.collection in (None, c))
        if filters.collection in without:  # the one collection searched has no vectors: as a keyword-only index
            if mode == "semantic":
                raise SearchError(f"the collection {filters.collection!r} has no embeddings (built with "
                                  "SIFT_EMBEDDINGS=off): use mode 'keyword' or 'hybrid'")
            note(notes, f"the collection {filters.collection!r} is keyword-only (built with SIFT_EMBEDDINGS=off): "
                        "answered by keyword search")
            return "keyword"
        if without:
            note(notes, f"{', '.join(without)}: no embeddings (built with SIFT_EMBEDDINGS=off), so "
                        + ("not searched (mode 'keyword' or 'hybrid' searches them)" if mode == "semantic"
                            else "found by keyword only"))
        return mode

    def warm(self) -> None:
        """Load what searches hold in memory (keyword postings, catalog, vectors) before the first search. The
        vectors are read WARM_SLICE chunk ids at a time, each slice in a snapshot of its own, on a connection of
        warm()'s own: keyword searches never wait for a slice (one waited 13.8 s for all 200,000 vectors at
        sift-mcp's start; then, with the slices read on the search's connection, 0.1-3.7 s for the slices read
        meanwhile, as a lock is not fair). A hybrid search waits for the slice being read (the index's own lock)."""
        own = db.connect(self.index_path, readonly=True)
        try:
            self._warm_on(own)
        finally:
            own.close()

    def _warm_on(self, own) -> None:
        for _ in range(2):  # the second pass catches up with what was published while the postings were read
            held = False
            while not held:
                with self._conn_lock:
                    conn = self._connection()
                    with db.snapshot(conn):
                        state = _published(conn)
                        catalog = self._catalog_for(conn, state)
                        ready = not self._hold_postings or self._current_postings(conn, catalog) is not None
                        self._forget_other_models(state["models"])
                        indexes = {m: self._vector_indexes.setdefault(m, VectorIndex()) for m in state["models"]}
                with db.snapshot(own):
                    held = all(index.ensure(own, m, catalog, most=self.warm_slice) for m, index in indexes.items())
            reader = self._postings_reader
            if ready or reader is None:
                return
            reader.join()

    def _rank(self, conn, query, limit, mode, filters, state, notes, prepared, read: Passages
              ) -> tuple[list, str, list[str]]:
        """(ranked [(chunk id, score, [keyword rank, semantic rank])], the mode used, the models used);
        ``prepared``: the Embedders loaded for this search (or why not), from ``_prepare``; the others in scope
        are in ``_embedders``; ``read``: the search's passages."""
        depth = max(CANDIDATES, limit)
        catalog = self._catalog_for(conn, state)
        lexical = []
        if mode in ("keyword", "hybrid"):
            lexical = self._keyword(conn, query, depth, filters, catalog, state)
            if len(written_words(query)) > keyword.MAX_TERMS:
                note(notes, f"keyword search used the query's first {keyword.MAX_TERMS} different words"
                            + (CJK_WORDS if CJK_RUN.search(query) else "") + ": put the words that matter most first")
        try:
            unranked = self._weightless(conn, query, catalog, state) if len(lexical) > 1 else []  # one: no order
        except sqlite3.Error:  # a hint, like the spelling note: a scratch table this connection cannot make
            unranked = []
        keyword_only = [(cid, score, [rank, None]) for rank, (cid, score) in enumerate(lexical, start=1)]
        if mode == "keyword":
            answer_notes.unranked(notes, query, unranked, mode)
            return keyword_only, mode, []
        models = _models_in_scope(state, filters)
        try:
            semantic = self._semantic(read, query, depth, filters, state, models, notes, prepared)
        except (ModelError, SearchError) as exc:
            if mode == "semantic":
                raise SearchError(str(exc)) from None
            notes.append(f"answered by keyword search only: {exc}")
            answer_notes.unranked(notes, query, unranked, "keyword")
            return keyword_only, "keyword", []
        if mode == "hybrid":  # a reference list by its words alone: close in meaning to any query of its field
            semantic = bibliography.left_out(conn, semantic)
        by_meaning = [(cid, score, [None, rank]) for rank, (cid, score) in enumerate(semantic, start=1)]
        if mode == "semantic" or not lexical:  # hybrid without keyword hits: see by_meaning
            return by_meaning, mode, models
        if unranked and semantic and all(state["by_collection"].get(c) for c in _scope_collections(state, filters)):
            answer_notes.unranked(notes, query, unranked, mode)  # min-max scaling made its millionths count as much as any
            return by_meaning, mode, models
        return fusion.convex(lexical, semantic, whole=len(lexical) < depth), mode, models

    def _weightless(self, conn, query: str, catalog, state) -> list[str]:
        """The query's words found in the index, when keyword search ranks by none of them (keyword.weightless,
        counted as the ranking counted: over the postings in memory, or FTS5's rows); else []. Stops at the
        first word that ranks."""
        postings = self._current_postings(conn, catalog) if self._hold_postings else None
        pieces = query_pieces(query)
        terms = list(dict.fromkeys(t for _, its in pieces for t in its))[:keyword.MAX_TERMS]
        tokens = postings.tokens(conn, terms) if postings is not None else tokenize(conn, terms)
        if any(len(t) > 1 for t in tokens) or references.phrases(question.content(query)):
            return []  # a word FTS5 splits in two, or a reference, is searched as a phrase, whose count is not a term's
        if postings is not None:
            total, documents = postings.rows.count, postings.documents
        else:
            total = self._total(conn, tuple(sorted(state["generations"].items())))
            documents = functools.partial(keyword_reads.term_documents, conn)
        counts = {}
        for term, token in zip(terms, tokens):
            counts[term] = documents(token[0]) if token else 0
            if counts[term] and not keyword.weightless([counts[term]], total):
                return []
        if not keyword.weightless(list(counts.values()), total):
            return []
        return [word for word, its in pieces if any(counts.get(t) for t in its)]

    def _semantic(self, read: Passages, query, depth, filters, state, models, notes, prepared
                  ) -> list[tuple[int, float]]:
        """Nearest chunks by meaning, by the ``models`` of the collections searched. Each model's vectors are
        compared only with the query embedded by that same model; collections published with different models
        are merged by rank."""
        rankings = []
        for model_id in models:
            embedder = prepared[model_id] if model_id in prepared else self._embedders[model_id]
            if isinstance(embedder, Exception):
                raise embedder
            vector = self._query_vector(embedder, model_id, query)
            rankings.append(_without_boilerplate(
                read, self._vector_index(read.conn, model_id, read.catalog).search(vector, depth, filters)))
        if len(rankings) <= 1:  # one model, or a collection without embeddings
            return rankings[0] if rankings else []
        by_model = "; ".join(f"{m}: {', '.join(c for c, cm in sorted(state['by_collection'].items()) if cm == m)}"
                             for m in models)
        notes.append(f"collections are embedded with different models ({by_model}): the semantic ranking "
                     "merges each model's own ranking by rank")
        return [(cid, score) for cid, score, _ in fusion.rrf(*rankings)[:depth]]

    def _query_vector(self, embedder, model_id: str, query: str):
        """The query's embedding by ``model_id``; the last few are kept (an assistant often asks again in
        another mode). Kept per model: a vector is only ever compared with its own model's vectors."""
        key = (model_id, query)
        vector = self._query_vectors.pop(key, None)
        if vector is None:
            vector = embedder.embed([query], kind="query")[0]
        self._query_vectors[key] = vector
        while len(self._query_vectors) > self.query_vectors_kept:
            self._query_vectors.pop(next(iter(self._query_vectors)))
        return vector

    def _keyword(self, conn, query, depth, filters, catalog, state) -> list[tuple[int, float]]:
        """BM25 from the postings in memory, or from FTS5 itself while they are read. A word FTS5 splits in several
        tokens (a camelCase name's words) is a phrase, whose part of the score FTS5 gives (Postings.phrase)."""
        postings = self._current_postings(conn, catalog) if self._hold_postings else None
        if postings is not None:
            content = question.content(query)
            words = keyword.subject_words(query_words(content)[:keyword.MAX_TERMS], keyword.as_typed(query))
            held = keyword.held_forms(content, functools.partial(postings.tokens, conn), postings.documents,
                                      functools.partial(keyword_reads.phrase_published, conn),
                                      functools.partial(keyword_reads.vocabulary_between, conn))
            self._asked.held = (content, held)  # its snippets mark them (``stem_matches``)
            swapped = keyword.slip_forms(content, functools.partial(postings.tokens, conn), postings.documents,
                                         keyword.as_typed(query), held, keyword.sentence_starts(query),
                                         functools.partial(keyword.written_as_name, conn),
                                         functools.partial(passage_words.nearest, conn))
            swapped = _both_readings(swapped, self._pinyin_forms(  # 'huancun' as 缓存 too
                conn, content, functools.partial(postings.tokens, conn), postings.documents))
            self._asked.swapped = (content, swapped)
            words += [form for forms in [*held.values(), *swapped.values()] for form in forms]
            found = keyword.distinct_forms(words, postings.tokens(conn, words), set(written_words(content)))
            terms = [t[0] if len(t) == 1 else Phrase(w) for w, t in found if t]
            terms += [Phrase(p) for p in references.searched(content)]  # '12.3(b)' as written too
            return postings.search(terms, depth, filters, conn)
        key = tuple(sorted(state["generations"].items()))
        content = question.content(query)
        # each word's passages counted once for both (FTS5's vocabulary table reads a word's whole doclist)
        documents = TermCounts(conn)  # and a word's variants counted in one statement, not one each
        self._asked.held = (content, keyword.held_forms(content, functools.partial(tokenize, conn), documents,
                                                  functools.partial(keyword_reads.phrase_published, conn),
                                                  functools.partial(keyword_reads.vocabulary_between, conn)))
        swapped = keyword.slip_forms(content, functools.partial(tokenize, conn), documents,
                                     keyword.as_typed(query), self._asked.held[1], keyword.sentence_starts(query),
                                     functools.partial(keyword.written_as_name, conn),
                                     functools.partial(passage_words.nearest, conn))
        swapped = _both_readings(swapped, self._pinyin_forms(conn, content, functools.partial(tokenize, conn),
                                                             documents))
        self._asked.swapped = (content, swapped)
        return keyword.search(conn, query, depth, filters, self._total(conn, key), len(catalog),
                              {**self._asked.held[1], **swapped})

    def _pinyin_forms(self, conn, content: str, tokens, documents) -> dict[str, list[str]]:
        """{a query word read as pinyin: the pairs of the Chinese it stands for} (search.query.pinyin), which keyword
        search looks up beside it; the Chinese words are kept for the answer's line (``_spelling``)."""
        found = pinyin.searched(conn, written_words(content)[:keyword.MAX_TERMS], tokens, documents)
        self._asked.pinyin = (content, found)
        return {word: pinyin.pairs_of(words) for word, words in found.items()}

    def _users_first(self, read: Passages, query: str, ranked: list, mode: str, filters: Filters, state, notes
                     ) -> list:
        """``ranked`` with the code passages that use the name first when the query asks where it is used
        (``symbols.used_by``: 'who calls retry_upload_part', 'usages of MAX_RETRIES'), in keyword and hybrid search:
        those ranked, in their order, then those the name alone finds by keyword (scored 0, unranked); the tests'
        after the rest. The question's words ranked the definition, its tests and the notes naming it first, and the
        caller, a passage of the definition's own file, was left off for them. A note says so."""
        asked = symbols.used_by(query) if mode != "semantic" else None
        if not asked:
            return ranked
        parts, calls = asked
        held = {hit[0] for hit in ranked}
        more = [(cid, 0.0, [None, None]) for cid, _ in
                self._keyword(read.conn, parts[-1], CANDIDATES, filters, read.catalog, state) if cid not in held]
        rows = read.rows([hit[0] for hit in ranked + more], kind="code")
        using = [hit for hit in ranked + more
                 if hit[0] in rows and symbols.uses(parts[-1], rows[hit[0]]["text"], calls)]
        first = sorted(using, key=lambda hit: symbols.test_file(rows[hit[0]]["path"]))
        chosen = {hit[0] for hit in first}
        moved = first + [hit for hit in ranked if hit[0] not in chosen]
        if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
            what = "call" if calls else "use"
            note(notes, f"the code passages that {what} {'.'.join(parts)!r} come first (tests after the rest), each "
                        "keeping the score it ranked with")
        return moved

    def _current_postings(self, conn, catalog) -> Postings | None:
        """The postings caught up with this snapshot; None (and a reader started) if they must be read whole."""
        if schema.version(conn) < 5:
            return None  # chunk ids may be used again before schema V5: FTS5 answers until a worker migrates
        postings = self._postings
        try:
            if postings is not None and postings.catch_up(conn, catalog):
                return postings
        except sqlite3.Error:
            pass  # the postings are marked broken and read again whole
        with self._postings_lock:
            failed_lately = self._postings_failed is not None and time.time() - self._postings_failed < 60
            if not failed_lately and (self._postings_reader is None or not self._postings_reader.is_alive()):
                self._postings_reader = threading.Thread(target=self._read_postings, daemon=True,
                                                         name="sift-postings")
                self._postings_reader.start()
        return None  # FTS5 answers until the reader is done

    def _read_postings(self) -> None:
        """Read every row of the keyword index into memory, on a connection of its own."""
        try:
            conn = db.connect(self.index_path, readonly=True)
            try:
                with db.snapshot(conn):
                    self._postings = Postings.build(conn, keyword.WEIGHTS)
            finally:
                conn.close()
        except Exception as exc:  # noqa: BLE001 - FTS5 answers meanwhile, and says what is wrong if it cannot
            self.postings_error, self._postings_failed = f"{type(exc).__name__}: {exc}", time.time()

    def _catalog_for(self, conn, state, filters: Filters | None = None) -> Catalog:
        """The published chunks' catalog, loaded once per set of published generations; with the index's tags
        read where ``filters`` name any (``Catalog.load_tags``)."""
        key = tuple(sorted(state["generations"].items()))
        if self._catalog is None or self._catalog[0] != key:
            self._catalog = (key, Catalog.load(conn))
        catalog = self._catalog[1].load_tags(conn) if filters is not None and filters.tags else self._catalog[1]
        return catalog.load_authors(conn) if filters is not None and filters.author else catalog

    def _spelling(self, conn, query: str, mode: str, state, notes: list[str],
                  collection: str | None = None) -> list[dict]:
        """Note the query's words no published passage holds, with the word each probably meant (keyword and hybrid
        searches: a misspelled word there adds nothing to the ranking and would go unsaid); returns them as data
        (spelling.Said.unmatched)."""
        if mode == "semantic" or not state["generations"]:
            return []
        postings = self._current_postings(conn, self._catalog_for(conn, state)) if self._hold_postings else None
        try:
            # a pasted trace's paths and line numbers ('venv', '580') are no typos: its frames name what it means
            # and a caller question's framing ('who calls', 'callers of', 'where is … called'): its name alone, and
            # nothing of one about something said before ('who calls them')
            asked = symbols.used_name(query)
            if asked == "":
                return []
            framed = asked or symbols.FRAME.sub(" ", question.content(query))
            text = asked or authors.names_read_out(framed)
            # the keyword step's forms are found by the text it searched, the writer's name ('Robert' for Bob Smith)
            # in it: by ``text`` they were lost, and 'huancun' was named as held nowhere, its reading as 缓存 unsaid
            held = self._asked.held[1] if self._asked.held[0] == framed else None  # the keyword step's, not asked again
            searched = self._asked.swapped[1] if self._asked.swapped[0] == framed else {}  # 'default' for 'defualt'
            read_as = self._asked.pinyin[1] if self._asked.pinyin[0] == framed else {}  # 'huancun' as 缓存: told so
            if read_as:
                note(notes, pinyin.said(read_as))
                # a word read as pinyin is not missing, unless it is a slip of a held word too: that reading is said
                slips = {w for w in read_as if searched.get(w, [None])[0] not in pinyin.pairs_of(read_as[w])}
                held = {**(held if held is not None else keyword.held_forms(text, functools.partial(tokenize, conn),
                                                                            TermCounts(conn))),
                        **{w: words for w, words in read_as.items() if w not in slips}}
            said = spelling.note(conn, text, postings, mode, collection, held, question.quoted_words(query), searched,
                                 self._suggested_for(state))
        except sqlite3.Error:  # the note is a hint: a temporary table this connection cannot make costs only it
            return []
        if said is None:
            return []
        note(notes, said.text)
        return said.unmatched

    def _suggested_for(self, state) -> dict[str, str | None]:
        """The spelling note's suggestions found over the published generations ``state`` names ({word: the word
        meant, or None}), emptied when they change (a new word indexed may be the one meant) or hold SUGGESTED_KEPT."""
        key = tuple(sorted(state["generations"].items()))
        kept = self._suggested
        if kept[0] != key or len(kept[1]) >= SUGGESTED_KEPT:
            kept = self._suggested = (key, {})
        return kept[1]

    def _common_words(self, conn, query: str, state) -> set[str]:
        """The query's words keyword search drops as common, which snippets leave unmarked: counted in the
        postings in memory when they are held (FTS5's vocabulary table reads a word's whole doclist: about 4 ms
        for a word in every one of 100k chunks, for each such word of every search), else by FTS5."""
        postings = self._current_postings(conn, self._catalog_for(conn, state)) if self._hold_postings else None
        if postings is None:
            return keyword.common_words(conn, query, self._total(conn, tuple(sorted(state["generations"].items()))))
        framing = question.framing(query)
        words = query_words(question.content(query))[:keyword.MAX_TERMS]
        if len(words) <= 2:
            return framing
        return keyword.dropped(words, postings.tokens(conn, words), postings.documents, postings.rows.count) | framing

    def _links(self, conn, row) -> tuple[tuple[list[str], int], tuple[list[str], int]]:
        """((PDFs a note links to, how many), (notes that link to a PDF, how many)) among the published files,
        the first LINKS_SHOWN of each by path: a PDF thousands of notes cite would list them all on every hit."""
        if row["kind"] == "note":
            targets = link_reads.linked_pdfs(conn, row["file_id"])[0]
            if row["path"].lower().endswith(BIBLIOGRAPHY_ENDINGS):
                targets = named_in(targets, row["text"])
            pdfs = resolved_pdfs(targets, self._pdfs_by_name(conn, row) if targets else {})
            return (pdfs[:LINKS_SHOWN], len(pdfs)), ([], 0)
        if row["kind"] == "pdf":
            name = row["path"].rsplit("/", 1)[-1]
            # in any case, as Obsidian reads a link ('[[Paper.PDF]]'), and as read_file's backlinks match
            return ([], 0), link_reads.linking_files_any_case(conn, row["collection_id"], (row["path"], name),
                                                              LINKS_SHOWN)
        return ([], 0), ([], 0)

    def _not_indexed(self, conn, row, attachments: list[str]) -> dict[str, str]:
        """Why each of ``attachments`` that the published collection holds no PDF at is not there: a note that
        cited a missing or failed PDF listed it as any other, and read_file on it said only 'no file'."""
        if not attachments:
            return {}
        held = {p for paths in self._pdfs_by_name(conn, row).values() for p, indexed in paths if indexed}
        return {p: why_not_indexed(conn, row["collection"], p) for p in attachments if p not in held}

    def _pdfs_by_name(self, conn, row) -> dict[str, list[tuple[str, bool]]]:
        """The (path, indexed?) of the hit's collection's PDFs by file name (casefolded), as published: read once per
        generation (a query per bare link took 75 ms at 100k files)."""
        key = (row["collection_id"], row["published"])
        if key not in self._pdf_names:
            names: dict[str, list[tuple[str, bool]]] = {}
            for path, indexed in sorted(link_reads.pdf_paths(conn, row["collection_id"])):
                names.setdefault(path.rsplit("/", 1)[-1].casefold(), []).append((path, indexed))
            self._pdf_names = {k: v for k, v in self._pdf_names.items() if k[0] != key[0]} | {key: names}
        return self._pdf_names[key]

    def _total(self, conn, key) -> int:
        if key not in self._totals:
            self._totals = {key: chunk_reads.chunk_count(conn)}
        return self._totals[key]

    def _hits(self, read: Passages, query, ranked, common: set[str] = frozenset()) -> list[Hit]:
        """The ranked chunks as hits, their snippets marking the query's words but the ``common`` ones and those
        left out of the search (``keyword.left_out``)."""
        if not ranked:
            return []
        conn, rows = read.conn, read.rows([cid for cid, _, _ in ranked])
        common = common | keyword.left_out(query)  # a preposition left out of the search is not marked either
        # A question's framing words are not marked: leaving out their bigrams (``common``) did not do for a run of
        # Chinese, which a snippet also marks whole: '内存泄露怎么办' marked **怎么办** in a note on another matter.
        query = question.content(query)
        held = self._asked.held[1] if self._asked.held[0] == query else {}
        held = {**held, **(self._asked.swapped[1] if self._asked.swapped[0] == query else {})}  # 'prevent' for 'prevnet'
        # the forms keyword search found a word by are marked too: 'Kundennummer' found 'Kunde' and 'Nummer', and
        # 'buscar' 'búsqueda', whose snippets marked nothing (no stem of the query's word is in the passage)
        marking = " ".join([query, *dict.fromkeys(form for forms in held.values() for form in forms)])
        accept = stem_matches(conn, query, held, set().union(*(
            marked_words(r["text"], marking, skip=common, note=r["kind"] == "note", code=r["kind"] == "code",
                         above=headings_above(r)) for r in rows.values())))
        hits = []
        for cid, score, (kw_rank, sem_rank) in ranked:
            r = rows[cid]
            shown, window = snippet_window(r["text"], marking, skip=common, note=r["kind"] == "note",
                                           code=r["kind"] == "code", accept=accept, above=headings_above(r),
                                           lines=is_log(r["path"]))
            hits.append(Hit(chunk_id=cid, collection=r["collection"], path=r["path"], title=r["title"] or "",
                            kind=r["kind"], heading_path=r["heading_path"], start_line=r["start_line"],
                            end_line=r["end_line"], snippet=shown, score=round(score, 6),
                            keyword_rank=kw_rank, semantic_rank=sem_rank, generation=r["published"],
                            modified=r["mtime"], author=r["author"] or None, dated=r["dated"],
                            data_rows=data_rows(r) if r["data_file"] else None, **pages_shown(r, window)))
            (hits[-1].attachments, hits[-1].attachments_total), (hits[-1].cited_by, hits[-1].cited_by_total) = \
                self._links(conn, r)
            hits[-1].attachments_not_indexed = self._not_indexed(conn, r, hits[-1].attachments)
            labels = footnotes.defined(r["text"]) if r["kind"] == "note" else []
            hits[-1].footnotes_cited = footnotes.cited_at(conn, r["file_id"], labels) if labels else {}
        # a mail message's: the other messages of its thread in the collection's mail files, looked up for the page
        saved = [(rows[cid]["collection_id"], rows[cid]["file_id"], rows[cid]["start_line"]) for cid, _, _ in ranked
                 if mail_threads.is_mail(rows[cid]["path"])]
        found = mail_threads.threads(conn, saved) if saved else {}
        for (cid, _, _), hit in zip(ranked, hits):
            hit.mail_thread = mail_threads.others(found, rows[cid]["file_id"], rows[cid]["start_line"])
        return hits

    # -- similar passages ------------------------------------------------------
    def similar(self, chunk_id: int | None = None, path: tuple[str, str] | None = None,
                limit: int = 10, filters: Filters | None = None, said: tuple[str, str] = ("stats", "refresh")
                ) -> Answer:
        """Passages of other files nearest in meaning to a chunk, or to a whole file.

        ``path`` is (collection, path relative to its root). The file's own chunks
        are left out, and so is the same file reached through another collection (a root inside another's);
        each other file gives at most its best passage, once however many collections reach it. ``filters``:
        only passages of the files they keep (a collection, a folder, a kind). Uses the stored vectors only,
        so no model is loaded. ``said``: the commands that show a build's progress and queue a scan, in the
        caller's words (the MCP tools', or ``ingest stats`` and ``ingest enqueue``), for a file not indexed yet.
        """
        started = time.perf_counter()
        self._per_search.asked = Asked()  # its snippets mark no form of the last search this (pool) thread ran
        if (chunk_id is None) == (path is None):
            raise SearchError("give either a chunk id or a path, not both and not neither")
        if chunk_id is not None and not whole(chunk_id):
            raise SearchError(f"the chunk id must be a whole number as search results give it, not {chunk_id!r:.80}")
        if chunk_id is not None and chunk_id not in SQLITE_INT:  # a whole number all the same: none is so big
            raise SearchError(f"no passage with chunk id {str(chunk_id)[:80]} in the published index: chunk ids come from "
                              "search results and change when a file is indexed again")
        if path is not None and not (isinstance(path, tuple) and len(path) == 2 and all(map(is_text, path))):
            raise SearchError("the path must be (collection, path relative to its root), both valid text")
        if not whole(limit) or not 1 <= limit <= MAX_LIMIT:
            raise SearchError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
        with self._conn_lock:
            conn = self._connection()
            with db.snapshot(conn):
                state = _published(conn)
                if state["generations"] and not state["model"]:  # nothing published: source_chunks says so
                    raise SearchError("this index has no embeddings (built with SIFT_EMBEDDINGS=off), so there "
                                      "is nothing to compare by meaning: use search with mode 'keyword'")
                query_ids, file_ids, source = source_chunks(conn, chunk_id, path, said)
                # a mailbox's message is compared with its other messages too, each one a file's passage would be:
                # a Takeout mailbox holds all one's mail, and 'mail like this one' found none of it
                message = chunk_reads.message_chunks(conn, *file_of(conn, chunk_id)) if chunk_id is not None else None
                left_out = set(file_ids if message is None else message[1])  # the file's own passages, not compared
                collection = source[0]
                model_id = state["by_collection"].get(collection)
                if not model_id:
                    raise SearchError(f"the collection {collection!r} has no embeddings (built with "
                                      "SIFT_EMBEDDINGS=off): nothing to compare by meaning")
                self._forget_other_models(state["models"])
                read = Passages(conn, self._catalog_for(conn, state, filters))
                index = self._vector_index(conn, model_id, read.catalog)
                if path is not None:  # a paper's body, not its reference list, against other papers' bodies
                    query_ids = [cid for cid, _ in bibliography.left_out(conn, [(c, 0.0) for c in query_ids])] \
                        or query_ids
                ranked = self._nearest(read, index, query_ids, left_out, limit, filters or Filters(),
                                       body=path is not None)
                roots = {row["name"]: row["root"] for row in collection_reads.collections(conn)}
                hits = one_per_file(self._hits(read, "", ranked), len(ranked), roots, source,
                                    message[0] if message is not None else None)
                hits, kin = kin_left_out(hits, source, read, file_ids)
                hits = copies_named(hits, read, [cid for cid, _, _ in ranked])[:limit]
                # 'no other passages found' where date_after left no passage to compare: say which filter did
                filtered = [] if filters is None else filter_notes(read.catalog, filters, bool(hits))
                authors.filter_read(read, filters, filtered)  # 王医生: who that was read as, as search says
        # a file shown is named as a copy only where a sync tool's name says it is: 'chapter 2.md' beside
        # 'chapter.md', of other text, is a note of its own as likely as iCloud's copy, and got a note each time
        shown = {(hit.collection, hit.path) for hit in hits}
        notes = filtered + [kin_note(name, source, left) for name, left in kin.items()
                            if left or (name in shown and named_copy(name[1]) and named_copy(source[1]))]
        if message is not None:
            notes.append(others_compared(source, *message))
        others = sorted(c for c, m in state["by_collection"].items() if m and m != model_id)
        if others:
            notes.append(f"compared only with collections embedded with {model_id}: {', '.join(others)} "
                         "use another model")
        label = f"chunk {chunk_id}" if chunk_id is not None else "/".join(path)
        answer = Answer(query=label, mode="similar", hits=hits, generations=state["generations"], notes=notes,
                        models=[model_id])
        answer.took_ms = took_ms(started)
        return answer

    def _nearest(self, read: Passages, index: VectorIndex, query_ids: list[int], exclude: set[int], limit: int,
                 filters: Filters, body: bool = False) -> list[tuple[int, float, list]]:
        import numpy as np
        vectors = [v for v in (index.vector_of(cid) for cid in query_ids) if v is not None]
        if not vectors:
            raise SearchError("the passage has no stored vector in the published index yet: try again once "
                              "the generation being built is published, or its file's embedding in the background is "
                              "done (stats shows it)")  # a big file's passages are written before their vectors
        query = np.mean(vectors, axis=0)
        query = query / max(float(np.linalg.norm(query)), 1e-12)
        depth = max(CANDIDATES, limit * 10)
        found = _without_boilerplate(read, index.search(query, depth, filters, exclude=exclude))
        found = bibliography.left_out(read.conn, found) if body else found
        return [(cid, score, [None, rank]) for rank, (cid, score) in enumerate(found, start=1)]


def _without_boilerplate(read: Passages, found: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """``found`` (nearest by meaning) without the code passages of imports and a licence header alone
    (``symbols.boilerplate``): so short a text is near any query, and ranked among the first for anything.
    Keyword search still finds them by their words."""
    if not found:
        return found
    dropped = {cid for cid, r in read.rows([cid for cid, _ in found], kind="code").items()
               if symbols.boilerplate(r["text"])}
    return [pair for pair in found if pair[0] not in dropped]


def _scope_collections(state: dict, filters: Filters) -> list[str]:
    """The published collections a search looks at."""
    return [filters.collection] if filters.collection is not None else list(state["by_collection"])


def _in_scope(generations: dict[str, int], filters: Filters) -> dict[str, int]:
    """The published generations a search answered from: those of its collection when it names one (a search
    of 'notes', with nothing of notes published, ended '(hybrid, 182 ms; pdf at generation 1)')."""
    return {name: gen for name, gen in generations.items() if filters.collection in (None, name)}


def _models_in_scope(state: dict, filters: Filters) -> list[str]:
    """The models of the collections a search looks at: a search of one collection needs only its model
    (another collection's model may be slower to load, or gone)."""
    if filters.collection is None:
        return state["models"]
    model = state["by_collection"].get(filters.collection)
    return [model] if model else []


def _published(conn) -> dict:
    """The published generation of each collection and the model it was embedded with."""
    rows = collection_reads.published(conn)
    models = sorted({r["model"] for r in rows if r["model"]})
    return {"generations": {r["name"]: r["published"] for r in rows},
            "by_collection": {r["name"]: r["model"] for r in rows},
            "models": models, "model": models[0] if models else None}


def _both_readings(slips: dict[str, list[str]], read_as_pinyin: dict[str, list[str]]) -> dict[str, list[str]]:
    """The forms keyword search looks a query's words up by in their place: a slip of a held word ('bash' for
    'bashi'), the Chinese pairs a word read as pinyin stands for (巴士), and both for a word that is both, the slip's
    first (the spelling note names it). The pinyin replaced the slip, and a person who writes both languages lost
    the note on bash; which was meant only the person knows, and both readings are on the page, each said."""
    both = dict(slips)
    for word, pairs in read_as_pinyin.items():
        both[word] = list(dict.fromkeys([*slips.get(word, []), *pairs]))
    return both


def from_settings(settings, keyword_postings: bool = True) -> Engine:
    """An engine over <home>/index.db that embeds each query with the model of the generation it searches
    (the configured model, or the one the index still answers with while a new one is being built).
    ``keyword_postings=False`` for a process that searches once (``ingest search``): FTS5 answers its search while
    the postings are read, so reading them, a thread over the whole keyword index, served nothing."""
    from search.model import embedding

    def load(model_id: str):
        return embedding.Embedder(embedding.locate(model_id, settings), threads=embedding.QUERY_THREADS)
    return Engine(settings.index_path, load, keyword_postings=keyword_postings)
