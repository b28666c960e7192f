"""Which words a query's pinyin is read as, beside English notes: the false readings and the true ones.

Builds one collection of English notes and Chinese passages (../shared/data/notes-en's first FILES notes and
zh-retrieval's first FILES passages and those that hold 吃哪, 吃那, 物含, 缓存 or 数据库, copied into a temporary folder), keyword-only (SIFT_EMBEDDINGS=off), through the
real pipeline, huey in immediate mode; then asks keyword search
  - the English words of SciFact's claims that spell pinyin of two syllables or more and that no passage of the
    collection holds (an English question about health beside Chinese notes): how many are read as pinyin, and as what
    (each is a false reading: those words are English);
  - the pinyin of the Chinese words of zh-retrieval's questions the collection holds (jieba's cut of each question,
    words of two characters or more): how many are read as that word (a true reading), and
  - the brief's examples: china, wuhan, huancun, shujuku.
Run it on two checkouts to compare them (the schema of V26 read every pair of characters, V27 words alone, V28
words and the pairs inside them, V29 the dictionary's words across two too; common English words are not read since
V28's branch, unless the query writes Chinese or the notes are Chinese, and then not as a word one in a hundred
Chinese passages hold: `women 感冒` below, not 我们 since stop 53; this collection is both).

    .venv/bin/python bench/pinyin_readings.py [--files 300]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import fresh_home, shared_data  # noqa: E402

EXAMPLES = re.compile("吃哪|吃那|物含|缓存|数据库")  # passages also copied: the pairs 'china' and 'wuhan' were read as
READ = re.compile(r"'(.+?)' read as pinyin: also searched as (.+)")


def copy_corpus(home: Path, files: int) -> Path:
    """FILES notes of notes-en and FILES passages of zh-retrieval, in one folder."""
    root = home / "mixed"
    notes = sorted(p for p in shared_data("notes-en").rglob("*.md"))[:files]
    for note in notes:
        target = root / "en" / note.relative_to(shared_data("notes-en"))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(note, target)
    (root / "zh").mkdir(parents=True)
    passages = sorted(shared_data("zh-retrieval").joinpath("docs").iterdir())
    for passage in passages[:files] + [p for p in passages[files:] if EXAMPLES.search(p.read_text(encoding="utf-8"))]:
        shutil.copyfile(passage, root / "zh" / passage.name)
    return root


def build(root: Path) -> float:
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    runtime.reset()
    huey.immediate = True
    started = time.perf_counter()
    conn = runtime.index()
    collection = store.ensure_collection(conn, "mixed", str(root))
    tasks.discover(collection["id"])
    runtime.reset()
    return time.perf_counter() - started


def read_as(engine, query: str) -> list[str]:
    """The Chinese words the answer says ``query`` was also searched as."""
    for note in engine.search(query, mode="keyword").notes:
        if (found := READ.match(note)):
            return found.group(2).split(", ")
    return []


def english_words() -> list[str]:
    from search.query.pinyin import syllables
    words = set()
    for line in shared_data("scifact").joinpath("queries.tsv").read_text(encoding="utf-8").splitlines():
        words.update(w.lower() for w in re.findall(r"[A-Za-z]+", line.split("\t", 1)[-1]))
    return sorted(w for w in words if len(syllables(w) or []) >= 2)


def chinese_words() -> list[tuple[str, str]]:
    """(pinyin, word) of the words of zh-retrieval's questions, by pypinyin and jieba."""
    import jieba
    from pypinyin import Style, lazy_pinyin
    found = {}
    for line in shared_data("zh-retrieval").joinpath("queries.tsv").read_text(encoding="utf-8").splitlines():
        for word in jieba.cut(line.split("\t", 1)[-1]):
            if len(word) > 1 and re.fullmatch(r"[\u4e00-\u9fff]+", word):
                found[word] = "".join(lazy_pinyin(word, style=Style.NORMAL))
    return sorted((key, word) for word, key in found.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300)
    args = parser.parse_args()
    os.environ["SIFT_EMBEDDINGS"] = "off"
    home = fresh_home("pinyin-readings")
    took = build(copy_corpus(home, args.files))
    from search.query.engine import Engine
    engine = Engine(home / "index.db", None)
    engine.warm()
    import sqlite3
    db = sqlite3.connect(home / "index.db")
    rows = db.execute("SELECT count(*) FROM pinyin").fetchone()[0]
    held = lambda match: db.execute(  # noqa: E731 - some passage holds it, as keyword search reads it
        "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (match,)).fetchone()[0]
    print(f"{args.files} notes of notes-en and {args.files}+ passages of zh-retrieval, one collection: "
          f"built in {took:.1f} s, {rows:,} pinyin rows")
    english = [w for w in english_words() if not held(f'"{w}"')]
    false = {w: read for w in english if (read := read_as(engine, w))}
    print(f"  English words of SciFact's claims that spell pinyin, no passage holding them: {len(english)}; "
          f"read as Chinese: {len(false)} ({len(false) / max(1, len(english)):.0%})")
    print("    e.g. " + "; ".join(f"{w} as {', '.join(r)}" for w, r in list(false.items())[:12]))
    chinese = [(key, word) for key, word in chinese_words()  # its characters in a row: the index writes each one
               if held(f'"{" ".join(word)}"')]  # a term, its pairs after the run (not 糖尿病 here, 病人 there)
    missed = {f"{key} {word}": read_as(engine, key) for key, word in chinese if word not in read_as(engine, key)}
    kept = len(chinese) - len(missed)
    print(f"  pinyin of the words of zh-retrieval's questions the passages hold: {len(chinese)}; read as that "
          f"word: {kept} ({kept / max(1, len(chinese)):.0%})")
    print("    not: " + "; ".join(f"{typed} (read as {', '.join(read) or 'nothing'})" for typed, read in missed.items()))
    for query in ["china", "wuhan", "huancun", "shujuku", "ganmao", "gaoxueya", "fanhou", "women", "fuse",
                  "women 感冒"]:
        print(f"  {query!r}: {', '.join(read_as(engine, query)) or '(not read)'}")
    engine.close()
    db.close()
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
