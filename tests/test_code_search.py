"""Searching source code by a name, as a developer asks: the definition of the name comes first."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from search.index import chunk_reads, db
from search.query import reordering
from search.query.engine import Engine
from search.query.filters import Filters
from search.query.run_together import split
from search.query.symbols import (boilerplate, code_name, declares, defines, frames, names_file, traced_files,
                                  message_match, used_by, uses)
from tests.conftest import built_once, in_home, ingest, tree_built_once, write_tree

API = '''"""The task queue's public API."""
import datetime


class Huey:
    """A queue of tasks run by a consumer."""

    def __init__(self, name):
        self.name = name
        self.storage = {}

    def periodic_task(self, validate_datetime, retries=0):
        """Decorate a function to run whenever validate_datetime says so.

        The consumer checks every minute, and enqueues the function when the
        datetime validates; retries are counted as for any other function.
        """
        def decorator(fn):
            self.storage[fn.__name__] = (validate_datetime, retries)
            return fn
        return decorator
'''

# Short functions that say 'periodic' and 'tasks' more often than the definition does: BM25 ranked them first.
REGISTRY = '''class Registry:
    def periodic_tasks(self):
        """Periodic tasks: the periodic tasks registered, each periodic task once."""
        return [task for task in self.tasks if task.periodic]
'''
TESTS = '''def test_periodic_tasks(registry):
    periodic = registry.periodic_tasks()
    assert [task.name for task in periodic] == ["periodic task", "another periodic task"]
'''
CONFIG = '''"""Settings of the client."""
import os

MAX_RETRIES = int(os.environ.get("CLIENT_RETRIES", "3"))


def backoff(attempt):
    return 0.1 * 2 ** attempt
'''
CLIENT = '''def fetch_all(urls, session):
    """Fetch each url, trying max retries times: retries after retries (MAX_RETRIES)."""
    for url in urls:
        for attempt in range(MAX_RETRIES):
            if session.get(url, retries=MAX_RETRIES - attempt):
                break
