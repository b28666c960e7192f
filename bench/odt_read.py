"""How long an OpenDocument text takes to read: a flat .fodt and the same zipped as an .odt, 300 sections of 100
paragraphs (30,000 paragraphs, 3.3 MB of XML), read by ingest.odt.odt_text; the median of --runs reads each.

Its parse counts each paragraph's text as it comes (ingest.odt._BoundedBuilder, so that one paragraph of 50 MB is
refused holding 1 MB of it, not 980 MB); run it against an older checkout for the cost of that:

    .venv/bin/python bench/odt_read.py [--runs 7]
    PYTHONPATH=../older-checkout .venv/bin/python bench/odt_read.py   # another Sift's reading (before/after)
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent)]

HEAD = ("<?xml version='1.0'?><office:document xmlns:office='urn:oasis:names:tc:opendocument:xmlns:office:1.0' "
        "xmlns:text='urn:oasis:names:tc:opendocument:xmlns:text:1.0'><office:body><office:text>")
PARAGRAPH = ("<text:p>The quay <text:span>repairs</text:span> begin in June, said the harbour master to the "
             "board.</text:p>\n")


def document() -> bytes:
    body = "".join(f"<text:h text:outline-level='1'>Part {i}</text:h>" + PARAGRAPH * 100 for i in range(300))
    return (HEAD + body + "</office:text></office:body></office:document>").encode()


def zipped(content: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        package.writestr("content.xml", content)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    from ingest.odt import odt_text
    import ingest.odt
    flat = document()
    print(f"reading {ingest.odt.__file__}: {len(flat) / 1e6:.1f} MB of XML")
    for name, data in (("flat .fodt", flat), ("zipped .odt", zipped(flat))):
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            lines = len(odt_text(data).lines)
            times.append(time.perf_counter() - start)
        print(f"{name:12} {lines:,} lines: median {statistics.median(times):.3f} s of {args.runs} "
              f"(min {min(times):.3f})")


if __name__ == "__main__":
    main()
