"""Code found by meaning alone: does the passage that answers a question rank first among real code's passages?

Search by meaning over code, without the index: the files of ``bench/code_questions.py`` that hold its 30 answers
(huey, mcp, pypdf, aiosqlite, markupsafe and lxml as installed in this venv) and a small file of math-only
functions written here (``GEO``: ``haversine_km`` and its like, whose bodies say no word of what they do), cut by
the real parser and chunker, each passage's ``embedding_text`` embedded by the model; each question ranks the
passages by cosine, as semantic search does, and prints the rank of its first answering passage (99: not in the top
30), then first, top five and MRR for the questions about the packages and those about GEO apart. Run it before
and after a change to what a code passage embeds (its context) and compare.

    python bench/code_meaning.py [--model PATH] [--files N] [--names-as-words]   # N: the first N answer files
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from code_questions import QUESTIONS, installed  # noqa: E402

DEPTH = 30
GEO = '''\
import math

EARTH_RADIUS_KM = 6371.0


def haversine_km(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(a))


def initial_bearing_deg(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    x = math.sin(dl) * math.cos(p2)
    y = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return (math.degrees(math.atan2(x, y)) + 360) % 360


def celsius_to_fahrenheit(c):
    return c * 9 / 5 + 32


def compound_interest(principal, rate, years, per_year=12):
    return principal * (1 + rate / per_year) ** (per_year * years)


def moving_average(xs, n):
    out, total = [], 0.0
    for i, x in enumerate(xs):
        total += x
        if i >= n:
            total -= xs[i - n]
        out.append(total / min(i + 1, n))
    return out
'''
GEO_QUESTIONS = [
    ("distance between two GPS coordinates on a sphere", "geo/geo.py:haversine_km"),
    ("great circle distance in kilometres", "geo/geo.py:haversine_km"),
    ("compass direction from one point to another", "geo/geo.py:initial_bearing_deg"),
    ("convert a temperature to fahrenheit", "geo/geo.py:celsius_to_fahrenheit"),
    ("how much does a savings account grow with interest", "geo/geo.py:compound_interest"),
    ("smooth a series with a sliding window mean", "geo/geo.py:moving_average"),
]


def passages(root: Path, embedder, files: list[str]) -> list[tuple[str, object]]:
    """(path relative to ``root``, chunk) of each file's passages, cut as ingest cuts them."""
    from ingest.chunk import chunk_document
    from ingest.code import parse_code
    from search.settings import load
    settings = load()
    limit = min(settings.chunk_tokens, embedder.info.max_tokens)
    found = []
    for path in files:
        doc = parse_code(path, (root / path).read_text(encoding="utf-8", errors="replace"))
        found += [(path, chunk) for chunk in chunk_document(doc, embedder.count, limit,
                                                             min(settings.chunk_overlap, limit // 2))]
    return found


def answers(path: str, chunk, wanted: str) -> bool:
    """Whether the passage answers (as ``code_questions.answers``: 'path', 'path:Name', 'path:LINE')."""
    want_path, _, symbol = wanted.partition(":")
    if path != want_path:
        return False
    if not symbol:
        return True
    if symbol.isdigit():
        return (chunk.start_line or 0) <= int(symbol) <= (chunk.end_line or 0)
    *owners, name = symbol.split(".")
    heading = chunk.heading_path[1:]
    # a passage of joined definitions names each in its heading ('SqliteHuey, CySqliteHuey +3')
    last = [one.split(".")[-1] for one in re.sub(r" \+\d+$", "", heading[-1]).split(", ")] if heading else []
    return name in last and (not owners or heading[-1 - len(owners):-1] == owners)


def words(names: list[str]) -> str:
    """A heading's names as their words, in small letters: ['Huey', 'enqueue'] 'huey, enqueue'."""
    return ", ".join(" ".join(part.lower() for part in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name))
                     for name in names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="a GGUF model (default: MiniLM, converted from its pip package)")
    parser.add_argument("--files", type=int, help="only the first N of the answer files")
    parser.add_argument("--names-as-words", action="store_true",
                        help="a proposal measured: each passage embedded after its definitions' names split into "
                             "words ('SqliteHuey' 'sqlite huey', 'haversine_km' 'haversine km')")
    args = parser.parse_args()
    from search.model.embedding import Embedder
    from search.model.info import read_model_info
    if args.model:
        model = Path(args.model)
    else:
        import tempfile
        from search.model.minilm_convert import convert, package_model_dir
        model = Path(tempfile.gettempdir()) / f"sift-bench-minilm-{os.getuid()}.gguf"  # converted once
        if not model.exists():
            convert(package_model_dir(), model)
    embedder = Embedder(read_model_info(model))
    folders = installed()
    import shutil
    import tempfile
    root = Path(tempfile.mkdtemp(prefix="sift-code-meaning-"))
    wanted = sorted({one.partition(":")[0] for _, answer in QUESTIONS for one in answer.split()})
    wanted = wanted[:args.files] if args.files else wanted
    for path in wanted:
        package, _, rest = path.partition("/")
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(folders[package] / rest, root / path)
    (root / "geo").mkdir()
    (root / "geo" / "geo.py").write_text(GEO)
    found = passages(root, embedder, wanted + ["geo/geo.py"])
    began = time.perf_counter()
    text = (lambda chunk: f"{words(chunk.heading_path[1:])}\n\n{chunk.embedding_text}"
            if len(chunk.heading_path) > 1 else chunk.embedding_text) if args.names_as_words \
        else (lambda chunk: chunk.embedding_text)
    vectors = np.vstack([embedder.embed([text(chunk) for _, chunk in found[i:i + 16]])
                         for i in range(0, len(found), 16)])
    print(f"{len(found)} passages of {len(wanted) + 1} files embedded in {time.perf_counter() - began:.0f} s", flush=True)
    asked = [(q, a, "packages") for q, a in QUESTIONS if a.partition(":")[0] in wanted] + \
        [(q, a, "geo") for q, a in GEO_QUESTIONS]
    ranks: dict[str, list[int]] = {"packages": [], "geo": []}
    for question, answer, group in asked:
        scores = vectors @ embedder.embed([question], kind="query")[0]
        order = np.argsort(-scores)[:DEPTH]
        at = next((i for i, n in enumerate(order, start=1)
                   if any(answers(*found[n], one) for one in answer.split())), 99)
        ranks[group].append(at)
        print(f"{at:>3}  {question}", flush=True)
    for group, found_at in ranks.items():
        print(f"{group}: first {sum(r == 1 for r in found_at)}/{len(found_at)}, top five "
              f"{sum(r <= 5 for r in found_at)}, MRR {sum(1 / r for r in found_at if r < 99) / len(found_at):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
