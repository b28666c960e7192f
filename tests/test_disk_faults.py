"""Disk and database trouble: a full disk, a read-only index folder, a damaged index.db.

- **Full disk**: real. A tmpfs of 32 MiB is mounted for the test (``mount -t tmpfs -o size=32m``) and
  holds SIFT_HOME (index and queue); a file made with ``posix_fallocate`` takes its free space. Mounting
  needs root or CAP_SYS_ADMIN: without it the test is skipped with a message. A real ``huey_consumer``
  (one worker process) does the ingestion.
- **Read-only folder**: real. When the tests run as root, every command runs under ``setpriv`` without
  CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH (as in tests/test_hostile.py), so mode 555 really refuses writes.
- **Damaged index.db**: an index built here, then truncated to half, a fifth of it overwritten with
  random bytes, or replaced by a text file. Every command and MCP tool must say so in one line, naming
  the file and the fix, and nothing may change the file.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from search.index import db, space
from search.query import reader
from search.query.engine import Engine
from tests.conftest import Consumer, REPO, VENV_BIN, ingest, wait_published, write_tree
from tests.test_hostile import reading_denied_prefix

DEADLINE = 900  # seconds: a safety net against a hung test, never a speed assertion
A_NOTES = {f"n{i}.md": f"# Note {i}\n\nthe aardvark number {i} digs at night\n" for i in range(5)}


def run(env: dict, *argv: str, prefix: list[str] = (), timeout: float = DEADLINE) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, *argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


def ingest_cmd(env: dict, *args: str, prefix: list[str] = ()) -> subprocess.CompletedProcess:
    return run(env, str(VENV_BIN / "ingest"), *args, prefix=prefix)


def one_error_line(result: subprocess.CompletedProcess, start: str) -> str:
    """The command failed with exactly one line on stderr, starting with ``start``, and no traceback."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and 'File "' not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(start), result.stderr
    return lines[0]


def wait_for(what, limit: float = DEADLINE, proc=None):
    deadline = time.time() + limit
    while time.time() < deadline:
        value = what()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("the consumer died")
        time.sleep(0.3)
    raise TimeoutError(f"waited {limit} s")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- a full disk ------------------------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(mount)], capture_output=True,
                          text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {made.stderr.strip()}")
    try:
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(disk: Path, leave: int = 0) -> Path:
    """Take all of the disk's free space but ``leave`` bytes, with one real (not sparse) file."""
    filler = disk / "filler"
    with open(filler, "ab") as handle:
        free = space.free_bytes(disk)
        if free > leave:
            os.posix_fallocate(handle.fileno(), os.fstat(handle.fileno()).st_size, free - leave)
    return filler


def leave_free(filler: Path, nbytes: int) -> None:
    os.truncate(filler, max(0, filler.stat().st_size - nbytes))


def big_notes(n: int, words: int) -> dict[str, str]:
    rng = random.Random(7)
    vocabulary = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 9)))
                  for _ in range(5000)]
    return {f"big{i:02d}.md": f"# Big {i}\n\nbison\n\n" + " ".join(rng.choice(vocabulary) for _ in range(words))
            + "\n" for i in range(n)}


def disk_full_failures(conn, collection: str) -> list[dict]:
    rows = conn.execute(
        "SELECT p.path, p.stage, p.state, p.reason FROM progress p JOIN generations g ON g.id = p.generation "
        "JOIN collections c ON c.id = g.collection WHERE c.name = ? AND p.state = 'failed' "
        "AND g.id = (SELECT max(id) FROM generations WHERE collection = c.id)", (collection,)).fetchall()
    return [dict(r) for r in rows if "disk full" in (r["reason"] or "")]


def keyword_paths(engine: Engine, word: str) -> list[str]:
    return sorted(f"{h.collection}/{h.path}" for h in engine.search(word, mode="keyword", limit=50).hits)


