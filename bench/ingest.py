"""Ingestion throughput on notes-en, and the embedding model's speed.

Prints:
- files/s and chunks/s through discover + parse + chunk + write (the real
  pipeline tasks, run in-process by huey's immediate mode, keyword-only so the
  model's embedding time is left out; chunks are sized by the model measured),
- embedding tokens/s over a sample of those chunks with `--threads` threads
  (2 by default), and the model's FLOP/s as a share of a float32 numpy matrix
  multiply timed in the same run (the machine's practical peak),
- query embedding p50/p95 with one thread (as searches embed queries), over
  Chinese (zh-retrieval) and English (scifact) questions.

`--weights f16,q8_0,q4_0` converts multilingual-e5-small once per weight type
of its layer matrices (search/model/e5_convert.py) and measures each, with its
agreement (cosine) with an F32 conversion of the same weights.

    .venv/bin/python bench/ingest.py [--model e5|minilm|PATH[,...]] [--weights f16,q8_0,q4_0] [--sample 300] [--repeats 3]

Chunks are cut with the first model's tokenizer.  Rounds interleave the
models, so a busy spell on a shared machine hits them alike; figures are
medians over the rounds.
"""
from __future__ import annotations

import argparse
import atexit
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from common import fresh_home, median, percentile, shared_data


def pipeline_throughput(root) -> tuple[int, int, float, list[str]]:
    os.environ["SIFT_EMBEDDINGS"] = "off"
    fresh_home("bench-ingest")
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    runtime.reset()
    huey.immediate = True
    conn = runtime.index()
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


def model_files(args) -> list[tuple[str, Path]]:
    """(label, GGUF path) of every model to measure; `--weights` converts e5 variants into a temp folder."""
    if args.weights:
        from search.model.e5_convert import convert_e5, package_e5_file
        folder = Path(tempfile.mkdtemp(prefix="sift-bench-e5-"))
        atexit.register(shutil.rmtree, folder, True)  # ~400 MB of converted variants
        return [(f"e5 {w}", convert_e5(package_e5_file(), folder / f"e5-{w}.gguf", weights=w))
                for w in args.weights.split(",")]
    return [model_file(name) for name in (args.model or "").split(",")]


def model_file(name: str) -> tuple[str, Path]:
    """A GGUF path as it is, a known model's name (e5, minilm) built in ~/.sift/models, "" for the default."""
    if name and Path(name).is_file():
        return Path(name).name, Path(name)
    from search.model.embedding import resolve
    from search.settings import load
    if name:
        os.environ["SIFT_MODEL"] = name
    default_home = Path(os.environ.get("SIFT_BENCH_MODEL_HOME", Path.home() / ".sift"))
    path = Path(resolve(load(home=default_home)).path)
    return path.stem, path


def embedding_pass(embedder, texts, batch: int) -> tuple[float, float, np.ndarray]:
    """(seconds, CPU seconds, vectors) embedding `texts` as passages, `batch` per call, as the worker does.
    CPU time says what the work costs when other processes share the cores (with one thread)."""
    started, cpu = time.perf_counter(), time.process_time()
    vectors = np.concatenate([embedder.embed(texts[i:i + batch]) for i in range(0, len(texts), batch)])
    return time.perf_counter() - started, time.process_time() - cpu, vectors


def model_flops_per_token(embedder, mean_tokens: float) -> float:
    """2 x weights touched per token in the transformer blocks, plus attention over the sequence."""
    meta = embedder._llm.metadata
    arch = meta["general.architecture"]
    hidden, ffn = int(meta[f"{arch}.embedding_length"]), int(meta[f"{arch}.feed_forward_length"])
    layers = int(meta[f"{arch}.block_count"])
    weights = layers * (4 * hidden * hidden + 2 * hidden * ffn)  # Q, K, V, output; FFN up and down
    attention = 2 * 2 * mean_tokens * hidden * layers  # QK^T and AV
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


