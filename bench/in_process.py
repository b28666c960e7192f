"""Indexing a benchmark's own small corpus in this process, and the line its ranks are summed up in, shared by the
benchmarks that write a folder and ask questions of it (bench/word.py, mail.py, org_rst.py, decks.py). No change to
sys.path here: a PYTHONPATH naming an older checkout measures that Sift."""
from __future__ import annotations

import os
from pathlib import Path


def index_in_process(root: Path, name: str):
    """Index the folder ``root`` as the collection ``name`` in this process (huey in immediate mode, the home
    SIFT_HOME names): its stats report and an Engine over it with the configured model."""
    from search.index import status, store
    from search.model.embedding import Embedder, resolve
    from search.query.engine import Engine
    from search.settings import load
    from workers import runtime, tasks
    from workers.app import huey
    import search
    print(f"code: {Path(search.__file__).parent.parent}", flush=True)
    huey.immediate = True
    conn = runtime.index()
    collection = store.ensure_collection(conn, name, str(root))
    tasks.discover(collection["id"])
    report = next(c for c in status.collect(conn)["collections"] if c["name"] == name)
    embedder = Embedder(resolve(load()))
    return report, Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)


def ranks_line(mode: str, ranks: list[int]) -> str:
    """'hybrid: first 18/20, top five 20/20, MRR 0.950' of the rank each question's answer came at (99: none)."""
    return (f"{mode}: first {sum(r == 1 for r in ranks)}/{len(ranks)}, top five {sum(r <= 5 for r in ranks)}/"
            f"{len(ranks)}, MRR {sum(1 / r for r in ranks) / len(ranks):.3f}")


def ask_questions(engine, questions, answers, place=lambda hit: hit.path) -> None:
    """Ask each (question, wanted) of ``questions`` in keyword and hybrid mode (limit 10), printing the rank of the
    first hit ``answers(hit, wanted)`` accepts (99: not in the ten) and the top hit (``place`` of it and its heading
    path), then each mode's ranks_line."""
    for mode in ("keyword", "hybrid"):
        ranks = []
        for question, wanted in questions:
            hits = engine.search(question, mode=mode, limit=10).hits
            rank = next((i + 1 for i, hit in enumerate(hits) if answers(hit, wanted)), 99)
            ranks.append(rank)
            top = f"{place(hits[0])} {hits[0].heading_path or ''}".strip() if hits else "-"
            print(f"{mode:>7} {rank:>3}  {question}  [{top}]", flush=True)
        print(ranks_line(mode, ranks), flush=True)
