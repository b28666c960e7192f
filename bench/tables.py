"""What a table costs to index: passages made and the time to embed them, for a plain numeric data file (5,000 rows
of readings) and a team's task table (2,000 rows of names, people, states and dates).

Each CSV is read by the parser (ingest.parse.parse_file), cut by the chunker with the model's own token counter at
the default chunk size, and its passages embedded by the model as the worker embeds them (batches of
SIFT_EMBED_BATCH); the embedding is timed over --runs runs (3), the median printed.

    .venv/bin/python bench/tables.py [--model PATH]   # default: ~/.sift/models/multilingual-e5-small.gguf
    PYTHONPATH=../older-checkout .venv/bin/python bench/tables.py  # another Sift's reading
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

import common  # noqa: F401  (puts the repository on the path)
from ingest.chunk import chunk_document
from ingest.parse import parse_file
from search.model.embedding import Embedder
from search.model.info import read_model_info
from search.settings import load

PEOPLE = ["Priya Shah", "Lin Wei", "Jonas Berg", "Mei Chen", "Tomás Reyes", "Aisha Okafor"]
VERBS = ["Fix", "Write", "Review", "Backfill", "Benchmark", "Remove", "Archive", "Schedule", "Draft", "Migrate"]
THINGS = ["the invoice numbers", "proration rounding", "the reranker", "the welcome email", "dbt models",
          "the SSO guide", "flaky tests", "the offsite venue", "rate limits", "the status page"]


def numeric(rows: int, rng: random.Random) -> list[str]:
    return [f"2026-03-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00,{i % 7},{rng.uniform(-5, 30):.2f},"
            f"{rng.uniform(20, 95):.1f},{rng.uniform(980, 1040):.1f},{rng.uniform(0, 20):.2f}" for i in range(rows)]


def tasks(rows: int, rng: random.Random) -> list[str]:
    return [f"{rng.choice(VERBS)} {rng.choice(THINGS)} ({i}),{rng.choice(PEOPLE)},"
            f"{rng.choice(['Done', 'In progress', 'Not started'])},2026-{1 + i % 12:02d}-{1 + i % 28:02d},"
            f"Project {i % 40}" for i in range(rows)]


TABLES = [("readings.csv", "5,000 rows of numbers", "timestamp,sensor,temperature,humidity,pressure,wind_speed",
           numeric, 5000, 1),
          ("tasks.csv", "2,000 task rows", "Name,Assignee,Status,Due,Project", tasks, 2000, 2)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=os.path.expanduser("~/.sift/models/multilingual-e5-small.gguf"))
    parser.add_argument("--runs", type=int, default=3, help="embeddings timed (the median printed)")
    args = parser.parse_args()
    embedder, settings = Embedder(read_model_info(args.model)), load()
    limit = min(settings.chunk_tokens, embedder.info.max_tokens)
    embedder.embed(["warm-up"])  # the model's first call loads it: no table's time
    for name, what, header, rows, many, seed in TABLES:
        data = "\n".join([header] + rows(many, random.Random(seed))) + "\n"
        chunks = chunk_document(parse_file(name, data.encode()), embedder.count, limit, settings.chunk_overlap)
        texts = [chunk.embedding_text for chunk in chunks]
        times = []
        for _ in range(args.runs):
            began = time.perf_counter()
            for i in range(0, len(texts), settings.embed_batch):
                embedder.embed(texts[i:i + settings.embed_batch])
            times.append(time.perf_counter() - began)
        print(f"{name} ({what}): {len(chunks):,} passages, {sum(c.tokens for c in chunks):,} tokens, embedded in "
              f"{statistics.median(times):.1f} s (median of {args.runs})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
