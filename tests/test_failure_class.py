"""A failed file's error class in `ingest stats --json` (schema V30's progress.error): the worker's log named it and
nothing a user could paste did, so a bug report from `stats --json` lacked it. The reason users read stays in words.
Real files failing for real, huey's immediate mode, the real SQLite index and the `ingest` command in this process."""
from __future__ import annotations

import json
import os

from tests.conftest import as_older_index, run_ingest_here, write_tree

FILES = {"good.md": "# Good\n\nA note that reads.\n", "fake.pdf": "this is no PDF at all, only text named .pdf\n"}


def _failures(report: dict) -> dict:
    collection = next(c for c in report["collections"] if c["name"] == "notes")
    return {f["path"]: f for f in collection["published"]["failures"]}


def test_stats_json_names_the_class_of_a_failure_and_the_reason_stays_in_words(immediate, tmp_path, monkeypatch,
                                                                                 capsys):
    from search.index import status, store
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    root = write_tree(tmp_path / "notes", FILES)
    tasks.discover(store.ensure_collection(runtime.index(), "notes", str(root))["id"])
    failed = _failures(status.collect(runtime.index()))["fake.pdf"]
    assert failed["state"] == "failed" and failed["error"], failed
    assert failed["error"] not in failed["reason"], failed  # the words users read name no class
    said = run_ingest_here(capsys, "stats", "--json", env=dict(os.environ))
    assert said.returncode == 0, said.stderr
    assert _failures(json.loads(said.stdout))["fake.pdf"]["error"] == failed["error"], said.stdout
    (root / "new.md").write_text("# New\n\nA note added later.\n", encoding="utf-8")
    tasks.scan(store.ensure_collection(runtime.index(), "notes", str(root))["id"])  # the PDF failed as before
    assert _failures(status.collect(runtime.index()))["fake.pdf"] == failed  # carried on with its class


def test_an_index_of_v29_gets_the_column_and_is_read_before_it_is_migrated(immediate, tmp_path, monkeypatch):
    """An index of V29 read by stats before a writer migrates it: its failures have no class (None), not an error;
    opened by the writer it migrates to the newest (V31) and keeps its rows."""
    from search.index import db, status, store
    from search.index.schema import MIGRATIONS
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    root = write_tree(tmp_path / "notes", FILES)
    tasks.discover(store.ensure_collection(runtime.index(), "notes", str(root))["id"])
    path = as_older_index(dict(os.environ), "ALTER TABLE progress DROP COLUMN error; ALTER TABLE remembered DROP COLUMN error;", 29)
    reader = db.connect(path, readonly=True)
    try:
        failed = _failures(status.collect(reader))["fake.pdf"]
    finally:
        reader.close()
    assert failed["state"] == "failed" and failed["error"] is None, failed
    writer = db.connect(path)  # the writer's connection migrates
    try:
        version = writer.execute("PRAGMA user_version").fetchone()[0]
        migrated = _failures(status.collect(writer))["fake.pdf"]
    finally:
        writer.close()
    assert version == len(MIGRATIONS) == 31, version
    assert migrated == failed, (migrated, failed)  # recorded before the column: no class, its reason kept
