"""Hyphenated words of prose as queries: what reading each as a kebab-case code name costs, and what it moves.

A query of one hyphenated word (``state-of-the-art``, ``well-known``, ``COVID-19``) is read as a kebab-case name
(search.query.symbols.code_name): the code passages among its candidates that declare it come first. Indexes
notes-en (Markdown) beside bench/code_names.py's code (huey, pypdf and aiosqlite as installed in this venv, and
three small files), keyword only (SIFT_EMBEDDINGS=off: what the name changes is the same in hybrid), and for the
notes' most frequent hyphenated words compares the search with and without that reading: the median time of each, and the queries whose hits it
reorders (each such query printed with the passages put first).

    .venv/bin/python bench/kebab_words.py [--home DIR] [--words 60] [--runs 7]   # DIR: reuse an index built before
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.code_names import build, corpus  # noqa: E402
from bench.common import median, shared_data  # noqa: E402

HYPHENATED = re.compile(r"(?<![\w/.-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w/-])")


def words(count: int) -> list[str]:
    """The ``count`` hyphenated words notes-en's text says most often (case kept as most often written)."""
    seen: collections.Counter = collections.Counter()
    for path in shared_data("notes-en").rglob("*.md"):
        seen.update(HYPHENATED.findall(path.read_text(errors="replace")))
    folded: dict[str, str] = {}
    for word, _ in seen.most_common():
        folded.setdefault(word.casefold(), word)
    return list(folded.values())[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, help="where to build the index (reused when built)")
    parser.add_argument("--words", type=int, default=60)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    os.environ["SIFT_EMBEDDINGS"] = "off"
    started = time.perf_counter()
    build(args.home or Path(tempfile.mkdtemp(prefix="sift-kebab-home-")),
          lambda: {"notes": shared_data("notes-en"), "code": corpus()})
    print(f"index ready in {time.perf_counter() - started:.0f} s")
    from search.query import symbols
    from search.query.engine import from_settings
    from search.settings import load
    engine = from_settings(load())
    from search.query.passages import Passages
    kebab, never = symbols.KEBAB, re.compile(r"(?!)")
    candidates = {}  # the code passages among the last search's candidates, as the defining step reads them
    rows = Passages.rows

    def kept(self, ids, **kind):
        found = rows(self, ids, **kind)
        if kind.get("kind") == "code":
            candidates["code"] = list(found.values())
        return found
    Passages.rows = kept
    defining = []  # the defining step's time a query: symbols.defines over its code candidates (the least of --runs)
    spent = {"as a name": [], "as words": []}
    moved = 0
    queries = words(args.words)
    for query in queries:
        answers = {}
        for label, pattern in (("as a name", kebab), ("as words", never)):
            symbols.KEBAB = pattern
            engine.search(query, mode="keyword")  # warm
            times = []
            for _ in range(args.runs):
                at = time.perf_counter()
                answers[label] = engine.search(query, mode="keyword")
                times.append(time.perf_counter() - at)
            spent[label].append(median(times))
        symbols.KEBAB = kebab
        candidates.clear()
        engine.search(query, mode="keyword")
        parts, code, times = symbols.code_name(query), candidates.get("code", []), []
        for _ in range(args.runs):
            at = time.perf_counter()
            for row in code:
                symbols.defines(parts, row["heading_path"] or "", row["text"], row["path"])
            times.append(time.perf_counter() - at)
        defining.append(min(times))
        named, plain = ([(h.path, h.start_line) for h in answers[k].hits] for k in ("as a name", "as words"))
        if named != plain:
            moved += 1
            first = [f"{h.path}:{h.start_line}" for h in answers["as a name"].hits[:2]]
            print(f"  moved: {query!r} -> {first}  ({answers['as a name'].notes})")
    for label, times in spent.items():
        print(f"{label}: median {median(times) * 1000:.2f} ms, total {sum(times) * 1000:.1f} ms over {len(times)} "
              "queries")
    print(f"the defining step: median {median(defining) * 1000:.3f} ms, mean {statistics.mean(defining) * 1000:.3f} ms,"
          f" at most {max(defining) * 1000:.2f} ms a query")
    print(f"{moved} of {len(queries)} queries reordered by reading them as a kebab-case name: {queries}")


if __name__ == "__main__":
    main()
