"""The system clock set back (a wrong clock put right, a virtual machine restored from a snapshot): times the
index stamped before are then in the future. Simulated through the stored times, not the real clock. Real
SQLite, huey's immediate mode."""
from __future__ import annotations

import time

from tests.conftest import ingest, write_tree
from tests.test_change_detection import keyword_paths

A_YEAR = 365 * 86400.0


def stamped_a_year_ahead(conn, *columns: str) -> None:
    later = time.time() + A_YEAR
    conn.execute("UPDATE generations SET started = ?, discovered = ?, finished = ?", (later, later, later))
    for column in columns:
        conn.execute(f"UPDATE collections SET {column} = ?", (later,))


def test_the_periodic_rescan_still_runs_after_the_clock_was_set_back(immediate, tmp_path):
    from workers import rescan, runtime
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron waits\n"})
    ingest(root)
    conn = runtime.index()
    stamped_a_year_ahead(conn, "scanned_unchanged", "scan_started", "created")
    assert rescan.due(conn, 3600) != [], "the last scan 'in a year' kept the rescan away for a year"
    write_tree(root, {"b.md": "# B\n\nthe walrus eats\n"})  # made while no watcher ran
    rescan.rescan_due()
    assert keyword_paths("walrus") == ["b.md"]
    assert rescan.due(conn, 3600) == [], "once rescanned, not again at every minute"


def test_a_scan_claimed_before_the_clock_was_set_back_does_not_hold_back_the_next(immediate, tmp_path):
    from search.index import freshness
    from workers import rescan, runtime
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron waits\n"})
    ingest(root)
    conn = runtime.index()
    stamped_a_year_ahead(conn, "scan_started")  # a scan's claim, its worker killed before it planned anything
    conn.execute("UPDATE generations SET discovered = 0")
    assert not freshness.busy(conn, 1)
    write_tree(root, {"b.md": "# B\n\nthe walrus eats\n"})
    assert rescan.request_scan(1, conn), "the watcher's scan was only remembered as requested"
    assert keyword_paths("walrus") == ["b.md"]


def test_a_generation_published_before_the_clock_was_set_back_is_not_said_to_be_new(immediate, tmp_path):
    from mcp_server.report import freshness
    from workers import runtime
    ingest(write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron waits\n"}))
    conn = runtime.index()
    stamped_a_year_ahead(conn)
    line = freshness(conn)[0]
    assert line == "freshness: up to date (last published: notes ? ago)", "it said 'notes 0 s ago'"
