"""Helpers shared by the benchmark scripts: data location, a fresh Sift home, medians, the real processes that keep
an index fresh (started, waited on, stopped)."""
from __future__ import annotations

import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
TICKS = os.sysconf("SC_CLK_TCK")
sys.path.insert(0, str(REPO))


def shared_data(name: str) -> Path:
    """../shared/data/<name> (or $SIFT_SHARED_DATA/<name>); exits with a message when absent."""
    base = Path(os.environ.get("SIFT_SHARED_DATA") or REPO.parent / "shared" / "data")
    path = base / name
    if not path.exists():
        sys.exit(f"skipped: benchmark data {path} not found (set SIFT_SHARED_DATA)")
    return path


def fresh_home(prefix: str) -> Path:
    """A new SIFT_HOME in a temporary folder; the default model is shared through SIFT_MODEL."""
    home = Path(tempfile.mkdtemp(prefix=f"sift-{prefix}-"))
    os.environ["SIFT_HOME"] = str(home)
    use_all_cores()
    if not os.environ.get("SIFT_MODEL"):
        from search.model.embedding import resolve
        from search.settings import load
        default_home = Path(os.environ.get("SIFT_BENCH_MODEL_HOME", Path.home() / ".sift"))
        os.environ["SIFT_MODEL"] = str(resolve(load(home=default_home)).path)
    return home


def indexed_notes(home: Path, notes: dict[str, str], name: str = "notes") -> Path:
    """``notes`` ({path: text}) written in the folder ``home``/``name`` and indexed in huey's immediate mode as the
    collection ``name`` (keyword-only where SIFT_EMBEDDINGS is off); the folder."""
    root = home / name
    for relative, text in notes.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    huey.immediate = True
    conn = runtime.index()
    tasks.discover(store.ensure_collection(conn, name, str(root))["id"])
    runtime.reset()
    return root


def use_all_cores() -> None:
    """Benchmarks run the pipeline in one process: give the model every core."""
    os.environ.setdefault("SIFT_WORKERS", "1")


def median(values) -> float:
    return statistics.median(values)


def percentile(values, fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def consumer(app: str, env: dict, log: Path) -> subprocess.Popen:
    """A real ``huey_consumer`` of ``app`` (two worker processes) in its own process group, its output in ``log``."""
    return subprocess.Popen([str(BIN / "huey_consumer"), app, "-k", "process", "-w", "2", "-d", "0.1", "-m", "2",
                             "-b", "1.5"], cwd=REPO, env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    """SIGINT to the consumer's group (huey finishes its jobs), SIGKILL after a minute."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def group_pids(pgid: int) -> list[int]:
    """The living processes of a process group."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            pids.append(int(stat.parent.name))
    return pids


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of a process; 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def published_chunks(conn) -> int:
    """How many chunks the published generations show."""
    from search.index.collection_reads import VISIBLE
    return conn.execute(f"SELECT count(*) FROM chunks ch JOIN files f ON f.id = ch.file "
                        f"JOIN collections c ON c.id = f.collection WHERE {VISIBLE}").fetchone()[0]


def copy_until(conn, home: Path, corpora: list[tuple[str, Path]], add, target: int) -> None:
    """Add symlinked copies of ``corpora`` ([(name, root)], in turn) as collections '<name>-copy-<n>', through
    ``add(name, root)``, until the published chunks reach ``target``: their chunks are new rows, and the embedding
    cache means nothing is embedded twice."""
    copies = home / "copies"
    copies.mkdir(exist_ok=True)
    n = 0
    while published_chunks(conn) < target:
        name, root = corpora[n % len(corpora)]
        link = copies / f"{name}-{n}"
        if not link.exists():
            link.symlink_to(root)
        add(f"{name}-copy-{n}", link)
        n += 1


def wait(check, what: str, deadline: float = 600.0, interval: float = 0.2):
    """``check()``'s first true result, looked for every ``interval`` seconds; exits saying ``what`` never came
    once ``deadline`` seconds have passed (a first build on a busy machine wants a deadline of its own)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        result = check()
        if result:
            return result
        time.sleep(interval)
    sys.exit(f"timed out waiting for {what}")


@contextlib.contextmanager
def watched(mode: str, root: Path, home: Path):
    """The processes that keep ``root`` indexed in ``home`` (``start_watched``), their output in
    home/processes.log; stopped, and the log closed, when the block ends however it ends."""
    log = open(home / "processes.log", "ab")
    try:
        procs = start_watched(mode, root, log)
        try:
            yield procs
        finally:
            stop_all(procs)
    finally:
        log.close()


def start_watched(mode: str, root: Path, log) -> list[subprocess.Popen]:
    """``sift-mcp --root ROOT`` (mode 'mcp': it starts the consumer and the watcher as its children), or a
    ``huey_consumer`` with the flags sift-mcp gives it and ``python -m workers.watch`` side by side ('consumer',
    ``root`` registered as the collection 'notes-en')."""
    common = dict(cwd=REPO, env=dict(os.environ), stdout=log, stderr=log, start_new_session=True)
    if mode == "mcp":
        server = subprocess.Popen([str(BIN / "sift-mcp"), "--root", str(root)], stdin=subprocess.PIPE,
                                  cwd=REPO, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=log)
        return [server]
    from mcp_server.worker import POLLING
    from search.index import db, store
    from search.settings import load
    conn = db.connect(load().index_path)
    store.ensure_collection(conn, "notes-en", str(root.resolve()))  # the watcher scans it as it starts
    conn.close()
    consumer = subprocess.Popen([str(BIN / "huey_consumer"), "workers.app.huey", "-k", "process", "-w",
                                 os.environ["SIFT_WORKERS"], *POLLING], **common)
    watcher = subprocess.Popen([sys.executable, "-m", "workers.watch"], **common)
    print(f"consumer: huey_consumer workers.app.huey -k process -w {os.environ['SIFT_WORKERS']} {' '.join(POLLING)}")
    return [consumer, watcher]


def stop_all(procs: list[subprocess.Popen]) -> None:
    """Stop what ``start_watched`` started: sift-mcp by closing its stdin (it stops its children), the others by
    SIGINT to their group (huey finishes its jobs); SIGKILL after 30 s."""
    for proc in procs:
        if proc.stdin:
            proc.stdin.close()
        else:
            os.killpg(proc.pid, signal.SIGINT)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
