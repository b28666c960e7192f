"""Jobs outlive an upgrade: a batch pickled in a queue (huey's, or workers.remote's ledger in Redis) names its
classes by the modules they had when it was queued. Reading it maps the modules that have moved since to
where they are now, so jobs queued before an upgrade still run, and a starting consumer can still list them
(workers.recover)."""
from __future__ import annotations

import io
import pickle

from huey.serializer import Serializer

# old module → where it lives now (search/ was cut into search/index, search/model and search/query)
MOVED = {"search.store": "search.index.store"}  # store.ChunkRow travels in a Batch between stages


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        return super().find_class(MOVED.get(module, module), name)


def loads(data: bytes):
    """pickle.loads, with the moved modules found where they are now."""
    return _Unpickler(io.BytesIO(data)).load()


class JobSerializer(Serializer):
    """huey's serializer, reading jobs with ``loads``."""

    def _deserialize(self, data):
        return loads(data)
