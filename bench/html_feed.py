"""What feeding an HTML page to html.parser whole costs against feeding it 64 KB at a time (the way before base-52):
ingest.webpage.parse_page on pages of a few shapes, the bytes Python held at the peak (tracemalloc, one run each) and
the time without tracemalloc (the median of --runs, the two ways interleaved). The piecewise feed is kept here, as it
was in ingest.webpage, for the comparison:

    .venv/bin/python bench/html_feed.py [--runs 5] [--scale 1]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent)]

import ingest.webpage as webpage  # noqa: E402

FED_CHARS = 64 * 1024
LINE = "the tapir sleeps all day long\n"


def in_pieces(reader, text: str) -> None:
    """ingest.webpage._feed as it was: a piece at a time, each ended at a line break, never smaller than what the
    parser holds back."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + max(FED_CHARS, len(reader.rawdata)))
        end = len(text) if end < 0 else end + 1
        reader.feed(text[start:end])
        start = end


def whole(reader, text: str) -> None:
    reader.feed(text)


def pages(scale: float) -> dict[str, str]:
    n = lambda count: max(1, int(count * scale))  # noqa: E731
    return {
        "one <p> of many lines": "<html><body><h1>T</h1><p>" + LINE * n(270_000) + "</p></body></html>\n",
        "many <p> lines": "<html><body>" + "".join(f"<p>{LINE}</p>" for _ in range(n(40_000))) + "</body></html>\n",
        "<pre> of many lines": "<html><body><pre>" + LINE * n(40_000) + "</pre></body></html>\n",
        "an inline <script>": "<html><head><script>" + "var tapir = 1; // sleeps\n" * n(320_000)
                              + "</script></head><body><p>kept</p></body></html>\n",
        "a left-out <nav> text node": "<html><body><nav>" + LINE * n(270_000) + "</nav><p>kept</p></body></html>\n",
    }


def parse(page: str, feed) -> None:
    """parse_page as ingest.webpage does it, its reader fed by ``feed``."""
    reader = webpage._Reader()
    feed(reader, page)
    reader.finish()
    lines = [[first, last, "".join(pieces)] for first, last, pieces in reader.lines]
    webpage._sections(lines, reader.headings)


def peak(page: str, feed) -> int:
    tracemalloc.start()
    try:
        parse(page, feed)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    parse("<p>warm</p>", whole)
    print(f"{'page':28s} {'size':>7s} {'peak pieces':>12s} {'peak whole':>11s} {'s pieces':>9s} {'s whole':>8s} ratio")
    for name, page in pages(args.scale).items():
        held = {how: peak(page, feed) for how, feed in (("pieces", in_pieces), ("whole", whole))}
        took = {"pieces": [], "whole": []}
        for _ in range(args.runs):
            for how, feed in (("pieces", in_pieces), ("whole", whole)):
                start = time.perf_counter()
                parse(page, feed)
                took[how].append(time.perf_counter() - start)
        pieces, at_once = statistics.median(took["pieces"]), statistics.median(took["whole"])
        print(f"{name:28s} {len(page) / 1e6:6.1f}M {held['pieces'] / 1e6:10.1f}MB {held['whole'] / 1e6:9.1f}MB "
              f"{pieces:9.2f} {at_once:8.2f} {at_once / pieces:5.2f}")


if __name__ == "__main__":
    main()
