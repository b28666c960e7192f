"""The home's side of embedding on other machines (``SIFT_EMBED_REMOTE=1`` with ``SIFT_QUEUE=redis://…``).

``send`` keeps the batch in a ledger in Redis (a hash, ``sift.embed.jobs``: job id → the pickled batch) and
queues only its texts and model id on ``sift-embed`` (workers.embedder). The answer comes back as the home task
``workers.tasks.embedded``, which takes the batch from the ledger, writes it and then forgets the job. So:

- a job whose embedding worker died (SIGKILL, a machine gone) is sent again once its heartbeat has been silent
  for ``SIFT_EMBED_TIMEOUT`` seconds, and one that no worker took and the queue no longer holds once it is that
  old (checked by a periodic task every minute, and at each answer that arrives);
- vectors that arrive twice (a slow worker and the one the job was sent to again) are written once: the second
  answer finds no batch in the ledger, and vectors are stored by (model, text hash) in any case;
- the ledger is what workers.recover counts as carried when a consumer starts; if Redis lost everything (a
  restart without persistence), the index still says which files are in flight and they are queued again.

Job ids begin with the generation (``<gen>-<uuid>``), so the periodic rescan can tell a build that waits for
embedding machines from a stalled one without reading the batches.
"""
from __future__ import annotations

import json
import logging
import pickle
import time
import uuid

from workers import pickles
from workers.queues import redis_pool

log = logging.getLogger("sift.workers")
JOBS = "sift.embed.jobs"  # hash: job id → pickled batch, from sending until its vectors are written
SENT = "sift.embed.sent"  # sorted set: job id → when it was (last) queued
HEARTBEATS = "sift.embed.taken"  # sorted set: job id → when an embedding worker last said it works on it
PROGRESS = "sift.embed.progress"  # hash: job id → how far its worker has got (JSON of workers.embedder.Progress)
_clients: dict = {}


def enabled() -> bool:
    from workers import runtime
    return runtime.settings().embed_remote


def redis():
    """A Redis client of the home's queue URL (its own pool: recover and the periodic task use it too)."""
    from workers import runtime
    url = runtime.settings().queue
    if url not in _clients:
        from redis import Redis
        _clients[url] = Redis(connection_pool=redis_pool(url))
    return _clients[url]


def send(batch) -> str:
    """Queue the batch's texts for an embedding machine; the batch waits in the ledger for the vectors."""
    job_id = f"{batch.gen}-{uuid.uuid4().hex}"
    pipe = redis().pipeline()
    pipe.hset(JOBS, job_id, pickle.dumps(batch, pickle.HIGHEST_PROTOCOL))
    pipe.zadd(SENT, {job_id: time.time()})
    pipe.execute()
    _queue(job_id, batch)
    return job_id


def waiting(job_id: str):
    """The batch the job's vectors belong to, or None when they were written already."""
    data = redis().hget(JOBS, job_id)
    return pickles.loads(data) if data is not None else None


def forget(job_id: str) -> None:
    pipe = redis().pipeline()
    pipe.hdel(JOBS, job_id)
    pipe.zrem(SENT, job_id)
    pipe.zrem(HEARTBEATS, job_id)
    pipe.hdel(PROGRESS, job_id)
    pipe.execute()


def in_flight() -> list:
    """Every batch sent and not yet written (for workers.recover)."""
    return [pickles.loads(data) for data in redis().hvals(JOBS)]


def generations_waiting() -> set[int]:
    """Generations with batches at embedding machines."""
    return {int(key.split(b"-", 1)[0]) for key in redis().hkeys(JOBS)}


def resend_overdue(timeout: float, now: float | None = None, unqueued: bool = False) -> list[str]:
    """Send again the jobs whose embedding worker has been silent for ``timeout`` seconds, and with
    ``unqueued`` those sent that long ago that no worker took and the queue does not hold."""
    now = time.time() if now is None else now
    conn = redis()
    overdue = [key.decode() for key in conn.zrangebyscore(HEARTBEATS, "-inf", now - timeout)]
    if unqueued:
        taken = {key.decode() for key in conn.zrange(HEARTBEATS, 0, -1)}
        untaken = [key.decode() for key in conn.zrangebyscore(SENT, "-inf", now - timeout)
                   if key.decode() not in taken]
        if untaken:  # read the queue only then: it holds every waiting job's texts
            queued = {task.args[0].id for task in _embed_huey().pending() if task.args}
            overdue += [job_id for job_id in untaken if job_id not in queued]
    sent = []
    for job_id in overdue:
        conn.zrem(HEARTBEATS, job_id)
        batch = waiting(job_id)
        if batch is None:
            conn.zrem(SENT, job_id)  # answered meanwhile (a heartbeat of a repeated job)
            conn.hdel(PROGRESS, job_id)
            continue
        log.warning("embed job %s (%d texts of generation %s): no word from its embedding worker for %g s; "
                    "sending it again", job_id, len(batch.to_embed), batch.gen, timeout)
        conn.zadd(SENT, {job_id: now})
        _queue(job_id, batch)
        sent.append(job_id)
    return sent


def resend_lost() -> None:
    """Every minute (from workers.rescan's periodic task): send again the embed jobs that a dead worker or a
    lost queue took with it."""
    if enabled():
        from workers import runtime
        resend_overdue(runtime.settings().embed_timeout, unqueued=True)


def slow(gen: int, after: float, timeout: float, now: float | None = None) -> list[dict]:
    """The generation's jobs that an embedding worker has been on for ``after`` seconds and that still beat
    (within ``timeout``), as search.index.working.slow gives the home's own: stage, path, files, bytes,
    seconds, done, total, and the worker (host:pid)."""
    now = time.time() if now is None else now
    conn = redis()
    found = []
    for key, value in conn.hgetall(PROGRESS).items():
        job_id = key.decode()
        beat = conn.zscore(HEARTBEATS, job_id)
        p = json.loads(value)
        if not job_id.startswith(f"{gen}-") or beat is None or now - beat > timeout or now - p["began"] < after \
                or p.get("answered"):  # done: its vectors wait for the home's worker, which stats count
            continue
        about = p["about"]
        found.append({"stage": "embed", "path": about.get("path", job_id), "files": about.get("files", 1),
                      "bytes": about.get("bytes", 0), "seconds": round(now - p["began"], 1), "done": p["done"],
                      "total": p["total"], "worker": p["worker"]})
    return found


def _queue(job_id: str, batch) -> None:
    """Queue the batch's texts on ``sift-embed``, a small build's ahead of bigger builds' (``tasks.priority``),
    and so is their answer on the home's queue."""
    from workers import tasks
    from workers.embedder import EmbedJob, embed
    paths = list(batch.chunks)
    about = {"path": paths[0] if paths else "", "files": len(paths), "bytes": sum(p.size for p in batch.parsed)}
    embed(EmbedJob(job_id, batch.model, dict(batch.to_embed), about, batch.urgent),
          priority=tasks.priority(embed, batch.urgent))


def _embed_huey():
    from workers.embedder import huey as embed_huey
    return embed_huey
