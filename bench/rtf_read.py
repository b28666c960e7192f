"""How long an RTF file takes to read (ingest.rtf): a Word-saved RTF holding one picture of 4.6 MB of hex and a page
of text, and a manuscript of 50,000 paragraphs (3.1 MB) without pictures; the median of --runs reads each. Each run
also reads the picture's file as striprtf alone reads it, its picture's group not cut first (ingest.rtf._without_data):
the ratio of the two medians is what the cut saves.

    .venv/bin/python bench/rtf_read.py [--runs 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent)]

from ingest import rtf  # noqa: E402

PARAGRAPH = b"\\pard Mara walked along the quay and thought of the letter. \\par\n"
PICTURE = b"{\\*\\shppict{\\pict\\pngblip " + b"89504e470d0a1a0a" * 300_000 + b"}}"


def median_seconds(read, data: bytes, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        read(data)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    pictured = b"{\\rtf1\\ansi " + PICTURE + PARAGRAPH * 20 + b"}"
    manuscript = b"{\\rtf1\\ansi " + PARAGRAPH * 50_000 + b"}"
    from striprtf.striprtf import rtf_to_text
    cut = median_seconds(rtf.rtf_text, pictured, runs)
    whole = median_seconds(lambda data: rtf_to_text(data.decode("latin-1"), errors="replace"), pictured, runs)
    text = median_seconds(rtf.rtf_text, manuscript, runs)
    print(f"a picture of {len(PICTURE) >> 20} MB and a page: {cut:.2f} s read (striprtf alone: {whole:.2f} s, "
          f"{whole / cut:.0f}x)")
    print(f"a manuscript of 50,000 paragraphs, {len(manuscript) / 2**20:.1f} MB: {text:.2f} s "
          f"({text / (len(manuscript) / 2**20):.2f} s a MB)")


if __name__ == "__main__":
    main()
