"""The worker embeds at a low CPU priority (SIFT_NICE, 10 unless set), so that a first build of a big vault, an
hour of both cores on a laptop, leaves them to the user's programs and to sift-mcp's searches; the server and
the ingest commands keep the priority they were started with."""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import anyio
import pytest

from tests.conftest import run_ingest, wait_published, write_tree
from tests.test_mcp_server import call, run, text

NOTES = {f"n{i}.md": f"# Note {i}\n\nThe heron number {i} waits by the sluice.\n" for i in range(6)}


def _sift_processes(home: Path) -> dict[int, str]:
    """{pid: command line} of the processes started with SIFT_HOME=home (the test's own, which sets it too, left
    out)."""
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(proc.name) != os.getpid() and f"SIFT_HOME={home}".encode() in environ:
            found[int(proc.name)] = cmdline
    return found


def _nice(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def _published(env: dict, name: str, proc=None) -> None:
    conn = sqlite3.connect(Path(env["SIFT_HOME"]) / "index.db")
    conn.row_factory = sqlite3.Row
    wait_published(conn, name, None, proc)
    conn.close()


@pytest.fixture
def started_at_zero():
    if os.nice(0) >= 5:
        pytest.skip("the tests run at a low priority already: a worker's could not be told from theirs")
    return os.nice(0)


@pytest.fixture
def default_nice(sift_env, monkeypatch):
    """SIFT_NICE unset, as a user has it (sift_env sets it to 0 for the other tests' workers)."""
    monkeypatch.delenv("SIFT_NICE")
    del sift_env["SIFT_NICE"]
    return sift_env


def test_a_worker_embeds_at_a_low_cpu_priority(default_nice, consumer, sift_env, tmp_path, started_at_zero):
    """huey_consumer ran its jobs at the priority it was started with (nice 0), taking both cores from the user."""
    root = write_tree(tmp_path / "notes", NOTES)
    worker = consumer()
    assert run_ingest(sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    _published(sift_env, "notes", worker.proc)
    group = {pid: _nice(pid) for pid, cmd in _sift_processes(Path(sift_env["SIFT_HOME"])).items()
             if os.getpgid(pid) == worker.proc.pid}
    assert len(group) >= 3, group  # the consumer and its two worker processes
    assert set(group.values()) == {10}, group
    # started in a session of its own (as sift-mcp starts it): its session's autogroup is lowered too, without
    # which Linux weighs it as much as any other session, whatever the niceness of its processes
    autogroup = Path(f"/proc/{worker.proc.pid}/autogroup")
    if autogroup.exists():
        assert autogroup.read_text().split()[-2:] == ["nice", "10"], autogroup.read_text()


def test_sift_nice_sets_the_priority_and_zero_keeps_it(consumer, sift_env, tmp_path, started_at_zero):
    # built without vectors: the consumer sets its niceness as it starts, before its workers fork, and embedding
    # is not looked at here (test_a_worker_embeds_at_a_low_cpu_priority embeds); at nice 15 on a busy machine
    # loading the model and embedding took most of the test's 58 s
    sift_env["SIFT_EMBEDDINGS"] = "off"
    for nice, name in ((15, "low"), (0, "kept")):
        root = write_tree(tmp_path / name, NOTES)
        sift_env["SIFT_NICE"] = str(nice)
        worker = consumer()
        assert run_ingest(sift_env, "enqueue", str(root), "--name", name).returncode == 0
        _published(sift_env, name, worker.proc)
        niceness = {_nice(pid) for pid, cmd in _sift_processes(Path(sift_env["SIFT_HOME"])).items()
                    if os.getpgid(pid) == worker.proc.pid}
        worker.stop()
        assert niceness == {max(nice, started_at_zero)}, (nice, niceness)


def test_sift_mcp_searches_at_its_own_priority_while_its_worker_is_lowered(default_nice, servers, sift_env,
                                                                            tmp_path, started_at_zero):
    """The server answers searches: it is not lowered with the worker it starts. Its worker builds without vectors
    (the search is by keyword): at nice 10 on a busy machine loading the model and embedding took most of 24 s."""
    sift_env["SIFT_EMBEDDINGS"] = "off"
    root = write_tree(tmp_path / "notes", NOTES)
    home = Path(sift_env["SIFT_HOME"])

    async def scenario():
        async with servers.session(sift_env, "--root", str(root)) as session:
            for _ in range(600):  # the worker's first build: a safety net, not a timing
                found = await call(session, "search", query="heron sluice", mode="keyword")
                if "n0.md" in text(found) or "n1.md" in text(found):
                    break
                await anyio.sleep(0.2)
            else:
                raise AssertionError(text(found))
            return {pid: (cmd, _nice(pid)) for pid, cmd in _sift_processes(home).items()}

    seen = run(scenario)
    consumers = {pid: nice for pid, (cmd, nice) in seen.items() if "huey_consumer" in cmd}
    servers_ = {pid: nice for pid, (cmd, nice) in seen.items() if "sift-mcp" in cmd and "huey" not in cmd}
    assert consumers and set(consumers.values()) == {10}, seen
    assert servers_ and set(servers_.values()) == {started_at_zero}, seen
