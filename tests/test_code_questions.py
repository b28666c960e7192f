"""A developer's questions about code: Cython read by its definitions, 'where is X defined', a package and a name
as words ('aiosqlite connect'), a parameter's name, a definition's name said in words in a question."""
from __future__ import annotations

import pytest

from ingest.code import parse_code
from ingest.kinds import kind_of
from search.query.engine import Engine
from search.query.results_page import definition_names, more_in_file
from search.query.symbols import asked_name, declares_in, names, restates, worded
from search.query.symbols import test_file as is_test_file
from tests.conftest import built_once, in_home, ingest, write_tree

PYX = '''# cython: language_level=3
import re

cdef object _RE_HREF = re.compile(r'href="([^"]*)"')

cdef class XSLTAccessControl:
    """Access control for XSLT:
reads and writes of files and the network.
    """
    cdef dict _prefs

    def __init__(self, read_file=True):
        self._prefs = {"read_file": read_file}

    # the options as a dict
    @property
    def options(self):
        return dict(self._prefs)

cdef inline int _walk(tree.xmlNode* c_node,
                      int depth) noexcept nogil:
    return depth + 1

cdef extern from "libxml/tree.h":
    ctypedef struct xmlNode:
        int type
    xmlNode* xmlDocGetRootElement(void* doc) nogil

def parse(text):
    return _walk(NULL, 0)
'''


def test_cython_is_read_by_its_definitions():
    """tree-sitter-languages has no Cython grammar: .pyx, .pxd and .pxi files were not read at all, and Python's
    grammar reads lxml's parser.pxi as one error. Their definitions are found by indentation."""
    assert kind_of("lxml/etree.pyx") == kind_of("lxml/parser.pxi") == kind_of("includes/tree.pxd") == "code"
    doc = parse_code("lxml/xslt.pyx", PYX)
    assert "\n".join(s.text for s in doc.sections) == PYX.rstrip("\n")
    owners = {" > ".join(s.heading_path): (s.start_line, s.end_line) for s in doc.sections}
    assert owners["xslt > XSLTAccessControl"] == (6, 11)  # the docstring's line at column 0 is still the class's
    assert owners["xslt > XSLTAccessControl > __init__"] == (12, 14)
    assert owners["xslt > XSLTAccessControl > options"] == (15, 19)  # its comment and decorator above it
    assert owners["xslt > _walk"] == (20, 22)  # a C function whose signature runs over two lines
    assert owners["xslt > xmlNode"] == (25, 26)  # a struct declared in an extern block; the block is no definition
    assert owners["xslt > parse"][0] == 29
    assert "_RE_HREF" not in doc.meta["symbols"] and doc.meta["language"] == "cython"
    assert "fallback" not in doc.meta


def test_a_cython_header_with_a_hash_in_a_string_keeps_its_heading():
    """'def f(x="#("):' was cut at its '#': its '(' never closed, the definition was no header, its lines the
    module's (no text lost, its heading was)."""
    text = 'def split(line, mark="#("):\n    return line.split(mark)\n\ncdef int count(str s=\'#\'):\n    return 1\n'
    doc = parse_code("lxml/marks.pyx", text)
    assert "\n".join(s.text for s in doc.sections) == text.rstrip("\n")
    owners = {" > ".join(s.heading_path): (s.start_line, s.end_line) for s in doc.sections}
    assert owners == {"marks > split": (1, 3), "marks > count": (4, 5)}, owners


@pytest.mark.timeout(120)
def test_a_long_word_on_a_cdef_line_is_read_in_linear_time():
    """A C function's name is the word before its '(' (``cython.HEADERS``): tried at every letter of a long word on
    a 'cdef' line with no '(' (generated code, a data blob), the pattern took 12 s for 20,000 letters, growing with
    their square (a worker held for hours by a 300 KB line). Now tried where a word begins only."""
    from ingest.code_forms.cython import outline
    line = "cdef " + "a" * 300_000
    assert outline(line + "\ncdef int count(int n):\n    return n\n") == [(["count"], 1, 2, 0, -1)]


