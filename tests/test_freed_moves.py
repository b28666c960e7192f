"""ingest.freed_moves: pairing freed notes gone from their paths with the placeholders standing elsewhere."""
from __future__ import annotations

from ingest import freed_moves
from ingest.freed_moves import moves


def test_a_folder_renamed_pairs_each_note_with_its_placeholder():
    gone = ["bread/sourdough.md", "bread/rye.md"]
    standing = ["baking/sourdough.md", "baking/rye.md"]
    assert moves(gone, standing) == {"baking/sourdough.md": "bread/sourdough.md", "baking/rye.md": "bread/rye.md"}


def test_many_placeholders_are_grouped_by_name_not_compared_each_with_each(monkeypatch):
    # a vault of notes freed before they were indexed: each scan with one indexed note gone looked at every other
    # placeholder for each one (20,000 placeholders: 236 s a scan)
    calls = []
    name = freed_moves._name
    monkeypatch.setattr(freed_moves, "_name", lambda path: calls.append(path) or name(path))
    standing = [f"vault/d{i % 50}/note{i}.md" for i in range(2_000)] + ["new/gone.md"]
    assert moves(["old/gone.md"], standing) == {"new/gone.md": "old/gone.md"}
    assert len(calls) < 5 * len(standing)
