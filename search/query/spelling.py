"""Query words no published passage holds, and the indexed word each was probably meant to be.

Keyword search ORs the query's words, so a misspelled word adds nothing and says nothing: a hybrid search for
'deploymnet kubernetes' answers by the other word and by meaning, a keyword search may find nothing at all. The
engine adds a note naming such words, with a suggestion drawn from the index, and gives the same as data
(``Said.unmatched``) for callers that read structured results.

The whole published index is asked, not the collection or folder searched: a word that is somewhere is no typo,
and "nothing here holds it" is what an empty answer already says. A Chinese (Japanese, Korean) run counts as
missing when none of its bigrams is indexed; it is named, never corrected. Of a run some of whose bigrams are
indexed, the stretch no indexed bigram touches is named (量子 of 量子计算), as the results hold only the rest, with
what the passages write in its place where they hold the run with one of its characters another: 布隆 for the
布龙 of 布龙过滤器, a character typed for one that sounds alike (``_suggest_chinese``).

The keyword index holds stems ('deploy' for 'deployment'), so a word is not compared with stems letter by letter:
its one-edit variants (a letter dropped, added, changed, or two swapped) go through FTS5's own tokenizer, and a
variant whose stem the index holds is a candidate; failing that, stems one edit away from the word's own stem (two
edits in all). A candidate reached by an edit that keeps every typed letter (two letters swapped back, a dropped one
restored) wins over one that drops or changes a typed letter, and among those alike the stem in most passages: a
slip of the fingers mostly strikes two keys out of turn or misses one, and a letter that was typed was likely meant,
so 'macors' is 'macros' (a swap) even in notes that say 'macOS' (the typed 'r' thrown away) more often. Frequency
alone chose the word the collection talks about most, not the one typed. The winner is shown as the word of a
passage holding it that is closest to what was typed, so the suggestion reads as a word ('deployment', never
'deploy' or 'deploi'). All of this runs only for a word with no match; other searches pay one lookup per word (a
dict lookup with the postings in memory).
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from search.index import chunk_reads, keyword_reads, progress_reads
from search.index.status import count
from search.query.dates import date_forms
from search.query.keyword import ALPHABET, BY_MEANING, MAX_TERMS, WEIGHTS, held_forms
from search.query.keyword import edits as _edits
from search.query.keyword import restores as _restores
from search.query.keyword import stemmable
from search.query.passage_words import distance as _distance
from search.query.passage_words import forms as _passage_forms
from search.query.postings import COLUMNS, Postings, tokenize
from search.query.question import FRAMING, FUNCTION, STOPWORDS, quoted_words
from search.query.identifiers import DOI_LINK
from search.query.references import label_names, other_parts
from search.query.term_counts import TermCounts, counted
from search.query.text import (CJK_RANGES, CJK_RUN, KATAKANA_WORD, WORD, normalise, other_scripts, query_pieces,
                               simplified, split_scripts)

MIN_LETTERS = 4  # a shorter word is not corrected: too many words are one edit away
MAX_LETTERS = 30  # nor a longer one (its variants would be thousands)
NAMED = 6  # missing words named in the note at most
CORRECTED = 3  # of them, words a suggestion is looked for (each costs 45-100 ms without the postings in memory)
SHOWN = 40  # characters of a missing word the note shows at most
PART_OF = 8  # characters of a Chinese run whose missing part is named at most: a longer one is a sentence, whose
# unmatched stretches ('我想知道', '里面的') would be noise
PASSAGES = 3  # passages read to find the word a stem stands for
RUN_PASSAGES = 20  # passages read to find what a Chinese run's missing stretch was meant to be
# Particles a Chinese suggestion does not put in a typed character's place: '治胃病良药' was offered 的药 for 良药
# (passages say 治胃病的药), a word read as two words and a particle, not a slip of the input method.
PARTICLES = frozenset("的了是在和与及或之")
# Particles that join words (X的Y), not part of one: a missing stretch is named without them at its ends, as a pair
# across one (月的 of 3月的周报, 的进 of 凤凰计划的进度) is in no passage though both of its characters are
JOINERS = frozenset("的之")


@dataclass
class Said:
    """The note, and each missing word as data: {"word": as typed, "suggestion": the word meant, or None when
    none was found or looked for (only the first CORRECTED correctable words are)}."""
    text: str
    unmatched: list[dict]


@dataclass
class _Word:
    shown: str  # as the query has it (folded)
    terms: list[str]  # what keyword search looks up: the word, or a CJK run's bigrams
    run: str = ""  # of a missing stretch of a Chinese run: the run, and where the stretch starts in it
    at: int = 0


def note(conn, query: str, postings: Postings | None, mode: str, collection: str | None = None,
         held: dict[str, list[str]] | None = None, quoted: set[str] | None = None,
         searched: dict[str, list[str]] | None = None, suggested: dict[str, str | None] | None = None
         ) -> Said | None:
    """A note naming the query's words that no published passage holds, with suggestions, and those words as
    data (every one, where the note names the first NAMED); None if every word is somewhere. ``postings``: the keyword postings in memory (None: FTS5 is asked); ``mode``: the mode that
    answered (keyword or hybrid), which says what the results are when no word matched; ``collection``: the one
    searched (None: all), whose files not read yet the note counts (another's first build is not this search's);
    ``held``: the query's held forms keyword search already looked up (``keyword.held_forms``), None to ask them;
    ``quoted``: the words the query as typed quotes (its framing taken out, ``query`` has lost its quotes), None to
    read them from ``query``; ``searched``: the words keyword search looked up as the word meant
    (``keyword.slip_forms``), which answer a query none of whose words is held, as the note then says;
    ``suggested``: {word: its suggestion} found over this same published index by earlier notes, read and added to
    (the caller empties it when the index changes): a pasted trace's words ('venv', 'nonetype') were looked up again
    for every trace, 10-25 ms a word. A question
    word or an auxiliary no passage holds is not named, unless quoted: 'what
    time does the ferry leave' said 'no passage contains 'what' … (did you mean 'that' for 'what' …?)'."""
    words = _words(query)
    vocabulary = _Vocabulary(conn, postings)
    tokens = vocabulary.tokens([t for w in words for t in w.terms])
    absent = [w for w in words if _absent(w, tokens, vocabulary)]
    if absent:  # 'ricerche' of a note saying 'ricerca', found by that form (``held_forms``)
        found = held if held is not None else held_forms(query, vocabulary.tokens_of, vocabulary.documents)
        absent = [w for w in absent if w.shown not in found]
    if absent:  # 'Absatz' of '§ 7 Absatz 1', found written '§ 7 Abs. 1' (search.query.references): held that way
        other = other_parts(query)
        absent = [w for w in absent if w.shown not in other or not vocabulary.holds_word(other[w.shown])]
    if absent and DOI_LINK.search(query):  # 'org' of 'https://doi.org/10.…': the DOI is what is looked up
        linked = {word for found in DOI_LINK.finditer(query) for word in WORD.findall(normalise(found.group()))}
        absent = [w for w in absent if w.shown not in linked]
    if absent and (labels := label_names(query)):  # 'Fig' of 'Fig. 3', found as 'Figure 3' (search.query.references)
        others = vocabulary.tokens(list(labels.values()))
        absent = [w for w in absent if w.shown not in labels
                  or not any(vocabulary.holds(t) for t in others.get(labels[w.shown], [])[:1])]
    quoted = quoted_words(query) if quoted is None else quoted
    framing = [w for w in absent  # nothing to say
               if w.shown in FRAMING | FUNCTION | STOPWORDS and w.shown not in quoted]
    missing = [part for w in words if w not in framing
               for part in ([w] if w in absent else _missing_parts(w, tokens, vocabulary))]
    if not missing:
        return None
    named = missing[:NAMED]
    suggested = {} if suggested is None else suggested
    suggestions = {w.shown: _suggest_chinese(w, vocabulary) if w.run else _suggested(w.shown, vocabulary, suggested)
                   for w in [w for w in named if w.run or _correctable(w)][:CORRECTED]}
    for word, found in suggestions.items():  # two slips away ('deflaut'): keyword search found what was meant, the
        if not found and (searched or {}).get(word):  # note's look-up (one edit from the word or its stem) not
            suggestions[word] = searched[word][0]
    none_held = len(absent) == len(words)
    # 'defualt' alone: the results are those for 'default', no longer none (or by meaning only)
    meant = [_searched_as(searched[w.shown][0], suggestions.get(w.shown), vocabulary) for w in absent
             if w.shown in (searched or {})]
    text = _say(named, len(missing) - len(named), suggestions, none_held and not meant, mode, query,
                progress_reads.not_read_yet(conn, collection), meant if none_held else [])
    return Said(text, [{"word": _spelled([query], w.shown), "suggestion": suggestions.get(w.shown)} for w in missing])


