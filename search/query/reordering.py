"""The ranked passages reordered after ranking, each step in keyword and hybrid search, the scores kept as ranked
and a note said when the order changed: the holders of a quoted Chinese phrase kept (``phrased``), a list of links
after the notes it links to, the passages of files titled with the query's words first, then those holding its
quoted phrases, a question's code before its tests, the files it names and the code defining the name it is (or
the name its plain words can be, before the other code alone), the code making a pasted message, the
lines a pasted stack trace names, and a BibTeX entry after the user's own notes. (A query's ``#tag``:
``search.query.tags.tagged_first``; the code using a name: ``Engine._users_first``, which searches again.)"""
from __future__ import annotations

import re
import sqlite3

from search.index import chunk_reads, collection_reads, keyword_reads
from search.query import backtrace, definition_lookup, keyword, lists, question, source_maps, symbols
from search.query.answer_notes import note
from search.query.catalog import Catalog
from search.query.dates import iso_dates, month_names_swapped, only_date
from search.query.filters import Filters
from search.query.hits import BIBLIOGRAPHY_ENDINGS
from search.query.inflection import inflected_forms, query_languages, surnames
from search.query.passages import Passages
from search.query.postings import tokenize
from search.query.text import (CJK_RUN, QUOTED, WORD, normalise, other_scripts, phrase_form, query_words,
                               quoted_phrases, written_words)


LISTS_READ = 3  # per passage asked for, the candidates read for a list of links (lists_after_their_notes)
MAX_PHRASES = 8  # quoted phrases whose holders go first (phrases_first)


