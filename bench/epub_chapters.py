"""An EPUB book of many short chapters (bench/hostile.py's ``chapters.epub``) in a keyword-only index, which has no
passage limit and so no chapter bound (ingest.epub.most_chapters): the CPU seconds to read it (ingest.parse.parse_file)
and to cut it (ingest.chunk.chunk_document, plain word counts), the passages made, the process's peak memory; the
median of --runs. With embeddings on, a book of more chapters than SIFT_MAX_FILE_CHUNKS is refused before its
chapters are read (--embeddings shows that refusal's time):

    .venv/bin/python bench/epub_chapters.py [--chapters 100000] [--runs 3] [--embeddings]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent), str(HERE)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapters", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embeddings", action="store_true", help="embeddings on: the book is refused")
    args = parser.parse_args()
    os.environ["SIFT_EMBEDDINGS"] = "on" if args.embeddings else "off"
    from hostile import many_chapters
    from ingest.chunk import chunk_document
    from ingest.document import Skip
    from ingest.parse import parse_file
    data = many_chapters(args.chapters)
    read, cut, made = [], [], "refused"
    for _ in range(args.runs):
        start = time.process_time()
        try:
            doc = parse_file("chapters.epub", data)
        except Skip as why:
            read.append(time.process_time() - start)
            made = f"skipped: {str(why)[:90]}…"
            continue
        read.append(time.process_time() - start)
        start = time.process_time()
        made = f"{len(chunk_document(doc, lambda text: len(text.split()), 256, 32, None)):,} passages"
        cut.append(time.process_time() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.chapters:,} chapters, {len(data) / 1e6:.1f} MB: read {statistics.median(read):.2f} s CPU"
          + (f", cut {statistics.median(cut):.2f} s CPU" if cut else "") + f", {made}, peak {peak:.0f} MB")


if __name__ == "__main__":
    main()
