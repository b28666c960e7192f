"""A file skipped or failed for a reason of its own is not read again at every scan: its outcome is remembered with
the file's size, mtime and ctime and the settings, and a scan that finds them the same carries it forward into its
generation (search.index.remembered, workers.tasks.discover). Changing the file or the settings, ``ingest
retry-failed`` and deleting the file end that; trouble that is not the file's doing is never remembered.

Real SQLite, the session's MiniLM, huey's immediate mode. What is read is counted at ``read_and_parse``, the one
call through which the parse stage reads a file."""
from __future__ import annotations

import errno
import json
import logging
import os
from pathlib import Path

import pytest

from ingest.cli import main as ingest_main
from search.index import collection_reads, db, file_reads, schema
from tests.conftest import as_older_index, ingest, run_ingest, write_tree
from tests.test_file_chunk_limit import note
from tests.test_retry import counting

BINARY = "\x00\x01\x02 binary \x00\xff" * 64
NOT_A_PDF = "<!DOCTYPE html>\n<html><body>a web page saved as .pdf</body></html>\n"


@pytest.fixture
def reads(immediate, monkeypatch) -> list[str]:
    """The files the parse stage reads, in order."""
    from ingest import files  # workers.tasks calls it from there, where a job reads a file
    calls: list[str] = []
    counting(monkeypatch, files, "read_and_parse", calls)
    return calls


def trouble(report: dict) -> list[tuple]:
    return [(f["path"], f["stage"], f["state"], f["reason"]) for f in report["published"]["failures"]]


def remembered() -> dict:
    from workers import runtime
    conn = runtime.index()
    return {path: outcome.state for cid in [r["id"] for r in collection_reads.collections(conn)]
            for path, (_, outcome) in file_reads.remembered(conn, cid).items()}


