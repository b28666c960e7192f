"""Other forms of a Russian query word, as keyword search looks it up.

The keyword index stems words with Porter's English rules, which leave Cyrillic alone: 'поиска' and 'поиском' are
three terms with 'поиск', and a note saying 'Поиск по документам' was not found by 'поиска по документам'. A
Russian query word is looked up in the forms its stem takes (``russian_forms``): the word's ending is cut off
(the longest of the endings a noun or an adjective takes, leaving three letters or more) and each ending of
its kind put on the stem; a form that no note holds costs a term and finds nothing. ё is е in the index
(``fold_yo``), as most Russian text is typed, so 'еще' finds 'ещё' and 'ёлка' 'елка'.
"""
from __future__ import annotations

import re

CYRILLIC_WORD = re.compile("[\u0430-\u044f\u0451]+")  # a folded Russian word: а to я, and ё

# The endings put on a stem, most used first: a long query's forms are cut at keyword.MAX_TERMS, the rarer first.
HARD = ("", "а", "ы", "и", "у", "е", "ом", "ов", "ам", "ах", "ами", "ой", "о")  # поиск, задача, окно
SOFT = ("ь", "я", "и", "ю", "е", "ем", "ей", "ям", "ях", "ями", "ью", "ев")  # пользователь, очередь, неделя
NEUTER = ("ие", "ия", "ий", "ии", "ию", "ием", "иям", "иях", "иями")  # собеседование, собеседования, собеседований
ADJECTIVE = ("ый", "ая", "ое", "ые", "ого", "ой", "ую", "ых", "ым", "ом", "ому", "ыми")  # полнотекстовый
SOFT_ADJECTIVE = ("ий", "яя", "ее", "ие", "его", "ей", "юю", "их", "им", "ем", "ему", "ими")  # синий, последний
VERB = ("ть", "л", "ла", "ли", "ло", "ться", "лся", "лась", "лись")  # the infinitive and the past: the present varies
_SOFT_ONLY = ("ь", "я", "ю", "ем", "ей", "ям", "ях", "ями", "ью", "ев")
# (the endings a word of the kind takes, the endings that say a word is of it), tried in turn
_KINDS = ((VERB, ("ться", "ть")), (ADJECTIVE, ("ый", "ая", "ое", "ые", "ого", "ому", "ую", "ых", "ым", "ыми")),
          (SOFT_ADJECTIVE, ("яя", "ее", "его", "ему", "юю", "ими")), (NEUTER, NEUTER), (SOFT, _SOFT_ONLY),
          (HARD + SOFT, ("е", "и")), (HARD, HARD))  # неделе, задачи, очереди: either kind
_HUSHED_ADJECTIVE = re.compile("[гкхжшщч]ий$")  # русский, немецкий, хороший: not собеседований
# after г, к, х and ж, ш, щ, ч Russian writes и, а, у where ы, я, ю would be (задачи, ошибки)
_SPELLING = {"ы": "и", "я": "а", "ю": "у"}
_HUSHING = set("гкхжшщч")
MIN_STEM = 3  # 'пул' keeps its letters: a shorter stem's forms would be other words
# Words too common or too short to have forms worth a term (NLTK's and Snowball's Russian stop words, the most used)
STOP_WORDS = frozenset(
    "и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот от меня "
    "еще нет о из ему теперь когда даже ну ли если уже или ни быть был него до вас там потом себя ей может они тут "
    "где есть надо ней для мы тебя их чем была сам без чего раз тоже себе под будет тогда кто этот того потому "
    "этого какой ним здесь этом один мой тем чтобы нее сейчас были куда всех можно при два об другой после над "
    "больше тот через эти нас про всего них какая много три эту моя свою этой перед том такой им более всю между "
    "это как также который которые".split())


def fold_yo(text: str) -> str:
    """``text`` with ё as е (folded text: no capitals), as the index holds it."""
    return text.replace("ё", "е")


def russian_forms(word: str) -> list[str]:
    """Forms of the folded Russian ``word`` keyword search looks it up by besides the word itself: its е for ё
    first, then the forms of its stem ('поиска' gives 'поиск', 'поиску', 'поиском' …; 'полнотекстовым' gives
    'полнотекстовый', 'полнотекстовая' …). A word of other letters gives []."""
    if not CYRILLIC_WORD.fullmatch(word):
        return []
    if fold_yo(word) in STOP_WORDS:
        return [fold_yo(word)] if "ё" in word else []
    plain = fold_yo(word)
    found = [plain]
    kinds = ((ADJECTIVE, ("ий",)),) if _HUSHED_ADJECTIVE.search(plain) else _KINDS
    for endings, cut in kinds:
        ending = max((e for e in cut if plain.endswith(e) and len(plain) - len(e) >= MIN_STEM), key=len, default=None)
        if ending is None:
            continue
        stem = plain[:len(plain) - len(ending)]
        found += [stem + (_SPELLING.get(e[:1], e[:1]) + e[1:] if stem[-1] in _HUSHING else e) for e in endings]
        break
    return [form for form in dict.fromkeys(found) if form != word]
