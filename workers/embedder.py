"""An embedding machine: ``huey_consumer workers.embedder.huey -k process -w N`` with the home's Redis URL.

It needs only the Redis URL (``SIFT_QUEUE``, the home's) and the model (``SIFT_MODEL``, the same GGUF file as
the home's: a known name is built in its own ``SIFT_HOME``). It takes embed jobs from the Redis queue
``sift-embed``: chunk texts by text hash and the model id of the generation they belong to. It sends the
vectors back as a job on the home's queue (``workers.tasks.embedded``), where the writer sits next to the index
and the notes. It never opens the notes or ``index.db`` and does not need them on its disk.

A job for another model than this machine's is refused, never embedded: the answer says why, and the home
records the files as failed with that reason (``ingest stats``), to be queued again with ``ingest retry-failed``
once the embedder runs the right model.

While it embeds, it records a heartbeat for the job in Redis about every second, so the home can tell a long
job from a dead worker: a job silent for ``SIFT_EMBED_TIMEOUT`` seconds is sent again
(``workers.remote``).
"""
from __future__ import annotations

import json
import logging
import os
import socket
import time
from dataclasses import asdict, dataclass, field

from huey import PriorityRedisHuey

from search.model.info import ModelError
from search.settings import load
from workers import refusal
from workers.queues import (SaysRedisBack, consumer_settings, log_like_huey, lower_priority, redis_huey,
                            refuse_unusable_redis, worker_threads)

log = logging.getLogger("sift.embedder")
QUEUE_NAME = "sift-embed"
BEAT_TEXTS = 4  # texts embedded between looks at the clock
BEAT_SECONDS = 1.0  # a heartbeat at most this often (the home re-sends a job silent for SIFT_EMBED_TIMEOUT)


@dataclass
class EmbedJob:
    """What an embedding machine gets: texts to embed with the model ``model`` (an id, not a path)."""
    id: str
    model: str
    texts: dict[str, str]  # text hash → chunk text
    about: dict = field(default_factory=dict)  # its files, for the home's stats: path (the first), files, bytes
    urgent: bool = False  # a small build's: its answer goes ahead of bigger builds' jobs (workers.tasks.priority)


@dataclass
class Answer:
    """What comes back to the home: the vectors (float32 blobs by text hash), or why the job was refused."""
    id: str
    model: str
    vectors: dict[str, bytes] = field(default_factory=dict)
    refused: str | None = None
    worker: str = ""
    error: str | None = None  # the class of the error a refusal came of (ModelError), kept with the files' failure


class EmbedderHuey(SaysRedisBack, PriorityRedisHuey):
    def create_consumer(self, **options):
        log_like_huey()  # "embedded N texts of job …" goes to the consumer's log, as the home worker's lines do
        refuse_unusable_redis(self, "sift embedder")
        _refuse_unusable_model()
        lower_priority(consumer_settings("sift embedder"))
        return super().create_consumer(**options)


def _refuse_unusable_model() -> None:
    """An embedder whose model file is missing or not a GGUF model says so in one line and stops: it took each
    job and lost it (an unhandled exception), the home re-sent it after SIFT_EMBED_TIMEOUT, for ever, and the
    home's stats said only "sent and not yet written: 1". A known model (SIFT_MODEL=minilm) is built here."""
    from search.model import embedding
    from search.model.info import ModelError
    try:
        embedding.resolve(load())
    except ModelError as exc:
        refusal.refuse(f"sift embedder: error: {exc}")
        raise SystemExit(2) from None


def make_huey(settings=None) -> PriorityRedisHuey:
    settings = settings or consumer_settings("sift embedder")
    if settings.queue == "sqlite":
        raise SystemExit("sift embedder: error: it takes its jobs from the home's Redis: set "
                         "SIFT_QUEUE=redis://HOST:PORT/DB (the URL the home uses)")
    return redis_huey(EmbedderHuey, QUEUE_NAME, settings.queue)


huey = make_huey()
_state: dict = {}


@huey.task(priority=0)  # a small build's jobs go ahead (workers.tasks.priority, workers.remote._queue)
def embed(job: EmbedJob) -> None:
    """Embed the job's texts with this machine's model and send the vectors to the home's queue."""
    worker = f"{socket.gethostname()}:{os.getpid()}"
    began = time.time()
    beat(job.id)
    try:
        model = _model()
    except ModelError as exc:  # the file went away or was damaged after the consumer started
        reason = (f"embedding machine {worker} cannot load its model: {exc}; fix SIFT_MODEL there (the home's "
                  "GGUF file), start the embedder again, then run `ingest retry-failed`")
        log.error("sift embedder: refused job %s: %s", job.id, reason)
        _reply(Answer(job.id, job.model, refused=reason, worker=worker, error=type(exc).__name__), job.urgent)
        return
    if model.info.model_id != job.model:
        reason = (f"embedding machine {worker} has the model {model.info.model_id} ({model.info.path}), but this "
                  f"generation embeds with {job.model}: start the embedder with SIFT_MODEL set to that model's "
                  "GGUF file (the home's), then run `ingest retry-failed`")
        log.error("sift embedder: refused job %s: %s", job.id, reason)
        _reply(Answer(job.id, job.model, refused=reason, worker=worker), job.urgent)
        return
    hashes, vectors, last_beat = list(job.texts), {}, time.monotonic()
    for i in range(0, len(hashes), BEAT_TEXTS):  # one decode per text either way: small calls cost nothing
        part = hashes[i:i + BEAT_TEXTS]
        matrix = model.embed([job.texts[h] for h in part], kind="passage")
        vectors.update((h, row.tobytes()) for h, row in zip(part, matrix))
        if time.monotonic() - last_beat >= BEAT_SECONDS:
            beat(job.id, Progress(worker, began, i + len(part), len(hashes), getattr(job, "about", {})))
            last_beat = time.monotonic()
    # before the answer: the home forgets the job's heartbeat and progress as it writes the vectors
    beat(job.id, Progress(worker, began, len(hashes), len(hashes), getattr(job, "about", {}), answered=True))
    _reply(Answer(job.id, job.model, vectors, worker=worker), job.urgent)
    log.info("embedded %d texts of job %s", len(vectors), job.id)


@dataclass
class Progress:
    """How far a worker has got with a job, for the home's stats (workers.remote.slow)."""
    worker: str
    began: float
    done: int
    total: int
    about: dict
    answered: bool = False  # the vectors are on the home's queue: stats no longer say it is embedding


def beat(job_id: str, progress: Progress | None = None) -> None:
    """Tell the home this job is being worked on (it re-sends a job whose heartbeat stops), and how far."""
    from workers.remote import HEARTBEATS, PROGRESS
    pipe = huey.storage.conn.pipeline()
    pipe.zadd(HEARTBEATS, {job_id: time.time()})
    if progress is not None:
        pipe.hset(PROGRESS, job_id, json.dumps(asdict(progress)))
    pipe.execute()


def _reply(answer: Answer, urgent: bool) -> None:
    """Queue the answer on the home's queue with the priority its batch's other stages have."""
    from workers import tasks  # the home's tasks, queued on the home's queue in the same Redis
    tasks.embedded(answer, priority=tasks.priority(tasks.embedded, urgent))


def _model():
    """This machine's model, loaded once per worker process, with cores shared among SIFT_WORKERS processes."""
    if "model" not in _state:
        from search.model import embedding
        settings = load()
        _state["model"] = embedding.Embedder(embedding.resolve(settings), threads=worker_threads(settings))
    return _state["model"]
