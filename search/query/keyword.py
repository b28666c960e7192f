"""Keyword search: FTS5 BM25 with column weights over the published generation.

The query is rebuilt from its words (``search.query.text.query_terms``), so user
text never reaches MATCH as syntax. Words are OR-ed: a passage ranks by the
words it shares with the query; very common words are dropped when the query
has rarer ones, which keeps long natural-language queries fast and on topic.
A query whose every word is in half of the passages or more ranks by none of
them (``weightless``): the engine says so, and hybrid search ranks by meaning.
"""
from __future__ import annotations

import functools
import re
import sqlite3
import unicodedata
from typing import Callable

from search.index import chunk_reads, keyword_reads
from search.query import clinical_abbreviations, compound_heads, question, references, run_together
from search.query.filters import Filters
from search.query.inflection import GUESSED, compound_parts, compounds, latin_forms, query_languages
from search.query.postings import COLUMNS, tokenize
from search.query.term_counts import counted
from search.query.text import WORD, normalise, query_words, written_words

WEIGHTS = (2.0, 1.0, 1.0)  # (tuned on SciFact: 0.689 vs 0.680 for 4,2,1) title (+ aliases, tags), heading path, body
MAX_TERMS = 64
# a word no passage holds is looked up in its forms (``held_forms``) from this many letters: a shorter one is more
# likely an English typo than another language's form ('baise' of a SciFact claim, for 'base', found 'bais')
GUESSED_LETTERS = 6
# a word no passage holds is looked up with two of its letters swapped from this many letters. It was 5, as a
# shorter one is as often a name as a slip (SciFact's 'Mims' syndrome was looked up as 'imms'), but a name is now
# told by its capital (``as_typed``), and 'tmux 分屏 pnae 大小' ranked tmux notes on anything but panes
SWAPPED_LETTERS = 4
# and with one letter dropped, added or changed from this many: a shorter word has many words one edit away
EDITED_LETTERS = 6
# and two slips away (one of them a swap) from this many, where it is the only word so far (``_two_slips``)
TWO_SLIPS_LETTERS = 7
TWO_SLIPS_MOST = 20  # to this many (a word of 20 letters has 20,000 such variants to tokenize and count)
EDITED_WORDS = 4  # in a query of at most this many words of 4 letters or more: a longer one ranks by its others
SLIP_LETTERS = 30  # nor a longer one (a pasted hash or blob: its variants would be thousands)
FAR = 10  # of several words one edit away that passages hold, one is taken if in FAR times the passages of any other
NAME_PASSAGES = 20  # passages read to tell whether the notes write a word as a name (``written_as_name``)
COMMON = 0.25  # a term in more than this share of chunks is "common"
LEADING = frozenset("the a an this that these those my our your his her its their".split())  # (``subject_words``)
ARTICLES = frozenset("the a an".split())  # of LEADING, those that say nothing of the subject after a preposition
BY_MEANING = "results are by meaning only, scored by similarity as in mode 'semantic'"  # hybrid, no keyword ranking


def match_expression(conn: sqlite3.Connection, query: str, total_chunks: int,
                     held: dict[str, list[str]] | None = None) -> str | None:
    """``held``: ``held_forms`` of the query (asked of FTS5 when None)."""
    typed = query
    query = question.content(query)
    words = subject_words(query_words(query)[:MAX_TERMS], as_typed(typed))
    if not words:
        return None
    if held is None:
        held = fts5_held_forms(conn, query)
    words += [form for forms in held.values() for form in forms]
    if len(words) > len(written := written_words(query)):  # another form of a word: once per token
        words = [word for word, _ in distinct_forms(words, tokenize(conn, words), set(written))]
    terms = ['"' + w.replace('"', '""') + '"' for w in words]
    if len(terms) > 2 and total_chunks:
        common = _common(conn, words, total_chunks)
        terms = [t for w, t in zip(words, terms) if w not in common]
    terms += ['"' + p.replace('"', '""') + '"' for p in references.searched(query)]  # '12.3(b)' as written too
    return " OR ".join(terms)


