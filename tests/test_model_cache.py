"""The shared cache of converted models (search/model/cache.py): a new SIFT_HOME links the copy converted once,
instead of converting the package again (e5: about a minute, for each test's home, each embedding machine's)."""
from __future__ import annotations

import os
from pathlib import Path

from search.model.info import read_model_info
from tests.conftest import run_ingest


def _prepare(env: dict, home: Path):
    done = run_ingest({**env, "SIFT_HOME": str(home)}, "model", "prepare", timeout=900)
    assert done.returncode == 0, done.stderr
    return home / "models" / "all-MiniLM-L6-v2.gguf"


def test_a_new_home_links_the_model_converted_once_into_the_shared_cache(sift_env, tmp_path):
    cache = tmp_path / "cache"
    env = {**sift_env, "SIFT_MODEL": "minilm", "SIFT_MODEL_CACHE": str(cache)}
    first = _prepare(env, tmp_path / "one")
    [cached] = cache.glob("all-MiniLM-L6-v2-*.gguf")
    made = cached.stat()
    assert first.stat().st_ino == made.st_ino, "the home's file is a link to the cached copy"

    second = _prepare(env, tmp_path / "two")
    assert (cached.stat().st_ino, cached.stat().st_mtime_ns) == (made.st_ino, made.st_mtime_ns), "not converted again"
    assert second.stat().st_ino == made.st_ino
    want = read_model_info(first).model_id
    assert read_model_info(second).model_id == want

    with open(cached, "r+b") as f:  # a damaged copy: its bytes differ from those recorded when it was converted
        f.seek(-1, os.SEEK_END)
        last = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last[0] ^ 0xFF]))
    third = _prepare(env, tmp_path / "three")
    assert cached.stat().st_ino != made.st_ino, "converted again"
    assert read_model_info(third).model_id == want


def test_prepare_builds_again_a_known_models_file_cut_short_in_the_home(sift_env, tmp_path):
    """A home's e5 or MiniLM file cut short (a copy or a sync that did not finish) was refused by every command
    with `run ingest model prepare`, and `ingest model prepare` refused it the same way, naming itself as the fix.
    Now prepare (and any command that needs the model) links the cached copy again."""
    env = {**sift_env, "SIFT_MODEL": "minilm", "SIFT_MODEL_CACHE": str(tmp_path / "cache")}
    path = _prepare(env, tmp_path / "home")
    want = read_model_info(path).model_id
    data = path.read_bytes()
    path.unlink()  # a new file, not the cached copy it was linked to
    path.write_bytes(data[: len(data) // 2])
    path = _prepare(env, tmp_path / "home")
    assert read_model_info(path).model_id == want
