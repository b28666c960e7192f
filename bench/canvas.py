"""How long a big Obsidian canvas takes to parse (ingest.canvas): N text cards, each in a group of its own, the
worst case of placing cards in groups; the median of ``--rounds`` parses at each size.

    .venv/bin/python bench/canvas.py [--sizes 1000 2000 4000] [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ingest.canvas import parse_canvas  # noqa: E402


def made(n: int) -> str:
    nodes = []
    for i in range(n):
        nodes.append({"id": f"g{i}", "type": "group", "label": f"group {i}", "x": i * 10, "y": 0, "width": 5,
                      "height": 5})
        nodes.append({"id": f"t{i}", "type": "text", "text": f"card {i}", "x": i * 10 + 1, "y": 1, "width": 1,
                      "height": 1})
    return json.dumps({"nodes": nodes, "edges": []}, indent=1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for n in args.sizes:
        text, took = made(n), []
        for _ in range(args.rounds):
            began = time.perf_counter()
            parse_canvas("big.canvas", text)
            took.append(time.perf_counter() - began)
        print(f"{n} cards in {n} groups ({len(text) // 1024} KiB): {sorted(took)[len(took) // 2]:.2f} s")


if __name__ == "__main__":
    main()
