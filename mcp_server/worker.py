"""A huey consumer and a file watcher run as supervised children of the server, so the index keeps itself current.

The consumer runs the jobs; the watcher (``python -m workers.watch``) queues a
scan of a collection whenever its files change. Each child gets its own
process group (the consumer's worker processes join its group), writes its log
to the server's stderr, never sees the protocol's stdin, and is told by the
kernel to stop if the server dies (Linux).

Supervision: a daemon thread looks at the children every second (and ``stats``
looks whenever it is asked, so it never reports a dead child as running). A
child that died has what is left of its group killed — a consumer killed with
SIGKILL leaves its worker processes running on, still taking jobs — and is
started again after a backoff (1 s, 2 s, 4 s … at most 60 s; back to 1 s once
a child has run for a minute). The new consumer queues again what the killed
jobs took with them (workers/recover.py). A consumer that exited with status 2
refused to work (a damaged or read-only index or queue, found as it started or
while it ran: workers/halt.py) and said why; it is started again only after the
longest backoff (SIFT_PERIODIC_SECONDS when shorter: the tests' few seconds), so a
fixed file is picked up within a minute, and a broken one does not make it refuse
in a loop. A child says why through a pipe of its own
(workers/refusal.py), and the server prints each distinct reason once: the
starts that refuse again for the same reason, once a minute, are quiet, and the
first start that works again is said once.

Stopping is graceful: SIGINT to the consumer's group is huey's "finish the
running jobs, then exit" (its worker processes ignore SIGINT; the consumer's
main process waits for them), SIGTERM would be "stop now" and leave every
running job for recovery. After STOP_GRACE seconds whatever is left is killed. A
client that kills the server sooner (the mcp SDK's, 4 s after closing stdin) no
longer cuts the jobs off: the consumer, once told to stop, no longer takes the
server's death for a second SIGINT (workers/parent_death.py).
The watcher holds no jobs: SIGTERM.

The consumer's polling: ``-d 0.1`` after a job, backing off by ``-b 1.5`` to at
most ``-m 2`` seconds when the queue is empty. That keeps an idle worker far
below 1% of a core while a job queued by the watcher starts within 2 s.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from workers import parent_death, refusal
from workers.retry import Policy

# Seconds a stopping consumer gets to finish its running jobs before it is killed. A job carries at most
# SIFT_FILES_PER_JOB (256) files, at most 64 KiB of them (workers.tasks.JOB_BYTES), through one stage;
# embedding 64 KiB of text (about 16,000 tokens) takes 5-15 s on 2 cores.
# A job still running after this is killed and queued again at the next start (workers/recover.py).
STOP_GRACE = 20.0
HUEY_GRACE = STOP_GRACE - 3  # huey_consumer -t: huey itself interrupts its jobs first, and says so in its log
KILL_WAIT = 5.0  # seconds to wait for a killed group to be gone
POLL_EVERY = 1.0  # seconds between the supervisor's looks at the children
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 60.0  # seconds before a restart: doubling from the first to the most
RESTART = Policy(delay=BACKOFF_FIRST, backoff=2.0, cap=BACKOFF_MAX)  # the retry helper's schedule, not its loop
STEADY = 60.0  # a child that ran this long before it died starts the backoff over
REFUSED = 2  # a worker's exit status when it cannot work until something is fixed (workers.app, workers.halt)
POLLING = ["-d", "0.1", "-m", "2", "-b", "1.5"]  # huey_consumer's initial delay, max delay, backoff


class Worker:
    def __init__(self, settings, watch: bool = True, queued: int | None = None):
        """``queued``: a collection whose scan the server queues as it starts (--root); the watcher's first
        start does not scan it again (a second, empty generation). Restarts scan it: it went unwatched."""
        self.command = [sys.executable, "-m", "huey.bin.huey_consumer", "workers.app.huey",
                        "-k", "process", "-w", str(max(1, settings.workers)), "-t", f"{HUEY_GRACE:g}", *POLLING]
        refused = min(BACKOFF_MAX, settings.periodic_seconds)  # the wait before a child that refused starts again
        self.consumer = _Child("worker", self.command, signal.SIGINT, refused)
        self.watch_command = [sys.executable, "-m", "workers.watch"]
        first = [*self.watch_command, *(["--queued-scan", str(queued)] if queued is not None else [])]
        self.watcher = _Child("file watcher", first, signal.SIGTERM, refused) if watch else None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def children(self) -> list["_Child"]:
        return [c for c in (self.consumer, self.watcher) if c is not None]

    @property
    def proc(self) -> subprocess.Popen | None:
        return self.consumer.proc

    def start(self) -> "Worker":
        for child in self.children:
            child.start()
        if self.watcher is not None:
            self.watcher.command = self.watch_command  # a restarted watcher catches up on every collection
        # The children are started (and restarted) by one long-lived thread, the main one at first, then this
        # one: PR_SET_PDEATHSIG fires when the thread that started a child ends, so this thread never ends
        # before the server does.
        self._thread = threading.Thread(target=self._supervise, name="sift-supervisor", daemon=True)
        self._thread.start()
        return self

    def describe(self) -> dict:
        info = self.consumer.describe()
        if self.watcher is not None:
            info["watcher"] = self.watcher.describe()
        return info

    def stop(self) -> None:
        """Stop both children together (the consumer gracefully), within STOP_GRACE seconds in all."""
        self._done.set()
        for child in self.children:
            child.begin_stop()
        for child in self.children:
            child.stop()

    def _supervise(self) -> None:
        while not self._done.wait(POLL_EVERY):
            for child in self.children:
                try:
                    child.tend()
                except Exception as exc:  # the supervisor must outlive any one failure
                    print(f"sift-mcp: supervising the {child.name} failed: {type(exc).__name__}: {exc}",
                          file=sys.stderr, flush=True)


class _Child:
    """One child process in its own session, restarted when it dies, stopped with its whole process group."""

    def __init__(self, name: str, command: list[str], stop_signal: int, refused_wait: float = BACKOFF_MAX):
        """``refused_wait``: seconds before a child that exited with status 2 (it refused) is started again."""
        self.name = name
        self.refused_wait = refused_wait
        self.command = command
        self.stop_signal = stop_signal
        self.proc: subprocess.Popen | None = None
        self.started = 0.0  # time.time() of the last start
        self.restarts = 0
        self.failures = 0  # deaths in a row without a steady run between them
        self.last_exit: dict | None = None  # {"returncode", "at", "why"} of the last death
        self.reason: str | None = None  # the line this run of the child refused with (workers.refusal)
        self.said: str | None = None  # the refusal printed last, while starts keep refusing: not printed again
        self.told = False  # whether this run printed a refusal not said before
        self._reports: int | None = None  # the read end of this run's pipe
        self.restart_at: float | None = None  # time.time() of the next start, while one is pending
        self.stopping = False
        self.deadline = 0.0  # time.monotonic() by which a stopping child must be gone
        self._lock = threading.RLock()  # RLock: a signal handler may call stop() inside a locked section

    def start(self) -> None:
        with self._lock:
            if self.stopping:
                return
            read, write = refusal.pipe()
            try:
                self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(),
                                             stderr=sys.stderr.fileno(), start_new_session=True,
                                             env={**os.environ, refusal.REPORT_FD: str(write)}, pass_fds=(write,),
                                             preexec_fn=_die_with_parent(os.getpid(), self.stop_signal))
            except BaseException:
                os.close(read)
                raise
            finally:
                os.close(write)
            if self._reports is not None:
                os.close(self._reports)
            self._reports, self.reason, self.told = read, None, False
            self.started = time.time()
            self.restart_at = None
            quiet = self.said is not None  # restarted while it refuses for a reason said already
        if not quiet:
            _log(f"started a {self.name} (pid {self.proc.pid}): {' '.join(self.command[1:])}")

    def _hear(self) -> None:
        """Print what the child said through its pipe, each refusal once while starts keep refusing, and that
        it works again (call with the lock held)."""
        if self._reports is None:
            return
        for line in refusal.received(self._reports):
            if line == refusal.READY:
                if self.said is not None:
                    _log(f"the {self.name} (pid {self.proc.pid}) started normally again")
                self.said = None
                continue
            self.reason = line
            if line != self.said:
                print(line, file=sys.stderr, flush=True)
                self.said, self.told = line, True

    def tend(self) -> None:
        """Notice a death; once its backoff is over, clear the dead child's group and start it again."""
        with self._lock:
            self._hear()
        self._notice()
        with self._lock:
            due = self.restart_at is not None and time.time() >= self.restart_at and not self.stopping \
                and not _restart_held()
            group = self.proc.pid if self.proc is not None else None
        if not due:
            return
        if group is not None and not _wait_group_gone(group, KILL_WAIT):
            _log(f"processes of the dead {self.name}'s group {group} are still alive; starting a new one anyway")
        with self._lock:
            if self.stopping or self.restart_at is None:
                return
            self.restarts += 1
        self.start()

    def _notice(self) -> None:
        """If the child has died (and we are not stopping it), kill what is left of its group and plan a restart."""
        with self._lock:
            if self.proc is None or self.stopping or self.restart_at is not None:
                return
            code = self.proc.poll()
            if code is None:
                return
            self._hear()  # it wrote why before it exited
            quiet = code == REFUSED and self.reason is not None and not self.told
            if code != REFUSED:
                self.said = None  # a crash, not a refusal: the next refusal is news
            now = time.time()
            self.failures = 1 if now - self.started >= STEADY else self.failures + 1
            # status 2: the worker refused a damaged or read-only index or queue, or a bad setting, and said
            # why; a restart refuses again until someone fixes it, so it is tried only at the longest backoff
            delay = self.refused_wait if code == REFUSED else RESTART.wait(self.failures - 1)
            why = self.reason.split(": error: ", 1)[-1] if self.reason else None  # the line without its "who"
            self.last_exit = {"returncode": code, "at": now, "why": why}
            self.restart_at = now + delay
            _signal_group(self.proc.pid, signal.SIGKILL)  # its orphans: they would run on, taking jobs
        if not quiet:
            _log(f"the {self.name} (pid {self.proc.pid}) exited with code {code}; stopped what was left of its "
                 f"process group; restarting it in {delay:.0f} s")

    def describe(self) -> dict:
        self._notice()
        with self._lock:
            if self.proc is None:
                return {"state": "not started"}
            info = {"state": "running", "pid": self.proc.pid, "returncode": None, "command": " ".join(self.command),
                    "restarts": self.restarts, "started_seconds_ago": round(time.time() - self.started, 1)}
            if self.last_exit is not None:
                info["last_exit"] = {"returncode": self.last_exit["returncode"],
                                     "seconds_ago": round(time.time() - self.last_exit["at"], 1),
                                     "why": self.last_exit["why"]}
            if self.stopping:
                code = self.proc.poll()
                info.update(state="stopping" if code is None else "stopped", returncode=code)
            elif self.restart_at is not None:
                info.update(state="restarting", returncode=self.last_exit["returncode"],
                            restart_in_seconds=round(max(0.0, self.restart_at - time.time()), 1))
            return info

    def begin_stop(self) -> None:
        """Send the stop signal to the child's group, once: a second SIGINT would make huey interrupt its jobs."""
        with self._lock:
            self.restart_at = None
            if self.stopping:
                return
            self.stopping = True
            self.deadline = time.monotonic() + STOP_GRACE
            if self.proc is not None:
                _signal_group(self.proc.pid, self.stop_signal)  # a session leader: its pid is its group id

    def stop(self) -> None:
        """Stop the child: up to STOP_GRACE seconds (from the first stop) for its group to end, then SIGKILL.

        A second call while stopping (a signal arriving during a stop) waits out the same deadline, so the
        whole stop stays bounded however many signals arrive."""
        self.begin_stop()
        if self.proc is None:
            return
        group = self.proc.pid
        if not _wait_group_gone(group, self.deadline - time.monotonic(), self.proc):
            _log(f"the {self.name} did not stop within {STOP_GRACE:.0f} s; killing it")
            _signal_group(group, signal.SIGKILL)
        try:
            self.proc.wait(timeout=KILL_WAIT)
        except subprocess.TimeoutExpired:
            pass


