"""Acceptance on ../shared/data/notes-en (1,873 real notes) with a real huey_consumer and the real model.

One long scenario, in order: a first small generation; the full corpus built
while a reader keeps seeing the first generation whole; a re-run with nothing
changed; an edit, a delete and a rename.
"""
from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

import pytest

from ingest.markdown import parse_markdown
from search.index import db
from search.query import reader
from tests.conftest import need_data, run_ingest, wait_published

pytestmark = pytest.mark.slow


def progress(conn, gen: int) -> dict[str, dict]:
    rows = conn.execute("SELECT * FROM progress WHERE generation = ?", (gen,)).fetchall()
    return {r["path"]: dict(r) for r in rows}


@pytest.mark.timeout(3600)  # about 3 min alone on a quiet machine; beside another xdist worker on a machine
# loaded to 15-18 it was still embedding the corpus at pytest's 1200 s
def test_notes_en_through_the_real_consumer(sift_env, consumer, tmp_path, embedder):
    source = need_data("notes-en")
    root = tmp_path / "notes-en"
    shutil.copytree(source / "git", root / "git")
    # the corpus in one generation: its README (1,873 links, about 300 chunks) would be embedded in the background
    # and published in a generation of its own (test_background covers that hand-off)
    sift_env["SIFT_BACKGROUND_CHUNKS"] = "0"
    worker = consumer(workers=2)
    index = Path(sift_env["SIFT_HOME"]) / "index.db"

    # 1. a first, small generation
    assert run_ingest(sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    conn = db.connect(index)
    first = wait_published(conn, "notes", None, worker.proc)
    first_files = {r["path"] for r in reader.visible_files(conn)}
    assert first_files == {p.relative_to(root).as_posix() for p in root.rglob("*.md")}

    # 2. the whole corpus, while a reader keeps reading
    shutil.rmtree(root)
    shutil.copytree(source, root)
    observed: list[frozenset] = []
    stop = threading.Event()

    def read_continuously():
        other = db.connect(index, readonly=True)
        while not stop.is_set():
            observed.append(frozenset(r["path"] for r in reader.visible_files(other)))
            stop.wait(0.5)

    watcher = threading.Thread(target=read_continuously)
    watcher.start()
    result = run_ingest(sift_env, "enqueue", str(root), "--name", "notes", "--wait")
    stop.set()
    watcher.join()
    assert result.returncode == 0, result.stderr
    assert re.search(r"^generation \d+: [\d,]+/[\d,]+ files, ETA ", result.stderr, re.M), result.stderr[-2000:]
    full = wait_published(conn, "notes", first, worker.proc)
    files = {r["path"] for r in reader.visible_files(conn)}
    markdown = {p.relative_to(root).as_posix() for p in root.rglob("*.md")}
    assert len(markdown) >= 1873 and markdown <= files
    assert set(observed) <= {frozenset(first_files), frozenset(files)}, "readers saw only whole generations"
    assert frozenset(first_files) in observed

    chunks = reader.visible_chunks(conn)
    assert all(c["tokens"] <= 256 for c in chunks)
    for c in chunks[::25]:  # counted with the model's own tokenizer
        assert c["tokens"] == embedder.count(c["text"])
    _assert_sections_covered(root, chunks, sample=300)
    report = progress(conn, full)
    assert sum(r["embedded"] or 0 for r in report.values()) == \
        len({c["text_hash"] for c in chunks} - _hashes_of(conn, first_files))

    # 3. nothing changed: nothing parsed, nothing embedded, no generation published
    again = run_ingest(sift_env, "enqueue", str(root), "--name", "notes", "--wait")
    assert again.returncode == 0 and f"scanned: no changes; published generation {full}: " in again.stderr, \
        again.stderr
    unchanged = conn.execute("SELECT published FROM collections WHERE name = 'notes'").fetchone()[0]
    assert unchanged == full and conn.execute("SELECT max(id) FROM generations").fetchone()[0] == full
    stats = run_ingest(sift_env, "stats")
    assert f"published: generation {full}, " in stats.stdout and " ago: no changes" in stats.stdout, stats.stdout

    # 4. edit one, delete one, rename one
    before = {c["text_hash"] for c in chunks}
    edited, deleted, renamed = "git/resetting-a-reset.md", "vim/buffer-time-travel.md", "go/add-a-method-to-a-struct.md"
    for path in (edited, deleted, renamed):
        assert (root / path).exists(), path
    (root / edited).write_text((root / edited).read_text() + "\n## Afterword\nReflog keeps lost commits for 90 days.\n")
    (root / deleted).unlink()
    (root / renamed).rename(root / "go/methods-on-structs.md")
    assert run_ingest(sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    changed = wait_published(conn, "notes", unchanged, worker.proc)
    report = progress(conn, changed)
    assert {p: r["change"] for p, r in report.items()} == {
        edited: "changed", deleted: "deleted", renamed: "deleted", "go/methods-on-structs.md": "renamed"}
    after = reader.visible_chunks(conn)
    new_hashes = {c["text_hash"] for c in after} - before
    assert report[edited]["embedded"] == len(new_hashes) >= 1
    assert report["go/methods-on-structs.md"]["embedded"] == 0
    paths = {c["path"] for c in after}
    assert deleted not in paths and renamed not in paths and "go/methods-on-structs.md" in paths


def _hashes_of(conn, paths) -> set[str]:
    return {c["text_hash"] for c in reader.visible_chunks(conn) if c["path"] in paths}


def _assert_sections_covered(root: Path, chunks, sample: int) -> None:
    """Every line of every section lies in some chunk of its file."""
    by_file: dict[str, list] = {}
    for c in chunks:
        by_file.setdefault(c["path"], []).append(c)
    for path in sorted(by_file)[:: max(1, len(by_file) // sample)]:
        if not path.endswith(".md"):
            continue
        doc = parse_markdown(path, (root / path).read_text(encoding="utf-8"))
        spans = [(c["start_line"], c["end_line"]) for c in by_file[path]]
        for section in doc.sections:
            for number, line in enumerate(section.text.split("\n"), start=section.start_line):
                if line.strip():
                    assert any(a <= number <= b for a, b in spans), f"{path}:{number} is in no chunk"
