"""A hostile corpus, generated here: every file ends indexed, or skipped or failed with a reason;
no job takes down the worker, and nothing else is lost.

The whole corpus goes through a real ``huey_consumer``. When the tests run as root, that consumer
runs under ``setpriv`` without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH, so a mode-000 file really
cannot be read (root would read it otherwise). Races that need precise timing (a file deleted
between discover and parse, rewritten while it is read) are driven in-process, stage by stage.
"""
from __future__ import annotations

import base64
import hashlib
import os
import shutil
import warnings
from pathlib import Path

import pytest

from ingest import discover as ingest_discover, files as ingest_files
from ingest.chunk import chunk_section
from ingest.discover import walk
from ingest.document import Section, Skip
from ingest.markdown import parse_markdown
from search.index import db, status, store
from search.query import reader
from search.query.engine import Engine
from tests.conftest import Consumer, REPO, VENV_BIN, ingest, run_ingest, wait_published, write_tree

DEEP = "/".join(f"nest-{i:03d}" for i in range(200))  # 200 levels of folders
NOT_UTF8 = os.fsdecode(b"bytes-\xff\xfe-name.md")  # a name that is not UTF-8: Python holds it as surrogates
NORMAL = {
    "normal/alpha.md": ("# Alpha\n\nThe aardvark eats ants at night.\n", "aardvark"),
    "normal/beta.txt": ("Beta notes about the bison herd on the plain.\n", "bison"),
    "normal/gamma.py": ("def gamma_function():\n    return 'gazelle'\n", "gazelle"),
    "normal/日报.md": ("# 日报\n\n今天讨论了合同条款。\n", "合同"),
}
BESIDE = {
    "later/one.md": ("# One\n\nThe ocelot sleeps in the tree.\n", "ocelot"),
    "later/two.txt": ("Two: a pangolin rolls into a ball.\n", "pangolin"),
}


