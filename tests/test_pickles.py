"""Jobs queued before an upgrade still run: a batch pickled when the writer was search/store.py (before search/
was cut into rooms) is read with its chunk rows found in search/index/store.py (workers/pickles.py)."""
from __future__ import annotations

import pickle
import sys

import pytest
from huey import PriorityRedisHuey, SqliteHuey

from search.index import store
from workers import pickles
from workers.tasks import Batch

ROW = store.ChunkRow(ordinal=0, heading_path="Alpha", text="first words", tokens=3, text_hash="abc")


def old_pickle(obj, monkeypatch) -> bytes:
    """``obj`` pickled as Sift did when the chunk rows' class lived in the module search.store."""
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "search.store", store)
        patch.setattr(store.ChunkRow, "__module__", "search.store")
        data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    assert b"search.store" in data and b"search.index.store" not in data
    return data


def test_a_batch_pickled_under_the_old_module_reads_back(monkeypatch):
    data = old_pickle(Batch(3, 1, ["a.md"], chunks={"a.md": [ROW]}), monkeypatch)
    with pytest.raises(ModuleNotFoundError):
        pickle.loads(data)  # what workers.remote's ledger did: recover's list of batches in flight failed
    batch = pickles.loads(data)
    assert batch.chunks == {"a.md": [ROW]} and type(batch.chunks["a.md"][0]) is store.ChunkRow


def test_a_job_queued_before_the_upgrade_is_listed_and_run(tmp_path, monkeypatch):
    def app(**kwargs):
        huey = SqliteHuey("sift", filename=str(tmp_path / "queue.db"), results=False, **kwargs)
        return huey, huey.task(name="write")(lambda batch: batch.chunks["a.md"][0].text)

    old, write = app()
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "search.store", store)
        patch.setattr(store.ChunkRow, "__module__", "search.store")
        write(Batch(3, 1, ["a.md"], chunks={"a.md": [ROW]}))
    assert old.pending() == [], "huey's own serializer cannot read it: the job would be dropped and done again"
    new, _ = app(serializer=pickles.JobSerializer())
    [task] = new.pending()
    assert task.args[0].chunks["a.md"] == [ROW]
    assert new.execute(new.dequeue()) == "first words"


def test_every_queue_reads_jobs_so():
    from workers import app, queues
    assert isinstance(app.huey.serializer, pickles.JobSerializer)
    redis_app = queues.redis_huey(PriorityRedisHuey, "sift", "redis://127.0.0.1:1/0")  # made, never connected
    assert isinstance(redis_app.serializer, pickles.JobSerializer)


def test_a_document_pickled_before_it_had_footnotes_is_cut():
    """A parsed note queued for its chunk job by a Sift whose Document had no ``footnotes`` (before chunker version
    13) is cut after the upgrade: reading ``doc.footnotes`` failed the file (AttributeError), where the queued job
    should run as any other."""
    from ingest.chunk import chunk_document
    from ingest.document import Document, Section
    from workers.tasks import plain_count
    doc = Document("note", "Old", [Section(text="words of a note queued before the upgrade [^1]", heading_path=["Old"],
                                           start_line=1, end_line=1)])
    data = pickle.dumps(doc, pickle.HIGHEST_PROTOCOL).replace(b"footnotes", b"notfound_")  # as an older Sift wrote it
    old = pickles.loads(data)
    assert "footnotes" not in vars(old) or old.footnotes == {}
    chunks = chunk_document(old, plain_count, 64, 8)
    assert [c.text for c in chunks] == ["words of a note queued before the upgrade [^1]"]