'''
NOTE = "# periodic_task\n\nNotes on periodic tasks: a periodic task runs on a schedule. I write it in JavaScript.\n"
USERS = '''export class AccountStore {
  async getUserName(id: number): Promise<string> {
    const row = await this.db.get(id);
    return row.displayName;
  }
}
'''
TREE = {"huey/api.py": API, "huey/registry.py": REGISTRY, "tests/test_registry.py": TESTS,
        "client/config.py": CONFIG, "client/fetch.py": CLIENT, "notes/scheduling.md": NOTE,
        "web/accounts.ts": USERS,
        "client/__init__.py": "# Copyright 2024 Example Corp\n# Licensed under the MIT license\n\n"
                              "from .fetch import fetch_all\nfrom .config import backoff\n",
        "client/retry.py": "def backoff_delays(base):\n    return [base * 2 ** n for n in range(5)]\n"}


@pytest.fixture(scope="module")
def tree_home(tmp_path_factory, model_path):
    """TREE indexed once for the module: the tests of ``engine`` only search it."""
    return built_once(tmp_path_factory, model_path, lambda folder: ingest(write_tree(folder / "code", TREE)))


@pytest.fixture(params=["postings", "fts5"])
def engine(request, tree_home, model_path, embedder, monkeypatch):
    return _warmed(in_home(tree_home, model_path, monkeypatch), embedder,
                   keyword_postings=request.param == "postings")


@pytest.fixture
def engine_over(tmp_path_factory, model_path, embedder, monkeypatch):
    """``engine_over(files)``: a warmed engine of the test's own over ``files`` indexed as the collection 'notes',
    built once for the session (``tree_built_once``): a test parametrized by query and mode built the same tree
    for each of its cases (8 builds of KEBAB_TREE, 6 of FOLLOW_UP_TREE), embedding it each time."""
    def over(files: dict[str, str]) -> Engine:
        home = tree_built_once(tmp_path_factory, model_path, files, "notes")
        return _warmed(in_home(home, model_path, monkeypatch), embedder)
    return over


def _warmed(index: Path, embedder, **options) -> Engine:
    """A warmed engine of the test's own over ``index``."""
    engine = Engine(index, lambda: embedder, **options)
    engine.warm()
    return engine


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["periodic_task", "Huey.periodic_task", "huey.api.Huey.periodic_task",
                                   "@huey.periodic_task", "periodic_task()"])
def test_the_definition_of_a_name_ranks_first(engine, query, mode):
    answer = engine.search(query, mode=mode)
    top = answer.hits[0]
    assert (top.path, top.heading_path.split(" > ")[-1]) == ("huey/api.py", "periodic_task")
    if answer.hits[0].score < max(h.score for h in answer.hits):  # moved up: the scores no longer say the order
        assert any(n.startswith(f"the definitions of {query!r} come first") for n in answer.notes), answer.notes
    assert top.start_line == 12  # its "def" line


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_constant_ranks_first_where_it_is_assigned(engine, mode):
    top = engine.search("MAX_RETRIES", mode=mode).hits[0]
    assert top.path == "client/config.py" and top.start_line <= 4 <= top.end_line


def test_words_with_spaces_move_only_the_code(engine):
    """'periodic task' is words, and ``periodic_task`` written with a space: the note on periodic tasks keeps its
    place, and of the code the definition comes first (the registry's periodic_tasks and its test said the words
    more often)."""
    answer = engine.search("periodic task", mode="keyword")
    at = [h.path for h in answer.hits].index("notes/scheduling.md")
    assert answer.hits[at].keyword_rank == sorted(h.keyword_rank for h in answer.hits)[at]
    code = [h for h in answer.hits if h.path.endswith(".py")]
    assert (code[0].path, code[0].heading_path.split(" > ")[-1]) == ("huey/api.py", "periodic_task")
    assert engine.search("periodic tasks", mode="keyword").hits[0].path != "huey/api.py"  # no name: no move


def test_code_names():
    assert code_name("Lexer::next_token") == ["Lexer", "next_token"]
    assert code_name("$this->getUserName()") == ["$this", "getUserName"]
    assert code_name("App\\Http\\Kernel") == ["App", "Http", "Kernel"]
    assert code_name("get user name") is None and code_name("a.b c") is None and code_name("3.14") is None
    assert defines(["LRUCache", "Get"], "cache > LRUCache > Get", "")
    assert not defines(["Registry", "Get"], "cache > LRUCache > Get", "")
    assert not defines(["cache"], "cache", "")  # the module alone is the file
    # a passage of joined sections names each definition, a nested one with '.', and counts those it does not show
    assert defines(["MiniHuey", "periodic_task"], "mini > MiniHuey > periodic_task, start", "")
    assert defines(["api", "Huey", "stop"], "api > Huey.stop, Result", "") and not defines(["Huey"], "api > Huey.stop", "")
    box = "class Box:\n    def get(self):\n        return self.v"
    assert defines(["Box", "get"], "tiny > f0, f1, f2 +3", box) and not defines(["Crate", "get"], "tiny > f0, f1, f2 +3", box)
    assert not defines(["Box", "get"], "tiny > f0, f1, f2", box)  # all shown, get not among them
    assert declares("formatLabel", "export const formatLabel = (a: string) => a;")
    assert declares("Get", "func (c *LRUCache) Get(key string) ([]byte, error) {")
    assert declares("XmpError", "class Big:\n    pass\n\n\nclass XmpError(Exception):\n    pass")
    assert not declares("row", "    row = cursor.fetchone()")  # a local variable: only CONSTANTS by assignment
    assert declares("upload_parts", "CREATE TABLE IF NOT EXISTS upload_parts (") and declares("users", "create table `users` (")
    assert declares("mark_done", "CREATE OR REPLACE FUNCTION mark_done(p BIGINT) RETURNS VOID AS $$")


@pytest.mark.parametrize("mode", ["keyword", "hybrid", "semantic"])
def test_a_glob_keeps_the_files_it_matches(engine, mode):
    """'*.py' (no '/': a file name in any folder) leaves out the note that says the same words, before top-k."""
    answer = engine.search("periodic tasks", mode=mode, filters=Filters(glob="*.py"))
    assert answer.hits and all(h.path.endswith(".py") for h in answer.hits)
    folder = engine.search("periodic tasks", mode=mode, filters=Filters(glob="huey/**/*.{py,md}"))
    assert {h.path for h in folder.hits} == {"huey/api.py", "huey/registry.py"}
    assert engine.search("periodic tasks", mode=mode, filters=Filters(glob="*.go")).hits == []


@pytest.mark.parametrize("query", ["user name", "get_user_name", "display name"])
def test_the_words_of_a_camel_case_name_find_it(engine, query):
    """getUserName is one word to FTS5's tokenizer: 'user name' found nothing in accounts.ts, which says neither."""
    answer = engine.search(query, mode="keyword")
    assert [h.path for h in answer.hits][:1] == ["web/accounts.ts"]
    assert engine.search("getUserName", mode="keyword").hits[0].path == "web/accounts.ts"  # the name as written


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["getUser", "UserName", "DisplayName", "AccountStore.getUser"])
def test_a_part_of_a_camel_case_name_finds_it(engine, query, mode):
    """A query's camelCase name is looked up by its words in a row too: 'getUser' and 'UserName' found nothing
    (no passage holds 'getuser' or 'username'; getUserName is indexed as 'getusername get user name'), and the
    spelling note said no passage contained them."""
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == "web/accounts.ts"
    assert answer.unmatched == [] and not any("no passage contains" in note for note in answer.notes)


def test_the_snippet_marks_the_part_of_a_camel_case_name_found(engine):
    """The passage 'UserName' found (getUserName, by its words in a row) shows where: its snippet marked nothing."""
    assert "async get**UserName**(id" in engine.search("UserName", mode="keyword").hits[0].snippet


def test_the_words_of_a_camel_case_query_must_stand_in_a_row(engine):
    """'NameGet': accounts.ts holds 'name' and 'get', never side by side: it is not found, and the word is named."""
    answer = engine.search("NameGet", mode="keyword")
    assert answer.hits == []
    assert [u["word"] for u in answer.unmatched] == ["NameGet"]


TRACE = """Traceback (most recent call last):
  File "/srv/app/.venv/lib/python3.11/site-packages/client/retry.py", line 2, in <listcomp>
TypeError: unsupported operand type(s) for ** or pow(): 'str' and 'int'"""


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", [TRACE, "TypeError: config.get is not a function\n    at Object.<anonymous> "
                                          "(/srv/app/client/retry.py:2:17)"])
def test_a_pasted_stack_trace_ranks_the_line_it_names_first(engine, query, mode):
    """The file and line a trace names, not the passages that share the most of its words (config.py said
    'client', 'retries' and 'int' more)."""
    answer = engine.search(query, mode=mode)
    top = answer.hits[0]
    assert (top.path, top.start_line <= 2 <= top.end_line) == ("client/retry.py", True)
    assert any(note.startswith("the passages at the lines the stack trace names come first") for note in answer.notes)
    named = {u["word"] for u in answer.unmatched}
    assert not named & {"srv", "venv", "site", "packages", "17"}, "the trace's path and line are no typos"


PACKAGE = {
    "jsonish/__init__.py": '"""A small JSON package."""\nfrom .decoder import Decoder\n\n\n'
                           'def loads(s, strict=True):\n    """Parse s."""\n    return Decoder(strict).decode(s)\n',
    "jsonish/runners.py": "def run(main):\n    return main()\n",
    "notes/jsonish.md": "# Using jsonish\n\nCall jsonish.loads to load; jsonish loads what jsonish.dumps wrote, and "
                        "jsonish.run runs it: run, run, run. Loads loads loads.\n",
}


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path, line", [("jsonish.loads", "jsonish/__init__.py", 5),
                                               ("jsonish.run", "jsonish/runners.py", 1)])
def test_a_name_qualified_by_its_package_finds_the_definition_in_a_module_of_it(engine_over, query, path, line,
                                                                                 mode):
    """'jsonish.loads' (defined in the package's __init__.py, as json.loads is) and 'jsonish.run' (in a module
    of the package, as asyncio.run is) were not read as those definitions: their headings ('__init__ > loads',
    'runners > run') name the module, not the package, and the note that says them more came first."""
    top = engine_over(PACKAGE).search(query, mode=mode).hits[0]
    assert (top.path, top.start_line <= line <= top.end_line) == (path, True)


def test_what_a_package_defines():
    assert defines(["json", "loads"], "__init__ > loads", "", "json/__init__.py")  # the package's own module
    assert defines(["asyncio", "run"], "runners > run", "", "asyncio/runners.py")  # handed on by the package
    assert not defines(["asyncio", "run"], "events > AbstractEventLoop > run", "", "asyncio/events.py")  # a method
    assert not defines(["asyncio", "run"], "runners > run", "")  # without the path: the module alone
    assert not defines(["mcp", "run"], "cli > run", "", "mcp/cli/cli.py")  # a package further down


def test_what_a_stack_trace_names():
    # Python's traceback writes its most recent call last: read the other way round, as the other traces write it
    assert frames('File "C:\\app\\x.py", line 7, in f\n  at g (/srv/y.js:12:3) File "/srv/y.js", line 12') == [
        ("/srv/y.js", 12, "g"), ("C:/app/x.py", 7, "f")]
    assert frames("pypdf.errors.PdfReadError: EOF marker not found") == []
    assert frames('File "/app/x.py", line 3, in <module>') == [("/app/x.py", 3, None)]
    assert frames("at OrderService.placeOrder (webpack-internal:///./src/orders.ts:42:13)\n"
                  "at async Router.handle [as handle] (/app/router/index.js:376:9)\n"
                  "at Object.<anonymous> (/srv/app/retry.js:2:17)\n"
                  "at com.shop.Orders.place(Orders.java:42)\n"
                  "shop/orders.py:14: in place_order") == [
        ("./src/orders.ts", 42, "placeOrder"), ("/app/router/index.js", 376, "handle"), ("/srv/app/retry.js", 2, None),
        ("Orders.java", 42, "place"), ("shop/orders.py", 14, "place_order")]
    paths = ["x/index.js", "y/index.js", "asyncio/base_events.py"]
    assert traced_files("/srv/y/index.js", ["c"] * 3, paths) == [1]
    assert traced_files("/srv/index.js", ["c"] * 3, paths) == []  # two files of that name: which is unknown
    assert traced_files("/srv/index.js", ["c"] * 3, paths, ambiguous=True) == [0, 1]  # which: its function tells
    assert traced_files("/srv/base_events.py", ["c"] * 3, paths, ambiguous=True) == [2]
    assert traced_files("/usr/lib/python3.11/asyncio/base_events.py", ["c"] * 3, paths) == [2]


def test_the_words_of_a_camel_case_word_in_prose_do_not_find_it(engine):
    """In a note, 'JavaScript' is a word of its own: 'java' finding it would be noise."""
    assert engine.search("java", mode="keyword").hits == []


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["retry.py", "client/retry.py", "notes/client/retry.py", "RETRY.PY"])
def test_a_file_name_as_the_query_ranks_that_file_first(engine, query, mode):
    """fetch.py and config.py say 'retries' more often than retry.py, which says it only in its name."""
    assert engine.search(query, mode=mode).hits[0].path == "client/retry.py"
    assert "client/retry.py" not in {h.path for h in engine.search(query, mode=mode, filters=Filters(glob="*.ts")).hits}


def test_what_names_a_file():
    assert names_file("cache.go", "corpus", "svc/cache.go") and names_file("svc/cache.go", "corpus", "svc/cache.go")
    assert names_file("corpus/svc/cache.go", "corpus", "svc/cache.go")
    assert not names_file("che.go", "corpus", "svc/cache.go")  # a whole name, not its end
    assert not names_file("cache", "corpus", "svc/cache.go")  # a word: no extension, no folder
    assert not names_file("cache .go", "corpus", "svc/cache.go")


@pytest.mark.parametrize("query", ["registry", "Registry"])
def test_a_plain_word_is_not_taken_for_a_name(engine, query):
    """'registry' is a word of prose as much as the class Registry: its ranking is left as it is."""
    answer = engine.search(query, mode="keyword")
    assert answer.hits and not any("come first" in note for note in answer.notes)
    assert [h.keyword_rank for h in answer.hits] == sorted(h.keyword_rank for h in answer.hits)
    assert code_name(query) is None and code_name("getRegistry") == ["getRegistry"]


def test_imports_and_a_licence_alone_are_not_found_by_meaning(engine):
    """So short a passage is near any query: client/__init__.py came up for whatever was asked by meaning."""
    answer = engine.search("how long to wait between two attempts", mode="semantic", limit=50)
    assert answer.hits and "client/__init__.py" not in {h.path for h in answer.hits}
    similar = engine.similar(path=("notes", "client/fetch.py"), limit=50)
    assert similar.hits and "client/__init__.py" not in {h.path for h in similar.hits}
    assert engine.search("fetch_all", mode="keyword", filters=Filters(glob="__init__.py")).hits  # words still find it
    assert boilerplate('package cache\n\nimport (\n\t"errors"\n\t"sync"\n)')
    assert not boilerplate("# A cart belongs to one customer.\nimport os")  # a comment that says something


@pytest.fixture(scope="module")
def joined_home(tmp_path_factory, model_path):
    """Real installed sources whose short definitions the chunker joins to a neighbour (pypdf's errors.py, huey's
    mini.py), beside files that say 'periodic task' more often than mini.py's definition does: indexed once."""
    import huey
    import pypdf
    # api.py to TaskWrapper.__init__ (953 lines): Huey, whose periodic_task and read_periodic say it, Task and
    # PeriodicTask, cut as in the whole file (cut after PeriodicTask, it joined _signature, a short passage that
    # BM25 ranked second); not the 530 lines after, which name no periodic task: 45 of the file's 121 passages
    api = (Path(huey.__file__).parent / "api.py").read_text(encoding="utf-8")
    tree = {"pypdf/errors.py": (Path(pypdf.__file__).parent / "errors.py").read_text(encoding="utf-8"),
            "huey/contrib/mini.py": (Path(huey.__file__).parent / "contrib" / "mini.py").read_text(encoding="utf-8"),
            "huey/api.py": "".join(api.splitlines(keepends=True)[:953]),
            "huey/registry.py": REGISTRY, "tests/test_registry.py": TESTS}
    return built_once(tmp_path_factory, model_path, lambda folder: ingest(write_tree(folder / "code", tree)))


@pytest.fixture
def joined_engine(joined_home, model_path, embedder, monkeypatch):
    return _warmed(in_home(joined_home, model_path, monkeypatch), embedder)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path, name", [
    ("MiniHuey.periodic_task", "huey/contrib/mini.py", "periodic_task"),
    ("mini.MiniHuey.periodic_task", "huey/contrib/mini.py", "periodic_task"),
    ("XmpDocumentError", "pypdf/errors.py", "XmpDocumentError"),
    ("errors.XmpDocumentError", "pypdf/errors.py", "XmpDocumentError")])
def test_a_definition_joined_to_its_neighbour_is_found_under_its_own_name(joined_engine, query, path, name, mode):
    """The passage holding a short definition joined to the one after it was headed by that one alone
    ('mini > MiniHuey > start' for periodic_task): its heading names both, and a search for the name, qualified
    or not, gives that passage first."""
    top = joined_engine.search(query, mode=mode).hits[0]
    lines = (Path(os.environ["SIFT_HOME"]).parent / "code" / path).read_text(encoding="utf-8").split("\n")
    line = next(n for n, text in enumerate(lines, 1) if text.lstrip().startswith((f"def {name}(", f"class {name}(")))
    assert (top.path, top.start_line <= line <= top.end_line) == (path, True), (top.path, top.start_line, line)
    assert name in top.heading_path.split(" > ")[-1].split(", "), top.heading_path


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_of_two_definitions_of_a_name_the_one_with_a_passage_of_its_own_comes_first(joined_engine, mode):
    """huey defines periodic_task twice: Huey.periodic_task in api.py, a passage of its own, and the few lines of
    MiniHuey.periodic_task in mini.py, joined to start. Both are definitions of the name, both come first; the
    joined passage, shorter, ranked above by BM25 once its heading said periodic_task too."""
    hits = joined_engine.search("periodic_task", mode=mode).hits
    assert [(h.path, h.heading_path) for h in hits[:2]] == [
        ("huey/api.py", "api > Huey > periodic_task"), ("huey/contrib/mini.py", "mini > MiniHuey > periodic_task, start")]



@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["@huey.task", "Huey.task"])
def test_a_name_whose_words_every_passage_holds_finds_its_definition_by_its_heading(joined_engine, query, mode,
                                                                                     monkeypatch):
    """'huey' and 'task' are in nearly every passage of huey: BM25 ranked a hundred others above Huey.task (headed
    'api > Huey > create_consumer, task'), which the definitions step never saw. Its heading holds both words:
    looked up there, it comes first, before the class Task (the same name but for its case). The candidates are
    cut to 8 here, as 100 are of huey's 3,000 passages."""
    from search.query import engine as engine_module
    monkeypatch.setattr(engine_module, "CANDIDATES", 8)
    words = joined_engine.search(query.replace(".", " ").lstrip("@"), limit=8, mode="keyword").hits
    assert not any(h.heading_path.endswith(", task") for h in words)  # the words alone leave it out
    top = joined_engine.search(query, limit=8, mode=mode).hits[0]
    assert (top.path, top.heading_path) == ("huey/api.py", "api > Huey > create_consumer, task")


def _step(name: str, says: str) -> str:
    """A function of some twenty lines whose docstring says ``says``: a passage of its own."""
    body = "".join(f"    value_{n} = compute_{n}(state)\n" for n in range(18))
    return f'def {name}(state):\n    """{says}"""\n{body}    return state\n\n\n'


# One file whose four functions say the question's words, the one that answers it (the worker loop) fourth; three
# files that say them once, ranked below all four.
HOW_TREE = {
    "pool/runner.py": _step("open_pool", "Open the thread pool: worker threads run blocking calls off the event loop.")
    + _step("configure_pool", "Configure the worker threads that run blocking calls off the event loop.")
    + _step("close_pool", "Close the pool of worker threads that ran blocking calls off the event loop.")
    + _step("worker_loop", "Each worker thread takes the next blocking call and runs it."),
    "web/server.py": _step("serve", "Serve requests on the event loop."),
    "web/client.py": _step("fetch", "Fetch a page; blocking calls are awaited."),
    "web/cache.py": _step("cached", "A cache of pages fetched by the worker."),
}


@pytest.mark.parametrize("query, more", [("how do worker threads run blocking calls off the event loop", True),
                                         ("worker threads run blocking calls off the event loop", False)])
def test_a_how_question_keeps_more_of_a_code_files_passages_that_ranked_first(engine_over, query, more):
    """The answer to 'how does aiosqlite run sqlite calls off the event loop' was core.py's fourth passage, ranked
    fourth of all, and the page kept two a file, giving its places to other files' passages ranked below it. A how-
    question keeps up to four passages of a code file among the first five ranked; other queries keep two."""
    engine = engine_over(HOW_TREE)
    hits = engine.search(query, limit=5, mode="keyword").hits
    ranked = [h.heading_path.split(" > ")[-1] for h in hits if h.path == "pool/runner.py"]
    assert len(ranked) == (4 if more else 2), [(h.path, h.heading_path) for h in hits]
    assert ("worker_loop" in ranked) is more
    if not more:
        assert hits[0].more_in_file == 2


# A small polyglot repository: a Python uploader, its tests, the TypeScript web client that calls it, an ADR naming
# their symbols (as /tmp/mono-D, the monorepo these were measured on, held them).
UPLOADER_TREE = {
    "uploader/client.py": '''\
