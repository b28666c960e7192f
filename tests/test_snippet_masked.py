"""A snippet pattern of a query without CJK words is compiled without its classes of the CJK ranges (1.5 ms each to
compile, 9 of them in a pasted trace's pattern) and matched against the text with each CJK character written as one
of two (snippet._masked): the same matches as the pattern with its classes whole."""
from __future__ import annotations

import re

from search.query import snippet
from search.query.text import CJK_RANGES

TRACE = ('Traceback (most recent call last):\n  File "/srv/app/.venv/lib/python3.11/site-packages/upload/core.py", '
         'line 10, in upload_handler\n    return session.upload(request, timeout=30)\n'
         "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'")
TEXTS = ["云仓WMS uses Postgres; 云仓Postgres・rows 数据indexing type错误error none・type NoneType",
         "TypeError・NoneType in upload_handler 例外が発生した session.upload(request) 一type error 서버를upload",
         'File "/srv/app/.venv/lib/python3.11/site-packages/upload/core.py", line 10 タイプerror none\u30a0type',
         "uploads・uploaded 𠀀upload𠀀 upload\ud7a4 ｕｐｌｏａｄ Ｔｙｐｅ错误 callbacks recently returned"]


def _whole(pattern: re.Pattern) -> re.Pattern:
    """``pattern`` with its classes of the CJK ranges written whole, as it was compiled before."""
    text = pattern.pattern
    for full, one in snippet._MASKED_CLASSES.items():
        text = text.replace(one, full)
    return re.compile(text)


def test_a_latin_querys_pattern_has_no_class_of_the_cjk_ranges_and_the_same_matches():
    snippet._pattern.cache_clear()
    for query in (TRACE, "postgres rows indexing none type error", "getUserName uploads call"):
        pattern = snippet._pattern(query)
        assert CJK_RANGES not in pattern.pattern, query
        whole = _whole(pattern)
        assert whole.pattern != pattern.pattern
        for text in TEXTS:
            for camel in (False, True):
                assert snippet._matches(pattern, text, camel) == snippet._matches(whole, text, camel), (query, text)
    shown, _ = snippet.snippet_window(TEXTS[0], "postgres rows indexing none type error")
    assert shown == ("云仓WMS uses **Postgres**; 云仓**Postgres**・**rows** 数据**indexing** **type**错误**error** "
                     "**none**・**type** **NoneType**")


def test_a_query_with_cjk_words_keeps_the_classes_whole():
    """数据库's pattern names CJK characters: matched against the text as written, its classes whole."""
    pattern = snippet._pattern("数据库 postgres indexing")
    assert CJK_RANGES in pattern.pattern
    shown, _ = snippet.snippet_window("数据库Postgres indexing 云仓postgresql", "数据库 postgres indexing")
    assert shown == "**数据库Postgres** **indexing** 云仓**postgresql**"


def test_a_masked_character_is_a_word_character_as_the_one_it_stands_for():
    """What the masking takes for granted of every character of the CJK ranges: ``\\w`` matches it when it matches
    its mask, ``\\d`` never, and it has no case (so no letter of a query matches it in any case)."""
    cjk = re.compile(f"[{CJK_RANGES}]")
    for code in [*range(0x3040, 0xfb00), *range(0x20000, 0x30000, 97)]:
        char = chr(code)
        if not cjk.match(char):
            continue
        mask = snippet._masked(char)
        assert cjk.match(mask) and len(mask) == 1
        assert bool(re.match(r"\w", char)) == bool(re.match(r"\w", mask)) == char.isalnum(), hex(code)
        assert not re.match(r"\d", char) and char.lower() == char.upper() == char.casefold() == char, hex(code)
