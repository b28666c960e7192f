"""Ingestion throughput on notes-en.

Prints:
- files/s and chunks/s through discover + parse + chunk + write (the real
  pipeline tasks, run in-process by huey's immediate mode, keyword-only so the
  model's embedding time is left out),
- embedding tokens/s over the same chunks, and the model's FLOP/s as a share
  of a float32 numpy matrix multiply timed in the same run (the machine's
  practical peak).

    .venv/bin/python bench/ingest.py [--sample 600] [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from common import fresh_home, median, shared_data


def pipeline_throughput(root) -> tuple[int, int, float]:
    os.environ["SIFT_EMBEDDINGS"] = "off"
    fresh_home("bench-ingest")
    from search import store
    from workers import runtime, tasks
    from workers.app import huey
    runtime.reset()
    huey.immediate = True
    conn = runtime.index()
    runtime.embedder()  # load the tokenizer before the clock starts
    collection = store.ensure_collection(conn, "notes-en", str(root))
    started = time.perf_counter()
    tasks.discover(collection["id"])
    elapsed = time.perf_counter() - started
    files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    texts = [r[0] for r in conn.execute("SELECT text FROM chunks ORDER BY id")]
    huey.immediate = False
    del os.environ["SIFT_EMBEDDINGS"]
    runtime.reset()
    return files, chunks, elapsed, texts


def embedding_throughput(texts, batch: int, repeats: int):
    from search.model import Embedder, resolve
    from search.settings import load
    settings = load()
    embedder = Embedder(resolve(settings), threads=os.cpu_count())
    tokens = sum(embedder.count(t) for t in texts)
    embedder.embed(texts[:batch])  # warm up
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        for i in range(0, len(texts), batch):
            embedder.embed(texts[i:i + batch])
        times.append(time.perf_counter() - started)
    return embedder.info, tokens, median(times), tokens / sum(len(t) for t in texts)


def model_flops_per_token(info, mean_tokens: float) -> float:
    """2 x weights touched per token in the transformer blocks, plus attention over the sequence."""
    from gguf import GGUFReader
    reader = GGUFReader(info.path)
    weights = sum(int(np.prod(t.shape)) for t in reader.tensors if t.name.startswith("blk.") and len(t.shape) == 2)
    layers = 1 + max(int(t.name.split(".")[1]) for t in reader.tensors if t.name.startswith("blk."))
    attention = 2 * 2 * mean_tokens * info.dim * layers  # QK^T and AV
    return 2.0 * weights + attention


def matmul_peak(size: int = 1024, repeats: int = 7) -> float:
    a = np.random.default_rng(0).standard_normal((size, size), dtype=np.float32)
    b = np.random.default_rng(1).standard_normal((size, size), dtype=np.float32)
    a @ b
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - started)
    return 2.0 * size ** 3 / median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=600, help="chunks to embed for the embedding figure")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--remote", action="store_true",
                        help="the home's CPU for notes-en with embedding on another machine vs local (bench/ingest_remote.py)")
    parser.add_argument("--files", type=int, help="with --remote: only the first N files of notes-en")
    args = parser.parse_args()
    if args.remote:
        from ingest_remote import run
        return run(getattr(args, "model", None), args.files)
    root = shared_data("notes-en")

    files, chunks, elapsed, texts = pipeline_throughput(root)
    print(f"discover+parse+chunk+write: {files} files, {chunks} chunks in {elapsed:.2f} s "
          f"-> {files / elapsed:.0f} files/s, {chunks / elapsed:.0f} chunks/s")

    step = max(1, len(texts) // args.sample)
    sample = texts[::step][:args.sample]
    info, tokens, seconds, _ = embedding_throughput(sample, args.batch, args.repeats)
    rate = tokens / seconds
    flops = model_flops_per_token(info, tokens / len(sample)) * rate
    peak = matmul_peak()
    print(f"embedding ({info.model_id}, {os.cpu_count()} threads): {len(sample)} chunks, {tokens} tokens, "
          f"median {seconds:.2f} s over {args.repeats} runs -> {rate:.0f} tokens/s, {len(sample) / seconds:.1f} chunks/s")
    print(f"model compute: {flops / 1e9:.1f} GFLOP/s; numpy float32 matmul peak: {peak / 1e9:.1f} GFLOP/s "
          f"-> {flops / peak:.1%} of peak")
    print(f"projected full embedding of notes-en: {chunks / (len(sample) / seconds) / 60:.1f} min")


if __name__ == "__main__":
    main()
