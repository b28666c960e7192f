"""A model that loads (seconds for e5) holds back no search that does not need it: the engine loads it outside
its connection lock, once, and searches that need it wait for that same load."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from search.model import embedding
from search.query.engine import Engine
from search.settings import load
from tests.conftest import ingest, write_tree

NOTES = {"food/pasta.md": "# Pasta\n\nBoil the spaghetti in salted water for nine minutes, then toss it with "
                          "garlic, olive oil and chilli.\n",
         "tech/sqlite.md": "# SQLite WAL\n\nWrite-ahead logging lets readers keep a consistent snapshot while "
                           "one writer appends to the log.\n"}
WAIT = 120  # seconds: a safety net against a hung test, not a speed assertion


class GatedLoader:
    """A real model load that waits, once it has begun, until the test opens the gate."""

    def __init__(self):
        self.entered, self.gate, self.loads = threading.Event(), threading.Event(), []

    def __call__(self, model_id: str):
        self.loads.append(model_id)
        self.entered.set()
        assert self.gate.wait(WAIT), "the gate was never opened"
        return embedding.Embedder(embedding.locate(model_id, load()), threads=embedding.QUERY_THREADS)


def _run(target) -> tuple[threading.Thread, dict]:
    """Run ``target()`` in a daemon thread; the dict gets its result or its error."""
    out: dict = {}

    def run():
        try:
            out["result"] = target()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


@pytest.mark.timeout(600)
def test_a_keyword_search_answers_while_the_model_loads_and_the_model_loads_once(immediate, tmp_path):
    ingest(write_tree(tmp_path / "notes", NOTES))
    loader = GatedLoader()
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", loader)
    try:
        first, first_out = _run(lambda: engine.search("cooking noodles", mode="semantic"))
        assert loader.entered.wait(WAIT), "the semantic search never began loading the model"
        second, second_out = _run(lambda: engine.search("boiling noodles", mode="hybrid"))
        keyword, keyword_out = _run(lambda: engine.search("spaghetti garlic", mode="keyword"))
        keyword.join(WAIT)
        assert not keyword.is_alive(), "a keyword search waited for the model to load"
        assert keyword_out["result"].hits[0].path == "food/pasta.md"
        assert first.is_alive() and second.is_alive(), "the model is still held at the gate"
    finally:
        loader.gate.set()
    for thread in (first, second):
        thread.join(WAIT)
        assert not thread.is_alive()
    assert "error" not in first_out and "error" not in second_out, (first_out, second_out)
    assert first_out["result"].hits[0].path == second_out["result"].hits[0].path == "food/pasta.md"
    assert second_out["result"].mode == "hybrid" and second_out["result"].models == first_out["result"].models
    assert len(loader.loads) == 1, f"the model was loaded {len(loader.loads)} times"