def test_names_asked_for():
    assert asked_name("where is SqliteStorage defined") == ["SqliteStorage"]
    assert asked_name("Where's `Huey.enqueue` defined?") == ["Huey", "enqueue"]
    assert asked_name("definition of the class Consumer") == ["Consumer"]
    assert asked_name("which file defines escape_unicode") == ["escape_unicode"]
    assert asked_name("aiosqlite connect") == ["aiosqlite", "connect"]
    assert asked_name("where is it defined") is None  # a pronoun asks about what was said before
    assert asked_name("how does the consumer stop") is None and asked_name("periodic") is None
    assert asked_name("read_timeout") == ["read_timeout"]
    assert names("read_timeout", "def __init__(self, read_timeout=1):")
    assert names("read_timeout", "client = Redis(readTimeout=5)")
    assert not names("read_timeout", "timeout = read_timeout_seconds or 5")
    assert not names("e-mail", "self.email = email")  # a word of prose with a hyphen is no identifier run together


def test_a_definitions_name_said_in_words():
    assert worded("how does pypdf rebuild a broken xref table", "_reader > PdfReader > _rebuild_xref_table") == 3
    assert worded("where are tool names validated", "tool_name_validation > validate_tool_name") == 3
    assert worded("how does the client stop the server process", "stdio > _stop_server_process") == 3
    assert worded("how do I stop servers that hang", "stdio > stop_server") == 2  # two words side by side
    assert worded("how does the client stop the server process", "stdio > stop_server") == 0
    assert worded("where is the name of the user got", "users > get_user_name") == 0  # not among as many words
    assert worded("how do I get the name of a user", "users > get_name") == 0  # two, not side by side
    assert worded("a new lru cache", "cache > entry, NewLRUCache") == 3  # one of a passage's joined definitions
    assert worded("rebuild xref table", "_reader") == 0  # the module alone names no definition
    # 'process' and 'processes' are one word: 'process' lost its last 's' and 'processes' its 'es'
    assert worded("how are the worker processes started", "pool > start_worker_process") == 3
    assert worded("how are pending jobs processed", "queue > process_pending_jobs") == 3


@pytest.mark.parametrize("query, heading", [
    ("how are aliases resolved", "config > resolve_alias"), ("how are statuses reported", "jobs > report_status"),
    ("how is an alias resolved", "config > resolve_aliases"), ("what causes crashes", "report > cause_crash"),
    ("how are causes recorded", "report > record_cause"), ("how are statuses parsed", "http > parse_status")])
def test_a_word_ending_in_s_and_its_plural_are_one_word(query, heading):
    """'alias' was cut to 'alia' and 'aliases' to 'alias', 'status' and 'statuses' so: 'how are aliases resolved'
    never found ``resolve_alias``; 'cause' and 'causes' stay one word as they were. A name's verb said after its
    object as a participle ('aliases resolved') is its two words side by side."""
    assert worded(query, heading) == 2


@pytest.mark.parametrize("query, heading, words", [
    ("how are failed uploads retried", "uploads > retry_failed_upload", 3),  # 'retried' was 'retri', 'retry' itself
    ("how are stale entries evicted", "cache > evict_stale_entry", 3),  # 'entries' 'entri', 'entry' itself
    ("where are slow queries logged", "db > log_slow_query", 3),  # 'logged' was 'logg'
    ("how are workers stopped", "pool > stop_worker", 2),  # 'stopped' was 'stopp'
    ("how are migrations planned", "migrate > plan_migration", 2),
    ("how are files copied", "sync > copy_file", 2),  # 'copied' was 'copi', 'copy' itself
    ("how are patches applied", "patch > apply_patch", 2),
    ("how does queueing jobs work", "jobs > queue_jobs", 2),  # 'queueing' was 'queue', 'queue' 'queu'
    ("how are indices refreshed", "db > refresh_index", 2),  # 'indices' was 'indic'
    ("how are indexes refreshed", "db > refresh_index", 2),
    ("how are strings escaped", "text > escape_string", 2),  # 'string' was 'str' + 'ing', 'strings' 'string'
    ("what happens when the rate limit is exceeded", "limits > exceed_rate_limit", 3),  # 'exceed' was 'exce'
    ("where are pooled buffers freed", "pool > free_pooled_buffer", 3),  # 'freed' kept its 'eed', 'free' was 'fre'
    ("how are terms agreed", "consent > agree_terms", 2),
    ("how is the speed checked", "net > check_speed", 2)])  # 'speed' ends in 'eed' of its own
def test_a_words_inflections_are_one_word(query, heading, words):
    """A verb's past and a noun's plural met the name's word only where the ending was a plain cut: 'retried' was
    cut to 'retri' while 'retry' stayed 'retry', 'logged' to 'logg' while 'log' stayed 'log', so 'how are failed
    uploads retried' never found ``retry_failed_upload``. A 'y' after a consonant is an 'i' ('retri', 'entri'),
    a doubled consonant before an ending one ('stop', 'log'), and 'indices' is 'index'."""
    assert worded(query, heading) == words