def subject_words(words: list[str], quoted: set[str] = frozenset()) -> list[str]:
    """``words`` without a preposition or conjunction (``question.FUNCTION``) that an article or a determiner
    follows ('about the budget', 'during this week'), unless quoted: it only leads to its object. In a small corpus
    such a word could be the rarest of the query and ranked alone: 'about the budget' found only the note saying
    'about', its subject dropped as common beside it. One that stands for itself stays ('blank lines above and
    below', 'while loop'). The article after such a word goes with it ('about the budget' is 'budget'): left
    alone, 'the' and 'budget' were two words, and common words are dropped only from three words up, so every
    passage saying 'the' ranked for it. A query of nothing else keeps its words."""
    leading = [w in question.FUNCTION and after in LEADING and w not in quoted
               for w, after in zip(words, words[1:] + [""])]
    led = [False] + leading[:-1]
    kept = [w for w, lead, article in zip(words, leading, led)
            if not lead and not (article and w in ARTICLES and w not in quoted)]
    return kept or list(words)


def left_out(query: str) -> set[str]:
    """The words of ``query`` that ``subject_words`` leaves out of its search ('about' in 'about the budget',
    'during' in 'readers during a write'), as ``query_words`` folds them: a snippet does not mark them, as it
    does not mark the common words, since a marked word tells the reader it matched."""
    words = query_words(question.content(query))[:MAX_TERMS]
    return set(words) - set(subject_words(words, as_typed(query)))


def held_forms(query: str, tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int],
               side_by_side: Callable[[str], bool] | None = None,
               between: Callable[[str, str], list[tuple[str, int]]] | None = None) -> dict[str, list[str]]:
    """{a word of the query: its other forms that some passage holds}, asked of the index (``tokens`` of words,
    ``documents`` holding a token), for a word no passage holds: in a query that shows no language
    (``inflection.query_languages``), its German, Spanish, Italian and Portuguese forms (``latin_forms``): 'ricerche
    clienti' found no note saying 'ricerca', as neither word shows Italian; in one that shows none or German, the
    German compound two of its words in a row make (of any two words in one that shows German) ('Apfel Kuchen': apfelkuchen; 'Rechnung Nummer':
    rechnungsnummer), and the two words a compound of it is made of ('Rechnungsnummer': rechnung, nummer; joined with
    no letter between only in a query that shows German, or in a word written as German writes a noun:
    ``german_nouns``; English writes 'paracortical', 'microinvasive'), or the three (``_three_parts``). An English
    word the index holds gets nothing, as before, nor does a guessed form the stemming cuts short (``_cut_short``).
    With ``side_by_side`` (whether a passage holds an FTS5 phrase), a name run together in small letters, as the
    words it is written with ('getusername': 'get user name', ``run_together``), and in a query of a few words, one
    some passage holds where its index form says how it parts (getUserName's 'getusername get user name': so
    get_user_name is found too, ``run_together.split_held``). With ``between`` (FTS5's vocabulary by range), the
    compounds of the index a word begins ('Sierpinski': sierpinskiraum, ``compound_heads``)."""
    languages = query_languages(normalise(query))
    if languages - {"de"}:  # its language's forms are in query_words already
        return {}
    written = [w for w in written_words(query)[:MAX_TERMS] if w.isalpha()]
    own = dict(zip(written, tokens(written) if written else []))
    absent = {w for w, t in own.items() if len(t) == 1 and not documents(t[0])}
    guessed = {word: list(_guessed_forms(word)) for word in written if word in absent and len(word) >= GUESSED_LETTERS
               and not languages}
    for first, second in zip(written, written[1:]):  # a compound of a word the index holds nowhere
        if first in absent or second in absent or "de" in languages:
            for word in [w for w in (first, second) if w in absent] or [first]:
                guessed.setdefault(word, []).extend(compounds(first, second))
    nouns = german_nouns(query)
    split = {word: compound_parts(word, joined="de" in languages or word in nouns) for word in absent}
    heads = {word: compound_heads.begun(word, between) for word in absent} if between is not None else {}
    forms = list(dict.fromkeys([form for its in guessed.values() for form in its]
                               + [part for pairs in split.values() for pair in pairs for part in pair]
                               + [term for terms in heads.values() for term in terms]))
    found_tokens = tokens(forms) if forms else []
    counts = counted(documents, list(dict.fromkeys(t[0] for t in found_tokens if len(t) == 1)))
    held = {form: t[0] for form, t in zip(forms, found_tokens) if len(t) == 1 and counts[t[0]]}
    found = {word: [form for form in dict.fromkeys(its) if form in held and not _cut_short(form, held[form], own[word])]
             for word, its in guessed.items()}
    for word, pairs in split.items():  # the first split whose two parts are both held
        both = next((list(pair) for pair in pairs if set(pair) <= set(held)), None)
        if both is None:  # a compound of three ('Apfelkuchenrezept': apfel, kuchen, rezept)
            both = _three_parts(pairs, held, tokens, documents, "de" in languages or word in nouns)
        found[word] = list(dict.fromkeys(found.get(word, []) + both))
    for word, terms in heads.items():  # 'Sierpinski': the compounds it begins ('sierpinskiraum')
        found[word] = list(dict.fromkeys(found.get(word, []) + [term for term in terms if held.get(term) == term]))
    if languages:
        found = {word: its for word, its in found.items() if its}
    else:
        found = {word: its for word, its in found.items()
                 if its and not _typo(word, {form: held[form] for form in its}, tokens, documents)}
    for word in sorted(absent) if side_by_side is not None else ():
        if words := run_together.split(word, tokens, documents, side_by_side):
            found[word] = [*found.get(word, []), words]
    if side_by_side is not None and len(written) <= run_together.NAME_WORDS:  # a name typed, not a sentence's words
        for word in sorted(w for w, t in own.items() if w not in absent and len(t) == 1):
            if words := run_together.split_held(word, tokens, documents, side_by_side):
                found[word] = [*found.get(word, []), words]
    for meaning, abbreviations in clinical_abbreviations.held(query, tokens, documents, side_by_side).items():
        found[meaning] = [*found.get(meaning, []), *abbreviations]  # 'hypertension', written nowhere: HTN
    return found


