"""A query that is the name of something in code, and the passages that define it.

A developer who types ``periodic_task``, ``Huey.enqueue``, ``Lexer::next_token``, ``@huey.task`` or
``MAX_DECLARED_STREAM_LENGTH`` wants the definition of that name first. Keyword search splits such a name into its
words and stems them, so ``periodic_task`` ranked ``periodic_tasks`` (another function) and every passage that
says "periodic task" above the function itself. A code passage's heading path names its definition
(``api > Huey > periodic_task``), or the definitions the chunker joined into it (``mini > MiniHuey >
periodic_task, start``); a module's constants are declared in its text.
"""
from __future__ import annotations

import functools
import re

# One name, qualified by '.', '::', '->', '#' or '\' (PHP namespaces), as code and stack traces write it; a leading
# '@' (a decorator) and trailing '()' are allowed.
PART = r"[^\W\d]\w*|\$\w+"
_ASKED_NAME = rf"[`'\"]?@?(?P<name>(?:{PART})(?:(?:\.|::|->|#|\\)(?:{PART}))*)(?:\(\))?[`'\"]?"
CODE_NAME = re.compile(rf"@?(?P<name>(?:{PART})(?:(?:\.|::|->|#|\\)(?:{PART}))*)(?:\(\))?", re.UNICODE)
SEPARATOR = re.compile(r"\.|::|->|#|\\")
# A kebab-case name, as a command-line flag (``--dry-run``), a CSS class (``.btn-primary``), a Lisp, shell or Make
# name (``retry-upload``) writes one: words joined by '-', a flag's dashes or a class's dot before it.
KEBAB = re.compile(r"(?:--?|\.)?(?P<name>[^\W\d_][^\W_]*(?:-[^\W_]+)+)")
CAMEL = re.compile(r"[a-z0-9][A-Z]")  # a capital inside a word: getUserName, ErrExpired, utf8Decode
# A line that declares a name: a keyword of some language before it, after modifiers (``export async function``,
# ``pub fn``, Go's ``func (c *Cache)``, ``#define``).
MODIFIERS = (r"(?:(?:export|pub(?:\([\w:]+\))?|async|static|public|private|protected|internal|final|abstract"
             r"|default|unsafe|extern|inline|readonly|override|open)\s+)*")
KEYWORDS = (r"(?:def|class|function\*?|func(?:\s*\([^)\n]*\))?|fn|struct|enum|trait|interface|type|module|impl"
            r"|const|let|var|val|object|#\s*define"
            r"|create\s+(?:or\s+replace\s+)?(?:(?:temp|temporary|unique|materialized)\s+)?"  # SQL's CREATE TABLE …
            r"(?:table|view|function|procedure|type|trigger|index|domain)(?:\s+if\s+not\s+exists)?)")


# A frame of a pasted stack trace: Python's 'File "/usr/lib/python3.11/asyncio/base_events.py", line 653, in
# run_until_complete', or a path with its line as Node, Java, Go, Rust, pytest and compilers write it ('at use
# (/app/node_modules/router/index.js:376:9)', 'at com.shop.Orders.place(Orders.java:42)', 'app/orders.py:14: in
# place_order'); the function it names, where it names one ('<module>', 'Object.<anonymous>': none; Go's and
# Rust's, on the line before: ``backtrace``). Firefox and Safari write the function before an '@' at the line's
# start ('e@https://host/dist/app.js:1:2345', 'Foo/bar/<@…', 'async*load@…', Safari's 'global code@…': ``named``,
# read by ``backtrace.browser_function``): the name was read as the path's start ('handleClick@/app/src/App.js')
# and none was given. A name is no path: it starts with no '/', '.' or '~' and ends with no '/' (a Go module's
# '/go/pkg/mod/github.com/lib/pq@v1.10.9/conn.go', npm's 'node_modules/@babel/core/…' stay paths); an anonymous
# function's '@' (none before it) is followed by a URL's scheme.
FRAME = re.compile(r'File "(?P<file>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<function>\w+)\b(?!>))?'
                   r'|(?:(?:\bat\s+(?:async\s+)?(?:new\s+)?(?P<caller>[\w$.]+)(?:\s+\[as\s+[\w$]+\])?\s*\('
                   r'|(?<!\S)(?P<named>(?![/.~])(?=[^\s@]|@[\w-]+:/)(?:promise callback\*|\w+ code\b)?[^\s@()"\'/]*(?:/+[^\s@()"\'/]+)*)@)'
                   # a scheme before the path: 'file:///app/x.js', 'webpack-internal:///./src/x.ts', and a host's
                   # port ('http://localhost:3000/static/js/main.js': the path was read from '3000')
                   r'(?:[\w-]+:/+(?:[\w.-]+:\d+/)?)?)?'
                   # a path begins where a run of a path's characters does, or after a '/' no such character is before
                   # ('file:///app'): tried at each letter of a pasted 10,000-letter word, each start read the word to
                   # its end, 3 s a pass, and a search makes four
                   # (after a frame's '(' or '@' and its scheme, a path begins there)
                   r'(?(named)|(?(caller)|(?<![\w.~@\\-])(?<![\w.~@\\-]/)))'
                   r'(?P<path>[\w.~@/\\-]*\w\.[A-Za-z]\w*):(?P<at>\d+)(?::(?P<column>\d+))?(?::\s+in\s+(?P<tested>\w+)\b(?!>))?')


