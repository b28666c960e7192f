"""Who wrote a passage, as search's ``author`` filter and a question naming its writer ask.

A passage's author is its file's, as the file records one (a note's front matter ``author:``, a Logseq page's
``author::``, a document's metadata author), or, in a mail file, its message's sender (the ``From:`` line of the
message's head, which its later passages and attachments follow), or, in a chat, the speakers of its messages. A name given matches an author whose words
hold every word of it, folded as keyword search folds them: 'Ben' and 'okafor' find 'Ben Okafor', 'Anna Berg'
finds 'Berg, Anna'; 'Ben Okafor' does not find 'Ben Lee'. An initial stands for a word it begins ('A. Berg', 'Anna
B.'), and the persons of a file recording several are told apart ('Anna Okafor' is no one of 'Anna Berg, Ben
Okafor'). A field naming each person apart (``Apart``: a mail's sender, a chat's speaker, a note's front matter, an
EPUB's creator) holds one person, so 'John Tolkien' is John Ronald Reuel Tolkien there; of a document's metadata
author, which may run several together ('Anna Lee Ben Okafor'), a name only where its words stand together
(``_together``). A short form of a given name is no initial: 'Ben' does not find 'Benjamin Lee' (a prefix would find
'Bennett' too), nor 'Bob' Robert; beside the surname it does, 'Ben Lee' finding Benjamin Lee and 'Bob Smith' Robert
Smith, and the other way round, 'Robert Smith' finding the note recorded as Bob Smith's (``_short_given``,
search.query.nicknames).

A question that names a known author as its writer ('what did Ben write in March about hiring', 'notes by anna
berg', 'papers by Ursula von der Leyen') puts that author's passages first (``theirs_first``), each keeping its
score: the author's name was a word like any other, so a note merely mentioning Ben ranked above the note Ben wrote.
Boosted, not narrowed: most notes record no author, and a note quoting what Ben said may be what was meant; the
``author`` argument narrows. A name before a verb of writing that no author or sender holds is no writer
(``KnownWriters``): 'Did Docker publish a fix' searches publish, where it was searched as 'Docker a fix'.
"""
from __future__ import annotations

import json
import re
import threading
import unicodedata
from functools import lru_cache
from collections import Counter
from itertools import groupby

from search.query import chinese_names, mail_quotes, nicknames, pinyin, question
from search.query.mail_quotes import inside_quoted_head, quoted_head
from search.query.text import WORD, normalise

MAX_NAME = 200  # characters of an author asked for
FROM_LINE = re.compile(r"(?m)^From:[ \t]*(\S[^\n]*)")
# a message's head as ingest.mail writes it: one without a From line (a draft) is no one's, not the message's before it
HEAD = re.compile(r"(?:To|Cc|Date|Subject):[ \t]")


def wanted(name: str | None) -> str | None:
    """The author a filter asks for, its spaces made one; None for none; ValueError for one with no letter or too
    long."""
    if name is None:
        return None
    given = " ".join(str(name).split())
    if len(given) > MAX_NAME or not name_words(given):
        shown = given if len(given) <= 80 else given[:80] + "…"
        raise ValueError(f"author must be a name such as 'Anna Berg' or 'Berg' (at most {MAX_NAME} characters), "
                         f"not {shown!r}")
    return given


def name_words(name: str) -> tuple[str, ...]:
    """The words of a name as keyword search folds them (case, accents)."""
    return tuple(_unaccented(word) for word in WORD.findall(normalise(name)))


