"""sift-mcp answers initialize without loading the heavy libraries.

An assistant starts ``sift-mcp`` and waits for its answer to ``initialize``; the server used to import numpy,
huey (with redis) and pathspec before it could answer, through modules that need them only for a search, a queue
count or a scan (bench/server_start.py times it). Each check runs in a fresh interpreter (real settings, a real
index with a registered collection) and lists which of HEAVY it loaded.
"""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from tests.conftest import REPO, run_ingest, write_tree

HEAVY = ("numpy", "llama_cpp", "pypdf", "huey", "redis", "pathspec", "tree_sitter", "tree_sitter_languages", "pypinyin",
         "jieba", "spellchecker")  # spellchecker: pinyin's English word list (search.query.english_words), read per query
LOADED = f"import json, sys; print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"

SERVER = ("from mcp_server import server, transport, worker\n"
          "from search.settings import load\n"
          "server.build_server(load())\n"  # the six tools, their schemas and the resources: what tools/list answers
          + LOADED)


def loaded(env: dict, code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def home_env(tmp_path) -> dict:
    """A home whose index has one collection registered (queued, not built: no model needed)."""
    env = {**os.environ, "SIFT_HOME": str(tmp_path / "home"), "SIFT_EMBEDDINGS": "on",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nSome text.\n"})
    done = run_ingest(env, "enqueue", str(root), "--name", "notes")
    assert done.returncode == 0, done.stderr
    return env


@pytest.mark.timeout(600)
def test_the_server_is_built_without_the_heavy_libraries(home_env):
    assert loaded(home_env, SERVER) == []



@pytest.mark.timeout(600)
def test_a_root_registered_before_is_served_without_migrating_the_index(home_env, tmp_path):
    """sift-mcp --root of a folder registered before opened the writer's connection before it answered
    initialize, which migrates an older index first: V26 reads every passage for its pinyin (pypinyin loaded),
    7 s of a 10,000-passage index on the first start after an upgrade. The worker migrates it; the start only reads."""
    index = os.path.join(home_env["SIFT_HOME"], "index.db")
    old = sqlite3.connect(index)
    old.executescript("DROP TABLE pinyin; PRAGMA user_version = 25;")
    old.close()
    code = ("from mcp_server.server import register_root\nfrom search.settings import load\n"
            f"assert register_root(load(), {str(tmp_path / 'notes')!r}, None)[1] == 'notes'\n" + LOADED)
    assert loaded(home_env, code) == []
    version = sqlite3.connect(index)
    assert version.execute("PRAGMA user_version").fetchone()[0] == 25
    version.close()