def frames(query: str, held=None) -> list[tuple[str, int, str | None]]:
    """(path as the trace writes it, with '/', line, the function's name or None) of each frame of a stack trace
    the query holds, each once, the most recent call first: Python's traceback (its 'File "…", line N' frames)
    writes it last, where the error was raised, the other traces first. Of several traces pasted together
    (``pasted_traces``), each is read so, and their frames taken in turn, each trace's most recent call first. A
    frame of Node's own module written bare ('events.js:377:5', 'internal/…') is kept only where ``held(path)`` says
    a collection holds a file there."""
    from search.query import backtrace, pasted_traces
    above = backtrace.functions(query)  # Go's and Rust's, named on the line before the path
    starts = pasted_traces.starts(query, [m.start() for m in FRAME.finditer(query)])
    traces: dict[int, list] = {}  # of each trace pasted (``pasted_traces``), its frames, and whether Python's
    for m in FRAME.finditer(query):
        found = traces.setdefault(pasted_traces.trace_of(starts, m.start()), [])
        if backtrace.toolchain(query, m):  # Rust's, Go's or Node's own library, no file of the user's
            continue
        if backtrace.node_bare(query, m) and not (held and held(m.group("path").replace("\\", "/"))):
            continue
        function = (m.group("function") or m.group("tested") or (m.group("caller") or "").rsplit(".", 1)[-1]
                    or backtrace.browser_function(m.group("named"))
                    or (above.get(m.end("path")) if m.group("path") else None) or None)
        found.append(((m.group("file") or m.group("path")).replace("\\", "/"), int(m.group("line") or m.group("at")),
                      function, m.group("file") is not None))
    # each trace the most recent call first (a Python traceback's read backwards), then of several traces their
    # frames taken in turn: each trace's most recent call before any trace's second
    ordered = [trace[::-1] if any(python for *_, python in trace) else trace for trace in traces.values()]
    found = [trace[depth][:3] for depth in range(max(map(len, ordered), default=0))
             for trace in ordered if depth < len(trace)]
    named: dict[tuple[str, int], str | None] = {}
    written: dict[tuple[str, int], str] = {}
    # a frame written twice: once, with its function where one names it (Rust's 'panicked at src/db.rs:17:5' and
    # its backtrace's 'at ./src/db.rs:17:5' under 'myapp::db::connect')
    for path, line, function in found:
        key = (path.removeprefix("./"), line)
        written.setdefault(key, path)
        named[key] = named.get(key) or function
    return [(written[key], key[1], function) for key, function in named.items()]


def traced_files(path: str, collections, paths: list[str], among=None, ambiguous: bool = False) -> list[int]:
    """The rows of the indexed files (``collections``, ``paths`` relative to their roots) a traced ``path`` names:
    those whose path is the longest tail of it ('/usr/lib/python3.11/asyncio/base_events.py' is 'asyncio/base_events.py'
    of the collection holding the stdlib; a collection's name may stand before it), or the one file of its name.
    ``among(name)``: the rows of the files of that name (casefolded), ascending (``Catalog.named``), if known: only
    those are looked at (a file of another name is no tail of the path). With ``ambiguous``, the files of its name
    where no one file is the path's tail ('/app/views.py' and a project's orders/views.py and users/views.py: the
    function the frame names tells which)."""
    from search.query.backtrace import library_path
    traced = "/" + path.strip().lstrip("/").casefold()
    name = traced.rsplit("/", 1)[-1]
    # a library's file: only a file whose path holds the library's own stands for it, wherever it is (a vendored
    # copy's vendor/express/lib/router/index.js of '/app/node_modules/express/lib/router/index.js')
    library = library_path(path)
    best, rows, named = 0, [], []
    for row in (range(len(paths)) if among is None else among(name)):
        collection, indexed = collections[row], paths[row]
        if not indexed.casefold().endswith(name):
            continue
        if library and not any(whole == library or whole.endswith("/" + library)
                               for whole in (indexed.casefold(), f"{collection}/{indexed}".casefold())):
            continue
        if indexed.casefold().rsplit("/", 1)[-1] == name.lstrip("/"):
            named.append(row)
        tails = [whole for whole in (indexed.casefold(), f"{collection}/{indexed}".casefold())
                 if traced.endswith("/" + whole)]
        length = max([whole.count("/") + 1 for whole in tails] + [library.count("/") + 1 if library else 0])
        if length > best:
            best, rows = length, [row]
        elif length and length == best:
            rows.append(row)
    if ambiguous:
        return rows or named
    return rows if best > 1 or len(rows) == 1 else []  # 'index.js' alone, in several folders: which is unknown


def held_at(path: str, collections, paths: list[str], among) -> bool:
    """Whether a collection holds a file at the very ``path`` a frame writes, relative to its root (or after its
    collection's name): 'internal/util.js' of a project's internal/util.js, 'events.js' of an events.js at its root.
    ``among(name)``: the rows of the files of that name (``Catalog.named``)."""
    wanted = path.strip().removeprefix("./").casefold()
    return any(whole == wanted for row in among(wanted.rsplit("/", 1)[-1])
               for whole in (paths[row].casefold(), f"{collections[row]}/{paths[row]}".casefold()))


