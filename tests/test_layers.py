"""The layers of the code, checked from its source.

SQL: no module of ingest/, search/, mcp_server/ or workers/ runs a statement but the query layer
(search/index/*_reads.py: file_reads.py, chunk_reads.py, …), the connection (search/index/db.py), the migrations
(search/index/schema.py) and the writer (search/index/store.py), besides the two that touch huey's queue database, never the index
(workers/app.py, workers/queue_reader.py). A new raw ``conn.execute`` anywhere else fails here: add a named function to
a search/index/*_reads.py module (a read) or search/index/store.py (a write) instead (issue 14, item 1).

Imports point one way: mcp_server/ and ingest/cli.py -> workers/ -> ingest/ and search/; nothing in search/
imports ingest/, workers/ or mcp_server/; and the read side (the query engine, the model, the index's reads)
never reaches the writer, not even through another module (issue 14, item 2).
"""
from __future__ import annotations

import ast
import re

from tests.conftest import REPO

PACKAGES = ("ingest", "search", "workers", "mcp_server")
# the query layer: every read of the index, by name, in a module named for what it reads (file_reads.py …)
READS = {path.relative_to(REPO).as_posix() for path in (REPO / "search" / "index").glob("*_reads.py")}
LAYER = READS | {"search/index/db.py", "search/index/schema.py", "search/index/store.py"}
QUEUE = {"workers/app.py", "workers/queue_reader.py"}  # huey's own queue database (a pragma; reads of a
# read-only queue for stats), not the index
STATEMENT = re.compile(r"\.execute(many|script)?\(")
NOT_SQL = re.compile(r"\bpipe\.execute\(\)")  # a Redis pipeline (workers/remote.py), not SQL


def statements(text: str) -> list[str]:
    """The lines of a module's source that run an SQL statement."""
    return [line.strip() for line in text.splitlines() if STATEMENT.search(line) and not NOT_SQL.search(line)]


def modules():
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            yield path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8")


def test_the_check_sees_a_statement_and_not_a_redis_pipeline():
    assert statements('rows = conn.execute("SELECT 1").fetchall()\nconn.executemany(sql, rows)') == [
        'rows = conn.execute("SELECT 1").fetchall()', "conn.executemany(sql, rows)"]
    assert statements("    pipe.execute()") == []


def test_sql_runs_only_in_the_query_layer():
    outside = {name: found for name, text in modules() if name not in LAYER | QUEUE
               if (found := statements(text))}
    assert outside == {}, "SQL outside the index layer: move it behind a function of a search/index/*_reads.py " \
                          "module (a read) or search/index/store.py (a write)"


def test_the_layer_and_the_queue_are_listed_only_while_they_run_sql():
    texts = dict(modules())
    assert [name for name in sorted(LAYER | QUEUE) if not statements(texts[name])] == [], \
        "no SQL there: take it off the list"


def test_no_module_takes_sql_text_from_the_writer():
    """The SQL fragments (VISIBLE, IN_FLIGHT) are the query layer's; a reader never imports the writer for them."""
    borrowed = re.compile(r"from search\.index\.store import [^\n]*\b(VISIBLE|IN_FLIGHT)\b|store\.(VISIBLE|IN_FLIGHT)\b")
    found = [name for name, text in modules() if name != "search/index/store.py" and borrowed.search(text)]
    assert found == []


# --- imports ---------------------------------------------------------------------------------------------------

WRITERS = {"search.index.store", "search.index.freshness"}  # what changes the index (freshness: a scan's claim)
READ_SIDE = ("search.query.", "search.model.", *sorted(path[:-3].replace("/", ".") for path in READS),
             "search.index.db", "search.index.schema", "search.index.status", "search.index.names", "search.settings")
TOP = ("mcp_server.", "ingest.cli")  # the entry points: nothing imports them


def module_name(path: str) -> str:
    return path[:-3].replace("/", ".").removesuffix(".__init__")


def imports(text: str, known: set[str]) -> set[str]:
    """The modules of the project that a module's source imports, anywhere in it (inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known else node.module
                      for alias in node.names}
    return {name for name in found if name in known}


def graph() -> dict[str, set[str]]:
    texts = {module_name(name): text for name, text in modules()}
    return {name: imports(text, set(texts)) for name, text in texts.items()}


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for name in edges[todo.pop()] - seen:
            seen.add(name)
            todo.append(name)
    return seen


def test_the_import_check_sees_imports_inside_functions_and_from_packages():
    known = {"search.index.db", "search.index", "workers.tasks", "workers"}
    text = "from search.index import db\ndef f():\n    import workers.tasks\n    from workers import tasks\n"
    assert imports(text, known) == {"search.index.db", "workers.tasks"}


def test_imports_point_one_way():
    edges = graph()
    wrong = {name: sorted(target for target in targets if not _allowed(name, target))
             for name, targets in edges.items()}
    assert {name: targets for name, targets in wrong.items() if targets} == {}


def _allowed(source: str, target: str) -> bool:
    if target.startswith(TOP):
        return source.startswith(TOP) and not (source.startswith("mcp_server.") and target == "ingest.cli")
    if target.startswith("workers."):
        return not source.startswith(("search.", "ingest.")) or source == "ingest.cli"
    if target.startswith("ingest."):
        return not source.startswith("search.")
    return True


def test_the_read_side_never_reaches_the_writer():
    edges = graph()
    readers = [name for name in edges if name.startswith(READ_SIDE)]
    assert len(readers) > 15, "the read side is missing: were the packages moved?"
    reached = {name: sorted(reachable(edges, name) & WRITERS) for name in readers}
    assert {name: found for name, found in reached.items() if found} == {}
