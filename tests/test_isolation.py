"""The tests of one process touch no state another process's tests (pytest-xdist's workers, another checkout's
tests on the same machine) or the user's own Sift share."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


def test_the_in_process_queue_is_this_test_sessions_own(tmp_path_factory):
    """workers.app's huey keeps the queue of the home it was imported with, and test modules import it as they
    are collected: that was ~/.sift/queue.db, which every test process emptied (``sift_env``) while the others
    had jobs in it. It is a queue in this session's temporary folder now."""
    from workers.app import huey
    queue = Path(huey.storage.filename).resolve()
    assert not queue.is_relative_to((Path.home() / ".sift").resolve()), queue
    assert queue.is_relative_to(tmp_path_factory.getbasetemp().resolve()), queue


def test_a_redis_server_whose_port_was_taken_meanwhile_starts_on_another(redis_server, tmp_path, monkeypatch):
    """The port a test process's Redis is given was free when picked; another process (pytest-xdist's workers
    each start one) may take it before the server binds it. That server exited, and the other process's server
    answered the ping in its place: this session's tests would have emptied it (``redis_url``). It starts on
    another free port now, and it is its own answer that counts."""
    import redis
    from tests import redis_server as module
    other = redis.Redis.from_url(redis_server.url)
    other.set("theirs", "kept")
    picks = iter([redis_server.port])
    real = module.free_port
    monkeypatch.setattr(module, "free_port", lambda: next(picks, None) or real())
    mine = module.RedisServer(tmp_path / "redis")
    try:
        assert mine.port != redis_server.port and mine.proc.poll() is None
        assert redis.Redis.from_url(mine.url).info("server")["process_id"] == mine.proc.pid
        redis.Redis.from_url(mine.url).flushall()
        assert other.get("theirs") == b"kept"
    finally:
        mine.stop()


def test_the_session_model_runs_one_llama_thread_in_each_xdist_worker(embedder):
    """Two pytest-xdist workers on two cores each loading the session's model with a thread per core had four
    llama.cpp threads spinning on two cores while they waited for each other: 150 passages took 406 s to embed
    instead of 30 s. In a worker it runs one thread; alone (no xdist) one per core, as Sift runs it."""
    expected = 1 if os.environ.get("PYTEST_XDIST_WORKER") else os.cpu_count()
    assert embedder._llm.n_threads == expected


def test_numpy_runs_one_blas_thread_in_each_xdist_worker():
    """OpenBLAS's threads spin while they wait for each other: with both cores taken by pytest-xdist's two
    workers, a float64 forward pass of nine short texts (test_model_e5) took 34 s with two threads, 3.1 s with
    one. In a worker numpy's OpenBLAS runs one thread, set before numpy was imported (tests/conftest.py)."""
    import ctypes
    import numpy
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("not in a pytest-xdist worker")
    libs = sorted((Path(numpy.__file__).parent.parent / "numpy.libs").glob("libscipy_openblas*.so"))
    if not libs:
        pytest.skip("numpy's OpenBLAS library is not where its wheels put it")
    blas = ctypes.CDLL(str(libs[0]))
    threads = next(getattr(blas, name) for name in ("scipy_openblas_get_num_threads64_",
                                                    "scipy_openblas_get_num_threads") if hasattr(blas, name))
    assert threads() == 1
