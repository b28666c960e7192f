"""What the author tests share: their module's files indexed once without vectors (its ``_build``), and an Engine
over that index reading keywords from postings in memory and from FTS5, the two ways the author filter is read.
A module takes the fixtures by importing them (``from tests.author_helpers import engine, home``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import built_once, engine_in, ingest_keyword_only, write_tree


def build_notes(folder: Path, notes: dict[str, str], files: dict[str, str | bytes] | None = None) -> Path:
    """``notes`` and ``files`` (a mailbox's text, a document's bytes) written into ``folder``/notes and indexed as
    the collection 'notes' without vectors: these tests search by keyword alone, and embedding is nearly all of a
    build's time. Returns the folder."""
    root = write_tree(folder / "notes", notes)
    for relative, content in (files or {}).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    ingest_keyword_only(root)
    return root


@pytest.fixture(scope="module")
def home(request, tmp_path_factory, model_path):
    """The home of the module's ``_build(folder)``, built once for its tests (``built_once``)."""
    return built_once(tmp_path_factory, model_path, request.module._build)


@pytest.fixture(params=["postings", "fts5"])
def engine(request, home, model_path, embedder, monkeypatch):
    """An Engine over ``home``'s index, each test run with keywords from postings and from FTS5."""
    return engine_in(home, model_path, embedder, monkeypatch, postings=request.param == "postings")
