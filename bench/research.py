"""A PhD student's research folder (bench/research_corpus.py: a Zotero storage folder with PDFs, Better BibTeX's
library.bib, a LaTeX thesis, literature notes citing with Pandoc citekeys): where the file a question is about
ranks.

Writes the folder, indexes it in this process (huey in immediate mode: the real pipeline, SQLite and model), then
asks each question of research_corpus.QUESTIONS (hybrid search, limit 10) and prints the rank of the first hit that
answers it (a file's path, or for a .bib entry the file and the entry's citekey in its heading; 99: not in the ten),
then how many came first and how many in the top five. The model is MiniLM unless SIFT_MODEL says otherwise.

    .venv/bin/python bench/research.py
    .venv/bin/python bench/research.py --library 2000   # a library.bib of 2,000 entries: its build, then one edit's
    PYTHONPATH=../older-checkout .venv/bin/python bench/research.py   # another Sift's reading (before/after)
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# this folder (Python's first) holds bench/ingest.py: the repository, after PYTHONPATH (an older checkout given
# there is the one measured), then this folder
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent), str(HERE)]
from research_corpus import PAPERS, QUESTIONS, bibtex, write  # noqa: E402


def answers(hit, wanted: list[str]) -> bool:
    for answer in wanted:
        path, _, key = answer.partition("#")
        if hit.path.endswith(path) and (not key or key in (hit.heading_path or "")):
            return True
    return False


def library(entries: int, scratch: Path) -> None:
    """A library.bib of ``entries`` entries (the corpus' papers again and again, each its own key and title): how
    long its first build takes, and how many passages one entry's edit embeds again (Better BibTeX rewrites the
    whole file at each change in Zotero)."""
    from search.index import status, store
    from workers import runtime, tasks
    from workers.app import huey
    root = scratch / "library"
    root.mkdir(parents=True)

    def written(edit: str = "") -> None:
        papers = [list(PAPERS[i % len(PAPERS)]) for i in range(entries)]
        for i, paper in enumerate(papers):
            paper[0], paper[2] = f"{paper[0]}-{i}", f"{paper[2]} (part {i})"
        papers[7][6] += edit
        (root / "library.bib").write_text("\n".join(bibtex(tuple(paper)) for paper in papers), encoding="utf-8")
    written()
    huey.immediate = True
    conn = runtime.index()
    collection = store.ensure_collection(conn, "library", str(root))
    for what in ("first build", "one entry edited"):
        began = time.perf_counter()
        tasks.discover(collection["id"])
        report = next(c for c in status.collect(conn)["collections"] if c["name"] == "library")
        print(f"{what}: {time.perf_counter() - began:.1f} s, {report['published'].get('embedded')} passages embedded",
              flush=True)
        time.sleep(1.1)  # a new mtime
        written(" Edited.")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--library", type=int, metavar="ENTRIES", help="time a library.bib of this many entries")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="sift-research-"))
    os.environ["SIFT_HOME"] = str(scratch / "home")
    os.environ.setdefault("SIFT_MODEL", "minilm")
    if args.library:
        library(args.library, scratch)
        return 0
    data = [Path(os.environ["SIFT_SHARED_DATA"])] if os.environ.get("SIFT_SHARED_DATA") else []
    pdfs = next((base / "pdf" / "en" for base in [*data, HERE.parent.parent / "shared" / "data",
                                                    Path("/work/shared/data")] if (base / "pdf" / "en").is_dir()), None)
    root = scratch / "research"
    print(f"{write(root, pdfs)} files written to {root}", flush=True)

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
    collection = store.ensure_collection(conn, "research", str(root))
    tasks.discover(collection["id"])
    report = next(c for c in status.collect(conn)["collections"] if c["name"] == "research")
    print({k: report.get(k) for k in ("files", "chunks", "not_read", "failed") if k in report}, flush=True)
    embedder = Embedder(resolve(load()))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    ranks = []
    for question, wanted in QUESTIONS:
        hits = engine.search(question, limit=10).hits
        rank = next((i + 1 for i, hit in enumerate(hits) if answers(hit, wanted)), 99)
        ranks.append(rank)
        top = f"{hits[0].path} {hits[0].heading_path or ''}".strip() if hits else "-"
        print(f"{rank:>3}  {question}  [{top}]", flush=True)
    print(f"first {sum(r == 1 for r in ranks)}/{len(ranks)}, top five {sum(r <= 5 for r in ranks)}/{len(ranks)}, "
          f"MRR {sum(1 / r for r in ranks) / len(ranks):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
