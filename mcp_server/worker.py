"""A huey consumer run as a child of the server, so the index keeps itself current.

The child gets its own process group (its worker processes join it), writes
its log to the server's stderr, never sees the protocol's stdin, and is told
by the kernel to stop if the server dies (Linux). ``stop`` ends the group.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

STOP_GRACE = 1.0  # seconds between SIGTERM and SIGKILL


class Worker:
    def __init__(self, settings):
        self.command = [sys.executable, "-m", "huey.bin.huey_consumer", "workers.app.huey",
                        "-k", "process", "-w", str(max(1, settings.workers)), "-d", "0.1", "-m", "2"]
        self.proc: subprocess.Popen | None = None
        self.stopped = False

    def start(self) -> "Worker":
        self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(),
                                     stderr=sys.stderr.fileno(), start_new_session=True,
                                     preexec_fn=_die_with_parent(os.getpid()))
        print(f"sift-mcp: started a worker (pid {self.proc.pid}): {' '.join(self.command[1:])}", file=sys.stderr)
        return self

    def describe(self) -> dict:
        if self.proc is None:
            return {"state": "not started"}
        code = self.proc.poll()
        return {"state": "running" if code is None else "exited", "pid": self.proc.pid, "returncode": code,
                "command": " ".join(self.command)}

    def stop(self) -> None:
        """SIGTERM to the worker's group, then SIGKILL to what is left of it."""
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