@pytest.mark.slow
def test_full_disk_fails_with_a_reason_keeps_the_published_generation_and_recovers(sift_env, tmp_path, small_disk):
    home = small_disk / "home"
    index = home / "index.db"
    env = {**sift_env, "SIFT_HOME": str(home), "SIFT_EMBEDDINGS": "off", "SIFT_RETRY_DELAY": "0.2",
           "SIFT_RETRIES": "2"}
    a = write_tree(tmp_path / "a", A_NOTES)
    # 4 notes of about 150 KB, each over JOB_BYTES and so a job of its own: the scan queues 4 jobs (its plan
    # and their queue rows fit in the room left below), and each job carries more than that room
    b = write_tree(tmp_path / "b", big_notes(4, 20000))
    worker = Consumer(env, workers=1, log=tmp_path / "consumer.log")
    try:
        assert ingest_cmd(env, "enqueue", str(a), "--name", "a", "--wait").returncode == 0
        conn = db.connect(index, readonly=True)
        first = wait_published(conn, "a", None, worker.proc)
        assert (home / space.RESERVE_NAME).stat().st_size == space.RESERVE_BYTES, "room kept to record failures"

        # Completely full: queuing says so in one line; stats says so too.
        filler = fill(small_disk)
        one_error_line(ingest_cmd(env, "enqueue", str(b), "--name", "b"),
                       f"ingest: error: the disk holding {home} is full (database or disk is full): free some space")
        stats = ingest_cmd(env, "stats")
        assert stats.returncode == 0 and f"disk full: 0 KiB free on the disk holding {home}" in stats.stdout

        # Room to queue the scan, not for the files: the jobs fail, are retried, and their reason is recorded.
        leave_free(filler, 128 * 1024)
        assert ingest_cmd(env, "enqueue", str(b), "--name", "b").returncode == 0
        failures = wait_for(lambda: disk_full_failures(conn, "b"), proc=worker.proc)
        for f in failures:
            assert f["reason"].endswith("disk full (database or disk is full): free some space, then run "
                                        "`ingest retry-failed` (tried 3 times)"), f
        stats = ingest_cmd(env, "stats")
        assert stats.returncode == 0 and "Traceback" not in stats.stderr
        assert f"    {failures[0]['path']}: failed at {failures[0]['stage']}: {failures[0]['reason']}" in stats.stdout

        # The published generation of 'a' still answers, through the CLI and the Engine API.
        found = ingest_cmd(env, "search", "aardvark", "--mode", "keyword")
        assert found.returncode == 0 and all(f"a/{p}:" in found.stdout for p in A_NOTES), found.stdout
        answer = Engine(index).search("aardvark", mode="keyword", limit=50)
        assert sorted(h.path for h in answer.hits) == sorted(A_NOTES) and answer.generations["a"] == first
        assert worker.proc.poll() is None, "the worker keeps running"

        # Space back: what was queued finishes, and retry-failed indexes the files that failed.
        filler.unlink()
        failed_gen = wait_published(conn, "b", None, worker.proc)
        again = ingest_cmd(env, "retry-failed", "b")
        assert again.returncode == 0 and "b: queued a scan that retries" in again.stdout, again
        wait_published(conn, "b", failed_gen, worker.proc)
        assert {r["path"] for r in reader.visible_files(conn, "b")} == set(big_notes(4, 1))
        assert disk_full_failures(conn, "b") == []
        assert keyword_paths(Engine(index), "bison") == sorted(f"b/{p}" for p in big_notes(4, 1))
        assert worker.proc.poll() is None
    finally:
        worker.stop()
    log = (tmp_path / "consumer.log").read_text(errors="replace")
    assert "failed after 3 tries: disk full" in log and f"released {home / space.RESERVE_NAME}" in log


# --- a read-only index folder ------------------------------------------------------------------------------

def denied_prefix() -> list[str]:
    prefix = reading_denied_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv: a read-only folder cannot be made to refuse root")
    return prefix


def read_only_line(index: Path) -> str:
    home = index.parent
    return (f"the index at {index} is read-only (cannot write in {home}): make {home} and the files in it "
            "writable (chmod u+w), or point SIFT_HOME (--home) at a writable folder")


@contextlib.contextmanager
def read_only(folder: Path):
    folder.chmod(0o555)
    try:
        yield folder
    finally:
        folder.chmod(0o755)


