"""References a query writes as one thing: a clause number ('12.3(b)', '13.2.3'), a statute's paragraph ('§ 5 Abs. 2',
'Art. 6 Abs. 1 lit. f'), a file number ('VI ZR 123/19', '312 O 45/26'), a neutral citation ('[2019] UKSC 12'), a
paper's table, figure or equation ('Table 2', 'Fig. 3b': as 'Figure 3b' too).

Keyword search ORs a query's words, and drops those in over a quarter of the passages: the pieces of such a
reference are numbers and single letters ('3', 'b', '2'), common in any folder of contracts, so 'Section 12.3(b)'
ranked every passage saying 'section' and '12' above the one that writes 'Section 12.3(b)'. Each reference is
searched as a phrase too (its words in a row, as FTS5 reads a phrase), beside its words: the passage that writes
it ranks first, and one that writes its words apart still ranks by them."""
from __future__ import annotations

import re

_CLAUSE = r"\d+(?:[./:]\d+[a-z]?)+(?:\s?\([a-z0-9]{1,4}\))*|\d+[a-z]?\s?\([a-z0-9]{1,4}\)(?:\s?\([a-z0-9]{1,4}\))*"
# a statute's parts, written short or long: a statute is cited either way ('§ 7 Abs. 1', '§ 7 Absatz 1')
SHORT = {"absatz": "abs", "satz": "s", "nummer": "nr", "buchstabe": "lit", "buchst": "lit", "ziffer": "ziff",
         "unterabsatz": "unterabs", "halbsatz": "hs"}
LONG = {"abs": "absatz", "s": "satz", "nr": "nummer", "lit": "buchstabe", "buchst": "buchstabe", "ziff": "ziffer",
        "unterabs": "unterabsatz", "hs": "halbsatz"}
_PART = rf"(?:{'|'.join(sorted({*SHORT, *LONG, 'alt'}, key=len, reverse=True))})(?![a-z])\.?"
_STATUTE = rf"(?:§§?|art\.?|artikel)\s*\d+[a-z]?(?:\s*{_PART}\s*[0-9a-z]{{1,4}}\b)+"
_FILE_NUMBER = r"\b(?:[ivxlc]+|\d+)\s+[a-z]{1,4}\s+\d+/\d{2,4}\b"
# a paper's table, figure or equation by its number ('Table 2', 'Fig. 3b', 'Supplementary Table S1', 'Eq. 4'), written
# short or long: a paper writes 'Fig. 3' where one asks for 'Figure 3'
LABELS = {"tab": "table", "table": "tab", "fig": "figure", "figure": "fig", "eq": "equation", "equation": "eq"}
_LABEL = r"\b(?:table|tab\.|figure|fig\.|equation|eq\.)\s*s?\d+(?:\.\d+)*[a-z]?(?![\w/-])"
_NEUTRAL = r"\[\d{4}\]\s+[a-z]{2,6}(?:\s+(?:civ|crim|admin|comm|ch|qb|kb|fam|tcc|pat))?\s+\d+\b"
# a clause number stands alone: not the start of a longer name FTS5 searches whole, a DOI's 10.18653 of 10.18653/v1/N19-1423
# (a phrase every DOI of its publisher holds), a path's or a version's
REFERENCE = re.compile(rf"(?P<statute>{_STATUTE})|(?P<label>{_LABEL})|{_NEUTRAL}|{_FILE_NUMBER}"
                       rf"|(?<![\w./:-])(?:{_CLAUSE})(?![\w/-])", re.IGNORECASE)
_WORD = re.compile(r"\w+")
LABEL = re.compile(_LABEL, re.IGNORECASE)


def _part_places(words: list[str]) -> range:
    """Where a statute's words (``_STATUTE``: its sign or 'Art', its number, then each part's name and its number
    or letter) name a part: every other word after the number. A part's letter is no part: 'lit. s' is the letter
    s, which was searched as 'satz' too ('Art. 6 Abs. 1 lit. s' also as 'buchstabe satz')."""
    number = next(i for i, w in enumerate(words) if w[0].isdigit())
    return range(number + 1, len(words), 2)


def phrases(query: str) -> list[str]:
    """The references of ``query``, each as its words joined by spaces (an FTS5 phrase of them): of two words
    or more. '§ 5 Abs. 2' is '5 Abs 2' (the sign is no word to FTS5) and '5 absatz 2', 'Section 12.3(b)' is
    '12 3 b'."""
    found = []
    for match in REFERENCE.finditer(query):
        words = _WORD.findall(match.group())
        forms = [words]
        if match.group("statute"):  # and with its parts written the other way: 'Abs' as 'Absatz', and back
            parts = _part_places(words)
            forms += [[table.get(w.lower(), w) if i in parts else w for i, w in enumerate(words)]
                      for table in (SHORT, LONG)]
        if match.group("label"):  # and its name written the other way: 'Fig' as 'Figure', and back
            forms.append([LABELS[words[0].lower()], *words[1:]])
        for form in forms:
            if len(form) > 1 and (phrase := " ".join(form)) not in found:
                found.append(phrase)
    return found


def other_parts(query: str) -> dict[str, str]:
    """{a statute's part as ``query`` writes it: as it is written the other way} ('§ 7 Absatz 1': {'absatz': 'abs'}),
    lowercased: what the spelling note does not name as held nowhere when the other form is held."""
    other = {}
    for match in REFERENCE.finditer(query):
        if match.group("statute"):
            words = _WORD.findall(match.group())
            for word in (words[i] for i in _part_places(words)):
                form = SHORT.get(word.lower()) or LONG.get(word.lower())
                if form:
                    other[word.lower()] = form
    return other


def searched(query: str) -> list[str]:
    """``phrases`` as keyword search adds them: each as many times as it has words, so a passage writing the
    reference outranks one holding its words apart ('§ 7 Absatz 1': a passage saying 'Absatz' twice, '7' and '1'
    came before the one citing '§ 7 Abs. 1', the phrase counting as one rare word)."""
    return [phrase for phrase in phrases(query) for _ in phrase.split()]


def label_names(query: str) -> dict[str, str]:
    """{the name of a table, figure or equation the query writes, folded: its other form} ('fig': 'figure' of
    'Fig. 3'), the name searched both ways (``phrases``)."""
    return {name: LABELS[name] for found in LABEL.finditer(query)
            if (name := _WORD.match(found.group()).group().lower())}
