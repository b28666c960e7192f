"""Markdown parsing time on pathological notes: is it linear?

For each pathological pattern (long runs of '[', '*', '`', '<', deeply nested
'>' and lists, one long list, many headings, unclosed '$$', a wide table,
many link definitions ...) it builds notes of 1, 5 and 20 MB, parses each with
``ingest.markdown.parse_markdown`` in a fresh process and prints CPU seconds
per MB (CPU time, not wall time: the machine may be shared) and the process's
peak memory. Linear means the per-MB figure stays flat
as the size grows (a quadratic corner would make it grow 4x from 5 to 20 MB);
the smaller sizes are the best of 3 runs, since the machine may be shared.
Runs are written as one paragraph of 10,000-character lines (the pipeline
refuses lines over a million characters before parsing).

    .venv/bin/python bench/markdown.py [--sizes 1 5 20] [--patterns brackets lists ...]
"""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

from common import REPO

LINE = 10_000


def run(unit: str) -> callable:
    """A run of ``unit`` repeated, as one paragraph of LINE-character lines, each ending in '](y.md)'
    (text without '](' holds no link, and the parser does not read it for links)."""
    def make(size: int) -> str:
        line = unit * ((LINE - 7) // len(unit)) + "](y.md)"
        return "\n".join([line] * (size // (len(line) + 1) + 1))[:size]
    return make


def repeat(block: str) -> callable:
    return lambda size: block * (size // len(block) + 1)


PATTERNS = {
    "brackets": run("["),
    "wiki-brackets": run("[["),
    "link-openers": run("[a]("),
    "closers": run("]("),
    "stars": run("*a"),
    "backticks": run("`"),
    "backtick-ladder": run("`a``b```c````d"),
    "angles": run("<"),
    "open-tags": run("<a b"),
    "entities": run("&#"),
    "nested-quotes": repeat("> " * 500 + "quoted\n"),
    "nested-lists": lambda size: "".join("  " * (i % 300) + "- item\n" for i in range(size // 300)),
    "long-list": repeat("- item [link](a.md)\n"),
    "quoted-list": repeat("> - item [link](a.md)\n"),
    "headings": repeat("# Heading\n\ntext under it\n\n## Sub\n"),
    "unclosed-math": repeat("$$ x = y\n"),
    "fence-runs": repeat("```\n"),
    "table": lambda size: "| a | b | c |\n|---|---|---|\n" + "| 1 | [x](y.md) | 3 |\n" * (size // 21),
    "link-definitions": repeat("[label]: target.md\n[label]\n\n"),
}


def child(pattern: str, megabytes: float) -> None:
    """Parse one note and print: CPU seconds (the machine may be shared), sections, peak RSS in MB."""
    sys.path.insert(0, str(REPO))
    from ingest.markdown import parse_markdown
    note = PATTERNS[pattern](int(megabytes * 1_000_000))
    started = time.process_time()
    doc = parse_markdown("bench.md", note)
    seconds = time.process_time() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{seconds:.3f} {len(doc.sections)} {peak:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 5, 20], help="note sizes in MB")
    parser.add_argument("--patterns", nargs="+", choices=sorted(PATTERNS), default=list(PATTERNS))
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs for notes under 10 MB "
                        "(a shared machine's noise), one run above")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], float(args.child[1]))
        return
    sizes = " | ".join(f"{s:g} MB: CPU s/MB (peak MB)" for s in args.sizes)
    print(f"{'pattern':<18} | {sizes} | largest/smallest s/MB")
    for pattern in args.patterns:
        per_mb, cells = [], []
        for size in args.sizes:
            runs = [parse_once(pattern, size) for _ in range(args.repeats if size < 10 else 1)]
            seconds, peak = min(runs)[0], max(r[1] for r in runs)
            per_mb.append(seconds / size)
            cells.append(f"{seconds / size:7.3f} ({peak:5.0f})")
        ratio = per_mb[-1] / per_mb[0] if per_mb[0] else float("nan")
        print(f"{pattern:<18} | " + " | ".join(f"{c:<22}" for c in cells) + f" | {ratio:.2f}", flush=True)


def parse_once(pattern: str, size: float) -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of one parse in a fresh process."""
    out = subprocess.run([sys.executable, __file__, "--child", pattern, str(size)], capture_output=True,
                         text=True, check=True).stdout.split()
    return float(out[0]), float(out[2])


if __name__ == "__main__":
    main()
