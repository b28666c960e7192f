"""The worker that ``sift-mcp --root`` runs is supervised, and stops gracefully.

Real processes throughout: the server, its huey consumer and file watcher, the
real model. A consumer killed with SIGKILL leaves its worker processes behind;
the server must stop them, start a new consumer (with backoff) and say so in
``stats``; the new one must index edits and run the periodic rescan. Closing
stdin must stop the consumer with huey's graceful stop, so no job is cut off.
"""
from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import anyio
import pytest

from mcp_server.worker import BACKOFF_FIRST, RESTART, STEADY
from tests.conftest import processes, write_tree
from tests.test_mcp_server import _note, _poll_search, call, run, text
from tests.test_transport import Raw

SAFETY = 600  # seconds: a safety net against a hung test, never a speed assertion


def live_group(group: int) -> list[int]:
    return [pid for pid, state, _, pgrp in processes() if pgrp == group and state != "Z"]


def alive(pid: int) -> bool:
    return any(p == pid and state != "Z" for p, state, _, _ in processes())


def notes_collection(stats: dict) -> dict:
    return next(c for c in stats["collections"] if c["name"] == "notes")


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_killed_consumer_is_restarted_without_orphans_and_keeps_indexing(sift_env, tmp_path, servers):  # noqa: F811
    root = write_tree(tmp_path / "notes", {"harbour.md": "# Harbour\n\nBoats in the harbour at dawn.\n"})
    # every collection is due at each periodic task, which runs every 5 s (SIFT_PERIODIC_SECONDS), not every minute
    # a killed consumer is started again only once the test, having seen it 'restarting', lets it (the state
    # lasts 1-2 s unheld: a stats call slower than that on a loaded machine saw it running again, and failed)
    hold = tmp_path / "hold-restart"
    env = dict(sift_env, SIFT_RESCAN_MINUTES="0.05", SIFT_PERIODIC_SECONDS="5", SIFT_FAULT_HOLD_RESTART=str(hold))

    async def scenario():
        async with servers.session(env, "--root", str(root), "--name", "notes") as s:
            await _poll_search(s, "harbour")
            before = await _wait_quiet(s)  # nothing being built: a later generation needs a new scan
            worker = (await call(s, "stats")).structured_content["worker"]
            old = worker["pid"]
            workers = await _wait_for_workers(old)
            hold.touch()
            os.kill(old, signal.SIGKILL)
            # the restart is waited for as long as it takes (SAFETY, a hang guard): how soon it comes after the
            # kill is the machine's pace (a 30 s bound here was one), what it must be is asserted below
            deadline, seen = time.monotonic() + SAFETY, []
            while time.monotonic() < deadline:
                stats = await call(s, "stats")
                seen.append(stats)
                now = stats.structured_content["worker"]
                if now["state"] == "running" and now["pid"] != old:
                    break
                if now["state"] == "restarting":
                    hold.unlink(missing_ok=True)
                await anyio.sleep(0.2)
            else:
                raise AssertionError(f"stats never reported a restart (hang guard, {SAFETY} s): {text(seen[-1])}")
            orphans = sorted(set(live_group(old)) | {pid for pid in workers if alive(pid)})
            # No edit is made. One scan may still come from a request the watcher remembered (the --root scan
            # asked for while the first one ran); after that only the periodic rescan (every 5 s here,
            # SIFT_RESCAN_MINUTES=0.05) scans: wait for two scans, which find nothing changed and publish nothing.
            rescan = await _wait_for_scans(s, 2)
            (root / "zebra.md").write_text("# Crossing\n\nA zebra crossing near the station.\n")
            edit = await _poll_search(s, "zebra")
            # killed again: refresh, asked while the restart is pending, must not say there is no worker
            second = (await call(s, "stats")).structured_content["worker"]["pid"]
            hold.touch()
            os.kill(second, signal.SIGKILL)
            while (dead := (await call(s, "stats")).structured_content["worker"])["state"] == "running":
                await anyio.sleep(0.05)
            refreshed = await call(s, "refresh", collection="notes")
            hold.unlink()
            again = await _wait_restarted(s, second)
            return seen, workers, orphans, before, rescan, edit, refreshed, again, dead
    seen, workers, orphans, before, rescan, edit, refreshed, again, dead = run(scenario)
    assert len(workers) >= 2, "the consumer's worker processes were found before the kill"
    assert orphans == [], f"processes of the killed consumer's group are left: {orphans}"
    states = [r.structured_content["worker"]["state"] for r in seen]
    assert "restarting" in states, states  # the truth while the restart is pending
    pending = next(r for r in seen if r.structured_content["worker"]["state"] == "restarting")
    assert "worker: restarting" in text(pending) and "exited with code -9" in text(pending)
    last = seen[-1]
    info = last.structured_content["worker"]
    assert info["restarts"] == 1 and info["last_exit"]["returncode"] == -9
    assert "restarted once, last" in text(last) and "after it exited with code -9" in text(last)
    assert rescan == before, "the periodic rescans scanned and published nothing of their own"
    assert edit["results"][0]["path"] == "notes/zebra.md" and edit["generations"]["notes"] > rescan
    assert not refreshed.is_error and "runs no worker" not in text(refreshed), text(refreshed)
    assert refreshed.structured_content["worker"] in ("restarting", "running")
    assert again.structured_content["worker"]["restarts"] == 2 and "restarted 2 times" in text(again)
    log = (tmp_path / "server-stderr.log").read_text()
    # the backoff: the first death waits BACKOFF_FIRST; the second doubles it if the restarted worker died before
    # a steady run (STEADY), else starts over (how long it ran is the machine's pace, so both are allowed, each
    # only where it is due; within half a second of STEADY, stats' rounding cannot tell)
    delays = [float(d) for d in re.findall(r"the worker \(pid \d+\) exited with code -9; .*restarting it in (\d+) s", log)]
    ran = dead["started_seconds_ago"] - dead["last_exit"]["seconds_ago"]
    doubled = RESTART.wait(1)
    due = {doubled} if ran < STEADY - 0.5 else {BACKOFF_FIRST} if ran > STEADY + 0.5 else {doubled, BACKOFF_FIRST}
    assert delays[0] == BACKOFF_FIRST and len(delays) == 2 and delays[1] in due, (delays, ran)
    after_restart = log[log.index(f"started a worker (pid {info['pid']})"):]
    # (huey's own lines about the periodic task are left out of the log: workers.queues.QuietPeriodic)
    assert "periodic rescan of collection" in after_restart, "the new consumer runs the periodic task"


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_closing_stdin_stops_the_consumer_gracefully_and_leaves_no_job_behind(sift_env, tmp_path):
    root = write_tree(tmp_path / "notes", {f"topic{i % 10}/note{i}.md": _note(i) * 4 for i in range(NOTES_HELD)})
    # the worker's embed jobs, a batch embedded, hold until the stop (workers.halt): the stdin is closed while
    # the build is surely under way (160 notes raced it: 75 s at load 17)
    held = tmp_path / "held"
    first = Raw({**sift_env, "SIFT_FAULT_HOLD_FOR_STOP": str(held)}, tmp_path / "first.log", "--root", str(root),
                "--name", "notes")
    try:
        worker = first.call("stats")["structuredContent"]["worker"]
        _wait_held(first, held)
    finally:
        code = first.close()  # stdin closed in the middle of the build
    log = (tmp_path / "first.log").read_text()
    assert code == 0, log[-2000:]
    for group in (worker["pid"], worker["watcher"]["pid"]):
        assert live_group(group) == [], f"process group {group} outlived the server"
    assert "Received SIGINT" in log and "Shutting down gracefully" in log and "All workers have stopped" in log
    assert "Shutdown timeout" not in log and "did not stop within" not in log

    second = Raw(sift_env, tmp_path / "second.log", "--root", str(root), "--name", "notes")
    try:
        done = _wait_published(second)
    finally:
        assert second.close() == 0
    log = (tmp_path / "second.log").read_text()
    assert "interrupted" not in log, [line for line in log.splitlines() if "interrupted" in line]
    assert done["files"] == NOTES_HELD