def _searched_as(form: str, suggestion: str | None, vocabulary: _Vocabulary) -> str:
    """The word keyword search looked up in place of a query's (``form``), as the note names it: the suggestion,
    as the passages write it ('Kubernetes' for 'kubernetes'), when it is the same word to the index."""
    if suggestion and suggestion != form and len(set(vocabulary.tokens([form, normalise(suggestion)]).values())) > 1:
        return form
    return suggestion or form


class _Vocabulary:
    """The published index's terms: from the postings in memory, or from FTS5 while they are read (or never)."""

    def __init__(self, conn, postings: Postings | None):
        self.conn, self.postings = conn, postings
        self._scratch = False  # make_scratch done: holds() is asked of thousands of variants, three statements each
        self._counts = TermCounts(conn)  # FTS5's vocabulary, counted once a term

    def _instances(self) -> None:
        """Make the connection's ``INSTANCES`` table, once for this check."""
        if not self._scratch:
            keyword_reads.make_scratch(self.conn, COLUMNS)
            self._scratch = True

    def tokens(self, words: list[str]) -> dict[str, tuple[str, ...]]:
        words = list(dict.fromkeys(words))
        found = self.postings.tokens(self.conn, words) if self.postings is not None else tokenize(self.conn, words)
        return dict(zip(words, found))

    def tokens_of(self, words: list[str]) -> list[tuple[str, ...]]:
        """``tokens`` as a list, each word's in its place (``keyword.held_forms`` asks so): asked once, not once a
        word (tokenizing all the words again for each)."""
        found = self.tokens(words)
        return [found[word] for word in words]

    def holds(self, term: str) -> bool:
        """Whether a published passage holds ``term``."""
        if self.postings is not None:
            return self.postings.holds(term)
        self._instances()
        return keyword_reads.term_published(self.conn, term)

    def holds_word(self, word: str) -> bool:
        """Whether a published passage holds ``word``, a word of one token."""
        found = self.tokens([word])[word]
        return len(found) == 1 and self.holds(found[0])

    def held(self, terms: list[str]) -> set[str]:
        """Those of ``terms`` a published passage holds. Without the postings, FTS5's vocabulary is asked for all of
        them in one statement (``TermCounts``), and only those some row holds are asked whether a published one
        does: a word's hundreds of variants were asked one by one, a statement each."""
        terms = list(dict.fromkeys(terms))
        if self.postings is None:
            terms = [term for term, n in counted(self._counts, terms).items() if n]
        return {term for term in terms if self.holds(term)}

    def holds_phrase(self, words: str) -> bool:
        """Whether a published passage holds ``words`` side by side (FTS5 is asked: the postings keep no places)."""
        return keyword_reads.phrase_published(self.conn, '"' + words.replace('"', '""') + '"')

    def documents(self, term: str) -> int:
        """How many passages hold ``term`` (from FTS5: counted over every row, published or not)."""
        if self.postings is not None:
            return self.postings.documents(term)
        return self._counts(term)

    def holding(self, expression: str, limit: int) -> list[str]:
        """The text of the ``limit`` published passages that match the FTS5 ``expression`` best."""
        ranked = keyword_reads.keyword_search(self.conn, expression, WEIGHTS, "", {}, limit)
        return [row["text"] for row in chunk_reads.hit_rows(self.conn, [cid for cid, _ in ranked])] if ranked else []

    def texts(self, term: str) -> list[str]:
        self._instances()
        return keyword_reads.term_texts(self.conn, term, PASSAGES)


