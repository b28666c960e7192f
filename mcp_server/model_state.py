"""The embedding model, loaded once in a background thread.

Loading takes seconds (and the first time, converting the default model
takes longer), so the server starts serving at once and loads the model
beside it. A semantic query that arrives first waits; ``stats`` says which of
not loaded / loading / ready / failed the model is in.
"""
from __future__ import annotations

import sys
import threading
import time


class ModelState:
    def __init__(self, settings):
        self.settings = settings
        self.state = "not loaded"
        self.error: str | None = None
        self.since = time.time()
        self._embedder = None
        self._lock = threading.Lock()
        self._done = threading.Event()

    def start(self) -> None:
        """Begin loading in a daemon thread (once); returns at once."""
        with self._lock:
            if self.state != "not loaded":
                return
            self.state, self.since = "loading", time.time()
        threading.Thread(target=self._load, name="sift-model", daemon=True).start()

    def get(self):
        """The loaded Embedder, waiting for it if it is still loading."""
        from search.model_file import ModelError
        self.start()
        self._done.wait()
        if self._embedder is None:
            raise ModelError(f"the embedding model could not be loaded: {self.error}")
        return self._embedder

    def describe(self) -> dict:
        report = {"state": self.state, "since": self.since, "path": str(self.settings.model_path)}
        if self.error:
            report["error"] = self.error
        if self._embedder is not None:
            info = self._embedder.info
            report.update(id=info.model_id, dim=info.dim, max_tokens=info.max_tokens)
        return report

    def _load(self) -> None:
        try:
            from search import model
            self._embedder = model.Embedder(model.resolve(self.settings), threads=model.QUERY_THREADS)
            self.state = "ready"
        except Exception as exc:  # reported by stats and by the query that needed it
            self.error = f"{type(exc).__name__}: {exc}"
            self.state = "failed"
            print(f"sift-mcp: the embedding model failed to load: {self.error}", file=sys.stderr)
        finally:
            self.since = time.time()
            self._done.set()
