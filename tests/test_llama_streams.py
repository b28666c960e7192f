"""llama.cpp's output: errors reach stderr, the rest is dropped, and a model load never takes stderr from
other threads (an HTTP server's request log lost its lines while a model loaded) nor leaves stdout moved."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
from pathlib import Path

import llama_cpp.llama_cpp as llama_c
import pytest

from search.model.embedding import Embedder
from search.model.info import ModelError, read_model_info
from search.model.llama_streams import quiet_stdout

REPO = Path(__file__).resolve().parent.parent


def test_lines_written_while_a_model_loads_reach_stderr(model_path, monkeypatch, capfd):
    real_load = llama_c.llama_model_load_from_file

    def load_while_another_thread_logs(*args):
        os.write(2, b"fd 2 during the load\n")
        print("sys.stderr during the load", file=sys.stderr, flush=True)
        return real_load(*args)
    monkeypatch.setattr(llama_c, "llama_model_load_from_file", load_while_another_thread_logs)
    Embedder(read_model_info(model_path))
    err = capfd.readouterr().err
    assert "fd 2 during the load" in err and "sys.stderr during the load" in err


def test_a_good_load_says_nothing_and_a_bad_one_says_why(model_path, tmp_path, capfd):
    info = read_model_info(model_path)
    Embedder(info)
    quiet = capfd.readouterr()
    assert quiet.err == "" and quiet.out == "", quiet  # llama.cpp's load report and warnings are dropped
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(model_path.read_bytes()[:300_000])
    with pytest.raises(ModelError, match="could not load the model") as failed:
        Embedder(dataclasses.replace(info, path=str(broken)))
    err = capfd.readouterr().err
    assert "llama.cpp: " in err and "failed to load model" in err  # llama.cpp's own reason, on stderr
    first_reason = err.split("llama.cpp: ", 1)[1].splitlines()[0]
    assert first_reason in str(failed.value), (first_reason, str(failed.value))  # and in the error itself


def test_overlapping_quiet_stdout_windows_restore_stdout(capfd):
    before = os.fstat(1)
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with quiet_stdout():
            a_in.set()
            b_in.wait(10)
            os.write(1, b"first, inside\n")
        a_out.set()

    def second():
        a_in.wait(10)
        with quiet_stdout():
            b_in.set()
            a_out.wait(10)  # the first thread has left; this one is still inside
            os.write(1, b"second, inside\n")
    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    os.write(1, b"after\n")
    after = os.fstat(1)
    seen = capfd.readouterr()
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
    assert seen.out == "after\n", seen  # the inside writes went to stderr, the one after to stdout
    assert "first, inside" in seen.err and "second, inside" in seen.err


def closed_file():
    f = open(os.devnull, "w")
    f.close()
    return f


@pytest.mark.parametrize("stdout", [None, "closed"], ids=["no sys.stdout", "closed sys.stdout"])
def test_quiet_stdout_restores_fd_1_whatever_sys_stdout_is(stdout, monkeypatch, capfd):
    before = os.fstat(1)
    monkeypatch.setattr(sys, "stdout", closed_file() if stdout == "closed" else None)
    for _ in range(2):  # a broken flush must not leave the redirect half undone for the next caller
        with quiet_stdout():
            os.write(1, b"inside\n")
    os.write(1, b"after\n")
    monkeypatch.undo()
    after = os.fstat(1)
    seen = capfd.readouterr()
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
    assert seen.out == "after\n" and seen.err.count("inside") == 2, seen


def test_what_c_prints_inside_goes_to_stderr_even_when_buffered():
    # a process of its own without PYTHONUNBUFFERED: then C's stdout into a file or pipe is fully buffered,
    # and a line printed inside would leave the buffer only later, through the restored fd 1
    script = ("import ctypes, os\n"
              "from search.model.llama_streams import quiet_stdout\n"
              "with quiet_stdout():\n"
              "    ctypes.CDLL(None).printf(b'printed by C inside\\n')\n"
              "os.write(1, b'after\\n')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    seen = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert seen.returncode == 0, seen.stderr
    assert "printed by C inside" in seen.stderr and seen.stdout == "after\n", (seen.stdout, seen.stderr)


INTERRUPTED_LOG = """
import os, signal, sys, threading, time
from search.model import llama_streams
llama_streams.quiet_llama()
signal.signal(signal.SIGINT, signal.default_int_handler)  # a shell's background job (CI's) starts with it ignored
callback, caught, go, stop = (llama_streams._log["callback"], threading.Semaphore(0), threading.Event(),
                              threading.Event())
SENT = 20
def ctrl_c():  # one SIGINT at a time from another thread: some land while the main thread is inside the callback
    go.wait()  # the main thread is in its loop
    for _ in range(SENT):
        os.kill(os.getpid(), signal.SIGINT)
        caught.acquire(timeout=5)  # a bound: one lost does not hang the test
    stop.set()
threading.Thread(target=ctrl_c, daemon=True).start()
got = 0
go.set()
while not stop.is_set():
    try:
        for _ in range(100):
            callback(1, b"a debug line\\n", None)  # through ctypes, as llama.cpp calls it
    except KeyboardInterrupt:
        got += 1
        caught.release()
print(got, SENT)
"""


def test_a_ctrl_c_inside_llamas_log_callback_prints_no_traceback_and_is_not_lost():
    """Stopping sift-mcp printed 'Exception ignored on calling ctypes callback function … KeyboardInterrupt' (from
    llama_streams._llama_log's first line): a SIGINT landing while llama.cpp logs is raised inside the callback,
    where ctypes prints and drops it. It is now handed to the main thread again: no traceback, no Ctrl-C lost."""
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_LOG], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
    got, sent = map(int, done.stdout.split())
    assert got == sent, done.stdout