def names_file(query: str, collection: str, path: str) -> bool:
    """Whether the query is the name of the file at ``path`` (relative to its collection's root), or its path's
    tail, or its path as results show it (``filters.py``, ``pypdf/filters.py``, ``corpus/pypdf/filters.py``), case
    aside: one word with an extension or a '/'. Its words alone ranked the passages saying 'filters' most above the
    file."""
    wanted = query.strip().strip("/").casefold()
    if not wanted or any(c.isspace() for c in wanted) or not ("/" in wanted or "." in wanted.rsplit("/", 1)[-1]):
        return False
    return any(whole == wanted or whole.endswith("/" + wanted)
               for whole in (path.casefold(), f"{collection}/{path}".casefold()))


def code_name(query: str) -> list[str] | None:
    """The parts of the qualified name the query is (``huey.api.Huey.revoke_by_id`` -> [huey, api, Huey,
    revoke_by_id]); None for a query that is not one name (words with spaces between, a phrase), or that is a
    plain word (``registry``, ``Python``): a word of prose as much as a name, for which notes about it should
    not give way to the functions it names. A name is written as code writes one: qualified, with '_',
    in camelCase (``getUserName``, ``ErrExpired``), in capitals (``MAX_RETRIES``, ``URL``), as a decorator or a call."""
    query = query.strip()
    kebab = KEBAB.fullmatch(query)
    if kebab:  # 'retry-upload' is retry_upload and retryUpload, as the other case styles are one another
        return [kebab.group("name")]
    found = CODE_NAME.fullmatch(query)
    if not found:
        return None
    name = found.group("name")
    parts = SEPARATOR.split(name)
    written_as_code = (len(parts) > 1 or "_" in name or "$" in name or CAMEL.search(name) is not None
                       or (len(name) > 1 and name.isupper()) or query.startswith("@") or query.endswith("()"))
    return parts if written_as_code else None


# A question asking where a name is defined: 'where is SqliteStorage defined', "where's read_timeout declared",
# 'definition of Huey.enqueue', 'which file defines escape_unicode', 'go to definition of connect'. Its framing
# words ranked the passages saying 'defined' and the name's words (SqliteStorage's __init__ and enqueue, a test's
# tearDown) above the class, which says neither twice.
_KIND_WORD = r"(?:(?:the|a)\s+)?(?:(?:class|function|method|struct|type|constant|variable|interface|enum|macro)\s+)?"
DEFINED_ASKED = [re.compile(pattern.replace("NAME", _KIND_WORD + _ASKED_NAME) + r"\s*\??\s*", re.IGNORECASE)
                 for pattern in (
    r"\s*where(?:\s+is|'s|\s+are)\s+NAME\s+(?:defined|declared|implemented)(?:\s+in\s+\w+)?",
    r"\s*where\s+(?:does|do)\s+NAME\s+(?:get\s+)?(?:defined|declared|implemented|live|come\s+from)",
    r"\s*(?:(?:find|show|go\s+to|jump\s+to)\s+)?(?:the\s+)?(?:definition|declaration|implementation)"
    r"\s+(?:of|for)\s+NAME",
    r"\s*NAME\s+(?:definition|declaration|implementation)",
    r"\s*(?:which|what)\s+file\s+(?:defines|declares|implements)\s+NAME",
    r"\s*(?:which|what)\s+file\s+is\s+NAME\s+(?:defined|declared|implemented)\s+in")]
# A package's, module's or class's name and then a definition's, as words: 'aiosqlite connect', 'huey api enqueue',
# 'Huey enqueue'. As words they ranked the tests calling aiosqlite.connect above its definition in core.py; the
# definition counts only where the words before the last are its owners or folders (``defines``).
WORDED_NAME = re.compile(rf"\s*(?:{PART})(?:\s+(?:{PART})){{1,2}}\s*")


def asked_name(query: str) -> list[str] | None:
    """The parts of the name whose definition the query asks for: the name it is (``code_name``), the name a
    question asks where it is defined (``DEFINED_ASKED``: any name, a plain word too, as the question says it is one),
    or for two or three words (``WORDED_NAME``) each word a part, which ``defines`` finds only where the first are
    the definition's owners or folders ('periodic task' is words, and moves nothing); None for any other query."""
    if not any(c.isspace() for c in query.strip()):
        return code_name(query)
    for pattern in DEFINED_ASKED:
        found = pattern.fullmatch(query)
        if found and found.group("name").casefold() not in PRONOUNS:
            return SEPARATOR.split(found.group("name"))
    return query.split() if WORDED_NAME.fullmatch(query) else None


def word_name(query: str) -> tuple[str, bool] | None:
    """(the name, whether its '_' count) a query of plain words can be, where it is no name as code writes one
    (``code_name``): one word as it is ('enqueue'), two or three run together ('safe join': ``safe_join``,
    ``safeJoin``); None for any other query. A plain word counts as written, its '_' too (``_enqueue`` is
    another function); words joined, however the code joins them."""
    words = query.split()
    if len(words) == 1 and code_name(query) is None and re.fullmatch(PART, words[0]) and not words[0].startswith("$"):
        return words[0], True
    if 2 <= len(words) <= 3 and WORDED_NAME.fullmatch(query):
        return "_".join(words), False
    return None


