"""Write search/query/data/zh-t2s.txt and zh-s2t.txt from OpenCC's character tables (Apache-2.0).

    python scripts/make_zh_variants.py DICTS   # DICTS: a folder holding OpenCC's TSCharacters.txt and
                                               # STCharacters.txt (the pip package opencc-purepy ships them)

Each output line is a character, a tab, and the first character OpenCC gives for it in the other script (the
common form: 发 → 發, not 髮); characters OpenCC maps to themselves are left out.
"""
from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "search" / "query" / "data"


def first_forms(table: Path) -> list[str]:
    lines = []
    for line in table.read_text(encoding="utf-8").splitlines():
        source, _, targets = line.partition("\t")
        target = targets.split(" ")[0]
        if len(source) == 1 and len(target) == 1 and source != target:
            lines.append(f"{source}\t{target}\n")
    return lines


def main() -> None:
    dicts = Path(sys.argv[1])
    for name, table in (("zh-t2s.txt", "TSCharacters.txt"), ("zh-s2t.txt", "STCharacters.txt")):
        lines = first_forms(dicts / table)
        (OUT / name).write_text("".join(lines), encoding="utf-8")
        print(f"{name}: {len(lines)} characters")


if __name__ == "__main__":
    main()
