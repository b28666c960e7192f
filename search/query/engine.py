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
import json
import math
import os
import re
import sqlite3
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

from search.index import db, queries, schema
from search.index.status import when
from search.model.info import ModelError
from search.query import (bibliography, copies, footnotes, fusion, keyword, lists, question, spelling, symbols, tags,
                          unindexed)
from search.query.catalog import Catalog
from search.query.dates import iso_dates, month_names_swapped, only_date
from search.query.filters import Filters, empty_range
from search.query.inflection import inflected_forms, query_languages, surnames
from search.query import mail_threads
from search.query.listing import data_rows
from search.query.passages import Passages
from search.query.postings import Phrase, Postings, tokenize
from search.query.scope import file_place
from search.query.snippet import marked_words, snippet_pages, snippet_window
from search.query.text import (CJK_RUN, QUOTED, WORD, normalise, other_scripts, phrase_form, query_pieces,
                               query_words, quoted_phrases, written_words)
from search.query.vector import VectorIndex

MODES = ("hybrid", "keyword", "semantic")
MAX_LIMIT = 50
MAX_QUERY_CHARS = 10_000
# Candidates per ranking before fusion. More give the convex fusion both scores for more chunks: hybrid nDCG@10
# with 50 / 100 / 200: SciFact e5 0.717 / 0.721 / 0.724, MiniLM 0.734 / 0.736 / 0.736, zh-retrieval 0.323 each;
# p50 of a hybrid search on SciFact unchanged (2.2 / 2.1 ms, query vector cached).
CANDIDATES = 100
LISTS_READ = 3  # per passage asked for, the candidates read for a list of links (_lists_after_their_notes)
# What a 'word' is to keyword search in Chinese: a question of 40 characters is 39 of them, not a few.
CJK_WORDS = " (each pair of neighbouring Chinese or Japanese characters is one: 缓存击穿 is three)"
# Passages of one file on a page of results at most while other files fill it: a long list of links (a README of
# every note's title) or a long note matched by many passages took a whole page from the notes themselves.
PER_FILE = 2
# A file of PER_FILE passages or fewer (a short note cut in two) takes one place: its two passages are the whole
# note, and took two of the top five ('skip a broken commit when bisecting'); its first hit says the rest ranked.
# a BibTeX library (ingest.kinds.BIBTEX_EXTENSIONS): a passage is one entry, whose 'File:' line names its own PDFs;
# a hit on Vaswani's entry listed every PDF of the library, hundreds of them, as attached
BIBLIOGRAPHY_ENDINGS = (".bib", ".bibtex")
LINKS_SHOWN = 20  # a hit's attached PDFs or citing notes listed, by path (the total is given too)
QUERY_VECTORS_KEPT = 256
MAX_PHRASES = 8  # quoted phrases whose holders go first (_phrases_first)
WARM_SLICE = 10_000  # chunk ids whose vectors warm() reads while holding the connection (about 0.2 s of CPU)
SQLITE_INT = range(-2 ** 63, 2 ** 63)
NOTHING_PUBLISHED = ("nothing is searchable yet: no collection has published a generation (the first one may still "
                     "be being built: stats shows its progress)")
NOTHING_REGISTERED = ("nothing is searchable yet: no folder is registered (sift-mcp --root FOLDER or "
                      "`ingest enqueue FOLDER` adds one)")
# A lone surrogate (from a JSON "\udcff" escape, say) is not text: SQLite, the tokenizer and JSON refuse it.
SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class Hit:
    chunk_id: int
    collection: str
    path: str
    title: str
    kind: str
    heading_path: str
    start_line: int | None
    end_line: int | None
    page: int | None
    end_page: int | None
    snippet: str
    score: float
    keyword_rank: int | None
    semantic_rank: int | None
    generation: int
    modified: float
    page_label: str | None = None  # the number printed on the page (a PDF's page labels), where it is not `page`
    end_page_label: str | None = None
    attachments: list[str] = field(default_factory=list)  # PDFs a note cites or stands for
    cited_by: list[str] = field(default_factory=list)  # notes that cite this PDF
    attachments_total: int = 0  # how many PDFs the note cites: attachments holds the first LINKS_SHOWN
    cited_by_total: int = 0  # how many notes cite the PDF: cited_by holds the first LINKS_SHOWN
    # of the attachments shown, those the published collection does not hold: path -> why (missing, failed …)
    attachments_not_indexed: dict[str, str] = field(default_factory=dict)
    more_in_file: int = 0  # on a file's first hit: its passages that ranked among the page's, left off (PER_FILE)
    also_in: list[str] = field(default_factory=list)  # the same file on disk through other collections (paths)
    conflict_copies: list[str] = field(default_factory=list)  # its sync conflict copies that matched too (copies)
    conflict_copy_of: str | None = None  # of a sync conflict copy shown alone: the note it is a copy of
    conflict_original_matched: bool = False  # ... which ranks too, with passages other than this one
    author: str | None = None  # a PDF's metadata author, which search finds it by (its title column holds it)
    # of a note's passage that defines footnotes: {label: the lines that cite it} (``footnotes.cited_at``)
    footnotes_cited: dict[str, list[int]] = field(default_factory=dict)
    data_rows: str | None = None  # a data file's passage: how few of its rows search finds (listing.data_rows)
    dated: float | None = None  # the date the passage is about, where its file says one (ingest.passage_dates)
    mail_thread: list[str] = field(default_factory=list)  # a saved message's: its thread's others (mail_threads)


