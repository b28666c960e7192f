"""The index's read queries: every SELECT the search, MCP, worker and CLI modules ask, by name.

Each function takes a connection and answers one question; the SQL fragments they share (``VISIBLE``,
``IN_FLIGHT``) are defined here once. No other module of ingest/, search/, mcp_server/ or workers/ runs SQL,
but these (tests/test_layers.py keeps it so):

- search/db.py: the connection itself (pragmas, the snapshot's BEGIN and COMMIT);
- search/schema.py: the migrations;
- search/store.py: the writer (generations, file versions, progress), which will become search/index/store.py.

Besides reads, this module holds the few small writes of a collection's scan facts (``search.freshness``) and
a connection's own temporary FTS5 tables (``search.postings``), until the writer becomes search/index/store.py.
"""
from __future__ import annotations

import sqlite3

# A published collection's current rows: join files f to collections c.
VISIBLE = "f.gen_from <= c.published AND (f.gen_to IS NULL OR f.gen_to > c.published)"
# A file of a generation whose jobs have not reached their end yet (a progress row).
IN_FLIGHT = "state NOT IN ('failed', 'skipped') AND NOT (stage = 'write' AND state = 'done')"
