"""The words published passages write for an indexed stem, and how far a typed word is from them.

The keyword index holds stems ('sleep' for 'sleeping', 'our' for 'ouring'), so a word one edit from a typed word
can reach a held stem without being a word at all: 'during' was searched and offered as 'ouring' (stemmed 'our')
in notes that never write 'ouring', 'sleeeping' as 'sleepeing'. What a passage writes is a word; a word is offered
or searched in place of a typed one only as a passage writes it (``nearest``).
"""
from __future__ import annotations

import unicodedata

from search.index import keyword_reads
from search.query.postings import COLUMNS, tokenize
from search.query.text import WORD, normalise

PASSAGES = 3  # passages read to find the words a stem stands for
NEAR = 2  # edits from the typed word a passage's word may be, to be taken for the word meant


def written(conn, stem: str, passages: int = PASSAGES) -> set[str]:
    """The words of up to ``passages`` published passages holding ``stem`` that FTS5 stems to it."""
    keyword_reads.make_scratch(conn, COLUMNS)
    return forms(conn, stem, keyword_reads.term_texts(conn, stem, passages))


def forms(conn, stem: str, texts: list[str]) -> set[str]:
    """The words of ``texts`` that FTS5 stems to ``stem`` (porter changes a word's end only, so only words starting
    with all but the stem's last letter are tokenized)."""
    head = stem[:max(1, len(stem) - 1)]
    words = sorted({w for text in texts for w in WORD.findall(normalise(text)) if unaccented(w).startswith(head)})
    return {w for w, tokens in zip(words, tokenize(conn, words)) if tokens == (stem,)}


def nearest(conn, word: str, stem: str, passages: int = PASSAGES) -> str | None:
    """The word passages holding ``stem`` write that is closest to ``word`` (typed), if within NEAR edits of it:
    None when the stem was reached only through a made-up word ('ouring' for 'during': the passages write 'our',
    three edits away)."""
    near = [(distance(word, w), w) for w in written(conn, stem, passages)]
    best = min(near, default=None)
    return best[1] if best and best[0] <= NEAR else None


def unaccented(word: str) -> str:
    """``word`` as the index's stems spell it: without accents ('übersetzung' is stemmed 'ubersetzung')."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def distance(a: str, b: str) -> int:
    """Edits from ``a`` to ``b`` (Damerau-Levenshtein, optimal string alignment: a swap of neighbours is one)."""
    before, row = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (ca != cb))
            if before is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
    return row[-1]