@dataclass
class Answer:
    query: str
    mode: str  # the mode that answered
    hits: list[Hit]
    generations: dict[str, int]
    notes: list[str] = field(default_factory=list)
    took_ms: float = 0.0
    models: list[str] = field(default_factory=list)  # the model ids that embedded the query (none: keyword)
    # the query's words no published passage holds: [{"word": as typed, "suggestion": str or None}] (spelling.Said)
    unmatched: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The answer as plain data; ``unmatched`` only when a word is, and a hit's ``heading_path`` only when it has
        one (a passage before any heading printed ``"heading_path": ""``), as the MCP tool gives them."""
        data = asdict(self)
        if not data["unmatched"]:
            del data["unmatched"]
        for hit in data["hits"]:
            if not hit["heading_path"]:
                del hit["heading_path"]
            if hit["dated"] is None:  # a passage whose file says no date of its own (the key is new: kept out)
                del hit["dated"]
            if not hit["mail_thread"]:  # a saved message's thread (new: kept out where there is none)
                del hit["mail_thread"]
        return data


class SearchError(ValueError):
    """A request the engine cannot answer; the message says what to change."""


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
        self._held: tuple[str, dict] = ("", {})  # the last keyword query's held forms (``keyword.held_forms``)
        self._swapped: tuple[str, dict] = ("", {})  # and its words looked up as the word meant (two letters swapped,
        # one dropped, added or changed: ``keyword.slip_forms``), which the spelling note still names
        self.query_vectors_kept = QUERY_VECTORS_KEPT  # 0: embed every query (benchmarks)
        self.warm_slice = WARM_SLICE

    # -- public ------------------------------------------------------------
    def search(self, query: str, limit: int = 10, mode: str = "hybrid", filters: Filters | None = None) -> Answer:
        started = time.perf_counter()
        notes: list[str] = []
        unmatched: list[dict] = []
        query, limit, mode = _validate(query, limit, mode, notes)
        filters = _checked_filters(filters)
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
                        ranked, used, models = self._rank(conn, query, limit, used, filters, state, notes,
                                                          prepared, read)
                        ranked = _phrased(read, query, ranked, used, notes)
                        common_words = functools.cache(lambda: self._common_words(conn, query, state))  # once
                        ranked = _lists_after_their_notes(read, query, ranked, notes, limit)
                        ranked = _titled_first(conn, query, ranked, used, notes, common_words() if ranked else set())
                        ranked, tagged = tags.tagged_first(conn, query, ranked, used, filters, read.catalog)
                        if tagged:  # a '#tag' names the tag, however common its words (search.query.tags)
                            _note(notes, f"the passages of notes tagged {', '.join('#' + t for t in tagged)} come "
                                         "first, each keeping the score it ranked with")
                        ranked = _phrases_first(conn, query, ranked, used, notes)
                        ranked = _definitions_first(read, query, ranked, used, filters, notes)
                        ranked = _traced_first(read, query, ranked, used, filters, notes)
                        ranked = self._users_first(read, query, ranked, used, filters, state, notes)
                        ranked = _messages_first(read, query, ranked, used, notes)
                        ranked = _own_notes_first(read, query, ranked, used, notes)
                        unmatched = self._spelling(conn, query, used, state, notes, filters.collection) \
                            if _in_scope(state["generations"], filters) else []  # nothing searched: no word missed
                        _by_meaning(notes, ranked, used)
                        _no_terms(notes, query, used, bool(state["models"]))
                        common = common_words() if ranked else set()
                        ranked, also = _twins_left_out(ranked, self._catalog_for(conn, state),
                                                       {r["name"]: r["root"] for r in queries.collections(conn)})
                        ranked, copied, copy_of = _copies_folded(ranked, self._catalog_for(conn, state), read,
                                                                  query, common)
                        page, more = _per_file(ranked, limit, self._catalog_for(conn, state))
                        hits = self._hits(read, query, page, common)
                        for hit in hits:
                            hit.more_in_file = more.pop(hit.chunk_id, 0)
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
        answer.took_ms = _took_ms(started)
        return answer

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
            _note(notes, NOTHING_PUBLISHED if queries.collections(self._connection()) else NOTHING_REGISTERED)
            return mode
        if filters.collection is not None and filters.collection not in state["generations"]:
            _note(notes, f"nothing is searchable in {filters.collection!r} yet: it has published no generation "
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
            _note(notes, f"the collection {filters.collection!r} is keyword-only (built with SIFT_EMBEDDINGS=off): "
                         "answered by keyword search")
            return "keyword"
        if without:
            _note(notes, f"{', '.join(without)}: no embeddings (built with SIFT_EMBEDDINGS=off), so "
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
                _note(notes, f"keyword search used the query's first {keyword.MAX_TERMS} different words"
                             + (CJK_WORDS if CJK_RUN.search(query) else "") + ": put the words that matter most first")
        try:
            unranked = self._weightless(conn, query, catalog, state) if len(lexical) > 1 else []  # one: no order
        except sqlite3.Error:  # a hint, like the spelling note: a scratch table this connection cannot make
            unranked = []
        keyword_only = [(cid, score, [rank, None]) for rank, (cid, score) in enumerate(lexical, start=1)]
        if mode == "keyword":
            _unranked(notes, query, unranked, mode)
            return keyword_only, mode, []
        models = _models_in_scope(state, filters)
        try:
            semantic = self._semantic(read, query, depth, filters, state, models, notes, prepared)
        except (ModelError, SearchError) as exc:
            if mode == "semantic":
                raise SearchError(str(exc)) from None
            notes.append(f"answered by keyword search only: {exc}")
            _unranked(notes, query, unranked, "keyword")
            return keyword_only, "keyword", []
        if mode == "hybrid":  # a reference list by its words alone: close in meaning to any query of its field
            semantic = bibliography.left_out(conn, semantic)
        by_meaning = [(cid, score, [None, rank]) for rank, (cid, score) in enumerate(semantic, start=1)]
        if mode == "semantic" or not lexical:  # hybrid without keyword hits: see _by_meaning
            return by_meaning, mode, models
        if unranked and semantic and all(state["by_collection"].get(c) for c in _scope_collections(state, filters)):
            _unranked(notes, query, unranked, mode)  # min-max scaling made its millionths count as much as any
            return by_meaning, mode, models
        return fusion.convex(lexical, semantic), mode, models

    def _weightless(self, conn, query: str, catalog, state) -> list[str]:
        """The query's words found in the index, when keyword search ranks by none of them (keyword.weightless,
        counted as the ranking counted: over the postings in memory, or FTS5's rows); else []. Stops at the
        first word that ranks."""
        postings = self._current_postings(conn, catalog) if self._hold_postings else None
        pieces = query_pieces(query)
        terms = list(dict.fromkeys(t for _, its in pieces for t in its))[:keyword.MAX_TERMS]
        tokens = postings.tokens(conn, terms) if postings is not None else tokenize(conn, terms)
        if any(len(t) > 1 for t in tokens):
            return []  # a word FTS5 splits in two is searched as a phrase, whose count is not a term's
        if postings is not None:
            total, documents = postings.rows.count, postings.documents
        else:
            total = self._total(conn, tuple(sorted(state["generations"].items())))
            documents = functools.partial(queries.term_documents, conn)
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
            words = query_words(content)[:keyword.MAX_TERMS]
            held = keyword.held_forms(content, functools.partial(postings.tokens, conn), postings.documents)
            self._held = (content, held)  # its snippets mark them (``_stem_matches``)
            swapped = keyword.slip_forms(content, functools.partial(postings.tokens, conn), postings.documents,
                                         question.quoted_words(query), held)
            self._swapped = (content, swapped)
            words += [form for forms in [*held.values(), *swapped.values()] for form in forms]
            found = keyword.distinct_forms(words, postings.tokens(conn, words), set(written_words(content)))
            terms = [t[0] if len(t) == 1 else Phrase(w) for w, t in found if t]
            return postings.search(terms, depth, filters, conn)
        key = tuple(sorted(state["generations"].items()))
        content = question.content(query)
        # each word's passages counted once for both (FTS5's vocabulary table reads a word's whole doclist)
        documents = functools.lru_cache(maxsize=None)(functools.partial(queries.term_documents, conn))
        self._held = (content, keyword.held_forms(content, functools.partial(tokenize, conn), documents))
        swapped = keyword.slip_forms(content, functools.partial(tokenize, conn), documents,
                                     question.quoted_words(query), self._held[1])
        self._swapped = (content, swapped)
        return keyword.search(conn, query, depth, filters, self._total(conn, key), len(catalog),
                              {**self._held[1], **swapped})

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
            _note(notes, f"the code passages that {what} {'.'.join(parts)!r} come first (tests after the rest), each "
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
        return self._catalog[1].load_tags(conn) if filters is not None and filters.tags else self._catalog[1]

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
            text = asked or symbols.FRAME.sub(" ", question.content(query))
            held = self._held[1] if self._held[0] == text else None  # the keyword step's, not asked again
            searched = self._swapped[1] if self._swapped[0] == text else {}  # 'default' for 'defualt'
            said = spelling.note(conn, text, postings, mode, collection, held, question.quoted_words(query), searched)
        except sqlite3.Error:  # the note is a hint: a temporary table this connection cannot make costs only it
            return []
        if said is None:
            return []
        _note(notes, said.text)
        return said.unmatched

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
            targets = queries.linked_pdfs(conn, row["file_id"])[0]
            if row["path"].lower().endswith(BIBLIOGRAPHY_ENDINGS):
                targets = _named_in(targets, row["text"])
            pdfs = _resolved_pdfs(targets, self._pdfs_by_name(conn, row) if targets else {})
            return (pdfs[:LINKS_SHOWN], len(pdfs)), ([], 0)
        if row["kind"] == "pdf":
            name = row["path"].rsplit("/", 1)[-1]
            # in any case, as Obsidian reads a link ('[[Paper.PDF]]'), and as read_file's backlinks match
            return ([], 0), queries.linking_files_any_case(conn, row["collection_id"], (row["path"], name), LINKS_SHOWN)
        return ([], 0), ([], 0)

    def _not_indexed(self, conn, row, attachments: list[str]) -> dict[str, str]:
        """Why each of ``attachments`` that the published collection holds no PDF at is not there: a note that
        cited a missing or failed PDF listed it as any other, and read_file on it said only 'no file'."""
        if not attachments:
            return {}
        held = {p for paths in self._pdfs_by_name(conn, row).values() for p, indexed in paths if indexed}
        return {p: _why_not_indexed(conn, row["collection"], p) for p in attachments if p not in held}

    def _pdfs_by_name(self, conn, row) -> dict[str, list[tuple[str, bool]]]:
        """The (path, indexed?) of the hit's collection's PDFs by file name (casefolded), as published: read once per
        generation (a query per bare link took 75 ms at 100k files)."""
        key = (row["collection_id"], row["published"])
        if key not in self._pdf_names:
            names: dict[str, list[tuple[str, bool]]] = {}
            for path, indexed in sorted(queries.pdf_paths(conn, row["collection_id"])):
                names.setdefault(path.rsplit("/", 1)[-1].casefold(), []).append((path, indexed))
            self._pdf_names = {k: v for k, v in self._pdf_names.items() if k[0] != key[0]} | {key: names}
        return self._pdf_names[key]

    def _total(self, conn, key) -> int:
        if key not in self._totals:
            self._totals = {key: queries.chunk_count(conn)}
        return self._totals[key]

    def _hits(self, read: Passages, query, ranked, common: set[str] = frozenset()) -> list[Hit]:
        """The ranked chunks as hits, their snippets marking the query's words but the ``common`` ones."""
        if not ranked:
            return []
        conn, rows = read.conn, read.rows([cid for cid, _, _ in ranked])
        # A question's framing words are not marked: leaving out their bigrams (``common``) did not do for a run of
        # Chinese, which a snippet also marks whole: '内存泄露怎么办' marked **怎么办** in a note on another matter.
        query = question.content(query)
        held = self._held[1] if self._held[0] == query else {}
        held = {**held, **(self._swapped[1] if self._swapped[0] == query else {})}  # 'prevent' for 'prevnet'
        # the forms keyword search found a word by are marked too: 'Kundennummer' found 'Kunde' and 'Nummer', and
        # 'buscar' 'búsqueda', whose snippets marked nothing (no stem of the query's word is in the passage)
        marking = " ".join([query, *dict.fromkeys(form for forms in held.values() for form in forms)])
        accept = _stem_matches(conn, query, held, set().union(*(
            marked_words(r["text"], marking, skip=common, note=r["kind"] == "note", code=r["kind"] == "code",
                         above=_above(r)) for r in rows.values())))
        hits = []
        for cid, score, (kw_rank, sem_rank) in ranked:
            r = rows[cid]
            shown, window = snippet_window(r["text"], marking, skip=common, note=r["kind"] == "note",
                                           code=r["kind"] == "code", accept=accept, above=_above(r))
            hits.append(Hit(chunk_id=cid, collection=r["collection"], path=r["path"], title=r["title"] or "",
                            kind=r["kind"], heading_path=r["heading_path"], start_line=r["start_line"],
                            end_line=r["end_line"], snippet=shown, score=round(score, 6),
                            keyword_rank=kw_rank, semantic_rank=sem_rank, generation=r["published"],
                            modified=r["mtime"], author=r["author"] or None, dated=r["dated"],
                            data_rows=data_rows(r) if r["data_file"] else None, **_pages_shown(r, window)))
            (hits[-1].attachments, hits[-1].attachments_total), (hits[-1].cited_by, hits[-1].cited_by_total) = \
                self._links(conn, r)
            hits[-1].attachments_not_indexed = self._not_indexed(conn, r, hits[-1].attachments)
            labels = footnotes.defined(r["text"]) if r["kind"] == "note" else []
            hits[-1].footnotes_cited = footnotes.cited_at(conn, r["file_id"], labels) if labels else {}
        # a saved message's (.eml): the other messages of its thread in the collection, looked up for the page at once
        saved = [(rows[cid]["collection_id"], rows[cid]["file_id"]) for cid, _, _ in ranked
                 if rows[cid]["path"].lower().endswith(".eml")]
        found = mail_threads.threads(conn, saved) if saved else {}
        for (cid, _, _), hit in zip(ranked, hits):
            hit.mail_thread = [m["path"] for m in found.get(rows[cid]["file_id"], []) if m["path"] != hit.path]
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
        if (chunk_id is None) == (path is None):
            raise SearchError("give either a chunk id or a path, not both and not neither")
        if chunk_id is not None and not _whole(chunk_id):
            raise SearchError(f"the chunk id must be a whole number as search results give it, not {chunk_id!r:.80}")
        if chunk_id is not None and chunk_id not in SQLITE_INT:  # a whole number all the same: none is so big
            raise SearchError(f"no passage with chunk id {str(chunk_id)[:80]} in the published index: chunk ids come from "
                              "search results and change when a file is indexed again")
        if path is not None and not (isinstance(path, tuple) and len(path) == 2 and all(map(_is_text, path))):
            raise SearchError("the path must be (collection, path relative to its root), both valid text")
        if not _whole(limit) or not 1 <= limit <= MAX_LIMIT:
            raise SearchError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
        with self._conn_lock:
            conn = self._connection()
            with db.snapshot(conn):
                state = _published(conn)
                if state["generations"] and not state["model"]:  # nothing published: _source_chunks says so
                    raise SearchError("this index has no embeddings (built with SIFT_EMBEDDINGS=off), so there "
                                      "is nothing to compare by meaning: use search with mode 'keyword'")
                query_ids, file_ids, source = _source_chunks(conn, chunk_id, path, said)
                # a mailbox's message is compared with its other messages too, each one a file's passage would be:
                # a Takeout mailbox holds all one's mail, and 'mail like this one' found none of it
                message = queries.message_chunks(conn, *_file_of(conn, chunk_id)) if chunk_id is not None else None
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
                roots = {row["name"]: row["root"] for row in queries.collections(conn)}
                hits = _one_per_file(self._hits(read, "", ranked), len(ranked), roots, source,
                                     message[0] if message is not None else None)
                hits, kin = _kin_left_out(hits, source, read, file_ids)
                hits = _copies_named(hits, read, [cid for cid, _, _ in ranked])[:limit]
                # 'no other passages found' where date_after left no passage to compare: say which filter did
                filtered = [] if filters is None else filter_notes(read.catalog, filters, bool(hits))
        # a file shown is named as a copy only where a sync tool's name says it is: 'chapter 2.md' beside
        # 'chapter.md', of other text, is a note of its own as likely as iCloud's copy, and got a note each time
        shown = {(hit.collection, hit.path) for hit in hits}
        notes = filtered + [_kin_note(name, source, left) for name, left in kin.items()
                            if left or (name in shown and _named_copy(name[1]) and _named_copy(source[1]))]
        if message is not None:
            notes.append(_others_compared(source, *message))
        others = sorted(c for c, m in state["by_collection"].items() if m and m != model_id)
        if others:
            notes.append(f"compared only with collections embedded with {model_id}: {', '.join(others)} "
                         "use another model")
        label = f"chunk {chunk_id}" if chunk_id is not None else "/".join(path)
        answer = Answer(query=label, mode="similar", hits=hits, generations=state["generations"], notes=notes,
                        models=[model_id])
        answer.took_ms = _took_ms(started)
        return answer

    def _nearest(self, read: Passages, index: VectorIndex, query_ids: list[int], exclude: set[int], limit: int,
                 filters: Filters, body: bool = False) -> list[tuple[int, float, list]]:
        import numpy as np
        vectors = [v for v in (index.vector_of(cid) for cid in query_ids) if v is not None]
        if not vectors:
            raise SearchError("the passage has no stored vector in the published index yet: try again once "
                              "the generation being built is published")
        query = np.mean(vectors, axis=0)
        query = query / max(float(np.linalg.norm(query)), 1e-12)
        depth = max(CANDIDATES, limit * 10)
        found = _without_boilerplate(read, index.search(query, depth, filters, exclude=exclude))
        found = bibliography.left_out(read.conn, found) if body else found
        return [(cid, score, [None, rank]) for rank, (cid, score) in enumerate(found, start=1)]


