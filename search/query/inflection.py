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
import unicodedata

CYRILLIC_WORD = re.compile("[\u0430-\u044f\u0451]+")  # a folded Russian word: а to я, and ё

# The endings put on a stem, most used first: a long query's forms are cut at keyword.MAX_TERMS, the rarer first.
HARD = ("", "а", "ы", "и", "у", "е", "ом", "ов", "ам", "ах", "ами", "ой", "о")  # поиск, задача, окно
SOFT = ("ь", "я", "и", "ю", "е", "ем", "ей", "ям", "ях", "ями", "ью", "ев")  # пользователь, очередь, неделя
NEUTER = ("ие", "ия", "ий", "ии", "ию", "ием", "иям", "иях", "иями")  # собеседование, собеседования, собеседований
ADJECTIVE = ("ый", "ая", "ое", "ые", "ого", "ой", "ую", "ых", "ым", "ом", "ому", "ыми")  # полнотекстовый
SOFT_ADJECTIVE = ("ий", "яя", "ее", "ие", "его", "ей", "юю", "их", "им", "ем", "ему", "ими")  # синий, последний
FEMININE_SOFT = ("ь", "и", "ью", "ей", "ям", "ях", "ями")  # безопасность, безопасности: the nouns of -ость
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


# A surname of -ов, -ев, -ин (Иванов, Сергеев, Пушкин): declined as one, its -ов kept; a noun's -ом, -ов … too, as a
# capitalised word may be a place or the query's first word (Берлином, Магазинов)
SURNAME = ("", "а", "у", "ым", "е", "ой", "ы", "ых", "ыми", "ом", "ов", "ам", "ах", "ами")
_SURNAME = re.compile("[\u0410-\u042f\u0401][\u0430-\u044f\u0451]{2,}(?:ов|ев|ёв|ин|ын)")


def surnames(query: str) -> frozenset[str]:
    """The folded words of ``query`` (as typed, not folded) that are surnames: of -ов, -ев, -ин, written with a
    capital ('Иванов', not 'договоров'). As a noun, 'Иванов' was looked up as 'иван', 'ивана' …: its first name's."""
    return frozenset(fold_yo(m.group().casefold()) for m in _SURNAME.finditer(query)
                     if not query[m.end():m.end() + 1].isalpha())


def _fleeting(stem: str, ending: str) -> list[str]:
    """The forms of a noun's ``stem`` whose vowel comes and goes (``russian_forms``): 'ошибок' of 'ошибка', 'ошибка' …
    of 'ошибок'; 'рынок', 'рынка'; 'образец', 'образца'. Only о and е before к and ц: not 'сосна' (сосен), 'день'."""
    if not ending and len(stem) > MIN_STEM + 1 and re.search("[^аеёиоуыэюяйь][оеё][кц]$", stem):
        bare = stem[:-2] + stem[-1]  # ошибок: ошибк-
        return [bare + (_SPELLING.get(e[:1], e[:1]) + e[1:]) for e in HARD if e]
    if ending and re.search("[^аеёиоуыэюяь][кц]$", stem):  # ошибк-а: ошибок; копейк-а: копеек; отц-а: отец
        vowel = "е" if stem[-1] == "ц" or stem[-2] in "жшщчй" else "о"
        return [(stem[:-2] if stem[-2] == "й" else stem[:-1]) + vowel + stem[-1]]
    return []