def _words(query: str) -> list[_Word]:
    """The query's words as keyword search splits them, a CJK run kept whole: those whose terms are all among the
    MAX_TERMS it searches."""
    words, terms = [], set()
    # the year and day of a date the query writes, found by the date's other forms: '2024-03-08 会议' named '08' as held
    # nowhere in notes that write 3月8日 (``date_forms``)
    dated = {n for forms in date_forms(unicodedata.normalize("NFKC", query)).values() for form in forms
             for n in form.split() if n.isdigit()}
    for shown, its in query_pieces(query):
        if shown in dated:
            continue
        terms.update(t for t in its if t in shown)  # as written: keyword search looks the other script's up last
        if len(terms) > MAX_TERMS:
            break
        words.append(_Word(shown, its))
    return words


def _absent(word: _Word, tokens: dict, vocabulary: _Vocabulary) -> bool:
    """No term of the word is in a published passage (a word the tokenizer drops whole is not named): a term of
    one token held, or a term of several (a camelCase name's words, ``name_phrases``) held side by side: 'get' and
    'user' are somewhere in any code, 'getUser' is a typo unless some name holds them in a row."""
    held = [(term, tokens[term]) for term in word.terms if tokens[term]]
    return bool(held) and not any(vocabulary.holds(found[0]) if len(found) == 1 else vocabulary.holds_phrase(term)
                                  for term, found in held)