"""Multipart uploads to object storage, with retries of the parts that fail."""
from __future__ import annotations

import hashlib
import logging
import random
import time
from typing import BinaryIO, Iterator

from .config import Settings
from .storage import StorageBackend, TransientStorageError

log = logging.getLogger(__name__)


class UploadFailed(RuntimeError):
    """An upload gave up after its retries."""


def iter_parts(stream: BinaryIO, chunk_size: int) -> Iterator[tuple[int, bytes]]:
    """Yield (part number, bytes) pieces of the stream, numbered from 1 as S3 wants them."""
    number = 1
    while True:
        data = stream.read(chunk_size)
        if not data:
            return
        yield number, data
        number += 1


def backoff_delay(attempt: int, base_ms: int) -> float:
    """Seconds to wait before the given retry attempt: exponential with full jitter."""
    cap = base_ms * (2 ** attempt) / 1000.0
    return random.uniform(0, cap)


class UploadClient:
    def __init__(self, settings: Settings, backend: StorageBackend):
        self.settings = settings
        self.backend = backend

    def upload_file(self, key: str, stream: BinaryIO, content_type: str) -> str:
        """Upload a whole file in parts; returns the ETag of the finished object."""
        if content_type not in self.settings.allowed_mime_types:
            raise ValueError(f"content type {content_type!r} is not allowed for uploads")
        upload_id = self.backend.create_multipart(self.settings.bucket, key, content_type)
        etags = []
        try:
            for number, data in iter_parts(stream, self.settings.chunk_size):
                etags.append(self.retry_upload_part(key, upload_id, number, data))
        except UploadFailed:
            self.backend.abort_multipart(self.settings.bucket, key, upload_id)
            raise
        return self.backend.complete_multipart(self.settings.bucket, key, upload_id, etags)

    def retry_upload_part(self, key: str, upload_id: str, number: int, data: bytes) -> str:
        """Upload one part, retrying transient storage errors up to settings.max_retries times."""
        digest = hashlib.md5(data).hexdigest()
        for attempt in range(self.settings.max_retries + 1):
            try:
                return self.backend.put_part(self.settings.bucket, key, upload_id, number, data, digest)
            except TransientStorageError as exc:
                if attempt == self.settings.max_retries:
                    raise UploadFailed(f"part {number} of {key} failed after {attempt + 1} attempts: {exc}") from exc
                delay = backoff_delay(attempt, self.settings.backoff_base_ms)
                log.warning("part %s of %s failed (%s); retrying in %.2fs", number, key, exc, delay)
                time.sleep(delay)
        raise AssertionError("unreachable")
''',
    "tests/test_client.py": '''\
import io

import pytest

from uploader.client import UploadClient, UploadFailed, iter_parts
from uploader.config import Settings
from uploader.storage import TransientStorageError


class FlakyBackend:
    def __init__(self, failures):
        self.failures = failures
        self.parts = []

    def create_multipart(self, bucket, key, content_type):
        return "u1"

    def put_part(self, bucket, key, upload_id, number, data, md5):
        if self.failures:
            self.failures -= 1
            raise TransientStorageError("503 SlowDown")
        self.parts.append(number)
        return f"etag-{number}"

    def complete_multipart(self, bucket, key, upload_id, etags):
        return "final"

    def abort_multipart(self, bucket, key, upload_id):
        self.aborted = True


def test_iter_parts_numbers_from_one():
    assert [n for n, _ in iter_parts(io.BytesIO(b"abcdef"), 4)] == [1, 2]


def test_retry_upload_part_recovers_from_transient_errors(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    backend = FlakyBackend(failures=2)
    client = UploadClient(Settings(bucket="b", max_retries=3), backend)
    assert client.retry_upload_part("k", "u1", 1, b"data") == "etag-1"


def test_upload_gives_up_after_max_retries(monkeypatch):
    monkeypatch.setattr("time.sleep", lambda s: None)
    backend = FlakyBackend(failures=10)
    client = UploadClient(Settings(bucket="b", max_retries=2), backend)
    with pytest.raises(UploadFailed):
        client.upload_file("k", io.BytesIO(b"x" * 10), "image/png")
    assert backend.aborted
''',
    "web/src/config.ts": '''\
// Runtime configuration of the web app, read from window.__APP_CONFIG__ (written by deploy/k8s/web-config.yaml).
declare global {
  interface Window {
    __APP_CONFIG__?: Record<string, string>;
  }
}

const defaults: Record<string, string> = {
  "api-base-url": "https://api.acme.test",
  "upload-retry-limit": "4",
  "feature-flags": "",
};

export function configValue(name: string): string {
  return window.__APP_CONFIG__?.[name] ?? defaults[name];
}

export const apiBaseUrl = (): string => configValue("api-base-url");
export const uploadRetryLimit = (): number => Number(configValue("upload-retry-limit"));

export function isFeatureEnabled(flag: string): boolean {
  return configValue("feature-flags").split(",").map((f) => f.trim()).includes(flag);
}
''',
    "web/src/uploadClient.ts": '''\
import { backOff } from "exponential-backoff";
import { apiBaseUrl, uploadRetryLimit } from "./config";

export interface UploadProgress {
  loaded: number;
  total: number;
}

export class UploadError extends Error {
  constructor(message: string, public readonly status: number) {
    super(message);
    this.name = "UploadError";
  }
}

/** Sends a file to the uploader service, retrying 502/503 answers with exponential backoff. */
export async function retryUpload(key: string, file: Blob, onProgress?: (p: UploadProgress) => void): Promise<string> {
  return backOff(() => sendOnce(key, file, onProgress), {
    numOfAttempts: uploadRetryLimit(),
    startingDelay: 200,
    retry: (err: unknown) => err instanceof UploadError && (err.status === 502 || err.status === 503),
  });
}

async function sendOnce(key: string, file: Blob, onProgress?: (p: UploadProgress) => void): Promise<string> {
  const body = new FormData();
  body.append("file", file);
  const res = await fetch(`${apiBaseUrl()}/v1/uploads/${encodeURIComponent(key)}`, { method: "POST", body });
  onProgress?.({ loaded: file.size, total: file.size });
  if (!res.ok) {
    throw new UploadError(`upload of ${key} failed with HTTP ${res.status}`, res.status);
  }
  const json = (await res.json()) as { etag: string };
  return json.etag;
}
''',
    "web/src/UploadButton.tsx": '''\
import React, { useState } from "react";
import { retryUpload, UploadError } from "./uploadClient";

type Props = { folder: string; onDone?: (etag: string) => void };

export function UploadButton({ folder, onDone }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function handleFileChange(e: React.ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const etag = await retryUpload(`${folder}/${file.name}`, file);
      onDone?.(etag);
    } catch (err) {
      setError(err instanceof UploadError ? `Upload failed (${err.status})` : "Upload failed");
    } finally {
      setBusy(false);
    }
  }

  return (
    <label className="upload-button">
      {busy ? "Uploading…" : "Upload a file"}
      <input type="file" hidden onChange={handleFileChange} disabled={busy} />
      {error && <span role="alert">{error}</span>}
    </label>
  );
}
''',
    "docs/runbooks/uploads-failing.md": '''\
# Runbook: uploads failing

## Symptoms

- Users report "Upload failed (502)".
- The uploader logs `part N of KEY failed (...); retrying in X.XXs` many times, then
  `storage unavailable: part N of KEY failed after 6 attempts`.

## Checks

