"""A name typed in small letters (``getusername``, ``parseconfig``) read as the words the code writes it with.

Code is indexed with a camelCase name's words after it (``text.code_index_form``: getUserName as 'getusername get
user name'), and FTS5 parts a snake_case name at its '_': a query that writes the name run together in small
letters is one word no passage of ``get_user_name`` holds, and found nothing there. Such a word, where no passage
holds it, is split where every part is a word the index holds and the parts stand side by side in some passage (as
a name's words do: get_user_name, getUserName's words after it), and looked up as that phrase too, beside the word
as written. No dictionary: the index's own words say where a run parts, and a split that names nothing is not
used.

A word some passage does hold (``getusername``, as getUserName is indexed) is split too where that is no doubt
(``split_held``): a camelCase name's index form, the word and its words after it, tells how it parts, so
get_user_name is found beside getUserName. A word of prose ('something', 'database') is never written so, and is
left whole.
"""
from __future__ import annotations

import re
from typing import Callable

from search.query.term_counts import counted

RUN = re.compile(r"[a-z]{6,24}")  # a run of small letters long enough to be two words; a longer one is no name
PART_LETTERS = 2  # a part of a name of two letters: 'db', 'io', 'id'
MOST_PARTS = 4
NAME_WORDS = 3  # a word held is split in a query of this many words at most: a name typed, with a word or two
TRIED = 6  # splits asked of the index (whether their parts stand side by side), fewest parts first


def split_held(word: str, tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int],
               side_by_side: Callable[[str], bool]) -> str | None:
    """The words of a name that some passage holds run together ('getusername': 'get user name'), or None: where
    exactly one split's words stand after the word in some passage (``text.code_index_form`` writes getUserName so:
    'getusername get user name'). Two such splits (getUserName's and getUsername's) say no one way it parts."""
    found = [phrase for phrase in _tried(word, tokens, documents) if side_by_side(f'"{word} {phrase}"')]
    return found[0] if len(found) == 1 else None


def split(word: str, tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int],
          side_by_side: Callable[[str], bool]) -> str | None:
    """The words ``word`` runs together ('get user name'), or None: ``tokens`` of words and ``documents`` holding a
    token tell which of its parts the index holds, ``side_by_side(phrase)`` whether some passage holds the phrase."""
    for phrase in _tried(word, tokens, documents):
        if side_by_side('"' + phrase + '"'):
            return phrase
    return None


def _tried(word: str, tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int]
           ) -> list[str]:
    """The splits of ``word`` to ask the index of (TRIED of them, fewest parts first), each part a word it holds."""
    if not RUN.fullmatch(word):
        return []
    parts = [word[i:j] for i in range(len(word)) for j in range(i + PART_LETTERS, len(word) + 1) if j - i < len(word)]
    found = tokens(parts)
    counts = counted(documents, list(dict.fromkeys(t[0] for t in found if len(t) == 1)))
    held = {part for part, t in zip(parts, found) if len(t) == 1 and counts.get(t[0])}
    candidates = sorted(_splits(word, held), key=lambda split: (len(split), [-len(part) for part in split]))
    return [" ".join(candidate) for candidate in candidates[:TRIED] if len(candidate) > 1]


def _splits(word: str, held: set[str], most: int = MOST_PARTS) -> list[list[str]]:
    """Every way of cutting ``word`` into ``most`` parts or fewer, each of them ``held`` (the whole word, one part,
    where it is held: ``split`` never asks for it whole)."""
    found = [[word]] if word in held else []
    if most > 1:
        for at in range(PART_LETTERS, len(word) - PART_LETTERS + 1):
            if word[:at] in held:
                found += [[word[:at], *rest] for rest in _splits(word[at:], held, most - 1)]
    return found
