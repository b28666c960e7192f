"""How long an OpenDocument text takes to read: a flat .fodt and the same zipped as an .odt, 300 sections of 100
paragraphs (30,000 paragraphs, 3.3 MB of XML), read by ingest.odt.odt_text; the median of --runs reads each.

Its parse counts each paragraph's text as it comes (ingest.odt._BoundedBuilder, so that one paragraph of 50 MB is
refused holding 1 MB of it, not 980 MB). Each run also reads the same parsed by ElementTree's own builder, in C,
which counts nothing (the way before the bound): the ratio of the two medians is the cost of the bound. Run it
against an older checkout for another Sift's reading:

    .venv/bin/python bench/odt_read.py [--runs 7]
    PYTHONPATH=../older-checkout .venv/bin/python bench/odt_read.py   # another Sift's reading (before/after)
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent)]

from tests.odt_writer import zipped_odt  # noqa: E402

HEAD = ("<?xml version='1.0'?><office:document xmlns:office='urn:oasis:names:tc:opendocument:xmlns:office:1.0' "
        "xmlns:text='urn:oasis:names:tc:opendocument:xmlns:text:1.0'><office:body><office:text>")
PARAGRAPH = ("<text:p>The quay <text:span>repairs</text:span> begin in June, said the harbour master to the "
             "board.</text:p>\n")


def document() -> bytes:
    body = "".join(f"<text:h text:outline-level='1'>Part {i}</text:h>" + PARAGRAPH * 100 for i in range(300))
    return (HEAD + body + "</office:text></office:body></office:document>").encode()


def unbounded(source, what: str, most: int):
    """ingest.odt.bounded_tree's root, parsed by ElementTree's own builder: nothing counted."""
    return ET.fromstring(source if isinstance(source, bytes) else source.read())


def timed(read, data) -> tuple[float, int]:
    start = time.perf_counter()
    lines = len(read(data).lines)
    return time.perf_counter() - start, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    from ingest.odt import odt_text
    import ingest.odt
    bounded = ingest.odt.bounded_tree
    flat = document()
    print(f"reading {ingest.odt.__file__}: {len(flat) / 1e6:.1f} MB of XML")
    for name, data in (("flat .fodt", flat), ("zipped .odt", zipped_odt(flat))):
        times, unbounded_times = [], []
        for _ in range(args.runs):  # the two interleaved: a busy machine slows both alike
            took, lines = timed(odt_text, data)
            times.append(took)
            ingest.odt.bounded_tree = unbounded
            try:
                unbounded_times.append(timed(odt_text, data)[0])
            finally:
                ingest.odt.bounded_tree = bounded
        median, old = statistics.median(times), statistics.median(unbounded_times)
        print(f"{name:12} {lines:,} lines: median {median:.3f} s of {args.runs} (min {min(times):.3f}); "
              f"unbounded {old:.3f} s (min {min(unbounded_times):.3f}): {median / old:.2f} times")


if __name__ == "__main__":
    main()