def test_a_names_two_words_turned_round_only_as_a_participle():
    assert worded("alias resolve", "config > resolve_alias") == 0
    assert worded("how do servers stop", "stdio > stop_server") == 0


CORE = '''"""Core implementation of the asyncio bridge to sqlite3."""
import sqlite3
from threading import Thread


def _connection_worker_thread(tx):
    """Run the queued sqlite3 calls in the connection's own thread."""
    while True:
        future, function = tx.get()
        future.set_result(function())


class Connection:
    def __init__(self, connector, iter_chunk_size, loop=None):
        self._connector = connector
        self._thread = Thread(target=_connection_worker_thread, args=(self._tx,))


def connect(database, *, iter_chunk_size=64, **kwargs):
    """Create and return a connection proxy to the sqlite database."""
    return Connection(lambda: sqlite3.connect(database, **kwargs), iter_chunk_size)
'''
SMOKE = '''import aiosqlite


async def test_connect_twice():
    """connect to the database, connect again: each connection sees the other's rows."""
    async with aiosqlite.connect(":memory:") as first, aiosqlite.connect(":memory:") as second:
        await first.execute("create table t (k int)")
        await second.execute("create table t (k int)")


async def test_connection_context():
    async with aiosqlite.connect(":memory:") as db:
        assert db.connect
'''
STORAGE = '''class BaseStorage:
    def enqueue(self, data, priority=None):
        raise NotImplementedError


class RedisStorage(BaseStorage):
    def __init__(self, name="huey", blocking=True, read_timeout=1, url=None):
        self.read_timeout = read_timeout

    def dequeue(self):
        return self.conn.brpop(self.name, timeout=self.read_timeout)


class SqliteStorage(BaseStorage):
    """Tasks kept in a SQLite database, in WAL mode."""
    table_task = "create table if not exists task (id integer not null primary key, queue text not null)"

    def __init__(self, filename="huey.db", timeout=5):
        self.filename = filename

    def enqueue(self, data, priority=None):
        """Add the task to the sqlite storage: sqlite storage keeps it until dequeued."""
        self.sql("insert into task (queue, data) values (?, ?)", (self.name, data))
'''
TESTS = '''from huey.storage import SqliteStorage


class TestSqliteStorage:
    def get_storage(self):
        """SqliteStorage is defined over a file: SqliteStorage in a temporary folder."""
        return SqliteStorage(filename="/tmp/x.db")
'''
HTTP = '''def create_http_client(read_timeout_seconds=30, connect_timeout=5):
    """An HTTP client: its read timeout (read_timeout_seconds) and its connect timeout, and the timeout of a read."""
    return Client(timeout=Timeout(read=read_timeout_seconds, connect=connect_timeout))
'''
READER = '''class PdfReader:
    def read(self, stream):
        """Read the xref table: a broken xref table is rebuilt; xref entries of the table are checked."""
        if self.strict:
            raise PdfReadError("Broken xref table")
        self._rebuild_xref_table(stream)

    def _read_xref_table(self, stream):
        """The xref table read from the xref section: each xref entry of the table in turn."""
        for xref in self.xref_entries(stream):
            self.table[xref.number] = xref

    def _rebuild_xref_table(self, stream):
        self.xref = {}
        for number, generation, start in self._find_objects(stream.read()):
            self.xref[generation][number] = start
'''
CONSUMER = '''class Consumer:
    def _set_signal_handlers(self):
        signal.signal(signal.SIGTERM, self._handle_stop_signal)

    def _handle_stop_signal(self, sig_num, frame):
        """Stop after the running tasks finish."""
        self._received_signal = True
'''
CONSUMER_TESTS = '''class TestConsumerShutdown:
    def test_signal_handlers(self):
        """The consumer handles SIGTERM: a SIGTERM to the consumer stops the consumer, SIGTERM after SIGTERM."""
        consumer = self.consumer(workers=2)
        os.kill(consumer.pid, signal.SIGTERM)
        assert consumer.stopped_by(signal.SIGTERM)
'''
QUEUE_TESTS = '''def test_enqueue_many(storage):
    """Enqueue, enqueue again: each enqueue is kept; enqueue order is the dequeue order."""
    storage.enqueue(b"a")
    storage.enqueue(b"b")
'''
QUEUE_NOTE = "# Queues\n\nTo enqueue is to add to a queue: enqueue, then the consumer dequeues.\n"
PATHS = '''"""Safe path joins: join a base folder and a path the client gave, safe from '..' (a safe join).

A safe join refuses what leaves the base.
"""


class PathEscapeError(ValueError):
    """The path leaves its base."""


def safe_join(base, *parts):
    target = base.joinpath(*parts).resolve()
    if not target.is_relative_to(base):
        raise PathEscapeError(target)
    return target
'''
HEADER = '''/*
 * transform.h: the XSLT transformation: xsltApplyStylesheet applies a stylesheet to a document.
 */
XSLTPUBFUN xmlDocPtr XSLTCALL
\t\txsltApplyStylesheet\t(xsltStylesheetPtr style,
\t\t\t\t xmlDocPtr doc,
\t\t\t\t const char **params);
'''
PXD = '''cdef extern from "libxslt/transform.h" nogil:
    # xsltApplyStylesheet, as lxml calls it: xsltApplyStylesheet with the stylesheet's user context
    cdef xmlDoc* xsltApplyStylesheet(xsltStylesheet* style, xmlDoc* doc, const_char** params)
'''
TREE = {"aiosqlite/core.py": CORE, "aiosqlite/tests/smoke.py": SMOKE, "huey/storage.py": STORAGE,
        "huey/tests/test_storage.py": TESTS, "mcp/http.py": HTTP, "pypdf/_reader.py": READER,
        "huey/consumer.py": CONSUMER, "huey/tests/test_consumer.py": CONSUMER_TESTS,
        "huey/tests/test_queue.py": QUEUE_TESTS, "notes/queues.md": QUEUE_NOTE, "mcp/shared/path_security.py": PATHS,
        "lxml/includes/libxslt/transform.h": HEADER, "lxml/includes/xslt.pxd": PXD}