@pytest.fixture
def keyword_env(sift_env, monkeypatch) -> dict:
    """A keyword-only index (no embedding work): the faults here are about the file, not the model."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    return {**sift_env, "SIFT_EMBEDDINGS": "off"}


def built_index(root: Path, name: str = "a") -> Path:
    """Index ``root`` in immediate mode and close every connection (no -wal or -shm is left)."""
    from workers import runtime
    ingest(root, name)
    runtime.reset()
    index = Path(os.environ["SIFT_HOME"]) / "index.db"
    assert not Path(f"{index}-wal").exists() and not Path(f"{index}-shm").exists()
    return index


def test_read_only_index_folder_refuses_writes_clearly_and_still_answers(immediate, keyword_env, tmp_path):
    sift_env = keyword_env
    prefix = denied_prefix()
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    home = index.parent
    files, before = sorted(os.listdir(home)), digest(index)
    with read_only(home):
        line = read_only_line(index)
        one_error_line(ingest_cmd(sift_env, "enqueue", str(a), "--name", "a", prefix=prefix), f"ingest: error: {line}")
        one_error_line(ingest_cmd(sift_env, "retry-failed", prefix=prefix), f"ingest: error: {line}")
        worker = run(sift_env, str(VENV_BIN / "huey_consumer"), "workers.app.huey", "-k", "process", "-w", "1",
                     prefix=prefix)
        assert worker.returncode == 2 and f"sift worker: error: {line}" in worker.stderr, worker.stderr
        assert "Traceback" not in worker.stderr

        # SQLite reads a WAL index through <index>-shm, which it cannot create here; with nothing left in
        # a -wal file, the index is read as immutable, so searches and stats still work.
        found = ingest_cmd(sift_env, "search", "aardvark", "--mode", "keyword", prefix=prefix)
        assert found.returncode == 0 and all(f"a/{p}:" in found.stdout for p in A_NOTES), found.stderr
        stats = ingest_cmd(sift_env, "stats", prefix=prefix)
        assert stats.returncode == 0 and "5 files, 5 chunks searchable" in stats.stdout, stats.stderr
        results = mcp_calls(sift_env, prefix, tmp_path, ("search", {"query": "aardvark", "mode": "keyword"}))
        assert not results[0].is_error
        assert {r["path"] for r in results[0].structured_content["results"]} == {f"a/{p}" for p in A_NOTES}
        assert sorted(os.listdir(home)) == files and digest(index) == before, "nothing was written"


def test_read_only_folder_with_unfinished_wal_says_what_to_do(immediate, keyword_env, tmp_path):
    """A -wal file left behind (a writer that was killed) and no -shm: SQLite cannot read it from a
    read-only folder at all; every reader says so, and how to fix it."""
    prefix = denied_prefix()
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    writer = db.connect(index)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE collections SET changes_noticed = 1")  # something only the -wal holds
    shutil.copy(index, crashed / "index.db")
    shutil.copy(f"{index}-wal", crashed / "index.db-wal")
    writer.close()
    env = {**keyword_env, "SIFT_HOME": str(crashed)}
    with read_only(crashed):
        expected = (f"ingest: error: cannot read the index at {crashed / 'index.db'}: its folder {crashed} is "
                    f"read-only and SQLite must create index.db-shm there to read the changes still in index.db-wal: "
                    f"make the folder writable (chmod u+w {crashed}) and search again")
        assert one_error_line(ingest_cmd(env, "search", "aardvark", prefix=prefix), expected) == expected
        assert one_error_line(ingest_cmd(env, "stats", prefix=prefix), expected) == expected
    found = ingest_cmd(env, "search", "aardvark", "--mode", "keyword", prefix=prefix)
    assert found.returncode == 0 and "a/n0.md" in found.stdout, "readable again once the folder is writable"


def home_files(home: Path) -> dict[str, str]:
    return {name: digest(home / name) for name in sorted(os.listdir(home))}


@contextlib.contextmanager
def read_only_home(home: Path):
    """The home folder and every file in it chmod a-w, as the brief of a read-only home has it."""
    for file in home.iterdir():
        file.chmod(0o444)
    with read_only(home):
        yield home
    for file in home.iterdir():
        file.chmod(0o644)


def test_stats_on_a_read_only_home_read_the_real_queue(immediate, keyword_env, tmp_path):
    """`ingest stats` and the MCP stats tool on a read-only home show the jobs waiting in the real SQLite queue
    (made by a real `ingest enqueue` after a real consumer ran) and that a worker was seen, read without
    writing anything; huey's own connection, which writes as it connects, answered `?` there."""
    prefix = denied_prefix()
    index = built_index(write_tree(tmp_path / "a", A_NOTES))
    home = index.parent
    worker = Consumer(keyword_env, workers=1)  # it records in the queue that a worker is here, then stops
    wait_for(lambda: queue_has(home / "queue.db", "sift.worker.seen"), proc=worker.proc)
    worker.stop()
    b = write_tree(tmp_path / "b", {"b.md": "# B\n\nbadger\n"})
    assert ingest_cmd(keyword_env, "enqueue", str(b), "--name", "b").returncode == 0  # no worker: it waits
    writable = json.loads(ingest_cmd(keyword_env, "stats", "--json").stdout)
    assert writable["queue_pending"] >= 1 and "queue_error" not in writable
    before = home_files(home)
    with read_only_home(home):
        stats = ingest_cmd(keyword_env, "stats", prefix=prefix)
        assert stats.returncode == 0, stats.stderr
        assert f"jobs in queue: {writable['queue_pending']}\n" in stats.stdout, stats.stdout
        assert "is a worker running?" not in stats.stdout, stats.stdout  # the worker's record was read too
        as_json = json.loads(ingest_cmd(keyword_env, "stats", "--json", prefix=prefix).stdout)
        assert as_json["queue_pending"] == writable["queue_pending"] and "queue_error" not in as_json
        # b's scan waits, read from the read-only queue too (workers.queue_reader.at_priorities)
        waiting = {c["name"]: c["queued_scan"] for c in as_json["collections"]}
        assert waiting["b"]["jobs_ahead"] == writable["queue_pending"] - 1 and "waiting_error" not in as_json
        assert waiting == {c["name"]: c["queued_scan"] for c in writable["collections"]}
        assert "\n  waiting: a scan is queued" in stats.stdout, stats.stdout
        tool, = mcp_calls(keyword_env, prefix, tmp_path, ("stats", {}))
        assert tool.structured_content["queue_pending"] == writable["queue_pending"]
        assert f"jobs in queue: {writable['queue_pending']}\n" in "\n".join(b.text for b in tool.content)
        assert home_files(home) == before, "nothing in the home was made or changed"