def phrased(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """The ``ranked`` passages that hold every Chinese phrase the query quotes (``quoted_phrases``), in keyword
    and hybrid search: a quoted "付款方式" was searched as its bigrams alone, so passages holding only 付款 or 方式
    came with (or before) the one holding the phrase. When none holds them, all are kept, and a note says so."""
    phrases = quoted_phrases(query) if mode != "semantic" and ranked else []
    if not phrases:
        return ranked
    rows = read.rows([cid for cid, _, _ in ranked]).values()
    holding = {r["id"] for r in rows if all(
        form in phrase_form(f"{r['title'] or ''}|{r['heading_path']}|{r['text']}") for _, form in phrases)}
    kept = [hit for hit in ranked if hit[0] in holding]
    if not kept:
        shown = " and ".join(f'"{typed}"' for typed, _ in phrases)
        note(notes, f"no passage found holds {shown} as quoted: the results are those holding some of its words")
        return ranked
    return kept


def lists_after_their_notes(read: Passages, query: str, ranked: list, notes: list[str], limit: int) -> list:
    """``ranked`` with each note passage that is mostly a list of links to other notes (an index note, a README's
    table of contents: ``lists``) after the passages of the notes it links to that came below it, in every mode:
    the titles of all notes, by folder, shared a word with any long question, and notes-en's README came first for
    'Why is the Vim clipboard not synced with the system clipboard in VS Code', above the note its own list linked
    to. A list the query names stays (``_names_list``: 'my reading list'). Scores stay as ranked; a note says so
    when the order changed. The lists looked for are among the first LISTS_READ × ``limit`` passages (30 at
    least): reading every candidate's text for its links took a tenth of a keyword search's time."""
    ids = [hit[0] for hit in ranked]
    rows = read.rows(ids[:max(30, LISTS_READ * limit)], kind="note") if ranked else {}
    targets = {at: found for at, cid in enumerate(ids) if cid in rows
               if (found := lists.link_targets(rows[cid]["text"], rows[cid]["path"]))}
    titles = {at: (set(), names) for at, cid in enumerate(ids) if cid in rows and at not in targets
              if (names := lists.title_names(rows[cid]["text"]))}  # '- Title' lines without links
    targets.update(titles)
    if not targets:
        return ranked
    catalog = read.catalog
    places = [(str(catalog.collections[f]), catalog.paths[f]) for f in catalog.files(ids)]
    moved = lists.after_their_notes(ranked, places, targets, frozenset(titles))
    if moved != ranked:  # the query's words are looked up only when a list moves
        named = _names_list(read.conn, query, [rows[ids[at]] for at in targets])
        targets = {at: found for (at, found), name in zip(targets.items(), named) if not name}
        moved = lists.after_their_notes(ranked, places, targets, frozenset(titles))
    if _shown_out_of_order(ids, [hit[0] for hit in moved], {ids[at] for at in targets}, places, limit):
        note(notes, "a passage that is mostly a list of links (or of notes' titles) comes after the notes it "
                    "links to, each keeping the score it ranked with")
    return moved


def _shown_out_of_order(ids: list[int], moved: list[int], lists: set[int], places: list, limit: int) -> bool:
    """Whether a list passage (``lists``) the move put below a passage that ranked below it is on the first page
    (the passages of the first ``limit`` files of ``moved``), where its score reads out of order; the note says
    why. A list moved off the page, or within it but below none it outranked, changes nothing the reader is shown
    out of order: notes-en's README (one long list of links) moved in 37 of bench/assistant_questions.py's 38
    questions, and an assistant read the note with nearly every answer."""
    rank = {cid: at for at, cid in enumerate(ids)}
    place = dict(zip(ids, places))
    files, lowest = set(), -1  # lowest: the lowest rank of the passages shown above
    for cid in moved:
        files.add(place[cid])
        if len(files) > limit:
            return False
        if cid in lists and lowest > rank[cid]:
            return True
        lowest = max(lowest, rank[cid])
    return False


def _names_list(conn, query: str, rows: list) -> list[bool]:
    """Whether the query names each list passage of ``rows``: the list's title and headings hold half of its words
    or more (a question's framing left out), two of them at least or its only one, stemmed as keyword search stems
    them ('my reading list' names the note 'Reading List'; 'how do i prevnet my mac from going to sleep' does not
    name notes-en's README section 'TIL > Mac', whose items hold its other words)."""
    asked = query_words(question.content(query))[:keyword.MAX_TERMS]
    own = [WORD.findall(normalise(f"{row['title'] or ''} {row['heading_path'] or ''}")) for row in rows]
    if not asked:
        return [False] * len(rows)
    try:
        tokens = tokenize(conn, asked + [word for words in own for word in words])
    except sqlite3.Error:  # a scratch table this connection cannot make: no list is named
        return [False] * len(rows)
    wanted = {token for found in tokens[:len(asked)] for token in found}
    named, at = [], len(asked)
    for words in own:
        held = wanted.intersection(token for found in tokens[at:at + len(words)] for token in found)
        at += len(words)
        named.append(2 * len(held) >= len(wanted) and (len(held) >= 2 or bool(held) and held == wanted))
    return named


def titled_first(conn, query: str, ranked: list, mode: str, notes: list[str], common: set[str]) -> list:
    """``ranked`` with the passages of the files whose title (with its aliases, tags and file name's words) holds
    every word of a query of several words (but the ``common`` ones keyword search drops) first, each in their
    order, in keyword and hybrid search: 'skip pre-commit hooks' ranked the note titled 'Skip Pre-Commit Hooks'
    below 'Skip Git Hooks As Needed', which says skip, commit and hooks more often, and '"statement timeout"'
    ranked 'Limit Execution Time Of Statements' above 'Set A Statement Timeout Threshold For A Session'. Words are
    matched as keyword search matches them (stemmed: 'hook' holds 'hooks'). A tag of several words ('#project/shed',
    one word to the query's spaces) counts as such a query: a note's tags are in its title. Scores stay as ranked;
    a note says so when the order changed."""
    asked = iso_dates(query)  # a date as a title writes it: '3月20号的日记' is '03-20 日记', the note of 2024-03-20
    if mode == "semantic" or not ranked or (len(asked.split()) < 2 and not query.strip().startswith("#")
                                            and not only_date(query)):
        return ranked  # one word, but a note's #tag ('#project/shed' puts the notes tagged so first) or a date
    # an English date also as written: 'standup March 14' is the note titled 'Standup March 14' as well as the one
    # named 2024-03-14 (as ISO alone, 'standup 03-14', the note titled so was left below a log saying it more often)
    # and with its month the other way: 'standup Mar 14' is the note titled 'Standup March 14' too, and the reverse
    written = iso_dates(query, english=False)
    # and the query as it writes its date: '2024年3月14日' was looked up in titles as 2024-03-14 alone, and put the
    # meeting note titled '周会 2024-03-14' above the diary titled '2024年3月14日' (bench/chinese_notes.py)
    either = [e for e in dict.fromkeys(_title_words(conn, form, query, common) for form in
                                       (asked, written, month_names_swapped(written), query)) if e]
    if not either:
        return ranked
    expression = "title : (" + " OR ".join(either) + ")" if len(either) > 1 else "title : " + either[0]
    titled = keyword_reads.matching(conn, expression, list(dict.fromkeys(cid for cid, _, _ in ranked)))
    moved = [hit for hit in ranked if hit[0] in titled] + [hit for hit in ranked if hit[0] not in titled]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        note(notes, "the passages of files whose title holds every word of the query come first, each keeping "
                    "the score it ranked with")
    return moved


def _title_words(conn, asked: str, query: str, common: set[str]) -> str | None:
    """The FTS5 expression a title holding ``asked`` (``query`` with its dates written as titles write them) matches:
    a date alone as its words side by side, however common each is ('2024', '03'); else every word but the
    ``common`` ones; None for fewer than two such words."""
    if only_date(query):  # its year, month and day side by side
        return '"' + " ".join(written_words(asked)) + '"'
    words = [word for word in written_words(asked) if word not in common][:keyword.MAX_TERMS]
    languages, names = query_languages(normalise(asked)), surnames(asked)
    return "(" + " AND ".join(_either_script(w, languages, names) for w in words) + ")" if len(words) >= 2 else None


def _either_script(word: str, languages: frozenset[str] = frozenset(), names: frozenset[str] = frozenset()) -> str:
    """A query word as an FTS5 expression that a title written in either Chinese script matches ('会议' as
    '("会议" OR "會議")', as keyword search looks it up): '會議記錄 台北' put the note tagged 会议 first, and
    '2024年3月21日 会议' the meeting of that day tagged 會議 (6th before). Another language's word in any of its
    forms (``inflected_forms``): 'поиска документов' is the note titled 'Поиск документов'."""
    forms = [word, *(other_scripts(word) if CJK_RUN.fullmatch(word) else inflected_forms(word, languages, names))]
    quoted = ['"' + form.replace('"', '""') + '"' for form in forms]
    return quoted[0] if len(quoted) == 1 else "(" + " OR ".join(quoted) + ")"


def phrases_first(conn, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the passages holding every phrase of Latin words the query quotes first, each in their
    order, in keyword and hybrid search: the words of a phrase side by side, stemmed as keyword search stems them
    ('write ahead logging' holds "write ahead log"). '"working tree"' was searched by its words alone, and ranked
    'Display The Contents Of A Directory As A Tree' and a note on netrw's tree style above the notes that say
    'working tree'. A quoted Chinese phrase keeps only its holders (``phrased``). Scores stay as ranked; a note
    says so when the order changed."""
    if mode == "semantic" or not ranked:
        return ranked
    phrases = []
    for match in QUOTED.finditer(query):
        inner = next(group for group in match.groups() if group is not None)
        words = WORD.findall(normalise(inner))
        if len(words) > 1 and not CJK_RUN.search(inner):
            phrases.append((inner.strip(), '"' + " ".join(words) + '"'))
    # each phrase once, the first few: a pasted stack trace quotes its file paths, one a frame (400 of one path
    # made an FTS5 expression of 400 phrases: 6.3 s at 100,000 passages)
    phrases = list(dict.fromkeys(phrases))[:MAX_PHRASES]
    if not phrases:
        return ranked
    holding = keyword_reads.matching(conn, " AND ".join(expression for _, expression in phrases),
                                     list(dict.fromkeys(cid for cid, _, _ in ranked)))
    moved = [hit for hit in ranked if hit[0] in holding] + [hit for hit in ranked if hit[0] not in holding]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        shown = " and ".join(f'"{typed}"' for typed, _ in phrases)
        note(notes, f"the passages holding {shown} as quoted come first, each keeping the score it ranked with")
    return moved


SPACED_NAME_DEPTH = 30  # of the passages a query with spaces ranks, looked at for the definition it names


def definitions_first(read: Passages, query: str, ranked: list, mode: str, filters: Filters, notes: list[str]
                      ) -> list:
    """``ranked`` with the passages of the files the query names first (``symbols.names_file``: ``filters.py``,
    ``pypdf/filters.py``; a named file none of whose passages ranked comes with its first, scored 0), then the
    code passages that define the name the query is (``symbols.code_name``: ``periodic_task``, ``Huey.enqueue``,
    ``Lexer::next_token``, ``MAX_RETRIES``) or asks for (``symbols.asked_name``: 'where is SqliteStorage defined',
    'aiosqlite connect'), or for a name nothing defines (a parameter's: ``read_timeout``) the passages
    holding it as written (``symbols.names``), each in their order, in keyword and hybrid search: the name's words,
    split and stemmed, ranked other functions that say them more often (``periodic_tasks``) above its
    definition, other files that say 'filters' above filters.py, and a path's folder, which no passage holds,
    left its file out. Scores stay as ranked; a note says so when the order changed."""
    if mode == "semantic":
        return ranked
    spaced = any(c.isspace() for c in query.strip())
    named = [] if spaced else _named_files(query, ranked, read.catalog, filters)
    parts = symbols.asked_name(query)  # 'where is X defined' and 'aiosqlite connect' too
    # words are read as a name among the first passages their words rank (a plain query's rows are not read at all)
    looked = ranked if not spaced else ranked[:SPACED_NAME_DEPTH]
    rows = read.rows([cid for cid, _, _ in looked], kind="code").values() if parts and ranked else []
    defining = {r["id"] for r in rows if symbols.defines(parts, r["heading_path"] or "", r["text"], r["path"])}
    if parts and ranked and not spaced and not defining:  # '@huey.task': its words in every passage of huey
        more = read.rows(definition_lookup.unranked_definitions(read.conn, parts, ranked, filters), kind="code")
        rows = [*rows, *more.values()]
        defining = {r["id"] for r in rows if symbols.defines(parts, r["heading_path"] or "", r["text"], r["path"])}
        ranked = ranked + [(cid, 0.0, [None, None]) for cid in more if cid in defining]  # scored 0, unranked
    declaring = {r["id"] for r in rows if r["id"] in defining and symbols.declares_in(r["path"], parts[-1], r["text"])}
    shared = {r["id"] for r in rows if r["id"] in defining and symbols.joined(r["heading_path"] or "")}
    # a name with no definition (a parameter, a setting: read_timeout): the passages holding it as written
    naming = set() if defining or named or spaced or len(parts or ()) != 1 else {
        r["id"] for r in rows if symbols.names(parts[0], r["text"])}
    # a definition cut in two: the passage with its 'def' line before the rest ('Postings.search' put the rest first);
    # of two definitions of the name, the one with a passage of its own before one joined to a neighbour (huey's
    # Huey.periodic_task before the few lines of MiniHuey.periodic_task, shorter and so higher by BM25)
    # and a name's definition before a stub or binding that declares it again (``symbols.restates``: lxml's .pxd
    # re-declaring libxslt's xsltApplyStylesheet ranked above the header that declares it)
    restating = {r["id"] for r in rows if r["id"] in defining and symbols.restates(r["path"])}
    cased = {r["id"] for r in rows if r["id"] in defining and symbols.heading_case(parts[-1], r["heading_path"] or "")}
    first = named + sorted((hit for hit in ranked if hit[0] in defining | naming),
                           key=lambda hit: (hit[0] not in declaring, hit[0] not in cased, hit[0] in restating,
                                            hit[0] in shared))
    chosen = {hit[0] for hit in first}
    moved = first + [hit for hit in ranked if hit[0] not in chosen]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        shown = ".".join(parts) if spaced and not symbols.WORDED_NAME.fullmatch(query) else query.strip()
        what = "the file it names" if named and not defining and not naming else (
            f"the passages holding {shown!r}" if naming else
            f"the definitions of {shown!r}" if not named else "the file it names, then its definitions")
        note(notes, f"{what} come first, each keeping the score it ranked with")
    return moved


def worded_definitions_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the code passages defining the name a query of plain words can be (``symbols.word_name``:
    'enqueue', 'safe join' for ``safe_join``) before the other code passages, in keyword and hybrid search, when no
    definition of the words read as a name with its owners ranked (``definitions_first``); of several, the one in
    the file under the fewest folders first (a package's own API before a plugin's, a backend's or a contrib
    module's: huey's Huey.enqueue before the Django backend's), then in their order. The notes and other files
    keep their places: a plain word is a word of prose as much as a name ('registry'), and notes about it do not
    give way to the functions it names. Its words ranked a function saying 'enqueue' more often above Huey.enqueue,
    and safe_join's module docstring above it. Scores stay as ranked; a note says so when the order changed."""
    asked = symbols.word_name(query)
    if mode == "semantic" or asked is None or not ranked:
        return ranked
    name, exact = asked
    catalog = read.catalog
    looked = [cid for cid, _, _ in ranked[:SPACED_NAME_DEPTH]]
    looked = [cid for cid, kind in zip(looked, catalog.kinds_of(looked)) if kind == "code"]
    parts = symbols.asked_name(query)
    if parts and len(parts) > 1 and any(symbols.defines(parts, r["heading_path"] or "", r["text"], r["path"])
                                        for r in read.rows(looked, kind="code").values()):
        return ranked  # 'aiosqlite connect': definitions_first moved connect (and read these rows already)
    heads = chunk_reads.headings(read.conn, looked)  # a plain word's rows were not read: their headings alone
    paths = {cid: catalog.paths[row] for cid, row in zip(looked, catalog.files(looked))}
    defining = {cid: paths[cid].count("/") for cid in looked
                if symbols.names_definition(name, exact, heads.get(cid) or "")}
    if not defining:
        return ranked
    slots = [i for i, kind in enumerate(catalog.kinds_of([hit[0] for hit in ranked])) if kind == "code"]
    code = [ranked[i] for i in slots]
    first = _opening_first(read, sorted((hit for hit in code if hit[0] in defining),
                                        key=lambda hit: (symbols.restates(paths[hit[0]]), defining[hit[0]])), heads)
    moved = list(ranked)
    for i, hit in zip(slots, first + [hit for hit in code if hit[0] not in defining]):
        moved[i] = hit
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        note(notes, f"the code defining {name!r} comes before the other code, each passage keeping the score it "
                    "ranked with")
    return moved


def _opening_first(read: Passages, hits: list, heads: dict[int, str]) -> list:
    """``hits`` with the passages of one definition (a file's, under one heading: a long function cut in pieces)
    together, from its first line on, where the first of them ranked: its last two lines ranked above its
    opening ('callers' showed the end of ``callers``, its ``def`` line folded away under it)."""
    starts = {cid: start or 0 for cid, start, _ in chunk_reads.chunk_lines(read.conn, [hit[0] for hit in hits])}
    pieces: dict[tuple[int, str], list] = {}
    for hit, row in zip(hits, read.catalog.files([hit[0] for hit in hits])):
        pieces.setdefault((row, heads.get(hit[0]) or ""), []).append(hit)
    return [hit for one in pieces.values() for hit in sorted(one, key=lambda hit: starts.get(hit[0], 0))]


def _named_files(query: str, ranked: list, catalog: Catalog, filters: Filters) -> list:
    """The passages of the files (within ``filters``) the query names (``symbols.names_file``): those ``ranked``,
    in their order, and for a file none of whose passages ranked, its first, scored 0 and unranked."""
    wanted = query.strip().strip("/").casefold()
    if "." not in wanted.rsplit("/", 1)[-1] and "/" not in wanted:
        return []
    name = wanted.rsplit("/", 1)[-1]
    rows = {row for row in catalog.named(name)
            if symbols.names_file(query, catalog.collections[row], catalog.paths[row])}
    if not rows:
        return []
    files = catalog.files([cid for cid, _, _ in ranked])
    named = [hit for hit, row in zip(ranked, files) if row in rows]
    for row in sorted(rows - set(files)):
        first = catalog.first_chunk(row, filters)
        if first is not None:
            named.append((first, 0.0, [None, None]))
    return named


# A question about code that asks for its tests: 'how is the consumer's shutdown tested', 'which test covers SIGTERM'.
ASKS_FOR_TESTS = re.compile(r"\b(?:tests?|tested|testing|unit\s*tests?|specs?|pytest|unittest|fixtures?|mocks?)\b",
                            re.IGNORECASE)
TEST_YIELDS_TO = 0.5  # of a test passage's score: the code passages scoring this much or more go before it


def code_before_tests(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with each passage of a test file (``symbols.test_file``) after the other code passages that scored
    at least TEST_YIELDS_TO of its score, for a question (``question.asks``) that does not ask for tests
    (``ASKS_FOR_TESTS``), in keyword and hybrid search: 'how does the consumer handle a SIGTERM' ranked huey's test
    of it (which says signal, SIGTERM and consumer over and over) above the consumer's code that handles it. A test
    comes no earlier than it ranked; one far above the code stays above it. Scores stay as ranked; a note says so
    when the order changed."""
    if mode == "semantic" or len(ranked) < 2 or not question.asks(query) or ASKS_FOR_TESTS.search(query):
        return ranked
    catalog = read.catalog
    ids = [hit[0] for hit in ranked]
    code = [kind == "code" for kind in catalog.kinds_of(ids)]
    tests = {hit[0] for hit, row, is_code in zip(ranked, catalog.files(ids), code)
             if is_code and symbols.test_file(catalog.paths[row])}
    if not tests:
        return ranked
    rest = [hit for hit in ranked if hit[0] not in tests]
    code_at = [i for i, (hit, is_code) in enumerate(zip(ranked, code)) if is_code and hit[0] not in tests]
    at_rest = {hit[0]: i for i, hit in enumerate(rest)}
    placed: dict[int, list] = {}
    before = 0  # the other passages ranked above the test
    for hit in ranked:
        if hit[0] not in tests:
            before += 1
            continue
        yields = [at_rest[ranked[i][0]] + 1 for i in code_at if ranked[i][1] >= TEST_YIELDS_TO * hit[1]]
        placed.setdefault(max([before, *yields]), []).append(hit)
    moved = [hit for i, other in enumerate(rest) for hit in [*placed.get(i, []), other]] + placed.get(len(rest), [])
    if [hit[0] for hit in moved] != ids:
        note(notes, "the question asks how the code works: its tests come after the code, each keeping the score it "
                    "ranked with")
    return moved


def messages_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with the code passages holding the string that makes a pasted message first (``symbols.
    message_match``: 'part 3 of a.png failed after 6 attempts' is f"part {number} of {key} failed after {attempt + 1}
    attempts"), the one holding more of it first, in keyword and hybrid search, for a query of three words or more.
    Its words ranked a runbook quoting the message and passages saying its words more often above the line that
    makes it. Scores stay as ranked; a note says so when the order changed."""
    if mode == "semantic" or len(query.split()) < 3 or not ranked:
        return ranked
    code = read.rows([hit[0] for hit in ranked], kind="code")  # only code makes a message: a note is not read
    held = {cid: symbols.message_match(query, r["text"]) for cid, r in code.items()}
    first = sorted((hit for hit in ranked if held.get(hit[0])), key=lambda hit: -held[hit[0]])
    return moved_first(ranked, first, notes, "the code passages holding the text that makes the message")


def traced_first(read: Passages, query: str, ranked: list, mode: str, filters: Filters, notes: list[str]) -> list:
    """``ranked`` with the passages at the lines a pasted stack trace names first (``symbols.frames``: 'File
    "/usr/lib/python3.11/asyncio/base_events.py", line 653', 'at use (/app/router/index.js:376:9)'), the most
    recent call first, in keyword and hybrid search: of each file the trace names (``symbols.traced_files``), the
    passage holding the line that starts nearest before it, or, where the frame names a function that passage does
    not define (the code changed since the trace, or the trace is a build's), the passage of the file defining it;
    of several files of the trace's name ('/app/views.py', a project's orders/views.py and users/views.py), those
    defining the function. One none of the rankings found comes scored 0 and unranked. The trace's words ranked
    other passages that say asyncio, events and run above the function it ran in. Scores stay as ranked; a note
    says so when the order changed."""
    catalog = read.catalog
    held = lambda path: symbols.held_at(path, catalog.collections, catalog.paths, catalog.named)  # noqa: E731
    traced = symbols.frames(query, held) if mode != "semantic" else []
    if not traced:
        return ranked
    traced = _through_source_maps(read, query, traced, notes)
    mask = catalog.mask(filters)
    found = []
    files: dict[tuple[str, str | None], list[int]] = {}  # a long trace names a file at many lines: each file is
    passages: dict[int, list] = {}  # looked for once, and its passages read once (a paste of 130 frames read them
    headed: dict[int, dict[int, str]] = {}  # 130 times), their headings where a frame's function is looked for
    for path, line, function in traced:
        if (path, function) not in files:
            rows = symbols.traced_files(path, catalog.collections, catalog.paths, catalog.named)
            if not rows and function:
                rows = symbols.traced_files(path, catalog.collections, catalog.paths, catalog.named, ambiguous=True)
                rows = [row for row in rows if _defining(read, row, function, mask, passages, headed)]
            files[(path, function)] = rows
        for row in files[(path, function)]:
            _passages_of(read, row, mask, passages)
            holding = [(cid, start) for cid, start, end in passages[row] if start <= line <= end]
            at = max(holding, key=lambda held: (held[1], -held[0]))[0] if holding else None
            if function and not (at is not None and _defines_at(read, at, function, headed.get(row))):
                defining = _defining(read, row, function, mask, passages, headed)
                at = min(defining, key=lambda held: (abs(held[1] - line), held[0]))[0] if defining else at
            if at is not None:
                found.append(at)
    by_id = {hit[0]: hit for hit in ranked}
    first = [by_id.get(cid, (cid, 0.0, [None, None])) for cid in dict.fromkeys(found)]
    backtrace.minified_note(query, [path for (path, _), rows in files.items() if not rows], notes)
    return moved_first(ranked, first, notes, "the passages at the lines the stack trace names")


def _through_source_maps(read: Passages, query: str, traced: list, notes: list[str]) -> list:
    """``traced`` with each frame of a bundle no file indexed stands for read through the bundle's source map, where
    a collection's folder holds one (``source_maps``): the source file and line it was built from, its minified
    function's name read as the original one the map names at its call (``source_maps.callers``), or left out.
    A note says what each was read as, or why a map was not read."""
    catalog = read.catalog
    found = lambda path: symbols.traced_files(path, catalog.collections, catalog.paths, catalog.named)  # noqa: E731
    at_columns, read_as, frames = source_maps.columns(query), [], []
    # not a library's (node_modules/), whose maps would lead into the library's sources
    bundled = [(path, line, column) for path, line, _ in traced
               if (path, line) in at_columns and source_maps.BUNDLE.search(path)
               and not backtrace.library_path(path) and not found(path) for column in at_columns[(path, line)]]
    mapped_at = {}
    if bundled:  # each map read once for all its frames (a map's mappings are read to its farthest frame)
        roots = [(row["name"], row["root"]) for row in collection_reads.collections(read.conn)]
        mapped_at = source_maps.originals(roots, bundled)
    calls = source_maps.callers(query)
    for path, line, function in traced:
        # a one-line bundle's frames: one line at several columns, each read as its own place, in the trace's order
        places = [(column, mapped_at.get((path, line, column))) for column in at_columns.get((path, line), [None])]
        for refused in dict.fromkeys(str(at) for _, at in places if isinstance(at, source_maps.Refused)):
            note(notes, refused)
        mapped = [(column, at) for column, at in places if isinstance(at, source_maps.Mapped)]
        if not mapped:
            frames.append((path, line, function))
        for column, at in mapped:
            # its function's original name: the name the map gives its call, the next frame's place
            call = mapped_at.get(calls.get((path, line, column)))
            name = call.name if isinstance(call, source_maps.Mapped) and call.name else None
            frames.append((next((held for held in at.candidates if found(held)), at.candidates[-1]), at.line, name))
            read_as.append(f"{at.shown} is {at.source}:{at.line}{f' ({name})' if name else ''} by its source map "
                           f"{at.map_path}")
    if read_as:
        note(notes, f"the stack trace's frame{'s' if len(read_as) > 1 else ''} {'; '.join(read_as)}")
    return frames


def _passages_of(read: Passages, row: int, mask, passages: dict[int, list]) -> list:
    """(id, start line, end line) of the passages of the file at ``row`` within ``mask``, read once a search (their
    lines alone: a file copied in 20 collections is 20 files' passages)."""
    if row not in passages:
        ids = read.catalog.chunks_of(row, mask)
        passages[row] = [lines for lines in chunk_reads.chunk_lines(read.conn, ids) if lines[1] is not None]
    return passages[row]


def _defining(read: Passages, row: int, function: str, mask, passages: dict, headed: dict) -> list[tuple[int, int]]:
    """(id, start line) of the passages of the file at ``row`` whose headings name a definition ``function``."""
    lines = _passages_of(read, row, mask, passages)
    if row not in headed:
        headed[row] = chunk_reads.headings(read.conn, [cid for cid, _, _ in lines])
    return [(cid, start) for cid, start, _ in lines
            if symbols.names_definition(function, True, headed[row].get(cid) or "")]


def _defines_at(read: Passages, cid: int, function: str, headings: dict[int, str] | None) -> bool:
    """Whether the passage ``cid`` holding a frame's line is where its ``function`` is: its heading names it, or
    its text declares it (a nested function, a lambda's line: the passage of the definition holding it)."""
    if headings is not None and symbols.names_definition(function, True, headings.get(cid) or ""):
        return True
    row = read.rows([cid]).get(cid)
    return row is None or symbols.names_definition(function, True, row["heading_path"] or "") \
        or symbols.declares(function, row["text"])


def own_notes_first(read: Passages, query: str, ranked: list, mode: str, notes: list[str]) -> list:
    """``ranked`` with each BibTeX entry's passage after the other files' passages that keyword search found (they
    hold the query's words), when the query asks for the user's own notes (``question.OWN_NOTES``), in keyword and
    hybrid search: 'my notes on @vaswani2017attention' ranked the two .bib entries of that citekey, headed by it,
    above the note citing it (3rd). An entry comes no earlier than it ranked, and before the passages found by
    meaning alone that it ranked above: with no note on it, it is the answer. Scores stay as ranked; a note says so
    when the order changed."""
    if mode == "semantic" or not ranked or not question.OWN_NOTES.search(query):
        return ranked
    rows = read.catalog.files([hit[0] for hit in ranked])
    entries = {hit[0] for hit, row in zip(ranked, rows)
               if read.catalog.paths[row].lower().endswith(BIBLIOGRAPHY_ENDINGS)}
    if not entries:
        return ranked
    rest = [hit for hit in ranked if hit[0] not in entries]
    after = max((i + 1 for i, hit in enumerate(rest) if hit[2][0] is not None), default=0)
    placed: dict[int, list] = {}
    before = 0
    for hit in ranked:
        if hit[0] in entries:
            placed.setdefault(max(before, after), []).append(hit)
        else:
            before += 1
    moved = [hit for i, other in enumerate(rest) for hit in [*placed.get(i, []), other]] + placed.get(len(rest), [])
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        note(notes, "the query asks for your notes: the BibTeX entries come after the other files' passages "
                    "holding its words, each keeping the score it ranked with")
    return moved


def moved_first(ranked: list, first: list, notes: list[str], what: str) -> list:
    """``first`` (hits of ``ranked``, or passages added to it), then the rest of ``ranked`` in its order; where that
    changed the order, a note that ``what`` come first, each keeping the score it ranked with."""
    chosen = {hit[0] for hit in first}
    moved = first + [hit for hit in ranked if hit[0] not in chosen]
    if [hit[0] for hit in moved] != [hit[0] for hit in ranked]:
        note(notes, f"{what} come first, each keeping the score it ranked with")
    return moved