1. `kubectl -n acme-prod logs deploy/uploader | grep "failed after"`.
2. Is the bucket throttling? Look for `SlowDown` in the error.
3. Check `UPLOAD_MAX_RETRIES` in deploy/k8s/uploader.yaml; raising it only hides throttling.

## Fix

Roll back with `scripts/deploy.sh prod` of the last good tag, or lower the traffic. `wait_for_rollout` rolls back
by itself when a rollout does not finish within five minutes.
''',
    "uploader/api.py": '''\
"""HTTP endpoints of the uploader (FastAPI)."""
from __future__ import annotations

from fastapi import APIRouter, HTTPException, UploadFile

from .client import UploadClient, UploadFailed

router = APIRouter(prefix="/v1/uploads")
_client: UploadClient | None = None


def get_client() -> UploadClient:
    if _client is None:
        raise HTTPException(status_code=503, detail="uploader is not configured yet")
    return _client


@router.post("/{key}")
async def create_upload(key: str, file: UploadFile):
    """Store the request's file under key; 502 when storage keeps failing."""
    client = get_client()
    try:
        etag = client.upload_file(key, file.file, file.content_type or "application/octet-stream")
    except ValueError as exc:
        raise HTTPException(status_code=415, detail=str(exc))
    except UploadFailed as exc:
        raise HTTPException(status_code=502, detail=f"storage unavailable: {exc}")
    return {"key": key, "etag": etag}


@router.get("/healthz")
async def healthz():
    return {"ok": _client is not None}
''',
    "docs/adr/0003-retry-uploads.md": '''\
# ADR 0003: Retry failed uploads with exponential backoff

Status: accepted (2025-09-14)

## Context

Object storage answers `503 SlowDown` under load. Until now a single failed part made the whole multipart upload
fail, and users saw "Upload failed (502)" in the `UploadButton`.

## Decision

- The uploader retries each part in `UploadClient.retry_upload_part` (services/uploader/uploader/client.py), up to
  `UPLOAD_MAX_RETRIES` times (default 5, `uploader.max_retries` in config/uploader.yaml), waiting
  `backoff_delay(attempt, backoff_base_ms)`: exponential with full jitter.
- Only `TransientStorageError` is retried; `S3Backend.put_part` decides what is transient (`_is_transient`).
- The web client retries the whole request on 502/503 in `retryUpload` (web/src/uploadClient.ts) through the
  `exponential-backoff` package, at most `upload-retry-limit` attempts.

## Consequences

