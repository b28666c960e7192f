"""A job that fails names its files in the worker's log, at every stage: the failure's line, the one with the
traceback a bug report needs, said 'embed of 2 files of generation 1 failed (…)' and no file (only parse's lines
named one, through ``ingest.unreadable.reading``). Failed for real: the generation's model file is gone when its
chunk or embed job runs (huey's SQLite queue run job by job in this process, the real model and index)."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import write_tree

FILES = {"alpha.md": "# Alpha\n\nThe first note of two.\n", "beta.md": "# Beta\n\nThe second note of two.\n"}


@pytest.mark.parametrize("stage", ["chunk", "embed"])
def test_a_job_failing_for_good_names_its_files_in_the_log(stage, sift_env, tmp_path, monkeypatch, model_path, caplog):
    from search.index import status, store
    from workers import runtime, tasks
    from workers.app import huey
    model = shutil.copy(model_path, tmp_path / "model.gguf")  # the file the build begins with, then deleted
    monkeypatch.setenv("SIFT_MODEL", str(model))
    runtime.reset()
    root = write_tree(tmp_path / "notes", FILES)
    tasks.scan(store.ensure_collection(runtime.index(), "notes", str(root))["id"])
    caplog.set_level("INFO", logger="sift.workers")
    while (task := huey.dequeue()) is not None:
        if task.name == stage:
            break
        huey.execute(task)
    assert task is not None and task.name == stage, task
    runtime.reset()
    (tmp_path / "model.gguf").unlink()
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")  # the worker now has no model: the build's is to be found by its id
    huey.execute(task)
    line = next(r.getMessage() for r in caplog.records if f"{stage} of 2 files" in r.getMessage()
                and "failed" in r.getMessage())
    assert "alpha.md" in line and "beta.md" in line, line
    c = next(c for c in status.collect(runtime.index())["collections"] if c["name"] == "notes")
    failures = (c["building"] or c["published"])["failures"]
    assert {f["path"] for f in failures} == set(FILES), failures
    assert all(f["stage"] == stage and f["error"] == "ModelError" for f in failures), failures