def _missing_parts(word: _Word, tokens: dict, vocabulary: _Vocabulary) -> list[_Word]:
    """The stretches of a Chinese (Japanese) run that no passage holds while others of it are held: 量子 of
    量子计算 in notes that say 计算 but never 量子. Keyword search matched the run by its pairs of characters, so
    the results held 计算 alone, and nothing said that 量子 was nowhere. A stretch is the characters no held pair
    touches (a pair is held in either script); a lone character is named only if it is in no passage either. Runs
    of up to PART_OF characters: a whole question typed without spaces is not picked apart."""
    run = word.shown
    if not 3 <= len(run) <= PART_OF or not CJK_RUN.fullmatch(run) or KATAKANA_WORD.fullmatch(run):
        return []  # a katakana word is looked up whole, not by its pairs
    forms = [run, *[form for form in other_scripts(run) if len(form) == len(run)]]

    def held(term: str) -> bool:
        found = tokens.get(term)
        if found is None:
            found = vocabulary.tokens([term])[term]
        return bool(found) and any(vocabulary.holds(token) for token in found)
    covered = [False] * len(run)
    for i in range(len(run) - 1):
        if any(held(form[i:i + 2]) for form in forms):
            covered[i] = covered[i + 1] = True
    parts, start = [], None
    for i, is_covered in enumerate([*covered, True]):
        if not is_covered and start is None:
            start = i
        elif is_covered and start is not None:
            end = i
            while start < end and run[start] in JOINERS:  # '２０２４年３月的周报' named 月的 as held nowhere
                start += 1
            while end > start and run[end - 1] in JOINERS:
                end -= 1
            stretch = run[start:end]
            if len(stretch) > 1 or stretch and not any(held(form[start]) for form in forms):
                parts.append(_Word(stretch, [stretch], run=run, at=start))
            start = None
    return parts


def _suggest_chinese(word: _Word, vocabulary: _Vocabulary) -> str | None:
    """What the passages write in place of ``word``, a missing stretch of a Chinese run, where they hold the run with
    one character of the stretch another (in either script): 布隆 for the 布龙 of 布龙过滤器, 穿透 for the 传透 of
    缓存传透. The stretch was named alone, though the passages said what was meant a character away. Read in the
    RUN_PASSAGES passages that hold most of the run's other pairs; the form most of them hold wins."""
    run, end = simplified(word.run), word.at + len(word.shown)
    pairs = [run[i:i + 2] for i in range(len(run) - 1) if not (word.at <= i and i + 1 < end)]
    held = [[f'"{form}"' for form in [pair, *other_scripts(pair)] if vocabulary.holds(form)] for pair in pairs]
    if not any(held):
        return None
    texts = vocabulary.holding(" AND ".join(f"({' OR '.join(forms)})" for forms in held if forms), RUN_PASSAGES)
    found: Counter = Counter()
    read = [(folded, simplified(folded)) for folded in map(normalise, texts)]  # once a passage, not once a character
    for i in range(word.at, end):
        pattern = re.compile(re.escape(run[:i]) + f"[{CJK_RANGES}]" + re.escape(run[i + 1:]))
        for folded, plain in read:
            for match in pattern.finditer(plain):  # one character for one: the spans agree
                stretch = folded[match.start() + word.at:match.start() + end]
                if simplified(stretch) != simplified(word.shown) and simplified(stretch[i - word.at]) not in PARTICLES:
                    found[stretch] += 1
    return max(found, key=lambda form: (found[form], form), default=None)


