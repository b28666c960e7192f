"""Where llama.cpp's output goes: never onto stdout, never taking stderr away.

stdout may be the MCP stdio wire, so C code's prints go to stderr while llama.cpp runs (``quiet_stdout``).
stderr is every process's log, so it stays where it is: llama-cpp-python, unless ``verbose``, points fds
1 and 2 (and ``sys.stdout``/``sys.stderr``) at /dev/null while it loads a model. That is process-wide:
log lines other threads wrote meanwhile (an HTTP request's) were lost, and two loads at once could leave
stderr at /dev/null for good. ``quiet_llama`` switches that off and routes llama.cpp's log through
``_llama_log`` instead, which keeps its errors (on stderr, and in ``errors_logged`` for the error a failed
load raises) and drops the rest.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading


def _c_fflush():
    """C's fflush, looked up once (quiet_stdout runs around every embedding); None where it cannot be had."""
    try:
        return ctypes.CDLL(None).fflush
    except (AttributeError, OSError):
        return None


_LLAMA_ERROR, _LLAMA_CONTINUED = 4, 5  # ggml_log_level: 1 debug, 2 info, 3 warn, 4 error, 5 continues a line

_lock = threading.Lock()
_thread = threading.local()  # .errors: the list errors_logged() collects this thread's error lines in
_redirect = {"depth": 0, "saved": None}  # threads inside quiet_stdout; the real fd 1 while they are
_log = {"callback": None, "error": False, "hook": None}  # the ctypes callback (kept alive); whether the last line
# was an error; the sys.unraisablehook before ours
_fflush = _c_fflush()


@contextlib.contextmanager
def quiet_stdout():
    """fd 1 points at stderr while any thread is inside; the first in redirects, the last out restores
    (a save and restore per thread could interleave and leave fd 1 at stderr)."""
    with _lock:
        if _redirect["depth"] == 0:
            _redirect["saved"] = _point_stdout_at_stderr()
        _redirect["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _redirect["depth"] -= 1
            if _redirect["depth"] == 0 and _redirect["saved"] is not None:
                saved, _redirect["saved"] = _redirect["saved"], None
                try:
                    _flush_stdout()
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)


def _point_stdout_at_stderr() -> int | None:
    """The saved real fd 1, or None where there is no fd 1 to move."""
    _flush_stdout()
    try:
        saved = os.dup(1)
    except OSError:
        return None
    os.dup2(2, 1)
    return saved


def _flush_stdout() -> None:
    """What Python and C hold for fd 1 goes out now, to where fd 1 points now."""
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):  # no sys.stdout, or a closed one
        pass
    if _fflush is not None:
        _fflush(None)  # C's stdio buffers (a printf of llama.cpp's)


@contextlib.contextmanager
def errors_logged():
    """The error lines llama.cpp logs on this thread inside the block (a failed load's reasons: llama.cpp
    logs from the thread that called it)."""
    errors: list[str] = []
    _thread.errors = errors
    try:
        yield errors
    finally:
        _thread.errors = None


def quiet_llama() -> None:
    """Once per process, before a model loads: loads leave the standard streams alone, and llama.cpp
    logs through ``_llama_log``."""
    with _lock:
        if _log["callback"] is not None:
            return
        import llama_cpp
        import llama_cpp._internals
        import llama_cpp.llama
        for module in (llama_cpp.llama, llama_cpp._internals):
            if hasattr(module, "suppress_stdout_stderr"):
                module.suppress_stdout_stderr = _KeepStreams
        _log["callback"] = llama_cpp.llama_log_callback(_llama_log)
        llama_cpp.llama_log_set(_log["callback"], ctypes.c_void_p(0))
        _log["hook"] = sys.unraisablehook
        sys.unraisablehook = _interrupt_in_the_log


def _interrupt_in_the_log(unraisable) -> None:
    """A Ctrl-C that lands while llama.cpp calls ``_llama_log`` (freeing a model as a process stops) raises on the
    callback's first line, where ctypes can only print it and drop it: stopping sift-mcp printed 'Exception ignored
    on calling ctypes callback function … KeyboardInterrupt'. It is handed to the main thread again instead, once
    out of the callback (a second Ctrl-C stops huey's graceful shutdown: it must not be lost)."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and unraisable.object is _llama_log:
        import _thread as low_level
        try:  # not threading.Thread: its start() waits in Python code, where the interrupt could land again
            low_level.start_new_thread(_interrupt_soon, ())
        except RuntimeError:  # the interpreter is exiting: no thread starts, and the interrupt has nothing to stop
            pass
        return
    _log["hook"](unraisable)


INTERRUPT_AGAIN_AFTER = 0.05  # seconds: the main thread is back out of the callback (or in another: then again)


def _interrupt_soon() -> None:
    import _thread as low_level
    import time
    time.sleep(INTERRUPT_AGAIN_AFTER)
    low_level.interrupt_main()


class _KeepStreams:
    """Stands in for llama-cpp-python's ``suppress_stdout_stderr(disable=...)``: leaves the streams alone."""

    def __init__(self, disable: bool = True):
        self.disable = disable

    def __enter__(self):
        return self

    def __exit__(self, *_):
        return None


def _llama_log(level: int, text: bytes, _user_data) -> None:
    """Errors to stderr, the rest (a model's load report, tokenizer warnings) dropped. llama-cpp-python's
    own callback maps the levels of an older llama.cpp and shows warnings as errors."""
    if level != _LLAMA_CONTINUED:
        _log["error"] = level == _LLAMA_ERROR
    if _log["error"]:
        line = text.decode("utf-8", "replace")
        errors = getattr(_thread, "errors", None)
        if errors is not None and level != _LLAMA_CONTINUED and line.strip():
            errors.append(line.strip())
        try:
            sys.stderr.write(line if level == _LLAMA_CONTINUED else f"llama.cpp: {line}")
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):  # no stderr (closed, or gone at interpreter exit)
            pass
