"""The embedding models, loaded once each in a background thread.

Loading takes seconds (and the first time, converting a known model takes
longer), so the server starts serving at once and loads beside it. Which model
to load is the index's choice, not the configuration's: a query is embedded
with the model of the generation it searches (``get(model_id)``), so after
SIFT_MODEL changes the old model keeps answering until the re-embedded
generation is published. At startup the models the index answers with are
loaded, and the configured one. Once no published generation uses a model and
it is not the configured one, it is let go (``keep_only``, told by the engine):
a long-running server does not keep the old model (0.4 GB for e5) after a
switch. A semantic query that
arrives first waits; ``stats`` says which of not loaded / loading / ready /
failed the models are in.
"""
from __future__ import annotations

import sys
import threading
import time

RETRY_AFTER = 30.0  # seconds before a model that failed to load is tried again (its file may be back)


class _Slot:
    """One model's loading: its state, its Embedder once ready, or why it failed."""

    def __init__(self):
        self.state, self.since, self.error, self.embedder = "loading", time.time(), None, None
        self.done = threading.Event()


class ModelState:
    def __init__(self, settings):
        self.settings = settings
        self.state = "not loaded"  # of the models the index answers with, taken together
        self.error: str | None = None
        self.since = time.time()
        self._slots: dict[str, _Slot] = {}  # model id -> its loading
        self._configured: str | None = None  # the configured model's id, once known
        self._in_use: list[str] | None = None  # the models the published generations use, as last told
        self._startup_done = False  # models are let go only once the startup loading is done
        self._begun = False  # the startup loading has been started
        self._lock = threading.Lock()
        self._started = threading.Event()  # the startup loading has decided what to load and loaded it
        self.load_configured = True  # False: only the index's models are loaded at startup (see _wants_configured)

    def start(self) -> None:
        """Begin loading in a daemon thread (once); returns at once."""
        with self._lock:
            if self._begun:
                return
            self._begun, self.state, self.since = True, "loading", time.time()
        threading.Thread(target=self._load_startup, name="sift-model", daemon=True).start()

    def get(self, model_id: str | None = None):
        """The Embedder of ``model_id`` (None: the configured model), waiting while it loads."""
        from search.model.info import ModelError
        self.start()
        if model_id is None:
            self._started.wait()
            model_id = self._configured_id()
        slot, mine = self._slot(model_id)
        if mine:
            self._load(model_id, slot)
        slot.done.wait()
        if slot.embedder is None:
            raise ModelError(f"the embedding model could not be loaded: {slot.error}")
        return slot.embedder

    def describe(self) -> dict:
        if not self.settings.embeddings and not self._slots:  # keyword-only: no model to wait for or load
            return {"embeddings": "off"}
        known = self.settings.known_model  # its name, as `ingest stats --json` gives it
        report = {"state": self.state, "since": self.since, "path": str(self.settings.model_path),
                  "configured": self.settings.model or "default", **({"name": known.name} if known else {})}
        if self.error:
            report["error"] = self.error
        loaded = []
        for model_id, slot in sorted(self._slots.items()):
            entry = {"id": model_id, "state": slot.state}
            if slot.embedder is not None:
                info = slot.embedder.info
                entry.update(dim=info.dim, max_tokens=info.max_tokens, path=info.path)
            if slot.error:
                entry["error"] = slot.error
            loaded.append(entry)
        report["models"] = loaded
        ready = [m for m in loaded if m["state"] == "ready"]
        if ready:  # the first model ready, as the report named it when there was only one
            report.update(id=ready[0]["id"], dim=ready[0]["dim"], max_tokens=ready[0]["max_tokens"])
        return report

    def keep_only(self, model_ids: list[str]) -> None:
        """Let go of every model but ``model_ids`` (the ones the published generations use) and the configured
        one, which a build is re-embedding with. Called by the engine whenever the published models change;
        nothing is let go before the startup loading knows the configured model (it lets go then)."""
        self._in_use = list(model_ids)
        self._let_go()

    def _let_go(self) -> None:
        if self._in_use is None or not self._startup_done:
            return
        keep = {*self._in_use, self._configured}  # _configured: None when startup did not load it (see there)
        with self._lock:
            for model_id in [m for m in self._slots if m not in keep]:
                del self._slots[model_id]  # a search still using it holds its own reference until it is done
                print(f"sift-mcp: let go of the embedding model {model_id}: no published generation uses it",
                      file=sys.stderr)

    # -- loading -----------------------------------------------------------------
    def _slot(self, model_id: str) -> tuple[_Slot, bool]:
        """(the model's slot, whether the caller must load it)."""
        with self._lock:
            held = self._slots.get(model_id)
            if held is not None and not (held.state == "failed" and time.time() - held.since > RETRY_AFTER):
                return held, False
            slot = self._slots[model_id] = _Slot()
            return slot, True

    def _load_startup(self) -> None:
        """Load the models the index answers with, then the configured one (a build re-embedding with it
        publishes later, and the first search after that should not wait for it to load)."""
        problems = []
        try:
            for model_id in self._published_models():
                self._ensure(model_id)
            try:
                if self._wants_configured():
                    self._ensure(self._configured_id())
            except Exception as exc:  # the configured model itself is unusable (the index's may still answer)
                problems.append(f"the configured model: {type(exc).__name__}: {exc}")
            problems += [f"{m}: {s.error}" for m, s in self._slots.items() if s.error]
            answering = [s for s in self._slots.values() if s.embedder is not None]
            # ready: some model answers (trouble is in error); not loaded: none was wanted (no index yet)
            self.state = "ready" if answering else "failed" if problems else "not loaded"
            self.error = "; ".join(problems) or None
            if problems:
                print(f"sift-mcp: embedding model trouble: {self.error}", file=sys.stderr)
        finally:
            self.since = time.time()
            self._startup_done = True
            self._let_go()  # what the engine said while this loaded
            self._started.set()

    def _ensure(self, model_id: str) -> None:
        """Load the model unless it is loaded or loading; return once it is ready or has failed."""
        slot, mine = self._slot(model_id)
        if mine:
            self._load(model_id, slot)
        slot.done.wait()

    def _load(self, model_id: str, slot: _Slot) -> None:
        try:
            from search.model import embedding
            slot.embedder = embedding.Embedder(embedding.locate(model_id, self.settings), threads=embedding.QUERY_THREADS)
            slot.state = "ready"
        except Exception as exc:  # reported by stats and by the query that needed it
            from mcp_server.wording import in_tool_words
            slot.error, slot.state = f"{type(exc).__name__}: {in_tool_words(str(exc))}", "failed"
            print(f"sift-mcp: the embedding model {model_id} failed to load: {slot.error}", file=sys.stderr)
        finally:
            slot.since = time.time()
            self._loaded_after_startup(slot)
            slot.done.set()

    def _loaded_after_startup(self, slot: _Slot) -> None:
        """A model loaded once the startup loading is done (which loads none without an index): the state of
        them all follows, so that stats does not go on saying 'not loaded'."""
        if not self._startup_done:
            return
        if slot.embedder is not None and self.state != "ready":
            self.state, self.since = "ready", time.time()
        elif slot.embedder is None and self.state == "not loaded":
            self.state, self.since, self.error = "failed", time.time(), slot.error

    def _wants_configured(self) -> bool:
        """Whether to load the configured model at startup, for the build re-embedding with it: not with embeddings
        off (the index's models answer; none is built for a worker that embeds nothing), nor without an index
        (nothing to search yet, and building it would make a home that --no-worker leaves alone; the first
        semantic search after a publish loads the model the worker built)."""
        return self.load_configured and self.settings.embeddings and self.settings.index_path.exists()

    def _configured_id(self) -> str:
        """The configured model's id (building a known model from its package on first need)."""
        from search.model import embedding
        self._configured = embedding.resolve(self.settings).model_id
        return self._configured

    def _published_models(self) -> list[str]:
        """The models the published generations were embedded with; none if there is no index yet."""
        from search.index import collection_reads, db
        if not self.settings.index_path.exists():
            return []
        try:
            conn = db.connect(self.settings.index_path, readonly=True)
        except Exception:  # noqa: BLE001 - the tools report the index's own trouble
            return []
        try:
            return collection_reads.published_models(conn)
        except Exception:  # noqa: BLE001 - a damaged index: the tools say so; load the configured model
            return []
        finally:
            conn.close()