# --- helpers ------------------------------------------------------------------------------------

async def _wait_for_workers(consumer: int) -> list[int]:
    """The consumer's worker processes (its children in its process group)."""
    deadline = time.monotonic() + SAFETY
    while time.monotonic() < deadline:
        found = [pid for pid, state, ppid, pgrp in processes() if ppid == consumer and pgrp == consumer
                 and state != "Z"]
        if len(found) >= 2:
            return found
        await anyio.sleep(0.1)
    raise TimeoutError("the consumer started no worker processes")


async def _wait_restarted(session, old: int):
    """stats once it reports a worker other than ``old`` running, as long as that takes (SAFETY: a hang guard)."""
    deadline = time.monotonic() + SAFETY
    while time.monotonic() < deadline:
        stats = await call(session, "stats")
        worker = stats.structured_content["worker"]
        if worker["state"] == "running" and worker["pid"] != old:
            return stats
        await anyio.sleep(0.2)
    raise AssertionError(f"stats never reported a restart (hang guard, {SAFETY} s)")


async def _wait_quiet(session) -> int:
    """The published generation, once nothing is being built."""
    deadline = time.monotonic() + SAFETY
    while time.monotonic() < deadline:
        notes = notes_collection((await call(session, "stats")).structured_content)
        if notes["published"] and not notes["building"]:
            return notes["published"]["id"]
        await anyio.sleep(0.2)
    raise TimeoutError("the collection never became quiet")