def _above(row) -> tuple[str, ...]:
    """The headings shown above a hit's snippet: its file's title and its heading path's parts."""
    return (row["title"] or "", *(row["heading_path"] or "").split(" > "))


def _without_boilerplate(read: Passages, found: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """``found`` (nearest by meaning) without the code passages of imports and a licence header alone
    (``symbols.boilerplate``): so short a text is near any query, and ranked among the first for anything.
    Keyword search still finds them by their words."""
    if not found:
        return found
    dropped = {cid for cid, r in read.rows([cid for cid, _ in found], kind="code").items()
               if symbols.boilerplate(r["text"])}
    return [pair for pair in found if pair[0] not in dropped]


def _file_of(conn, chunk_id: int) -> tuple[int, int]:
    """(the file id of the published ``chunk_id``, it): _source_chunks has refused one not published."""
    return queries.visible_chunk_file(conn, chunk_id)[0], chunk_id


def _source_chunks(conn, chunk_id: int | None, path: tuple[str, str] | None, said: tuple[str, str] = ("stats", "refresh")
                   ) -> tuple[list[int], list[int], tuple[str, str]]:
    """(chunks to compare with, every chunk of their file, (its collection, its path)) for ``chunk_id`` or
    ``path``."""
    if chunk_id is not None:
        row = queries.visible_chunk_file(conn, chunk_id)
        if row is None:
            raise SearchError(f"no passage with chunk id {chunk_id} in the published index: chunk ids come "
                              "from search results and change when a file is indexed again")
        return [chunk_id], queries.file_chunk_ids(conn, row[0]), (row[1], row[2])
    collection, relative = path
    ids = queries.visible_path_chunks(conn, collection, relative)
    if not ids:
        raise SearchError(f"{collection}/{relative} has no passages in the published index: "
                          f"{_why_no_passages(conn, collection, relative, said)}")
    return ids, ids, (collection, relative)


def _why_no_passages(conn, collection: str, relative: str, said: tuple[str, str] = ("stats", "refresh")) -> str:
    """Why a file similar is asked about has no published passages, as the index records it (read_file says
    the same): 'not indexed yet, empty, or failed to parse: see stats' left a model to guess, or to call stats
    and look for the file among every collection's failures. ``said``: (what shows progress, what queues a scan)
    as the caller names them: `ingest similar` said 'stats shows …', a command it does not have."""
    stats, rescan = said
    row = queries.latest_progress(conn, collection, relative)
    if row is None:  # the generation that read an empty file is gone once a newer one is published
        if queries.visible_file(conn, collection, relative) is not None:
            return "it is indexed, but holds no text to compare"
        return f"no scan has read it yet ({rescan} queues one)"
    if row["reason"] == queries.DEFERRED:  # on its way: a later part of the first build reads it
        return f"{row['reason']}; similar compares it once that part is published"
    if row["state"] in ("failed", "skipped"):
        return f"{row['state']} at {row['stage']}: {row['reason']}"
    if queries.visible_file(conn, collection, relative) is not None:
        return "it is indexed, but holds no text to compare"
    return f"it waits to be indexed: {stats} shows the generation being built"


def _why_not_indexed(conn, collection: str, path: str) -> str:
    """Why a PDF a note cites is not in the published index, as the index records it."""
    row = queries.latest_progress(conn, collection, path)
    if row is None:
        roots = queries.collections(conn, collection)
        if roots and os.path.isfile(os.path.join(roots[0]["root"], path)):  # no scan recorded it: left out, or new
            return unindexed.in_folder(conn, roots[0], path, time.time())
        return "no PDF of that name is in the folder" if "/" not in path else "not in the folder"
    if row["state"] in ("failed", "skipped"):
        return f"{row['state']} at {row['stage']}: {row['reason']}"
    if row["change"] == "deleted":
        return "deleted from the folder"
    return "not in the published index yet: list_files shows its state"


def _named_in(targets: list[str], text: str) -> list[str]:
    """Those of a library's ``targets`` whose file name its entry's passage ``text`` names on its 'File:' line
    (ingest.bibtex: 'File: a.pdf; b.pdf'), whole: as part of the text, 'a.pdf' of another entry was listed on the
    entry naming 'data.pdf'."""
    named = {name.strip().casefold() for line in text.splitlines() if line.startswith("File: ")
             for name in line[len("File: "):].split("; ")}
    return [target for target in targets if target.rsplit("/", 1)[-1].casefold() in named]


def _resolved_pdfs(targets: list[str], by_name: dict[str, list[tuple[str, bool]]]) -> list[str]:
    """The PDFs a note links to, by path: a bare name (``[[paper.pdf]]``, a link by file name, as wiki links are)
    stands for the collection's PDFs of that name (the one at the root alone, if there is one there), and stays as
    written when it names none. It was listed bare, where other links and a PDF's 'cited by' give paths. A name or
    path in any case is the PDF's, as Obsidian reads a link and as the PDF's 'cited by' counts it (``by_name`` is
    keyed by the names casefolded)."""
    paths: set[str] = set()
    held = {path.casefold(): path for found in by_name.values() for path, _ in found} if targets else {}
    for target in targets:
        if "/" in target:
            paths.add(held.get(target.casefold(), target))
            continue
        found = [path for path, _ in by_name.get(target.casefold(), [])]
        paths.update([path for path in found if path.casefold() == target.casefold()] or found or [target])
    return sorted(paths)


def _pages_shown(row, window: tuple[int, int] | None) -> dict:
    """A hit's page, end_page and their labels: those of a PDF passage's pages that the words its snippet marks
    are on; the passage's, where it marks none (found by meaning alone, the passage as a whole matched: naming the
    page its snippet starts on sent the reader to the first of its pages only)."""
    page, end_page = row["page"], row["end_page"]
    if row["page_starts"] is None or not end_page or end_page == page or window is None:
        return {"page": page, "end_page": end_page, "page_label": row["page_label"],
                "end_page_label": row["end_page_label"]}
    page, end_page = snippet_pages(row["text"], json.loads(row["page_starts"]), window)
    labels = json.loads(row["page_labels"]) if row["page_labels"] else []
    label = lambda n: labels[n - 1] if 0 < n <= len(labels) else None  # noqa: E731
    return {"page": page, "end_page": end_page, "page_label": label(page), "end_page_label": label(end_page)}


def printed(hit) -> str:
    """' (printed 8)' / ' (printed 8-9)': the numbers printed on a PDF hit's pages, when they are not the pages'
    places in the file, which `page` gives (and read_file takes)."""
    get = hit.get if isinstance(hit, dict) else lambda key: getattr(hit, key)
    first, last = get("page_label"), get("end_page_label")
    if not first or (first == str(get("page")) and (last or first) == str(get("end_page") or get("page"))):
        return ""
    return f" (printed {first}-{last})" if last and get("end_page") != get("page") else f" (printed {first})"


def _took_ms(started: float) -> float:
    """Milliseconds since ``started`` (a perf_counter), as precise as a search's time is: tenths under 10 ms,
    whole ms above (an int, which prints without '.0'). Two decimals ('1853.78 ms') were noise: the same search
    varies by more than that from one run to the next."""
    ms = (time.perf_counter() - started) * 1000
    return round(ms, 1) if round(ms, 1) < 10 else round(ms)


def _unranked(notes: list[str], query: str, words: list[str], mode: str) -> None:
    """Note that keyword search ranked by none of ``words`` (Engine._weightless), if there are any."""
    if words:
        _note(notes, keyword.unranked_note(spelling.as_named(query, words), mode))


def _by_meaning(notes: list[str], ranked: list, mode: str) -> None:
    """Say so when a hybrid search found no passage by keyword (its words are in none of the passages searched,
    or rank none: ``_unranked``): its results are the nearest by meaning, scored by similarity as mode 'semantic'
    scores them. Fused, the best of them scored 0.5 (its meaning scaled to 1 over the candidates, at half the
    weight), however far its meaning was: a made-up word's nearest passages read as a fair match."""
    if mode == "hybrid" and ranked and all(kw is None for _, _, (kw, _) in ranked) \
            and not any(n.endswith(keyword.BY_MEANING) for n in notes):
        _note(notes, f"no passage searched holds any of the query's words: {keyword.BY_MEANING}")


def _no_terms(notes: list[str], query: str, used: str, has_vectors: bool) -> None:
    """Say why a keyword search of emoji or other symbols alone found nothing: the index holds letters and digits
    only, so '🚀' has no term to look up, and the answer was a bare 'no results'."""
    if used == "keyword" and not query_words(query):
        how = " (mode 'hybrid' or 'semantic' matches it by meaning)" if has_vectors else ""
        _note(notes, f"keyword search finds words and numbers, not emoji or other symbols: {query.strip()[:40]!r} "
                     f"has nothing it can look up{how}")


def _scope_collections(state: dict, filters: Filters) -> list[str]:
    """The published collections a search looks at."""
    return [filters.collection] if filters.collection is not None else list(state["by_collection"])


def _note(notes: list[str], note: str) -> None:
    """Add ``note`` once (a search that loads a model looks at the index twice)."""
    if note not in notes:
        notes.append(note)


def context_line(title: str | None, heading_path: str | None) -> str:
    """What a hit is under, as results show it above the snippet: the file's title and the heading path, the title
    once when the path starts with it ('Plan > Goals'), either alone when the other is empty ('第十周周报' for a
    note titled in its front matter, 'a0013' for one with an empty heading)."""
    title, heading = title or "", heading_path or ""
    return heading if title and heading.startswith(title) else " — ".join(p for p in (title, heading) if p)


def _phrased(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """The ``ranked`` passages that hold every Chinese phrase the query quotes (``quoted_phrases``), in keyword
    and hybrid search: a quoted "付款方式" was searched as its bigrams alone, so passages holding only 付款 or 方式
    came with (or before) the one holding the phrase. When none holds them, all are kept, and a note says so."""
    phrases = quoted_phrases(query) if mode != "semantic" and ranked else []
    if not phrases:
        return ranked
    rows = read.rows([cid for cid, _, _ in ranked]).values()
    holding = {r["id"] for r in rows if all(
        form in phrase_form(f"{r['title'] or ''}|{r['heading_path']}|{r['text']}") for _, form in phrases)}
    kept = [hit for hit in ranked if hit[0] in holding]
    if not kept:
        shown = " and ".join(f'"{typed}"' for typed, _ in phrases)
        _note(notes, f"no passage found holds {shown} as quoted: the results are those holding some of its words")
        return ranked
    return kept


def _lists_after_their_notes(read: Passages, query: str, ranked: list, notes: list[str], limit: int) -> list:
    """``ranked`` with each note passage that is mostly a list of links to other notes (an index note, a README's
    table of contents: ``lists``) after the passages of the notes it links to that came below it, in every mode:
    the titles of all notes, by folder, shared a word with any long question, and notes-en's README came first for
    'Why is the Vim clipboard not synced with the system clipboard in VS Code', above the note its own list linked
    to. A list the query names stays (``_names_list``: 'my reading list'). Scores stay as ranked; a note says so
    when the order changed. The lists looked for are among the first LISTS_READ × ``limit`` passages (30 at
    least): reading every candidate's text for its links took a tenth of a keyword search's time."""
    ids = [hit[0] for hit in ranked]
    rows = read.rows(ids[:max(30, LISTS_READ * limit)], kind="note") if ranked else {}
    targets = {at: found for at, cid in enumerate(ids) if cid in rows
               if (found := lists.link_targets(rows[cid]["text"], rows[cid]["path"]))}
    titles = {at: (set(), names) for at, cid in enumerate(ids) if cid in rows and at not in targets
              if (names := lists.title_names(rows[cid]["text"]))}  # '- Title' lines without links
    targets.update(titles)
    if not targets:
        return ranked
    catalog = read.catalog
    places = [(str(catalog.collections[f]), catalog.paths[f]) for f in catalog.files(ids)]
    moved = lists.after_their_notes(ranked, places, targets, frozenset(titles))
    if moved != ranked:  # the query's words are looked up only when a list moves
        named = _names_list(read.conn, query, [rows[ids[at]] for at in targets])
        targets = {at: found for (at, found), name in zip(targets.items(), named) if not name}
        moved = lists.after_their_notes(ranked, places, targets, frozenset(titles))
    if [hit[0] for hit in moved] != ids:
        _note(notes, "a passage that is mostly a list of links (or of notes' titles) comes after the notes it "
                     "links to, each keeping the score it ranked with")
    return moved


def _names_list(conn, query: str, rows: list) -> list[bool]:
    """Whether the query names each list passage of ``rows``: the list's title and headings hold half of its words
    or more (a question's framing left out), two of them at least or its only one, stemmed as keyword search stems
    them ('my reading list' names the note 'Reading List'; 'how do i prevnet my mac from going to sleep' does not
    name notes-en's README section 'TIL > Mac', whose items hold its other words)."""
    asked = query_words(question.content(query))[:keyword.MAX_TERMS]
    own = [WORD.findall(normalise(f"{row['title'] or ''} {row['heading_path'] or ''}")) for row in rows]
    if not asked:
        return [False] * len(rows)
    try:
        tokens = tokenize(conn, asked + [word for words in own for word in words])
    except sqlite3.Error:  # a scratch table this connection cannot make: no list is named
        return [False] * len(rows)
    wanted = {token for found in tokens[:len(asked)] for token in found}
    named, at = [], len(asked)
    for words in own:
        held = wanted.intersection(token for found in tokens[at:at + len(words)] for token in found)
        at += len(words)
        named.append(2 * len(held) >= len(wanted) and (len(held) >= 2 or bool(held) and held == wanted))
    return named


def _stem_matches(conn, query: str, held: dict[str, list[str]], words: set[str]) -> Callable[[str], bool] | None:
    """Whether a word a snippet would mark (``words``: those of the hits, as folded) is one keyword search matched:
    a snippet marks the words that begin with a query word's first letters (its stem, so 'indexing' marks
    'indexed'), which marked 'Time' for 'timeout' and 'Statements' beside it, as if the passage held both words.
    An ASCII word whose tokens (stemmed by the index's own tokenizer) share none with the query's is not marked.
    ``held``: the other forms keyword search looked query words up by (``keyword.held_forms``), whose words are
    marked too. None (mark all) when the tokenizer cannot be asked."""
    loose = sorted(w for w in words if w.isascii() and w.isalpha())
    if not loose:
        return None
    asked = query_words(query)[:keyword.MAX_TERMS] + [form for its in held.values() for form in its]
    try:
        tokens = tokenize(conn, asked + loose)
    except sqlite3.Error:  # a scratch table this connection cannot make: mark as before
        return None
    wanted = {token for found in tokens[:len(asked)] for token in found}
    of_word = dict(zip(loose, tokens[len(asked):]))
    refused = {word for word, found in of_word.items() if found and not wanted.intersection(found)}
    return lambda word: word not in refused


def _phrases_first(conn, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the passages holding every phrase of Latin words the query quotes first, each in their
    order, in keyword and hybrid search: the words of a phrase side by side, stemmed as keyword search stems them
    ('write ahead logging' holds "write ahead log"). '"working tree"' was searched by its words alone, and ranked
    'Display The Contents Of A Directory As A Tree' and a note on netrw's tree style above the notes that say
    'working tree'. A quoted Chinese phrase keeps only its holders (``_phrased``). Scores stay as ranked; a note
    says so when the order changed."""
    if mode == "semantic" or not ranked:
        return ranked
    phrases = []
    for match in QUOTED.finditer(query):
        inner = next(group for group in match.groups() if group is not None)
        words = WORD.findall(normalise(inner))
        if len(words) > 1 and not CJK_RUN.search(inner):
            phrases.append((inner.strip(), '"' + " ".join(words) + '"'))
    # each phrase once, the first few: a pasted stack trace quotes its file paths, one a frame (400 of one path
    # made an FTS5 expression of 400 phrases: 6.3 s at 100,000 passages)
    phrases = list(dict.fromkeys(phrases))[:MAX_PHRASES]
    if not phrases:
        return ranked
    holding = queries.matching(conn, " AND ".join(expression for _, expression in phrases),
                               list(dict.fromkeys(cid for cid, _, _ in ranked)))
    moved = [hit for hit in ranked if hit[0] in holding] + [hit for hit in ranked if hit[0] not in holding]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        shown = " and ".join(f'"{typed}"' for typed, _ in phrases)
        _note(notes, f"the passages holding {shown} as quoted come first, each keeping the score it ranked with")
    return moved


def _titled_first(conn, query: str, ranked: list, mode: str, notes: list[str], common: set[str]) -> list:
    """``ranked`` with the passages of the files whose title (with its aliases, tags and file name's words) holds
    every word of a query of several words (but the ``common`` ones keyword search drops) first, each in their
    order, in keyword and hybrid search: 'skip pre-commit hooks' ranked the note titled 'Skip Pre-Commit Hooks'
    below 'Skip Git Hooks As Needed', which says skip, commit and hooks more often, and '"statement timeout"'
    ranked 'Limit Execution Time Of Statements' above 'Set A Statement Timeout Threshold For A Session'. Words are
    matched as keyword search matches them (stemmed: 'hook' holds 'hooks'). A tag of several words ('#project/shed',
    one word to the query's spaces) counts as such a query: a note's tags are in its title. Scores stay as ranked;
    a note says so when the order changed."""
    asked = iso_dates(query)  # a date as a title writes it: '3月20号的日记' is '03-20 日记', the note of 2024-03-20
    if mode == "semantic" or not ranked or (len(asked.split()) < 2 and not query.strip().startswith("#")
                                            and not only_date(query)):
        return ranked  # one word, but a note's #tag ('#project/shed' puts the notes tagged so first) or a date
    # an English date also as written: 'standup March 14' is the note titled 'Standup March 14' as well as the one
    # named 2024-03-14 (as ISO alone, 'standup 03-14', the note titled so was left below a log saying it more often)
    # and with its month the other way: 'standup Mar 14' is the note titled 'Standup March 14' too, and the reverse
    written = iso_dates(query, english=False)
    either = [e for e in dict.fromkeys(_title_words(conn, form, query, common) for form in
                                       (asked, written, month_names_swapped(written))) if e]
    if not either:
        return ranked
    expression = "title : (" + " OR ".join(either) + ")" if len(either) > 1 else "title : " + either[0]
    titled = queries.matching(conn, expression, list(dict.fromkeys(cid for cid, _, _ in ranked)))
    moved = [hit for hit in ranked if hit[0] in titled] + [hit for hit in ranked if hit[0] not in titled]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        _note(notes, "the passages of files whose title holds every word of the query come first, each keeping "
                     "the score it ranked with")
    return moved


def _title_words(conn, asked: str, query: str, common: set[str]) -> str | None:
    """The FTS5 expression a title holding ``asked`` (``query`` with its dates written as titles write them) matches:
    a date alone as its words side by side, however common each is ('2024', '03'); else every word but the
    ``common`` ones; None for fewer than two such words."""
    if only_date(query):  # its year, month and day side by side
        return '"' + " ".join(written_words(asked)) + '"'
    words = [word for word in written_words(asked) if word not in common][:keyword.MAX_TERMS]
    languages, names = query_languages(normalise(asked)), surnames(asked)
    return "(" + " AND ".join(_either_script(w, languages, names) for w in words) + ")" if len(words) >= 2 else None


def _either_script(word: str, languages: frozenset[str] = frozenset(), names: frozenset[str] = frozenset()) -> str:
    """A query word as an FTS5 expression that a title written in either Chinese script matches ('会议' as
    '("会议" OR "會議")', as keyword search looks it up): '會議記錄 台北' put the note tagged 会议 first, and
    '2024年3月21日 会议' the meeting of that day tagged 會議 (6th before). Another language's word in any of its
    forms (``inflected_forms``): 'поиска документов' is the note titled 'Поиск документов'."""
    forms = [word, *(other_scripts(word) if CJK_RUN.fullmatch(word) else inflected_forms(word, languages, names))]
    quoted = ['"' + form.replace('"', '""') + '"' for form in forms]
    return quoted[0] if len(quoted) == 1 else "(" + " OR ".join(quoted) + ")"


def _definitions_first(read: Passages, query: str, ranked: list, mode: str, filters: Filters, notes: list[str]
                       ) -> list:
    """``ranked`` with the passages of the files the query names first (``symbols.names_file``: ``filters.py``,
    ``pypdf/filters.py``; a named file none of whose passages ranked comes with its first, scored 0), then the
    code passages that define the name the query is (``symbols.code_name``: ``periodic_task``, ``Huey.enqueue``,
    ``Lexer::next_token``, ``MAX_RETRIES``), each in their order, in keyword and hybrid search: the name's words,
    split and stemmed, ranked other functions that say them more often (``periodic_tasks``) above its
    definition, other files that say 'filters' above filters.py, and a path's folder, which no passage holds,
    left its file out. Scores stay as ranked; a note says so when the order changed."""
    if mode == "semantic" or any(c.isspace() for c in query.strip()):
        return ranked
    named = _named_files(query, ranked, read.catalog, filters)
    parts = symbols.code_name(query)
    rows = read.rows([cid for cid, _, _ in ranked], kind="code").values() if parts and ranked else []
    defining = {r["id"] for r in rows if symbols.defines(parts, r["heading_path"] or "", r["text"], r["path"])}
    declaring = {r["id"] for r in rows if r["id"] in defining and symbols.declares(parts[-1], r["text"])}
    shared = {r["id"] for r in rows if r["id"] in defining and symbols.joined(r["heading_path"] or "")}
    # a definition cut in two: the passage with its 'def' line before the rest ('Postings.search' put the rest first);
    # of two definitions of the name, the one with a passage of its own before one joined to a neighbour (huey's
    # Huey.periodic_task before the few lines of MiniHuey.periodic_task, shorter and so higher by BM25)
    first = named + sorted((hit for hit in ranked if hit[0] in defining),
                           key=lambda hit: (hit[0] not in declaring, hit[0] in shared))
    chosen = {hit[0] for hit in first}
    moved = first + [hit for hit in ranked if hit[0] not in chosen]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        what = "the file it names" if named and not defining else (
            f"the definitions of {query.strip()!r}" if not named else "the file it names, then its definitions")
        _note(notes, f"{what} come first, each keeping the score it ranked with")
    return moved


def _messages_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the code passages holding the string that makes a pasted message first (``symbols.
    message_match``: 'part 3 of a.png failed after 6 attempts' is f"part {number} of {key} failed after {attempt + 1}
    attempts"), the one holding more of it first, in keyword and hybrid search, for a query of three words or more.
    Its words ranked a runbook quoting the message and passages saying its words more often above the line that
    makes it. Scores stay as ranked; a note says so when the order changed."""
    if mode == "semantic" or len(query.split()) < 3 or not ranked:
        return ranked
    code = read.rows([hit[0] for hit in ranked], kind="code")  # only code makes a message: a note is not read
    held = {cid: symbols.message_match(query, r["text"]) for cid, r in code.items()}
    first = sorted((hit for hit in ranked if held.get(hit[0])), key=lambda hit: -held[hit[0]])
    chosen = {hit[0] for hit in first}
    moved = first + [hit for hit in ranked if hit[0] not in chosen]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        _note(notes, "the code passages holding the text that makes the message come first, each keeping the score it "
                     "ranked with")
    return moved


def _own_notes_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with each BibTeX entry's passage after the other files' passages that keyword search found (they
    hold the query's words), when the query asks for the user's own notes (``question.OWN_NOTES``), in keyword and
    hybrid search: 'my notes on @vaswani2017attention' ranked the two .bib entries of that citekey, headed by it,
    above the note citing it (3rd). An entry comes no earlier than it ranked, and before the passages found by
    meaning alone that it ranked above: with no note on it, it is the answer. Scores stay as ranked; a note says so
    when the order changed."""
    if mode == "semantic" or not ranked or not question.OWN_NOTES.search(query):
        return ranked
    rows = read.catalog.files([hit[0] for hit in ranked])
    entries = {hit[0] for hit, row in zip(ranked, rows)
               if read.catalog.paths[row].lower().endswith(BIBLIOGRAPHY_ENDINGS)}
    if not entries:
        return ranked
    rest = [hit for hit in ranked if hit[0] not in entries]
    after = max((i + 1 for i, hit in enumerate(rest) if hit[2][0] is not None), default=0)
    placed: dict[int, list] = {}
    before = 0
    for hit in ranked:
        if hit[0] in entries:
            placed.setdefault(max(before, after), []).append(hit)
        else:
            before += 1
    moved = [hit for i, other in enumerate(rest) for hit in [*placed.get(i, []), other]] + placed.get(len(rest), [])
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        _note(notes, "the query asks for your notes: the BibTeX entries come after the other files' passages "
                     "holding its words, each keeping the score it ranked with")
    return moved


def _traced_first(read: Passages, query: str, ranked: list, mode: str, filters: Filters, notes: list[str]) -> list:
    """``ranked`` with the passages at the lines a pasted stack trace names first (``symbols.frames``: 'File
    "/usr/lib/python3.11/asyncio/base_events.py", line 653', 'at use (/app/router/index.js:376:9)'), in the trace's
    order, in keyword and hybrid search: of each file the trace names (``symbols.traced_files``), the passage
    holding the line that starts nearest before it; one none of the rankings found comes scored 0 and unranked.
    The trace's words ranked other passages that say asyncio, events and run above the function it ran in. Scores
    stay as ranked; a note says so when the order changed."""
    traced = symbols.frames(query) if mode != "semantic" else []
    if not traced:
        return ranked
    catalog = read.catalog
    mask = catalog.mask(filters)
    found = []
    files: dict[str, list[int]] = {}  # a long trace names a file at many lines: each file is looked for once,
    passages: dict[int, list] = {}  # and its passages read once (a paste of 130 frames read them 130 times)
    for path, line in traced:
        if path not in files:
            files[path] = symbols.traced_files(path, catalog.collections, catalog.paths, catalog.named)
        for row in files[path]:
            if row not in passages:  # their lines alone: a file copied in 20 collections is 20 files' passages
                ids = catalog.chunks_of(row, mask)
                passages[row] = [lines for lines in queries.chunk_lines(read.conn, ids) if lines[1] is not None]
            holding = [(cid, start) for cid, start, end in passages[row] if start <= line <= end]
            if holding:
                found.append(max(holding, key=lambda held: (held[1], -held[0]))[0])
    by_id = {hit[0]: hit for hit in ranked}
    first = [by_id.get(cid, (cid, 0.0, [None, None])) for cid in dict.fromkeys(found)]
    moved = first + [hit for hit in ranked if hit[0] not in set(found)]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        _note(notes, "the passages at the lines the stack trace names come first, each keeping the score it ranked "
                     "with")
    return moved


def _named_files(query: str, ranked: list, catalog: Catalog, filters: Filters) -> list:
    """The passages of the files (within ``filters``) the query names (``symbols.names_file``): those ``ranked``,
    in their order, and for a file none of whose passages ranked, its first, scored 0 and unranked."""
    wanted = query.strip().strip("/").casefold()
    if "." not in wanted.rsplit("/", 1)[-1] and "/" not in wanted:
        return []
    name = wanted.rsplit("/", 1)[-1]
    rows = {row for row in catalog.named(name)
            if symbols.names_file(query, catalog.collections[row], catalog.paths[row])}
    if not rows:
        return []
    files = catalog.files([cid for cid, _, _ in ranked])
    named = [hit for hit, row in zip(ranked, files) if row in rows]
    for row in sorted(rows - set(files)):
        first = catalog.first_chunk(row, filters)
        if first is not None:
            named.append((first, 0.0, [None, None]))
    return named


def conflict_line(copies_folded: list[str] | None, copy_of: str | None, original_matched: bool = False) -> str:
    """The line under a hit that is, or stands for, a sync conflict copy (search.query.copies)."""
    if copy_of and original_matched:
        return f"(a sync conflict copy of {copy_of}, which matched too: this copy holds words of the search it does not)"
    if copy_of:
        return f"(a sync conflict copy of {copy_of}, which did not match)"
    return f"(its sync conflict {'copy' if len(copies_folded) == 1 else 'copies'} {', '.join(copies_folded)} " \
           "matched too: left off the page for other notes; read_file reads each)"


def more_in_file(count: int, again: str | None = None) -> str:
    """The line under a file's first hit when more of its passages ranked among the page's than PER_FILE;
    ``again``: the search that shows them (the MCP tool's arguments), else read_file is named."""
    how = f": search again with {again} to see them" if again else " (read_file shows the file)"
    return f"+ {count:,} more passage{'s' if count > 1 else ''} of this file ranked among these, left off for other files{how}"


def _per_file(ranked: list, limit: int, catalog: Catalog) -> tuple[list, dict[int, int]]:
    """The first ``limit`` of ``ranked`` with at most PER_FILE passages of a file, one of a file that has no more
    than PER_FILE (the passages left off fill
    the page when too few other files match), in rank order, and {chunk id of a file's first passage on the page:
    how many of its passages ranked above the page's last were left off}."""
    files = catalog.files([cid for cid, _, _ in ranked])
    seen: Counter = Counter()
    kept, over = [], []
    for i, file in enumerate(files):
        seen[file] += 1
        (kept if seen[file] <= (PER_FILE if catalog.passages(file) > PER_FILE else 1) else over).append(i)
        if len(kept) == limit:
            break
    if len(kept) < limit:  # too few other files: none was left off for them
        kept, over = sorted(kept + over[:limit - len(kept)]), []
    left = Counter(files[i] for i in over)
    first: dict[int, int] = {}
    for i in kept:
        first.setdefault(files[i], ranked[i][0])
    return [ranked[i] for i in kept], {first[f]: n for f, n in left.items()}


def _twins_left_out(ranked: list, catalog: Catalog, roots: dict[str, str]) -> tuple[list, dict]:
    """``ranked`` with the passages of a file reached through two collections (a root inside another's:
    personal/x.md and all/personal/x.md) kept through one alone, the innermost root's (as _one_per_file keeps
    for similar), and {(collection, path) kept: the other collections' paths of the file}. Twins ranked at the
    same score and took two of the page's places for one file."""
    if not ranked or not _nested(tuple(sorted(roots.values()))):
        return ranked, {}
    rows = catalog.files([item[0] for item in ranked])
    where = {row: (str(catalog.collections[row]), catalog.paths[row]) for row in set(rows)}
    twins: dict[str, list[tuple[str, str]]] = {}
    for collection, path in where.values():
        twins.setdefault(file_place(roots, collection, path), []).append((collection, path))
    kept_of, also = {}, {}
    for names in twins.values():
        names.sort(key=lambda cp: (-len(roots.get(cp[0], "")), cp[0]))
        for name in names:
            kept_of[name] = names[0]
        if len(names) > 1:
            also[names[0]] = [f"{c}/{p}" for c, p in names[1:]]
    return [item for item, row in zip(ranked, rows) if kept_of[where[row]] == where[row]], also


def _copies_folded(ranked: list, catalog: Catalog, read: Passages, query: str,
                   common: set[str]) -> tuple[list, dict, dict]:
    """``ranked`` without the passages of the sync conflict copies whose note ranks too (search.query.copies): a
    copy holds nearly the note's text, and each of its passages took a second place on the page, at the same
    score, for what the note said already."""
    if not ranked:
        return ranked, {}, {}
    rows = catalog.files([item[0] for item in ranked])
    where = [(str(catalog.collections[row]), catalog.paths[row]) for row in rows]

    def held(collection: str, path: str) -> bool:
        return any(str(catalog.collections[row]) == collection and catalog.paths[row] == path
                   for row in catalog.named(path.rsplit("/", 1)[-1]))
    return copies.fold(ranked, where, held, lambda ids: {cid: row["text"] for cid, row in read.rows(ids).items()},
                       query, common)


@functools.lru_cache(maxsize=8)
def _nested(roots: tuple[str, ...]) -> bool:
    """Whether a root holds another, worked out once per set of roots: every pair was compared on every search (60
    collections, 3,600 pairs: 7 ms a search)."""
    return any(a != b and b.startswith(a.rstrip(os.sep) + os.sep) for a in roots for b in roots)


def _kin_left_out(hits: list[Hit], source: tuple[str, str], read: Passages, file_ids: list[int]
                  ) -> tuple[list[Hit], dict[tuple[str, str], bool]]:
    """``hits`` without those of ``source``'s (collection, path) sync conflict copies, of the note it is a copy of,
    and of that note's other copies (search.query.copies), whose passage is one ``source`` holds too (``file_ids``:
    its chunks): similar on a note gave its own conflict copy first, at 1.0, its own text. One whose passage is
    not (the other machine's edit; or 'plan (1).md' is a note of its own) stays. {each such file: left out}."""
    collection, path = source
    mine = copies.maybe_original_of(path) or path
    kin = {(hit.collection, hit.path): False for hit in hits if hit.collection == collection and hit.path != path
           and (copies.maybe_original_of(hit.path) or hit.path) == mine}
    if not kin:
        return hits, kin
    own = {row["text"] for row in read.rows(file_ids).values()}
    texts = read.rows([hit.chunk_id for hit in hits if (hit.collection, hit.path) in kin])
    kept = []
    for hit in hits:
        if (hit.collection, hit.path) in kin and texts[hit.chunk_id]["text"] in own:
            kin[(hit.collection, hit.path)] = True
            continue
        kept.append(hit)
    return kept, kin


def _copies_named(hits: list[Hit], read: Passages, ranked: list[int]) -> list[Hit]:
    """``hits`` (one per file) without those of the sync conflict copies whose note is among them and holds the
    same passage text among ``ranked`` (the chunks compared, best first), named on the note's hit as search names
    them (``conflict_copies``): a note and its copy took two places at the same score. A copy whose passage its
    note does not hold stays (the other machine's edit, or a note of its own named like a copy)."""
    places = {(hit.collection, hit.path) for hit in hits}
    copied = [hit for hit in hits if (hit.collection, copies.maybe_original_of(hit.path)) in places]
    if not copied:
        return hits
    originals = {(hit.collection, copies.maybe_original_of(hit.path)) for hit in copied}
    rows = read.catalog.files(ranked)
    theirs = {cid for cid, row in zip(ranked, rows)
              if (str(read.catalog.collections[row]), read.catalog.paths[row]) in originals}
    texts = read.rows([*theirs, *[hit.chunk_id for hit in copied]])
    held: dict[tuple[str, str], set] = {}
    for cid, row in zip(ranked, rows):
        if cid in theirs:
            place = (str(read.catalog.collections[row]), read.catalog.paths[row])
            held.setdefault(place, set()).add(texts[cid]["text"])
    folded: dict[tuple[str, str], list[str]] = {}
    for hit in copied:
        original = (hit.collection, copies.maybe_original_of(hit.path))
        if texts[hit.chunk_id]["text"] in held.get(original, ()):
            folded.setdefault(original, []).append(f"{hit.collection}/{hit.path}")
    gone = {name for names in folded.values() for name in names}
    kept = [hit for hit in hits if f"{hit.collection}/{hit.path}" not in gone]
    for hit in kept:
        hit.conflict_copies = folded.get((hit.collection, hit.path), [])
    return kept


def _named_copy(path: str) -> bool:
    """Whether ``path`` is a note, or a copy by a name only a sync tool gives (not iCloud's 'note 2.md')."""
    return copies.original_of(path) is not None or copies.maybe_original_of(path) is None


def _kin_note(kin: tuple[str, str], source: tuple[str, str], left_out: bool) -> str:
    """The note naming a file _kin_left_out found: left out, or shown for a passage the file asked about lacks."""
    name = f"{kin[0]}/{kin[1]}"
    named = "" if left_out else "named as "
    if copies.maybe_original_of(kin[1]) == source[1]:
        what = f"{named}a sync conflict copy of the file asked about"
    elif copies.maybe_original_of(source[1]) == kin[1]:
        what = f"the file asked about is {named}a sync conflict copy of it"
    else:
        what = f"{named}another sync conflict copy of the note the file asked about copies"
    if left_out:
        return f"left out {name}: {what}, and its passage is one the file holds too (read_file reads it)"
    return f"{name} is shown, though {what}: its passage is not one the file holds"


CHAT_DAY = re.compile(r" · \d{4}-\d{2}-\d{2}$")  # a chat's day's heading (ingest.chat): 'Boat club · 2024-03-14'


def _others_compared(source: tuple[str, str], heading: str, _ids, note: bool) -> str:
    """similar's note on a passage of a mailbox's message, a chat's day or an Evernote export's note: the file's
    other ones were compared, each as another file (a chat's day was said a 'message' left out with its 'Subject')."""
    what, left = ("notes", "the note asked about, and any of the same title, left out") if note else (
        ("days", "the day asked about left out") if CHAT_DAY.search(heading) else
        ("messages", "the message asked about, and any of the same Subject, left out"))
    return (f"the other {what} of {source[0]}/{source[1]} are compared too, as other files are (its best passage "
            f"each); {left}")


def _one_per_file(hits: list[Hit], limit: int, roots: dict[str, str], source: tuple[str, str],
                  message: str | None = None) -> list[Hit]:
    """The best hit of each file on disk but ``source`` (collection, path). A file is known by its root and path
    (roots are stored resolved): under a collection whose root holds another's, the same file is in both, and
    similar gave the file asked about as the first 'other file' (score 1.0, as all/notes/x.md), then each
    other file twice. Of a file's twins, the one of the innermost collection is shown (notes/x.md, not
    all/notes/x.md), at the place of the best of them. ``message``: the heading of the mailbox message asked about;
    the mailbox's other messages are each one, as another file."""
    own = file_place(roots, *source)
    place, kept = {own if message is None else (own, message): None}, []
    for hit in hits:
        where = file_place(roots, hit.collection, hit.path)
        where = (where, hit.heading_path) if message is not None and where == own else where
        if where not in place:
            place[where] = len(kept)
            kept.append(hit)
        elif place[where] is not None and len(roots.get(hit.collection, "")) > len(roots.get(
                kept[place[where]].collection, "")):
            kept[place[where]] = replace(hit, score=kept[place[where]].score)
    return kept[:limit]


FILTERED_OUT = "no passage searched is"


def filter_notes(catalog: Catalog, filters: Filters, found: bool) -> list[str]:
    """``filtered_out`` (when nothing was ``found``) and ``undated``, each thing said once: where the date range
    left nothing of passages none of which has a date of its own, the first said 'its own date where its file says
    one, else its file's modified time' and the second that none had one, two notes on one range. One says it."""
    none_dated = undated(catalog, filters)
    out = [] if found else filtered_out(catalog, filters, none_dated=bool(none_dated))
    return out if out and none_dated else out + none_dated


def filtered_out(catalog: Catalog, filters: Filters, none_dated: bool = False) -> list[str]:
    """The note for a search that found nothing because its kind or dates leave no file in the folder searched
    (modified_after a date no file reaches, kind='pdf' where there is none): its answer said 'try other words',
    which cannot help. Not said when the folder or pattern holds nothing itself (their own notes tell that).
    ``none_dated``: no passage searched has a date of its own (``undated``), which the note says in its stead."""
    narrow = Filters(collection=filters.collection, path_prefix=filters.path_prefix, glob=filters.glob)
    if narrow == filters:
        return []
    chosen, scope = catalog.mask(filters), catalog.mask(narrow)
    searched = len(catalog) > 0 if scope is None else scope.any()  # nothing published: its own note says so
    if chosen is None or chosen.any() or not searched:
        return []
    absent = tags.missing(catalog.tags, filters.tags) if filters.tags else []
    if absent:  # a tag none holds: no other filter need be widened, and the tags near it are what to try
        return [f"{FILTERED_OUT} tagged {' or '.join(absent)}: no file holds "
                f"{'that tag' if len(absent) == 1 else 'those tags'}; other words will not help"]
    parts = ([f"of kind {filters.kind}"] if filters.kind else []) \
        + ([f"modified at or after {when(filters.modified_after)}"] if filters.modified_after is not None else []) \
        + ([f"modified before {when(filters.modified_before)}"] if filters.modified_before is not None else [])
    # the date a passage is about is the passage's, not its file's: 'in a file dated at or after …' read as the
    # file's own date, and a mailbox modified today seemed to be refused by date_after=2024
    dates = ([f"at or after {when(filters.date_after)}"] if filters.date_after is not None else []) \
        + ([f"before {when(filters.date_before)}"] if filters.date_before is not None else [])
    how = (f"none has a date of its own, such as {UNDATED_SOURCES}: each went by its file's modified time" if none_dated
           else "its own date where its file says one, else its file's modified time")
    said = ([f"about a date {' and '.join(dates)} ({how})"] if dates else []) \
        + ([f"in a file {' and '.join(parts)}"] if parts else []) \
        + ([f"tagged {' and '.join('#' + tag for tag in filters.tags)}"] if filters.tags else [])
    which = "that filter" if len(parts) + len(dates) + bool(filters.tags) == 1 else "those filters"
    return [f"{FILTERED_OUT} {' '.join(said)}: other words will not help; widen or drop {which}"]


UNDATED = "no passage searched has a date of its own"
UNDATED_SOURCES = "a daily note's name, front matter's date, a mail message's Date, a document's created date"


def undated(catalog: Catalog, filters: Filters) -> list[str]:
    """The note for a date range over passages none of which says a date (code, notes named otherwise, an index
    whose files were read before Sift kept passage dates): the range went by the files' modified times alone, and
    the answer said nothing of it, as though 'the mail of 2019' had been looked for by the mail's dates."""
    if filters.date_after is None and filters.date_before is None:
        return []
    scope = catalog.mask(replace(filters, date_after=None, date_before=None))
    if not len(catalog) or (scope is not None and not scope.any()) or catalog.has_dates(scope):
        return []
    return [f"{UNDATED} ({UNDATED_SOURCES}): the date range went by each file's modified time (an index read "
            "before Sift kept passage dates has them once its files are read again)"]


def _in_scope(generations: dict[str, int], filters: Filters) -> dict[str, int]:
    """The published generations a search answered from: those of its collection when it names one (a search
    of 'notes', with nothing of notes published, ended '(hybrid, 182 ms; pdf at generation 1)')."""
    return {name: gen for name, gen in generations.items() if filters.collection in (None, name)}


def _cut(query: str) -> str:
    """The query's first MAX_QUERY_CHARS characters, ending before the word the limit falls inside when a space
    comes shortly before it: a word cut in two ('prisma' as 'pris') was searched for and named as found nowhere."""
    kept = query[:MAX_QUERY_CHARS]
    if query[MAX_QUERY_CHARS].isspace() or kept[-1].isspace():
        return kept
    space = max(kept.rfind(" "), kept.rfind("\t"), kept.rfind("\n"), kept.rfind("\u3000"))
    return kept[:space] if space >= MAX_QUERY_CHARS - 100 else kept


def _validate(query, limit, mode, notes: list[str]) -> tuple[str, int, str]:
    """The query cleaned (NULs and lone surrogates become spaces) and cut to MAX_QUERY_CHARS, with a note."""
    if isinstance(query, str):
        query = SURROGATE.sub(" ", query.replace("\x00", " "))
    if not isinstance(query, str) or not query.strip():
        raise SearchError("the query is empty: give some words to search for")
    cut = len(query) > MAX_QUERY_CHARS
    if cut:
        query = _cut(query)
        notes.append(f"the query was cut to its first {MAX_QUERY_CHARS:,} characters"
                     + (", before the word they end inside" if len(query) < MAX_QUERY_CHARS else ""))
    if not _visible(query):
        raise SearchError("the query is empty: give some words to search for (it holds only invisible characters"
                          + (f" in its first {MAX_QUERY_CHARS:,}" if cut else "") + ")")
    if not _has_words(query):
        raise SearchError(f"the query has no words, only punctuation ({query.strip()[:40]!r}): give some words "
                          "to search for")
    if not isinstance(mode, str) or mode not in MODES:
        raise SearchError(f"mode must be one of {', '.join(MODES)}, not {mode!r:.80}")
    if not _whole(limit) or not 1 <= limit <= MAX_LIMIT:
        raise SearchError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    return query, limit, mode


def _checked_filters(filters) -> Filters:
    """Filters that SQLite can take: text without lone surrogates, finite times within range."""
    if filters is None:
        return Filters()
    if not isinstance(filters, Filters):
        raise SearchError(f"filters must be a search.query.filters.Filters, not {type(filters).__name__}")
    for name in ("collection", "path_prefix", "glob"):
        value = getattr(filters, name)
        if value is not None and not _is_text(value):
            raise SearchError(f"{name} is not valid text (it holds an unpaired surrogate): {value!r:.80}")
    for tag in filters.tags:
        if not _is_text(tag):
            raise SearchError(f"tags is not valid text (it holds an unpaired surrogate): {tag!r:.80}")
    if filters.collection == "":  # not a name: the keyword side would search every collection, the vectors none
        raise SearchError("collection is empty: give a collection's name, or None to search them all")
    for name in ("modified_after", "modified_before", "date_after", "date_before"):
        value = getattr(filters, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or abs(value) >= 2 ** 62):
            raise SearchError(f"{name} must be a time (seconds since 1970), not {value!r:.80}")
    problem = empty_range(filters.modified_after, filters.modified_before) \
        or empty_range(filters.date_after, filters.date_before, ("date_after", "date_before"))
    if problem:
        raise SearchError(problem)
    return filters


def _visible(text: str) -> bool:
    """Whether ``text`` shows anything: not only spaces, control and format characters (zero-width spaces,
    a BOM, joiners, direction marks), which a query can hold and neither search can use."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def _has_words(text: str) -> bool:
    """Whether ``text`` holds a letter, a digit or a symbol such as an emoji: a query of punctuation alone
    ('?!...', '*** ()') matches no word, and its vector ranks passages by nothing."""
    return any(category[0] in "LN" or category == "So" for category in map(unicodedata.category, text))


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text(value) -> bool:
    return isinstance(value, str) and SURROGATE.search(value) is None


def _models_in_scope(state: dict, filters: Filters) -> list[str]:
    """The models of the collections a search looks at: a search of one collection needs only its model
    (another collection's model may be slower to load, or gone)."""
    if filters.collection is None:
        return state["models"]
    model = state["by_collection"].get(filters.collection)
    return [model] if model else []


def _published(conn) -> dict:
    """The published generation of each collection and the model it was embedded with."""
    rows = queries.published(conn)
    models = sorted({r["model"] for r in rows if r["model"]})
    return {"generations": {r["name"]: r["published"] for r in rows},
            "by_collection": {r["name"]: r["model"] for r in rows},
            "models": models, "model": models[0] if models else None}


def from_settings(settings) -> Engine:
    """An engine over <home>/index.db that embeds each query with the model of the generation it searches
    (the configured model, or the one the index still answers with while a new one is being built)."""
    from search.model import embedding

    def load(model_id: str):
        return embedding.Embedder(embedding.locate(model_id, settings), threads=embedding.QUERY_THREADS)
    return Engine(settings.index_path, load)
