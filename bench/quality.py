"""Retrieval quality: nDCG@10 and Recall@10 per search mode, on BEIR SciFact or zh-retrieval.

Indexes ../shared/data/<set>/docs through the real pipeline (huey's immediate
mode, in this process), then runs the set's queries through
``search.query.engine.Engine`` in keyword, semantic and hybrid mode. A document's
rank is the rank of its best chunk. The model is the configured one
(SIFT_MODEL; default multilingual-e5-small).

    .venv/bin/python bench/quality.py [--data scifact|zh-retrieval] [--home DIR]   # --home reuses an index
"""
from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

from common import fresh_home, shared_data, use_all_cores

K = 10


def build_index(docs: Path, home: Path | None, name: str = "scifact") -> Path:
    """Index the docs in ``home`` (a new one if None); a finished index is reused, a partial one resumed."""
    if home is None:
        home = fresh_home("bench-quality")
    else:
        home.mkdir(parents=True, exist_ok=True)
        os.environ["SIFT_HOME"] = str(home)
        if not os.environ.get("SIFT_MODEL"):
            fresh_home("model")
            os.environ["SIFT_HOME"] = str(home)
    use_all_cores()
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    runtime.reset()
    huey.immediate = True
    conn = runtime.index()
    collection = store.ensure_collection(conn, name, str(docs))
    building = conn.execute("SELECT 1 FROM generations WHERE collection = ? AND state = 'building'",
                            (collection["id"],)).fetchone()
    if collection["published"] is None or building:
        started = time.perf_counter()
        tasks.discover(collection["id"], resume=bool(building))  # a build left by a killed run: resume it
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        print(f"indexed {docs} -> {chunks} chunks in {time.perf_counter() - started:.0f} s")
    huey.immediate = False
    return home / "index.db"


def load_judgements(base: Path):
    queries = dict(line.rstrip("\n").split("\t", 1) for line in open(base / "queries.tsv", encoding="utf-8"))
    qrels: dict[str, dict[str, int]] = {}
    for line in open(base / "qrels.tsv", encoding="utf-8"):
        qid, doc, score = line.split()
        qrels.setdefault(qid, {})[doc] = int(score)
    return {q: t for q, t in queries.items() if q in qrels}, qrels


def ranked_docs(answer) -> list[str]:
    seen: list[str] = []
    for hit in answer.hits:
        doc = Path(hit.path).stem
        if doc not in seen:
            seen.append(doc)
    return seen[:K]


def ndcg(ranking: list[str], relevant: dict[str, int]) -> float:
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranking))
    ideal = sum(score / math.log2(i + 2) for i, score in enumerate(sorted(relevant.values(), reverse=True)[:K]))
    return dcg / ideal if ideal else 0.0


def recall(ranking: list[str], relevant: dict[str, int]) -> float:
    return len(set(ranking) & set(relevant)) / len(relevant)


def evaluate(engine, queries, qrels, mode: str) -> tuple[float, float]:
    ndcgs, recalls = [], []
    for qid, text in queries.items():
        answer = engine.search(text, limit=30, mode=mode)
        ranking = ranked_docs(answer)
        ndcgs.append(ndcg(ranking, qrels[qid]))
        recalls.append(recall(ranking, qrels[qid]))
    return sum(ndcgs) / len(ndcgs), sum(recalls) / len(recalls)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="scifact", choices=["scifact", "zh-retrieval"],
                        help="the judged set under ../shared/data (default scifact)")
    parser.add_argument("--home", type=Path, help="a Sift home to build the index in, or reuse")
    parser.add_argument("--modes", default="keyword,semantic,hybrid")
    parser.add_argument("--fts5", action="store_true", help="rank keywords with FTS5's bm25() itself, "
                        "not the postings held in memory")
    args = parser.parse_args()
    base = shared_data(args.data)
    index = build_index(base / "docs", args.home, args.data)
    from search.query.engine import Engine, from_settings
    from search.settings import load
    engine = from_settings(load())
    if args.fts5:
        engine = Engine(engine.index_path, engine._embedder_loader, keyword_postings=False)
    engine.warm()
    queries, qrels = load_judgements(base)
    import sqlite3
    models = [m for (m,) in sqlite3.connect(index).execute(
        "SELECT DISTINCT model FROM generations WHERE state = 'published'")]
    print(f"{args.data}: vectors by {', '.join(map(str, models))}")
    print(f"{len(queries)} queries, {sum(len(v) for v in qrels.values())} judgements, index {index}")
    print(f"{'mode':<10}{'nDCG@10':>9}{'Recall@10':>11}")
    for mode in args.modes.split(","):
        score, rec = evaluate(engine, queries, qrels, mode)
        print(f"{mode:<10}{score:>9.3f}{rec:>11.3f}")


if __name__ == "__main__":
    main()