def names_definition(name: str, exact: bool, heading_path: str) -> bool:
    """Whether a code passage's heading names a definition called ``name`` (case aside; with ``exact``, its '_' as
    written): one of the definitions a joined passage shows (``deserialize_task, enqueue``) counts."""
    if " > " not in heading_path:
        return False
    shown = MORE_NAMED.sub("", heading_path.split(" > ")[-1].strip()).split(", ")
    same = (lambda found: found.casefold() == name.casefold()) if exact else (lambda found: folded(found) == folded(name))
    return any(same(one.split(".")[-1]) for one in shown)


def names(name: str, text: str) -> bool:
    """Whether ``text`` holds ``name`` as a whole identifier, however its words are joined (``read_timeout``,
    ``readTimeout``; not ``read_timeout_seconds``): a parameter's or a setting's name has no definition of its own,
    and its words ranked the passages saying 'read' and 'timeout' most above those that take it."""
    key = folded(name)
    if not key or key not in text.casefold().replace("_", "").replace("-", ""):
        return False
    # a kebab-case name's words as the code writes them: 'e-mail' is no ``email`` (``_worded_as``)
    return any(_worded_as(name, found.group()) for found in
               re.finditer(rf"(?<![\w$]){_spelled(name)}(?![\w$])", text, re.IGNORECASE))


# A definition's name said in words in a question: 'how does pypdf rebuild a broken xref table' asks for
# ``_rebuild_xref_table``, 'how does the stdio client stop the server process' for ``_stop_server_process``, 'where
# are tool names validated' for ``validate_tool_name``. Passages saying 'xref' and 'table' more often (a function
# raising "Broken xref table") ranked above it, and a file's first two passages left it off the page.
WORDED_MIN = 3  # words of a name said in any order, within WORDED_SPAN more words of the query; two said side by side
WORDED_SPAN = 2
# a final 's' after an 's' is the word's own ('process', 'class', 'address'): cut, 'process' was 'proces' and
# 'processes' 'process', two words
_ENDINGS = re.compile(r"(?:ing|ed|es|(?<!s)s|e)$")
_LONE_S = re.compile(r"(?<!s)s$")
_VOWEL = re.compile(r"[aeiouy]")
# a consonant doubled before an ending ('stopped', 'logging', 'planned'), as the word alone ends once ('stop', 'log',
# 'plan'); 'll', 'ss' and 'zz' are the word's own ('called', 'passed', 'buzzed')
_DOUBLED = re.compile(r"([bcdfghjkmnpqrtvwx])\1$")
_CONSONANT_Y = re.compile(r"(?<=[^aeiouy])y$")  # 'retry', 'copy', 'apply', 'entry' ('retried', 'copies': an 'i')
# Latin plurals that code says as often as their English ones ('indices' and 'indexes' of ``index``)
_LATIN = {"indices": "index", "vertices": "vertex", "matrices": "matrix", "appendices": "appendix"}
# verbs ending in 'ee', whose 'ed' follows it ('freed', 'agreed'): read as the word ('free') before the cut, where
# 'speed', 'need' and 'exceed' end in 'eed' of their own
_EE_VERBS = re.compile(r"(?:free|agree|guarantee|decree|referee|oversee)d$")


def _stem(word: str) -> str:
    """A word without the ending of an inflection, the same cut for 'validate', 'validated' and 'validates', for
    'process', 'processes' and 'processing', for 'alias' and 'aliases', 'cause' and 'causes', for 'retry',
    'retries' and 'retried' ('retri'), 'stop', 'stops' and 'stopped' ('stop'), 'index', 'indexes' and 'indices'.
    'retried' was 'retri' and 'retry' itself, 'logged' 'logg' and 'log' itself: 'how are failed uploads retried'
    never found ``retry_failed_upload``; 'free', 'freed' and 'freeing' ('fre'), 'agree' and 'agreed': 'freed' kept
    its 'eed' as 'speed' does."""
    word = word.casefold()
    word = _LATIN.get(word, word)
    if _EE_VERBS.search(word):
        word = word[:-1]
    ending = _ENDINGS.search(word)
    # what a cut leaves holds a vowel, as a word does ('string' is no 'str' + 'ing', 'strings' 'string' + 's'); 'speed',
    # 'need' and 'exceed' end in 'eed' of their own ('exceeded' is 'exceed' + 'ed')
    if ending and ending.start() >= 3 and _VOWEL.search(word[:ending.start()]) and not word.endswith("eed"):
        cut = word[:ending.start()]
        # 'aliases' is 'alias' + 'es' and 'causes' 'cause' + 's', both 'ses': what a cut leaves ending in one 's' is
        # cut as the word alone is ('alias' → 'alia', 'causes' → 'caus' → 'cau', as 'cause' → 'caus' → 'cau'); what
        # 'ing' or 'ed' leaves ending in 'e' so ('queueing' → 'queue' → 'queu', as 'queued' and 'queue')
        if ending.group() != "s" and _LONE_S.search(cut) and len(cut) > 3:
            cut = cut[:-1]
        elif ending.group() in ("ing", "ed") and cut.endswith("e") and len(cut) > 3:
            cut = cut[:-1]
        word = cut
    word = _DOUBLED.sub(r"\1", word)
    return _CONSONANT_Y.sub("i", word) if len(word) > 2 else word


