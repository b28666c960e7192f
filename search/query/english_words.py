"""Whether a Latin word is a common English word: `women`, `dire`, `oxide` are, `huancun`, `wuhan`, `beijing` are not.

Pinyin search (search.query.pinyin) reads a word no passage holds as the Chinese words its syllables spell, and many
English words spell some (`women` 我们, `dire` 低热): an English searcher asking about women beside Chinese notes got
我们 notes mixed in. The list is pyspellchecker's English one (its wheel's resources/en.json.gz: 160,000 words, each
with how often English subtitles say it), read here without the spell checker. A word is common from COMMON
times: its words under 100 are mostly names and rare words, pinyin among them (`wuhan` 50, `beijing` 163,
`shanghai` 627, `milan` 352), while the English words of SciFact's claims that spell pinyin are said 1,097 (`oxide`)
to millions of times. Loaded once a process, only when a query's pinyin is in the index's table (0.2 s).
"""
from __future__ import annotations

from functools import lru_cache

COMMON = 1000  # times pyspellchecker's list counts a word, from which it is English before it is pinyin


def common(word: str) -> bool:
    """Whether ``word`` (any case) is said COMMON times or more in pyspellchecker's English list."""
    return _counts().get(word.lower(), 0) >= COMMON


def known(word: str) -> bool:
    """Whether ``word`` (any case) is in pyspellchecker's English list at all (`dining` is, `exing` is not)."""
    return word.lower() in _counts()


@lru_cache(maxsize=1)
def _counts() -> dict[str, int]:
    """pyspellchecker's English word counts; {} when it is not installed (every pinyin read as before)."""
    import gzip
    import json
    from importlib import resources
    try:
        data = resources.files("spellchecker").joinpath("resources", "en.json.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError):
        return {}
    return json.loads(gzip.decompress(data))