def _correctable(word: _Word) -> bool:
    return word.terms[:1] == [word.shown] and MIN_LETTERS <= len(word.shown) <= MAX_LETTERS and word.shown.isalpha() \
        and not CJK_RUN.search(word.shown)


def _suggested(word: str, vocabulary: _Vocabulary, suggested: dict[str, str | None]) -> str | None:
    """``_suggest``, read from ``suggested`` when an earlier note over the same index looked the word up."""
    if word not in suggested:
        suggested[word] = _suggest(word, vocabulary)
    return suggested[word]


def _suggest(word: str, vocabulary: _Vocabulary) -> str | None:
    """The indexed word ``word`` was probably meant to be (within one edit, two for a word of 6 letters or more)."""
    stems = _one_edit_stems(word, vocabulary)
    kept = {stem for stem, variants in stems.items() if any(_restores(word, v) for v in variants)}
    if not stems:
        stems, own = _two_edit_stems(word, vocabulary)
        kept = {stem for stem in stems if _restores(own, stem)}
    if not stems:
        return None
    best = max(sorted(stems), key=lambda stem: (stem in kept, vocabulary.documents(stem)))
    return _surface(word, best, stems[best], vocabulary)


def _one_edit_stems(word: str, vocabulary: _Vocabulary) -> dict[str, list[str]]:
    """{indexed stem: the variants of ``word`` one edit away that FTS5 stems to it}. With the postings in memory,
    only the variants whose stem could be a held term are tokenized (``stemmable``), through their cache."""
    variants = stemmable(_edits(word), vocabulary.postings)
    found = list(zip(variants, vocabulary.tokens_of(variants)))
    held = vocabulary.held([tokens[0] for _, tokens in found if len(tokens) == 1])
    stems: dict[str, list[str]] = {}
    for variant, tokens in found:
        if len(tokens) == 1 and tokens[0] in held:
            stems.setdefault(tokens[0], []).append(variant)
    return stems


def _two_edit_stems(word: str, vocabulary: _Vocabulary) -> tuple[dict[str, list[str]], str]:
    """({indexed stem: []} one edit away from ``word``'s own stem, that stem)."""
    own = tokenize(vocabulary.conn, [word])[0]
    if len(word) < 6 or len(own) != 1:
        return {}, ""
    return {stem: [] for stem in sorted(vocabulary.held(_edits(own[0])))}, own[0]


def _surface(word: str, stem: str, variants: list[str], vocabulary: _Vocabulary) -> str | None:
    """The word, among those of passages holding ``stem``, closest to ``word``, if it is near enough to be what was
    meant. Only a word a passage writes: a variant of ``word`` that merely stems alike is no word ('ouring' was
    offered for 'during', stemmed 'our'; 'sleepeing' for 'sleeeping', stemmed 'sleep'). A word typed with letters
    beyond a-z (ä, é, ñ) is offered only a passage's word that has them: the index folds accents, and a passage's
    word without the accent was nonsense for a word of another language ('still' for the Swedish 'ställ')."""
    texts = vocabulary.texts(stem)
    seen = _passage_forms(vocabulary.conn, stem, texts)
    accents = {c for c in word if c not in ALPHABET}
    if accents:
        seen = {form for form in seen if accents <= set(form)}
    best = min(seen, key=lambda form: (_distance(word, form), form), default=None)
    if best is None or _distance(word, best) > (1 if len(word) < 6 else 2):
        # the stem itself, a letter restored ('connec' for 'connect'), which no passage writes alone: the shortest
        # word of the passages it begins ('connected'), as they write it
        best = None if stem not in variants or not _restores(word, stem) else \
            min((form for form in seen if form.startswith(stem)), key=lambda form: (len(form), form), default=None)
    return _spelled(texts, best) if best else None