@functools.lru_cache(maxsize=4096)
def _guessed_forms(word: str) -> tuple[str, ...]:
    """``latin_forms`` of a word of a query that shows no language, kept: the spelling note asks ``held_forms`` of
    the query again (without a trace's frames), and a pasted trace's words come back in the next (4-7 ms a query)."""
    return tuple(latin_forms(word, GUESSED))


def slip_forms(query: str, tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int],
               quoted: set[str] = frozenset(), held: dict[str, list[str]] | None = None,
               starts: set[str] = frozenset(), named: Callable[[str], bool] | None = None,
               written: Callable[[str, str], str | None] | None = None) -> dict[str, list[str]]:
    """{a word of the query no passage holds: [the word it was typed for, as some passage holds it]}: the slip of
    two keys struck out of turn ('prevnet', 'caffiene', 'defualt'), or of one key missed, struck twice or
    mistaken ('statment', 'timout', 'contaxners'), looked up as meant. Keyword search left such a word out, and
    the query's other words alone ranked 'Start Amphetamine Session' and 'Sleep For A Duration' above 'Prevent
    Sleep With The Caffeinate Command' for 'how do i prevnet my mac from going to sleep with caffiene'; a query of
    the word alone ('defualt') found nothing, where the spelling note said what was meant. First the word with two
    neighbouring letters swapped, of several held the one the most passages hold: a swap adds no letter and drops
    none, so it is a slip, not another word ('from' for 'form' is never asked: the word must be held nowhere).
    Failing a swap, a word of EDITED_LETTERS letters or more is looked up as the word one letter dropped, added or
    changed (``edits``) that some passage holds (as stemmed), when that is unambiguous (``_one_edit``), only in a-z
    (the index folds accents, and 'mañana' was looked up as 'bañana', a passage's 'banana') and in a query of at
    most EDITED_WORDS words of four letters or more, where the slip leaves little else to rank by: a longer one
    ranks by its other words, and such a word is likelier another word than a swap is. Of SciFact's claims 12 held
    one: 'Merlin' was looked up as 'medlin', 'remolding' as 'refolding', and even right ones ('florescent',
    'tocopheryl') lowered their claims' judged abstracts, which do not say the word (nDCG@10 0.697 -> 0.696). Not
    for a quoted word or a name (``quoted``: ``as_typed``; asked as typed), a word found by another form (``held``:
    ``held_forms``), one of fewer than SWAPPED_LETTERS letters or more than SLIP_LETTERS, or other than Latin letters.
    A query none of whose words a passage holds is searched so too: the spelling note says what was searched in
    their place. A word capitalised at the start of the query or of a sentence (``starts``: ``sentence_starts``) is a
    name when the word it would be looked up as is one the passages write as a name (``named``: ``written_as_name``
    of its stem) and the word is it with one letter written as another (``_respelt``): 'Karlsson budget review' was
    searched as 'Carlsson', whom the notes name, while 'Budgte review' is 'budget', a word the notes write in small
    letters, and 'Kuberntes deployment' 'Kubernetes', a letter left out. Never a function word ('during', 'between': ``FUNCTION``),
    which says nothing of what is sought. The word looked up must be one a passage writes, or its stem near the
    typed word (``written``: ``passage_words.nearest``; None in tests of this alone): a variant only stems to a held
    term, and 'during' was searched as 'ouring' (stemmed 'our', in any note), 'sleeeping' as 'sleepeing'."""
    typed = [w for w in written_words(query)[:MAX_TERMS] if w.isalpha()]
    own = dict(zip(typed, tokens(typed) if typed else []))
    present = {w for w, t in own.items() if t and any(documents(token) for token in t)}
    absent = [w for w, t in own.items() if len(t) == 1 and w not in present and w not in quoted
              and w not in (held or {}) and SWAPPED_LETTERS <= len(w) <= SLIP_LETTERS and _latin(w)
              and w not in question.FUNCTION]
    short = sum(len(w) > 3 for w in typed) <= EDITED_WORDS  # 'to', 'the', 'a' say little
    found = {}
    for word in absent:
        swaps = list(dict.fromkeys(word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)
                                   if word[i] != word[i + 1]))
        held_swaps = [(documents(t[0]), swap) for swap, t in zip(swaps, tokens(swaps)) if len(t) == 1]
        best = max(((n, swap) for n, swap in held_swaps if n), key=lambda pair: pair[0], default=None)
        if best:
            found[word] = [best[1]]
        elif len(word) >= EDITED_LETTERS and word.isascii() and short \
                and (edited := _one_edit(word, tokens, documents)):
            found[word] = [edited]
    for word in [w for w in found if w in starts and named and _respelt(w, found[w][0])]:
        meant = tokens(found[word])[0]
        if len(meant) == 1 and named(meant[0]):
            del found[word]
    return _as_written(found, tokens, written) if written else found