def worded(query: str, heading_path: str) -> int:
    """How many words the name a code passage's heading ends with has (``_rebuild_xref_table``: 3) when the query
    says them all: a name of WORDED_MIN words or more in any order among as many words of the query and WORDED_SPAN
    more, one of two words in order side by side ('safe join'); of a passage of joined definitions (``entry,
    NewLRUCache``), the most of any name it shows; 0 when it names none the query says."""
    if " > " not in heading_path:
        return 0
    said = _said_words(query)
    last = MORE_NAMED.sub("", heading_path.split(" > ")[-1].strip())
    passive = _participles(query)
    return max(_said(said, name.split(".")[-1], passive) for name in last.split(", "))


@functools.lru_cache(maxsize=8)
def _said_words(query: str) -> tuple[str, ...]:
    """The query's words stemmed, made once per query: each code passage ranked is compared with them."""
    return tuple(_stem(word) for word in re.findall(r"\w+", query))


@functools.lru_cache(maxsize=8)
def _participles(query: str) -> frozenset[str]:
    """The stems of the query's words written as a past participle ('resolved', 'validated')."""
    return frozenset(_stem(word) for word in re.findall(r"\w+ed\b", query.casefold()))


@functools.lru_cache(maxsize=4096)
def _name_stems(name: str) -> tuple[str, ...]:
    return tuple(_stem(word) for word in _words(name))


def _said(said: tuple[str, ...], name: str, passive: frozenset[str] = frozenset()) -> int:
    """``worded`` of one ``name``, the query's words stemmed (``said``), those it wrote as past participles
    (``passive``)."""
    wanted = list(_name_stems(name))
    if len(wanted) < 2 or len(set(wanted)) < len(wanted) or not set(wanted) <= set(said):
        return 0
    if len(wanted) == 2:
        pairs = [list(said[i:i + 2]) for i in range(len(said) - 1)]
        # or the name's verb said after its object, as a passive question says it ('how are aliases resolved':
        # ``resolve_alias``)
        return 2 if wanted in pairs or wanted[::-1] in pairs and wanted[0] in passive else 0
    if len(wanted) < WORDED_MIN:
        return 0
    width = len(wanted) + WORDED_SPAN
    windows = (set(said[i:i + width]) for i in range(max(1, len(said) - width + 1)))
    return len(wanted) if any(set(wanted) <= window for window in windows) else 0


def asks_how(query: str) -> bool:
    """Whether the query is a how- or why-question ('how does the server protect against DNS rebinding'), whose
    answer is a mechanism one file's code may hold in several passages (``results_page.per_file``)."""
    from search.query import question
    return bool(re.match(r"\s*(?:how|why)\b", query, re.IGNORECASE)) and question.asks(query)


def heading_case(name: str, heading_path: str) -> bool:
    """Whether a code passage's heading names a definition ``name`` in the very case the query writes it: of
    ``@huey.task``'s two definitions by case aside, Huey's method ``task`` before the class ``Task``."""
    shown = MORE_NAMED.sub("", heading_path.split(" > ")[-1].strip()).split(", ")
    return " > " in heading_path and any(one.split(".")[-1] == name for one in shown)


def defines(parts: list[str], heading_path: str, text: str, path: str = "") -> bool:
    """Whether the code passage under ``heading_path`` ('api > Huey > revoke_by_id': module, classes, definition)
    holding ``text`` defines the name ``parts`` (case aside): one of its heading's definitions (a passage of
    joined sections names each, ``errors > XmpDocumentError, LimitReachedError``) is the name's last part, the
    qualifiers the query gives agreeing with the heading's as far as both go (a package before the module, as
    in ``huey.api.Huey``, is passed over; the module alone is the file, not a definition in it); or, for a name
    without qualifiers, or a qualified one where the heading names more definitions than it shows (``a, b, c
    +4``) and the qualifiers are the heading's or the text declares the last of them too, its text declares it
    (``declares``). ``path``: the file's, relative to its root, whose folders are packages: ``json.loads`` is
    defined in json/__init__.py ('__init__ > loads'), ``asyncio.run`` in asyncio/runners.py, which the package
    hands on; a heading's module alone missed both."""
    name = [folded(part) for part in parts]
    heading = [folded(part.strip()) for part in heading_path.split(" > ")]
    if len(heading) < 2:
        return len(parts) == 1 and declares_in(path, parts[0], text)
    owners, last = heading[:-1], heading[-1]
    hidden = MORE_NAMED.search(last)
    if len(parts) > 1 and not hidden and name[-1] not in folded(heading_path):
        return False  # a qualified name's last part is in the heading, however written, or nothing defines it
    for named in MORE_NAMED.sub("", heading_path.split(" > ")[-1].strip()).split(", "):
        if not _worded_as(parts[-1], named.split(".")[-1]):
            continue
        for held in _owned(owners, path):
            whole = held + [folded(part) for part in named.split(".")]
            if whole[-1] == name[-1] and _agree(name[:-1], whole[:-1]):
                return True
    if hidden and len(parts) > 1 and (_agree(name[:-1], owners) or declares(parts[-2], text)):
        return declares(parts[-1], text)
    return len(parts) == 1 and declares_in(path, parts[0], text)


def _owned(owners: list[str], path: str) -> list[list[str]]:
    """A definition's owners as its heading names them (module, classes), and, in a file under folders (packages),
    with the folders before them, the module left out (the package hands on what its modules define, and a
    package's ``__init__.py`` or ``index.js`` is the package itself)."""
    folders = [folded(part) for part in path.split("/")[:-1] if part]
    return [owners, folders + owners[1:]] if folders else [owners]


MORE_NAMED = re.compile(r" \+\d+$")  # '+4' after the names a joined passage's heading shows (ingest.chunk)