async def _wait_for_scans(session, scans: int) -> int:
    """The published generation once ``scans`` more scans have found nothing changed (stats' last scan moved)."""
    deadline = time.monotonic() + SAFETY  # the periodic task runs every SIFT_PERIODIC_SECONDS (a minute unless told)
    seen, first = set(), None
    while time.monotonic() < deadline:
        notes = notes_collection((await call(session, "stats")).structured_content)
        scanned = notes["freshness"]["scanned_unchanged"]
        first = scanned if not seen else first  # the one shown at first may be older than the restart
        seen.add(scanned)
        if len(seen - {first, None}) >= scans:
            return notes["published"]["id"]
        await anyio.sleep(1)
    raise TimeoutError("no periodic rescan after the restart")


NOTES_HELD = 40


def _wait_held(server: Raw, held) -> None:
    """Until an embed job of the build holds (SIFT_FAULT_HOLD_FOR_STOP)."""
    deadline = time.monotonic() + SAFETY
    while time.monotonic() < deadline:
        if held.exists():
            return
        assert not notes_collection(server.call("stats")["structuredContent"])["published"], \
            "the build finished without an embed job to hold"
        time.sleep(0.2)
    raise TimeoutError("the build never started")


def _wait_published(server: Raw) -> dict:
    deadline = time.monotonic() + SAFETY
    while time.monotonic() < deadline:
        notes = notes_collection(server.call("stats")["structuredContent"])
        if notes["published"] and not notes["building"]:
            return notes
        time.sleep(0.5)
    raise TimeoutError("the build was not finished")