def _as_written(found: dict[str, list[str]], tokens: Callable[[list[str]], list[tuple[str, ...]]],
                written: Callable[[str, str], str | None]) -> dict[str, list[str]]:
    """``found`` with each word looked up as a passage writes the word meant (``written``: the nearest word of
    passages holding the stem, None if none is near), or as found when the stem itself is near the typed word
    ('caffein' for 'caffiene'); a word whose variant reached its stem only by stemming ('ouring', stemmed 'our', for
    'during') is left out: the slip made a word up."""
    from search.query.passage_words import NEAR, distance
    kept = {}
    for word, forms in found.items():
        stem = tokens(forms)[0]
        near = written(word, stem[0]) if len(stem) == 1 else None
        if near or (len(stem) == 1 and distance(word, stem[0]) <= NEAR):
            kept[word] = [near or forms[0]]
    return kept


def _one_edit(word: str, tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int]
              ) -> str | None:
    """The word one edit from ``word`` (``edits``) that passages hold, when there is no doubt which: its stem the
    only one held, or held in FAR times as many passages as any other ('statment': statement). Of several alike
    ('markex': marker, marked) none: a word for the wrong one pulls in passages on another matter, while
    the spelling note's 'did you mean' costs nothing. Nor one that drops or changes a typed letter when another
    keeps every one (``restores``): the note offers that one first, and the search looks up what the note says.
    None held one edit away, a word of TWO_SLIPS_LETTERS to TWO_SLIPS_MOST letters is looked up two slips away
    (``_two_slips``)."""
    stems = _held_stems(edits(word), tokens, documents)
    if not stems:
        return _two_slips(word, tokens, documents) if TWO_SLIPS_LETTERS <= len(word) <= TWO_SLIPS_MOST else None
    counts = {stem: n for stem, (n, _) in stems.items()}
    ranked = sorted(counts, key=lambda stem: (-counts[stem], stem))
    if len(ranked) > 1 and counts[ranked[0]] < FAR * counts[ranked[1]]:
        return None
    best = ranked[0]
    kept = [v for v in stems[best][1] if restores(word, v)]
    if not kept and any(restores(word, v) for stem in ranked[1:] for v in stems[stem][1]):
        return None
    return min(kept or stems[best][1], key=lambda v: (v != best, v))


