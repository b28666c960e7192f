"""The index's SQL stays in its own layer: no module of ingest/, search/, mcp_server/ or workers/ runs a statement
but the query layer (search/queries.py), the connection (search/db.py), the migrations (search/schema.py) and
the writer (search/store.py). A new raw ``conn.execute`` anywhere else fails here: add a named function to
search/queries.py (a read) or search/store.py (a write) instead (issue 14, item 1)."""
from __future__ import annotations

import re

from tests.conftest import REPO

PACKAGES = ("ingest", "search", "workers", "mcp_server")
LAYER = {"search/queries.py", "search/db.py", "search/schema.py", "search/store.py"}
QUEUE = {"workers/app.py"}  # the pragma of huey's own queue database, not the index
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
    assert outside == {}, "SQL outside the index layer: move it behind a function of search/queries.py or store.py"


def test_the_layer_and_the_queue_are_listed_only_while_they_run_sql():
    texts = dict(modules())
    assert [name for name in sorted(LAYER | QUEUE) if not statements(texts[name])] == [], \
        "no SQL there: take it off the list"


def test_no_module_takes_sql_text_from_the_writer():
    """The SQL fragments (VISIBLE, IN_FLIGHT) are the query layer's; a reader never imports the writer for them."""
    borrowed = re.compile(r"from search\.store import [^\n]*\b(VISIBLE|IN_FLIGHT)\b|store\.(VISIBLE|IN_FLIGHT)\b")
    found = [name for name, text in modules() if name != "search/store.py" and borrowed.search(text)]
    assert found == []
