"""What makes 200,000 files affordable (issue 15, item 1) gives the same answers as counting every row.

The counts kept by triggers (progress_counts), the searchable files and chunks recorded at publish
(generations.files / chunks), the publish check through progress_open: after builds that add, change, rename,
delete and fail files, each equals what a full scan of the rows says.
"""
from __future__ import annotations

import os

from search.index import progress_reads
from tests.conftest import ingest, write_tree


def full_counts(conn, gen: int) -> dict:
    rows = conn.execute("SELECT change, stage, state, count(*), coalesce(sum(chunks), 0), "
                        "coalesce(sum(embedded), 0) FROM progress WHERE generation = ? "
                        "GROUP BY change, stage, state", (gen,)).fetchall()
    return {tuple(r[:3]): tuple(r[3:]) for r in rows}


def kept_counts(conn, gen: int) -> dict:
    from search.index import store
    return {(r["change"], r["stage"], r["state"]): (r["files"], r["chunks"], r["embedded"])
            for r in progress_reads.progress_counts(conn, gen)}


def searchable_by_scan(conn, collection_id: int, gen: int) -> tuple[int, int]:
    return tuple(conn.execute(
        "SELECT count(DISTINCT f.id), count(ch.id) FROM files f LEFT JOIN chunks ch ON ch.file = f.id "
        "WHERE f.collection = ? AND f.gen_from <= ? AND (f.gen_to IS NULL OR f.gen_to > ?)",
        (collection_id, gen, gen)).fetchone())


def check(conn, name: str) -> int:
    """Every generation's kept counts equal a scan; the published one's searchable files and chunks too."""
    from search.index import store
    for (gen,) in conn.execute("SELECT id FROM generations").fetchall():
        assert kept_counts(conn, gen) == full_counts(conn, gen), f"generation {gen}"
    collection = conn.execute("SELECT id, published FROM collections WHERE name = ?", (name,)).fetchone()
    recorded = conn.execute("SELECT files, chunks FROM generations WHERE id = ?",
                            (collection["published"],)).fetchone()
    assert tuple(recorded) == searchable_by_scan(conn, collection["id"], collection["published"])
    assert progress_reads.searchable(conn, collection["id"], collection["published"]) == tuple(recorded)
    return collection["published"]


def test_counts_follow_adds_changes_renames_deletes_and_failures(immediate, tmp_path):
    from search.index import status
    from workers import runtime
    root = write_tree(tmp_path / "notes", {f"d{i % 3}/n{i}.md": f"# Note {i}\n\nbody {i} about topic {i % 5}\n"
                                           for i in range(40)})
    ingest(root)
    conn = runtime.index()
    first = check(conn, "notes")
    assert conn.execute("SELECT files FROM generations WHERE id = ?", (first,)).fetchone()[0] == 40

    (root / "d0/n0.md").write_text("# Note 0\n\nchanged text\n\n## More\n\nand a second section\n")
    (root / "d1/n1.md").rename(root / "d1/moved.md")
    (root / "d2/n2.md").unlink()
    (root / "d0/bad.md").write_bytes(b"\x00\x01binary\x00")  # skipped at parse
    (root / "new.md").write_text("# New\n\nfresh\n")
    os.utime(root / "d0/n3.md", (1, 1))  # same content, new mtime: touched, not rebuilt
    report = ingest(root)
    second = check(conn, "notes")
    assert second != first
    assert report["files"] == conn.execute("SELECT files FROM generations WHERE id = ?", (second,)).fetchone()[0]
    assert report["files"] == 40 - 1 + 1  # n2 gone, new.md added; the binary file is skipped
    building = status.collect(conn)["collections"][0]["published"]
    assert [f["path"] for f in building["failures"]] == ["d0/bad.md"]
    assert building["changes"] == dict(full_counts_by_change(conn, second))

    for path in list(root.rglob("*.md"))[:10]:
        path.unlink()
    ingest(root)
    check(conn, "notes")


def full_counts_by_change(conn, gen: int):
    return conn.execute("SELECT change, count(*) FROM progress WHERE generation = ? GROUP BY change",
                        (gen,)).fetchall()