@pytest.fixture(scope="module")
def questions_home(tmp_path_factory, model_path):
    return built_once(tmp_path_factory, model_path, lambda folder: ingest(write_tree(folder / "code", TREE)))


@pytest.fixture
def engine(questions_home, model_path, embedder, monkeypatch):
    engine = Engine(in_home(questions_home, model_path, monkeypatch), lambda: embedder)
    engine.warm()
    return engine


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path, name", [
    # the question's words ranked the test saying 'SqliteStorage' and 'defined', and the enqueue saying sqlite storage
    ("where is SqliteStorage defined", "huey/storage.py", "SqliteStorage"),
    # as words, the tests calling aiosqlite.connect ranked above the definition
    ("aiosqlite connect", "aiosqlite/core.py", "connect"),
    # a parameter: the passages saying 'read' and 'timeout' most ranked above those taking it
    ("read_timeout", "huey/storage.py", "RedisStorage.__init__"),
    # the passage raising "Broken xref table" and the xref table reader ranked above the function named so
    ("how does pypdf rebuild a broken xref table", "pypdf/_reader.py", "PdfReader._rebuild_xref_table"),
])
def test_a_developers_question_finds_its_code_first(engine, mode, query, path, name):
    hits = engine.search(query, mode=mode).hits
    assert hits[0].path == path and name in _defined(hits[0].heading_path), [(h.path, h.heading_path) for h in hits[:4]]


def _defined(heading_path: str) -> list[str]:
    """The qualified names of the definitions a code passage's heading names, joined ones each ('storage >
    BaseStorage.enqueue, RedisStorage.__init__'), without the module."""
    *owners, last = heading_path.split(" > ")[1:] or [""]
    return [".".join(owners + [name]) for name in last.split(", ")]


def test_words_that_name_no_definition_move_nothing(engine):
    """'xref table' is no package and a definition in it, nor the name of one written with spaces
    (``_rebuild_xref_table`` says more): the passages rank by their words alone."""
    answer = engine.search("xref table", mode="keyword")
    assert [h.keyword_rank for h in answer.hits] == sorted(h.keyword_rank for h in answer.hits)
    assert not any("come first" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_question_about_code_finds_the_code_before_its_tests(engine, mode):
    """huey's test of SIGTERM says signal, SIGTERM and consumer over and over: it ranked above the handler."""
    hits = engine.search("how does the consumer handle a SIGTERM", mode=mode).hits
    assert hits[0].path == "huey/consumer.py", [(h.path, h.heading_path) for h in hits[:4]]
    assert any(h.path == "huey/tests/test_consumer.py" for h in hits)  # after the code, not left out
    # a question that asks for the tests, and words that ask nothing, keep them where they rank
    assert engine.search("how is the consumer's SIGTERM tested", mode=mode).hits[0].path == "huey/tests/test_consumer.py"
    assert engine.search("consumer SIGTERM SIGTERM", mode="keyword").hits[0].path == "huey/tests/test_consumer.py"


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path, name", [
    # a plain word: a test saying 'enqueue' five times ranked above the enqueue methods
    ("enqueue", "huey/storage.py", "enqueue"),
    # two words that are a name written with a space: the module's docstring said 'safe' and 'join' more often
    ("safe join", "mcp/shared/path_security.py", "safe_join"),
])
def test_words_that_are_a_definitions_name_find_it_before_other_code(engine, mode, query, path, name):
    answer = engine.search(query, mode=mode)
    code = [h for h in answer.hits if not h.path.endswith(".md")]
    shown = [one.split(".")[-1] for one in code[0].heading_path.split(" > ")[-1].split(", ")]
    assert code[0].path == path and name in shown, [(h.path, h.heading_path) for h in code]