def _wait_group_gone(group: int, seconds: float, proc: subprocess.Popen | None = None) -> bool:
    """Wait until no live process is left in the group (reaping our own child on the way); False on timeout."""
    deadline = time.monotonic() + seconds
    while True:
        if proc is not None:
            proc.poll()
        if not _group_alive(group):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def _group_alive(group: int) -> bool:
    """Whether a process of the group is alive (zombies do not count: they hold no job and no file)."""
    if os.path.isdir("/proc/self"):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == group and fields[0] != b"Z":
                return True
        return False
    try:
        os.killpg(group, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _signal_group(group: int, sig: int) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _die_with_parent(parent: int, sig: int):
    """A preexec hook: send ``sig`` to this child when the server dies (Linux), or exit if it already has.

    The consumer gets SIGINT, huey's graceful stop, so even a server that is killed lets running jobs finish; a
    consumer already stopping has taken it back (workers.parent_death), so the death is no second SIGINT.
    """
    prctl = parent_death.prctl()

    def hook():
        if prctl is not None:
            prctl(parent_death.PR_SET_PDEATHSIG, int(sig))
        if os.getppid() != parent:
            os._exit(1)
    return hook


def _restart_held() -> bool:
    """Test hook (tests/test_supervision.py): while the file SIFT_FAULT_HOLD_RESTART names exists, a dead child is
    not started again, so a test sees it 'restarting' however slow the machine (the state lasts 1-2 s unheld, and a
    loaded machine's stats call could come after it). Unset: nothing."""
    held = os.environ.get("SIFT_FAULT_HOLD_RESTART")
    return bool(held) and os.path.exists(held)


def _log(line: str) -> None:
    print(f"sift-mcp: {line}", file=sys.stderr, flush=True)