def joined(heading_path: str) -> bool:
    """Whether a code passage's heading names more than one definition (the chunker joined short ones)."""
    last = heading_path.split(" > ")[-1]
    return ", " in last or MORE_NAMED.search(last) is not None


def _agree(qualifiers: list[str], owners: list[str]) -> bool:
    """Whether a name's qualifiers and a definition's owners agree as far as both go, from the name's end."""
    shared = min(len(qualifiers), len(owners))
    return qualifiers[len(qualifiers) - shared:] == owners[len(owners) - shared:]


def folded(name: str) -> str:
    """A name as compared with another, whichever way it is written: case aside and without its underscores, so
    that ``upload_retry_limit`` is the TypeScript ``uploadRetryLimit`` and ``RetryUploadPart`` the Python
    ``retry_upload_part`` (a developer writes a name as the language they think in writes it: the other file's
    definition ranked below a test whose words are the name's); a kebab-case name's '-' goes as its '_' does
    (``retry-upload``)."""
    return name.casefold().replace("_", "").replace("-", "") or name.casefold()


_WORD_BREAK = re.compile(r"[_-]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _words(name: str) -> list[str]:
    """A name's words, casefolded: split at '_', '-' and where camelCase starts one (``retryUpload``,
    ``HTTPServer``)."""
    return [word.casefold() for word in _WORD_BREAK.split(name) if word]


def _worded_as(asked: str, found: str) -> bool:
    """Whether a name ``found`` in code can be the kebab-case name ``asked`` (any other: True, as ``folded``
    compares them): its words are the kebab name's, however joined, not its letters run together. 'e-mail' and
    'follow-up' are words of prose with a hyphen, and found the functions ``email`` and ``followup`` first."""
    return "-" not in asked or _words(found) == _words(asked)


def _spelled(name: str) -> str:
    """A pattern of ``name`` (casefolded) however its words are joined: by '_', by '-' or not at all."""
    return "[_-]*" + "[_-]*".join(map(re.escape, folded(name)))


def declares(name: str, text: str) -> bool:
    """Whether ``text`` has a line declaring ``name`` (case and underscores aside, as ``folded``): ``class
    XmpDocumentError(…)``, ``var ErrExpired = …``, ``export const formatUserLabel = …``, or, for a name in capitals
    (``MAX_RETRIES``), an assignment starting a line (``MAX_RETRIES = 5``: a local variable in small letters is
    assigned in many functions). A kebab-case name (``retry-upload``) as its languages declare one too: a flag
    added (``add_argument("--dry-run"``, ``option('--dry-run'``), a CSS rule's selector (``.btn-primary {``), a shell or
    Make function (``retry-upload() {``, ``retry-upload:``), Lisp's ``(defun retry-upload``, a flag Click adds with its
    negation (``"--dry-run/--no-dry-run"``) or Go's flag package, cobra and absl by its name (``flag.Bool("dry-run"``,
    ``Flags().BoolVar(&d, "dry-run"``); a selector's class as
    written, '-' and all (no member name of JavaScript or Python holds one: ``if (opts.dryRun) {`` reads the flag)."""
    folded_text, key = text.casefold(), name.casefold().replace("_", "").replace("-", "")
    if key and key not in folded_text.replace("_", "").replace("-", ""):
        return False  # the name, however joined, is nowhere in it: no pattern to run (0.3 ms a passage, 80 a search)
    spelled = _spelled(name)
    groups = iter(range(8))
    word = (lambda: f"(?P<k{next(groups)}>{spelled})") if "-" in name else (lambda: spelled)  # each a group's
    pattern = rf"^[ \t]*{MODIFIERS}{KEYWORDS}[ \t]+[`\"\[]?{word()}\b"
    if "-" in name:
        pattern += (rf"|(?:argument|option|flag)\w*\([^\n]*[\"']--?{word()}[\"'=/]"  # click: '--dry-run/--no-dry-run'
                    rf"|\bflags?(?:\(\))?\.\w+\([^\n]*[\"']{word()}[\"']"  # Go, cobra, absl: flag.Bool("dry-run", …)
                    rf"|^[ \t]*[^\n{{;/'\"(]*\.{re.escape(name.casefold())}(?![\w-])[^\n{{;]*\{{"
                    rf"|^[ \t]*(?:function[ \t]+)?{word()}[ \t]*\(\)[ \t]*\{{"
                    # a Make target or a YAML key, written with its '-' ('background_color: str' is a parameter, and
                    # a CSS property's 'background-color: red;' no declaration)
                    rf"|^[ \t]*{re.escape(name.casefold())}[ \t]*:(?!=)[^;\n]*$"
                    rf"|^[ \t]*\((?:defun|defmacro|defvar|define)[ \t]+{word()}(?![\w-])")
    if name.upper() == name and any(c.isalpha() for c in name):
        pattern += rf"|^[ \t]*{word()}[ \t]*(?::[^=\n]*)?=(?!=)"
    if "-" not in name or len(folded_text) != len(text):  # (a text casefolding changes the length of: any match)
        return re.search(pattern, folded_text, re.MULTILINE) is not None
    # a kebab-case name's words, as the code writes the name found (its case): 'e-mail' is no ``email``
    return any(_worded_as(name, text[found.start(key):found.end(key)] if key else name)
               for found in re.finditer(pattern, folded_text, re.MULTILINE)
               for key in [next((k for k, v in found.groupdict().items() if v is not None), None)])


# C and the languages declaring C functions (Cython, C++, Objective-C): a function declared or defined by its return
# type and its name, on one line (``cdef xmlDoc* xsltApplyStylesheet(``, ``static int parse_header(``) or on two
# (``XSLTPUBFUN xmlDocPtr XSLTCALL`` then ``xsltApplyStylesheet (``), which no keyword starts: libxslt's header
# declaring xsltApplyStylesheet was not read as its declaration, and ranked under lxml's .pxd repeating it.
C_FAMILY = re.compile(r"\.(?:c|h|cc|cpp|cxx|hh|hpp|hxx|m|mm|pyx|pxd|pxi)$", re.IGNORECASE)
_NOT_TYPE = (r"(?!(?:return|else|if|elif|while|for|do|case|goto|sizeof|typeof|new|delete|throw|await|yield|assert"
             r"|raise|not|and|or|in|is|del|print|with|import|from|lambda|pass|break|continue)\b)")
_TYPE_WORD = rf"{_NOT_TYPE}[\w:<>]+"  # a type's word, its '*' and '&' aside (each one way to match: no backtracking)


def declares_in(path: str, name: str, text: str) -> bool:
    """``declares``, and in a file of C's family (``C_FAMILY``) a function declared by its type and name."""
    if declares(name, text):
        return True
    if not C_FAMILY.search(path) or folded(name) not in text.casefold().replace("_", ""):
        return False
    spelled = _spelled(name)
    return re.search(rf"^[ \t]*(?:{_TYPE_WORD}[ \t*&]+)+{spelled}[ \t]*\("
                     rf"|^[ \t]*{_TYPE_WORD}(?:[ \t*&]+{_TYPE_WORD})*[ \t*&]*\n[ \t]*{spelled}[ \t]*\(",
                     text.casefold(), re.MULTILINE) is not None


# A question about where a name is used rather than defined: 'who calls retry_upload_part', 'callers of
# Huey.enqueue', 'where is getUserName used?', 'usages of MAX_RETRIES'. Its words ranked the definition (and the
# notes saying the name) first, and the caller, a passage of the same file, was left off for them.
_ASKED = rf"@?(?P<name>(?:{PART})(?:(?:\.|::|->|#|\\)(?:{PART}))*)(?:\(\))?"
USED_BY = [re.compile(pattern.replace("NAME", _ASKED) + r"\s*\??\s*", re.IGNORECASE) for pattern in (
    r"\s*(?:who|what|which\s+\w+)\s+(?P<verb>calls|invokes|uses|references|imports)\s+NAME",
    r"\s*(?:(?:find|show|list)\s+)?(?:all\s+)?(?:the\s+)?(?P<verb>callers|call\s+sites|calls|usages|uses|references)"
    r"\s+(?:of|to)\s+NAME",
    r"\s*where\s+(?:is|are)\s+NAME\s+(?P<verb>called|invoked|used|referenced)(?:\s+from)?",
    r"\s*where\s+(?:do|does)\s+\w+\s+(?P<verb>call|invoke|use)\s+NAME",
    r"\s*NAME\s+(?P<verb>callers|call\s+sites|usages)")]
CALLING = ("call", "invok")
# What a question says instead of a name, pointing at something said before ('who uses this?', 'what calls it',
# 'where are they used?') or asking one ('who uses what'): taken for the name, every passage using ``this``
# (TypeScript, Java) came first, as the callers of a name would, and a docstring saying 'they' made its function one.
PRONOUNS = frozenset({"this", "that", "these", "those", "it", "them", "one", "me", "you", "us", "they", "we", "i",
                      "he", "she", "him", "her", "what", "which", "who", "whom", "something", "anything",
                      "everything", "someone", "anyone", "everyone"})


def used_by(query: str) -> tuple[list[str], bool] | None:
    """(the parts of the name, whether only a call of it counts) when the query asks where a name is used
    (``USED_BY``); None for any other query. Any name counts here, a plain word too (``who calls render``): the
    question says it is one; a pronoun (``PRONOUNS``: 'who uses this?') does not."""
    found = _asked_use(query)
    if found is None:
        return None
    return SEPARATOR.split(found.group("name")), found.group("verb").casefold().startswith(CALLING)


def used_name(query: str) -> str | None:
    """The name, as typed, whose uses the query asks for (``used_by``): its only word the spelling note checks, as
    'who', 'calls', 'callers', 'of' and 'called' frame the question and are in no code ('no passage contains
    'who' or 'calls'' was said to 'who calls upload_file'); "" when it asks about something said before ('who calls
    them': its pronoun, ``PRONOUNS``, is no word to check either); None for any other query."""
    found = _asked_use(query, pronouns=True)
    if found is None:
        return None
    return "" if found.group("name").casefold() in PRONOUNS else found.group("name")


def _asked_use(query: str, pronouns: bool = False) -> re.Match | None:
    for pattern in USED_BY:
        found = pattern.fullmatch(query)
        if found and (pronouns or found.group("name").casefold() not in PRONOUNS):
            return found
    return None


def uses(name: str, text: str, calls: bool) -> bool:
    """Whether ``text`` (a code passage) uses ``name`` (case and underscores aside, as ``folded``) on a line that
    neither declares it (``declares``), imports it nor is a comment: with ``calls``, as a call (``name(``,
    ``.name(``, a decorator ``@name``, a JSX element ``<Name``), else anywhere as a whole name."""
    word = _spelled(name)
    used = re.compile(rf"(?<![\w$])(?:{word}\s*\(|@{word}\b|<{word}\b)" if calls else rf"(?<![\w$]){word}(?![\w$])",
                      re.IGNORECASE)
    return any(used.search(line) and not declares(name, line) and not IMPORT_LINE.match(line)
               and not COMMENT_LINE.match(line) for line in text.split("\n"))


# A pasted error or log line, and the string in code that makes it: 'storage unavailable: part 3 of a.png failed
# after 6 attempts' is f"part {number} of {key} failed after {attempt + 1} attempts: {exc}" with its values filled
# in. Its words ranked a runbook quoting it and a docstring saying storage and errors above the line that raises it.
LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`')
PLACEHOLDER = re.compile(r"\$?\{[^{}\n]*\}|%(?:\(\w+\))?[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[sdifrxXoeEgGcbpqvwT%]"
                         r"|\\[ntr]|\{\{|\}\}")
MESSAGE_CHARS = 12  # of a string's own text (its placeholders aside) that a query must hold: 'error: {e}' says too little
MESSAGE_WORDS = 2  # and of its words: a string of one word ("Authorization", "application/json") is a key, a header,
# a type, which a question in English says too ('how does the client send the authorization header'): no message


def _squeezed(text: str) -> str:
    return " ".join(text.casefold().split())


@functools.lru_cache(maxsize=8)
def _squeezed_query(query: str) -> str:
    """``_squeezed(query)``, made once per query: a pasted message is compared with each code passage ranked."""
    return _squeezed(query)


def message_match(query: str, text: str) -> int:
    """How many characters of the longest string literal in ``text`` (a code passage) a pasted message ``query``
    holds, its text between placeholders (``{key}``, ``%s``, ``${id}``) found in the query in order, at least
    MESSAGE_CHARS of it in MESSAGE_WORDS words or more; 0 when no literal of the passage made the message."""
    wanted, best = _squeezed_query(query), 0
    for literal in LITERAL.finditer(text):
        pieces = [_squeezed(piece) for piece in PLACEHOLDER.split(literal.group()[1:-1])]
        pieces = [piece for piece in pieces if piece]
        held = sum(map(len, pieces))
        if held < MESSAGE_CHARS or held <= best or sum(len(piece.split()) for piece in pieces) < MESSAGE_WORDS:
            continue
        at = 0
        for piece in pieces:
            at = wanted.find(piece, at)
            if at < 0:
                break
            at += len(piece)
        else:
            best = held
    return best


TEST_FILE = re.compile(r"(?:^|/)(?:tests?|__tests__|spec|specs)/|(?:^|/)test_[^/]*$|_test\.\w+$|\.(?:test|spec)\.\w+$"
                       r"|(?-i:Tests?)\.\w+$|(?:^|/)conftest\.py$"  # 'UserTest.java' with its capital: not 'shortest.py'
                       r"|(?:^|/)tests?\.\w+$", re.IGNORECASE)  # a Django app's tests.py, a crate's tests.rs: whole names


# Files that declare again what another file defines, for a type checker or another language: Python's stubs
# (.pyi), Cython's declarations of C code (.pxd), TypeScript's declarations of JavaScript (.d.ts, .d.mts, .d.cts).
RESTATING = re.compile(r"\.(?:pyi|pxd|d\.[mc]?ts)$", re.IGNORECASE)


def restates(path: str) -> bool:
    """Whether the file at ``path`` only declares again what another defines (``RESTATING``): its declaration of a
    name is not where the name is defined."""
    return RESTATING.search(path) is not None


def test_file(path: str) -> bool:
    """Whether ``path`` (relative to its root) is a test's: under tests/, test_x.py, x_test.go, x.test.ts, XTest.java."""
    return TEST_FILE.search(path) is not None


# Lines that only bring names in (imports, includes, a package clause, the names of a multi-line import list) and
# comment lines; a licence's words.
IMPORT_LINE = re.compile(r"\s*(?:import\b|from\s+\S+\s+import\b|package\s|use\s|using\s|require\b|#\s*include\b"
                         r"|extern\s+crate\b|[)\]]\s*;?\s*$|[\w.]+\s*,?\s*$|\"[^\"\s]+\"\s*,?\s*$)")
COMMENT_LINE = re.compile(r"\s*(?:#(?!\s*include)|//|/\*|\*|--|<!--)")
LICENCE = re.compile(r"copyright|licen[cs]ed?\b|spdx|all rights reserved|permission is hereby granted", re.IGNORECASE)


def boilerplate(text: str) -> bool:
    """Whether a code passage holds nothing but imports and a licence header (``# Copyright …``, ``# Licensed
    under the MIT license``, ``from .smoke import SmokeTest``): embedded, so short a text is near any query, and
    it came up in semantic search and ``similar`` for anything. A comment that says something (no licence's
    words) makes it a passage of its own."""
    lines = [line for line in text.split("\n") if line.strip()]
    comments = [line for line in lines if COMMENT_LINE.match(line)]
    code = [line for line in lines if not COMMENT_LINE.match(line)]
    if not lines or not all(IMPORT_LINE.match(line) for line in code):
        return False
    return not comments or LICENCE.search(" ".join(comments)) is not None