def _unaccented(word: str) -> str:
    """``word`` without accents, as the index folds them ('Müller' is 'muller')."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def wrote(recorded: str | None, name: str) -> bool:
    """Whether the author ``recorded`` (a file's, or a mail's From line) is the ``name`` asked for: one of the persons
    it records (``persons``) holds every word of the name, each word its own, an initial standing for a word it
    begins ('A. Berg', 'Berg, A.' and 'Anna B.' are Anna Berg; a recorded 'J. Smith' is John Smith), so long as one
    word is held whole. Of 'Anna Berg, Ben Okafor', 'Anna Okafor' is no one: the persons are told apart; a person of
    many words is one person's where ``recorded`` is ``Apart``, else a name stands together in it. A recorded
    author in ASCII that lacks a whole word of the name and writes no initial is told apart without reading its
    words: a question naming a writer matched every sender of a mail archive (50,000: 0.4 s a question, 2 s for the
    passages of 300,000) reading each one's words. An address is no words of a name (``without_addresses``): a
    sender's name is its display name, or its address's own part where it has none."""
    if not recorded:
        return False
    if "@" in name:  # an address asked for ('ben@example.com'): its mail, not every Ben's nor everyone's at example.com
        return _holds_address(recorded, name)
    # 王医生, 老王, 'Wang': anyone surnamed 王 (search.query.chinese_names); 'Wang' of 'Wang Jianguo' by its words below
    for family in chinese_names.families(name) if not (recorded.isascii() and name.isascii()) else ():
        if (not recorded.isascii() or chinese_names.said_in(recorded, family)) \
                and any(chinese_names.of_surname(p, family) for p in persons(recorded)):
            return True
    words = _asked(name)
    if "@" in recorded and _glued(recorded, words):
        return True
    if pinyin.one_in_chinese(recorded, name) and any(pinyin.same_name(p, words) for p in persons(recorded)):
        return True  # 王伟 asked as 'Wang Wei', or 'Wang Wei' as 王伟 (search.query.pinyin)
    if recorded.isascii():
        folded = recorded.lower()
        if not any(word in folded for word in words):
            return False
        missing = {word[0] for word in words if len(word) > 1 and word not in folded and not _short_in(word, folded)}
        # a word missing is found only by an initial of its first letter, outside an address ('c' of c.lee@)
        if missing and not missing <= set(_INITIAL.findall(_ADDRESS.sub(" ", folded))):
            return False
    apart = isinstance(recorded, Apart)
    return any(_holds(person, words) and (apart or _one_name(person) or _together(person, words))
               or _short_given(person, words, apart or _one_name(person)) for person in persons(recorded))


class Apart(str):
    """An author recorded in a field that names each person apart, so that a name of many words there is one
    person's: a mail's sender (a mailbox's display name), a chat's speaker, a note's front matter, an EPUB's creator
    (author_reads.file_authors). 'John Tolkien' is John Ronald Reuel Tolkien there; in a document's metadata author,
    one text a program may fill with several persons run together ('Anna Lee Ben Okafor'), a name is found only where
    its words stand together (``_together``), so Anna Okafor is no one of it, nor is John Tolkien."""
    __slots__ = ()


def file_authors(conn) -> list[tuple[int, str]]:
    """(file id, its author as recorded) of every file version that records one, an author whose field names each
    person apart as ``Apart``."""
    from search.index import author_reads
    return [(file, Apart(author) if apart else author) for file, author, apart in author_reads.file_authors(conn)]


# a name's lower-case particles ('Ursula von der Leyen'), as question reads a writer's name
_PARTICLES = frozenset(re.findall(r"\w+", question._PARTICLE))
RUN_ON = 4  # words of a person, particles and initials left out, from which two persons may be run together
BETWEEN = 3  # particles and initials at most between a two-word name's words ('J. R. R.', 'von der')


def _together(person: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Whether a name asked for stands together in ``person`` where that may be several persons written with
    nothing between them ('Ann Lee Bo Chen', RUN_ON words or more): 'Ann Chen' and 'A. Chen' are no one of it, 'Lee
    Bo' is, and a particle or an initial between the two may stand ('Ursula Leyen' of 'Ursula von der Leyen'); a
    name of three words or more likewise (``_in_a_row``: 'Ann Lee Chen' took Ann Lee's words and Bo Chen's). A name
    of one word, and a person of fewer words, are as ``_holds`` found them."""
    if len(words) < 2 or _full_words(person) < RUN_ON:
        return True
    if len(words) > 2:
        return _in_a_row(person, words)
    for j, last in enumerate(person):
        for i in range(j - 1, max(-1, j - BETWEEN - 2), -1):  # each word before, while only particles stand between
            first = person[i]
            for one, two in (words, words[::-1]):
                if _fits(first, one) and _fits(last, two) and (first == one or last == two):
                    return True
            if len(first) > 1 and first not in _PARTICLES:
                break
    return False


# particles that join a name's parts, for telling one person's name of many words: question's, and Spanish 'los'/'las'
# ('María de los Ángeles Fernández Ruiz')
_JOINING = _PARTICLES | {"los", "las"}
ONE_NAME_GIVEN = 2  # words at most before a name's particle: its given names ('José María de la Fuente')
ONE_NAME_AFTER = 3  # words at most after it: 'del Carmen García López' (a given name's, then two surnames)
# Dutch and German particles: a surname of one or two words after them ('van den Berg', 'van der Berg Smit'), where a
# Spanish name's 'del' or 'de' may stand before a given name and two surnames
_GERMANIC = frozenset({"von", "van", "der", "den", "ter", "ten", "zu"})
GERMANIC_AFTER = 2


def _one_name(person: tuple[str, ...]) -> bool:
    """Whether a person of a document's metadata author, though of RUN_ON words or more, reads as one person's name by
    a particle inside it: at most ONE_NAME_GIVEN words before it, at most ONE_NAME_AFTER after ('Maria del Carmen
    García López', 'Jan Pieter van der Berg'), as a Spanish, Portuguese or Dutch name is written; after a Dutch or
    German particle (``_GERMANIC``) at most GERMANIC_AFTER, a surname. Persons run together are no such name ('Anna
    Lee Ben Okafor' has no particle; 'Anna Lee Ursula von der Leyen' three words before it, 'Ursula von der Leyen
    Anna Lee' three after 'von der'), so 'Maria López' finds her, and 'Anna Okafor' or 'Ursula Lee' still no one."""
    at = next((i for i, word in enumerate(person) if i and word in _JOINING), None)
    if at is None or person[0] in _JOINING or person[-1] in _JOINING or _full_words(person) < RUN_ON:
        return False
    full = [len(word) > 1 and word not in _JOINING for word in person]
    end = next(i for i in range(at, len(person)) if person[i] not in _JOINING)  # the particles before the surname
    germanic = bool(_GERMANIC & set(person[at:end])) or _dutch_de(person, at, end)
    after = GERMANIC_AFTER if germanic else ONE_NAME_AFTER
    given = sum(full[:at]) <= ONE_NAME_GIVEN or germanic and all(word in nicknames.DUTCH_GIVEN
                                                                   for word in person[1:at - 1])
    return given and sum(full[at:]) <= after


def _dutch_de(person: tuple[str, ...], at: int, end: int) -> bool:
    """Whether a lone 'de' (no 'la', 'los' … with it) is a Dutch one, a surname of one word after it: the word after
    that surname is a given name (nicknames.given), so 'Jan de Vries Anna Lee' is Jan de Vries and Anna Lee, where
    a Spanish 'de' stands before a given name and two surnames ('María de Lourdes García López'), as it does before a
    name of the faith (nicknames.SPANISH_AFTER_DE: 'Juan de Dios Martín López', whose Martín is a given name too)."""
    return person[at:end] == ("de",) and end + 1 < len(person) and nicknames.given(person[end + 1]) \
        and person[end] not in nicknames.SPANISH_AFTER_DE


def _full_words(words: tuple[str, ...]) -> int:
    """How many of ``words`` are no particle nor initial."""
    return sum(len(word) > 1 and word not in _PARTICLES for word in words)


def _in_a_row(person: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Whether a name of three words or more is held by a run of ``person``'s words in which every word but a
    particle or an initial is one of the name's: 'Ann Lee Chen' is no one of 'Ann Lee Bo Chen' (Bo stands between),
    'Lee Bo Chen' is (told apart by nothing, it may be one person's)."""
    fits = [any(_fits(held, word) for word in words) for held in person]  # a run begins and ends with one of them
    for start in (at for at, fit in enumerate(fits) if fit):
        full = 0
        for end in range(start + 1, len(person) + 1):
            full += _full_words(person[end - 1:end])
            # a particle asked for counts as a full word: 'Johannes van den Berg' finds Johannes Hendrikus Maria van
            # den Berg, and so 'Anna van der Berg' Anna Lee Jan van der Berg, the same words (docs/known-limits.md)
            if full > len(words) or not fits[end - 1] and full == len(words):
                break
            if fits[end - 1] and end - start >= len(words) and _holds(person[start:end], words):
                return True
    return False


SHORT_GIVEN = 3  # letters at least of a given name's short form ('Ben' of Benjamin; not 'Al' of Alan and Alice)
SHORT_TRIED = 4  # a person's words at most tried as the long form of a short given name


def _short_given(person: tuple[str, ...], words: tuple[str, ...], apart: bool = False) -> bool:
    """Whether a name asked for is ``person`` with another form of a given name: its first word (of SHORT_GIVEN
    letters or more) begins a word of the person's, or is a nickname of it (search.query.nicknames: 'Bob' of
    Robert, 'Peggy' of Margaret), or the other way round (``_other_form``: the person recorded as 'Ben Okafor' or
    'Bob Smith', asked for as Benjamin Okafor or Robert Smith), and every other word, the surname, is held whole
    ('Ben Okafor' is Benjamin Okafor, 'Alex Berg' Alexandra Berg, 'Bob Smith' Robert Smith). A short form alone finds
    no one ('Ben' would find every Benjamin and Bennett, 'Bob' every Robert), nor a given name alone a short form.
    ``apart``: the person's field names each person apart (``Apart``)."""
    given, rest = words[0], words[1:]
    if not rest or len(given) < SHORT_GIVEN or any(len(word) < 2 or word not in person for word in rest):
        return False
    others = [i for i, held in enumerate(person) if _other_form(held, given)]
    for i in others[:SHORT_TRIED]:
        shortened = person[:i] + (given,) + person[i + 1:]
        if _holds(shortened, words) and (apart or _together(shortened, words)):
            return True
    return False


def _short_in(word: str, folded: str) -> bool:
    """Whether a word asked for that ``folded`` (an author recorded, in small letters) lacks may stand there in
    another form of a given name (``_short_given``): its long form, its nickname, a short form it begins with."""
    return (any(long in folded for long in nicknames.long_forms(word))
            or any(short in folded for short in nicknames.short_forms(word)) or word[:SHORT_GIVEN] in folded)


def _other_form(held: str, given: str) -> bool:
    """Whether a word of a person's, ``held``, is another form of the given name asked for: longer and begun by it
    ('benjamin' of 'ben'), or shorter and beginning it ('ben' recorded, 'benjamin' asked: the same person as asked
    the other way), or a nickname of it either way ('robert' of 'bob', 'bob' of 'robert'; search.query.nicknames)."""
    if len(held) > len(given) and held.startswith(given) or SHORT_GIVEN <= len(held) < len(given) \
            and given.startswith(held):
        return True
    return held in nicknames.long_forms(given) or held in nicknames.short_forms(given)


def _fits(held: str, word: str) -> bool:
    """Whether a word held stands for a word asked for: the same, or a letter alone of its first letter."""
    return held == word or (len(word) == 1 or len(held) == 1) and held[0] == word[0]


_asked = lru_cache(maxsize=64)(name_words)  # a name asked for, matched against thousands of authors
_INITIAL = re.compile(r"(?<![^\W_])[^\W\d_](?![^\W_])")  # a letter alone: 'a' of 'A. Berg'
# a mail address: its letters alone are no initials ('Carol Lee <c.lee@acme.com>' is no Chris Lee)
_ADDRESS = re.compile(r"<[^<>\n]*>")
# where one person of an author recorded ends and the next begins: 'Anna Lee; Ben Berg', 'Anna Lee & Ben Berg', 'Anna
# Lee and Ben Berg', '王伟、李娜', a line each; a comma, as ``persons`` reads it
_BETWEEN = re.compile(r"\s*(?:[;；、\n]|\s&\s|\s(?:and|und)\s)\s*", re.IGNORECASE)


# what ingest.mail writes after a From line's first 20 addresses ('…, T <t@x.com> and 5 more'): no person, where
# the 'and' between persons made '5 more' one, and author='more' found the message
_MORE = re.compile(r"\s+and [\d,]+ more\s*$")


@lru_cache(maxsize=4096)
def persons(recorded: str) -> tuple[tuple[str, ...], ...]:
    """The persons an author recorded names, each as its words (``name_words``): apart at ';', '&', 'and', '、', a
    line, and at a comma between names of two words or more ('Anna Berg, Ben Okafor', as front matter's list is
    kept); a word alone before a comma is a surname, its given names after it ('Berg, Anna'; 'Berg, A., Okafor, B.' is
    two)."""
    found = []
    recorded = _MORE.sub("", recorded)
    recorded = _ADDRESS.sub(lambda address: _INITIAL.sub(" ", address.group()), without_addresses(recorded))
    for piece in _BETWEEN.split(recorded):
        parts = [name_words(part) for part in re.split(r"[,，]", piece)]
        parts = [part for part in parts if part]
        while parts:
            person = parts.pop(0)
            if len(person) == 1 and parts:  # 'Berg, Anna': the surname, then the given names
                person += parts.pop(0)
            found.append(person)
    return tuple(found)


# a mail address in an author recorded: a sender as ingest.mail writes its From line, 'Anna Berg <anna@example.com>'
# after a display name, bare where the message gave none ('anna.berg@example.com')
_ANGLED = re.compile(r"<([^<>@\s]*)@[^<>\s]*>")
_BARE = re.compile(r"([^\s<>@,;，；、()\"'\[\]]+)@[^\s<>@,;，；、()\"'\[\]]+")
_PERSON_START = re.compile(r"[,;，；、\n&>]")  # where the text before an address may hold its own display name


def without_addresses(recorded: str) -> str:
    """``recorded`` with its mail addresses read as names: one after a display name left out ('Anna Berg
    <anna@example.com>' is Anna Berg), one alone its own part's words, split at '.', '_' and '-' and without a '+tag'
    ('anna.berg@example.com' is anna berg). A domain is never a name: author='example' found everyone writing from
    example.com, 'com' everyone at a .com."""
    if "@" not in recorded:
        return recorded

    def angled(found: re.Match) -> str:
        before = _PERSON_START.split(recorded[:found.start()])[-1]
        return " " if WORD.search(before) else f" {_own_part(found.group(1))} "
    return _BARE.sub(lambda found: _own_part(found.group(1)), _ANGLED.sub(angled, recorded))


def _glued(recorded: str, words: tuple[str, ...]) -> bool:
    """Whether a sender of no display name in ``recorded`` has an address whose own part glues the two words of the
    name asked for, an initial or the given name then the surname, as companies give addresses: 'aberg@acme.com' is
    Anna Berg's (and A. Berg's), 'annaberg@' too. Its own part alone is still the one word 'aberg': the surname
    Åberg folds to it, so 'Berg' alone finds neither."""
    if len(words) != 2 or len(words[1]) < 2 or words[1] not in recorded.lower():
        return False
    glued = {words[0][0] + words[1], words[0] + words[1]}
    return any(_unaccented(local.lower()) in glued for local in _unnamed_own_parts(recorded))


def _unnamed_own_parts(recorded: str) -> list[str]:
    """The own parts (before '@') of the addresses in ``recorded`` that follow no display name of their own."""
    found = [found.group(1) for found in _ANGLED.finditer(recorded)
             if not WORD.search(_PERSON_START.split(recorded[:found.start()])[-1])]
    return found + [found.group(1).split("+")[0] for found in _BARE.finditer(_ANGLED.sub(" ", recorded))]


def _own_part(local: str) -> str:
    """The words of an address's own part (before its '@'): 'anna.berg' is 'anna berg', 'ben+news' 'ben'."""
    return " ".join(part for part in re.split(r"[._-]+", local.split("+")[0].strip("\"'")) if part)


def _holds_address(recorded: str, address: str) -> bool:
    """Whether ``recorded`` holds the mail ``address`` asked for, whole and in any case ('Ben <ben@example.com>' holds
    'BEN@example.com', not 'en@example.com')."""
    asked, held = address.strip().strip("<>").casefold(), recorded.casefold()
    at = held.find(asked)
    while at >= 0:
        end = at + len(asked)
        if not _ADDRESS_CHAR.match(held[at - 1:at]) and not _ADDRESS_CHAR.match(held[end:end + 1]):
            return True
        at = held.find(asked, at + 1)
    return False


_ADDRESS_CHAR = re.compile(r"[\w.+@-]")


def _holds(person: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Whether every word of a name asked for is a word of ``person``'s, each its own, a letter alone standing for
    a word it begins (either side); at least one word held whole.

    Counted, not searched: a word matches only words of its own first letter, so each letter is a pool of its own.
    There a word of the name takes the same word held where there is one (an initial takes any word of the
    letter, so nothing is lost by it), else a letter held alone; the name's initials take what is left. Tried
    every way, a hostile name against a hostile author took steps exponential in their words."""
    if len(words) > len(person):
        return False
    held, of_letter = Counter(person), Counter(word[0] for word in person)
    pools: dict[str, list[int]] = {}  # of each first letter asked: [words held the same, words not, initials]
    for word, count in Counter(words).items():
        pool = pools.setdefault(word[0], [0, 0, 0])
        if len(word) == 1:
            pool[2] += count
        else:
            same = min(count, held[word])
            pool[0] += same
            pool[1] += count - same
    whole = False
    for letter, (same, lacking, initials) in pools.items():
        alone = held[letter]  # letters held alone: all that can stand for a word of the name not held
        if lacking > alone or lacking + initials > of_letter[letter] - same:
            return False
        # held whole: a word of the name, or an initial on a letter held alone that no word of the name needs
        whole = whole or same > 0 or initials > 0 and alone > lacking
    return whole


def senders(heads: list[tuple[int, int, str]], before: dict[int, str] | None = None) -> list[tuple[int, str]]:
    """(chunk id, its message's From line) of mail passages given as (chunk id, file id, head) in passage order: a
    passage without a From line at its start is its message's, the one whose head came before it in its file; a head
    without one (a draft's) names no sender. ``before``: chunk id -> the end of the passage before it, of the
    passages begun at a long To line (mail_quotes.cut_list), where Outlook for Mac's block is told by it."""
    before = before or {}
    found, file, sender = [], None, None
    for chunk, its_file, head in heads:
        if its_file != file:
            file, sender = its_file, None
        # not Outlook's head of a message quoted (search.query.mail_quotes): a passage starting there is its own's
        # a From line reaching the head's end has no next line to be told by: the message's own only where it
        # begins the passage, as ingest.mail writes it (with many addresses, past HEAD_CHARS)
        line = next((m for m in FROM_LINE.finditer(head) if not quoted_head(head, m.end())
                     and (m.end() < len(head) or m.start() == 0)), None)
        sender = Apart(line.group(1)) if line and line.start() < 200 else None \
            if HEAD.match(head) and not inside_quoted_head(head, before.get(chunk, "")) else sender  # a passage begun at Outlook's To line too
        if sender:
            found.append((chunk, sender))
    return found


# The senders of the mail passages read before, per index file and per mail file version (file id, sha256, passages,
# last passage id): a search asking for an author read every mail passage's head again for each new catalog (each
# publish of any collection) and, by FTS5, for every search: 2.3 s at 100,000 messages (bench/author_heads.py).
# Only the files of the index's last read are kept, and the last few indexes.
_KEPT: dict[str, dict[tuple, list[tuple[int, str]]]] = {}
_KEPT_LOCK = threading.Lock()
INDEXES_KEPT = 4


def mail_senders(conn) -> list[tuple[int, str]]:
    """(chunk id, who wrote it) of every mail passage (its message's From line, ``senders``) and chat passage (the
    speakers of its messages, ``speakers``), the passages read only of the mail and chat file versions not read
    before in this process."""
    from search.index import author_reads
    where = author_reads.database(conn)
    chats = [tuple(key) for key in author_reads.chat_files(conn)]
    files = sorted({tuple(key) for key in author_reads.mail_files(conn)} | set(chats))
    with _KEPT_LOCK:
        kept = _KEPT.get(where, {}) if where else {}
    missing = {key[0]: key for key in files if key not in kept}
    found = {key: [] for key in missing.values()}  # a file whose passages name no sender: read, nothing found
    talks = sorted(set(missing) & {key[0] for key in chats})
    mails = sorted(set(missing) - set(talks))
    heads = author_reads.chat_speakers(conn, talks) if talks else {}
    for read, rows in ((_senders_of(conn), author_reads.mail_heads(conn, mails) if mails else []),
                       (lambda its: speakers(its, heads), author_reads.passage_texts(conn, talks) if talks else [])):
        for file, its in groupby(rows, key=lambda row: row[1]):
            found[missing[file]] = read(list(its))
    now = {key: found[key] if key in found else kept[key] for key in files}
    if where:
        with _KEPT_LOCK:
            _KEPT.pop(where, None)
            while len(_KEPT) >= INDEXES_KEPT:
                _KEPT.pop(next(iter(_KEPT)))
            _KEPT[where] = now
    return [pair for key in files for pair in now[key]]


def _senders_of(conn):
    """``senders`` of a mail file's heads, the end of the passage before read for each passage begun at a long To
    line (Outlook for Mac's block, or a draft's own head): a few, so read by id, not with every head."""
    from search.index import author_reads

    def read(heads: list[tuple[int, int, str]]) -> list[tuple[int, str]]:
        cut = [chunk for chunk, _, head in heads if mail_quotes.cut_list(head)]
        return senders(heads, author_reads.tails_before(conn, cut, mail_quotes.BEFORE_CHARS) if cut else None)
    return read


# a chat message's line as ingest.chat writes it: 'Anna Berg: the invoice format is fine'
SPEAKER = re.compile(r"(?m)^([^\s:][^:\n]{0,80}?): ")


def speakers(passages: list[tuple[int, int, str]], named: dict[int, list[str] | None] | None = None) \
        -> list[tuple[int, str]]:
    """(chunk id, the speakers of its messages, '; ' between them) of chat passages given as (chunk id, file id,
    text): a passage of a chat day is many speakers' messages, and ``author`` finds those where the person spoke.
    A message's head is a line starting with a speaker its file names (``named``, file id -> its speakers, as
    ingest.chat.speakers_of keeps them) and ': ': a line of a message over several starting 'Note: …' or 'Re: …' is
    no head, where any line so begun named its word a speaker. A file naming none (read before its speakers were
    named) is read by the line's form alone (SPEAKER)."""
    found, heads = [], {}
    for chunk, file, text in passages:
        if file not in heads:
            names = (named or {}).get(file)
            heads[file] = None if names is None else frozenset(names)
        said = SPEAKER.findall(text) if heads[file] is None else _heads(text, heads[file])
        names = dict.fromkeys(name.strip().replace(";", ",") for name in said)
        if names:
            found.append((chunk, Apart("; ".join(names))))
    return found


def _heads(text: str, names: frozenset[str]) -> list[str]:
    """The speakers of ``text``'s lines that start a message: '``name``: …' for a name of ``names`` (one holding
    ': ' too), looked for no further into a line than the longest name (a pasted log's line of many ': ')."""
    said, longest = [], max(map(len, names), default=0)
    for line in text.split("\n"):
        at = line.find(": ", 0, longest + 2)
        while at > 0:
            if line[:at] in names:
                said.append(line[:at])
                break
            at = line.find(": ", at + 2, longest + 2)
    return said


# The conditions of the author filter made before, per index file and name, with the index's stamp
# (author_reads.stamp) they were made at: by FTS5 (``ingest search --author``, or while the postings are read) each
# search read the files' authors and the mail files again and matched every sender (71 ms of each search at 100,000
# messages, bench/author_heads.py), where the in-memory path matches them once per catalog (Catalog.author_mask).
_CONDITIONS: dict[tuple[str, str, str], tuple[tuple, object]] = {}  # and list_files' files_by's
CONDITIONS_KEPT = 32


def condition(conn, name: str) -> tuple[str, dict]:
    """The SQL condition (over chunks ch of files f) that ``name`` wrote a passage, with its parameters: the files
    recording such an author, and the mail and chat passages of such a sender, as ``Catalog.author_mask`` keeps
    them; made again only when the index has changed since (``_CONDITIONS``)."""
    return _per_state(conn, ("condition", name), _condition)


def _per_state(conn, key: tuple, make):
    """``make(conn, name)`` for ``key`` (what, name), made again only when the index changed since (its stamp)."""
    from search.index import author_reads
    where, now = author_reads.database(conn), author_reads.stamp(conn)
    with _KEPT_LOCK:
        held = _CONDITIONS.get((where, *key)) if where else None
    if held is not None and held[0] == now:
        return held[1]
    made = make(conn, key[1])
    if where:
        with _KEPT_LOCK:
            if len(_CONDITIONS) >= CONDITIONS_KEPT:
                _CONDITIONS.clear()
            _CONDITIONS[(where, *key)] = (now, made)
    return made


def _condition(conn, name: str) -> tuple[str, dict]:
    files = [file for file, author in file_authors(conn) if wrote(author, name)]
    said = mail_senders(conn)
    theirs = {sender for sender in {sender for _, sender in said} if wrote(sender, name)}  # a sender's words once
    chunks = [chunk for chunk, sender in said if sender in theirs]
    return ("(f.id IN (SELECT value FROM json_each(:author_files)) "
            "OR ch.id IN (SELECT value FROM json_each(:author_chunks)))",
            {"author_files": json.dumps(files), "author_chunks": json.dumps(chunks)})


def files_by(conn, name: str) -> list[int]:
    """The ids of the file versions ``name`` wrote: recording such an author, or a mail file holding a message of
    such a sender (list_files' ``author``: 'list what Ben wrote'); made again only when the index changed since, as
    ``condition`` is: each call read every file's meta for its author and for a chat's (author_reads.chat_files)."""
    return list(_per_state(conn, ("files", name), _files_by))


def _files_by(conn, name: str) -> list[int]:
    from search.index import author_reads
    files = {file for file, author in file_authors(conn) if wrote(author, name)}
    said = mail_senders(conn)
    theirs = {sender for sender in {sender for _, sender in said} if wrote(sender, name)}
    files |= set(author_reads.files_of(conn, [chunk for chunk, sender in said if sender in theirs]))
    return sorted(files)


def named_author(query: str, known: list[str]) -> str | None:
    """The author a question names as its writer, if the index knows one so named (``known``: recorded authors and
    mail senders): the name ``question.writers`` reads ('what did Ben write', 'notes by anna berg', 'papers by
    Ursula von der Leyen'), matched in any case."""
    for name in question.writers(query):
        if any(wrote(author, name) for author in known):
            return name
    return None


class KnownWriters:
    """Whether the index knows a name as a writer (``question.writers_known``), for one search: asked of the
    catalog the search reads (``read``, set once the search has it), its authors loaded on the first name asked
    about, each name's answer kept. Before the search has a catalog, any name is a writer, as outside a search."""

    def __init__(self):
        self.read = None  # the search's Passages
        self._answers: dict[str, bool] = {}
        self.read_as: set[str] = set()  # words of the writer's name found as another form (``theirs_first``)

    def __call__(self, name: str) -> bool:
        if self.read is None:
            return True
        if name not in self._answers:
            catalog = self.read.catalog.load_authors(self.read.conn)
            self._answers[name] = any(wrote(author, name) for author in catalog.known_authors())
        return self._answers[name]


def theirs_first(read, query: str, ranked: list, mode: str, filters, notes: list[str]) -> list:
    """``ranked`` with the passages by the author the question names (``named_author``) first, each keeping its
    score; as ranked when no author is named, the filter already asks for one, or none of theirs was found. An
    author filter or a writer given as a Chinese surname and title (王医生) is said as who it was read as
    (``surname_read``), and a writer named in pinyin that finds several persons written in Chinese (``pinyin_read``:
    'what did Wang Fang write' ranked 王芳's and 汪芳's passages alike and did not say so)."""
    filter_read(read, filters, notes)
    known = question.known_writers()
    if filters.author and isinstance(known, KnownWriters):  # the filter's person: no word the passages lack
        known.read_as |= set(name_words(filters.author))
    if mode == "semantic" or not ranked or filters.author or not question.writers(query):
        return ranked  # the authors are read only for a question naming a writer: a mail archive's heads are many
    catalog = read.catalog.load_authors(read.conn)
    name = named_author(query, catalog.known_authors())
    if name is None:
        return ranked
    if not chinese_names.families(name) and _pinyin_name(name):  # 'what did Wang Fang write': 王芳 and 汪芳 alike
        _noted(notes, pinyin_read(catalog.known_authors(), name))
    by = catalog.author_mask(name)
    rows = catalog.rows_of([hit[0] for hit in ranked])
    first = [hit for hit, row in zip(ranked, rows) if row is not None and by[row]]
    if not first:
        return ranked
    recorded = held = catalog.author_named(name)
    if chinese_names.families(name):
        _noted(notes, surname_read(catalog.known_authors(), name))
        recorded = name
        held = name if chinese_names.surname(name) else ""  # 'Wang' of 王医生: found, if by no passage
    known = question.known_writers()
    if isinstance(known, KnownWriters):  # 'Robert' of Robert Smith, recorded as Bob Smith: found, if by no passage
        known.read_as |= set(name_words(name)) - set(name_words(held))
    from search.query.reordering import moved_first
    return moved_first(ranked, first, notes, f"the passages by {recorded}")


SURNAME_NAMED = 10  # persons at most a surname read names (``surname_read``)


def surname_read(known: list[str], name: str) -> str | None:
    """The note for a name asked as a Chinese surname and a title or alone (王医生, 老王, 王; or alone in pinyin, Wang:
    search.query.chinese_names): that it was read as anyone of that surname, and who of ``known`` (the authors and
    senders recorded) that is; None for any other name, or where no one recorded has that surname (the filter's own
    note says so)."""
    written = chinese_names.surname(name)  # else a surname alone in pinyin ('Wang'): who is written in Chinese so
    found = {}
    for family in chinese_names.families(name):
        found |= {("".join(person) if not author.isascii() else " ".join(map(str.capitalize, person))): family
                  for author in known if not author.isascii() or written and chinese_names.said_in(author, family)
                  for person in persons(author) if chinese_names.of_surname(person, family)}
    if not found:
        return None
    named = ", ".join(list(found)[:SURNAME_NAMED]) + (f" and {len(found) - SURNAME_NAMED} more"
                                                      if len(found) > SURNAME_NAMED else "")
    family = " or ".join(dict.fromkeys(found.values()))
    how = ("a surname in pinyin" if not written else "a surname alone" if written == "".join(name.split())
           else chinese_names.how_named(name))
    if len(found) == 1:
        return f"{name} is read as a person surnamed {family} ({how}): {named}"
    return (f"{name} is read as anyone surnamed {family} ({how}): {len(found)} persons, {named}; "
            f"give a full name for one")


def filter_read(read, filters, notes: list[str]) -> None:
    """Note who an author filter given as a Chinese surname and a title (王医生) was read as (``surname_read``), of the
    authors of the catalog ``read`` reads (search's, similar's)."""
    if filters is not None and filters.author and chinese_names.families(filters.author):
        _noted(notes, surname_read(read.catalog.load_authors(read.conn).known_authors(), filters.author))
    elif filters is not None and filters.author and _pinyin_name(filters.author):
        _noted(notes, pinyin_read(read.catalog.load_authors(read.conn).known_authors(), filters.author))


PINYIN_NAMED = 5  # names in Chinese at most a pinyin name's note names (``pinyin_read``)


def _pinyin_name(name: str) -> bool:
    """Whether a name asked for may be a Chinese name's pinyin ('Wang Wei', 'wangwei'): letters of two syllables or
    more."""
    return name.isascii() and len(pinyin.syllables("".join(name_words(name))) or ()) >= 2


def pinyin_read(known: list[str], name: str) -> str | None:
    """The note for a name asked in pinyin that finds several persons recorded in Chinese characters (王伟 and 汪伟 of
    'Wang Wei': pinyin does not tell 王 from 汪), naming them; None where it finds one or none."""
    words = _asked(name)
    found = dict.fromkeys("".join(person) for author in known if not author.isascii()
                          for person in persons(author) if pinyin.same_name(person, words))
    if len(found) < 2:
        return None
    named = ", ".join(list(found)[:PINYIN_NAMED]) + (f" and {len(found) - PINYIN_NAMED} more"
                                                     if len(found) > PINYIN_NAMED else "")
    return (f"{name} is read as {len(found)} persons written in Chinese, {named}: pinyin does not tell them apart; "
            f"give the name in Chinese for one")


def files_by_read(conn, name: str) -> str | None:
    """``surname_read`` (or ``pinyin_read``) for list_files' ``author``, of the persons ``files_by`` reads:
    list_files(author='王医生') listed everyone surnamed 王 and did not say so, as search does."""
    if not chinese_names.families(name) and not _pinyin_name(name):
        return None
    known = list(dict.fromkeys([*(a for _, a in file_authors(conn)), *(s for _, s in mail_senders(conn))]))
    return surname_read(known, name) if chinese_names.families(name) else pinyin_read(known, name)


def _noted(notes: list[str], said: str | None) -> None:
    if said and said not in notes:
        notes.append(said)


def names_read_out(text: str) -> str:
    """``text``, the words the spelling note looks for in the passages, without the words of the writer's name that
    this search found as another form of the author's name (``theirs_first``): 'notes by Robert Smith' said "no
    passage contains 'Robert'" when the note recorded as Bob Smith's was put first, as if nothing by Robert
    existed."""
    known = question.known_writers()
    if not isinstance(known, KnownWriters) or not known.read_as:
        return text
    return WORD.sub(lambda word: " " if set(name_words(word.group())) <= known.read_as else word.group(), text)
