"""llama.cpp's output: errors reach stderr, the rest is dropped, and a model load never takes stderr from
other threads (an HTTP server's request log lost its lines while a model loaded) nor leaves stdout moved."""
from __future__ import annotations

import dataclasses
import os
import threading

import llama_cpp.llama_cpp as llama_c
import pytest

from search.model.embedding import Embedder
from search.model.info import ModelError, read_model_info
from search.model.llama_streams import quiet_stdout


def test_lines_written_while_a_model_loads_reach_stderr(model_path, monkeypatch, capfd):
    real_load = llama_c.llama_model_load_from_file

    def load_while_another_thread_logs(*args):
        os.write(2, b"fd 2 during the load\n")
        print("sys.stderr during the load", file=__import__("sys").stderr, flush=True)
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
