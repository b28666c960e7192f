"""A huey consumer and a file watcher run as children of the server, so the index keeps itself current.

The consumer runs the jobs; the watcher (``python -m workers.watch``) queues a
scan of a collection whenever its files change. Each child gets its own
process group (the consumer's worker processes join its group), writes its log
to the server's stderr, never sees the protocol's stdin, and is told by the
kernel to stop if the server dies (Linux). ``stop`` ends both groups.

The consumer's polling: ``-d 0.1`` after a job, backing off by ``-b 1.5`` to at
most ``-m 2`` seconds when the queue is empty. That keeps an idle worker far
below 1% of a core while a job queued by the watcher starts within 2 s.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

STOP_GRACE = 1.0  # seconds between SIGTERM and SIGKILL
POLLING = ["-d", "0.1", "-m", "2", "-b", "1.5"]  # huey_consumer's initial delay, max delay, backoff


class Worker:
    def __init__(self, settings, watch: bool = True):
        self.command = [sys.executable, "-m", "huey.bin.huey_consumer", "workers.app.huey",
                        "-k", "process", "-w", str(max(1, settings.workers)), *POLLING]
        self.consumer = _Child(self.command)
        self.watcher = _Child([sys.executable, "-m", "workers.watch"]) if watch else None

    @property
    def proc(self) -> subprocess.Popen | None:
        return self.consumer.proc

    def start(self) -> "Worker":
        for child, what in ((self.consumer, "worker"), (self.watcher, "file watcher")):
            if child is not None:
                child.start()
                line = f"sift-mcp: started a {what} (pid {child.proc.pid}): {' '.join(child.command[1:])}"
                print(line, file=sys.stderr)
        return self

    def describe(self) -> dict:
        info = self.consumer.describe()
        if self.watcher is not None:
            info["watcher"] = self.watcher.describe()
        return info

    def stop(self) -> None:
        """Stop the watcher, then the consumer."""
        for child in (self.watcher, self.consumer):
            if child is not None:
                child.stop()


class _Child:
    """One child process in its own session, stopped with its whole process group."""

    def __init__(self, command: list[str]):
        self.command = command
        self.proc: subprocess.Popen | None = None
        self.stopped = False

    def start(self) -> None:
        self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(),
                                     stderr=sys.stderr.fileno(), start_new_session=True,
                                     preexec_fn=_die_with_parent(os.getpid()))

    def describe(self) -> dict:
        if self.proc is None:
            return {"state": "not started"}
        code = self.proc.poll()
        return {"state": "running" if code is None else "exited", "pid": self.proc.pid, "returncode": code,
                "command": " ".join(self.command)}

    def stop(self) -> None:
        """SIGTERM to the child's group, then SIGKILL to what is left of it."""
        if self.proc is None or self.stopped:
            return
        self.stopped = True
        group = self.proc.pid  # a session leader: its pid is its group id
        _signal_group(group, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        _signal_group(group, signal.SIGKILL)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def _signal_group(group: int, sig: int) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _die_with_parent(parent: int):
    """A preexec hook: SIGTERM this child when the server dies (Linux), or exit if it already has."""
    prctl = None
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            prctl = None

    def hook():
        if prctl is not None:
            prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)
    return hook
