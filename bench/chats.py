"""What a Telegram export costs to read and cut: a synthetic result.json of N messages (default 50,000, 17.6 MB,
three people over a year, a reaction on every seventh), parsed and chunked three times, the medians, the passages
and the tokens to embed (MiniLM's count, 256 a passage). Run it with PYTHONPATH at a tree to compare (base-42's
read the file as JSON text; ingest.chat reads it as a conversation):

    .venv/bin/python bench/chats.py [--messages N] [--model PATH]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import common  # noqa: F401  (puts the repository on the path)
from ingest.chunk import chunk_document
from ingest.parse import parse_file
from search.model.embedding import Embedder
from search.model.info import read_model_info

SAID = ["Remember to bring the blue folder with the passports", "the plumber comes on Tuesday after lunch", "ok",
        "Grandma's soup recipe: two carrots, one leek and a bay leaf", "the invoice format changed again"]


def export(count: int) -> bytes:
    messages = [{"id": i, "type": "message",
                 "date": f"2024-{i * 12 // count + 1:02d}-{i % 28 + 1:02d}T10:{i % 60:02d}:00",
                 "date_unixtime": "0", "from": ["Mum", "Dad", "Alice"][i % 3], "from_id": f"user{i % 3}",
                 "text": SAID[i % len(SAID)] + f" ({i})",
                 "text_entities": [{"type": "plain", "text": SAID[i % len(SAID)]}],
                 "reactions": [{"type": "emoji", "count": 1, "emoji": "x"}] if i % 7 == 0 else []}
                for i in range(count)]
    messages.sort(key=lambda message: message["date"])
    return json.dumps({"name": "Family", "type": "personal_chat", "id": 7, "messages": messages}, indent=1).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--model", default=os.path.expanduser("~/.sift/models/all-MiniLM-L6-v2.gguf"))
    args = parser.parse_args()
    data = export(args.messages)
    embedder = Embedder(read_model_info(args.model))
    parse, cut = [], []
    for _ in range(3):
        start = time.perf_counter()
        doc = parse_file("Telegram/result.json", data)
        parse.append(time.perf_counter() - start)
        start = time.perf_counter()
        chunks = chunk_document(doc, embedder.count, 256, 32)
        cut.append(time.perf_counter() - start)
    print(f"{args.messages:,} messages, {len(data) / 1e6:.1f} MB: parse {statistics.median(parse):.2f} s, chunk "
          f"{statistics.median(cut):.2f} s, {len(chunks):,} passages, {sum(c.tokens for c in chunks):,} tokens")


if __name__ == "__main__":
    main()