def test_stats_on_a_read_only_home_say_why_jobs_left_in_the_queue_wal_cannot_be_read(immediate, keyword_env,
                                                                                       tmp_path):
    """A queue.db-wal still holding jobs (its writer killed) cannot be read from a read-only folder, where
    SQLite cannot make queue.db-shm: the queue line says so and how to fix it, in one line, not `?`."""
    prefix = denied_prefix()
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    queue = index.parent / "queue.db"
    # the queue, empty, in WAL mode, made as a worker makes it (`ingest stats` reads it without huey now, making none)
    made = run(keyword_env, str(VENV_BIN / "python"), "-c", "from workers.app import huey; huey.pending_count()")
    assert made.returncode == 0 and queue.exists(), made.stderr
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    import sqlite3
    writer = sqlite3.connect(queue, isolation_level=None)  # kept open: the -wal is not checkpointed away
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    assert writer.execute("SELECT count(*) FROM task").fetchone()[0] == 0
    assert ingest_cmd(keyword_env, "enqueue", str(a), "--name", "a").returncode == 0  # a job only the -wal has
    for name in ("index.db", "queue.db", "queue.db-wal"):
        shutil.copy(index.parent / name, crashed / name)
    writer.close()
    assert (crashed / "queue.db-wal").stat().st_size > 0
    env = {**keyword_env, "SIFT_HOME": str(crashed)}
    before = home_files(crashed)
    with read_only_home(crashed):
        stats = ingest_cmd(env, "stats", prefix=prefix)
        queue_line = next(line for line in stats.stdout.splitlines() if "jobs in queue:" in line)
        assert stats.returncode == 0 and "5 files, 5 chunks searchable" in stats.stdout, stats.stderr
        assert queue_line.endswith(
            f"jobs in queue: unknown (the queue cannot be read: cannot read the queue at {crashed / 'queue.db'}: "
            f"its folder {crashed} is read-only and SQLite must create queue.db-shm there to read the jobs still "
            f"in queue.db-wal: make the folder writable (chmod u+w {crashed}) and ask again)"), queue_line
        assert home_files(crashed) == before
    assert "jobs in queue: 1\n" in ingest_cmd(env, "stats", prefix=prefix).stdout, "read once writable again"


def queue_has(queue: Path, key: str) -> bool:
    import sqlite3
    if not queue.exists():
        return False
    with contextlib.closing(sqlite3.connect(f"file:{queue}?mode=ro", uri=True)) as conn:
        try:
            return conn.execute("SELECT count(*) FROM kv WHERE key = ?", (key,)).fetchone()[0] > 0
        except sqlite3.OperationalError:
            return False


# --- a damaged index.db -----------------------------------------------------------------------------------

def damage(index: Path, how: str) -> None:
    size = index.stat().st_size
    if how == "truncated":
        os.truncate(index, size // 2)
    elif how == "garbage":
        with open(index, "r+b") as handle:
            handle.seek(int(size * 0.4))
            handle.write(random.Random(3).randbytes(int(size * 0.2)))
    else:
        index.write_text("these are my notes, not a database\n" * 100)


FIX = ("); Sift leaves it as it is. Restore it from a backup, or delete it (with index.db-wal and index.db-shm "
       "beside it) and run `ingest enqueue FOLDER --name NAME` again for each collection to rebuild it (with its "
       "name, so that its paths read as before)")


@pytest.mark.parametrize("how", ["truncated", "garbage", "not-sqlite"])
def test_damaged_index_is_reported_clearly_and_left_as_it_is(immediate, keyword_env, tmp_path, how):
    """Writers check the file before writing (PRAGMA quick_check) and refuse it. Readers say the index is
    damaged as soon as they meet the damage: a truncated file or not a database at once (SQLite checks the size
    against the header), so nothing answers from it, as the README says; overwritten pages only where read."""
    a = write_tree(tmp_path / "a", {**A_NOTES, **big_notes(40, 300)})
    index = built_index(a)
    damage(index, how)
    before = digest(index)
    start = f"ingest: error: the index at {index} is damaged ("
    for args in (("enqueue", str(a), "--name", "a"), ("retry-failed",)):
        assert one_error_line(ingest_cmd(keyword_env, *args), start).endswith(FIX)
    worker = run(keyword_env, str(VENV_BIN / "huey_consumer"), "workers.app.huey", "-k", "process", "-w", "1")
    assert worker.returncode == 2 and f"sift worker: error: the index at {index} is damaged (" in worker.stderr
    assert "Traceback" not in worker.stderr

    refused = []
    for args in (("search", "aardvark", "--mode", "keyword"), ("search", "bison", "--limit", "50"), ("stats",)):
        result = ingest_cmd(keyword_env, *args)
        if result.returncode == 0:  # what it read was intact: then the answer is right
            assert "Traceback" not in result.stderr
            assert args[0] == "stats" or all(f"a/{p}:" in result.stdout for p in (A_NOTES if args[1] == "aardvark"
                                                                                  else big_notes(40, 1))), result.stdout
        else:
            refused.append(one_error_line(result, start))
            assert refused[-1].endswith(FIX)
    if how == "not-sqlite":
        assert refused == [f"{start}file is not a database{FIX}"] * 3
    elif how == "truncated":
        assert refused == [f"{start}database disk image is malformed{FIX}"] * 3
    else:
        assert refused, "reading met the damage somewhere and said so"

    results = mcp_calls(keyword_env, [], tmp_path, ("search", {"query": "bison", "mode": "keyword", "limit": 50}),
                        ("stats", {}), ("list_files", {"limit": 500}))
    errors = ["\n".join(block.text for block in r.content) for r in results if r.is_error]
    for message in errors:
        assert f"the index at {index} is damaged (" in message and "ingest enqueue FOLDER" in message, message
        assert "Traceback" not in message and "nothing is indexed yet" not in message
    assert errors, "the server said so too"
    if how != "garbage":
        assert len(errors) == 3, "no tool answers from a truncated file or one that is not a database"
    assert digest(index) == before, "nothing wrote over the damaged file"


# --- the MCP server, driven over stdio ----------------------------------------------------------------------

def mcp_calls(env: dict, prefix: list[str], tmp_path: Path, *calls: tuple[str, dict]) -> list:
    """Start ``sift-mcp --no-worker`` (under ``prefix``) with the real stdio client; make ``calls``."""
    command = [*prefix, str(VENV_BIN / "sift-mcp"), "--no-worker"]
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)

    async def scenario():
        with open(tmp_path / "server-stderr.log", "a") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return [await session.call_tool(name, arguments) for name, arguments in calls]
    return anyio.run(scenario)


