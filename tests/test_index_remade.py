"""The index deleted and made again while sift-mcp runs (the README's way to rebuild a damaged index): the windows
where there is no file, then a file whose tables a worker has not written yet, then a new index, made on purpose.

stats answered an error in the second window (a clean-clone run of tests/test_supervision.py met it once), and
the server went on reading the deleted file after the third: stats named its collections and search answered
from it, for as long as the server's connections lived (the engine's, for ever).
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import VENV_BIN, ingest, write_tree
from tests.test_mcp_server import call, run, text

OLD = {"old.md": "# Old\n\nthe aardvark digs at night\n"}
NEW = {"new.md": "# New\n\nthe pangolin rolls up\n"}
MAKING = "its tables not written yet"


def _build(root: Path, name: str) -> Path:
    from workers import runtime
    ingest(root, name)
    runtime.reset()  # no connection of this process left on the file
    return Path(os.environ["SIFT_HOME"]) / "index.db"


def _delete(index: Path) -> None:
    for end in ("", "-wal", "-shm"):
        Path(f"{index}{end}").unlink(missing_ok=True)


def _being_made(index: Path):
    """A connection holding the first migration's transaction open, as a worker making the index does: the file
    is there, in WAL mode, and readers see no Sift tables yet."""
    from search.index import db
    conn = db._open(index)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE collections (id INTEGER PRIMARY KEY)")
    return conn


def _paths(result) -> list[str]:
    return [hit["path"] for hit in result.structured_content["results"]]


@pytest.mark.timeout(300)
def test_stats_and_the_tools_say_what_is_true_while_the_index_is_deleted_and_made_again(immediate, sift_env,
                                                                                       servers, tmp_path,
                                                                                       monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    env = {**sift_env, "SIFT_EMBEDDINGS": "off"}
    index = _build(write_tree(tmp_path / "old", OLD), "old")
    seen = {}

    async def scenario():
        async with servers.session(env, "--no-worker") as s:
            async def ask(when: str) -> None:
                seen[when] = {"stats": await call(s, "stats"), "one": await call(s, "stats", collection="old"),
                              "search": await call(s, "search", query="aardvark pangolin", mode="keyword"),
                              "list": await call(s, "list_files")}
            await ask("built")
            _delete(index)
            await ask("deleted")
            writer = _being_made(index)
            try:
                await ask("being made")
            finally:
                writer.rollback()
                writer.close()
            _delete(index)
            _build(write_tree(tmp_path / "new", NEW), "new")
            await ask("made again")
            seen["read"] = await call(s, "read_file", path="new/new.md")
    run(scenario)

    built = seen["built"]
    assert [c["name"] for c in built["stats"].structured_content["collections"]] == ["old"]
    assert _paths(built["search"]) == ["old/old.md"]
    for when in ("deleted", "being made"):
        now = seen[when]
        for stats in (now["stats"], now["one"]):  # a report, never an error
            assert not stats.is_error, (when, text(stats))
            assert stats.structured_content["collections"] == [], (when, text(stats))
            assert "nothing is indexed yet" in text(stats), (when, text(stats))
        said = (f"{index} is there, {MAKING}: a worker is making it" if when == "being made" else
                f"no index yet at {index}")
        assert said in now["stats"].structured_content["nothing"], (when, text(now["stats"]))
        for tool in ("search", "list"):  # what they say with no index at all: nothing is indexed yet
            assert now[tool].is_error and "nothing is indexed yet" in text(now[tool]), (when, text(now[tool]))
    again = seen["made again"]
    assert [c["name"] for c in again["stats"].structured_content["collections"]] == ["new"], text(again["stats"])
    assert _paths(again["search"]) == ["new/new.md"], text(again["search"])  # not the deleted file's old/old.md
    assert [f["path"] for f in again["list"].structured_content["files"]] == ["new/new.md"], text(again["list"])
    assert again["one"].is_error and "no collection named 'old'" in text(again["one"]), text(again["one"])
    assert not seen["read"].is_error and "pangolin" in text(seen["read"]), text(seen["read"])


@pytest.mark.timeout(120)
def test_ingest_stats_on_an_index_being_made_says_so(sift_env, tmp_path):
    """`ingest stats` on an index file a worker is making (no tables yet) said 'error: … holds no Sift index yet:
    run ingest enqueue PATH first' and exited 1; --watch stopped there."""
    index = Path(sift_env["SIFT_HOME"]) / "index.db"
    index.parent.mkdir(parents=True, exist_ok=True)
    writer = _being_made(index)
    try:
        done = subprocess.run([str(VENV_BIN / "ingest"), "stats"], env={**sift_env, "SIFT_EMBEDDINGS": "off"},
                              capture_output=True, text=True, timeout=100)
    finally:
        writer.rollback()
        writer.close()
    assert done.returncode == 0, done.stderr
    assert f"nothing indexed yet: {index} is there, {MAKING} (a worker is making it)" in done.stdout, done.stdout


@pytest.mark.timeout(300)
def test_the_engine_of_a_deleted_index_lets_go_of_its_file(immediate, sift_env, tmp_path, monkeypatch):
    """The engine made anew for the new index closed nothing: the old one's connection kept the deleted file open
    (its disk space not given back) until a full garbage collection."""
    import gc
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    from mcp_server.service import Sift
    from search.settings import load
    index = _build(write_tree(tmp_path / "old", OLD), "old")
    sift = Sift(load())
    assert [h.path for h in sift.engine().search("aardvark", mode="keyword").hits] == ["old.md"]
    _delete(index)
    _build(write_tree(tmp_path / "new", NEW), "new")
    gc.disable()  # what a full collection would close is not counted
    try:
        assert [h.path for h in sift.engine().search("pangolin", mode="keyword").hits] == ["new.md"]
        held = [os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")
                if os.path.exists(f"/proc/self/fd/{fd}")]
    finally:
        gc.enable()
    assert not [f for f in held if f.startswith(str(index)) and f.endswith("(deleted)")], held
