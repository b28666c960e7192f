"""A write stage that fails for real (SIFT_FAULT_WRITE, search/index/store.py): the file's failure is recorded where
stats shows it, with its error's class, and nothing indexed before is lost.

huey in immediate mode on a keyword-only home; the fault fails the write of one changed file inside its transaction,
after its passages were inserted, as a constraint the index refused would.
"""
from __future__ import annotations

from search.index import status
from search.query.engine import Engine
from tests.conftest import ingest, run_ingest_here, write_tree

NOTES = {"kept.md": "# Kept\n\nthe aardvark digs at night\n",
         "other.md": "# Other\n\nthe badger sleeps by day\n"}


def keyword_paths(index, word: str) -> set[str]:
    return {f"{hit.collection}/{hit.path}" for hit in Engine(index).search(word, mode="keyword", limit=20).hits}


def test_a_failed_write_is_shown_with_its_class_and_loses_nothing(immediate, sift_env, tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    monkeypatch.setenv("SIFT_FILES_PER_JOB", "1")  # the failing file's job holds it alone
    a = write_tree(tmp_path / "a", NOTES)
    first = ingest(a, "a")
    assert first["published"]["failures"] == []
    write_tree(a, {"kept.md": "# Kept\n\nthe aardvark now digs by the river\n",
                   "new.md": "# New\n\nthe aardvark has a cousin\n"})
    monkeypatch.setenv("SIFT_FAULT_WRITE", "kept.md")
    report = ingest(a, "a")
    failed, = report["published"]["failures"]
    assert (failed["path"], failed["stage"], failed["state"], failed["error"]) == \
        ("kept.md", "write", "failed", "IntegrityError"), failed
    assert failed["reason"].startswith("write failed: ") and "a bug in Sift" in failed["reason"], failed
    index = tmp_path / "home" / "index.db"
    # the other changed file is written; the failed one keeps what was indexed of it (its old words, not its new)
    assert keyword_paths(index, "cousin") == {"a/new.md"}
    assert keyword_paths(index, "night") == {"a/kept.md"}
    assert keyword_paths(index, "river") == set()
    assert keyword_paths(index, "badger") == {"a/other.md"}
    shown = run_ingest_here(capsys, "stats")
    assert "kept.md" in shown.stdout and "write" in shown.stdout, shown.stdout
    # once the cause is gone, retry-failed writes it
    monkeypatch.delenv("SIFT_FAULT_WRITE")
    assert run_ingest_here(capsys, "retry-failed").returncode == 0
    from workers import runtime
    gen = status.collect(runtime.index())["collections"][0]["published"]
    assert gen["failures"] == [], gen
    assert keyword_paths(index, "river") == {"a/kept.md"}
