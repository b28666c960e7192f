"""Inspect a GGUF embedding model file without loading it into llama.cpp.

`read_model_info(path)` reads only the GGUF header (``search.model.gguf_header``:
the scalar keys and the tensors' sizes, stepping over the vocabulary's arrays)
and returns a `ModelInfo` with what the search index needs: embedding
dimension, context length, pooling type, the text the model wants before a
query and before a passage, and a stable `model_id` (name, dimension and a
content hash) for cache keys.

Prefixes come from the file's own `sift.prompt.query` / `sift.prompt.passage`
keys, else from `KNOWN_MODELS` by the file's `general.name`, so an e5 GGUF
converted elsewhere gets its prefixes too. `KNOWN_MODELS` is the one place
that knows a model by name: the rest of the code asks `ModelInfo`.

Every failure is reported as a single `ModelError` that names the path and
the fix.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# `ingest model prepare` builds only the models Sift knows (for a path it checks the file, and failed the same way)
FIX = ("set SIFT_MODEL (--model) to the path of a GGUF embedding model, or to e5 or minilm, which `ingest model "
       "prepare` builds")

# llama.cpp's enum llama_pooling_type (also gguf.PoolingType).
POOLING_NAMES = {0: "none", 1: "mean", 2: "cls", 3: "last", 4: "rank"}

_HASH_BLOCK = 1 << 20


class ModelError(Exception):
    """The embedding model is missing or unusable; the message names the fix."""


@dataclass(frozen=True)
class KnownModel:
    """A model Sift can build offline from a pip package, or whose conventions it knows."""
    name: str  # general.name in its GGUF file
    aliases: tuple[str, ...] = ()  # what SIFT_MODEL may say instead of the name
    query_prefix: str = ""
    passage_prefix: str = ""
    build: str | None = None  # "module:function(out_path) -> Path" that converts it from its package
    sources: str | None = None  # "module:function() -> [Path]": the files ``build`` reads and its converter's own
    multilingual: bool = False  # `ingest model prepare` also proves it on a Chinese paraphrase pair

    @property
    def file_name(self) -> str:
        return f"{self.name}.gguf"


KNOWN_MODELS = (
    KnownModel("multilingual-e5-small", ("e5",), "query: ", "passage: ", build="search.model.embedding:build_e5",
               sources="search.model.e5_convert:sources", multilingual=True),
    KnownModel("all-MiniLM-L6-v2", ("minilm",), build="search.model.embedding:build_minilm",
               sources="search.model.minilm_convert:sources"),
    # e5 relatives a user may convert elsewhere: the same prompts
    KnownModel("multilingual-e5-base", (), "query: ", "passage: ", multilingual=True),
    KnownModel("multilingual-e5-large", (), "query: ", "passage: ", multilingual=True),
    KnownModel("e5-small-v2", (), "query: ", "passage: "),
    KnownModel("e5-base-v2", (), "query: ", "passage: "),
    KnownModel("e5-large-v2", (), "query: ", "passage: "),
)


def _key(name: str) -> str:
    """'Multilingual E5 Small' and 'multilingual_e5_small' are the same model."""
    return re.sub(r"[^0-9a-z]+", "-", name.lower()).strip("-")


def known_model(name: str | None) -> KnownModel | None:
    """The known model called ``name`` (its GGUF name or an alias, any case or spacing), or None."""
    if not name:
        return None
    wanted = _key(name)
    return next((m for m in KNOWN_MODELS if wanted == _key(m.name) or wanted in m.aliases), None)


@dataclass(frozen=True)
class ModelInfo:
    path: str
    name: str
    arch: str
    dim: int
    max_tokens: int
    pooling: str
    model_id: str
    query_prefix: str = ""  # put before a search query when it is embedded
    passage_prefix: str = ""  # put before a chunk's text when it is embedded (and counted)


_cache: dict[tuple, ModelInfo] = {}


def read_model_info(path: str | os.PathLike[str]) -> ModelInfo:
    """Read a GGUF file's metadata (cached while the file is unchanged); raise ModelError if unusable."""
    p = Path(path)
    if p.is_dir():  # "not found" sent the user looking for a path that is there
        raise ModelError(f"{p} is a folder, not a GGUF model file: give the path of the .gguf file in it — {FIX}")
    if not p.is_file():
        raise ModelError(f"model file not found: {p} — {FIX}")
    stat = p.stat()
    key = (str(p.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _cache:
        _cache[key] = _read_info(p)
    return _cache[key]


def _read_info(p: Path) -> ModelInfo:
    fields = _read_fields(p)
    arch = str(fields.get("general.architecture") or "")
    dim = fields.get(f"{arch}.embedding_length")
    if not arch or not isinstance(dim, int) or dim <= 0:
        raise ModelError(f"{p} has no embedding length in its GGUF metadata, "
                         f"so it is not an embedding model — {FIX}")
    name = str(fields.get("general.name") or p.stem)
    known = known_model(name) or KnownModel(name)
    return ModelInfo(
        path=str(p),
        name=name,
        arch=arch,
        dim=dim,
        max_tokens=int(fields.get(f"{arch}.context_length") or 0),
        pooling=POOLING_NAMES.get(fields.get(f"{arch}.pooling_type", 1), "mean"),
        model_id=f"{name}-{dim}d-{file_sha256(p)[:12]}",
        query_prefix=_text(fields.get("sift.prompt.query"), known.query_prefix),
        passage_prefix=_text(fields.get("sift.prompt.passage"), known.passage_prefix),
    )


def dimension_of(model_id: str) -> int | None:
    """The vector size a model id names ('all-MiniLM-L6-v2-384d-c83381497633': 384), None if it names none."""
    found = re.search(r"-(\d+)d-[0-9a-f]+$", model_id or "")
    return int(found.group(1)) if found else None


def _text(value: Any, default: str) -> str:
    """A string key of the file (bytes or str), or ``default`` when the file has none."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else default


def file_sha256(path: Path) -> str:
    """Hex sha256 of the whole file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _read_fields(path: Path) -> dict[str, Any]:
    """Scalar metadata of a GGUF file (arrays are skipped) as a plain dict; the tensors must fit in the file."""
    from search.model.gguf_header import read_header

    try:
        header = read_header(path)
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path} is not a valid GGUF file ({exc}) — {FIX}") from exc
    size = path.stat().st_size
    if header.data_end > size or not header.tensors:  # a truncated file can still have a readable header
        raise ModelError(f"{path} is not a valid GGUF file (truncated or no tensors: "
                         f"needs {header.data_end} bytes, has {size}) — {FIX}")
    return header.fields