@pytest.mark.timeout(300)
def test_a_worker_that_refuses_with_status_2_is_not_restarted_in_a_loop():
    """A consumer exits with status 2 when it refuses to work (a damaged or read-only index or queue, at start
    or while it runs: workers.halt); another start refuses again until the file is fixed. The supervisor waits
    its longest backoff before that start, where a worker that crashed is started again after the first."""
    import sys

    from mcp_server import worker as supervision
    from search.settings import Settings

    def wait_after(code: int, settings: Settings) -> float:
        child = supervision.Worker(settings, watch=False).consumer  # the child sift-mcp supervises
        child.command = [sys.executable, "-c", f"raise SystemExit({code})"]
        child.start()
        try:
            child.proc.wait(timeout=SAFETY)
            child.tend()
            info = child.describe()
            assert info["state"] == "restarting" and info["last_exit"]["returncode"] == code, info
            return child.restart_at - child.last_exit["at"]
        finally:
            child.stop()
    waits = {code: wait_after(code, Settings()) for code in (2, 1)}
    assert waits == {2: supervision.BACKOFF_MAX, 1: supervision.BACKOFF_FIRST}
    # SIFT_PERIODIC_SECONDS, when shorter, is the wait after a refusal (the tests' few seconds), not after a crash
    waits = {code: wait_after(code, Settings(periodic_seconds=5)) for code in (2, 1)}
    assert waits == {2: 5.0, 1: supervision.BACKOFF_FIRST}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_damaged_index_is_said_once_while_the_children_are_started_again_each_minute(immediate, sift_env,
                                                                                        tmp_path, monkeypatch):
    """index.db damaged (pages of its full-text index overwritten: quick_check refuses it, stats still read it)
    under sift-mcp: the worker and the watcher refuse it at every start, once a minute (every 3 s here:
    SIFT_PERIODIC_SECONDS, so the test waits seconds for the two restarts, not two minutes). The server printed
    their line, and its own "exited with code 2" line, at every start for as long as the file stayed
    damaged; now each once, the restarts are quiet, stats say why the worker stopped, and once the file is
    gone (deleted, as the README says, for a rebuild) the server says once that each works again."""
    from tests.test_disk_faults import A_NOTES, built_index, overwrite_pages, table_pages
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    env = {**sift_env, "SIFT_EMBEDDINGS": "off", "SIFT_PERIODIC_SECONDS": "3"}
    index = built_index(write_tree(tmp_path / "a", A_NOTES))
    overwrite_pages(index, *table_pages(index, ("%fts%",)))
    log = tmp_path / "server.log"
    server = Raw(env, log)
    try:
        # the worker refused twice and the watcher at least once, and the server has said so: read before the
        # watcher had refused (its start slower than the worker's two on a loaded machine), the log lacked its
        # lines, and it never 'started normally again', not having refused
        again = _wait_worker(server, lambda w: w["state"] == "restarting" and w["restarts"] >= 1
                             and (w["watcher"].get("last_exit") or {}).get("returncode") == 2)
        said = _wait_logged(log, r"the worker \(pid \d+\) exited with code 2",
                            r"the file watcher \(pid \d+\) exited with code 2")
        for end in ("", "-wal", "-shm"):
            Path(f"{index}{end}").unlink(missing_ok=True)
        _wait_worker(server, lambda w: w["state"] == "running" and w["restarts"] >= 2)
        deadline = time.monotonic() + SAFETY
        while log.read_text(errors="replace").count("started normally again") < 2:
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.5)
    finally:
        code = server.close()
    damaged = f"error: the index at {index} is damaged (quick_check: "
    assert said.count(f"sift worker: {damaged}") == 1 and said.count(f"sift watcher: {damaged}") == 1, said
    for name in ("worker", "file watcher"):
        assert len(re.findall(rf"the {name} \(pid \d+\) exited with code 2", said)) == 1, said
        assert said.count(f"started a {name} (pid") == 1, said
    text = "\n".join(block["text"] for block in again["content"])
    assert "worker: restarting in " in text and f"(it exited with code 2 " in text, text
    assert again["structuredContent"]["worker"]["last_exit"]["why"].startswith(damaged[len("error: "):]), text
    after = log.read_text(errors="replace")
    assert after.count(damaged) == 2, after  # nothing more was said of the damage
    for name in ("worker", "file watcher"):
        assert len(re.findall(rf"the {name} \(pid \d+\) started normally again", after)) == 1, after
    assert code == 0, after[-2000:]


def _wait_logged(log: Path, *patterns: str) -> str:
    """The server's log once every one of ``patterns`` (regular expressions) is in it."""
    deadline = time.monotonic() + SAFETY
    while True:
        said = log.read_text(errors="replace")
        if all(re.search(pattern, said) for pattern in patterns):
            return said
        assert time.monotonic() < deadline, said
        time.sleep(0.2)


def _wait_worker(server: Raw, ready) -> dict:
    """The stats tool's result once ``ready(worker)`` holds for the worker it describes."""
    deadline = time.monotonic() + SAFETY
    while time.monotonic() < deadline:
        result = server.call("stats")  # never an error, even while the worker makes the deleted index again
        assert "structuredContent" in result, result  # (tests/test_index_remade.py makes that window on purpose)
        if ready(result["structuredContent"]["worker"]):
            return result
        time.sleep(0.5)
    raise TimeoutError("the worker never reached the state waited for")
