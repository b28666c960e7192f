"""Markdown parsing time on pathological notes: is it linear?

For each pathological pattern (long runs of '[', '*', '`', '<', deeply nested
'>' and lists, one long list, many headings, unclosed '$$', '$$' lines in a
quote closed below it, a wide table, many link definitions ...) it builds
notes of 1, 5 and 20 MB, parses each with
``ingest.markdown.parse_markdown`` in a fresh process and prints CPU seconds
per MB (CPU time, not wall time: the machine may be shared) and the process's
peak memory. Linear means the per-MB figure stays flat
as the size grows (a quadratic corner would make it grow 4x from 5 to 20 MB);
the smaller sizes are the best of 3 runs, since the machine may be shared.
Runs are written as one paragraph of 10,000-character lines (the pipeline
refuses lines over a million characters before parsing).

    .venv/bin/python bench/markdown.py [--sizes 1 5 20] [--patterns brackets lists ...]

``--before CHECKOUT`` with the patterns: the median CPU seconds per MB of ``--repeats`` parses by each checkout.

    .venv/bin/python bench/markdown.py --sizes 1 5 --patterns quoted-math --repeats 3 --before /tmp/base

``--outliner`` measures outliners' pages instead (a Logseq page of 100,000 blocks each with its ``id::`` line, a
Logseq journal of nested blocks with links, tags, tasks and properties, the same with a code block in every 25th
block, a journal with a [text](target) link in every block, the same with code in most links' text, an Obsidian list
of tasks in groups, one block of children one of which holds a quote, one block of children every 10th of which
holds a quote, a heading or a table, one every 100th of which holds a '$$' math block, the journal with links with a
link definition in a block): the median CPU seconds of ``--runs`` parses, each in a fresh process, read as Sift
reads them, with links by markdown-it's inline parser (as before ingest.markdown_links) and with markdown-it alone
(every list too, as before ingest.markdown_lists), and the ratios.

    .venv/bin/python bench/markdown.py --outliner [--runs 5] [--megabytes 5.8] [--before CHECKOUT] [--pages ...]

``--folder PATH`` measures ordinary notes: every ``.md`` file under PATH parsed in a fresh process, ``--runs`` times
(and as many with ``--before``'s checkout, in turn), the median CPU seconds, and how many of their paragraphs with a
link each reads without markdown-it's inline parser (ingest.markdown_links).

    .venv/bin/python bench/markdown.py --folder /work/shared/data [--runs 3] [--before CHECKOUT]
"""
from __future__ import annotations

import argparse
import resource
import statistics
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
    "short-lines": repeat("text\nmore a\n"),  # one paragraph of short lines
    "unclosed-math": repeat("$$ x = y\n"),
    "quoted-math": lambda size: repeat("> text\n> $$ a\n")(size) + "\n$$\n",  # closed below the quote: text
    "fence-runs": repeat("```\n"),
    "table": lambda size: "| a | b | c |\n|---|---|---|\n" + "| 1 | [x](y.md) | 3 |\n" * (size // 21),
    "link-definitions": repeat("[label]: target.md\n[label]\n\n"),
}


def uuid(number: int) -> str:
    return f"6500{number:04x}-{number % 9973:04x}-4{number % 997:03x}-8{number % 991:03x}-{number:012x}"


def logseq_ids(size: int) -> str:
    """A Logseq page of blocks each with its id (what a block reference or embed makes Logseq write)."""
    blocks, chars, number = [], 0, 0
    while chars < size:
        blocks.append(f"- block {number}\n  id:: {uuid(number)}\n")
        chars += len(blocks[-1])
        number += 1
    return "".join(blocks)


JOURNAL_BLOCKS = [
    "- Met [[Ana Souza]] about the #grant report\n  id:: {id}\n",
    "\t- TODO send her the [[Budget 2024]] draft\n\t  :LOGBOOK:\n\t  CLOCK: [2024-03-14 Thu 10:00]\n\t  :END:\n",
    "\t- She asked for the figures by #[[next week]], see ((6500aaaa-0000-4000-8000-000000000000))\n",
    "\t\t- collapsed child block with **bold** text and `inline #code`\n\t\t  collapsed:: true\n",
    "- DONE read [the paper](papers/attention.pdf) #reading\n",
    "- a thought that runs on\n  over a second line of the same block\n",
]
CODE_BLOCK = "- a snippet:\n  ```python\n  print('# no heading')\n  ```\n"


