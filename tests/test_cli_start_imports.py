"""``ingest stats`` reads the index and the queue without huey, Redis's client, the parsers or numpy; ``ingest
files`` and ``ingest similar`` read the table of languages without the code parser, ``ingest model info`` the
model's header without numpy.

It imported workers.app to count the queue's jobs: huey with redis.asyncio and workers.tasks with every parser,
0.65 s of the command's 0.7 s of CPU (bench/cli_start.py), in a command users and scripts run by hand and the
suite runs as a process hundreds of times. The SQLite queue is now read straight from queue.db
(workers.queue_state): these check that nothing heavy is imported (as tests/test_start_imports.py does for
sift-mcp), and that the report read so is the one huey's reading gives.

`ingest files` and `ingest similar` imported ingest.code (tree-sitter's forms, the chunker, the YAML reader: 0.25 s)
through ingest.kinds, for its table of languages alone, now ingest/code_languages.py; `ingest model info` imported
numpy with search.model.embedding, which needs it only to embed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, run_ingest, tree_built_once, write_tree
from tests.test_start_imports import HEAVY

STATS = "import sys\nfrom ingest.cli import main\nmain(sys.argv[1:])\n"  # as the ingest script runs it
THROUGH_HUEY = "import workers.app\n" + STATS  # huey's app in the process: stats reads the queue through it
# a queue as a stopped worker leaves it: a job waiting (not a scan), a worker last seen 10 minutes ago, why the last
# one stopped, and two models at work
FILL = """
import time
from workers import tasks
from workers.app import huey
from workers.queue_state import HALTED, WORKER_MODELS, WORKER_SEEN
huey.put(WORKER_SEEN, time.time() - 600)
huey.put(HALTED, {"at": time.time() - 60, "why": "the index at somewhere is damaged"})
huey.put(WORKER_MODELS, {"model-a": [time.time(), "here:1"], "model-b": [time.time(), "there:2"]})
tasks.publish(12345)
"""


@pytest.fixture
def built_env(tmp_path, model_path) -> dict:
    """A home with one collection built (keyword-only, in ``ingest enqueue``'s own process) and no job waiting;
    the settings name the session's model, so stats reads its file's header."""
    env = {**os.environ, "SIFT_HOME": str(tmp_path / "home"), "SIFT_MODEL": str(model_path),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    env.pop("SIFT_QUEUE_IMMEDIATE", None)
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nSome text.\n"})
    done = run_ingest({**env, "SIFT_QUEUE_IMMEDIATE": "1", "SIFT_EMBEDDINGS": "off"}, "enqueue", str(root),
                      "--name", "notes")
    assert done.returncode == 0, done.stderr
    return env


def stats(env: dict, code: str, *args: str) -> tuple[str, list[str]]:
    """What ``ingest stats ARGS`` prints, run by ``code``, and which of HEAVY it imported."""
    return _loads(env, code, HEAVY, *args)


def _loads(env: dict, code: str, modules: tuple[str, ...], *args: str) -> tuple[str, list[str]]:
    """What ``code`` run with ARGS prints, and which of ``modules`` it imported."""
    finished = subprocess.run([sys.executable, "-c", code + "import json\nprint(json.dumps(sorted(m for m in "
                               f"{modules!r} if m in sys.modules)))", *args], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    *said, loaded = finished.stdout.splitlines()
    return "\n".join(said), json.loads(loaded)


@pytest.mark.timeout(600)
def test_stats_imports_nothing_heavy(built_env):
    for args in (["stats"], ["stats", "--json"]):
        said, heavy = stats(built_env, STATS, *args)
        assert heavy == [], args
    assert "jobs in queue: 0" in stats(built_env, STATS, "stats")[0]


def _steady(report):
    """The report without what changes from one second to the next (ages, the disk's free space)."""
    if isinstance(report, dict):
        return {k: _steady(v) for k, v in report.items() if "age" not in k and k != "disk"}
    if isinstance(report, list):
        return [_steady(v) for v in report]
    return report


@pytest.mark.timeout(600)
def test_stats_read_without_huey_says_what_huey_reads(built_env):
    """Jobs waiting, the worker last seen, a stopped worker's reason and the models at work, read from queue.db,
    are what the same stats read through huey's app gives, in the text and in --json."""
    filled = subprocess.run([sys.executable, "-c", FILL], cwd=REPO, env=built_env, capture_output=True, text=True,
                            timeout=300)
    assert filled.returncode == 0, filled.stderr
    direct, heavy = stats(built_env, STATS, "stats", "--json")
    assert heavy == []
    through, heavy = stats(built_env, THROUGH_HUEY, "stats", "--json")
    assert "huey" in heavy
    report = json.loads(direct)
    assert report["queue_pending"] == 1
    assert report["worker_halted"]["why"] == "the index at somewhere is damaged"
    assert sorted(report["models_at_work"]) == ["model-a", "model-b"]
    assert report["worker_seen"] > 0
    assert _steady(report) == _steady(json.loads(through))
    text, _ = stats(built_env, STATS, "stats")
    assert "jobs in queue: 1" in text and "a worker stopped" in text and "model-a, model-b" in text
    assert "no worker has taken a job for 10" in text


# the code parser and what it brings (tree_sitter itself is imported only to parse)
PARSER = ("ingest.code", "ingest.code_forms", "ingest.chunk", "yaml", "tree_sitter", "tree_sitter_languages")
TREE = {"notes/a.md": "# Cache\n\nThe cache keeps the last answers for a minute.\n",
        "notes/b.md": "# Caching\n\nAnswers are kept a minute before they are asked again.\n",
        "src/tool.py": "def cached(key):\n    return CACHE.get(key)\n", "run": "#!/bin/sh\necho hello\n"}


@pytest.fixture(scope="module")
def home_with_vectors(tmp_path_factory, model_path) -> dict:
    """The environment of a home that holds a note, a script and code, embedded with the session's model, built once."""
    home = tree_built_once(tmp_path_factory, model_path, TREE, "mixed")
    env = {**os.environ, "SIFT_HOME": str(home), "SIFT_MODEL": str(model_path),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    for name in ("SIFT_QUEUE_IMMEDIATE", "SIFT_EMBEDDINGS"):
        env.pop(name, None)
    return env


def ingest_loads(env: dict, modules: tuple[str, ...], *args: str) -> tuple[str, list[str]]:
    """What ``ingest ARGS`` prints, run as the ingest script runs it, and which of ``modules`` it imported."""
    return _loads(env, STATS, modules, *args)


@pytest.mark.timeout(600)
def test_files_and_similar_know_code_without_the_code_parser(home_with_vectors):
    """`ingest files` says which files are code (the table of languages, a script's shebang) and `ingest similar`
    finds a note's neighbour, neither importing the parser."""
    said, loaded = ingest_loads(home_with_vectors, PARSER + HEAVY, "files", "--sort", "path")
    assert loaded == ["pathspec"]  # the scan's rules, which say why a file is not indexed
    lines = said.splitlines()
    assert any(line.startswith("mixed/src/tool.py  code") for line in lines), said
    assert any(line.startswith("mixed/run  code") for line in lines), said  # a shell script by its shebang
    said, loaded = ingest_loads(home_with_vectors, PARSER, "similar", "mixed/notes/a.md")
    assert loaded == []
    assert "mixed/notes/b.md" in said


@pytest.mark.timeout(600)
def test_model_info_reads_the_model_without_numpy(home_with_vectors, model_path):
    said, loaded = ingest_loads(home_with_vectors, HEAVY, "model", "info")
    assert loaded == []
    assert f"path: {model_path}" in said and "dimension: 384" in said


def test_the_parser_still_offers_the_table_of_languages():
    """ingest.code re-exports the table its callers (and D's code search) name from it: the same objects."""
    from ingest import code, code_languages
    for name in ("LANGUAGES", "NAMED_FILES", "SHEBANG_BYTES", "code_file_name", "shebang_language"):
        assert getattr(code, name) is getattr(code_languages, name)
    assert code.shebang_language(b"#!/usr/bin/env python3\n") == "python"


@pytest.mark.timeout(600)
def test_enqueue_queues_without_the_parsers_and_retry_failed_without_huey(built_env, tmp_path):
    """`ingest enqueue` imports huey and the tasks to queue a scan, but not the parsers (ingest.files) or numpy,
    which only a job that reads a file needs; `ingest retry-failed` with no failed file queues nothing: no huey."""
    parsers = ("ingest.files", "ingest.markdown", "ingest.pdf", "numpy")
    said, loaded = ingest_loads(built_env, parsers + ("workers.tasks",), "enqueue", str(tmp_path / "notes"))
    assert loaded == ["workers.tasks"], said
    assert "a scan of 'notes'" in said or "queued a scan" in said, said
    said, loaded = ingest_loads(built_env, HEAVY + ("workers.app", "workers.tasks"), "retry-failed")
    assert loaded == []
    assert said == "no failed files"
