"""A word no passage holds, found as the first part of a compound the index holds: 'Sierpinski' of Sierpińskiraum.

German writes a name or a noun before a noun as one word (Sierpińskiraum, Postgresdatenbank), and FTS5 keeps it
one token ('sierpinskiraum': remove_diacritics folds the ń), so a note saying
only 'Sierpińskiraum' was not found by 'Sierpinski' nor 'Sierpinski space'. A query word of HEAD_LETTERS letters or
more that no passage holds is looked up in the terms of the index it begins as written, the rest of each a word of REST_LETTERS
or more (the second part: not the 's' of a plural, nor the 'sql' of 'postgresql'); a word that begins more than MOST
such terms says too little of which was meant, and takes none. A word some passage holds is not looked up so: 'Gruppe'
does not find 'Fundamentalgruppe', nor does 'Speicher' find 'Speichermangel' where a passage says 'Speicher'
(docs/known-limits.md).
"""
from __future__ import annotations

import unicodedata
from typing import Callable

HEAD_LETTERS = 6  # letters at least of a word looked up as a compound's first part ('Sierpinski', not 'Auto')
REST_LETTERS = 4  # letters at least of what follows it in the term ('raum'; not 'sql' of 'postgresql')
MOST = 5  # terms at most a word begins for them to be taken


def begun(word: str, between: Callable[[str, str], list[tuple[str, int]]]) -> list[str]:
    """The terms of the index that ``word`` (a query word, in small letters) begins, as written and its accents
    folded as FTS5 folds them, as a compound's first part: read from ``between(start, end)`` (FTS5's vocabulary from
    ``start`` up to ``end``, with each term's count). As written, not as stemmed: 'topological' (stem 'topolog')
    does not find German 'topologisch'. [] for a word shorter than HEAD_LETTERS, other than letters, or beginning
    more than MOST such terms."""
    head = "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))
    if len(head) < HEAD_LETTERS or not head.isalpha():
        return []
    end = head[:-1] + chr(ord(head[-1]) + 1)
    found = [term for term, _ in between(head, end) if len(term) - len(head) >= REST_LETTERS and term.isalpha()]
    return found if len(found) <= MOST else []
