"""list_files' text as the model reads it (mcp_server.listing.text), on hand-made pages: what every file of a page
shares is said once on the first line. Each row of a folder of notes repeated '2026-12-07 00:59:16  indexed' (a
checkout or a copy gives its files one time), 36 characters a file that told an assistant nothing new."""
from __future__ import annotations

from mcp_server import listing


def row(name: str, size: int, modified: str = "2024-05-01 10:00:00", state: str = "indexed", reason=None,
        kind: str = "note") -> dict:
    return {"path": f"notes/{name}", "kind": kind, "size": size, "modified": modified, "state": state,
            "reason": reason}


def page(*files: dict) -> dict:
    return {"files": list(files), "total": len(files), "shown": len(files)}


def test_what_every_file_shares_is_said_once_above_them():
    said = listing.text(page(row("a.md", 10), row("b.md", 20)), "path").splitlines()
    assert said == ["2 files match; showing 2 (by path); each note, modified 2024-05-01 10:00:00, indexed",
                    "notes/a.md  10 B", "notes/b.md  20 B"], said


def test_what_differs_stays_on_each_row():
    said = listing.text(page(row("a.md", 10), row("b.pdf", 9, "2024-05-02 09:00:00", "failed", "not a PDF", "pdf"),
                             row("c.md", 20)), "path").splitlines()
    assert said == ["3 files match; showing 3 (by path)",
                    "notes/a.md  note  10 B  2024-05-01 10:00:00  indexed",
                    "notes/b.pdf  pdf  9 B  2024-05-02 09:00:00  failed: not a PDF",
                    "notes/c.md  note  20 B  2024-05-01 10:00:00  indexed"], said
    same_time = listing.text(page(row("a.md", 10), row("b.md", 9, state="pending", reason="waiting")), "path")
    assert same_time.splitlines() == ["2 files match; showing 2 (by path); each note, modified 2024-05-01 10:00:00",
                                      "notes/a.md  10 B  indexed", "notes/b.md  9 B  pending: waiting"], same_time


def test_one_file_and_unknown_times_keep_their_row():
    assert listing.text(page(row("a.md", 10)), "path").splitlines() == [
        "1 file matches; showing 1 (by path)", "notes/a.md  note  10 B  2024-05-01 10:00:00  indexed"]
    said = listing.text(page(row("a.md", 10, None, "pending", kind=None), row("b.md", 9, None, "pending", kind=None)),
                        "path").splitlines()
    assert said == ["2 files match; showing 2 (by path); each pending", "notes/a.md  -  10 B  -",
                    "notes/b.md  -  9 B  -"], said
