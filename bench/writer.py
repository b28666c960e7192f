"""Questions a novelist asks of their book folder: where the passage asked about ranks.

Writes the generated book of bench/writer_corpus.py (chapters with scene breaks, dialogue and footnotes, Chinese
drafts beside some, characters with aliases, research, a timeline, decisions, daily logs, and two PDFs of
../shared/data/pdf/en when present) into DIR/book, indexes it through the real pipeline (huey's immediate mode,
the configured model; --home reuses an index), asks each question below in hybrid search and prints the rank of
the first hit that answers it (99: not in the top 10): the file, and where a needle is given, a passage whose
lines hold it (so that a long chapter's first passage does not count for a scene in its middle). Prints how many
came first and how many in the top five.

    .venv/bin/python bench/writer.py --dir /tmp/writer [--home DIR] [-v]
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from common import REPO
from quality import build_index
from writer_corpus import write_corpus

YESTERDAY = time.strftime("%Y-%m-%d", time.localtime(time.time() - 86400))

# (question, wanted path, needle the passage must hold or None, extra filters)
QUESTIONS = [
    ("where does Lin first meet the captain", "chapters/02-the-harbour-office.md", "first time Lin saw", {}),
    ("first meeting Lin and Halvorsen", "chapters/02-the-harbour-office.md", "first time Lin saw", {}),
    ("scene at the lighthouse lamp room lens", "chapters/03-the-lamp-room.md", "lamp room", {}),
    ("night watch at the lighthouse with Tomas", "chapters/06-night-watch.md", None, {}),
    ("Lin alone on the lighthouse gallery in the fog", "chapters/09-fog.md", "gallery", {}),
    ("the lamp goes dark on the night of the wreck", "chapters/07-the-wreck.md", "lamp went out", {}),
    ("the chapter where it rains", "chapters/04-the-storm.md", "rain", {}),
    ("rain hammering the boathouse roof", "chapters/04-the-storm.md", "hammered the roof", {}),
    ("what did I decide about the ending", "notes/ending.md", None, {}),
    ("does Lin stay or leave at the end", "notes/ending.md", None, {}),
    ("the rain came sideways like something thrown", "chapters/04-the-storm.md", "came sideways", {}),
    ("a light is a promise that someone is awake", "chapters/03-the-lamp-room.md", "promise", {}),
    ("nobody drowns all at once", "chapters/10-the-inquiry.md", "drowns all at once", {}),
    ("barometer says fair, a liar like all optimists", "chapters/02-the-harbour-office.md", "liar", {}),
    ("the light was not for seeing by but for being seen", "chapters/09-fog.md", "being seen", {}),
    ("Miss Xiamen", "characters/lin-wen.md", None, {}),
    ("who is Old Halvor", "characters/arne-halvorsen.md", None, {}),
    ("Little Plum", "characters/mei-wen.md", None, {}),
    ("the keeper's brother who drowned", "chapters/06-night-watch.md", "Einar", {}),
    ("Tommy the keeper", "characters/tomas-vik.md", None, {}),
    ("where did the Beaufort force 10 footnote come from", "chapters/04-the-storm.md", "Beaufort", {}),
    ("source for the postage route to Hong Kong", "chapters/05-letters.md", "Postverket", {}),
    ("footnote about the jammed weight cable", "chapters/07-the-wreck.md", "weight-cable", {}),
    ("where is the keeper's line about the promise from", "chapters/03-the-lamp-room.md", "Fyrvesenet", {}),
    ("Lista 1951 incident report", "research/fresnel-lenses.md", None, {}),
    ("the scene I based on the Lista incident report", "chapters/07-the-wreck.md", "lamp went out", {}),
    ("the passage that uses the 1957 Postverket circular", "chapters/05-letters.md", "Sunday after chapel", {}),
    ("where do I use the line from Fyrvesenet 1855-1955", "chapters/03-the-lamp-room.md", "A light is only", {}),
    ("what did I write yesterday", f"logs/{YESTERDAY}.md", None, {"modified_after": time.mktime(time.strptime(YESTERDAY, "%Y-%m-%d"))}),
    ("writing log the day I decided the ending", "logs/", "decided the ending", {}),
    ("when did I cut Brekke's monologue", f"logs/{YESTERDAY}.md", None, {}),
    ("the captain's lie at the inquiry", "chapters/10-the-inquiry.md", "light was burning", {}),
    ("Halvorsen testifies the light was burning", "chapters/10-the-inquiry.md", "light was burning", {}),
    ("Dr. Sæther offers Lin nurse training", "chapters/10-the-inquiry.md", "nurse", {}),
    ("Mei writes that mother is in hospital", "chapters/08-meis-letter.md", None, {}),
    ("Tomas's logbook entry for the night of the wreck", "chapters/11-return.md", "Light burning", {}),
    ("Lin writes in Chinese in the logbook", "chapters/11-return.md", None, {}),
    ("Halvorsen's rescue of the crew", "chapters/07-the-wreck.md", "brought off five men", {}),
    ("the captain sits in the kitchen holding a cold cup", "chapters/07-the-wreck.md", "cold", {}),
    ("Narvik 1940 lights off under German guns", "chapters/04-the-storm.md", "Narvik", {}),
    ("ferry arrival on the island October 1958", "chapters/01-arrival.md", None, {}),
    ("Fru Brekke meets her on the landing with a lantern", "chapters/01-arrival.md", "lantern", {}),
    ("harvest dance scene I cut", "notes/cut-scenes.md", None, {}),
    ("timeline when is the storm", "notes/timeline.md", None, {}),
    ("style rule for scene breaks", "notes/style-sheet.md", None, {}),
    ("foghorn two blasts every 45 seconds", "chapters/09-fog.md", None, {}),
    ("Kinmen shelling censorship in Mei's letters", "research/xiamen-1950s.md", None, {}),
    ("林雯在哪里第一次见到船长", "chapters/zh/02-港务室.md", None, {}),
    ("灯塔上的雾", "chapters/zh/09-雾.md", None, {}),
    ("托马斯的哥哥淹死了", "chapters/zh/06-夜班.md", None, {}),
    ("厦门小姐", "chapters/zh/02-港务室.md", None, {}),
    ("I could stay, she said to the fog", "chapters/09-fog.md", "I could stay", {}),
    ("chapter told from Halvorsen's point of view", "chapters/", None, {}),
]


def hit_answers(root: Path, hit, wanted: str, needle: str | None) -> bool:
    relative = hit.path.removeprefix(f"{hit.collection}/")
    if not (relative == wanted or (wanted.endswith("/") and relative.startswith(wanted))):
        return False
    if needle is None:
        return True
    if hit.start_line is None:
        return False
    lines = (root / relative).read_text(encoding="utf-8").split("\n")[hit.start_line - 1:hit.end_line]
    return needle.lower() in "\n".join(lines).lower()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, required=True, help="a folder to write the book into")
    parser.add_argument("--home", type=Path, help="a Sift home to build the index in, or reuse")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    book = args.dir / "book"
    if args.home is None or not (args.home / "index.db").exists():
        pdfs = Path(os.environ.get("SIFT_SHARED_DATA") or REPO.parent / "shared" / "data") / "pdf" / "en"
        print(f"wrote {write_corpus(book, pdfs)} files to {book}")
    build_index(book, args.home, "book")
    from search.query.engine import from_settings
    from search.query.filters import Filters
    from search.settings import load
    engine = from_settings(load())
    engine.warm()
    first = top5 = 0
    for question, wanted, needle, filters in QUESTIONS:
        answer = engine.search(question, limit=10, mode="hybrid", filters=Filters(**filters) if filters else None)
        rank = next((i + 1 for i, hit in enumerate(answer.hits) if hit_answers(book, hit, wanted, needle)), 99)
        first += rank == 1
        top5 += rank <= 5
        print(f"{rank:3d}  {question}")
        if args.verbose and rank != 1:
            for hit in answer.hits[:3]:
                print(f"       {hit.path}:{hit.start_line}-{hit.end_line}  {hit.snippet[:110]!r}")
    print(f"{len(QUESTIONS)} questions: first {first}, top 5 {top5}")


if __name__ == "__main__":
    main()