def _held_stems(variants: list[str], tokens: Callable[[list[str]], list[tuple[str, ...]]],
                documents: Callable[[str], int]) -> dict[str, tuple[int, list[str]]]:
    """{stem some passage holds: (passages holding it, the ``variants`` FTS5 stems to it)}; the stems counted at
    once (``counted``: one statement to FTS5 while the postings are read, not one a stem). With the postings in
    memory (``documents`` a method of theirs) only the variants whose stem could be held are tokenized
    (``stemmable``)."""
    variants = stemmable(variants, getattr(documents, "__self__", None))
    found = tokens(variants)
    counts = counted(documents, list({its[0] for its in found if len(its) == 1}))
    stems: dict[str, tuple[int, list[str]]] = {}
    for variant, its in zip(variants, found):
        if len(its) == 1 and counts[its[0]]:
            stems.setdefault(its[0], (counts[its[0]], []))[1].append(variant)
    return stems


def _two_slips(word: str, tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int]
               ) -> str | None:
    """The word two slips from ``word`` that passages hold, one of them two neighbouring letters swapped, when it is
    the only one: 'deflaut' (a letter struck two places late: two swaps) is 'default', 'kuberentse' 'kubernetes'.
    Only a long word: a shorter one has many words two edits away, and one held alone is likelier another word than
    a slip. Its variants are each one-edit variant with two of its letters swapped (some thousands: tokenized in
    one row, counted at once; with the postings in memory only those whose stem could be held: ``stemmable``); the
    other two-slip kinds (two letters dropped, added or changed) would be hundreds of thousands. The word's own stem's variants, not tokenized, cost less but
    missed most: 'conncteions' stems to 'conncteion', far from 'connect' (bench/questions.py's questions with two
    slips in their longest word: top five 35 of 40 that way, 37 this way)."""
    stems = _held_stems(_swapped_edits(word, documents), tokens, documents)
    if len(stems) != 1:
        return None
    stem, (_, forms) = next(iter(stems.items()))
    return min(forms, key=lambda v: (len(v) < len(word), v != stem, v))  # a form that drops no typed letter first


def _swapped_edits(word: str, documents: Callable[[str], int]) -> list[str]:
    """Each word one edit from ``word`` with two of its neighbouring letters swapped, sorted."""
    variants = {v[:i] + v[i + 1] + v[i] + v[i + 2:] for v in edits(word) for i in range(len(v) - 1) if v[i] != v[i + 1]}
    variants.discard(word)
    return sorted(variants)


def stemmable(variants: list[str], postings) -> list[str]:
    """Those of ``variants`` whose stem could be a term ``postings`` hold (``stem_reach``), in their order: all of
    them without the postings (FTS5's vocabulary is asked). A word's variants were all tokenized and looked up:
    4,869 two slips from 'kubernetes' in notes-en, which holds no term a few hundred of them do not rule out."""
    return postings.beginnings().passing(variants) if hasattr(postings, "beginnings") else variants


def restores(word: str, variant: str) -> bool:
    """Whether ``variant`` (one edit from ``word``) adds a letter to it or swaps two ('logging' for 'loging',
    'rebase' for 'reabse'), keeping every typed letter: a slip of the fingers mostly strikes two keys out of turn
    or misses one, and a letter that was typed was likely meant."""
    return len(variant) == len(word) + 1 or (len(variant) == len(word) and sorted(variant) == sorted(word))