def test_an_index_from_before_v7_is_counted_from_its_rows(immediate, tmp_path):
    """A generation published before schema V7 has no recorded counts: stats counts its rows, and the next
    publish starts from that count."""
    from search.index import store
    from workers import runtime
    root = write_tree(tmp_path / "notes", {f"n{i}.md": f"# N{i}\n\ntext {i}\n" for i in range(12)})
    ingest(root)
    conn = runtime.index()
    gen = conn.execute("SELECT published FROM collections").fetchone()[0]
    conn.execute("UPDATE generations SET files = NULL, chunks = NULL")
    assert progress_reads.searchable(conn, 1, gen) == (12, 12)
    (root / "n0.md").unlink()
    (root / "extra.md").write_text("# Extra\n\nmore\n")
    ingest(root)
    assert check(conn, "notes") != gen


def test_publish_waits_for_the_last_file_in_flight(immediate, tmp_path):
    """try_publish asks progress_open whether a file is still in flight; one queued file holds it back."""
    from search.index import store
    from workers import runtime
    conn = runtime.index()
    collection = store.ensure_collection(conn, "c", str(tmp_path))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], {"a.md": "added", "b.md": "added"}, {}, 2)
    store.mark(conn, gen, ["a.md"], "write", "done")
    assert not store.try_publish(conn, gen)
    assert progress_reads.generation_progress(conn, gen) == (2, 1)
    store.mark(conn, gen, ["b.md"], "parse", "failed", "broken")
    assert progress_reads.generation_progress(conn, gen) == (2, 2)
    assert store.try_publish(conn, gen)
    assert [r["path"] for r in progress_reads.troubled(conn, gen)] == ["b.md"]


def test_token_counts_are_remembered_per_model_and_bounded(embedder, monkeypatch):
    """chunk's counter gives the model's own count, asks the tokenizer once per text and model, and forgets
    the oldest count beyond COUNTS_KEPT."""
    from workers import tasks

    class Tallied:  # the real embedder, with its tokenizer calls tallied
        def __init__(self, real, model_id):
            self.real, self.calls = real, 0
            self.info = type("Info", (), {"model_id": model_id})()

        def count(self, text):
            self.calls += 1
            return self.real.count(text)

    monkeypatch.setattr(tasks, "_counts", {})
    monkeypatch.setattr(tasks, "COUNTS_KEPT", 3)
    one, other = Tallied(embedder, "m1"), Tallied(embedder, "m2")
    text = "The heron waited by the reeds for an hour.\n"
    assert tasks._count(one, text) == embedder.count(text)
    assert tasks._count(one, text) == embedder.count(text) and one.calls == 1
    assert tasks._count(other, text) == embedder.count(text) and other.calls == 1  # another model counts anew
    for i in range(3):
        tasks._count(one, f"note {i}")
    assert len(tasks._counts) == 3
    tasks._count(one, text)
    assert one.calls == 5, "the first text's count was forgotten, oldest first"


def test_jobs_carry_many_small_files_and_few_large_ones():
    from workers.tasks import JOB_BYTES, jobs
    small = [f"n{i:03}.md" for i in range(600)]
    assert [len(b) for b in jobs(small, dict.fromkeys(small, 200), 256)] == [256, 256, 88]
    big = ["a.pdf", "b.pdf", "c.md", "d.md", "e.md"]
    sizes = {"a.pdf": JOB_BYTES * 3, "b.pdf": JOB_BYTES // 2, "c.md": JOB_BYTES // 2, "d.md": 10, "e.md": 10}
    assert list(jobs(big, sizes, 256)) == [["a.pdf"], ["b.pdf", "c.md"], ["d.md", "e.md"]]
    assert list(jobs(small[:40], {}, 16)) == [small[:16], small[16:32], small[32:40]]  # sizes unknown: 4 KiB each


def test_garbage_is_collected_in_slices_to_the_last_version(immediate, tmp_path, monkeypatch):
    """After a rebuild every retired version goes, slice by slice (GC_SLICE), with its chunks and FTS rows."""
    from search.index import store
    from workers import runtime
    monkeypatch.setattr(store, "GC_SLICE", 3)
    root = write_tree(tmp_path / "notes", {f"n{i}.md": f"# N{i}\n\nfirst text {i}\n" for i in range(10)})
    ingest(root)
    write_tree(root, {f"n{i}.md": f"# N{i}\n\nsecond text {i}, longer now\n" for i in range(10)})
    ingest(root)
    conn = runtime.index()
    assert conn.execute("SELECT count(*) FROM files WHERE gen_to IS NOT NULL").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 10
    assert conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == \
        conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 10
    check(conn, "notes")