def logseq_journal(size: int, code_every: int = 0) -> str:
    """A Logseq page of nested blocks (tabs) with links, tags, tasks, a time log, properties and a block reference;
    with ``code_every``, a block holding a code fence every that many blocks."""
    parts, chars, number = ["title:: Big journal\ntags:: daily\n\n"], 0, 0
    while chars < size:
        block = JOURNAL_BLOCKS[number % len(JOURNAL_BLOCKS)].replace("{id}", uuid(number))
        if code_every and number % code_every == code_every - 1:
            block = CODE_BLOCK
        parts.append(block)
        chars += len(block)
        number += 1
    return "".join(parts)


LINKED_BLOCKS = [
    "- Call with [Ana](people/ana.md) about [the grant](projects/grant.md), notes in `grant/q3.md`\n",
    "  - follow up: [the draft](drafts/budget-2024.md) and [[Budget 2024]]\n",
    "  - ran `make report`, read [the log](logs/2024-03-14.log) #work\n",
    "- [ ] review [PR 12](https://example.com/pr/12) before [[Friday]]\n",
    "- ![whiteboard](../assets/whiteboard_1700000000.png) from [the meeting](meetings/weekly.md)\n",
]


def linked_journal(size: int) -> str:
    """A daily page as Logseq or Obsidian writes one, every block with a [text](target) link (and code spans,
    [[links]], a task, an image)."""
    return "".join(LINKED_BLOCKS) * (size // len("".join(LINKED_BLOCKS)) + 1)


CODE_LINKED_BLOCKS = [
    "- read [`parse()`](docs/api.md#parse) and [the `tsc`\n  CLI](https://example.com/tsc) before #work\n",
    "  - [`select_values`](https://api.example.com/select_values) returns `[1, 2]`, not rows\n",
    "  - see [the docs for `:into`](elixir/comprehensions.md) and [[Elixir]]\n",
    "- a plain block with `make report` and [the log](logs/2024-03-14.log)\n",
]


def code_linked_journal(size: int) -> str:
    """A developer's daily page: code in most links' text ('[`parse()`](api.md#parse)'), the form the link reader
    left to markdown-it's inline parser before it read code spans."""
    return "".join(CODE_LINKED_BLOCKS) * (size // len("".join(CODE_LINKED_BLOCKS)) + 1)


def obsidian_tasks(size: int) -> str:
    """An Obsidian note of task lists in groups (two-space nesting, a blank line between groups)."""
    group = ("- [ ] call the plumber about the [[Boiler]] #home\n  - [x] find the invoice\n"
             "  - [ ] ask about the warranty\n- [x] renew the #insurance\n\n")
    return group * (size // len(group) + 1)


def quoted_child(size: int) -> str:
    """One top-level block holding every other as a child (an outliner's page under one heading block), one child
    in the middle holding a quote: the one line read_run leaves to markdown-it."""
    lines, chars, number = ["- Reading notes\n"], 0, 0
    while chars < size:
        lines.append(f"  - child block {number} with [[a link]] and #tag\n")
        chars += len(lines[-1])
        number += 1
    lines.insert(len(lines) // 2, "    > a quote inside a child\n")
    return "".join(lines)


ODD_CHILDREN = ["  - a child with a quote\n    > quoted [[Q]] #q\n", "  - ## a heading child #h\n",
                "  - a child with a table\n    | tool | use |\n    |---|---|\n    | [[Spade]] | #dig |\n"]


def odd_children(size: int) -> str:
    """One top-level block holding every other as a child, every 10th child holding a quote, a heading or a table
    in turn (lines read_run leaves to markdown-it): 100,000 children in 3.75 MB."""
    lines, chars, number = ["- Reading notes\n"], 0, 0
    while chars < size:
        child = ODD_CHILDREN[number // 10 % 3] if number % 10 == 9 else f"  - child block {number} [[a link]] #t\n"
        lines.append(child)
        chars += len(child)
        number += 1
    return "".join(lines)


def math_children(size: int) -> str:
    """One top-level block holding every other as a child, every 100th child holding a '$$' math block (the whole
    item was markdown-it's before: a math block may close past its item)."""
    lines, chars, number = ["- Lecture notes\n"], 0, 0
    while chars < size:
        child = ("  - the formula\n    $$\n    e = m c^2\n    $$\n" if number % 100 == 99
                 else f"  - child block {number} [[a link]] #t\n")
        lines.append(child)
        chars += len(child)
        number += 1
    return "".join(lines)


OUTLINERS = {
    "logseq-ids": logseq_ids,
    "logseq-journal": logseq_journal,
    "journal-with-code": lambda size: logseq_journal(size, code_every=25),
    "linked-journal": linked_journal,
    "code-linked-journal": code_linked_journal,
    "obsidian-tasks": obsidian_tasks,
    "quoted-child": quoted_child,
    "odd-children": odd_children,
    "math-children": math_children,
    # the same journal with one link definition in a block (every paragraph with a ']' was markdown-it's inline
    # parser's), its '[[wiki links]]' and '[text][ref]' links
    "journal-with-definitions": lambda size: "- [ref]: refs/a.md\n- see [the ref][ref]\n" + linked_journal(size),
}


def child(pattern: str, megabytes: float, way: str = "fast", repo: str = str(REPO)) -> None:
    """Parse one note and print: CPU seconds (the machine may be shared), sections, peak RSS in MB. ``way``: 'fast'
    (as Sift reads it), 'lists' (links by markdown-it's inline parser, as before ingest.markdown_links), 'slow'
    (every list and link by markdown-it); ``repo``: the checkout whose ingest/ reads it."""
    sys.path.insert(0, repo)
    from ingest.markdown import parse_markdown
    if way != "fast":
        from ingest import markdown_links
        # every paragraph's links by markdown-it
        markdown_links.destinations = lambda text, validate, references=None: None
    note = {**PATTERNS, **OUTLINERS}[pattern](int(megabytes * 1_000_000))
    started = time.process_time()
    doc = parse_markdown("bench.md", note, fast_lists=way != "slow")
    seconds = time.process_time() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{seconds:.3f} {len(doc.sections)} {peak:.0f}")


def child_folder(path: str, repo: str, count: bool = False) -> None:
    """Parse every .md file under ``path`` with ``repo``'s ingest/ and print: CPU seconds, files; with ``count``
    (a second parse, not timed), the texts with a link (paragraphs, headings, table cells) and how many of them
    the link reader read without markdown-it's inline parser."""
    sys.path.insert(0, repo)
    from pathlib import Path
    from ingest.markdown import parse_markdown
    notes = [(str(note), note.read_text(encoding="utf-8", errors="replace"))
             for note in sorted(Path(path).rglob("*.md")) if note.is_file()]
    started = time.process_time()
    for name, text in notes:
        parse_markdown(name, text)
    seconds, counts = time.process_time() - started, [0, 0]
    if count:
        from ingest import markdown_links
        real = markdown_links.destinations

        def counted(*args):
            found = real(*args)
            counts[0] += 1
            counts[1] += found is not None
            return found
        markdown_links.destinations = counted
        for name, text in notes:
            parse_markdown(name, text)
    print(f"{seconds:.3f} {len(notes)} {counts[0]} {counts[1]}")


def folder(path: str, runs: int, before: str | None) -> None:
    """The median CPU seconds of ``runs`` parses of every .md file under ``path``, each run in a fresh process, by
    this checkout and by ``before``'s, in turn."""
    repos = {"now": str(REPO), **({"before": before} if before else {})}
    timed: dict[str, list[float]] = {name: [] for name in repos}
    files, read = 0, {}
    for run in range(runs):
        for name, repo in repos.items():
            out = subprocess.run([sys.executable, __file__, "--child-folder", path, repo, str(int(run == 0))],
                                 capture_output=True, text=True, check=True).stdout.split()
            timed[name].append(float(out[0]))
            files = int(out[1])
            if run == 0:
                read[name] = f"{name} {int(out[3]):,} of {int(out[2]):,}"
    print(f"{files} Markdown files under {path}: " + ", ".join(
        f"{name} {statistics.median(seconds):.2f} s" for name, seconds in timed.items()) + f" (median of {runs}); "
        "paragraphs with a link read without markdown-it's inline parser: " + ", ".join(read.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 5, 20], help="note sizes in MB")
    parser.add_argument("--patterns", nargs="+", choices=sorted(PATTERNS), default=list(PATTERNS))
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs for notes under 10 MB "
                        "(a shared machine's noise), one run above")
    parser.add_argument("--outliner", action="store_true", help="outliners' pages, with the fast path and without")
    parser.add_argument("--runs", type=int, default=5, help="with --outliner: the median of this many runs")
    parser.add_argument("--megabytes", type=float, default=5.8, help="with --outliner: each page's size")
    parser.add_argument("--before", help="another checkout (the code before a change): with --outliner its fast path "
                        "is timed in the middle column instead of links by markdown-it; with --patterns, the median "
                        "of --repeats runs by each checkout, in turn, and the ratio")
    parser.add_argument("--pages", nargs="+", choices=sorted(OUTLINERS), default=list(OUTLINERS),
                        help="with --outliner: these pages only")
    parser.add_argument("--folder", help="every .md file under this folder, parsed in a fresh process per run")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--child-folder", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], float(args.child[1]), args.child[2], args.child[3])
        return
    if args.child_folder:
        child_folder(args.child_folder[0], args.child_folder[1], args.child_folder[2] == "1")
        return
    if args.folder:
        folder(args.folder, args.runs, args.before)
        return
    if args.outliner:
        outliners(args.runs, args.megabytes, args.before, args.pages)
        return
    if args.before:
        before_after(args.patterns, args.sizes, args.repeats, args.before)
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


def before_after(patterns: list[str], sizes: list[float], repeats: int, before: str) -> None:
    """Each pattern at each size parsed ``repeats`` times by this checkout and by ``before``'s, in turn, each in a
    fresh process: the median CPU seconds per MB of each, and the ratio."""
    print(f"{'pattern':<18} | " + " | ".join(f"{s:g} MB: CPU s/MB before → now (ratio)" for s in sizes))
    for pattern in patterns:
        cells = []
        for size in sizes:
            timed: dict[str, list[float]] = {"before": [], "now": []}
            for _ in range(repeats):
                timed["before"].append(parse_once(pattern, size, repo=before)[0])
                timed["now"].append(parse_once(pattern, size)[0])
            old, new = (statistics.median(timed[way]) / size for way in ("before", "now"))
            cells.append(f"{old:6.3f} → {new:6.3f} ({old / new:.2f}x)")
        print(f"{pattern:<18} | " + " | ".join(f"{c:<32}" for c in cells), flush=True)


def parse_once(pattern: str, size: float, way: str = "fast", repo: str = str(REPO)) -> tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of one parse in a fresh process, read ``way`` by ``repo``'s code (child)."""
    out = subprocess.run([sys.executable, __file__, "--child", pattern, str(size), way, repo],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[2])


def outliners(runs: int, megabytes: float, before: str | None = None, pages: list[str] | None = None) -> None:
    """Each outliner's page parsed ``runs`` times each way (child), in turn: the medians, and the ratios to Sift's
    of the middle way (the ``before`` checkout's fast path, else links by markdown-it's inline parser) and of
    markdown-it alone."""
    ways = {"fast": ("fast", str(REPO)), "middle": ("fast", before) if before else ("lists", str(REPO)),
            "slow": ("slow", str(REPO))}
    middle = f"before ({before})" if before else "links by markdown-it"
    print(f"{'page':<18} | {megabytes:g} MB: CPU s, Sift (peak MB) | {middle} | markdown-it only | ratios")
    for pattern in pages or OUTLINERS:
        timed = {way: [] for way in ways}
        for _ in range(runs):
            for way, (read, repo) in ways.items():
                timed[way].append(parse_once(pattern, megabytes, read, repo))
        fast, lists, slow = (statistics.median(s for s, _ in timed[way]) for way in ways)
        peak = max(p for _, p in timed["fast"])
        print(f"{pattern:<18} | {fast:7.2f} ({peak:5.0f}){'':<12} | {lists:7.2f}{'':<13} | {slow:7.2f}{'':<9} | "
              f"{lists / fast:.1f}x / {slow / fast:.1f}x", flush=True)


if __name__ == "__main__":
    main()