def _latin(word: str) -> bool:
    """Whether ``word`` is written in Latin letters (accents allowed)."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c)).isascii()


def _three_parts(pairs: list[tuple[str, str]], held: dict[str, str],
                 tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int], joined: bool
                 ) -> list[str]:
    """The three held parts of a compound none of whose ``pairs`` (``compound_parts``) is held whole: the first pair
    one part of which is ``held`` and the other two held words ('Apfelkuchenrezept': apfel, kuchen and rezept, where
    no passage says apfelkuchen); [] when none. The parts looked up are added to ``held``."""
    halves = [(pair, side) for pair in pairs for side in (0, 1) if pair[1 - side] in held]
    inner = {part: compound_parts(part, joined) for part in dict.fromkeys(pair[side] for pair, side in halves)}
    forms = list(dict.fromkeys(p for splits in inner.values() for two in splits for p in two if p not in held))
    held.update({form: t[0] for form, t in zip(forms, tokens(forms) if forms else [])
                 if len(t) == 1 and documents(t[0])})  # the caller's, with the parts found
    for pair, side in halves:
        two = next((list(two) for two in inner[pair[side]] if set(two) <= set(held)), None)
        if two:
            return two + [pair[1]] if side == 0 else [pair[0]] + two
    return []


def _cut_short(form: str, token: str, own: tuple[str, ...]) -> bool:
    """Whether the index's stemming cut a guessed ``form`` to a ``token`` that is a shorter start of the query word's
    own (``own``), by three letters or more of the form: another English word, not the query word's form. Italian
    'favouriti', guessed for 'favourite', is stemmed as 'favour' (Porter's -iti), and 'my favourite colour' was
    looked up as 'favour'. A form the stemming keeps ('rechnung' for 'rechnungen') stays."""
    return len(own) == 1 and own[0].startswith(token) and len(token) < len(own[0]) and len(form) - len(token) >= 3


def german_nouns(query: str) -> set[str]:
    """The folded words of ``query`` (as typed) written as German writes a noun, a capital and then small letters
    ('Hausaufgabe'), but its first word (capitalised as any first word is: 'Paracortical cells …') when others
    follow: such a word no passage holds is split into the two words it may be made of with no letter between
    (``compound_parts``), as in a query that shows German; English writes such compounds in small letters."""
    words = WORD.findall(query)
    return {normalise(w) for w in words[1 if len(words) > 1 else 0:] if w[:1].isupper() and w[1:].islower()}


def as_typed(query: str) -> set[str]:
    """The folded words of ``query`` (as typed, framing and all) that keyword search looks up as written, never as a
    slip of another word (``slip_forms``): those quoted, and names (``names``)."""
    return question.quoted_words(query) | names(query)


def names(query: str) -> set[str]:
    """The folded words of ``query`` (as typed) written with a capital mid-sentence, which a query writes for a
    name: not the first word of the query or of a sentence in it (capitalised as any first word is), unless it is
    the query's one word, nor in a query written all in capitals. A name no passage holds is another person or
    product, not a slip: 'Karlsson' was searched as 'Carlsson', one letter away, whom the notes name, and a note on
    'Brian' as one on the 'brain' (two letters swapped). Such a word is searched as written; the spelling note still
    offers the word held ('did you mean …'). Not in a query that shows German, which writes every noun so
    ('wo ist die Rechnnug vom Lieferanten')."""
    return _capitalised(query)[0]


def _respelt(word: str, meant: str) -> bool:
    """Whether ``word`` is ``meant`` with one letter written as another, as a name is spelt otherwise ('Karlsson',
    'Carlsson'; 'Meyer', 'Meier'). Two letters swapped, one left out or one added is a slip of the keys, the name
    meant whatever the capital says: 'Kuberntes deployment' and 'Postgrse backup' were searched without the word
    (kept as names, as the notes write 'Kubernetes' and 'Postgres' only with a capital)."""
    word, meant = word.casefold(), meant.casefold()
    return len(word) == len(meant) and sum(a != b for a, b in zip(word, meant)) == 1


def sentence_starts(query: str) -> set[str]:
    """The folded words of ``query`` (as typed) written with a capital at the start of the query or of a sentence in
    it, in a query of several words (not all in capitals, not showing German): a name or a word capitalised as any
    first word is ('Karlsson budget review', 'Budgte review'). ``slip_forms`` tells them apart by the word meant."""
    return _capitalised(query)[1]


def _capitalised(query: str) -> tuple[set[str], set[str]]:
    """(``names``, ``sentence_starts``) of ``query``."""
    words = list(WORD.finditer(query))
    if query.upper() == query or "de" in query_languages(normalise(query)):  # capitals say nothing of a word:
        return set(), set()  # 'HOW DO I PREVNET …'; German's nouns
    found, starts = set(), set()
    for match, after in zip(words, words[1:] + [None]):
        before = query[:match.start()].rstrip(" \t\"'“”‘’«»([{*_`")
        if match.group(0)[:1].isupper():
            if len(words) == 1 or before and before[-1] not in ".!?\n" or _says(match, after):
                found.add(normalise(match.group(0)))
            elif match.group(0)[1:].islower():  # as a first word is written: 'KUBERNETSE' is no name for that
                starts.add(normalise(match.group(0)))
    return found, starts - found


# Verbs a person is the subject of: a capitalised word before one is a name, first word or not ('Brian said', held
# nowhere, was searched as 'brain', a word the notes write in small letters)
SAYING = frozenset("said says say wrote writes write asked asks told tells thinks thought mentioned mentions suggested "
                   "suggests proposed proposes replied replies decided decides explained explains".split())


def _says(match: re.Match, after: re.Match | None) -> bool:
    """Whether the capitalised word ``match`` is followed by a verb of saying (SAYING), only a space between."""
    between = match.string[match.end():after.start()] if after is not None else ""
    return after is not None and after.group(0).casefold() in SAYING and not between.strip()


def written_as_name(conn: sqlite3.Connection, term: str) -> bool:
    """Whether the published passages write the words that hold ``term`` (a stem) only with a capital, as a name is
    written ('Carlsson'), never in small letters ('budget', 'prevent'): read in NAME_PASSAGES of them (any, not the
    best ranked, whose titles are capitalised word by word). A word of a passage is taken as the term's when it
    begins with all of the stem but its last letter (porter rewrites a word's end only)."""
    keyword_reads.make_scratch(conn, COLUMNS)
    head = term[:-1] if len(term) > 4 else term
    pattern = re.compile(rf"(?<![^\W_]){re.escape(head)}", re.IGNORECASE)
    found = [m.group(0) for text in keyword_reads.term_texts(conn, term, NAME_PASSAGES) for m in
             pattern.finditer(text)]
    return bool(found) and all(word[:1].isupper() for word in found)


def _typo(word: str, forms: dict[str, str], tokens: Callable[[list[str]], list[tuple[str, ...]]],
          documents: Callable[[str], int]) -> bool:
    """Whether ``word`` of a query that shows no language is likelier a typo than another language's form (its held
    ``forms``: {form: its token}): one of them is it with two letters swapped ('Kubernetse', 'Kubernetes'), or the
    word one edit from it (``edits``, as stemmed) that the most passages hold is none of them. 'reprot' was looked
    up as 'repro', 'unisntall' as 'unis' and 'tall', 'Kubernetse' as 'kubernetes', and the spelling note, taking
    the word as found, no longer said 'did you mean report', 'uninstall', 'Kubernetes'. 'ricerche' keeps 'ricerca'
    (its stem is one edit's, 'ricercae'), 'clienti' 'cliente', 'commist' 'commit'. Asked only of a word some of
    whose forms are held."""
    swapped = list({word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)} - {word})
    if {t[0] for t in tokens(swapped) if len(t) == 1} & set(forms.values()):  # no language's ending swaps letters
        return True  # 'kubernetse': 'kubernets', stemmed as 'kubernetes'; 'clienti' keeps 'cliente'
    variants = edits(word)
    near = counted(documents, list(dict.fromkeys(t[0] for t in tokens(variants) if len(t) == 1)))
    best = max(sorted(near), key=near.get, default="")
    return bool(best) and near[best] > 0 and best not in forms.values()


ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def edits(word: str) -> list[str]:
    """Every word one edit from ``word``: a letter dropped, two swapped, one changed or one added."""
    letters = sorted(set(ALPHABET) | set(word))
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    found = [a + b[1:] for a, b in splits if b]
    found += [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1]
    found += [a + c + b[1:] for a, b in splits if b for c in letters]
    found += [a + c + b for a, b in splits for c in letters]
    return [e for e in dict.fromkeys(found) if e and e != word]


def fts5_held_forms(conn: sqlite3.Connection, query: str) -> dict[str, list[str]]:
    """``held_forms`` of the (content of the) ``query``, asked of FTS5."""
    return held_forms(query, functools.partial(tokenize, conn), functools.partial(keyword_reads.term_documents, conn),
                      between=functools.partial(keyword_reads.vocabulary_between, conn))


def distinct_forms(words: list[str], tokens: list[tuple[str, ...]], written: set[str]
                   ) -> list[tuple[str, tuple[str, ...]]]:
    """(word, its tokens) of ``words`` but the other forms of a query word (``search.query.inflection``: 'recherches'
    for 'recherche') whose tokens an earlier word has: the index's stemming makes them one term, which counted once
    for each form outweighed the query's other words. A word written twice still counts twice, as in FTS5."""
    seen: set[tuple[str, ...]] = set()
    kept = []
    for word, token in zip(words, tokens):
        if word in written or token not in seen:
            kept.append((word, token))
        seen.add(token)
    return kept


def _common(conn, words: list[str], total: int) -> set[str]:
    return dropped(words, tokenize(conn, words), functools.partial(keyword_reads.term_documents, conn), total)


def dropped(words: list[str], tokens: list[tuple[str, ...]], documents: Callable[[str], int], total: int) -> set[str]:
    """The ``words`` keyword search drops as common, given their ``tokens`` (stemmed, as the index holds them:
    'running' is counted as 'run') and ``documents(token)``, how many of the ``total`` chunks hold one: those in
    more than COMMON of them, when some other word found is rarer (as Postings.search drops them); else none. A
    word of several tokens (searched as a phrase) is kept, and counts as rarer."""
    counts = {w: documents(t[0]) if len(t) == 1 else None for w, t in zip(words, tokens) if t}
    common = {w for w, n in counts.items() if n is not None and n > COMMON * total}
    rarer = any(n is None or 0 < n <= COMMON * total for n in counts.values())
    return common if rarer else set()


def common_words(conn: sqlite3.Connection, query: str, total: int) -> set[str]:
    """The query's words that keyword search drops as common (in more than COMMON of the chunks, when the query
    has more than two words and some rarer ones) or as a question's framing (``question``): snippets do not mark
    them ('the', 'a', 'how' and 'I' in a question)."""
    framing = question.framing(query)
    words = query_words(question.content(query))[:MAX_TERMS]
    if len(words) <= 2 or not total:
        return framing
    return _common(conn, words, total) | framing


def weightless(documents: list[int], total: int) -> bool:
    """Whether BM25 ranks by none of a query's terms, given how many of the ``total`` chunks hold each: every term
    found is in half of them or more. Its IDF, log((N - n + 0.5) / (n + 0.5)), is then 0 or less, which FTS5's
    bm25() (and Postings, which copies it) raises to 1e-6: a word in most passages says nothing about which one
    is meant ('the' in English notes, 'vim' in notes about vim), and the passages holding it come in the order
    of how often each repeats it, at scores of a millionth that read as 0."""
    found = [n for n in documents if n]
    return bool(found) and all(2 * n >= total for n in found)


def unranked_note(names: list[str], mode: str) -> str:
    """What a search whose keyword ranking was ``weightless`` tells the user, ``names`` its words as the note shows
    them: hybrid search ranks by meaning alone then (the engine leaves the ranking out of the fusion, where scaling
    scores of a millionth to 0..1 made them count as much as any), keyword search by nothing."""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return (f"{listed} {'is' if len(names) == 1 else 'are each'} in half of the passages or more, which says "
            "nothing about which passage is meant: "
            + (BY_MEANING if mode == "hybrid" else "the results carry no keyword ranking"))


def search(conn: sqlite3.Connection, query: str, limit: int, filters: Filters,
           total_chunks: int = 0, visible: int | None = None, held: dict[str, list[str]] | None = None
           ) -> list[tuple[int, float]]:
    """[(chunk id, bm25 score)], best first (a higher score is better). ``visible``: how many chunks the published
    generations show; when that is every chunk row (nothing being built or left to clean) and nothing is filtered,
    FTS5 is asked alone, without the joins to the files that keep the published rows (same rows, same order).
    ``held``: ``held_forms`` of the query, if known."""
    expression = match_expression(conn, query, total_chunks, held)
    if expression is None:
        return []
    if visible is not None and filters == Filters() and chunk_reads.chunk_count(conn) == visible:
        found = keyword_reads.keyword_search_every(conn, expression, WEIGHTS, limit)
    else:
        where, params = filters.sql(conn)
        found = keyword_reads.keyword_search(conn, expression, WEIGHTS, where, params, limit)
    return [(cid, -bm25) for cid, bm25 in found]
