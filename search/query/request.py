"""A search's request checked before anything is read: the query cleaned (NULs, lone surrogates) and cut to
MAX_QUERY_CHARS, its mode and limit, and filters that SQLite can take; each refusal a ``SearchError`` saying what to
change. ``similar`` checks its chunk id and path with the same tests (``whole``, ``is_text``)."""
from __future__ import annotations

import math
import re
import unicodedata

from search.query.answer import SearchError
from search.query.filters import Filters, empty_range


MODES = ("hybrid", "keyword", "semantic")
MAX_LIMIT = 50
MAX_QUERY_CHARS = 10_000
SQLITE_INT = range(-2 ** 63, 2 ** 63)
# A lone surrogate (from a JSON "\udcff" escape, say) is not text: SQLite, the tokenizer and JSON refuse it.
SURROGATE = re.compile("[\ud800-\udfff]")


def _cut(query: str) -> str:
    """The query's first MAX_QUERY_CHARS characters, ending before the word the limit falls inside when a space
    comes shortly before it: a word cut in two ('prisma' as 'pris') was searched for and named as found nowhere."""
    kept = query[:MAX_QUERY_CHARS]
    if query[MAX_QUERY_CHARS].isspace() or kept[-1].isspace():
        return kept
    space = max(kept.rfind(" "), kept.rfind("\t"), kept.rfind("\n"), kept.rfind("\u3000"))
    return kept[:space] if space >= MAX_QUERY_CHARS - 100 else kept


def validate(query, limit, mode, notes: list[str]) -> tuple[str, int, str]:
    """The query cleaned (NULs and lone surrogates become spaces) and cut to MAX_QUERY_CHARS, with a note."""
    if isinstance(query, str):
        query = SURROGATE.sub(" ", query.replace("\x00", " "))
    if not isinstance(query, str) or not query.strip():
        raise SearchError("the query is empty: give some words to search for")
    cut = len(query) > MAX_QUERY_CHARS
    if cut:
        query = _cut(query)
        notes.append(f"the query was cut to its first {MAX_QUERY_CHARS:,} characters"
                     + (", before the word they end inside" if len(query) < MAX_QUERY_CHARS else ""))
    if not _visible(query):
        raise SearchError("the query is empty: give some words to search for (it holds only invisible characters"
                          + (f" in its first {MAX_QUERY_CHARS:,}" if cut else "") + ")")
    if not _has_words(query):
        raise SearchError(f"the query has no words, only punctuation ({query.strip()[:40]!r}): give some words "
                          "to search for")
    if not isinstance(mode, str) or mode not in MODES:
        raise SearchError(f"mode must be one of {', '.join(MODES)}, not {mode!r:.80}")
    if not whole(limit) or not 1 <= limit <= MAX_LIMIT:
        raise SearchError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    return query, limit, mode


def checked_filters(filters) -> Filters:
    """Filters that SQLite can take: text without lone surrogates, finite times within range."""
    if filters is None:
        return Filters()
    if not isinstance(filters, Filters):
        raise SearchError(f"filters must be a search.query.filters.Filters, not {type(filters).__name__}")
    for name in ("collection", "path_prefix", "glob"):
        value = getattr(filters, name)
        if value is not None and not is_text(value):
            raise SearchError(f"{name} is not valid text (it holds an unpaired surrogate): {value!r:.80}")
    for tag in filters.tags:
        if not is_text(tag):
            raise SearchError(f"tags is not valid text (it holds an unpaired surrogate): {tag!r:.80}")
    if filters.collection == "":  # not a name: the keyword side would search every collection, the vectors none
        raise SearchError("collection is empty: give a collection's name, or None to search them all")
    for name in ("modified_after", "modified_before", "date_after", "date_before"):
        value = getattr(filters, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or abs(value) >= 2 ** 62):
            raise SearchError(f"{name} must be a time (seconds since 1970), not {value!r:.80}")
    problem = empty_range(filters.modified_after, filters.modified_before) \
        or empty_range(filters.date_after, filters.date_before, ("date_after", "date_before"))
    if problem:
        raise SearchError(problem)
    return filters


def _visible(text: str) -> bool:
    """Whether ``text`` shows anything: not only spaces, control and format characters (zero-width spaces,
    a BOM, joiners, direction marks), which a query can hold and neither search can use."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def _has_words(text: str) -> bool:
    """Whether ``text`` holds a letter, a digit or a symbol such as an emoji: a query of punctuation alone
    ('?!...', '*** ()') matches no word, and its vector ranks passages by nothing."""
    return any(category[0] in "LN" or category == "So" for category in map(unicodedata.category, text))


def whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_text(value) -> bool:
    return isinstance(value, str) and SURROGATE.search(value) is None
