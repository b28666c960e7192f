"""The home's worker app and an embedding machine make their Redis queue and share the cores one way
(workers/queues.py), against a real redis-server."""
from __future__ import annotations

import os



def test_the_home_and_an_embedding_machine_reach_redis_alike(sift_env, redis_url, monkeypatch):
    from huey import PriorityRedisHuey
    from search.settings import load
    monkeypatch.setenv("SIFT_QUEUE", redis_url)  # workers.embedder makes its queue when imported
    monkeypatch.delenv("SIFT_QUEUE_IMMEDIATE", raising=False)
    from workers import app, embedder, queues
    settings = load(queue=redis_url)
    made = {"home": app.make_huey(settings), "embedder": embedder.make_huey(settings)}
    assert {name: huey.name for name, huey in made.items()} == {"home": app.QUEUE_NAME,
                                                                "embedder": embedder.QUEUE_NAME}
    for name, huey in made.items():
        assert isinstance(huey, PriorityRedisHuey), name  # later stages first, as on SQLite
        pool = huey.storage.conn.connection_pool
        assert pool.connection_kwargs["socket_connect_timeout"] == 5, name  # never hang on a lost Redis
        assert not huey.immediate and huey.storage.conn.ping(), name
    assert isinstance(made["home"], app.SiftRedisHuey)
    monkeypatch.setenv("SIFT_QUEUE_IMMEDIATE", "1")  # tests: both run their jobs in the calling process
    assert app.make_huey(settings).immediate and embedder.make_huey(settings).immediate
    assert queues.redis_pool(redis_url).connection_kwargs["socket_connect_timeout"] == 5


def test_worker_threads_share_the_cores_among_the_workers(monkeypatch):
    from search.settings import load
    from workers import queues
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert [queues.worker_threads(load(workers=n)) for n in (1, 2, 3, 8, 16)] == [8, 4, 2, 1, 1]
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # unknown: one thread
    assert queues.worker_threads(load(workers=2)) == 1
