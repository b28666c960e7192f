"""What a person who searches their own notes expects first, on real notes (../shared/data/notes-en) with the real
model: the note whose title is what they typed."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from search.query.engine import Engine
from tests.conftest import ingest, need_data

WANTED = ["git/skip-pre-commit-hooks.md", "git/skip-git-hooks-as-needed.md", "git/skip-a-bad-commit-when-bisecting.md",
          "postgres/set-a-statement-timeout-threshold-for-a-session.md",
          "postgres/limit-execution-time-of-statements.md", "postgres/prevent-a-query-from-running-too-long.md"]


@pytest.fixture
def engine(immediate, tmp_path, embedder):
    """The notes above and the first 20 others of their folders (in name order), indexed with the real model."""
    source = need_data("notes-en")
    picked = list(WANTED)
    for folder in ("git", "postgres"):
        picked += [f"{folder}/{p.name}" for p in sorted((source / folder).glob("*.md"))[:20]]
    root = tmp_path / "notes"
    for relative in dict.fromkeys(picked):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / relative, root / relative)
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    engine.warm()
    return engine


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_the_note_titled_with_every_word_of_the_query_comes_first(engine, mode):
    """'Skip Git Hooks As Needed' says skip, commit and hooks more often than 'Skip Pre-Commit Hooks', and ranked
    above it for 'skip pre-commit hooks'; 'Limit Execution Time Of Statements' above 'Set A Statement Timeout
    Threshold For A Session' for '"statement timeout"'. The note titled with every word comes first now."""
    for query, wanted in [("skip pre-commit hooks", "git/skip-pre-commit-hooks.md"),
                          ('"statement timeout"', "postgres/set-a-statement-timeout-threshold-for-a-session.md")]:
        answer = engine.search(query, limit=5, mode=mode)
        assert answer.hits[0].path == wanted, (query, [(h.path, h.score) for h in answer.hits])
        if answer.hits[0].score < max(h.score for h in answer.hits):
            assert any("whose title holds every word of the query come first" in n for n in answer.notes)


def test_a_snippet_marks_only_the_words_search_matched(engine):
    """A snippet marked every word starting with a query word's first letters, so '"statement timeout"' showed
    'Limit Execution **Time** Of **Statements**', as if the note held 'timeout'; 'time' is another word to search
    (another stem), and is no longer marked, while 'Statements' (the stem of 'statement') still is."""
    answer = engine.search('"statement timeout"', limit=5, mode="hybrid")
    hit = next(h for h in answer.hits if h.path == "postgres/limit-execution-time-of-statements.md")
    assert "**Statements**" in hit.snippet, hit.snippet
    assert "**time**" not in hit.snippet.casefold(), hit.snippet