def russian_forms(word: str, surname: bool = False) -> list[str]:
    """Forms of the folded Russian ``word`` keyword search looks it up by besides the word itself: its е for ё
    first, then the forms of its stem ('поиска' gives 'поиск', 'поиску', 'поиском' …; 'полнотекстовым' gives
    'полнотекстовый', 'полнотекстовая' …), and of a noun whose vowel comes and goes ('ошибок' for 'ошибка'). A
    ``surname`` (``surnames``) keeps its -ов: 'иванов' gives 'иванова', 'ивановым' …. A word of other letters
    gives []."""
    if not CYRILLIC_WORD.fullmatch(word):
        return []
    if fold_yo(word) in STOP_WORDS:
        return [fold_yo(word)] if "ё" in word else []
    plain = fold_yo(word)
    found = [plain]
    if surname:
        return [form for form in dict.fromkeys(found + [plain + e for e in SURNAME]) if form != word]
    kinds = ((ADJECTIVE, ("ий",)),) if _HUSHED_ADJECTIVE.search(plain) else \
        ((FEMININE_SOFT, ("ь",)),) if plain.endswith("ость") else _KINDS  # a noun, no verb's -ть: новость, скорость
    for endings, cut in kinds:
        ending = max((e for e in cut if plain.endswith(e) and len(plain) - len(e) >= MIN_STEM), key=len, default=None)
        if ending is None:
            continue
        stem = plain[:len(plain) - len(ending)]
        found += [stem + (_SPELLING.get(e[:1], e[:1]) + e[1:] if stem[-1] in _HUSHING else e) for e in endings]
        found += _fleeting(stem, ending) if endings in (HARD, HARD + SOFT) else []
        break
    return [form for form in dict.fromkeys(found) if form != word]


# Latin-script languages: Porter's English rules find 'recherche' for 'recherches' and 'búsqueda' for 'búsquedas' by
# chance, but not 'ricerca' for 'ricerche', 'Rechnungen' for 'Rechnung' nor 'pesquisa' for 'pesquisar'. Their forms
# are added only to a query that shows its language, by a letter of it or a word no English query writes
# (``query_languages``): an English word given an Italian or German ending ('data' as 'date', 'taken' as 'take') is
# another English word, and English queries are searched as before.
_LETTERS = {"ä": "de", "ö": "de", "ü": "de", "ß": "de", "ñ": "es", "ã": "pt", "õ": "pt", "ç": "pt",
            "ì": "it", "ò": "it", "ù": "it", "è": "it", "à": "it pt", "é": "es it pt", "á": "es pt", "í": "es pt it",
            "ó": "es pt it", "ú": "es pt it", "ê": "pt", "ô": "pt", "â": "pt"}
_FUNCTION_WORDS = {  # not those an English text writes too: il (IL-6), non, von (von Willebrand), los, com, os, em
    "de": "der das dem und mit für fuer nicht ist ein eine einen auf wie zum zur über ueber",
    "es": "el del por una qué cómo como está están sobre entre",
    "it": "gli della delle degli dei nel nella nei alla alle che sono una del",
    "pt": "das dos não uma pela pelo são",
}
_WORDS = {word: language for language, words in _FUNCTION_WORDS.items() for word in words.split()}
# word endings no English word of six letters or more has: Rechnung, Sicherheit, Wissenschaft; fatturazione
_SHAPES = (("de", re.compile(r"^[a-zß\u00e0-\u00ff]{3,}(?:ung|ungen|heit|keit|schaft)$")),
           ("it", re.compile(r"^[a-z\u00e0-\u00ff]{2,}(?:zione|zioni)$")))
# Italian, Spanish, Portuguese number and gender (an -s plural Porter's rules find already)
_ROMANCE_NOUN = {"es": ("a", "o", "e"), "pt": ("a", "o", "e"), "it": ("a", "o", "e", "i")}
_ROMANCE_CUT = ("a", "o", "e", "i", "as", "os", "es")
# a verb's infinitive, participles and its noun of action: contratar, contratado, contratação (indexed contratacao)
_ROMANCE_VERB = {"es": ("ar", "ado", "ada", "ando", "acion", "aciones"), "pt": ("ar", "ado", "ada", "ando", "acao", "acoes"),
                 "it": ("are", "ato", "ata", "ati", "ando", "azione", "azioni")}
_GERMAN = ("e", "en", "er", "es", "t", "te", "ten")  # Rechnung(en), Kollege(n), such(en, t, te); -s Porter finds
_GERMAN_CUT = ("en", "er", "es", "e", "n", "s", "t", "te", "ten", "st")
_GERMAN_VERB = ("en", "t", "te", "ten", "st")  # a verb's: its participle ge-…-t too (suchen, gesucht)
_LATIN_WORD = re.compile("[a-zß\u00e0-\u00ff]+")
# Words an English query writes with their accent, whose letter says no language of the query's: 'café opening date'
# was looked up as Spanish, Italian and Portuguese too, 'date' as 'data', 'dato' … (an English note's data matched)
_ENGLISH_LOANWORDS = frozenset(
    "café cafés résumé résumés cliché clichés fiancé fiancée naïve déjà touché protégé entrée entrées décor soufflé "
    "pokémon rosé sauté purée exposé passé façade façades jalapeño jalapeños piñata piñatas crème brûlée".split())