def test_a_plain_word_leaves_the_notes_where_they_rank(engine):
    """'enqueue' is a word of prose as much as a name: the note on enqueueing keeps its place among the passages."""
    answer = engine.search("enqueue", mode="keyword")
    at = [h.path for h in answer.hits].index("notes/queues.md")
    assert answer.hits[at].keyword_rank == sorted(h.keyword_rank for h in answer.hits)[at]
    assert any("comes before the other code" in n for n in answer.notes), answer.notes


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_c_function_is_found_where_declared_before_a_binding_repeating_it(engine, mode):
    """lxml's .pxd repeats libxslt's declaration of xsltApplyStylesheet for Cython and says the name more often; the
    header declares it by its type and name, which no keyword starts."""
    top = engine.search("xsltApplyStylesheet", mode=mode).hits[0]
    assert top.path == "lxml/includes/libxslt/transform.h" and top.start_line <= 5 <= top.end_line


def test_c_declarations_and_restating_files():
    header = "XSLTPUBFUN xmlDocPtr XSLTCALL\n\t\txsltApplyStylesheet\t(xsltStylesheetPtr style,"
    assert declares_in("transform.h", "xsltApplyStylesheet", header)
    assert not declares_in("transform.py", "xsltApplyStylesheet", header)  # C's way, in C's family of files only
    assert declares_in("xslt.pxd", "xsltApplyStylesheet", "    cdef xmlDoc* xsltApplyStylesheet(xsltStylesheet* s,")
    assert declares_in("speedups.c", "escape", "static PyObject*\nescape(PyObject *self, PyObject *text)\n{")
    for call in ("    return escape(text);", "    x = escape(text);", "    if (ok)\n        escape(text);",
                 "    flush();\n    escape(text);", "    pass\n    escape(text)"):
        assert not declares_in("speedups.c", "escape", call), call
    assert restates("markupsafe/_speedups.pyi") and restates("lxml/includes/tree.pxd") and restates("index.d.ts")
    assert not restates("lxml/etree.pyx") and not restates("api.py")


def test_the_definitions_left_off_the_page_are_named():
    """A code file's passages left off the page for other files: the line saying so names the definitions they are."""
    names = definition_names(["core > Connection > _connect", "core > _connection_worker_thread", "core",
                              "core > Connection > _execute_fetchall, _execute +2", "core > Connection > _connect"])
    assert names == ["Connection._connect", "_connection_worker_thread", "Connection._execute_fetchall",
                     "Connection._execute"]
    line = more_in_file(7, None, [f"f{n}" for n in range(7)])
    assert line.startswith("+ 7 more passages of this file ranked among these (f0, f1, f2, f3, f4, …), left off")
    assert "(" not in more_in_file(2, None).split("among these")[1].split("left off")[0]  # a note's: no names


@pytest.mark.parametrize("path, test", [
    ("graph/shortest.py", False), ("latest.py", False), ("src/contest.go", False), ("Contest.java", False),
    ("unittest.py", False), ("LATEST.md", False),
    ("UserTest.java", True), ("UserTests.cs", True), ("AttestTest.java", True), ("user_test.go", True),
    ("x.test.ts", True), ("tests/a.py", True), ("test_a.py", True), ("conftest.py", True)])
def test_a_file_ending_in_test_is_no_test_file(path, test):
    """Java's and C#'s tests are named 'UserTest.java', 'UserTests.cs', with a capital: read in any case, a name ending
    in 'test' was a test's ('shortest.py', 'latest.py', 'contest.go'), and a question about how a shortest path is
    found ranked graph/shortest.py after the other code (``reordering.code_before_tests``)."""
    assert is_test_file(path) is test
