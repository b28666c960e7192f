"""A note iCloud freed to a placeholder is embedded again for a new model from the passages the index holds
(workers.freed_passages). A passage that starts among a long table's rows was first embedded with the table's
header row, one citing a footnote with its definition (ingest.chunk): neither is stored, and the new vector
lacked them, so the freed note's meaning search was not a fresh build's. The chunk's stored hash is that of what
was embedded: the ways the chunker may have written it are tried against it."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from tests.conftest import ingest, write_tree

ROWS = "\n".join(f"| Member{n} Lindqvist | 555-01{n:02d} | roof, gutters and scaffolding on the {n}th |"
                 for n in range(40))
NOTE = ("# Crew\n\nThe crew for the roof job, as the foreman wrote it down; the zinc order went out on Monday.[^1]\n\n"
        "## Roster\n\n| Name | Phone | Task |\n|---|---|---|\n" + ROWS + "\n\n## Sources\n\n"
        "[^1]: Lindqvist Roofing's invoice of March, number 2024-113.\n")
NOTES = {"crew.md": NOTE, "garden.md": "# Garden\n\nPlant tomatoes along the south wall.\n"}
QUERIES = ("who can I phone about the gutters", "which invoice was the zinc order", "tomato plants")


def _vectors(home: Path, path: str) -> list[tuple[str, str, bytes]]:
    """(text, text hash, vector) of each passage of ``path`` as the index in ``home`` publishes it."""
    from search.index import file_reads
    with sqlite3.connect(home / "index.db") as conn:
        conn.row_factory = sqlite3.Row
        file = file_reads.current_files(conn, 1)[path]["id"]
        return [tuple(row) for row in conn.execute(
            "SELECT ch.text, ch.text_hash, v.vec FROM chunks ch JOIN vectors v ON v.text_hash = ch.text_hash "
            "AND v.model = (SELECT model FROM generations ORDER BY id DESC LIMIT 1) WHERE ch.file = ? "
            "ORDER BY ch.ordinal", (file,))]


def _ranking(home: Path) -> list[list[tuple[str, int | None]]]:
    from search.query.engine import Engine
    from workers import runtime
    engine = Engine(home / "index.db", runtime.embedder)
    return [[(hit.path, hit.start_line) for hit in engine.search(query, mode="semantic").hits] for query in QUERIES]


def test_a_freed_notes_passages_embedded_for_a_new_model_are_a_fresh_builds(immediate, tmp_path, monkeypatch,
                                                                            other_model_path):
    from workers import runtime, tasks
    home = Path(os.environ["SIFT_HOME"])
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    collection = ingest(root)["id"]
    (root / "crew.md").unlink()
    (root / ".crew.md.icloud").write_bytes(b"bplist00\x00")  # freed by iCloud
    tasks.discover(collection)
    monkeypatch.setenv("SIFT_MODEL", str(other_model_path))  # a new model: every passage embedded again
    runtime.reset()
    tasks.discover(collection)
    freed, ranked = _vectors(home, "crew.md"), _ranking(home)
    fresh = write_tree(tmp_path / "fresh", NOTES).resolve()
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "fresh-home"))
    runtime.reset()
    ingest(fresh)
    built = _vectors(tmp_path / "fresh-home", "crew.md")
    assert [row[0] for row in freed] == [row[0] for row in built], "the same passages"
    assert any(text.lstrip().startswith("| Member") for text, _, _ in freed), "a window starts among the rows"
    assert freed == built, "the same vectors: the table's header row and the footnotes embedded, as first"
    assert ranked == _ranking(tmp_path / "fresh-home")


def test_a_passage_among_a_tables_rows_tries_the_nearest_header_first(monkeypatch):
    """A passage whose stored hash is not its plain text's tried every table header the note showed before it: 16
    ms a passage with 1,000 headers, 16 s for a note of 1,000 table passages embedded again for a new model. The
    header of the table the window starts in, the last one the passages before it show, is tried first: the same
    texts, a few hashes a passage."""
    from ingest import chunk
    from tests.freed_table_note import stored_chunks, table_note
    from workers import freed_passages
    rows, embedded = stored_chunks(table_note(60))
    assert sum(text.startswith("Crews\n| Crew") for text in embedded.values()) > 60, "windows start among rows"
    hashed = []
    real_hash = chunk.text_hash
    monkeypatch.setattr(freed_passages, "text_hash", lambda text: hashed.append(text) or real_hash(text))
    planned: dict[str, str] = {}
    freed_passages.planned_rows(rows, planned)
    assert planned == embedded, "the texts the chunker embedded"
    assert len(hashed) <= 4 * len(rows), f"{len(hashed)} hashes for {len(rows)} passages"