def query_texts(count: int) -> list[str]:
    """Real questions: half Chinese patients' (zh-retrieval), half English claims (scifact)."""
    texts = []
    for name in ("zh-retrieval", "scifact"):
        with open(shared_data(name) / "queries.tsv", encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f if "\t" in line]
        texts += [row[-1] for row in rows[:count // 2]]
    return texts


def query_pass(embedder, queries: list[str]) -> tuple[list[float], list[float]]:
    """Seconds and CPU seconds embedding each query alone (an embedder with the searches' one thread):
    on a busy machine the CPU time is what the query would take on a quiet one."""
    times, cpu_times = [], []
    for query in queries:
        started, cpu = time.perf_counter(), time.process_time()
        embedder.embed([query], kind="query")
        times.append(time.perf_counter() - started)
        cpu_times.append(time.process_time() - cpu)
    return times, cpu_times


class Measured:
    """One model under test: its embedders, and what the rounds measured."""

    def __init__(self, label: str, path: Path, threads: int):
        from search.model.embedding import Embedder, QUERY_THREADS
        from search.model.info import read_model_info
        self.label, self.path = label, path
        self.info = read_model_info(path)
        self.embedder = Embedder(self.info, threads=threads)
        self.query_embedder = Embedder(self.info, threads=QUERY_THREADS)
        self.seconds, self.cpu_seconds, self.flop_share = [], [], []
        self.query_times, self.query_cpu_times = [], []
        self.vectors, self.tokens = None, 0

    def round(self, sample, queries, batch: int) -> None:
        tokens = self.tokens
        seconds, cpu, self.vectors = embedding_pass(self.embedder, sample, batch)
        peak = matmul_peak()
        self.seconds.append(seconds)
        self.cpu_seconds.append(cpu)
        self.flop_share.append(model_flops_per_token(self.embedder, tokens / len(sample)) * tokens / seconds / peak)
        times, cpu_times = query_pass(self.query_embedder, queries)
        self.query_times += times
        self.query_cpu_times += cpu_times

    def report(self, sample, threads: int, total_chunks: int, reference=None) -> None:
        tokens = self.tokens
        seconds = median(self.seconds)
        rate = tokens / seconds
        size = self.path.stat().st_size / 1e6
        rates = ", ".join(f"{tokens / s:.0f}" for s in self.seconds)
        print(f"{self.label} ({self.info.model_id}, {size:.0f} MB): {len(sample)} chunks, {tokens} tokens, "
              f"{threads} threads -> median {rate:.0f} tokens/s ({rates}), {len(sample) / seconds:.1f} chunks/s, "
              f"{tokens / median(self.cpu_seconds):.0f} tokens per CPU second")
        print(f"  model compute at a median {median(self.flop_share):.1%} of numpy float32 matmul measured "
              f"after each pass; notes-en ({total_chunks} chunks) would take {total_chunks / (len(sample) / seconds) / 60:.1f} min")
        print(f"  query embedding, 1 thread: p50 {percentile(self.query_times, 0.5) * 1000:.1f} ms, "
              f"p95 {percentile(self.query_times, 0.95) * 1000:.1f} ms over {len(self.query_times)} embeddings "
              f"(CPU time: p50 {percentile(self.query_cpu_times, 0.5) * 1000:.1f} ms, "
              f"p95 {percentile(self.query_cpu_times, 0.95) * 1000:.1f} ms)")
        if reference is not None and reference is not self:
            cosines = np.sum(self.vectors * reference.vectors, axis=1)
            print(f"  agreement with {reference.label} over the sample: min cosine {cosines.min():.5f}, "
                  f"median {np.median(cosines):.6f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="e5, minilm or a GGUF path, or several comma-separated (default: SIFT_MODEL or Sift's default)")
    parser.add_argument("--weights", help="comma-separated e5 layer types to convert and compare: f16,q8_0,q4_0")
    parser.add_argument("--sample", type=int, default=300, help="chunks to embed for the embedding figure")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads for the throughput figure")
    parser.add_argument("--queries", type=int, default=60, help="queries timed for the latency figure")
    parser.add_argument("--remote", action="store_true",
                        help="the home's CPU for notes-en with embedding on another machine vs local (bench/ingest_remote.py)")
    parser.add_argument("--files", type=int, help="with --remote: only the first N files of notes-en")
    args = parser.parse_args()
    if args.remote:
        from ingest_remote import run
        return run(getattr(args, "model", None), args.files)
    root = shared_data("notes-en")
    models = model_files(args)
    os.environ["SIFT_MODEL"] = str(models[0][1])  # chunks are sized by the measured model's tokenizer

    files, chunks, elapsed, texts = pipeline_throughput(root)
    print(f"discover+parse+chunk+write: {files} files, {chunks} chunks in {elapsed:.2f} s "
          f"-> {files / elapsed:.0f} files/s, {chunks / elapsed:.0f} chunks/s")

    step = max(1, len(texts) // args.sample)
    sample = texts[::step][:args.sample]
    queries = query_texts(args.queries)
    if args.weights:
        from search.model.e5_convert import convert_e5, package_e5_file
        models.insert(0, ("e5 f32 (reference)",
                          convert_e5(package_e5_file(), models[0][1].with_name("e5-f32.gguf"), weights="f32")))
    measured = [Measured(label, path, args.threads) for label, path in models]
    for model in measured:  # count with each model's tokenizer, and warm up
        model.tokens = sum(model.embedder.count(t) for t in sample)
        model.embedder.embed(sample[:4])
        model.query_embedder.embed(queries[:3], kind="query")
    print(f"machine load before measuring: {os.getloadavg()[0]:.1f} (1-minute average, {os.cpu_count()} cores)")
    for _ in range(args.repeats):  # rounds interleave the models, so a busy spell hits them alike
        for model in measured:
            model.round(sample, queries, args.batch)
    print(f"machine load after measuring: {os.getloadavg()[0]:.1f}")
    reference = measured[0] if args.weights else None
    for model in measured:
        model.report(sample, args.threads, chunks, reference)


if __name__ == "__main__":
    main()
