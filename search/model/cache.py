"""One converted copy of each known model per source and converter, shared by every SIFT_HOME.

Converting e5 from its package takes about a minute; each new home (a test's temporary one, an embedding
machine's own) converted the same file again. ``provide`` converts into the shared cache once
(``SIFT_MODEL_CACHE``, else ``$XDG_CACHE_HOME/sift/models``, else ``~/.cache/sift/models``) and links the file
into the home (a copy across file systems). A cached file is named by a digest of what made it: the package's
source files and the converter's own files (its code, its data, the gguf writer's version), so a new package or
converter makes a new copy. It is written atomically (the converters write a temporary file and rename it), its
sha256 recorded beside it once it reads as a GGUF embedding model; a copy whose bytes differ from that record is
converted again. A cache that cannot be written (read-only, full) is passed by: the home gets its own conversion.
"""
from __future__ import annotations

import hashlib
import importlib
import os
import shutil
from importlib import metadata
from pathlib import Path

from search.model.info import KnownModel, file_sha256, read_model_info

ENV = "SIFT_MODEL_CACHE"


def cache_dir() -> Path:
    given = os.environ.get(ENV, "").strip()
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or Path.home() / ".cache"
    return Path(base) / "sift" / "models"


def provide(known: KnownModel, out_path: Path, force: bool = False) -> Path:
    """Put the known model's GGUF file at ``out_path``: from the shared cache, converted into it first if it
    holds no sound copy (or ``force``)."""
    module, function = known.build.split(":")
    build = getattr(importlib.import_module(module), function)
    cached = cache_dir() / f"{known.name}-{_digest(known)[:16]}.gguf"
    try:
        if force or not _sound(cached):
            cached.parent.mkdir(parents=True, exist_ok=True)
            build(cached)
            read_model_info(cached)  # an embedding model's GGUF, or ModelError
            _write(_record(cached), file_sha256(cached).encode())
    except OSError:  # the cache cannot be written: convert into the home alone, as before the cache
        return build(out_path)
    _place(cached, out_path)
    return out_path


def _digest(known: KnownModel) -> str:
    """What made the file: the package's files and the converter's (``KnownModel.sources``), and gguf's version."""
    module, function = known.sources.split(":")
    digest = hashlib.sha256(f"{known.build}\0gguf {metadata.version('gguf')}".encode())
    for path in getattr(importlib.import_module(module), function)():
        digest.update(f"\0{Path(path).name}\0{file_sha256(path)}".encode())
    return digest.hexdigest()


def _record(cached: Path) -> Path:
    return cached.with_name(cached.name + ".sha256")


def _sound(cached: Path) -> bool:
    """The cached file is there and has the bytes recorded when it was converted."""
    try:
        return cached.is_file() and _record(cached).read_text().strip() == file_sha256(cached)
    except OSError:
        return False


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _place(cached: Path, out_path: Path) -> None:
    """A hard link to the cached file at ``out_path`` (atomically), a copy where linking fails."""
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
    try:
        try:
            os.link(cached, tmp)
        except OSError:
            shutil.copyfile(cached, tmp)
        os.replace(tmp, out_path)
    finally:
        if tmp.exists():
            tmp.unlink()