def later(path: Path) -> None:
    """A new mtime, same content."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


def test_a_binary_file_skipped_at_parse_is_not_read_again_until_it_changes(reads, tmp_path, caplog):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron note\n", "blob.txt": BINARY})
    first = ingest(root)
    assert trouble(first) == [("blob.txt", "parse", "skipped", "binary file (a NUL byte at byte 0)")]
    assert sorted(reads) == ["a.md", "blob.txt"]

    reads.clear()
    with caplog.at_level(logging.INFO, logger="sift.workers"):
        second = ingest(root)
    assert reads == [], "nothing changed: nothing is read"
    assert second["published"]["id"] == first["published"]["id"], "nothing changed: no generation"
    assert trouble(second) == trouble(first), "stats show it as before"
    assert "2 files seen, nothing changed (1 skipped or failed as before)" in caplog.text
    write_tree(root, {"a.md": "# A\n\nthe heron note, edited\n"})
    with caplog.at_level(logging.INFO, logger="sift.workers"):
        third = ingest(root)
    assert reads == ["a.md"] and trouble(third) == trouble(first)
    assert "files seen, 1 to parse, 1 skipped or failed as before (unchanged since)" in caplog.text
    from workers.stats import _change_line
    assert first["published"]["changes"] == {"added": 2}
    assert third["published"]["changes"] == {"changed": 1, "as before": 1}, "it said 'added' at every scan"
    assert _change_line(third["published"]).startswith("2 files seen, 1 changed, 1 skipped or failed as before; ")
    reads.clear()

    later(root / "blob.txt")
    assert trouble(ingest(root)) == trouble(first) and reads == ["blob.txt"], "touched: read again"
    reads.clear()
    (root / "blob.txt").chmod(0o600)  # only its ctime changes
    assert trouble(ingest(root)) == trouble(first) and reads == ["blob.txt"], "chmod-ed: read again"
    reads.clear()
    (root / "blob.txt").write_text("now plain text about a walrus\n")
    assert trouble(ingest(root)) == [] and reads == ["blob.txt"]
    assert remembered() == {}, "indexed now: nothing of it is kept"


def test_a_file_over_the_chunk_limit_is_not_chunked_again_until_the_limit_is_raised(reads, tmp_path, monkeypatch):
    from workers import runtime
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "5")
    root = write_tree(tmp_path / "notes", {"big.md": note("walrus", 40), "small.md": "# Small\n\nthe heron\n"})
    first = ingest(root)
    assert [t[:3] for t in trouble(first)] == [("big.md", "chunk", "skipped")]
    reads.clear()
    assert trouble(ingest(root)) == trouble(first) and reads == []

    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "100")
    runtime.reset()  # a worker started with the new setting
    assert trouble(ingest(root)) == [] and reads == ["big.md"], "the setting it was decided on changed"
    assert remembered() == {}


def test_a_chunker_that_cuts_otherwise_reads_the_remembered_files_again(reads, tmp_path, monkeypatch):
    """A new chunker (ingest.chunk.VERSION) reads every file again, and those remembered as over the chunk limit or
    failed at chunk too: they stayed 'as before', though the new chunker may cut them into fewer chunks."""
    from ingest import chunk
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "5")
    root = write_tree(tmp_path / "notes", {"big.md": note("walrus", 40), "small.md": "# Small\n\nthe heron\n"})
    first = ingest(root)
    assert [t[:3] for t in trouble(first)] == [("big.md", "chunk", "skipped")]
    reads.clear()
    monkeypatch.setattr(chunk, "VERSION", chunk.VERSION + 1)
    assert trouble(ingest(root)) == trouble(first)
    assert sorted(reads) == ["big.md", "small.md"], "the new chunker reads the skipped file too"


def test_a_new_chunker_reads_a_note_skipped_as_not_text_again(reads, tmp_path, monkeypatch):
    """A note an older Sift skipped as 'not UTF-8 text' (a Latin-1 note, read since chunker version 7) is read by
    the first scan after the upgrade, though it did not change: the new version reads every file again."""
    from ingest import chunk, decode
    root = write_tree(tmp_path / "notes", {"small.md": "# Small\n\nthe heron\n"})
    (root / "latin1.md").write_bytes("# Café\n\ncrème brûlée\n".encode("latin-1"))
    with monkeypatch.context() as older:
        older.setattr(decode, "legacy", lambda sample: None)  # the decoder before legacy encodings were read
        older.setattr(chunk, "VERSION", chunk.VERSION - 1)
        first = ingest(root)
    assert [t[:3] for t in trouble(first)] == [("latin1.md", "parse", "skipped")]
    reads.clear()
    assert trouble(ingest(root)) == [] and sorted(reads) == ["latin1.md", "small.md"]


def test_a_grown_note_over_the_limit_keeps_its_old_version_and_is_not_chunked_again(reads, tmp_path,
                                                                                      monkeypatch):
    """A file with a current version whose new content is skipped is planned as changed at every scan."""
    monkeypatch.setenv("SIFT_MAX_FILE_CHUNKS", "5")
    root = write_tree(tmp_path / "notes", {"grows.md": note("otter", 2)})
    ingest(root)
    write_tree(root, {"grows.md": note("beaver", 9)})
    first = ingest(root)
    assert [t[:3] for t in trouble(first)] == [("grows.md", "chunk", "skipped")]
    reads.clear()
    assert trouble(ingest(root)) == trouble(first) and reads == []


def test_retry_failed_reads_a_failed_file_again(reads, tmp_path, capsys):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron note\n", "page.pdf": NOT_A_PDF})
    first = ingest(root)
    assert [t[:3] for t in trouble(first)] == [("page.pdf", "parse", "failed")]
    assert "not a PDF" in trouble(first)[0][3]
    reads.clear()
    assert trouble(ingest(root)) == trouble(first) and reads == []

    assert ingest_main(["retry-failed", "notes"]) == 0
    assert "notes: queued a scan that retries 1 failed file" in capsys.readouterr().out
    assert reads == ["page.pdf"], "retry-failed reads it whatever the memory says"
    assert remembered() == {"page.pdf": "failed"}, "failed again: remembered again"


def test_a_deleted_file_is_forgotten(reads, tmp_path):
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron note\n", "blob.txt": BINARY})
    ingest(root)
    assert remembered() == {"blob.txt": "skipped"}
    (root / "blob.txt").unlink()
    assert trouble(ingest(root)) == []
    assert remembered() == {}


def test_no_permission_is_read_again_once_the_file_opens_though_unchanged(reads, tmp_path, monkeypatch):
    """Access given without touching the file (its folder's ACL, the user's groups) leaves its size, mtime and
    ctime as they were: the remembered "no permission" was carried forward until retry-failed. The OS's
    refusal is simulated at the open call (this runs as root in CI, and root opens anything)."""
    from ingest import files
    refused = {"closed.md"}
    real_open = files.os.open

    def refusing_open(path, flags, *args, **kwargs):
        if Path(path).name in refused:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)
    monkeypatch.setattr(files.os, "open", refusing_open)
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe ibis note\n", "closed.md": "# C\n\nthe locked tapir\n"})
    assert [t[:4] for t in trouble(ingest(root))] == [("closed.md", "parse", "failed", "no permission to read the file")]
    assert trouble(ingest(root)) != [] and reads.count("closed.md") == 1, "still refused: not read again"
    refused.clear()
    assert trouble(ingest(root)) == [] and reads.count("closed.md") == 2
    assert remembered() == {}


@pytest.mark.parametrize("trouble_of_the_machine", [
    MemoryError(), OSError(errno.ESTALE, "Stale file handle"), ImportError("No module named 'pypdf'")])
def test_a_failure_that_is_not_the_files_doing_is_read_again_at_the_next_scan(immediate, tmp_path, monkeypatch,
                                                                             trouble_of_the_machine):
    from ingest import files
    calls: list[str] = []
    read = files.read_and_parse  # the real one: workers.tasks calls it from ingest.files

    def broken(root, path, **rules):
        calls.append(path)
        if len(calls) == 1:
            raise trouble_of_the_machine
        return read(root, path, **rules)
    monkeypatch.setattr(files, "read_and_parse", broken)
    root = write_tree(tmp_path / "notes", {"b.md": "# B\n\nthe bittern note\n"})
    assert [t[:3] for t in trouble(ingest(root))] == [("b.md", "parse", "failed")]
    assert remembered() == {}
    assert trouble(ingest(root)) == [], "read again, and indexed"


def test_a_skip_for_a_missing_package_is_read_again(immediate, tmp_path, monkeypatch):
    from ingest import files
    from ingest.document import SkipForNow
    calls: list[str] = []
    read = files.read_and_parse  # the real one: workers.tasks calls it from ingest.files

    def lacking(root, path, **rules):
        calls.append(path)
        if len(calls) == 1:
            raise SkipForNow("encrypted: AES needs the 'cryptography' package")
        return read(root, path, **rules)
    monkeypatch.setattr(files, "read_and_parse", lacking)
    root = write_tree(tmp_path / "notes", {"c.md": "# C\n\nthe crane note\n"})
    assert [t[:3] for t in trouble(ingest(root))] == [("c.md", "parse", "skipped")]
    assert trouble(ingest(root)) == [] and calls == ["c.md", "c.md"]


def test_an_index_from_before_v9_is_read_as_before_and_a_writer_adds_the_table(immediate, sift_env, tmp_path):
    """Readers (stats, the MCP server) open the index without migrating it; a writer adds the table (V9)."""
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha", "blob.txt": BINARY}))
    path = as_older_index(sift_env, "DROP TABLE cut; DROP TABLE background; DROP INDEX files_mtime; DROP INDEX files_attached; "
                                    "DROP TABLE remembered; DROP TABLE working; "
                                    "ALTER TABLE generations DROP COLUMN chunking; "
                                    "ALTER TABLE collections DROP COLUMN scanned_unchanged; "
                                    "ALTER TABLE chunks DROP COLUMN page_starts; "
                                    "ALTER TABLE files DROP COLUMN ctime; "
                                    "DROP INDEX chunks_tagged; ALTER TABLE chunks DROP COLUMN tags; "
                                    "DROP INDEX chunks_dated; ALTER TABLE chunks DROP COLUMN dated;", 8)
    result = run_ingest(sift_env, "stats", "--json")
    assert result.returncode == 0, result.stderr
    failures = json.loads(result.stdout)["collections"][0]["published"]["failures"]
    assert [(f["path"], f["reason"]) for f in failures] == [("blob.txt", "binary file (a NUL byte at byte 0)")]
    upgraded = db.connect(path)
    assert schema.version(upgraded) == len(schema.MIGRATIONS) >= 9
    assert upgraded.execute("SELECT count(*) FROM remembered").fetchone()[0] == 0


def test_a_parser_failure_caused_by_the_machine_is_read_again_at_the_next_scan(reads, tmp_path, monkeypatch):
    """The PDF parser wraps what pypdf raises in a ValueError ('unreadable PDF: ...'): a MemoryError underneath
    is still the machine's trouble, not the file's, and must not be remembered."""
    from ingest import pdf

    def out_of_memory(*args, **kwargs):
        raise MemoryError()
    monkeypatch.setattr(pdf, "PdfReader", out_of_memory)
    root = write_tree(tmp_path / "notes", {"page.pdf": NOT_A_PDF})
    assert [t[:3] for t in trouble(ingest(root))] == [("page.pdf", "parse", "failed")]
    assert remembered() == {}
    reads.clear()
    ingest(root)
    assert reads == ["page.pdf"], "read again"


def test_a_skip_caused_by_the_machine_is_read_again_at_the_next_scan(reads, tmp_path, monkeypatch):
    """Decrypting a PDF says 'encrypted: ...' of whatever pypdf raised: MemoryError underneath is the machine's."""
    import io
    from pypdf import PdfReader, PdfWriter
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    data = io.BytesIO()
    writer.write(data)

    def out_of_memory(self, password):
        raise MemoryError()
    monkeypatch.setattr(PdfReader, "decrypt", out_of_memory)
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron note\n"})
    (root / "locked.pdf").write_bytes(data.getvalue())
    assert [t[:3] for t in trouble(ingest(root))] == [("locked.pdf", "parse", "skipped")]
    assert remembered() == {}
    reads.clear()
    ingest(root)
    assert reads == ["locked.pdf"], "read again"


