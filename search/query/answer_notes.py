"""The notes an answer says to the user besides its hits: nothing published or registered yet, a keyword search
that ranked by none of the query's words or could look none up, a hybrid answer found by meaning alone, and what the
filters left out (a kind or date range that leaves no file, a date range over passages none of which says a date).
Each note is said once (``note``)."""
from __future__ import annotations

from dataclasses import replace

from search.index.status import when
from search.query import keyword, spelling, tags
from search.query.catalog import Catalog
from search.query.filters import Filters
from search.query.text import query_words


NOTHING_PUBLISHED = ("nothing is searchable yet: no collection has published a generation (the first one may still "
                     "be being built: stats shows its progress)")
NOTHING_REGISTERED = ("nothing is searchable yet: no folder is registered (sift-mcp --root FOLDER or "
                      "`ingest enqueue FOLDER` adds one)")
# What a 'word' is to keyword search in Chinese: a question of 40 characters is 39 of them, not a few.
CJK_WORDS = " (each pair of neighbouring Chinese or Japanese characters is one: 缓存击穿 is three)"


def note(notes: list[str], note: str) -> None:
    """Add ``note`` once (a search that loads a model looks at the index twice)."""
    if note not in notes:
        notes.append(note)


def unranked(notes: list[str], query: str, words: list[str], mode: str) -> None:
    """Note that keyword search ranked by none of ``words`` (Engine._weightless), if there are any."""
    if words:
        note(notes, keyword.unranked_note(spelling.as_named(query, words), mode))


def by_meaning(notes: list[str], ranked: list, mode: str) -> None:
    """Say so when a hybrid search found no passage by keyword (its words are in none of the passages searched,
    or rank none: ``unranked``): its results are the nearest by meaning, scored by similarity as mode 'semantic'
    scores them. Fused, the best of them scored 0.5 (its meaning scaled to 1 over the candidates, at half the
    weight), however far its meaning was: a made-up word's nearest passages read as a fair match."""
    if mode == "hybrid" and ranked and all(kw is None for _, _, (kw, _) in ranked) \
            and not any(n.endswith(keyword.BY_MEANING) for n in notes):
        note(notes, f"no passage searched holds any of the query's words: {keyword.BY_MEANING}")


def no_terms(notes: list[str], query: str, used: str, has_vectors: bool) -> None:
    """Say why a keyword search of emoji or other symbols alone found nothing: the index holds letters and digits
    only, so '🚀' has no term to look up, and the answer was a bare 'no results'."""
    if used == "keyword" and not query_words(query):
        how = " (mode 'hybrid' or 'semantic' matches it by meaning)" if has_vectors else ""
        note(notes, f"keyword search finds words and numbers, not emoji or other symbols: {query.strip()[:40]!r} "
                    f"has nothing it can look up{how}")


FILTERED_OUT = "no passage searched is"


def filter_notes(catalog: Catalog, filters: Filters, found: bool) -> list[str]:
    """``filtered_out`` (when nothing was ``found``) and ``undated``, each thing said once: where the date range
    left nothing of passages none of which has a date of its own, the first said 'its own date where its file says
    one, else its file's modified time' and the second that none had one, two notes on one range. One says it."""
    none_dated = undated(catalog, filters)
    out = [] if found else filtered_out(catalog, filters, none_dated=bool(none_dated))
    return out if out and none_dated else out + none_dated


def filtered_out(catalog: Catalog, filters: Filters, none_dated: bool = False) -> list[str]:
    """The note for a search that found nothing because its kind or dates leave no file in the folder searched
    (modified_after a date no file reaches, kind='pdf' where there is none): its answer said 'try other words',
    which cannot help. Not said when the folder or pattern holds nothing itself (their own notes tell that).
    ``none_dated``: no passage searched has a date of its own (``undated``), which the note says in its stead."""
    narrow = Filters(collection=filters.collection, path_prefix=filters.path_prefix, glob=filters.glob)
    if narrow == filters:
        return []
    chosen, scope = catalog.mask(filters), catalog.mask(narrow)
    searched = len(catalog) > 0 if scope is None else scope.any()  # nothing published: its own note says so
    if chosen is None or chosen.any() or not searched:
        return []
    absent = tags.missing(catalog.visible_tags(), filters.tags) if filters.tags else []
    if absent:  # a tag none holds: no other filter need be widened, and the tags near it are what to try
        return [f"{FILTERED_OUT} tagged {' or '.join(absent)}: no file holds "
                f"{'that tag' if len(absent) == 1 else 'those tags'}; other words will not help"]
    if filters.author and not catalog.author_mask(filters.author).any():  # as a tag none holds
        return [f"{FILTERED_OUT} by {filters.author}: no file searched records that author (a note's author:, a "
                f"document's author) nor is a mail's sender or a chat's speaker so named; other words will not help"]
    parts = ([f"of kind {filters.kind}"] if filters.kind else []) \
        + ([f"modified at or after {when(filters.modified_after)}"] if filters.modified_after is not None else []) \
        + ([f"modified before {when(filters.modified_before)}"] if filters.modified_before is not None else [])
    # the date a passage is about is the passage's, not its file's: 'in a file dated at or after …' read as the
    # file's own date, and a mailbox modified today seemed to be refused by date_after=2024
    dates = ([f"at or after {when(filters.date_after)}"] if filters.date_after is not None else []) \
        + ([f"before {when(filters.date_before)}"] if filters.date_before is not None else [])
    how = (f"none has a date of its own, such as {UNDATED_SOURCES}: each went by its file's modified time" if none_dated
           else "its own date where its file says one, else its file's modified time")
    said = ([f"about a date {' and '.join(dates)} ({how})"] if dates else []) \
        + ([f"in a file {' and '.join(parts)}"] if parts else []) \
        + ([f"tagged {' and '.join('#' + tag for tag in filters.tags)}"] if filters.tags else []) \
        + ([f"by {filters.author}"] if filters.author else [])
    which = "that filter" if len(parts) + len(dates) + bool(filters.tags) + bool(filters.author) == 1 \
        else "those filters"
    return [f"{FILTERED_OUT} {' '.join(said)}: other words will not help; widen or drop {which}"]


UNDATED = "no passage searched has a date of its own"
UNDATED_SOURCES = "a daily note's name, front matter's date, a mail message's Date, a document's created date"


def undated(catalog: Catalog, filters: Filters) -> list[str]:
    """The note for a date range over passages none of which says a date (code, notes named otherwise, an index
    whose files were read before Sift kept passage dates): the range went by the files' modified times alone, and
    the answer said nothing of it, as though 'the mail of 2019' had been looked for by the mail's dates."""
    if filters.date_after is None and filters.date_before is None:
        return []
    scope = catalog.mask(replace(filters, date_after=None, date_before=None))
    if not len(catalog) or (scope is not None and not scope.any()) or catalog.has_dates(scope):
        return []
    return [f"{UNDATED} ({UNDATED_SOURCES}): the date range went by each file's modified time (an index read "
            "before Sift kept passage dates has them once its files are read again)"]
