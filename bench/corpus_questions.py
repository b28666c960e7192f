"""The main of a benchmark that writes its own corpus and asks questions about it, each with the file it asks
about (bench/japanese_korean.py, bench/european.py): builds the index through the real pipeline
(bench/quality.py's ``build_index``), asks each question in each mode and prints, per mode, how often the file asked
about came first, among the first five, the mean reciprocal rank of its first hit (0 past the tenth), how many query
words the spelling note named as held nowhere, and how many first hits' snippets mark nothing."""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from quality import build_index


def main(doc: str, prefix: str, written: str, write_corpus, questions: list[tuple[str, str]]) -> None:
    """``written``: a folder the corpus holds, so a --data folder holding it is not written again."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="a Sift home to build the index in, or reuse")
    parser.add_argument("--data", type=Path, help="where to write the corpus (default: a temporary folder)")
    parser.add_argument("--modes", default="keyword,semantic,hybrid")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each question's answer")
    args = parser.parse_args()
    data = args.data or Path(tempfile.mkdtemp(prefix=f"sift-{prefix}-"))
    if not (data / written).exists():
        write_corpus(data)
    build_index(data, args.home, "notes")
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    engine.warm()
    for mode in args.modes.split(","):
        ask(engine, questions, mode, args.verbose)


def ask(engine, questions: list[tuple[str, str]], mode: str, verbose: bool) -> None:
    first = top5 = named = unmarked = 0
    reciprocal = 0.0
    for question, wanted in questions:
        answer = engine.search(question, limit=10, mode=mode)
        files = list(dict.fromkeys(hit.path for hit in answer.hits))
        named += len(answer.unmatched)
        rank = files.index(wanted) + 1 if wanted in files else None
        first += rank == 1
        top5 += rank is not None and rank <= 5
        reciprocal += 1 / rank if rank else 0.0
        marked = bool(answer.hits) and "**" in answer.hits[0].snippet
        unmarked += bool(answer.hits) and not marked
        if verbose:
            said = f"  (held nowhere: {', '.join(w['word'] for w in answer.unmatched)})" if answer.unmatched else ""
            print(f"{mode:8} {rank or '-':>2} {question} -> {files[0] if files else None}"
                  f"{'' if marked else '  (snippet marks nothing)'}{said}")
    n = len(questions)
    print(f"{mode}: first {first}/{n}, top five {top5}/{n}, MRR {reciprocal / n:.3f}; query words the spelling note "
          f"names as held nowhere {named}; first hits whose snippet marks nothing {unmarked}")