# --- a damaged queue.db -----------------------------------------------------------------------------------

QUEUE_FIX = ("it holds only jobs waiting to run, nothing indexed or published. Stop the workers, delete it (with "
             "queue.db-wal and queue.db-shm beside it) and start a worker again: it queues again what the index "
             "records as unfinished; `ingest enqueue FOLDER` queues a new scan")


@pytest.mark.parametrize("how", ["random-bytes", "not-sqlite"])
def test_damaged_queue_is_named_as_the_queue_and_the_index_is_left_alone(immediate, keyword_env, tmp_path, how):
    """A queue.db that is not a database any more: every command that queues, the worker and the MCP tools
    name the queue (never the index, whose advice is to delete index.db) and the fix; stats and searches
    still answer from the published generation, and neither file is changed."""
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    queue = index.parent / "queue.db"
    for extra in ("-wal", "-shm"):
        Path(f"{queue}{extra}").unlink(missing_ok=True)
    if how == "random-bytes":
        queue.write_bytes(random.Random(5).randbytes(8192))
    else:
        queue.write_text("these are my notes, not a database\n" * 100)
    before = digest(index), digest(queue)
    start = f"the queue at {queue} is damaged ("

    line = one_error_line(ingest_cmd(keyword_env, "enqueue", str(a), "--name", "a"), f"ingest: error: {start}")
    assert line.endswith(QUEUE_FIX) and "the index at" not in line, line
    worker = run(keyword_env, str(VENV_BIN / "huey_consumer"), "workers.app.huey", "-k", "process", "-w", "1")
    assert worker.returncode == 2 and f"sift worker: error: {start}" in worker.stderr, worker.stderr
    assert "Traceback" not in worker.stderr and "the index at" not in worker.stderr
    stats = ingest_cmd(keyword_env, "stats")
    assert stats.returncode == 0 and "5 files, 5 chunks searchable" in stats.stdout, stats.stderr
    assert f"the queue cannot be read: {start}" in stats.stdout, stats.stdout
    found = ingest_cmd(keyword_env, "search", "aardvark", "--mode", "keyword")
    assert found.returncode == 0 and all(f"a/{p}:" in found.stdout for p in A_NOTES), found.stderr

    refresh, search, stats = mcp_calls(keyword_env, [], tmp_path, ("refresh", {}),
                                       ("search", {"query": "aardvark", "mode": "keyword"}), ("stats", {}))
    said = "\n".join(block.text for block in refresh.content)
    assert refresh.is_error and start in said and said.endswith(QUEUE_FIX) and "the index at" not in said, said
    assert not search.is_error
    assert {r["path"] for r in search.structured_content["results"]} == {f"a/{p}" for p in A_NOTES}
    assert not stats.is_error and start in "\n".join(block.text for block in stats.content)
    assert (digest(index), digest(queue)) == before, "neither file was written over"


def test_read_only_queue_file_is_named_as_the_queue(immediate, keyword_env, tmp_path):
    """queue.db alone read-only (restored from a backup as another user, say) in a writable home: enqueue names
    the queue, not the index, and a worker refuses to start instead of failing to take every job."""
    prefix = denied_prefix()
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    queue = index.parent / "queue.db"
    from workers.app import make_huey
    make_huey().storage.close()  # the queue file exists, as after any enqueue
    assert queue.exists()
    queue.chmod(0o444)
    line = (f"the queue at {queue} is read-only ({queue} is not writable): make it and {index.parent} writable "
            "(chmod u+w), or point SIFT_HOME (--home) at a writable folder")
    assert one_error_line(ingest_cmd(keyword_env, "enqueue", str(a), "--name", "a", prefix=prefix),
                          "ingest: error: the queue at ") == f"ingest: error: {line}"
    worker = run(keyword_env, str(VENV_BIN / "huey_consumer"), "workers.app.huey", "-k", "process", "-w", "1",
                 prefix=prefix, timeout=120)
    assert worker.returncode == 2 and f"sift worker: error: {line}" in worker.stderr, worker.stderr
    assert "Traceback" not in worker.stderr