def writes_of_a_scan(root: Path) -> int:
    """The write transactions the index sees while ``root`` (the collection of its name) is scanned again."""
    from workers import runtime
    conn, begun = runtime.index(), []
    conn.set_trace_callback(lambda sql: begun.append(sql) if sql.startswith("BEGIN IMMEDIATE") else None)
    try:
        ingest(root, root.name)
    finally:
        conn.set_trace_callback(None)
    return len(begun)


def test_a_scan_marks_the_outcomes_it_carries_forward_together_not_one_transaction_each(reads, tmp_path):
    """20,000 binary files carried forward took 3.5 s of one transaction each at every scan; the outcomes are
    marked a group at a time, so a scan's writes do not grow with the files it carries."""
    few = write_tree(tmp_path / "few", {"a.md": "# A\n\nalpha\n", **{f"b{i}.txt": BINARY for i in range(3)}})
    many = write_tree(tmp_path / "many", {"a.md": "# A\n\nalpha\n", **{f"b{i}.txt": BINARY for i in range(60)}})
    for root in (few, many):
        ingest(root, root.name)
    reads.clear()
    assert writes_of_a_scan(many) == writes_of_a_scan(few)
    assert reads == []


def test_a_refused_symlink_is_skipped_as_before_not_added_at_every_scan(immediate, tmp_path):
    """A symlink loop and a link to a folder are refused at every scan; stats said '4 files seen, 2 added' of a
    collection where nothing had changed, every SIFT_RESCAN_MINUTES."""
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe heron note\n", "sub/b.md": "# B\n\nbeta\n"})
    os.symlink("self.md", root / "self.md")
    os.symlink("sub", root / "linked")
    first = ingest(root)
    assert first["published"]["changes"] == {"added": 4}
    second = ingest(root)
    assert second["published"]["id"] == first["published"]["id"], "refused as before: nothing changed"
    write_tree(root, {"a.md": "# A\n\nthe heron note, edited\n"})
    second = ingest(root)
    assert second["published"]["changes"] == {"changed": 1, "as before": 2}, second["published"]["changes"]
    assert trouble(second) == trouble(first) and [t[0] for t in trouble(second)] == ["linked", "self.md"]
    (root / "self.md").unlink()
    os.symlink("sub/b.md", root / "self.md")  # now a link to a file inside the root: indexed
    third = ingest(root)
    assert third["published"]["changes"] == {"added": 1, "as before": 1}, third["published"]["changes"]