def hostile_corpus(root: Path, outside: Path, deny_reading: bool) -> dict:
    """Write the corpus; returns what each entry must end as: indexed (with a word it is found by),
    skipped or failed (with part of the reason), or absent (refused by discovery, never indexed)."""
    write_tree(outside, {"secret.md": "# Secret\n\nTOPSECRET xylophone outside the root\n"})
    write_tree(root, {rel: text for rel, (text, _) in NORMAL.items()})
    indexed = {rel: word for rel, (_, word) in NORMAL.items()}
    skipped, failed, absent = {}, {}, []

    (root / "invalid-utf8.md").write_bytes("# 合同\n\n付款".encode() + b"\xff" + "方式\n".encode())
    skipped["invalid-utf8.md"] = "not UTF-8 text"
    (root / "utf16-le.md").write_bytes("# Sixteen\r\n\r\nzebra stripes in UTF-16\r\n".encode("utf-16"))
    indexed["utf16-le.md"] = "zebra"
    (root / "utf16-be.txt").write_bytes(b"\xfe\xff" + "okapi in big-endian UTF-16\n".encode("utf-16-be"))
    indexed["utf16-be.txt"] = "okapi"
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 64
    (root / "binary.md").write_bytes(png)
    skipped["binary.md"] = "binary file"
    with open(root / "huge-line.md", "wb") as handle:  # 50 MB, one line
        handle.write(b"capybara ")
        handle.write(b"lorem ipsum " * (50 * 1024 * 1024 // 12))
    skipped["huge-line.md"] = "characters (over 1,000,000)"
    (root / "empty.md").write_bytes(b"")
    indexed["empty.md"] = None  # indexed, with no chunks
    write_tree(root, {f"{DEEP}/deep.md": "# Deep\n\nnarwhal at the bottom of the folders\n"})
    indexed[f"{DEEP}/deep.md"] = "narwhal"
    os.symlink(root / "loop-b.md", root / "loop-a.md")
    os.symlink(root / "loop-a.md", root / "loop-b.md")
    os.symlink(root, root / "loop-dir")
    os.symlink(outside / "secret.md", root / "escape.md")
    os.symlink(outside, root / "escape-dir")
    skipped["loop-a.md"] = skipped["loop-b.md"] = "symbolic link loop"
    skipped["escape.md"] = "symbolic link to a file outside the collection root"
    skipped["loop-dir"] = "symbolic link to a folder: not followed"  # links to folders are never followed,
    skipped["escape-dir"] = "symbolic link to a folder outside the collection root"  # and reported as skipped
    absent += ["escape-dir/secret.md"]
    (root / "new\nline.md").write_text("# Newline\n\nplatypus in a file name with a newline\n")
    indexed["new\nline.md"] = "platypus"
    (root / NOT_UTF8).write_text("# Bytes\n\nwombat behind a name that is not UTF-8\n")
    skipped["bytes-\\xff\\xfe-name.md"] = "file name is not valid UTF-8"
    if deny_reading:
        (root / "no-permission.md").write_text("# Private\n\nquokka nobody may read\n")
        (root / "no-permission.md").chmod(0)
        failed["no-permission.md"] = "no permission to read the file"
        write_tree(root, {"no-permission-folder/inside.md": "# Inside\n\nnobody may list this folder\n"})
        (root / "no-permission-folder").chmod(0)
        skipped["no-permission-folder"] = "folder cannot be read (Permission denied)"
    return {"indexed": indexed, "skipped": skipped, "failed": failed, "absent": absent}


def reading_denied_prefix() -> list[str] | None:
    """argv prefix under which a mode-000 file cannot be read; None if that cannot be arranged."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]


class LimitedConsumer(Consumer):
    """A real consumer, started under ``prefix`` (setpriv without the capabilities that let root read anything)."""

    def __init__(self, env: dict, prefix: list[str], log: Path):
        import subprocess
        self.log = open(log, "ab")
        self.proc = subprocess.Popen(
            [*prefix, str(VENV_BIN / "huey_consumer"), "workers.app.huey", "-k", "process", "-w", "2", "-d", "0.05"],
            cwd=REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)


@pytest.fixture
def limited_consumer(sift_env, tmp_path):
    started = []

    def start(prefix: list[str]) -> LimitedConsumer:
        started.append(LimitedConsumer(sift_env, prefix, tmp_path / "consumer.log"))
        return started[-1]
    yield start
    for c in started:
        c.stop()


def collection_report(conn, name: str) -> dict:
    return next(c for c in status.collect(conn)["collections"] if c["name"] == name)


def found_by(engine: Engine, word: str, collection: str) -> list[str]:
    from search.query.filters import Filters
    return [h.path for h in engine.search(word, mode="keyword", limit=50, filters=Filters(collection=collection)).hits]


def check_outcome(conn, engine: Engine, name: str, expected: dict) -> None:
    report = collection_report(conn, name)
    published = report["published"]
    assert published is not None and report["building"] is None
    failures = {f["path"]: f for f in published["failures"]}
    assert set(failures) == set(expected["skipped"]) | set(expected["failed"]), failures
    for path, reason in expected["skipped"].items():
        assert failures[path]["state"] == "skipped" and reason in failures[path]["reason"], failures[path]
    for path, reason in expected["failed"].items():
        assert failures[path]["state"] == "failed" and reason in failures[path]["reason"], failures[path]
    visible = {row["path"] for row in reader.visible_files(conn, name)}
    assert visible == set(expected["indexed"]), "exactly the indexable files are indexed"
    for path, word in expected["indexed"].items():
        if word is not None:
            assert path in found_by(engine, word, name), (path, word)
    for path in expected["absent"]:
        assert path not in visible and path not in failures
    assert found_by(engine, "TOPSECRET xylophone", name) == [], "nothing from outside the root"
    assert found_by(engine, "wombat", name) == [] and found_by(engine, "capybara", name) == []


def test_hostile_corpus_through_a_real_worker(sift_env, limited_consumer, tmp_path, embedder):
    prefix = reading_denied_prefix()
    if prefix is None:
        warnings.warn("root without setpriv: the mode-000 file is left out of this corpus "
                      "(test_unreadable_file_fails_with_a_reason simulates it)")
    root, outside = tmp_path / "hostile", tmp_path / "outside"
    expected = hostile_corpus(root, outside, deny_reading=prefix is not None)
    worker = limited_consumer(prefix or [])
    index = Path(sift_env["SIFT_HOME"]) / "index.db"

    assert run_ingest(sift_env, "enqueue", str(root), "--name", "hostile").returncode == 0
    conn = db.connect(index)
    first = wait_published(conn, "hostile", None, worker.proc)
    engine = Engine(index, lambda: embedder)
    check_outcome(conn, engine, "hostile", expected)
    empty = conn.execute("SELECT count(*) FROM chunks ch JOIN files f ON f.id = ch.file WHERE f.path = 'empty.md'")
    assert empty.fetchone()[0] == 0
    deep = engine.search("narwhal", mode="keyword").hits[0]
    assert deep.path == f"{DEEP}/deep.md" and deep.start_line == 1
    utf16 = [c for c in reader.visible_chunks(conn) if c["path"] == "utf16-le.md"]
    assert utf16 and all("\r" not in c["text"] for c in utf16), "UTF-16 with CRLF reads as lines"

    # The same worker goes on: a normal folder beside the hostile one is indexed whole.
    beside = write_tree(tmp_path / "beside", {rel: text for rel, (text, _) in BESIDE.items()})
    assert run_ingest(sift_env, "enqueue", str(beside), "--name", "beside").returncode == 0
    wait_published(conn, "beside", None, worker.proc)
    for path, (_, word) in BESIDE.items():
        assert found_by(engine, word, "beside") == [path]

    # A rescan of the hostile folder changes nothing and loses nothing: it publishes no generation.
    again = run_ingest(sift_env, "enqueue", str(root), "--name", "hostile", "--wait")
    assert again.returncode == 0 and "scanned: no changes; published generation " in again.stderr, again.stderr
    assert collection_report(conn, "hostile")["published"]["id"] == first
    check_outcome(conn, engine, "hostile", expected)

    assert worker.proc.poll() is None, "the worker survived the corpus"
    worker.stop()
    log = (tmp_path / "consumer.log").read_text(errors="replace")
    assert "Traceback" not in log and "Unhandled exception" not in log, log[-3000:]


def test_unreadable_file_fails_with_a_reason(immediate, tmp_path, monkeypatch):
    """In-process twin of the mode-000 file above: when root can read everything, the refusal the OS
    would give is simulated at the open call, and said so here; otherwise a real mode-000 file is used."""
    root = write_tree(tmp_path / "notes", {"open.md": "# Open\n\nan open koala\n", "closed.md": "# Closed\n\nemu\n"})
    (root / "closed.md").chmod(0)
    if os.access(root / "closed.md", os.R_OK):  # root: simulate the refusal (the real one runs under setpriv above)
        real_open = os.open

        def refusing_open(path, flags, *args, **kwargs):
            if str(path).endswith("closed.md"):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, flags, *args, **kwargs)
        monkeypatch.setattr(ingest_files.os, "open", refusing_open)
    published = ingest(root)["published"]
    assert {f["path"]: f["reason"] for f in published["failures"]} == {"closed.md": "no permission to read the file"}
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert {r["path"] for r in reader.visible_files(conn)} == {"open.md"}


@pytest.mark.parametrize("folder", ["private", ""], ids=["a folder", "the root"])
def test_unreadable_folder_keeps_its_files_and_says_why(immediate, tmp_path, monkeypatch, folder):
    """A folder that cannot be listed (its permissions taken away, say) was walked as empty: every file
    indexed under it was deleted from the index, and nothing in stats said why. Now its files stay as they
    were indexed and the folder is reported as skipped with the reason; once readable, it is scanned again."""
    root = write_tree(tmp_path / "notes", {"open.md": "# Open\n\nan open koala\n",
                                           "private/diary.md": "# Diary\n\nthe emu diary\n"})
    ingest(root)
    unreadable = root / folder
    unreadable.chmod(0)
    real_scandir = ingest_discover.os.scandir

    def refusing_scandir(path):
        if Path(path) == unreadable:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)
    with monkeypatch.context() as patch:
        if os.access(unreadable, os.R_OK):  # root: simulate the refusal the OS would give (see the test above)
            patch.setattr(ingest_discover.os, "scandir", refusing_scandir)
        try:
            published = ingest(root)["published"]
        finally:
            unreadable.chmod(0o755)
    reasons = {f["path"]: (f["state"], f["reason"]) for f in published["failures"]}
    assert reasons == {folder or ".": ("skipped", "folder cannot be read (Permission denied): the files "
                                                   "indexed under it are kept as they were")}
    assert "deleted" not in published["changes"]
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert found_by(engine, "emu", "notes") == ["private/diary.md"]
    assert found_by(engine, "koala", "notes") == ["open.md"]
    write_tree(root, {"private/later.md": "# Later\n\na later ibis\n"})
    again = ingest(root)["published"]
    assert again["failures"] == [] and found_by(engine, "ibis", "notes") == ["private/later.md"]


def test_a_long_heading_is_not_stored_again_with_every_chunk_under_it(immediate, tmp_path):
    """A heading is stored and indexed with every chunk under it (its heading path, and the title with every
    chunk of the file): a 400 KB note whose first line was a 200,000-character heading made a 390 MB index.
    Titles and headings are kept to their first 500 characters; the whole line stays searchable in the text."""
    heading = "# " + "aardvark " * 2000 + "zebu\n\n"
    body = "".join(f"line {i}: the bison herd grazes slowly on the plain today.\n" for i in range(400))
    root = write_tree(tmp_path / "notes", {"long.md": heading + body})
    assert ingest(root)["published"]["failures"] == []
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    chunks = [c for c in reader.visible_chunks(conn) if c["path"] == "long.md"]
    assert len(chunks) > 10 and max(len(c["heading_path"]) for c in chunks) <= 500
    assert len(next(iter(reader.visible_files(conn)))["title"]) <= 500
    assert set(found_by(Engine(Path(os.environ["SIFT_HOME"]) / "index.db"), "zebu", "notes")) == {"long.md"}


# --- races, driven stage by stage -----------------------------------------------------------------

def begin(conn, root: Path, changes: dict[str, str]) -> tuple[int, int]:
    from workers import runtime
    collection = store.ensure_collection(conn, "notes", str(root.resolve()))
    gen = store.begin_generation(conn, collection["id"], runtime.model_id())
    store.record_plan(conn, gen, collection["id"], changes, {}, len(changes))
    return collection["id"], gen


def test_files_that_change_between_discover_and_parse(immediate, tmp_path):
    from workers import runtime, tasks
    outside = write_tree(tmp_path / "outside", {"secret.md": "TOPSECRET xylophone\n"})
    root = write_tree(tmp_path / "notes", {"old.md": "# Old\n\nan old note about cranes\n"})
    ingest(root)  # old.md is published
    write_tree(root, {
        "kept.md": "# Kept\n\nthe kept note about herons\n", "gone.md": "# Gone\n\nvanishing ibis\n",
        "now-a-folder.md": "# Folder\n\nsoon a folder\n", "now-a-link.md": "# Link\n\nsoon a link\n"})
    conn = runtime.index()
    paths = ["gone.md", "kept.md", "now-a-folder.md", "now-a-link.md", "old.md"]
    collection, gen = begin(conn, root, {p: "changed" if p == "old.md" else "added" for p in paths})
    (root / "gone.md").unlink()
    (root / "old.md").unlink()
    (root / "now-a-folder.md").unlink()
    (root / "now-a-folder.md").mkdir()
    (root / "now-a-link.md").unlink()
    (root / "now-a-link.md").symlink_to(outside / "secret.md")
    tasks.parse.call_local(tasks.Batch(gen, collection, paths))
    assert store.try_publish(conn, gen)
    report = collection_report(conn, "notes")["published"]
    reasons = {f["path"]: (f["state"], f["reason"]) for f in report["failures"]}
    assert reasons == {
        "gone.md": ("failed", "file vanished before it could be read"),
        "old.md": ("failed", "file vanished before it could be read"),
        "now-a-folder.md": ("skipped", "not a regular file: not read"),
        "now-a-link.md": ("failed", "now-a-link.md resolves outside the collection root"),
    }
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert found_by(engine, "herons", "notes") == ["kept.md"]
    assert found_by(engine, "xylophone", "notes") == []
    assert found_by(engine, "cranes", "notes") == ["old.md"], "the last good version stays until a scan sees it gone"
    after = ingest(root)["published"]
    assert after["changes"].get("deleted") == 1 and found_by(engine, "cranes", "notes") == []


class RewritingOpen:
    """``open`` for ingest.files that rewrites the file while it is being read, ``times`` times."""

    def __init__(self, path: Path, versions: list[bytes], replace: bool):
        self.path, self.versions, self.replace, self.reads = path, list(versions), replace, 0

    def __call__(self, fd, mode="r", *args, **kwargs):
        handle = open(fd, mode, *args, **kwargs)
        outer = self

        class Handle:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                handle.close()

            def read(self, size=-1):
                data = handle.read(size)
                outer.reads += 1
                if outer.versions:  # the writer strikes mid-read
                    new = outer.versions.pop(0)
                    if outer.replace:  # an editor's atomic save: a new file renamed over the old
                        temp = outer.path.with_name(".swap")
                        temp.write_bytes(new)
                        os.replace(temp, outer.path)
                    else:
                        outer.path.write_bytes(new)
                return data
        return Handle()


@pytest.mark.parametrize("replace", [False, True], ids=["in-place", "renamed-over"])
def test_file_rewritten_while_it_is_read_is_indexed_as_one_version(immediate, tmp_path, monkeypatch, replace):
    root = write_tree(tmp_path / "notes", {"steady.md": "# Steady\n\nsteady gannets\n",
                                           "busy.md": "# Busy\n\nfirst draft about puffins\n"})
    busy = root / "busy.md"
    final = b"# Busy\n\nthe final text is about kittiwakes and it is longer\n"
    opener = RewritingOpen(busy, [final], replace)
    monkeypatch.setattr(ingest_files, "open", opener, raising=False)
    published = ingest(root)["published"]
    assert published["failures"] == []
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    row = next(r for r in reader.visible_files(conn) if r["path"] == "busy.md")
    assert row["sha256"] == hashlib.sha256(final).hexdigest() and row["size"] == len(final)
    assert row["mtime"] == busy.stat().st_mtime
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert found_by(engine, "kittiwakes", "notes") == ["busy.md"] and found_by(engine, "puffins", "notes") == []
    assert found_by(engine, "gannets", "notes") == ["steady.md"]


def test_file_that_never_settles_fails_then_is_indexed_when_it_does(immediate, tmp_path, monkeypatch):
    """A file being written is read again with backoff (tests/test_retry.py); one that is still changing
    after every try fails with the reason, and is indexed by a later scan once it settles."""
    monkeypatch.setenv("SIFT_RETRY_DELAY", "0.01")
    root = write_tree(tmp_path / "notes", {"steady.md": "# Steady\n\nsteady gannets\n",
                                           "log.md": "# Log\n\nline 0\n"})
    tries = 1 + 3  # the first try and SIFT_RETRIES (3) more, each reading READ_ATTEMPTS times
    versions = [f"# Log\n\n{'line ' * (n + 2)}{n}\n".encode() for n in range(2 * ingest_files.READ_ATTEMPTS * tries)]
    monkeypatch.setattr(ingest_files, "open", RewritingOpen(root / "log.md", versions, replace=False), raising=False)
    published = ingest(root)["published"]
    assert [(f["path"], f["state"]) for f in published["failures"]] == [("log.md", "failed")]
    assert "kept changing while it was read" in published["failures"][0]["reason"]
    assert "(tried 4 times)" in published["failures"][0]["reason"]
    monkeypatch.delattr(ingest_files, "open")
    again = ingest(root)["published"]
    assert again["failures"] == []
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert {r["path"] for r in reader.visible_files(conn)} == {"steady.md", "log.md"}


# --- single stages on hostile input ---------------------------------------------------------------

def test_reading_a_fifo_named_like_a_note_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "pipe.md")
    with pytest.raises(Skip, match="not a regular file"):
        ingest_files.read_and_parse(tmp_path, "pipe.md")


def test_notes_in_legacy_encodings_are_indexed_as_written(immediate, tmp_path):
    """A GBK, Big5 or Latin-1 note was skipped with 'not UTF-8 text (byte 2: invalid start byte)': years of notes
    saved by an old editor were not searchable until converted by hand. They are read as written now; UTF-8 with a
    damaged byte is still refused, with the command that converts a file."""
    root = write_tree(tmp_path / "notes", {"ok.md": "# OK\n\nfine\n"})
    (root / "gbk.md").write_bytes("# 合同\n\n付款方式改为分期。\n".encode("gbk"))
    (root / "big5.md").write_bytes("# 資料庫\n\n索引設計的筆記。\n".encode("big5"))
    (root / "latin1.md").write_bytes("# Café\n\ncrème brûlée, déjà vu\n".encode("latin-1"))
    (root / "damaged.md").write_bytes("# 合同\n\n付款".encode() + b"\xff" + "方式\n".encode())
    report = ingest(root)
    reasons = {f["path"]: f["reason"] for f in report["published"]["failures"]}
    assert set(reasons) == {"damaged.md"}
    assert reasons["damaged.md"].startswith("not UTF-8 text (byte 16: invalid start byte): Sift reads UTF-8")
    assert reasons["damaged.md"].endswith("iconv -f ENCODING -t UTF-8 FILE > NEW")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: None)
    found = {query: [h.path for h in engine.search(query, mode="keyword").hits]
             for query in ("分期", "索引設計", "brûlée")}
    assert found == {"分期": ["gbk.md"], "索引設計": ["big5.md"], "brûlée": ["latin1.md"]}


def test_a_pdf_named_like_a_note_is_skipped_saying_it_is_a_pdf():
    """A PDF saved as report.md was skipped as 'binary file', which says nothing of what to do with it."""
    import io
    from pypdf import PdfWriter
    from ingest.parse import parse_file
    writer, out = PdfWriter(), io.BytesIO()
    writer.add_blank_page(612, 792)
    writer.write(out)
    with pytest.raises(Skip) as refused:
        parse_file("reports/report.md", out.getvalue())
    assert str(refused.value) == "a PDF named 'report.md' (it begins %PDF-): rename it to .pdf to index it"
    with pytest.raises(Skip, match=r"^binary file \(a NUL byte at byte 4\)$"):
        parse_file("blob.md", b"%PNG\x00\x01")


def test_a_note_with_a_nul_byte_is_skipped_saying_where_it_is(immediate, tmp_path):
    """A crash can leave a note ending in a run of NULs where its last write was lost: it was skipped as 'binary
    file', with nothing to say where; read_file said the same. Both now give the first NUL's byte."""
    root = write_tree(tmp_path / "notes", {"ok.md": "# OK\n\nfine\n"})
    (root / "journal.md").write_bytes("# Journal\n\nthe heron came back\n".encode() + b"\x00" * 4096)
    (root / "utf16.md").write_bytes(b"\xff\xfe" + "ab".encode("utf-16-le") + b"\x00\x00")
    reasons = {f["path"]: f["reason"] for f in ingest(root)["published"]["failures"]}
    assert reasons == {"journal.md": "binary file (a NUL byte at byte 31)",
                       "utf16.md": "binary file (a NUL byte at byte 6)"}


def test_discovery_leaves_out_what_is_not_a_regular_file(tmp_path):
    write_tree(tmp_path, {"note.md": "n"})
    os.mkfifo(tmp_path / "pipe.md")
    assert [f.path for f in walk(tmp_path)] == ["note.md"]


def test_a_named_pipe_named_like_a_note_is_reported_skipped_with_the_reason(immediate, tmp_path):
    """A FIFO called pipe.md was left out without a word: not in stats, not in list_files, as if it were not
    there. It is reported as skipped, as a refused symlink is, and never opened."""
    root = write_tree(tmp_path / "notes", {"note.md": "# Note\n\nfine\n"})
    os.mkfifo(root / "pipe.md")
    published = ingest(root)["published"]
    reasons = {f["path"]: (f["state"], f["reason"]) for f in published["failures"]}
    assert reasons == {"pipe.md": ("skipped", "a named pipe (FIFO), not a regular file: not read")}
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert {r["path"] for r in reader.visible_files(conn)} == {"note.md"}


def test_folders_nested_deeper_than_pythons_recursion_limit_are_walked(immediate, tmp_path):
    """Discovery walked folders by recursion: a tree 1,200 folders deep (short names, the whole path still
    far under PATH_MAX) raised RecursionError, and the collection's every scan failed; nothing was indexed."""
    root = write_tree(tmp_path / "notes", {"top.md": "# Top\n\nthe top heron\n"})
    folders = [str(root)]
    for _ in range(1200):
        folders.append(folders[-1] + "/d")
        os.mkdir(folders[-1])
    Path(folders[-1], "deep.md").write_text("# Deep\n\nthe deep narwhal\n")
    deep = os.path.relpath(folders[-1], root) + "/deep.md"
    try:
        assert [f.path for f in walk(root)] == [deep, "top.md"]
        assert ingest(root)["published"]["failures"] == []
        engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
        assert found_by(engine, "narwhal", "notes") == [deep] and found_by(engine, "heron", "notes") == ["top.md"]
    finally:  # removed here, bottom up: pytest's clean-up (shutil.rmtree, recursive) fails on such a tree
        os.remove(Path(folders[-1], "deep.md"))
        for folder in reversed(folders[1:]):
            os.rmdir(folder)


def test_a_gitignore_that_is_a_named_pipe_is_not_read(tmp_path):
    """Discovery opened each folder's .gitignore like a file: a named pipe called .gitignore blocked the scan
    until some process wrote to it (forever, in a worker), and its stream was taken as ignore rules. Here a
    writer stands by to unblock such a read and to offer '*.md'; the pipe must be passed over unread."""
    import threading
    write_tree(tmp_path, {"sub/note.md": "n"})
    os.mkfifo(tmp_path / "sub/.gitignore")

    def writer():
        try:
            with open(tmp_path / "sub/.gitignore", "w") as pipe:  # waits until a reader opens the pipe
                pipe.write("*.md\n")
        except BrokenPipeError:  # the reader opened the pipe and closed it unread
            pass
    threading.Thread(target=writer, daemon=True).start()
    assert [f.path for f in walk(tmp_path)] == ["sub/note.md"]


def test_refused_symlinks_are_reported_with_a_reason(immediate, tmp_path):
    outside = write_tree(tmp_path / "outside", {"secret.md": "s"})
    root = write_tree(tmp_path / "notes", {"note.md": "# Note\n\nfine\n", "real.md": "# Real\n\nreal text\n"})
    os.symlink(root / "b.md", root / "a.md")
    os.symlink(root / "a.md", root / "b.md")
    os.symlink(outside / "secret.md", root / "escape.md")
    os.symlink(root / "missing.md", root / "dangling.md")
    os.symlink(root / "real.md", root / "alias.md")  # inside the root: followed
    published = ingest(root)["published"]
    reasons = {f["path"]: (f["state"], f["reason"]) for f in published["failures"]}
    assert reasons == {
        "a.md": ("skipped", "symbolic link loop: not followed"),
        "b.md": ("skipped", "symbolic link loop: not followed"),
        "escape.md": ("skipped", "symbolic link to a file outside the collection root: not followed"),
        "dangling.md": ("skipped", "symbolic link whose target does not exist"),
    }
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert {r["path"] for r in reader.visible_files(conn)} == {"note.md", "real.md", "alias.md"}
    # A link that was indexed and now points out of the root is retired, and reported.
    (root / "alias.md").unlink()
    os.symlink(outside / "secret.md", root / "alias.md")
    again = {f["path"]: f["reason"] for f in ingest(root)["published"]["failures"]}
    assert again["alias.md"] == "symbolic link to a file outside the collection root: not followed"
    assert {r["path"] for r in reader.visible_files(conn)} == {"note.md", "real.md"}


def tokens_counted(embedder):
    """The model's counter, and a tally of the characters it was given (a measure of work, not of time)."""
    tally = {"chars": 0}

    def count(text: str) -> int:
        tally["chars"] += len(text)
        return embedder.count(text)
    return count, tally


@pytest.mark.parametrize("kind", ["base64", "letters", "cjk"])
def test_long_line_without_spaces_is_cut_in_linear_work(embedder, kind):
    """Cutting at characters used to search the whole rest of the line for each piece: a 200 KB base64
    line took minutes. Now the work is a small multiple of the line's length."""
    text = {"base64": base64.b64encode(bytes(range(256)) * 600).decode(), "letters": "a" * 150_000,
            "cjk": "曲美合同条款" * 20_000}[kind]
    count, tally = tokens_counted(embedder)
    chunks = chunk_section(Section(text=text, start_line=1, end_line=1), count, 256, 32)
    assert tally["chars"] <= 12 * len(text), tally
    assert all(c.tokens == embedder.count(c.text) <= 256 for c in chunks)
    covered = 0
    for chunk in chunks:  # in order, each starting inside the one before (they overlap: chunker version 6)
        assert text[chunk.offset:chunk.offset + len(chunk.text)] == chunk.text and 0 < covered - chunk.offset or \
            chunk.offset == covered == 0, (chunk.offset, covered)
        covered = chunk.offset + len(chunk.text)
    assert covered == len(text), "the chunks of a spaceless line cover it"
    assert sum(c.tokens for c in chunks) >= 0.85 * 256 * (len(chunks) - 1), "pieces are nearly full"


@pytest.mark.parametrize("body", [
    "# a" + " " * 200_000 + "b",  # a heading pattern that backtracked quadratically
    "[" * 200_000, "[[" * 100_000, "[a](" * 50_000, "](" * 100_000,  # link patterns that did too
    "[x](" + "y" * 200_000, "[[" + "z" * 200_000 + "|" * 1000, "[](" * 60_000 + ' "' + "z" * 100_000,
])
def test_pathological_markdown_parses_to_its_text_without_false_links(body):
    """Inputs that once made the parser backtrack still parse, whole and linkless. How long they take
    is measured by bench/markdown.py (seconds per MB at 1, 5 and 20 MB), not asserted here."""
    note = body + "\n\nend\n"
    doc = parse_markdown("n.md", note)
    assert doc.meta["links"] == []
    assert "\n".join(s.text for s in doc.sections).split() == note.split(), "no text lost or added"


def test_front_matter_made_of_aliases_does_not_explode():
    laughs = "---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    note = laughs + "title: *i\ntags: *h\naliases: [*a, fine]\n---\n# Heading\n\ntext\n"
    doc = parse_markdown("laughs.md", note)
    assert doc.title == "Heading" and doc.meta["aliases"] == ["fine"] and doc.meta["tags"] == []
    nested = "---\ntitle: " + "[" * 5000 + "]" * 5000 + "\n---\nbody\n"
    assert parse_markdown("deep.md", nested).sections


def test_front_matter_escapes_of_surrogates_do_not_fail_the_notes_beside_it(immediate, tmp_path):
    """YAML's "\\ud800" escape makes a lone surrogate, which UTF-8 (SQLite) cannot store: a note with one in
    its title or tags failed the whole write job, and every note written with it failed too. Lone ones now
    read as U+FFFD, and an escaped pair makes its one character."""
    root = write_tree(tmp_path / "notes", {
        "a-good.md": "# Good\n\nthe good koala\n",
        "b-odd.md": '---\ntitle: "odd \\ud800 title \\ud83d\\ude00"\ntags: ["\\udc80", fine]\n---\n# Odd\n\nwombat\n'})
    assert ingest(root)["published"]["failures"] == []
    conn = db.connect(Path(os.environ["SIFT_HOME"]) / "index.db")
    titles = {r["path"]: r["title"] for r in reader.visible_files(conn)}
    assert titles == {"a-good.md": "Good", "b-odd.md": "odd \ufffd title \U0001f600"}
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert found_by(engine, "koala", "notes") == ["a-good.md"] and found_by(engine, "wombat", "notes") == ["b-odd.md"]


def test_binary_behind_a_bom_is_skipped_and_bom_text_gets_plain_line_ends():
    from ingest.parse import decode
    assert decode("a\r\nb\rc".encode("utf-16")) == "a\nb\nc"
    assert decode("utf-32 text".encode("utf-32")) == "utf-32 text"
    with pytest.raises(Skip, match="binary"):
        decode(b"\xff\xfe\x01\x00" + bytes(64))
    with pytest.raises(Skip, match="undecodable utf-16"):
        decode(b"\xff\xfe\x00\xd8a")  # a lone surrogate


def test_a_note_of_millions_of_lines_is_read_as_plain_text_in_bounded_memory(immediate, tmp_path):
    """markdown-it keeps five numbers a line for the block it parses, and a run of blank lines or one paragraph
    is read as one block however long: a 16 MB note of blank lines took 2 GB (4 MB: 618 MB) and 50 s, one of
    8 million one-word lines 1.6 GB and 170 s, each a worker's memory for one file. Over MAX_NOTE_LINES a note is
    read as plain text: all of it is indexed, its Markdown structure (sections by heading) is not."""
    import subprocess
    import sys
    root = write_tree(tmp_path / "notes", {"ok.md": "# OK\n\nthe koala is fine\n"})
    (root / "padded.md").write_text("# Log\n" + "\n" * 4_000_000 + "the wombat came at the end\n")
    probe = ("import resource, sys; from ingest.parse import parse_file; "
             "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
             "doc = parse_file('padded.md', open(sys.argv[1], 'rb').read()); "
             "print(doc.kind, doc.meta.get('fallback'), (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)")
    out = subprocess.run([sys.executable, "-c", probe, str(root / "padded.md")], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout.strip().split(" ")
    assert int(out[-1]) < 200, f"the parse grew the process by {out[-1]} MB"
    assert out[0] == "text" and " ".join(out[1:-1]) == "read as plain text: 4,000,002 lines (over 500,000)"
    assert ingest(root)["published"]["failures"] == []
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert found_by(engine, "wombat", "notes") == ["padded.md"] and found_by(engine, "koala", "notes") == ["ok.md"]