@pytest.mark.timeout(300)
def test_the_watcher_outlives_a_damaged_queue_and_queues_once_it_is_replaced(immediate, keyword_env, tmp_path):
    """The file watcher asks for scans through the queue: a damaged queue.db is logged (naming the queue) and
    asked again each tick, and the watcher keeps running; once the file is deleted, the scan is queued."""
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    queue = index.parent / "queue.db"
    for extra in ("", "-wal", "-shm"):
        Path(f"{queue}{extra}").unlink(missing_ok=True)
    queue.write_bytes(random.Random(5).randbytes(8192))
    log = tmp_path / "watcher.log"
    with open(log, "wb") as out:
        watcher = subprocess.Popen([str(VENV_BIN / "python"), "-m", "workers.watch"], cwd=REPO, env=keyword_env,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: f"the queue at {queue} is damaged (" in log.read_text(), limit=120, proc=watcher)
        time.sleep(2)
        assert watcher.poll() is None, log.read_text()
        assert "Traceback" not in log.read_text()
        queue.unlink()
        wait_for(lambda: "queued a scan of collection" in log.read_text(), limit=120, proc=watcher)
    finally:
        watcher.terminate()
        watcher.wait(timeout=30)


def test_reading_an_index_on_a_full_disk_with_no_shm_says_the_disk_is_full(sift_env, tmp_path, small_disk):
    """Every process closed (no index.db-shm left), then the disk fills: SQLite must make index.db-shm to read
    a WAL index and cannot, and readers said only 'disk I/O error'. They now say the disk is full, where,
    and what to do; the index is unchanged."""
    home = small_disk / "home"
    index = home / "index.db"
    env = {**sift_env, "SIFT_HOME": str(home), "SIFT_EMBEDDINGS": "off", "SIFT_QUEUE_IMMEDIATE": "1"}
    a = write_tree(tmp_path / "a", A_NOTES)
    assert ingest_cmd(env, "enqueue", str(a), "--name", "a").returncode == 0
    assert not Path(f"{index}-shm").exists()
    env.pop("SIFT_QUEUE_IMMEDIATE")
    before = digest(index)
    fill(small_disk)
    line = (f"cannot read the index at {index}: the disk holding {home} is full, and SQLite needs a little room "
            f"there (index.db-shm) to read it: free some space, then search again")
    for args in (("search", "aardvark", "--mode", "keyword"), ("stats",)):
        assert one_error_line(ingest_cmd(env, *args), "ingest: error: ") == f"ingest: error: {line}"
    result, = mcp_calls(env, [], tmp_path, ("search", {"query": "aardvark", "mode": "keyword"}))
    assert result.is_error and "\n".join(b.text for b in result.content).endswith(line)
    assert digest(index) == before