A part is attempted at most six times; after that `UploadFailed` aborts the multipart upload
(`abort_multipart`) so no half-written object is left behind.
''',
}


@pytest.fixture(scope="module")
def uploader_home(tmp_path_factory, model_path):
    """UPLOADER_TREE indexed once for the module: the tests of ``uploader_engine`` only search it."""
    return built_once(tmp_path_factory, model_path, lambda folder: ingest(write_tree(folder / "repo", UPLOADER_TREE)))


@pytest.fixture
def uploader_engine(uploader_home, model_path, embedder, monkeypatch):
    return _warmed(in_home(uploader_home, model_path, monkeypatch), embedder)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path, name", [
    ("upload_retry_limit", "web/src/config.ts", "uploadRetryLimit"),
    ("RetryUploadPart", "uploader/client.py", "retry_upload_part"),
    ("retryUploadPart", "uploader/client.py", "retry_upload_part")])
def test_a_name_written_in_another_case_style_finds_its_definition(uploader_engine, query, path, name, mode):
    """A developer writes a name as the language they think in writes it: snake_case for the TypeScript
    uploadRetryLimit, camelCase for the Python retry_upload_part. Its words found the definition, but a test or an ADR
    saying them more often ranked above it (the test test_retry_upload_part_recovers_from_transient_errors first)."""
    answer = uploader_engine.search(query, mode=mode)
    top = answer.hits[0]
    assert (top.path, name in top.heading_path.split(" > ")[-1].split(", ")) == (path, True), \
        [(h.path, h.heading_path) for h in answer.hits[:3]]
    if top.score < max(h.score for h in answer.hits):  # moved up: the scores no longer say the order
        assert any(n.startswith(f"the definitions of {query!r} come first") for n in answer.notes), answer.notes
    assert declares("retry_upload_part", "    def retryUploadPart(self):") and not declares("retry_upload", "def retry_upload_part():")


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path, caller", [
    ("who calls retry_upload_part", "uploader/client.py", "upload_file"),
    ("callers of iter_parts", "uploader/client.py", "upload_file"),
    ("where is retryUpload called?", "web/src/UploadButton.tsx", "UploadButton"),
    ("where is uploadRetryLimit used", "web/src/uploadClient.ts", "retryUpload")])
def test_a_question_about_who_calls_a_name_gives_its_callers_first(uploader_engine, query, path, caller, mode):
    """'who calls retry_upload_part' ranked the definition, its test and the ADR naming it first, and the caller,
    upload_file in the definition's own file, was left off the page (two passages of a file at most)."""
    answer = uploader_engine.search(query, mode=mode)
    top = answer.hits[0]
    assert (top.path, caller in top.heading_path) == (path, True), [(h.path, h.heading_path) for h in answer.hits[:3]]
    assert any(n.startswith("the code passages that ") for n in answer.notes), answer.notes
    tests = [i for i, h in enumerate(answer.hits) if h.path.startswith("tests/")]
    assert not tests or all(not h.path.startswith("tests/") for h in answer.hits[:tests[0]])  # callers, then tests


@pytest.mark.parametrize("query", ["who calls retry_upload_part", "callers of iter_parts",
                                   "where is retryUpload called?", "what invokes retry_upload_part"])
def test_a_caller_question_gets_no_spelling_note_for_its_framing_words(uploader_engine, query):
    """'who calls retry_upload_part' said "no passage contains 'who' or 'calls'", and 'where is … called' named
    'called': the question's framing, in no code, read as words the user may have mistyped. The name alone is
    checked: a misspelled one is still named, with the name meant."""
    answer = uploader_engine.search(query, mode="keyword")
    assert answer.unmatched == [] and not any(n.startswith("no passage contains") for n in answer.notes), answer.notes
    typo = uploader_engine.search("who calls retry_uplaod_part", mode="keyword")
    assert [u["word"] for u in typo.unmatched] == ["uplaod"], typo.unmatched


@pytest.mark.parametrize("query", ["who calls them", "who calls it?", "where are they used?", "what calls this"])
def test_a_caller_question_about_something_said_before_gets_no_spelling_note(uploader_engine, query):
    """A follow-up question's pronoun names no name ('who calls them', after a question about a function): the
    callers step looks for none, and the spelling note checked the whole question, so it named its framing as
    mistyped ("no passage contains 'who' or 'calls'"), as it did for a named one before. Nothing in it is a word
    the user may have mistyped."""
    answer = uploader_engine.search(query, mode="keyword")
    assert answer.unmatched == [] and not any(n.startswith("no passage contains") for n in answer.notes), \
        (answer.unmatched, answer.notes)


def test_what_asks_who_uses_a_name():
    assert used_by("who calls retry_upload_part") == (["retry_upload_part"], True)
    assert used_by("usages of Huey.enqueue?") == (["Huey", "enqueue"], False)
    assert used_by("retry_upload_part") is None and used_by("how to call a function") is None
    assert uses("retry_upload_part", "        etags.append(self.retry_upload_part(key))", calls=True)
    assert not uses("retry_upload_part", "    def retry_upload_part(self, key):", calls=True)  # its definition
    assert not uses("TransientStorageError", "from .storage import TransientStorageError", calls=False)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path, name", [
    ("storage unavailable: part 3 of photos/a.png failed after 6 attempts: 503 SlowDown", "uploader/client.py",
     "retry_upload_part"),
    ("HTTP 502: storage unavailable: timeout", "uploader/api.py", "create_upload"),
    ("Error: upload of avatars/me.png failed with HTTP 503", "web/src/uploadClient.ts", "sendOnce")])
def test_a_pasted_message_finds_the_string_that_makes_it_first(uploader_engine, query, path, name, mode):
    """A message pasted from a log is a string of the code with its values filled in: its words ranked the runbook
    quoting it, and passages saying storage, part and failed more often, above the line that makes it."""
    answer = uploader_engine.search(query, mode=mode)
    top = answer.hits[0]
    assert (top.path, name in top.heading_path) == (path, True), [(h.path, h.heading_path) for h in answer.hits[:3]]
    if top.score < max(h.score for h in answer.hits):  # moved up: the scores no longer say the order
        assert any(n.startswith("the code passages holding the text that makes the message") for n in answer.notes)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["storage unavailable: part 3 of photos/a.png failed after 6 attempts: 503 SlowDown",
                                   "who calls retry_upload_part", "how are failed parts retried"])
def test_a_search_reads_each_passage_once_and_no_note_for_the_steps_about_code(uploader_engine, query, mode,
                                                                             monkeypatch):
    """The steps after the ranking each read the candidates' rows: a query of three words read every candidate's
    text for the pasted-message step (notes too, though only code makes a message), and the page's again for its
    snippets; a caller question read them once more. Each passage is read once now, and a step about code reads no
    note, which the page does not show (the step about lists of links reads the first notes by design: it is left
    out for that part, search.query.lists)."""
    uploader_engine.search(query, mode=mode)  # the connection open, the postings read
    read, answer = _rows_read(uploader_engine, query, mode)
    assert read and len(read) == len(set(read)), sorted(read)
    monkeypatch.setattr(reordering, "lists_after_their_notes", lambda read, query, ranked, notes, limit: ranked)
    read, answer = _rows_read(uploader_engine, query, mode)
    assert read and len(read) == len(set(read)), sorted(read)
    kinds = {r["id"]: r["kind"] for r in chunk_reads.hit_rows(db.connect(uploader_engine.index_path, readonly=True), read)}
    shown = {hit.chunk_id for hit in answer.hits}
    assert {cid for cid in read if kinds[cid] != "code"} <= shown, (kinds, shown)


def _rows_read(engine, query: str, mode: str) -> tuple[list[int], object]:
    """The chunk ids whose rows (text) a search of two passages read, in the order read, and its answer."""
    statements: list[str] = []
    engine._connection().set_trace_callback(statements.append)
    try:
        answer = engine.search(query, limit=2, mode=mode)
    finally:
        engine._connection().set_trace_callback(None)
    return [int(cid) for sql in statements if "ch.text" in sql and "ch.id IN (" in sql
            for cid in re.search(r"ch\.id IN \(([^)]*)\)", sql).group(1).split(",")], answer


def test_which_string_makes_a_message():
    made = 'raise UploadFailed(f"part {number} of {key} failed after {attempt + 1} attempts: {exc}")'
    assert message_match("part 3 of a.png failed after 6 attempts: SlowDown", made) == len("part" "of" "failed after" "attempts:")
    assert message_match("user 42 not found in table users", "throw new Error(`user ${id} not found in table users`);")
    assert not message_match("part 3 failed", made)  # a part of the string is not the message it makes
    assert not message_match("error: disk full", 'log.error("error: %s", exc)')  # too little of its own to tell


API_TREE = {
    "docs/auth.md": "# How requests are signed\n\nThe client sends the authorization header with every request to the "
                    "API: a bearer token read from the environment. The API refuses a request without it.\n",
    "client/http.py": 'import os\n\n\ndef headers():\n    return {"Authorization": os.environ["API_TOKEN"],\n'
                      '            "Content-Type": "application/json"}\n'}


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_sentence_holding_a_one_word_string_of_the_code_is_no_pasted_message(engine_over, mode):
    """A string of one word ("Authorization", "application/json": a header, a dict key) is no message a log shows:
    a question in English that says the word ('how does the client send the authorization header') put the code
    passage holding it first, above the note that answers it, as if the question were a message it made."""
    engine = engine_over(API_TREE)
    answer = engine.search("how does the client send the authorization header to the api", mode=mode)
    assert not any(n.startswith("the code passages holding the text") for n in answer.notes), answer.notes
    assert answer.hits[0].path == "docs/auth.md", [(h.path, h.score) for h in answer.hits]
    assert not message_match("send the authorization header", '{"Authorization": token}')
    assert message_match("error: storage unavailable: timeout", 'f"storage unavailable: {exc}"')


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["who uses this?", "what calls it", "where is that used"])
def test_a_question_about_who_uses_a_pronoun_names_no_code(uploader_engine, query, mode):
    """'who uses this?' asks about something said before, not about a name ``this``: every passage of the TypeScript
    client using ``this`` came first, as the callers of a name would."""
    answer = uploader_engine.search(query, mode=mode)
    assert not any(n.startswith("the code passages that ") for n in answer.notes), answer.notes
    assert used_by(query) is None and used_by("who calls render") == (["render"], True)


FOLLOW_UP_TREE = {
    "app/retry.py": 'def backoff(attempt):\n    """Waits grow with each attempt: they double until the cap."""\n'
                    "    return min(2 ** attempt, 60)\n",
    "app/cache.py": "def evict(items, keep):\n    return items[-keep:]\n",
    "notes/cache.md": "# Cache\n\nThe caches are used by the API and the workers; where they are used matters.\n",
}


KEBAB_TREE = {
    "cli.py": 'import argparse\n\n\ndef parse(argv):\n    parser = argparse.ArgumentParser(prog="ship")\n'
              '    parser.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")\n'
              '    parser.add_argument("--target", default="prod")\n    return parser.parse_args(argv)\n',
    "deploy.py": "def deploy(plan, dry_run=False):\n    if dry_run:\n        print('dry run: nothing shipped')\n"
                 "        return plan\n    for step in plan:\n        step.run()\n    return plan\n",
    "docs/Dry runs.md": "# Dry runs\n\n" + "A dry run prints the plan; run the dry run before every deploy. " * 4 + "\n",
    "web/styles.css": "body {\n  margin: 0;\n}\n\n.btn-primary {\n  color: white;\n  background: navy;\n}\n",
    "web/page.html": "<main>\n" + '  <a class="btn btn-primary" href="/buy">Buy, primary button</a>\n' * 4 + "</main>\n",
    "docs/Buttons.md": "# Buttons\n\n" + "The primary button (btn primary) is navy; one primary button a page. " * 4 + "\n",
    "uploader/retry.py": "import time\n\n\ndef retry_upload(part, attempts=3):\n    for n in range(attempts):\n"
                         "        if part.send():\n            return True\n        time.sleep(2 ** n)\n    return False\n",
    "docs/Retries.md": "# Retries\n\n" + "Retry the upload when it fails: each retry of an upload waits longer. " * 4 + "\n",
}


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["where are they used?", "who calls him", "who uses what"])
def test_a_follow_up_question_about_who_uses_a_pronoun_names_no_code(engine_over, query, mode):
    """'where are they used?' asks about what was said before, as 'who uses this?' does: it was taken for the
    name ``they``, and the function whose docstring says 'they double' came first as its user."""
    engine = engine_over(FOLLOW_UP_TREE)
    answer = engine.search(query, mode=mode)
    assert not any(n.startswith("the code passages that ") for n in answer.notes), answer.notes
    assert used_by(query) is None


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path", [("--dry-run", "cli.py"), (".btn-primary", "web/styles.css"),
                                         ("btn-primary", "web/styles.css"), ("retry-upload", "uploader/retry.py")])
def test_a_kebab_case_name_finds_what_declares_it_first(engine_over, query, path, mode):
    """A kebab-case name (a flag, a CSS class, a name written as Lisp or shell write them) was no code name: its
    words ranked the notes saying 'dry run' or 'primary button' and the page using the class above the line that
    declares it. Now it is one, as snake_case, camelCase and PascalCase names are: the flag added, the CSS rule,
    the Python retry_upload for retry-upload, first."""
    engine = engine_over(KEBAB_TREE)
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == path, [(h.path, h.score) for h in answer.hits[:4]]


def test_which_kebab_case_names_are_code_names_and_what_declares_them():
    assert code_name("--dry-run") == ["dry-run"] and code_name(".btn-primary") == ["btn-primary"]
    assert code_name("retry-upload") == ["retry-upload"] and code_name("-v") is None and code_name("3-4") is None
    assert declares("dry-run", 'parser.add_argument("--dry-run", action="store_true")')
    assert declares("btn-primary", "a.btn-primary, .btn-primary:hover {") and declares("retry-upload", "def retry_upload():")
    assert declares("retry-upload", "retry-upload() {") and declares("retry-upload", "(defun retry-upload (part)")
    assert not declares("btn-primary", '<a class="btn-primary">') and not declares("btn-primary", ".btn-primary-dark {")
    assert declares("retry-upload", "retry-upload: build") and declares("runs-on", "    runs-on: ubuntu-latest")


# hyphenated words of prose (a CSS property, a word of English) that code holds without declaring them
PROSE_TREE = {
    "pdf/annotations.py": 'class FreeText:\n    def __init__(\n        self,\n        text: str,\n'
                          '        background_color: str | None = "ffffff",\n    ):\n'
                          + "        self.text = text\n        self.border = None\n        self.font = 'Helvetica'\n" * 6
                          + '        self.background_color = background_color\n',
    "web/oidc.js": 'export function discover(host) {\n'
                   '  return fetch("/.well-known/openid-configuration").then((r) => {\n    return r.json();\n  });\n}\n',
    "web/site.css": ".page {\n  background-color: white;\n" + "  color: black;\n  margin: 0 auto;\n" * 6 + "}\n",
    "docs/Print.md": "# Print\n\n" + "Set the background-color to white for print, a well-known trick. " * 4 + "\n",
}
PROSE_TREE.update({f"docs/{name}.md": f"# {name}\n\n{text}\n" for name, text in [  # so that its words are rare
    ("Garden", "Tomatoes need sun and a stake; beans climb the fence."),
    ("Recipes", "Braise the pork belly for an hour, then reduce the sauce."),
    ("Travel", "Taipei: the palace museum, the night market, Jiufen."),
    ("Bike", "The chain skips in third gear; new brake pads in spring."),
    ("Tax", "Send the receipts to the accountant before the deadline."),
    ("Cat", "The vet says less dry food and more water.")]})


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["background-color", "well-known"])
def test_a_hyphenated_word_code_only_uses_puts_no_code_first(engine_over, query, mode):
    """A hyphenated word alone is read as a kebab-case name, which code declares as a Make target or YAML key
    ('name:'), a shell function, a CSS class: a Python parameter 'background_color: str' was taken for the target
    'background-color:', a CSS rule setting 'background-color: white;' for one, and a URL's '/.well-known/' before a
    '{' for the CSS class '.well-known'; each came first over the note that says the words ('the definitions of
    'background-color' come first'), each keeping its score. On notes-en beside huey, pypdf and aiosqlite 'background-color' did so
    (bench/kebab_words.py)."""
    engine = engine_over(PROSE_TREE)
    answer = engine.search(query, mode=mode)
    assert not [n for n in answer.notes if n.startswith("the definitions of")], (answer.notes, answer.hits[0].path)


CLICK_CLI = ('import click\n\n\n@click.command()\n@click.option("--dry-run/--no-dry-run", default=False, '
             'help="print the plan, change nothing")\ndef ship(dry_run):\n    run(dry_run)\n')
GO_MAIN = ('package main\n\nimport "flag"\n\nfunc main() {\n\tdryRun := flag.Bool("dry-run", false, "print the plan")\n'
           '\tflag.Parse()\n\tship(*dryRun)\n}\n')


@pytest.mark.parametrize("path, source", [("cli.py", CLICK_CLI), ("main.go", GO_MAIN)])
def test_a_flag_added_as_click_or_go_write_it_declares_its_kebab_name(engine_over, path, source):
    """Click adds a flag with its negation ('--dry-run/--no-dry-run'), Go's flag package (and cobra's Flags())
    by its name without dashes ('flag.Bool("dry-run", …)'): neither was read as declaring '--dry-run' (the pattern
    wanted a dash before the name and a quote or '=' after), so the notes and the code saying 'dry run' came first."""
    assert declares("dry-run", source.split("\n")[4 if path == "cli.py" else 5])
    assert declares("dry-run", '\tcmd.Flags().BoolVarP(&dryRun, "dry-run", "n", false, "print the plan")')
    assert not declares("dry-run", '\tif *dryRun {\n') and not declares("dry-run", 'log.Printf("dry-run: %v", plan)')
    tree = {**{k: v for k, v in KEBAB_TREE.items() if k != "cli.py"}, path: source}
    engine = engine_over(tree)
    answer = engine.search("--dry-run", mode="keyword")
    assert answer.hits[0].path == path, [(h.path, h.score) for h in answer.hits[:4]]


SHIP_JS = ("export function ship(plan, opts) {\n"
           + "  if (opts.dryRun) {\n    console.log('dry run: the plan only', plan);\n    return plan;\n  }\n" * 3
           + "  return plan.map((step) => step.run());\n}\n")


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query", ["--dry-run", "dry-run"])
def test_a_kebab_name_read_as_a_member_in_a_condition_is_no_declaration(engine_over, query, mode):
    """A CSS rule's selector declares a class (``.btn-primary {``), but the same pattern took ``if (opts.dryRun) {``
    (JavaScript reading the option) as declaring ``--dry-run``: the script using the flag came before the line
    adding it. A '-' is in no member name of JavaScript, Python or the like, so a selector is read as written."""
    assert not declares("dry-run", "  if (opts.dryRun) {\n") and declares("btn-primary", ".nav .btn-primary:hover {\n")
    tree = {**KEBAB_TREE, "web/ship.js": SHIP_JS}
    engine = engine_over(tree)
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == "cli.py", [(h.path, h.score) for h in answer.hits[:4]]


HYPHENATED_TREE = {
    "docs/E-mail.md": "# E-mail\n\n" + "Answer every e-mail within a day; an e-mail to a customer is signed. " * 4
                      + "\n",
    "docs/Follow-up.md": "# Follow-up\n\n" + "A follow-up call comes a week after the visit; note the follow-up. " * 4
                         + "\n",
    "app/contact.py": "class Contact:\n    def __init__(self, email, phone):\n        self.email = email\n"
                      "        self.phone = phone\n\n\ndef email(contact, text):\n    return contact.email, text\n\n\n"
                      "def followup(contact):\n    return email(contact, 'following up on our call')\n",
}


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path", [("e-mail", "docs/E-mail.md"), ("follow-up", "docs/Follow-up.md")])
def test_a_hyphenated_word_of_prose_is_no_code_name_of_one_word(engine_over, query, path, mode):
    """'e-mail' and 'follow-up' are English words written with a hyphen, not kebab-case names: read as one, they
    put the functions ``email`` and ``followup`` (one word each, as a plain word is no code name) before the notes
    about them. A kebab-case name's parts are the words of the name it stands for ('retry-upload' is
    ``retry_upload`` or ``retryUpload``), not letters run together."""
    engine = engine_over(HYPHENATED_TREE)
    answer = engine.search(query, mode=mode)
    assert answer.hits[0].path == path, [(h.path, h.score) for h in answer.hits[:4]]
    assert not any(n.startswith("the definitions of") for n in answer.notes), answer.notes


def _steps(name: str, words: str) -> str:
    """A function's body of a dozen lines (a passage of its own), saying ``words``."""
    lines = [f'    """{name}: {words}."""'] + [f"    step_{i} = compute_{name}_{i}(order, attempt={i})  # {words} step {i}"
                                            for i in range(10)]
    return "\n".join(lines + ["    return step_9"])


TRACED = {
    "shop/orders.py": "\n\n\n".join([
        '"""Orders of the shop."""\nfrom shop.payments import charge_card',
        "def cancel_order(order):\n" + _steps("cancel_order", "cancel an order and refund its card"),  # lines 5-19
        "def place_order(order):\n" + _steps("place_order", "place an order and charge its card")  # lines 20-35
        + "\n    charge_card(order.total, order.card)",
        "def ship_order(order):\n" + _steps("ship_order", "ship an order once its card is charged")]) + "\n",
    "shop/payments.py": "\n\n\n".join([
        '"""Payments: cards charged and refunded."""',
        "class PaymentDeclined(Exception):\n    pass",
        "def refund_card(amount, card):\n" + _steps("refund_card", "refund a card payment declined before"),  # 8-22
        "def charge_card(amount, card):\n" + _steps("charge_card", "charge a card, declined when the bank says no")
        + '\n    raise PaymentDeclined(f"card {card} declined for {amount}")']) + "\n",  # lines 23-36
    "notes/payments.md": "# Payment declined\n\nWhen a card payment is declined (PaymentDeclined), the order is not "
                         "placed: place_order calls charge_card, charge_card raises PaymentDeclined for a declined "
                         "card. Card declined, payment declined; the order is placed once the card is charged.\n",
    "orders/views.py": "def checkout(request):\n" + _steps("checkout", "check out a cart into an order")
                       + "\n\n\ndef cart(request):\n" + _steps("cart", "show the cart and its profile") + "\n",
    "users/views.py": "def profile(request):\n" + _steps("profile", "show a user's profile and orders")
                      + "\n\n\ndef login(request):\n" + _steps("login", "log a user in to their profile") + "\n",
}
# The trace of a run before the files were edited: its lines are now in cancel_order and refund_card.
STALE_TRACE = """Traceback (most recent call last):
  File "/home/me/shop/shop/orders.py", line 12, in place_order
    charge_card(order.total, order.card)
  File "/home/me/shop/shop/payments.py", line 18, in charge_card
    raise PaymentDeclined(f"card {card} declined for {amount}")
shop.payments.PaymentDeclined: card 4242 declined for 12.50"""


def _heading_ends(hit) -> str:
    return hit.heading_path.split(" > ")[-1]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_traced_function_is_found_where_the_trace_is_older_than_the_code(engine_over, mode):
    """A trace from before an edit names lines that now hold other functions (cancel_order, refund_card): its
    frames' functions are what it names; the one that raised first, as Python writes it last."""
    hits = engine_over(TRACED).search(STALE_TRACE, mode=mode).hits
    # each function is two passages: charge_card's raising the message (messages_first), then the frames' passages
    assert list(dict.fromkeys((hit.path, _heading_ends(hit)) for hit in hits[:3])) == [
        ("shop/payments.py", "charge_card"), ("shop/orders.py", "place_order")]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_python_traceback_puts_the_frame_that_raised_first(engine_over, mode):
    trace = ('Traceback (most recent call last):\n  File "/srv/shop/orders.py", line 35, in place_order\n'
             '  File "/srv/shop/payments.py", line 36, in charge_card\nPaymentDeclined: card 4242 declined')
    hits = engine_over(TRACED).search(trace, mode=mode).hits
    assert [_heading_ends(hit) for hit in hits[:2]] == ["charge_card", "place_order"], [h.heading_path for h in hits]


def _go_steps(name: str, words: str) -> str:
    """A Go function's body of a dozen lines (a passage of its own), saying ``words``."""
    return "\n".join([f"\t// {name}: {words}."] + [f"\tstep{i} := compute{name}{i}(req, {i}) // {words} step {i}"
                                                    for i in range(10)] + ["\treturn step9", "}"])


def _rust_steps(name: str, words: str) -> str:
    """A Rust function's body of a dozen lines, saying ``words``."""
    return "\n".join([f"    // {name}: {words}."] + [f"    let step{i} = compute_{name}_{i}(url, {i}); // {words} step {i}"
                                                      for i in range(10)] + ["    step9", "}"])


# Go and Rust name a frame's function on the line before its path; these traces are older than the code: their
# lines are now in serveStatic and ping.
GO_RUST = {
    "app/server.go": "package app\n\ntype Server struct{ db *DB }\n\n"
                     "func (s *Server) serveStatic(req *Request) error {\n" + _go_steps("static", "serve a static file")
                     + "\n\nfunc (s *Server) handle(req *Request) error {\n"
                     + _go_steps("handle", "handle a request with the database") + "\n",
    "src/db.rs": "use std::net::TcpStream;\n\npub fn ping(url: &str) -> bool {\n" + _rust_steps("ping", "ping the server")
                 + "\n\npub fn connect(url: &str) -> Result<Conn, Error> {\n"
                 + _rust_steps("connect", "open a connection to the database") + "\n",
    "notes/panics.md": "# Nil pointer panics\n\nA runtime error: invalid memory address or nil pointer dereference "
                       "in the server handle of a request; a database connection refused panicked, unwrap on an Err "
                       "value. Runtime error, nil pointer, invalid memory address: the database was down.\n",
}
GO_TRACE = """panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a5b2c]

goroutine 18 [running]:
main.(*Server).handle(0x0, {0x5c1f20, 0xc000012345})
\t/home/me/app/server.go:9 +0x1d
main.main()
\t/home/me/app/main.go:9 +0x1f
exit status 2"""
RUST_TRACE = """thread 'main' panicked at src/db.rs:6:5:
called `Result::unwrap()` on an `Err` value: Os { code: 111, kind: ConnectionRefused }
stack backtrace:
   0: rust_begin_unwind
             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:645:5
   3: myapp::db::connect::h3b1f0a2c9d8e7f61
             at ./src/db.rs:6:5
   4: myapp::main
             at ./src/main.rs:5:5"""


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("trace, path, function", [(GO_TRACE, "app/server.go", "handle"),
                                                   (RUST_TRACE, "src/db.rs", "connect")])
def test_a_go_or_rust_trace_finds_the_function_it_names(engine_over, trace, path, function, mode):
    """Go's panic and Rust's backtrace name a frame's function on the line before its path: it was not read, so a
    trace older than the code found the passage now at its line (serveStatic, ping) and not the function."""
    top = engine_over(GO_RUST).search(trace, mode=mode).hits[0]
    assert (top.path, _heading_ends(top).split(".")[-1]) == (path, function), top.heading_path


@pytest.mark.timeout(60)  # milliseconds now; 200,000 spaces took the square of that (hours) before
def test_a_rust_frames_pattern_reads_a_line_of_many_spaces_once():
    """A Rust frame's function was taken lazily up to the spaces before the line's end: from each letter of the line
    the spaces after it were read again, 2 s a query's line of '1: a', 10,000 spaces and a word (and a search reads
    the frames four times). The name now ends at its last letter; what a frame names is as before."""
    from search.query.backtrace import functions
    trace = "   1: a" + " " * 200_000 + "b\n   2: myapp::db::connect   \r\n             at ./src/db.rs:17:5\n"
    assert functions(trace) == {trace.index(".rs:") + 3: "connect"}


def test_what_a_go_or_rust_frame_names():
    assert frames("goroutine 1 [running]:\nmain.(*Server).handle.func1()\n\t/app/server.go:61 +0x25\n"
                  "created by main.(*Server).Serve in goroutine 1\n\t/app/server.go:58 +0x8a\n"
                  "github.com/me/app/db.Open[...](...)\n\t/app/db/db.go:12\n") == [
        ("/app/server.go", 61, "handle"), ("/app/server.go", 58, "Serve"), ("/app/db/db.go", 12, "Open")]
    # Rust's panic line and its frame are one frame, with the frame's function
    assert frames("   1: core::result::unwrap_failed\n             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf"
                  "/library/core/src/result.rs:1653:5\n") == []  # Rust's own library: not a project's src/result.rs
    assert frames("thread 'main' panicked at src/db.rs:17:5:\n   3: <myapp::Pool as core::ops::Drop>::drop\n"
                  "             at ./src/pool.rs:30:9\n   4: myapp::db::connect::{{closure}}\n"
                  "             at ./src/db.rs:17:5\n") == [("src/db.rs", 17, "connect"), ("./src/pool.rs", 30, "drop")]


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_traced_file_named_as_others_are_is_the_one_defining_its_function(engine_over, mode):
    """'/srv/app/views.py' is orders/views.py or users/views.py: the trace's path tells neither, its function does
    (the error's words ranked users/views.py's profile first)."""
    trace = ('Traceback (most recent call last):\n  File "/srv/app/views.py", line 20, in cart\n'
             "KeyError: 'show the user profile orders'")
    top = engine_over(TRACED).search(trace, mode=mode).hits[0]
    assert (top.path, _heading_ends(top)) == ("orders/views.py", "cart")


RUN_TOGETHER = {
    "users/profile.py": "def get_user_name(user_id):\n    \"\"\"The display name of a user.\"\"\"\n"
                        "    return lookup(user_id).display\n\n\ndef set_user_email(user_id, email):\n"
                        "    \"\"\"Change a user's email.\"\"\"\n    store(user_id, email=email)\n",
    "app/settings.rs": "pub fn parse_config(text: &str) -> Config {\n    toml::from_str(text).unwrap()\n}\n",
    "notes/users.md": "# Users\n\nA user has a name and an email; the name of a user is shown on their profile. To get a "
                      "user, ask the profile service by name.\n",
}


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("query, path, name", [("getusername", "users/profile.py", "get_user_name"),
                                               ("parseconfig", "app/settings.rs", "parse_config")])
def test_a_name_typed_in_small_letters_finds_it_written_with_its_words(engine_over, query, path, name, mode):
    """'getusername' is one word no passage of get_user_name holds (FTS5 parts it at its '_'): it found nothing
    there. Split where its parts are words the index holds side by side, it is that phrase too."""
    answer = engine_over(RUN_TOGETHER).search(query, mode=mode)
    top = answer.hits[0]
    assert (top.path, name in _heading_ends(top).split(", ")) == (path, True), \
        [(h.path, h.heading_path) for h in answer.hits[:3]]


def test_where_a_run_of_small_letters_parts():
    held = {"get", "user", "name", "us", "ern", "set", "email", "pars", "config"}
    tokens = lambda words: [("pars",) if w == "parse" else (w,) for w in words]  # noqa: E731  (porter's 'parse')
    documents = lambda token: int(token in held)  # noqa: E731
    phrases = {'"get user name"', '"parse config"'}
    assert split("getusername", tokens, documents, phrases.__contains__) == "get user name"
    assert split("parseconfig", tokens, documents, phrases.__contains__) == "parse config"
    # each part is held, but no passage holds them side by side: no name of theirs
    assert split("setusername", tokens, documents, phrases.__contains__) is None
    assert split("getuser", tokens, documents, lambda phrase: True) == "get user"
    assert split("getUserName", tokens, documents, lambda phrase: True) is None  # camelCase: the index splits it


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_minified_frame_is_said_to_be_one(engine_over, mode):
    """A minified bundle's frame names a column of one long machine-written line ('bundle.min.js:1:23456'): Sift
    skips such files and reads no source map, so it found nothing there and said nothing of why. The answer says
    so; the trace's other frames are found as before."""
    trace = ("TypeError: Cannot read properties of undefined (reading 'display')\n"
             "    at e (https://shop.example.com/static/js/bundle.min.js:1:23456)\n"
             "    at Object.t [as render] (https://shop.example.com/static/js/main.3f2a1b.js:2:104233)\n"
             "    at getUserName (/srv/app/users/profile.py:3:5)")
    answer = engine_over(RUN_TOGETHER).search(trace, mode=mode)
    assert (answer.hits[0].path, "get_user_name" in answer.hits[0].heading_path) == ("users/profile.py", True)
    assert ("the stack trace's frames bundle.min.js:1:23456, main.3f2a1b.js:2:104233 are in minified code, and no "
            "source map of it was read (none beside the bundle in a collection, nor named by its sourceMappingURL "
            "comment), so Sift cannot tell which source file and function they stand for") in answer.notes, \
        answer.notes
    plain = engine_over(RUN_TOGETHER).search("at use (/srv/app/users/profile.py:3:5)", mode=mode)
    assert not any("minified" in n for n in plain.notes), plain.notes


def test_a_frames_path_is_looked_for_only_where_a_run_of_its_characters_begins():
    """A pasted word of 10,000 letters (a blob, a minified line; a query keeps 10,000 characters) took 3 s each
    time the frame pattern read it, four times a search: it was tried from each letter, each try reading the word
    to its end. A path is looked for where such a run begins, or after a scheme's '/'; the frames found are as
    before."""
    from search.query.symbols import FRAME, frames
    assert FRAME.search("a" * 50 + ".py:3", 1) is None  # not from inside the run
    assert FRAME.search("a" * 50 + ".py:3").group("path") == "a" * 50 + ".py"
    assert frames("at h (webpack-internal:///./src/x.ts:3:4)\n  at g (file:///app/y.js:1:2)") == \
        [("./src/x.ts", 3, "h"), ("app/y.js", 1, "g")]


# A project's own files named as the language's or a library's are: a frame of Go's runtime, Python's json or
# Express's router found the project's http/server.go, decoder.py or router/index.js by its path's tail or the
# function the frame names.
OWN_NAMES = {
    **{path: TRACED[path] for path in ("shop/orders.py", "shop/payments.py")},
    "app/server.go": GO_RUST["app/server.go"],
    "http/server.go": "package http\n\n// Serve serves the API on addr.\nfunc Serve(addr string) error {\n"
                      + _go_steps("serve", "serve the API") + "\n",
    "codec/decoder.py": "def raw_decode(text):\n" + _steps("raw_decode", "decode our wire format") + "\n",
    "web/router/index.js": "export function handle(req) {\n" + "\n".join(f"  route{i}(req); // route step {i}"
                                                                        for i in range(300)) + "\n}\n",
    "web/loader.js": "export function load(name) {\n" + "\n".join(f"  part{i}(name); // load step {i}"
                                                           for i in range(40)) + "\n}\n",
}
GO_PANIC = """http: panic serving 127.0.0.1:52814: runtime error: invalid memory address or nil pointer dereference
goroutine 18 [running]:
net/http.(*conn).serve.func1()
\t/usr/local/go/src/net/http/server.go:1868 +0xb9
panic({0x5c1f20?, 0xc000012345?})
\t/usr/local/go/src/runtime/panic.go:920 +0x270
main.(*Server).handle(0x0, {0x5c1f20, 0xc000012345})
\t/home/me/app/server.go:9 +0x1d
testing.tRunner(0xc000007040, 0x5d1e28)
\t/usr/lib/go-1.22/src/testing/testing.go:1689 +0xfb"""
PY_LIBRARY = """Traceback (most recent call last):
  File "/home/me/shop/shop/orders.py", line 22, in place_order
    order = json.loads(body)
  File "/usr/lib/python3.11/json/decoder.py", line 5, in raw_decode
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"""
NODE_LIBRARY = """TypeError: Cannot read properties of undefined (reading 'card')
    at Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/index.js:284:7)
    at Module._compile (internal/modules/cjs/loader.js:12:30)
    at place_order (/home/me/shop/shop/orders.py:22:5)"""


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("trace, path, function", [(GO_PANIC, "app/server.go", "handle"),
                                                   (PY_LIBRARY, "shop/orders.py", "place_order"),
                                                   (NODE_LIBRARY, "shop/orders.py", "place_order")])
def test_a_frame_of_the_languages_or_a_librarys_own_code_names_no_file_of_the_project(engine_over, trace, path,
                                                                                        function, mode):
    """Go's runtime and testing frames are left out as Rust's are; a library's (site-packages, the stdlib,
    node_modules) stands only for a file whose path holds the library's own ('express/lib/router/index.js'), and
    Node's own ('internal/…') for none: the project's own frame comes first."""
    answer = engine_over(OWN_NAMES).search(trace, mode=mode)
    assert [(hit.path, _heading_ends(hit).split(".")[-1]) for hit in answer.hits[:1]] == [(path, function)], \
        [(hit.path, hit.heading_path) for hit in answer.hits[:3]]


def test_which_frames_are_a_languages_or_a_librarys_own():
    from search.query.backtrace import library_path
    assert frames(GO_PANIC) == [("/home/me/app/server.go", 9, "handle")]
    # a GOPATH project's import path of no dot is no standard library's: its frame stays
    assert frames("main.main()\n\t/home/me/go/src/myapp/main.go:12 +0x1d") == [("/home/me/go/src/myapp/main.go", 12,
                                                                               "main")]
    # -trimpath: a goroutine's frame (its offset after it) in runtime/; a compiler's error in a folder so named stays
    assert frames("main.main()\n\truntime/proc.go:271 +0x29\nruntime/x.go:3:4: undefined: y") == [
        ("runtime/x.go", 3, None)]
    assert frames("at Module._compile (node:internal/modules/cjs/loader.js:1105:14)\n"
                  "at x (internal/modules/cjs/loader.js:1137:30)\nat y (/app/internal/z.js:3:4)") == [
        ("/app/internal/z.js", 3, "y")]
    assert library_path("/srv/app/node_modules/a/node_modules/@s/b/x.js") == "@s/b/x.js"
    assert library_path("/home/me/go/pkg/mod/github.com/lib/pq@v1.10.9/conn.go") == "github.com/lib/pq/conn.go"
    assert library_path("C:/Python311/Lib/site-packages/Huey/api.py") == "huey/api.py"
    assert library_path("/home/me/shop/orders.py") is None
    paths = ["codec/decoder.py", "src/router/index.js", "vendor/express/lib/router/index.js"]
    assert traced_files("/usr/lib/python3.11/json/decoder.py", ["c"] * 3, paths) == []
    assert traced_files("/usr/lib/python3.11/json/decoder.py", ["c"] * 3, paths, ambiguous=True) == []
    assert traced_files("/app/node_modules/express/lib/router/index.js", ["c"] * 3, paths) == [2]


NODE_14 = {
    "src/bus/events.js": "export function emit(name, payload) {\n" + "\n".join(
        f"  listener{i}(payload); // emit step {i}" for i in range(20)) + "\n}\n",
    "internal/queue.js": "export function drain(queue) {\n" + "\n".join(
        f"  job{i}(queue); // drain step {i}" for i in range(20)) + "\n}\n\nexport function reject(queue) {\n"
        + "\n".join(f"  // the payload of the listener is undefined: reject {i}" for i in range(20)) + "\n}\n",
    "shop/orders.py": TRACED["shop/orders.py"],
}


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
@pytest.mark.parametrize("trace, path, function", [
    ("TypeError: Cannot read properties of undefined (reading 'card')\n    at EventEmitter.emit (events.js:377:5)\n"
     "    at place_order (/home/me/shop/shop/orders.py:22:5)", "shop/orders.py", "place_order"),
    ("TypeError: the payload of the listener is undefined\n    at drain (internal/queue.js:5:3)\n"
     "    at processTicksAndRejections (internal/process/task_queues.js:93:5)", "internal/queue.js", "drain")])
def test_node_14s_own_modules_written_bare_name_a_project_file_only_where_one_is_there(engine_over, trace, path,
                                                                                        function, mode):
    """Node 14 writes its core modules bare ('events.js:377:5'): the frame named the project's src/bus/events.js,
    which defines an emit too, before the project's own frame. A file at the very path written ('internal/queue.js'
    of the collection) is the project's, and was left out as Node's own."""
    answer = engine_over(NODE_14).search(trace, mode=mode)
    assert [(hit.path, _heading_ends(hit)) for hit in answer.hits[:1]] == [(path, function)], \
        ([(hit.path, hit.heading_path) for hit in answer.hits[:3]], answer.notes)


def test_which_bare_node_frames_are_the_projects():
    from search.query.symbols import held_at
    trace = "at EventEmitter.emit (events.js:377:5)\nat drain (internal/queue.js:5:3)\nat y (/app/events.js:3:4)"
    assert frames(trace) == [("/app/events.js", 3, "y")]
    assert frames(trace, held=lambda path: path == "internal/queue.js") == [
        ("internal/queue.js", 5, "drain"), ("/app/events.js", 3, "y")]
    assert frames("at Socket.emit (node:events.js:3:4)\nat f (events.js:3)", held=lambda path: True) == [
        ("events.js", 3, "f")]  # 'node:' is Node's, whatever is held; no column: not Node's way of writing it
    paths = ["internal/queue.js", "src/bus/events.js"]
    among = lambda name: [row for row, path in enumerate(paths) if path.endswith("/" + name)]  # noqa: E731
    assert held_at("./Internal/queue.js", ["app"] * 2, paths, among) and held_at("app/internal/queue.js", ["app"] * 2,
                                                                                 paths, among)
    assert not held_at("events.js", ["app"] * 2, paths, among)


RUN_TOGETHER_HELD = {
    "web/accounts.ts": USERS,  # getUserName: indexed as 'getusername get user name'
    "users/profile.py": RUN_TOGETHER["users/profile.py"],
    "notes/users.md": RUN_TOGETHER["notes/users.md"],
}


def test_a_name_in_small_letters_some_passage_holds_finds_it_written_with_its_words_too(engine_over):
    """'getusername' is held (getUserName's index form): it was not split, and keyword search found
    getUserName alone, not get_user_name."""
    answer = engine_over(RUN_TOGETHER_HELD).search("getusername", mode="keyword")
    assert [hit.path for hit in answer.hits] == ["web/accounts.ts", "users/profile.py"], \
        [(h.path, h.heading_path) for h in answer.hits[:3]]


def test_where_a_held_run_of_small_letters_parts():
    from search.query.run_together import split_held
    held = {"get", "user", "name", "username", "some", "thing", "something"}
    tokens = lambda words: [(w,) for w in words]  # noqa: E731
    documents = lambda token: int(token in held)  # noqa: E731
    camel = {'"getusername get user name"'}  # getUserName's index form
    assert split_held("getusername", tokens, documents, camel.__contains__) == "get user name"
    # getUserName's and getUsername's: no one way it parts
    assert split_held("getusername", tokens, documents, {*camel, '"getusername get username"'}.__contains__) is None
    # a word of prose ('some thing' in a row in prose too) is never written as its words after it
    assert split_held("something", tokens, documents, {'"some thing"'}.__contains__) is None


def test_what_a_firefox_or_safari_frame_names():
    """The function before a frame's '@', read as Chrome's 'at fn (…)'; a path with an '@' in it stays a path."""
    assert frames("handleClick@webpack-internal:///./src/App.js:12:5\n"
                  "Foo/bar/<@http://localhost:3000/static/js/main.js:123:45\n"
                  "async*load@https://host/a.js:2:3\n"
                  "global code@https://host/b.js:1:100\n"
                  "@https://host/c.js:9:1\n"
                  "\t/home/me/go/pkg/mod/github.com/lib/pq@v1.10.9/conn.go:12 +0x1d\n"
                  "    at x (/app/node_modules/@babel/core/lib/index.js:10:5)\n") == [
        ("./src/App.js", 12, "handleClick"), ("static/js/main.js", 123, "bar"), ("host/a.js", 2, "load"),
        ("host/b.js", 1, None), ("host/c.js", 9, None), ("/home/me/go/pkg/mod/github.com/lib/pq@v1.10.9/conn.go", 12, None),
        ("/app/node_modules/@babel/core/lib/index.js", 10, "x")]


# A function long enough to be cut into passages, its last one two short lines: a short passage headed by the name
# ranked above the function's opening.
CUT_FUNCTION = {
    "app/frames.py": "import re\n\n\ndef callers(query):\n"
                     + '    """The frame on the next line of each frame: what called it."""\n'
                     + "".join(f"    step_{i} = [frame for frame in query.splitlines() if 'at' in frame and {i} > 0]"
                               f"  # read the frames, pass {i} of the trace's lines\n" for i in range(40))
                     + "    return {one: other\n            for one, other in zip(step_0, step_1)}\n",
    "app/other.py": "def render(frames):\n    return '\\n'.join(frames)\n",
}


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_cut_definition_is_shown_from_its_opening(engine_over, mode):
    """'callers' is a plain word that names a function cut into passages: its last two lines ranked above its other
    passages (over Sift's own source, above its ``def``: an assistant shown the first hit saw no signature). The
    passages of one definition come in its order, from its opening."""
    hits = [hit for hit in engine_over(CUT_FUNCTION).search("callers", mode=mode).hits if hit.path == "app/frames.py"]
    assert len(hits) > 1 and hits[0].start_line <= 4, [(hit.start_line, hit.snippet[:40]) for hit in hits]
    assert [hit.start_line for hit in hits] == sorted(hit.start_line for hit in hits)


# Two programs that fail, each through a caller in another file: run for real, their traces pasted together (the
# errors' messages are no string of the code, which would come first by ``messages_first``).
TWO_FAILURES = {
    "shop/cli.py": "import sys\n\nsys.path.insert(0, __file__.rsplit('/', 2)[0])\nfrom shop import orders, "
                   "payments  # noqa: E402\n\n\ndef place_command(items):\n    return orders.place(items)\n\n\n"
                   "def refund_command(order):\n    return payments.refund(order)\n\n\n"
                   "for run, value in ((place_command, []), (refund_command, 7)):\n    try:\n        run(value)\n"
                   "    except Exception:\n        import traceback\n        traceback.print_exc()\n",
    "shop/orders.py": "def place(items):\n    share = 100 / len(items)\n    return share\n",
    "shop/payments.py": "REFUNDS = {}\n\n\ndef refund(order):\n    return REFUNDS[order]\n",
    "web/main.js": "const { total } = require('./cart');\nconst { pay } = require('./checkout');\n\n"
                   "function run(step, value) {\n  try {\n    step(value);\n  } catch (e) {\n"
                   "    console.error(e.stack);\n  }\n}\n\nrun(total, null);\nrun(pay, undefined);\n",
    "web/cart.js": "function total(items) {\n  return items.reduce((sum, item) => sum + item.price, 0);\n}\n\n"
                   "module.exports = { total };\n",
    "web/checkout.js": "function pay(amount) {\n  return amount.toFixed(2);\n}\n\nmodule.exports = { pay };\n",
    # an error thrown with its cause, uncaught: Node prints the cause's trace inside the error's ('[cause]: …')
    "web/settings.js": "const { parse } = require('./parse');\n\nfunction load(text) {\n  try {\n"
                       "    return parse(text);\n  } catch (e) {\n    throw new Error('no settings', { cause: e });\n"
                       "  }\n}\n\nmodule.exports = { load };\n",
    "web/parse.js": "function parse(text) {\n  return JSON.parse(text);\n}\n\nmodule.exports = { parse };\n",
    "web/start.js": "const { load } = require('./settings');\n\nload('{');\n",
}


@pytest.mark.parametrize("program, raised", [(["python", "shop/cli.py"], {"shop/orders.py", "shop/payments.py"}),
                                             (["node", "web/main.js"], {"web/cart.js", "web/checkout.js"}),
                                             (["node", "web/start.js"], {"web/settings.js", "web/parse.js"})])
def test_two_stack_traces_pasted_together_each_find_where_they_were_raised(engine_over, tmp_path, program, raised):
    """Two traces of one engine in one search (two Python tracebacks, two of Node's) were read as one: Python's,
    read backwards as one list, put the second's frames before the first's raising frame, and Node's second
    trace's throw came after all of the first's frames, and after an error's the frames of its cause, printed inside
    it ('[cause]: SyntaxError: …'). Each trace's most recent call comes first now."""
    import shutil
    import subprocess
    import sys
    if program[0] == "node" and not shutil.which("node"):
        pytest.skip("no node to run the script")
    write_tree(tmp_path, TWO_FAILURES)
    executable = sys.executable if program[0] == "python" else shutil.which("node")
    traces = subprocess.run([executable, str(tmp_path / program[1])], capture_output=True, text=True,
                            timeout=60).stderr
    assert traces.count("Traceback (most recent call last)") == 2 or traces.count(" at ") >= 4
    answer = engine_over(TWO_FAILURES).search(traces, mode="keyword")
    assert {hit.path for hit in answer.hits[:2]} == raised, traces
