"""Who wrote a passage, as search's ``author`` filter and a question naming its writer ask.

A passage's author is its file's, as the file records one (a note's front matter ``author:``, a Logseq page's
``author::``, a PDF's or a .docx's metadata author), or, in a mail file, its message's sender (the ``From:`` line of
the message's head, which its later passages and attachments follow). A name given matches an author whose words
hold every word of it, folded as keyword search folds them: 'Ben' and 'okafor' find 'Ben Okafor', 'Anna Berg'
finds 'Berg, Anna'; 'Ben Okafor' does not find 'Ben Lee'.

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
from itertools import groupby

from search.query import question
from search.query.mail_quotes import quoted_head
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
    """Whether the author ``recorded`` (a file's, or a mail's From line) is the ``name`` asked for: its words hold
    every word of the name. A recorded author in ASCII holds its words as they are folded, so one lacking a word
    of the name is told apart without reading its words: a question naming a writer matched every sender of a mail
    archive (50,000: 0.4 s a question, 2 s for the passages of 300,000) reading each one's words."""
    if not recorded:
        return False
    words = _asked(name)
    if recorded.isascii():
        folded = recorded.lower()
        if not all(word in folded for word in words):
            return False
    return set(words) <= set(name_words(recorded))


_asked = lru_cache(maxsize=64)(name_words)  # a name asked for, matched against thousands of authors


def senders(heads: list[tuple[int, int, str]]) -> list[tuple[int, str]]:
    """(chunk id, its message's From line) of mail passages given as (chunk id, file id, head) in passage order: a
    passage without a From line at its start is its message's, the one whose head came before it in its file; a head
    without one (a draft's) names no sender."""
    found, file, sender = [], None, None
    for chunk, its_file, head in heads:
        if its_file != file:
            file, sender = its_file, None
        # not Outlook's head of a message quoted (search.query.mail_quotes): a passage starting there is its own's
        line = next((m for m in FROM_LINE.finditer(head) if not quoted_head(head, m.end())), None)
        sender = line.group(1) if line and line.start() < 200 else None if HEAD.match(head) else sender
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
    """(chunk id, its message's From line) of every mail passage (``senders``), the heads read only of the mail file
    versions not read before in this process."""
    from search.index import author_reads
    where, files = author_reads.database(conn), author_reads.mail_files(conn)
    with _KEPT_LOCK:
        kept = _KEPT.get(where, {}) if where else {}
    missing = {key[0]: key for key in files if key not in kept}
    found = {key: [] for key in missing.values()}  # a file whose passages name no sender: read, nothing found
    if missing:
        heads = author_reads.mail_heads(conn, sorted(missing))
        for file, its in groupby(heads, key=lambda head: head[1]):
            found[missing[file]] = senders(list(its))
    now = {key: found[key] if key in found else kept[key] for key in files}
    if where:
        with _KEPT_LOCK:
            _KEPT.pop(where, None)
            while len(_KEPT) >= INDEXES_KEPT:
                _KEPT.pop(next(iter(_KEPT)))
            _KEPT[where] = now
    return [pair for key in files for pair in now[key]]


def condition(conn, name: str) -> tuple[str, dict]:
    """The SQL condition (over chunks ch of files f) that ``name`` wrote a passage, with its parameters: the files
    recording such an author, and the mail passages of such a sender, as ``Catalog.author_mask`` keeps them."""
    from search.index import author_reads
    files = [file for file, author in author_reads.file_authors(conn) if wrote(author, name)]
    said = mail_senders(conn)
    theirs = {sender for sender in {sender for _, sender in said} if wrote(sender, name)}  # a sender's words once
    chunks = [chunk for chunk, sender in said if sender in theirs]
    return ("(f.id IN (SELECT value FROM json_each(:author_files)) "
            "OR ch.id IN (SELECT value FROM json_each(:author_chunks)))",
            {"author_files": json.dumps(files), "author_chunks": json.dumps(chunks)})


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

    def __call__(self, name: str) -> bool:
        if self.read is None:
            return True
        if name not in self._answers:
            catalog = self.read.catalog.load_authors(self.read.conn)
            self._answers[name] = any(wrote(author, name) for author in catalog.known_authors())
        return self._answers[name]


def theirs_first(read, query: str, ranked: list, mode: str, filters, notes: list[str]) -> list:
    """``ranked`` with the passages by the author the question names (``named_author``) first, each keeping its
    score; as ranked when no author is named, the filter already asks for one, or none of theirs was found."""
    if mode == "semantic" or not ranked or filters.author or not question.writers(query):
        return ranked  # the authors are read only for a question naming a writer: a mail archive's heads are many
    catalog = read.catalog.load_authors(read.conn)
    name = named_author(query, catalog.known_authors())
    if name is None:
        return ranked
    by = catalog.author_mask(name)
    rows = catalog.rows_of([hit[0] for hit in ranked])
    first = [hit for hit, row in zip(ranked, rows) if row is not None and by[row]]
    if not first:
        return ranked
    from search.query.reordering import moved_first
    return moved_first(ranked, first, notes, f"the passages by {catalog.author_named(name)}")
