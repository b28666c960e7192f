"""Which words FTS5 could stem to a term the index holds, told from their first letters without tokenizing them.

A long word no passage holds is looked up two slips away (``keyword._two_slips``): thousands of variants, each
tokenized by FTS5 and its stem looked up (and its hundreds of one-edit variants, by keyword search and by the spelling
note, before that). With the postings in memory that was most of such a search's cost
(`kubernetes deployment` on notes-en, which does not hold 'kubernetes': 16 ms a word, and more the first time,
before the tokens are cached), though nearly all of the variants begin with letters no indexed term begins with.

FTS5's porter stemmer (sqlite's fts5_tokenize.c, over unicode61) rewrites a word's end only, so a word's stem
begins with the word's first ``kept(word)`` letters: step 1 (plural 's', 'ed', 'ing', a doubled consonant, 'y' made
'i') cuts at most what the word's end allows (``_step_one_cut``, 7 letters at most), and every later rule that cuts
into the word (steps 2 to 5) asks that what it keeps has a vowel followed by a consonant (m > 0), which the word's
shortest such beginning is the least of. A word ending in none of the endings porter's rules read (``untouched``:
'elasticsearch', 'terraform') is its own stem, and keeps all its letters: by its first vowel and consonant alone
('el'), 7,176 of the 8,336 two-slip variants of 'elasticsearch' passed in notes-en, 523 now. A variant whose first
letters (``kept``, LONGEST at most) begin no held term cannot stem to one, and is never tokenized. Checked on 1.5
million words and made-up words stacked with porter's suffixes (every one's stem begins with its first ``kept``
letters), and by tests/test_stem_reach.py; with ``untouched``, on 1.8 million words of notes-en and SciFact and their
one-edit variants (all 660,546 ``untouched`` ones their own stem, every stem beginning with its ``kept`` letters).
"""
from __future__ import annotations

LONGEST = 5  # beginnings compared up to this many letters: longer ones would grow the sets for little
PASSED_KEPT = 64  # lists of variants whose ``Beginnings.passing`` is kept (a word's two: one edit, two slips)
STEP_ONE_MOST = 7  # 'es' (1a) + 'ing' (1b) + a doubled consonant (1b) + 'y' made 'i' (1c)
# Every ending any of porter's rules reads (fts5PorterCb and mkportersteps.tcl): 1a 's', 1b 'ed' (and 'eed') and
# 'ing', 1c 'y', the suffixes of steps 2 to 4, 5a 'e', 5b 'll'. A word ending in none of them is its own stem: each
# step changes a word only where one of its endings matches, and a step that changes nothing leaves the next the same
# word ('elasticsearch', 'terraform').
ENDINGS = frozenset(["s", "ed", "ing", "y", "e", "ll",
                     "ational", "tional", "enci", "anci", "izer", "logi", "bli", "alli", "entli", "eli", "ousli",
                     "ization", "ation", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti",
                     "icate", "ative", "alize", "iciti", "ical", "ful", "ness",
                     "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
                     "ism", "ate", "iti", "ous", "ive", "ize"])
ENDING_MOST = max(map(len, ENDINGS))
ONE_LETTER = frozenset(e for e in ENDINGS if len(e) == 1)  # a word ending so is read by a rule
LAST_TWO = frozenset(e[-2:] for e in ENDINGS if len(e) > 1)  # a word ending in other two letters is by none


def kept(word: str) -> int:
    """How many of ``word``'s first letters (lower case a-z) its porter stem always begins with (0: none known)."""
    if untouched(word):
        return len(word)
    reach = len(word) - _step_one_cut(word)
    least = _shortest_vc(word)
    return min(reach, least) if least else reach


def compared(word: str) -> int:
    """``kept(word)``, LONGEST at most: the letters of ``word`` a held term must begin with."""
    if untouched(word):
        return min(len(word), LONGEST)
    return min(len(word) - _step_one_cut(word), _least(word[:LONGEST]))


def untouched(word: str) -> bool:
    """Whether ``word`` ends in none of porter's ENDINGS, so that its stem is the word itself (a word's first
    vowel and consonant bound nothing then: 'elasticsearch' keeps all its letters, not 'el')."""
    if word[-1:] in ONE_LETTER:
        return False
    if word[-2:] not in LAST_TWO:  # most words: one or two look-ups
        return True
    return not any(word[-n:] in ENDINGS for n in range(2, min(len(word), ENDING_MOST) + 1))


def _least(head: str) -> int:
    """``_shortest_vc`` of a word beginning with ``head`` (its first LONGEST letters), LONGEST when it is more
    or none (the word's end then bounds what is kept, the same in both cases)."""
    return _shortest_vc(head) or LONGEST