def as_named(query: str, words: list[str]) -> list[str]:
    """``words`` (folded, as query_pieces gives them) as a note names them: as typed, quoted and cut short, the
    first NAMED of them and then how many more."""
    shown = [_quoted(_spelled([query], w)) for w in words[:NAMED]]
    return shown + ([f"{len(words) - NAMED} more"] if len(words) > NAMED else [])


def _say(named: list[_Word], more: int, suggestions: dict[str, str | None], none_matched: bool, mode: str,
         query: str, unread: int = 0, instead: list[str] = ()) -> str:
    """The note; ``unread``: files a first build in parts has not read yet (workers.tasks.first_part), where a
    word no passage holds may well be: the note said 'no passage contains' and offered a near word as the fix for a
    word that was in a file of the next part, as final as once every file is read. ``instead``: the words searched
    in place of those of a query none of whose words is held ('default' for 'defualt')."""
    def typed(word: str) -> str:
        return _quoted(_path_typed(query, word))
    names = [typed(w.shown) for w in named] + ([f"{more} more"] if more else [])
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    offered = [(w.shown, suggestions.get(w.shown)) for w in named if suggestions.get(w.shown)]
    if unread:
        text = (f"no passage read so far contains {listed}, but {count(unread, 'file')} "
                f"{'is' if unread == 1 else 'are'} not read yet (a first build in parts), which may hold "
                f"{'it' if len(names) == 1 else 'them'}")
        if offered:
            text += f"; near words read so far: {', '.join(f'{_quoted(s)} for {typed(w)}' for w, s in offered)}"
    elif offered and len(offered) == len(named) and not more:
        text = f"no passage contains {listed} (did you mean {', '.join(_quoted(s) for _, s in offered)}?)"
    elif offered:
        meant = ", ".join(f"{_quoted(s)} for {typed(w)}" for w, s in offered)
        text = f"no passage contains {listed} (did you mean {meant}?)"
    else:
        text = f"no passage contains {listed}"
    if none_matched and mode == "hybrid":  # keyword search says 'no passages match' on its own
        text += f"; {BY_MEANING}"
    if instead:
        text += f"; searched for {', '.join(map(_quoted, instead))} in {'its' if len(instead) == 1 else 'their'} place"
    return text


# a stretch of the query without spaces, quotes or brackets: where a path the query types lies whole
UNSPACED = re.compile(r"[^\s'\"`()\[\]{},;]+")


def _path_typed(query: str, word: str) -> str:
    """``word`` as the query types it (``_spelled``); a path ('etc/nginx/sites-enabled', as keyword search splits
    it) with what the query writes around it, '/etc/nginx/sites-enabled', '~/.ssh/config': the note named it without
    its leading slash, not as typed."""
    spelled = _spelled([query], word)
    if "/" not in word:
        return spelled
    return next((found.group(0).rstrip(".:?!") for found in UNSPACED.finditer(query) if spelled in found.group(0)),
                spelled)


def _quoted(word: str) -> str:
    """The word in quotes, cut at SHOWN characters: a query may hold a word of thousands (a pasted hash or blob),
    which the note repeated whole."""
    return f"'{word}'" if len(word) <= SHOWN else f"'{word[:SHOWN - 1]}…'"


def _spelled(texts: list[str], word: str) -> str:
    """``word`` (folded to lower case) as ``texts`` spell it most often, lower case on a tie ('getElementById',
    'Qumei', 'deployment'), so that the note names an identifier or a name as it is written, not folded
    ('getelementbyid'); as is when they do not have it (normalised otherwise)."""
    pattern = re.compile(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", re.IGNORECASE)
    found = Counter(m.group(0) for text in texts for m in pattern.finditer(text))
    if not found:  # folded by more than case: 'ＫＵＢＥＲＮＥＴＳ' (full width), 'Straße' (strasse), 'İstanbul'
        found = Counter(piece for text in texts for token in WORD.findall(text) for piece in split_scripts(token)
                        if normalise(piece) == word)
    return max(found, key=lambda form: (found[form], form == word), default=word)
