"""Failed jobs: transient causes are retried with backoff, permanent ones are recorded once, and
``ingest retry-failed`` queues failed files again.

huey runs in immediate mode (a queued job runs at once, in this process). The waits between tries go
through ``workers.retry.pause``, which these tests replace to see each wait without waiting it out.
The causes are real where they can be made real here: a real unreadable PDF, a file rewritten while
it is read, a write lock held by another SQLite connection. Where the test runs as root, a file's
refusal to be read is simulated at the open call (as in tests/test_hostile.py).
"""
from __future__ import annotations

import ast
import errno
import os
import sqlite3
from pathlib import Path

import pytest

from ingest import files as ingest_files
from ingest import pdf
from ingest.cli import main as ingest_main
from ingest.files import FileChanging
from search.index import db, store
from search.query import reader
from search.query.engine import Engine
from tests.conftest import ingest, write_tree
from tests.test_hostile import RewritingOpen, found_by
from workers import retry

DELAY = 0.5  # SIFT_RETRY_DELAY for these tests; nothing really waits it (see `waits`)


@pytest.fixture
def waits(immediate, monkeypatch):
    """The waits between tries, in order; none is waited out."""
    monkeypatch.setenv("SIFT_RETRY_DELAY", str(DELAY))
    monkeypatch.setenv("SIFT_RETRIES", "3")
    seen: list[float] = []
    monkeypatch.setattr(retry, "pause", seen.append)
    return seen


def index_path() -> Path:
    return Path(os.environ["SIFT_HOME"]) / "index.db"


def visible(collection: str = "notes") -> set[str]:
    return {r["path"] for r in reader.visible_files(db.connect(index_path()), collection)}


def counting(monkeypatch, module, name: str, calls: list, before=None, after=None):
    """Wrap ``module.name`` to append each call's first argument (or path) to ``calls``."""
    real = getattr(module, name)

    def wrapper(*args, **kwargs):
        calls.append(args[1] if len(args) > 1 and isinstance(args[1], str) else args[0])
        if before:
            before(len(calls))
        try:
            return real(*args, **kwargs)
        finally:
            if after:
                after(len(calls))
    monkeypatch.setattr(module, name, wrapper)


def other_connection() -> sqlite3.Connection:
    """A second connection to the index (made now, as the worker would make it)."""
    from workers import runtime
    runtime.index()
    return sqlite3.connect(index_path(), isolation_level=None)


# --- classification --------------------------------------------------------------------------------

def real_lock_error(tmp_path) -> sqlite3.OperationalError:
    path = tmp_path / "locked.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t(x)")
    holder.execute("BEGIN IMMEDIATE")
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        holder.execute("ROLLBACK")
    raise AssertionError("the second writer was not refused")


