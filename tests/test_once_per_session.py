"""What tests/conftest.py's ``once_per_session`` and ``built_once`` promise across pytest-xdist's workers: one
build for the session, whichever worker asks first, and a copy of it for each worker that its tests may change.

Each test runs a small pytest session of its own with two workers and ``--dist each`` (every test on both workers:
with this session's own ``-n 2`` nothing says a test of it runs on both), and reads what the workers wrote."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, once_per_session

# The inner session's tests: each worker records what it did in the session's shared folder (lines appended to a
# file are each written whole).
INNER = '''
import os
from pathlib import Path

from tests.conftest import built_once, once_per_session, session_folder


def note(tmp_path_factory, name, line):
    with open(session_folder(tmp_path_factory) / name, "a") as record:
        record.write(line + "\\n")


def test_made_once(tmp_path_factory):
    worker = os.environ["PYTEST_XDIST_WORKER"]

    def make(folder):
        note(tmp_path_factory, "makes", worker)
        (folder / "made-by").write_text(worker)
    folder = once_per_session(tmp_path_factory, "a thing", make)
    note(tmp_path_factory, "uses", f"{worker} {folder} {(folder / 'made-by').read_text()}")


def test_a_copy_of_its_own(tmp_path_factory):
    worker = os.environ["PYTEST_XDIST_WORKER"]

    def build(folder):
        note(tmp_path_factory, "builds", worker)
        (folder / "home").mkdir()
        (folder / "home" / "written").write_text("built\\n")
    home = built_once(tmp_path_factory, Path("no-model.gguf"), build, key="an index")
    with open(home / "written", "a") as written:
        written.write(worker + "\\n")
    note(tmp_path_factory, "copies", f"{worker} {home}")
'''


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Path:
    """The inner session's shared folder, once its tests have run on two xdist workers, each test on both. Run
    once for this session (``once_per_session`` itself: a subprocess of three pytest processes takes 4 s of CPU,
    and this module's two tests go to both of this session's workers)."""
    return once_per_session(tmp_path_factory, "inner-session", run_inner) / "session"


def run_inner(folder: Path) -> None:
    (folder / "test_inner.py").write_text(INNER, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SIFT_"))}
    # a home of its own: built_once imports workers.app, whose queue is that of the home it is imported with
    env.update(SIFT_HOME=str(folder / "home"), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist",
                           "each", f"--basetemp={folder / 'session'}", "test_inner.py"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def lines(path: Path) -> list[list[str]]:
    return sorted(line.split() for line in path.read_text().splitlines())


def test_a_thing_made_once_per_session_is_made_by_one_worker_for_both(shared):
    """Each worker made the model and each module's index for itself (for a module whose tests both ran); the
    second to ask now waits for the first and gets its folder."""
    makes, uses = lines(shared / "makes"), lines(shared / "uses")
    assert len(makes) == 1, makes
    assert [use[0] for use in uses] == ["gw0", "gw1"], uses  # both asked for it
    assert len({use[1] for use in uses}) == 1 and {use[2] for use in uses} == {makes[0][0]}, (makes, uses)
    assert Path(uses[0][1]).parent == shared / "once"


def test_each_worker_changes_a_copy_of_the_built_index_of_its_own(shared):
    """Built once, the index is still each worker's own to change (as when each built it): what one worker's
    tests write to their home reaches neither the other's nor the build the next worker copies."""
    assert len(lines(shared / "builds")) == 1, lines(shared / "builds")
    copies = lines(shared / "copies")
    assert [worker for worker, _ in copies] == ["gw0", "gw1"], copies
    for worker, home in copies:
        assert (Path(home) / "written").read_text() == f"built\n{worker}\n", (worker, home)
    built = [p for p in (shared / "once").glob("built-an-index-*/home/written")]
    assert [p.read_text() for p in built] == ["built\n"], built