MIN_LATIN_STEM = 4  # 'casa' as 'cas-', not 'per' as 'p-'
# the languages a query that shows none is looked up in, for a word no passage holds (keyword.held_forms)
GUESSED = frozenset({"de", "es", "it", "pt"})


def query_languages(query: str) -> frozenset[str]:
    """The Latin-script languages a folded ``query`` shows (of German, Spanish, Italian, Portuguese): a letter only
    they write (ä, ñ, ã, ò …), a word only they write (der, und, el, los, il, della, não …) or a word's ending
    (Rechnung, Sicherheit; fatturazione)."""
    words = _LATIN_WORD.findall(query)
    lettered = " ".join(word for word in words if word not in _ENGLISH_LOANWORDS)
    found = {language for char, languages in _LETTERS.items() if char in lettered for language in languages.split()}
    found.update(_WORDS[word] for word in words if word in _WORDS)
    found.update(language for word in words for language, shape in _SHAPES if shape.match(word))
    return frozenset(found)


def _bare(word: str) -> str:
    """``word`` without accents (ß kept), as the index holds it (unicode61's remove_diacritics)."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not "\u0300" <= c <= "\u036f")


# German strong verbs (infinitive, past, participle), the most written: 'gefunden' shares no stem with 'finden', nor
# 'schrieb' with 'schreiben'; with a prefix too ('aufgeschrieben', 'beschrieben', 'erfand'). Not: the present's
# vowel change (spricht, nimmt, fährt), and verbs not listed.
_STRONG = [row.split() for row in (
    "finden fand gefunden;schreiben schrieb geschrieben;sprechen sprach gesprochen;nehmen nahm genommen;"
    "geben gab gegeben;gehen ging gegangen;stehen stand gestanden;kommen kam gekommen;helfen half geholfen;"
    "treffen traf getroffen;werfen warf geworfen;beginnen begann begonnen;bitten bat gebeten;sitzen saß gesessen;"
    "liegen lag gelegen;ziehen zog gezogen;schließen schloss geschlossen;fahren fuhr gefahren;tragen trug getragen;"
    "halten hielt gehalten;lassen ließ gelassen;rufen rief gerufen;fallen fiel gefallen;bleiben blieb geblieben;"
    "steigen stieg gestiegen;greifen griff gegriffen;verlieren verlor verloren;bringen brachte gebracht;"
    "denken dachte gedacht;wissen wusste gewusst;senden sandte gesandt;laufen lief gelaufen;lesen las gelesen;"
    "sehen sah gesehen;schieben schob geschoben;werden wurde geworden;trinken trank getrunken;singen sang gesungen;"
    "springen sprang gesprungen;gewinnen gewann gewonnen;schlagen schlug geschlagen;waschen wusch gewaschen;"
    "laden lud geladen;weisen wies gewiesen;scheiden schied geschieden;streichen strich gestrichen;"
    "binden band gebunden;bieten bot geboten;fliegen flog geflogen;fließen floss geflossen;frieren fror gefroren;"
    "heben hob gehoben;leiden litt gelitten;reiten ritt geritten;schneiden schnitt geschnitten;stehlen stahl gestohlen;"
    "sterben starb gestorben;tun tat getan;vergessen vergaß vergessen;wachsen wuchs gewachsen;"
    "essen aß gegessen;messen maß gemessen;brechen brach gebrochen;"
    "erschrecken erschrak erschrocken;gelten galt gegolten;empfehlen empfahl empfohlen;stoßen stieß gestoßen").split(";")]
# a verb's prefixes: the participle of one that is no syllable of its own keeps its ge- (aufgeschrieben), the
# others take none (beschrieben, vergessen)
_SEPARABLE = ("ab", "an", "auf", "aus", "bei", "ein", "mit", "nach", "vor", "weg", "zu", "zurück", "fest", "los",
              "her", "hin", "hoch", "fern", "statt", "wieder", "zusammen")
_INSEPARABLE = ("be", "emp", "ent", "er", "miss", "ver", "zer", "über", "unter", "durch", "um", "hinter")


def _strong_forms(bare: str) -> list[str]:
    """A German strong verb's other forms (``_STRONG``), with the prefix ``bare`` has: 'gefunden' gives 'finden',
    'fand', 'fanden'; 'aufgeschrieben' 'aufschreiben', 'aufschrieb' …"""
    for infinitive, past, participle in _STRONG:
        plural = past + ("n" if past.endswith("e") else "en")
        plain = participle[2:] if participle.startswith("ge") else participle
        for form in sorted({infinitive, past, plural, participle, plain}, key=len, reverse=True):
            prefix = bare[:len(bare) - len(form)]
            if bare.endswith(form) and (prefix in ("",) + _SEPARABLE + _INSEPARABLE) and \
                    (form in (infinitive, past, plural, participle) or prefix in _INSEPARABLE):
                done = prefix + (participle if prefix not in _INSEPARABLE else plain)
                return [prefix + infinitive, prefix + past, prefix + plural, done]
    return []


# Spanish: a stem's ue and ie where the infinitive has o and e (prueba, probar; encuentro, encontrar; piensa, pensar),
# c and g written qu and gu before e (busque, buscar; pague, pagar), and nouns of a verb the rules miss
_SPANISH_NOUNS = {"busqueda": "buscar", "busquedas": "buscar", "perdida": "perder", "perdidas": "perder",
                  "venta": "vender", "ventas": "vender", "respuesta": "responder", "respuestas": "responder",
                  "salida": "salir", "salidas": "salir", "vuelta": "volver", "vueltas": "volver"}
_SPANISH_VERBS = {}
for _noun, _verb in _SPANISH_NOUNS.items():
    _SPANISH_VERBS.setdefault(_verb, []).append(_noun)


def _spanish_forms(bare: str, stem: str) -> list[str]:
    """Spanish forms of ``bare`` (its ``stem``: the word without its ending) the endings alone do not give."""
    found = [_SPANISH_NOUNS[bare]] if bare in _SPANISH_NOUNS else list(_SPANISH_VERBS.get(bare, []))
    if stem.endswith(("qu", "gu")):  # busqu-e: busc-ar; pagu-e: pag-ar
        found += [stem[:-2] + ("c" if stem[-2] == "q" else "g") + e for e in ("a", "o", "ar", "ado")]
    plain = re.sub("(?<![qg])ue(?=[^aeiou]+$)", "o", stem)  # prueb-a: prob-ar; encuentr-o: encontr-ar
    plain = re.sub("ie(?=[^aeiou]+$)", "e", plain)  # piens-a: pens-ar; cierr-e: cerr-ar
    if plain != stem:
        found += [plain + e for e in ("ar", "er", "ir", "ado", "ido")]
    return found


def latin_forms(word: str, languages: frozenset[str]) -> list[str]:
    """Forms of the folded ``word`` in the ``languages`` of its query (``query_languages``), besides the word:
    'ricerche' gives 'ricerca' (Italian), 'rechnung' 'rechnungen' (German), 'pesquisar' 'pesquisa' (Portuguese)."""
    if not languages or not _LATIN_WORD.fullmatch(word) or word in _WORDS:
        return []
    bare = _bare(word)
    found: list[str] = []
    if "de" in languages:
        ending = max((e for e in _GERMAN_CUT if bare.endswith(e) and len(bare) - len(e) >= MIN_LATIN_STEM - 1),
                     key=len, default="")
        stem = bare[:len(bare) - len(ending)]
        found += [stem, *(stem + e for e in _GERMAN), *([stem + "n"] if stem.endswith(("el", "er")) else []),
                  *(["ge" + stem + "t"] if ending in _GERMAN_VERB else []), *_strong_forms(bare)]
    for language in sorted(languages & {"es", "it", "pt"}):
        ending = max((e for e in _ROMANCE_CUT + _ROMANCE_VERB[language] + ("he", "hi", "hes")
                      if bare.endswith(e) and len(bare) - len(e) >= MIN_LATIN_STEM - 1), key=len, default="")
        stem = bare[:len(bare) - len(ending)]
        if language == "it" and stem.endswith(("ch", "gh")):  # ricerche, ricerchi: ricerc-
            stem = stem[:-1]
        found += [stem + e for e in _ROMANCE_NOUN[language] + _ROMANCE_VERB[language]]
        if language == "it" and stem.endswith(("c", "g")):  # ricerca, ricerche
            found += [stem + "he", stem + "hi"]
        if language == "es":
            found += _spanish_forms(bare, stem)
    return [form for form in dict.fromkeys(found) if form not in (word, bare) and len(form) >= MIN_LATIN_STEM - 1]


# A German compound's parts, with the letters that join them (Rechnung-s-nummer, Kunde-n-liste, Apfel-kuchen)
_LINKS = ("", "s", "n", "en", "es")
MIN_PART = 4  # 'Auto', 'Haus'; not 'Ei', 'Tag'


def compounds(first: str, second: str) -> list[str]:
    """The German compounds two query words in a row make: 'rechnung', 'nummer' gives 'rechnungnummer',
    'rechnungsnummer' …"""
    if len(first) < MIN_PART or len(second) < MIN_PART:
        return []
    return [first + link + second for link in _LINKS]


# the endings of a German word an s joins to the next (Rechnung-s-nummer, Sicherheit-s-lücke, Religion-s-lehre)
_S_JOINED = ("ung", "heit", "keit", "schaft", "ion", "tat", "ling", "tum", "sicht")


def compound_parts(word: str, joined: bool = True) -> list[tuple[str, str]]:
    """The (first, second) words a German compound may be made of, each of MIN_PART letters or more, a joining s, n,
    en or es left out of the first: 'rechnungsnummer' gives … ('rechnung', 'nummer') …; ``joined`` (a query that
    shows German): with none too ('apfelkuchen': 'apfel', 'kuchen'), a joining es, and a joining s after any first
    word, not only after the endings German joins with it (``_S_JOINED``): an English compound's first word ends in
    s or es, or its second begins with s, as often ('namespace' was looked up as 'name' and 'pace', 'screenshot' as
    'screen' and 'hot', 'tablespace' as 'tabl', the index's 'table', and 'pace')."""
    pairs = []
    for at in range(MIN_PART, len(word) - MIN_PART + 1):
        head, tail = word[:at], word[at:]
        pairs += [(head[:len(head) - len(link)], tail) for link in _LINKS[0 if joined else 1:]
                  if head.endswith(link) and len(head) - len(link) >= MIN_PART
                  and (joined or link not in ("s", "es") or (link == "s" and head[:-1].endswith(_S_JOINED)))]
    return pairs


def inflected_forms(word: str, languages: frozenset[str], names: frozenset[str] = frozenset()) -> list[str]:
    """The other forms keyword search looks a folded query word up by (``russian_forms``, ``latin_forms``); ``names``:
    the query's ``surnames``."""
    return russian_forms(word, word in names) or latin_forms(word, languages)


# A French or Italian elided word before its apostrophe: l'équipe, d'accord, qu'il, c'est, dell'anno, un'altra. Typed
# in a query it was a word of its own ('l', 'd'), in most French passages: 'l'équipe' ranked notes by their l's, and
# the snippet marked each **l**'.
_ELISION = re.compile(r"(?<![^\W_])(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu|quoiqu|dell|dall|nell|sull|all|"
                      r"un|quest|quell)['’](?=[^\W\d_])")


def without_elisions(text: str) -> str:
    """Folded ``text`` without the elided articles and pronouns of French and Italian: "l'équipe d’accord" gives
    'équipe accord'; an English word with an apostrophe (don't, O'Brien, Alzheimer's) stays."""
    return _ELISION.sub("", text)