def real_corruption_error(tmp_path) -> sqlite3.DatabaseError:
    path = tmp_path / "bad.db"
    path.write_bytes(b"this is not a database at all" * 200)
    try:
        sqlite3.connect(path).execute("SELECT * FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as exc:
        return exc
    raise AssertionError("SQLite read a text file as a database")


def test_transient_and_permanent_causes_are_told_apart(tmp_path):
    transient = [real_lock_error(tmp_path), sqlite3.OperationalError("database is locked"),
                 sqlite3.OperationalError("database or disk is full"), FileChanging("kept changing"),
                 OSError(errno.EAGAIN, "Resource temporarily unavailable"), OSError(errno.ENOSPC, "No space left"),
                 OSError(errno.EBUSY, "Device or resource busy")]
    permanent = [ValueError("unreadable PDF: startxref not found"), PermissionError(errno.EACCES, "Permission denied"),
                 FileNotFoundError(errno.ENOENT, "No such file"), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"),
                 real_corruption_error(tmp_path), sqlite3.OperationalError("attempt to write a readonly database"),
                 sqlite3.IntegrityError("UNIQUE constraint failed"), db.IndexUnavailable("the index is damaged"),
                 KeyError("bug")]
    assert [retry.is_transient(e) for e in transient] == [True] * len(transient), transient
    assert [retry.is_transient(e) for e in permanent] == [False] * len(permanent), permanent
    assert retry.is_transient(wrapped(db.IndexUnavailable("locked while opening"), transient[0]))
    assert not retry.is_transient(wrapped(db.IndexUnavailable("damaged"), real_corruption_error(tmp_path)))
    assert "disk full" in retry.describe(OSError(errno.ENOSPC, "No space left on device"))
    assert retry.Policy(retries=3, delay=2).wait(0) == 2 and retry.Policy(retries=3, delay=2).wait(2) == 8


def wrapped(exc: BaseException, cause: BaseException) -> BaseException:
    """``exc`` raised from ``cause``, as db.connect raises IndexUnavailable."""
    try:
        raise exc from cause
    except BaseException as raised:  # noqa: BLE001
        return raised


def test_a_retried_discover_resumes_its_own_scan(waits, tmp_path, monkeypatch):
    """The first try claims the scan and begins a generation, then meets a transient error: the retry
    must not take its own claim for another scan's (it would wait for the periodic rescan)."""
    from workers import tasks
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe gannet dives\n"})
    real_walk, calls = tasks.walk, []

    def walk_once_busy(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
        return real_walk(*args, **kwargs)
    monkeypatch.setattr(tasks, "walk", walk_once_busy)
    published = ingest(root)["published"]
    assert len(calls) == 2 and waits == [DELAY]
    assert published is not None and visible() == {"a.md"}


# --- permanent: recorded once ------------------------------------------------------------------------

def test_unreadable_pdf_is_attempted_once_and_recorded(waits, tmp_path, monkeypatch):
    root = write_tree(tmp_path / "notes", {"good.md": "# Good\n\nthe heron stands still\n"})
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<>> garbage, no xref\n%%EOF\n")
    parsed: list[str] = []
    counting(monkeypatch, ingest_files, "parse_file", parsed)
    published = ingest(root)["published"]
    assert parsed.count("broken.pdf") == 1, "a permanent failure is not tried again"
    assert [(f["path"], f["state"], f["reason"]) for f in published["failures"]] == [
        ("broken.pdf", "failed", "unreadable PDF: " + pdf.DAMAGED.format(why="startxref not found"))]
    assert waits == []
    assert visible() == {"good.md"}


def test_a_failure_that_cannot_be_recorded_is_raised_to_huey(waits, tmp_path, monkeypatch, caplog):
    """The write fails for good and recording why fails too (simulated: a disk that stayed full past
    RECORD_PATIENCE): huey gets that error to log, as before the damaged-file stop (workers.halt) was added;
    the stop is only for a damaged index or queue (given another error, it logged "None" and swallowed it)."""
    from workers import tasks
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"})

    def refuse(*args, **kwargs):
        raise sqlite3.IntegrityError("CHECK constraint failed: simulated")

    def cannot_record(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device (simulated)")
    monkeypatch.setattr(store, "write_files", refuse)
    monkeypatch.setattr(tasks, "_record_failure", cannot_record)
    ingest(root)
    raised = [r for r in caplog.records if r.name == "huey" and r.exc_info]
    assert [type(r.exc_info[1]) for r in raised] == [OSError], [r.getMessage() for r in caplog.records]
    assert "simulated" in str(raised[0].exc_info[1])
    assert not [r for r in caplog.records if r.getMessage() == "None"]


def test_a_job_that_fails_for_good_runs_once_and_its_files_fail_with_the_reason(waits, tmp_path, monkeypatch):
    """A bug-like error in the write stage (simulated): one try, the reason recorded, the generation published."""
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n"})
    calls: list = []

    def refuse(*args, **kwargs):
        calls.append(args[1])
        raise sqlite3.IntegrityError("CHECK constraint failed: simulated")
    monkeypatch.setattr(store, "write_files", refuse)
    published = ingest(root)["published"]
    assert len(calls) == 1 and waits == []
    reasons = {f["path"]: (f["stage"], f["state"], f["reason"]) for f in published["failures"]}
    expected = ("write", "failed", "write failed: an error Sift did not expect (IntegrityError: CHECK constraint failed: "
                                   f"simulated): {retry.REPORT}")
    assert reasons == {"a.md": expected, "b.md": expected}


def test_a_job_that_fails_for_good_names_the_errors_class_in_the_workers_log(waits, tmp_path, monkeypatch, caplog):
    """A file's reason says what went wrong in words (retry.describe), and the docs send a bug report to the worker's
    log for the error's class: a job's ValueError or OSError was logged in those words alone ('write failed (not
    retried: simulated)'), its class named nowhere. The log names it; the files' reason stays in words."""
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"})

    def refuse(*args, **kwargs):
        raise ValueError("simulated")
    monkeypatch.setattr(store, "write_files", refuse)
    published = ingest(root)["published"]
    # a ValueError no reader raised (ingest.unreadable.Unreadable) is a bug's: said as Sift's, its class named
    assert [f["reason"] for f in published["failures"]] == [
        f"write failed: an error Sift did not expect (ValueError: simulated): {retry.REPORT}"]
    logged = [r.getMessage() for r in caplog.records if r.name == "sift.workers" and "simulated" in r.getMessage()]
    assert logged and all("ValueError: simulated" in line for line in logged), logged


# --- transient: retried with backoff ------------------------------------------------------------------

def test_file_rewritten_while_read_is_retried_with_backoff_and_indexed(waits, tmp_path, monkeypatch):
    root = write_tree(tmp_path / "notes", {"log.md": "# Log\n\nfirst draft about puffins\n"})
    final = b"# Log\n\nthe final text is about kittiwakes\n"
    # Two whole tries see it change at every read; the third finds it settled.
    versions = [f"# Log\n\ndraft {n} {'x' * n}\n".encode() for n in range(2 * ingest_files.READ_ATTEMPTS - 1)]
    opener = RewritingOpen(root / "log.md", versions + [final], replace=False)
    monkeypatch.setattr(ingest_files, "open", opener, raising=False)
    published = ingest(root)["published"]
    assert published["failures"] == []
    assert waits == [DELAY, 2 * DELAY], "retried twice, the second wait twice as long"
    assert opener.reads == 2 * ingest_files.READ_ATTEMPTS + 1
    engine = Engine(index_path())
    assert found_by(engine, "kittiwakes", "notes") == ["log.md"] and found_by(engine, "puffins", "notes") == []


def locked_write(tmp_path, monkeypatch):
    """A note to index, a second connection, the write stage's calls, and a hook that makes that
    connection take the write lock as the first write begins (busy timeout cut to 0.2 s)."""
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 200)
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nthe albatross glides\n"})
    holder = other_connection()

    def lock_first(n):
        if n == 1:
            holder.execute("BEGIN IMMEDIATE")
    return root, holder, [], lock_first


def test_index_locked_by_another_connection_is_retried_then_written(waits, tmp_path, monkeypatch):
    """Another process holds the write lock for a moment: the write stage meets 'database is locked'
    (its busy timeout cut to 0.2 s here), waits, and succeeds on the next try."""
    root, holder, calls, lock_first = locked_write(tmp_path, monkeypatch)
    counting(monkeypatch, store, "write_files", calls, before=lock_first)
    monkeypatch.setattr(retry, "pause", lambda s: (waits.append(s), holder.execute("COMMIT")))
    published = ingest(root)["published"]
    assert len(calls) == 2 and waits == [DELAY]
    assert published["failures"] == [] and visible() == {"a.md"}
    assert found_by(Engine(index_path()), "albatross", "notes") == ["a.md"]


def test_lock_held_past_every_try_fails_with_the_reason_then_retry_failed_indexes(waits, tmp_path, monkeypatch,
                                                                                   capsys):
    root, holder, calls, lock_first = locked_write(tmp_path, monkeypatch)

    def release_after_last(n):
        if n == 4:  # the first try and three retries all met the lock; then it goes
            holder.execute("COMMIT")
    counting(monkeypatch, store, "write_files", calls, before=lock_first, after=release_after_last)
    published = ingest(root)["published"]
    assert len(calls) == 4 and waits == [DELAY, 2 * DELAY, 4 * DELAY]
    [failure] = published["failures"]
    assert failure["path"] == "a.md" and failure["state"] == "failed"
    assert failure["reason"] == "write failed: the index stayed busy (database is locked) (tried 4 times)"
    assert visible() == set()

    assert ingest_main(["stats"]) == 0
    assert "a.md: failed at write: write failed: the index stayed busy (database is locked) (tried 4 times)" \
        in capsys.readouterr().out
    assert ingest_main(["retry-failed"]) == 0
    out = capsys.readouterr().out
    assert "notes: queued a scan that retries 1 failed file" in out and "  a.md  (failed at write:" in out
    assert visible() == {"a.md"} and len(calls) == 5


# --- ingest retry-failed ---------------------------------------------------------------------------------

def test_retry_failed_indexes_a_file_once_its_cause_is_fixed(waits, tmp_path, monkeypatch, capsys):
    root = write_tree(tmp_path / "notes", {"open.md": "# Open\n\nan open koala\n",
                                           "closed.md": "# Closed\n\nthe wombat was locked away\n"})
    (root / "closed.md").chmod(0)
    if os.access(root / "closed.md", os.R_OK):  # root reads anything: the OS's refusal is simulated
        real_open = os.open

        def refusing_open(path, flags, *args, **kwargs):
            if str(path).endswith("closed.md") and (root / "closed.md").stat().st_mode & 0o777 == 0:
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real_open(path, flags, *args, **kwargs)
        monkeypatch.setattr(ingest_files.os, "open", refusing_open)
    published = ingest(root)["published"]
    assert [(f["path"], f["reason"]) for f in published["failures"]] == [("closed.md", "no permission to read the file")]
    assert waits == [], "no permission is permanent: not retried"

    assert ingest_main(["retry-failed", "nope"]) == 2
    assert "no collection named 'nope'; collections: notes" in capsys.readouterr().err
    (root / "closed.md").chmod(0o644)
    assert ingest_main(["retry-failed", "notes"]) == 0
    out = capsys.readouterr().out
    assert "notes: queued a scan that retries 1 failed file" in out
    assert "  closed.md  (failed at parse: no permission to read the file)" in out
    assert visible() == {"open.md", "closed.md"}
    assert found_by(Engine(index_path()), "wombat", "notes") == ["closed.md"]
    assert ingest_main(["retry-failed"]) == 0
    assert capsys.readouterr().out.strip() == "no failed files"


@pytest.mark.parametrize("args", [(), ("notes",)])
def test_retry_failed_without_an_index_says_so_and_makes_nothing(sift_env, tmp_path, args):
    """It made index.db (and the home, and the queue) to report 'no failed files' in a home never used."""
    from tests.conftest import run_ingest
    home = Path(sift_env["SIFT_HOME"])
    assert not home.exists()
    result = run_ingest(sift_env, "retry-failed", *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"nothing to retry: no index yet at {home / 'index.db'} (ingest enqueue PATH makes one)\n"
    assert not home.exists(), sorted(home.rglob("*"))


# --- one retry helper ---------------------------------------------------------------------------------

def test_waiting_for_disk_space_to_record_a_failure_goes_through_the_one_pause(waits, tmp_path, monkeypatch):
    """A job fails for good, and the disk is full when its failure is first recorded (simulated at the
    write of the 'failed' state): the wait for space is the retry helper's, so the patched pause sees it
    (2 s, then twice as long) and nothing sleeps; the failure is recorded on the third try."""
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"})
    monkeypatch.setattr(store, "write_files", lambda *a, **k: (_ for _ in ()).throw(
        sqlite3.IntegrityError("CHECK constraint failed: simulated")))
    real_mark, refused = store.mark, []

    def full_twice(conn, gen, paths, stage, state, *args, **kwargs):
        if state == "failed" and len(refused) < 2:
            refused.append(stage)
            raise sqlite3.OperationalError("database or disk is full")
        return real_mark(conn, gen, paths, stage, state, *args, **kwargs)
    monkeypatch.setattr(store, "mark", full_twice)
    published = ingest(root)["published"]
    assert refused == ["write", "write"] and waits == [2.0, 4.0]
    assert [(f["path"], f["state"]) for f in published["failures"]] == [("a.md", "failed")]


def test_the_retry_schedules(monkeypatch):
    """The record-failure wait lasts 300 s in all (2, 4, 8, 16, then 30 s each); the supervisor's restart
    backoff is the same helper's schedule: 1, 2, 4 … at most 60 s."""
    from mcp_server import worker
    from workers import tasks
    record = tasks.RECORD_POLICY
    assert [record.wait(r) for r in range(6)] == [2, 4, 8, 16, 30, 30]
    assert sum(record.wait(r) for r in range(record.retries)) == tasks.RECORD_PATIENCE
    assert [worker.RESTART.wait(r) for r in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]
    seen: list[float] = []
    monkeypatch.setattr(retry, "pause", seen.append)
    tried = [(t.number, t.last) for t in retry.tries(retry.Policy(retries=2, delay=0.5))]
    assert tried == [(1, False), (2, False), (3, True)]
    assert seen == [0.5, 1.0], "a pause before each retry, none after the last"


def test_every_wait_in_the_workers_goes_through_the_retry_pause():
    """No loop in workers/ sleeps by itself (a test's patched pause would never reach it): time.sleep is
    called only by retry.pause, and by the fault-injection hook of tests/test_crash.py."""
    allowed = {("retry.py", "pause"), ("tasks.py", "_fault_pause_discover")}
    found = set()
    for path in sorted(Path(retry.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.Attribute) and node.attr in ("sleep", "wait") and \
                            isinstance(node.value, ast.Name) and node.value.id == "time":
                        found.add((path.name, fn.name))
    assert found == allowed