def test_compact_says_first_how_much_room_it_needs_and_changes_nothing_without_it(sift_env, tmp_path, small_disk):
    """`ingest compact` (a VACUUM) writes the index's pages in use twice, to SQLite's temporary copy and to the
    index's WAL. Started without that room it ran until the disk filled, then SQLite rolled it back and the
    command said only that the disk was full; and on a disk already full it said 'disk I/O error'. It now says
    how much room it needs, where, and changes nothing; with the room, it compacts."""
    home = small_disk / "home"
    index = home / "index.db"
    temp = small_disk / "tmp"  # SQLite's temporary copy on the same disk: both writes count
    temp.mkdir()
    env = {**sift_env, "SIFT_HOME": str(home), "SIFT_EMBEDDINGS": "off", "SQLITE_TMPDIR": str(temp)}
    b = write_tree(tmp_path / "b", big_notes(6, 20000))
    assert ingest_cmd({**env, "SIFT_QUEUE_IMMEDIATE": "1"}, "enqueue", str(b), "--name", "b").returncode == 0
    conn = sqlite3.connect(index)
    in_use = (conn.execute("PRAGMA page_count").fetchone()[0] - conn.execute("PRAGMA freelist_count").fetchone()[0]) \
        * conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    assert in_use > 3 * 1024 * 1024, in_use
    filler = fill(small_disk)
    full = one_error_line(ingest_cmd(env, "compact"), "ingest: error: ")
    assert f"the disk holding {home} is full" in full and "free some space" in full, full
    leave_free(filler, in_use + in_use // 2)  # more than one copy, less than two
    before = digest(index)
    line = one_error_line(ingest_cmd(env, "compact"), "ingest: error: compacting needs about ")
    assert f"free on the disk holding {home}" in line and str(temp) in line and line.endswith("Nothing was changed")
    assert digest(index) == before and not any(temp.iterdir())
    found = ingest_cmd(env, "search", "bison", "--mode", "keyword")
    assert found.returncode == 0 and "big00.md" in found.stdout, found
    leave_free(filler, 2 * in_use + space.RESERVE_BYTES)
    done = ingest_cmd(env, "compact")
    assert done.returncode == 0 and done.stdout.startswith("index: "), done
    conn = sqlite3.connect(index)
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2, "compacted: it gives free pages back from now on"
    conn.close()


# --- damage under a running worker ------------------------------------------------------------------------

NEW_NOTES = {f"new{i:02d}.md": f"# New {i}\n\nthe bison number {i} grazes at dawn\n" for i in range(30)}
PAUSE = "900"  # a safety net: the worker's scan waits until the test, having damaged a file, lets it go (let_go)


def overwrite_pages(path: Path, pages: list[int], page_size: int) -> None:
    """Random bytes over the given pages (1-based), in place: the file keeps its size."""
    rng = random.Random(11)
    with open(path, "r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * page_size)
            handle.write(rng.randbytes(page_size))


def table_pages(index: Path, like: tuple[str, ...]) -> tuple[list[int], int]:
    """The pages of the tables and indexes whose names match one of ``like`` (SQL LIKE), and the page size."""
    conn = db.connect(index, readonly=True)
    try:
        where = " OR ".join("name LIKE ?" for _ in like)
        pages = [r[0] for r in conn.execute(f"SELECT pageno FROM dbstat WHERE {where}", like)]
        return sorted(set(pages)), conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()


def checkpoint(path: Path) -> None:
    """Move everything in ``path``'s WAL into the file (so that its pages are read from the file again)."""
    conn = sqlite3.connect(path, timeout=30)
    try:
        for _ in range(200):
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if not busy:
                return
            time.sleep(0.05)
        raise TimeoutError(f"could not checkpoint {path}")
    finally:
        conn.close()


def paused_scan(env: dict, a: Path, log: Path) -> Consumer:
    """A real consumer whose scans wait before recording their plan until ``let_go(log)``; a scan of ``a``
    queued and waiting. They waited a fixed 20 s, and a test that took longer to damage its file on a busy
    machine would have damaged it after the plan was recorded."""
    worker = Consumer({**env, "SIFT_FAULT_PAUSE_DISCOVER": PAUSE, "SIFT_FAULT_RELEASE_DISCOVER": str(released(log))},
                      workers=1, log=log)
    assert ingest_cmd(env, "enqueue", str(a), "--name", "a").returncode == 0
    wait_for(lambda: "SIFT_FAULT_PAUSE_DISCOVER: discover of generation" in log.read_text(errors="replace"),
             limit=300, proc=worker.proc)
    return worker


def released(log: Path) -> Path:
    return log.with_name(log.name + ".release")


def let_go(log: Path) -> None:
    """The paused scan of ``paused_scan(…, log)`` goes on."""
    released(log).touch()


def ended(worker: Consumer, limit: float = 180) -> int:
    """The consumer's exit status; a hang guard, not a speed assertion."""
    try:
        return worker.proc.wait(timeout=limit)
    finally:
        worker.stop()


def nothing_blamed(index: Path, collection: str = "a") -> tuple[int, list, int]:
    """(the published generation, the files marked failed, the outcomes remembered) read from ``index``."""
    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        published = conn.execute("SELECT published FROM collections WHERE name = ?", (collection,)).fetchone()[0]
        failed = conn.execute("SELECT path, reason FROM progress WHERE state = 'failed'").fetchall()
        remembered = conn.execute("SELECT count(*) FROM remembered").fetchone()[0]
        return published, failed, remembered
    finally:
        conn.close()


def restored_and_rebuilt(env: dict, index: Path, backup: Path | None, tmp_path: Path, first: int) -> None:
    """Restore ``index`` from ``backup`` (None: the index was intact), delete the queue as the README says,
    check the published generation answers, then index again with a new worker: everything, nothing failed."""
    home = index.parent
    for name in ("queue.db", "queue.db-wal", "queue.db-shm", *(() if backup is None else
                                                                ("index.db-wal", "index.db-shm"))):
        (home / name).unlink(missing_ok=True)
    if backup is not None:
        shutil.copy(backup, index)
    found = ingest_cmd(env, "search", "aardvark", "--mode", "keyword")
    assert found.returncode == 0 and all(f"a/{p}:" in found.stdout for p in A_NOTES), found.stdout + found.stderr
    assert Engine(index).search("aardvark", mode="keyword", limit=50).generations["a"] == first
    worker = Consumer(env, workers=1, log=tmp_path / "after.log")
    try:
        assert ingest_cmd(env, "enqueue", str(home.parent / "a"), "--name", "a").returncode == 0
        conn = db.connect(index, readonly=True)
        wait_published(conn, "a", first, worker.proc, limit=600)
        assert {r["path"] for r in reader.visible_files(conn, "a")} == set(A_NOTES) | set(NEW_NOTES)
        conn.close()
    finally:
        worker.stop()
    assert nothing_blamed(index)[1:] == ([], 0)


@pytest.mark.timeout(1200)
def test_index_damaged_under_a_running_worker_stops_it_and_blames_no_file(immediate, keyword_env, tmp_path):
    """Pages of index.db overwritten while a worker indexes: the job that meets them marks nothing failed and
    remembers nothing, the published generation stays, and the consumer stops with status 2 saying why once;
    restored from a backup, the index answers and a new worker indexes everything."""
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    first = nothing_blamed(index)[0]
    backup = tmp_path / "backup.db"
    shutil.copy(index, backup)
    write_tree(a, NEW_NOTES)
    # the chunks and their full-text index: read only when the new files are written, after the scan
    pages, page_size = table_pages(index, ("chunks%", "%fts%"))
    log = tmp_path / "consumer.log"
    worker = paused_scan(keyword_env, a, log)
    overwrite_pages(index, pages, page_size)
    let_go(log)
    assert ended(worker) == 2
    said = log.read_text(errors="replace")
    line = f"sift worker: error: the index at {index} is damaged ("
    assert said.count(line) == 1 and said.count(f"the index at {index} is damaged") == 1, said
    assert "Traceback" not in said and "failed (not retried" not in said, said
    published, failed, remembered = nothing_blamed(index)
    assert (published, failed, remembered) == (first, [], 0)
    stats = ingest_cmd(keyword_env, "stats")
    if stats.returncode == 0:  # it read only intact pages: the worker's reason is shown
        assert f" ago: the index at {index} is damaged (" in stats.stdout, stats.stdout
        assert "a worker stopped " in stats.stdout, stats.stdout
    else:
        one_error_line(stats, f"ingest: error: the index at {index} is damaged (")
    result, = mcp_calls(keyword_env, [], tmp_path, ("stats", {}))
    assert f"the index at {index} is damaged (" in "\n".join(block.text for block in result.content)
    restored_and_rebuilt(keyword_env, index, backup, tmp_path, first)


@pytest.mark.timeout(1200)
def test_queue_damaged_under_a_running_worker_stops_it_once(immediate, keyword_env, tmp_path):
    """queue.db overwritten while a worker indexes: the consumer stops with status 2 naming the queue once
    (huey's loops logged a traceback at every poll), no file is marked failed, the index is untouched; with
    the queue deleted, a new worker finishes the build."""
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    first = nothing_blamed(index)[0]
    write_tree(a, NEW_NOTES)
    queue = index.parent / "queue.db"
    log = tmp_path / "consumer.log"
    worker = paused_scan(keyword_env, a, log)
    checkpoint(queue)
    size = queue.stat().st_size
    overwrite_pages(queue, list(range(1, size // 4096 + 1)), 4096)
    let_go(log)
    assert ended(worker) == 2
    said = log.read_text(errors="replace")
    line = f"sift worker: error: the queue at {queue} is damaged ("
    assert said.count(line) == 1 and said.count(f"the queue at {queue} is damaged") == 1, said
    assert "the index at" not in said and "Error reading from queue" not in said, said
    assert "Traceback" not in said, said
    assert nothing_blamed(index) == (first, [], 0)
    stats = ingest_cmd(keyword_env, "stats")
    assert stats.returncode == 0 and f"the queue cannot be read: the queue at {queue} is damaged (" in stats.stdout
    restored_and_rebuilt(keyword_env, index, None, tmp_path, first)


def test_index_damaged_between_stages_in_immediate_mode_writes_nothing_and_says_so_once(immediate, keyword_env,
                                                                                         tmp_path, monkeypatch,
                                                                                         caplog):
    """huey's immediate mode runs each stage inside the one that queued it (write inside chunk inside parse
    inside the scan). Pages of index.db overwritten as the first write begins: the write meets them and stops
    the run, and nothing more is written: before, the enclosing chunk and parse went on marking their files
    done, the scan ran its next batches and tried to publish. No file is blamed, nothing is remembered, the
    published generation stays, and the damage is logged once, without huey's traceback."""
    from huey.signals import SIGNAL_EXECUTING

    from workers import runtime
    a = write_tree(tmp_path / "a", A_NOTES)
    index = built_index(a)
    first = nothing_blamed(index)[0]
    write_tree(a, NEW_NOTES)
    monkeypatch.setenv("SIFT_FILES_PER_JOB", "10")  # three batches: the later ones must not run either
    runtime.reset()
    pages, page_size = table_pages(index, ("chunks%", "%fts%"))  # read only when new files are written
    at_damage = []

    def damage_as_write_begins(signal, task, *args):
        if task.name == "write" and not at_damage:
            overwrite_pages(index, pages, page_size)
            at_damage.append([digest(Path(f"{index}{end}")) for end in ("", "-wal")])
    immediate.signal(SIGNAL_EXECUTING)(damage_as_write_begins)
    try:
        with caplog.at_level("INFO"):
            ingest(a, "a")
    finally:
        immediate.disconnect_signal(damage_as_write_begins, SIGNAL_EXECUTING)
    assert at_damage, "the write stage ran"
    assert [digest(Path(f"{index}{end}")) for end in ("", "-wal")] == at_damage[0], "nothing written since"
    runtime.reset()
    assert nothing_blamed(index) == (first, [], 0)
    said = [r for r in caplog.records if "is damaged" in r.getMessage()]
    assert [(r.name, r.levelname) for r in said] == [("sift.workers", "ERROR")], caplog.text
    assert said[0].getMessage().startswith(f"the index at {index} is damaged (") and said[0].getMessage().endswith(FIX)
    assert not [r for r in caplog.records if r.exc_info or "Unhandled exception" in r.getMessage()], caplog.text
