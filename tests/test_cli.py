"""The ingest CLI: help, clear errors for a bad model or path, stats, schema migrations."""
from __future__ import annotations

import sqlite3

import pytest

from search import db, schema
from tests.conftest import run_ingest, write_tree


def test_help_documents_every_command(sift_env):
    out = run_ingest(sift_env, "--help").stdout
    for command in ("enqueue", "stats", "search", "model"):
        assert command in out
    assert "--wait" in run_ingest(sift_env, "enqueue", "--help").stdout


def test_missing_model_is_one_clear_error(sift_env, tmp_path):
    write_tree(tmp_path / "n", {"a.md": "a"})
    missing = tmp_path / "nope.gguf"
    result = run_ingest({**sift_env, "SIFT_MODEL": str(missing)}, "enqueue", str(tmp_path / "n"))
    assert result.returncode == 2
    assert str(missing) in result.stderr and "ingest model prepare" in result.stderr
    assert "Traceback" not in result.stderr


def test_corrupt_model_is_one_clear_error(sift_env, tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\x00" * 100)
    result = run_ingest({**sift_env, "SIFT_MODEL": str(bad)}, "model", "info")
    assert result.returncode == 2 and str(bad) in result.stderr and "Traceback" not in result.stderr


def test_enqueue_refuses_a_missing_folder(sift_env, tmp_path):
    result = run_ingest(sift_env, "enqueue", str(tmp_path / "missing"))
    assert result.returncode == 2 and "not a folder" in result.stderr


def test_enqueue_prints_what_it_queued_and_stats_shows_the_building_generation(sift_env, tmp_path):
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha", "b.md": "# B\nbeta"})
    result = run_ingest(sift_env, "enqueue", str(tmp_path / "n"), "--name", "mine")
    assert result.returncode == 0 and "queued discover for collection 'mine'" in result.stdout
    stats = run_ingest(sift_env, "stats")
    assert "mine" in stats.stdout and "published: nothing yet" in stats.stdout
    assert "jobs in queue: 1" in stats.stdout  # no worker ran: the discover job waits


def test_migrations_upgrade_an_old_index_and_keep_its_rows(tmp_path):
    path = tmp_path / "index.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in schema._statements(schema.V1):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO collections(name, root, created) VALUES ('old', '/x', 0)")
    conn.close()
    upgraded = db.connect(path)
    assert schema.version(upgraded) == len(schema.MIGRATIONS)
    assert upgraded.execute("SELECT name FROM collections").fetchone()[0] == "old"
    assert upgraded.execute("SELECT count(*) FROM chunks_fts_vocab").fetchone()[0] == 0


def test_an_index_from_a_newer_sift_is_refused(tmp_path):
    path = tmp_path / "index.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(db.IndexUnavailable, match="newer"):
        db.connect(path)