def _shortest_vc(word: str) -> int:
    """The length of ``word``'s shortest beginning with a vowel then a consonant (porter's m > 0), 0 if none: a
    vowel is a, e, i, o, u, or y after a consonant (fts5PorterGobbleVC)."""
    consonant, seen_vowel = False, False
    for i, c in enumerate(word):
        consonant = not (c in "aeiou" or (consonant and c == "y"))
        if seen_vowel and consonant:
            return i + 1
        seen_vowel = seen_vowel or not consonant
    return 0


def _step_one_cut(word: str) -> int:
    """The most letters at its end porter's step 1 can take from ``word`` or change (fts5PorterCb): 1a is followed
    as it is (it asks nothing of the stem); 1b's 'ed' and 'ing' are taken as cut whatever they ask, with a doubled
    consonant after them, and 1c's 'y' made 'i' after them or where the word ends in 'y'."""
    n = len(word)
    if n < 3:  # not stemmed
        return 0
    cut = 0
    if word.endswith("s"):  # 1a: sses -> ss, ies -> i, ss kept, s dropped
        if word.endswith("es"):
            cut = 2 if (n > 4 and word.endswith("sses")) or (n > 3 and word.endswith("ies")) else 1
        elif not word.endswith("ss"):
            cut = 1
    rest = word[:n - cut]
    if len(rest) > 3 and rest.endswith("eed"):  # 1b: eed -> ee, and no more of step 1
        return cut + 1
    if rest.endswith("ed") or rest.endswith("ing"):  # 1b, then a doubled consonant dropped, then 1c
        return min(n, cut + (2 if rest.endswith("ed") else 3) + 2)
    return cut + rest.endswith("y")  # 1c


class Beginnings:
    """The first 1 to LONGEST letters of a set of terms (the index's), each length's set made when first asked."""

    def __init__(self, terms):
        self.terms = terms
        self._sets: dict[int, set[str]] = {}
        self._least: dict[str, int] = {}  # ``_least`` of the heads asked
        self._passed: dict[tuple[str, ...], list[str]] = {}  # ``passing``'s answers, by the words asked

    def passing(self, words) -> list[str]:
        """Those of ``words`` that could stem to one of the terms (``may_stem_to_one``), in their order; a word
        other than lower case a-z is kept whatever it is. A long
        word's thousands of variants share a few hundred beginnings and endings, each looked at once: a call a
        variant cost about what tokenizing it saved. An answer is kept (PASSED_KEPT words' variants): a query
        asked again (an assistant's retry, another mode) found the variants' tokens cached, and walking them again
        cost more than it saved (``kubernetes deployment`` 8.5 ms every variant, 9.6 filtered)."""
        asked = tuple(words)
        found = self._passed.get(asked)
        if found is None:
            if len(self._passed) >= PASSED_KEPT:
                self._passed.clear()
            found = self._passed[asked] = self._passing(asked)
        return list(found)

    def _passing(self, words) -> list[str]:
        leasts: dict[str, int] = {}
        cuts: dict[str, int] = {}  # of a word of 7 letters or more, the step-one cut reads its last 5 only
        found = []
        for word in words:
            if not (word.isascii() and word.isalpha() and word.islower()):  # FTS5 folds it first: kept, unread
                found.append(word)
                continue
            head, n = word[:LONGEST], len(word)
            least = leasts.get(head)
            if least is None:
                least = leasts[head] = _least(head)
            at = least
            if n - STEP_ONE_MOST < least:  # its end could cut into the letters compared
                cut = cuts.get(word[-5:]) if n >= 7 else None
                if cut is None:
                    cut = _step_one_cut(word)
                    if n >= 7:
                        cuts[word[-5:]] = cut
                at = min(n - cut, least)
            if at > 0 and word[:at] not in self._beginnings(at):
                continue
            if at < min(n, LONGEST) and untouched(word):  # its own stem: more of its letters are compared (asked
                at = min(n, LONGEST)  # only of a word that passes so far)
            if at <= 0 or word[:at] in self._beginnings(at):
                found.append(word)
        return found

    def may_stem_to_one(self, word: str) -> bool:
        """Whether ``word`` (lower case a-z) could stem to one of the terms: False only when it cannot."""
        if untouched(word):
            n = min(len(word), LONGEST)
            return word[:n] in self._beginnings(n)
        least = self._head_least(word[:LONGEST])
        n = least if len(word) - STEP_ONE_MOST >= least else min(len(word) - _step_one_cut(word), least)
        return n <= 0 or word[:n] in self._beginnings(n)

    def _beginnings(self, n: int) -> set[str]:
        found = self._sets.get(n)
        if found is None:
            found = self._sets[n] = {term[:n] for term in self.terms if len(term) >= n}
        return found

    def _head_least(self, head: str) -> int:
        least = self._least.get(head)
        if least is None:
            if len(self._least) >= 100_000:  # heads of a long word's variants: some hundreds a word
                self._least.clear()
            least = self._least[head] = _least(head)
        return least
