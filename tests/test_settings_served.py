"""A bad SIFT_* setting in an MCP client's "env" (a typo'd model, SIFT_CHUNK_TOKENS=abc, a negative number) ended
sift-mcp with status 2: Claude Desktop showed only 'disconnected', the reason in a log file. The server serves
what it safely can and says the problem first in its answers and its instructions (mcp_server.settings_problems),
as it does for a --root that is not there (tests/test_mcp_server.py).

Driven by the real stdio client (tests/test_mcp_server.Servers); a tiny index built in huey's immediate mode with
the session's model."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.conftest import ingest, write_tree
from tests.test_mcp_server import call, run, text

CLIENT_ENV = "in the \"env\" of the MCP client's configuration"
CLIENT_ARGS = "in the \"args\" of the MCP client's configuration"


@pytest.fixture
def small(immediate, tmp_path, sift_env) -> dict:
    ingest(write_tree(tmp_path / "notes", {"pasta.md": "# Pasta\n\nBoil water, add salt, cook the spaghetti.\n",
                                           "guitar.md": "# Music\n\nA man plays an acoustic guitar.\n"}))
    return dict(sift_env)


def _environ(pid: int) -> dict[str, str]:
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(pair.decode().split("=", 1) for pair in pairs if b"=" in pair)


@pytest.mark.timeout(300)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the worker's environment from /proc")
def test_a_bad_setting_of_how_the_worker_runs_is_served_with_its_default(sift_env, servers, tmp_path):
    """SIFT_RETRIES=abc and SIFT_WORKERS=0: the server and the worker it starts run with the defaults (the worker's
    environment no longer has them, so it does not refuse in its turn), and every answer says so first."""
    env = {**sift_env, "SIFT_RETRIES": "abc", "SIFT_WORKERS": "0"}

    async def scenario():
        async with servers.session(env) as s:
            stats = await call(s, "stats")
            worker = stats.structured_content["worker"]
            child = _environ(worker["pid"]) if worker["state"] == "running" else {}  # while it runs
            return stats, await call(s, "search", query="pasta", mode="keyword"), s.instructions, child
    stats, search, instructions, child = run(scenario)
    problems = ["SIFT_WORKERS='0' must be at least 1 (the default is 2); sift-mcp and its worker run with the default "
                f"until SIFT_WORKERS is fixed {CLIENT_ENV} (then restart the client)",
                "SIFT_RETRIES='abc' is not a whole number: give a whole number (the default is 3); sift-mcp and its "
                f"worker run with the default until SIFT_RETRIES is fixed {CLIENT_ENV} (then restart the client)"]
    for answer in (stats, search):  # nothing indexed yet: search says so, after the problems
        assert text(answer).splitlines()[:2] == [f"problem: {p}" for p in problems], text(answer)
    assert stats.structured_content["notices"][:2] == problems and "nothing is " in text(search), text(search)
    worker = stats.structured_content["worker"]
    assert worker["state"] == "running", worker
    assert "-w 2 " in worker["command"], "the default number of worker processes"
    assert "SIFT_RETRIES" not in child and "SIFT_WORKERS" not in child, "the worker would refuse the same values"
    assert child["SIFT_HOME"] == sift_env["SIFT_HOME"]
    assert all(f"\nProblem at startup, to tell the user: {p}." in instructions for p in problems), instructions
    assert f"sift-mcp: error: {problems[0]}\n" in (tmp_path / "server-stderr.log").read_text()


@pytest.mark.timeout(300)
def test_a_bad_setting_of_what_the_index_holds_serves_search_and_starts_no_worker(small, servers):
    """SIFT_CHUNK_TOKENS=abc or a typo'd SIFT_MODEL: with the default, the server's worker would index every folder
    again otherwise than set (other chunks, another model). Search answers from the index as built (with its own
    model), no worker is started, and the answers say which setting to fix and where."""
    env = {**small, "SIFT_CHUNK_TOKENS": "abc", "SIFT_MODEL": "e-5"}

    async def scenario():
        async with servers.session(env) as s:
            return (await call(s, "stats"), await call(s, "search", query="cooking spaghetti"),
                    await call(s, "refresh"), await call(s, "read_file", path="notes/pasta.md"))
    stats, search, refresh, read = run(scenario)
    held = (f"and restart the client. Until then search answers from what was indexed before, and sift-mcp starts no "
            "worker (with the default it would index the folders again otherwise than set)")
    problems = [f"SIFT_CHUNK_TOKENS='abc' is not a whole number: give a whole number (the default "
                f"is 256); fix SIFT_CHUNK_TOKENS {CLIENT_ENV} {held}",
                "SIFT_MODEL='e-5' is neither a known model (multilingual-e5-small (e5), "
                f"all-MiniLM-L6-v2 (minilm)) nor a GGUF file: did you mean e5? Fix SIFT_MODEL {CLIENT_ENV} {held}"]
    for answer in (stats, search, refresh):
        assert not answer.is_error, text(answer)
        assert text(answer).splitlines()[:2] == [f"problem: {p}" for p in problems], text(answer)
    assert search.structured_content["mode"] == "hybrid" and "notes/pasta.md" in text(search), text(search)
    assert stats.structured_content["worker"]["state"] == "none"
    assert "worker: none started by this server (a bad setting: see the problem above)" in text(stats), text(stats)
    assert not read.is_error and "Boil water" in text(read) and "problem:" not in text(read), "a file is as it is"


@pytest.mark.timeout(300)
def test_a_home_that_is_not_a_folder_answers_every_tool_with_the_problem(sift_env, servers, tmp_path):
    """SIFT_HOME pointing at a file: another home would be another index, so nothing is served, but the server
    stays connected and every tool (read_file too) says what to fix and where."""
    home = tmp_path / "home-file"
    home.write_text("not a folder\n")
    env = {**sift_env, "SIFT_HOME": str(home)}

    async def scenario():
        async with servers.session(env) as s:
            answers = [await call(s, "stats"), await call(s, "search", query="pasta"), await call(s, "list_files"),
                       await call(s, "read_file", path="notes/a.md"), await call(s, "similar", path="notes/a.md"),
                       await call(s, "refresh")]
            return answers, s.instructions, await s.list_resources()
    answers, instructions, resources = run(scenario)
    problem = (f"sift-mcp cannot serve: SIFT_HOME={home} is not a folder: point SIFT_HOME (--home) at a folder (it is "
               f"made if missing); fix it {CLIENT_ENV} (or --home in its args) and restart the client; until then "
               "nothing can be searched")
    for answer in answers:
        assert answer.is_error and text(answer).endswith(f"problem: {problem}"), text(answer)
    assert instructions.endswith(f"\nProblem at startup, to tell the user: {problem}."), instructions
    assert resources.resources == []
    assert home.read_text() == "not a folder\n"


def test_a_conflict_of_two_settings_names_the_one_the_user_set(tmp_path, monkeypatch):
    """SIFT_CHUNK_TOKENS=16 alone: the default overlap (32) is then too big for it. The error is about both
    variables, the overlap first; the problem named SIFT_CHUNK_OVERLAP as the one to fix, which the user never set,
    while SIFT_CHUNK_TOKENS (the one set, and the one left out) went unnamed."""
    from mcp_server import settings_problems
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SIFT_CHUNK_TOKENS", "16")
    monkeypatch.delenv("SIFT_CHUNK_OVERLAP", raising=False)
    served = settings_problems.load()
    assert served.unusable is None and served.no_worker and served.settings.chunk_tokens == 256
    assert len(served.problems) == 1 and f"; fix SIFT_CHUNK_TOKENS {CLIENT_ENV}" in served.problems[0], served.problems
    assert "SIFT_CHUNK_TOKENS" not in os.environ


@pytest.mark.timeout(300)
def test_a_home_that_cannot_be_looked_at_answers_every_tool_with_the_problem(sift_env, servers):
    """SIFT_HOME with a name longer than the file system takes (or under a folder this user cannot look in): its
    check raised OSError, not a setting's error, and sift-mcp ended with a traceback, 'disconnected' in the client."""
    home = f"/tmp/{'a' * 300}/home"
    env = {**sift_env, "SIFT_HOME": home}

    async def scenario():
        async with servers.session(env) as s:
            return [await call(s, "stats"), await call(s, "search", query="pasta")]
    answers = run(scenario)
    problem = (f"sift-mcp cannot serve: SIFT_HOME={home} cannot be looked at: File name too long; point SIFT_HOME "
               f"(--home) at a folder you can write (it is made if missing); fix it {CLIENT_ENV} (or --home in its "
               "args) and restart the client; until then nothing can be searched")
    for answer in answers:
        assert answer.is_error and text(answer).endswith(f"problem: {problem}"), text(answer)


@pytest.mark.skipif(not Path("/proc/self/mounts").exists(), reason="reads the mounts from /proc (Linux)")
@pytest.mark.parametrize("home", ["/proc/sift", "/proc", "/sys/sift/home"])
def test_a_home_on_the_kernels_file_system_names_it(monkeypatch, home):
    """SIFT_HOME=/proc/x as root: os.access lets root write anywhere, so the home passed as makeable and the
    index's open said 'read-only … chmod u+w', which no chmod fixes. The kernel's file system is named."""
    from search.settings import SettingError, load
    monkeypatch.setenv("SIFT_HOME", home)
    with pytest.raises(SettingError) as raised:
        load()
    system = "proc" if home.startswith("/proc") else "sysfs"
    assert f"on the kernel's {system} file system (/{home.split('/')[1]})" in str(raised.value), raised.value
    assert "read-only" not in str(raised.value) and "point SIFT_HOME (--home) at a folder" in str(raised.value)


def test_a_home_under_a_read_only_mount_says_so(monkeypatch, tmp_path):
    """A home to be made on a file system mounted read-only: 'not writable for this user' sent the user to chmod
    (and root was told nothing, the index's open failing later). The mount is named; /proc/self/mounts is a
    hand-made one here, as a read-only mount cannot be made without privileges."""
    from search import settings
    mounts = tmp_path / "mounts"
    mounts.write_text(f"/dev/sda1 / ext4 rw,relatime 0 0\nserver:/share {tmp_path} nfs ro,relatime 0 0\n")
    monkeypatch.setattr(settings, "MOUNTS", mounts)
    assert settings.mount_of(tmp_path / "home") == (str(tmp_path), "nfs", True)
    assert settings.home_unmakeable(tmp_path / "new" / "home") == \
        f"{tmp_path} is on a file system mounted read-only ({tmp_path})"
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "new" / "home"))
    with pytest.raises(settings.SettingError, match="does not exist and cannot be made: .* mounted read-only"):
        settings.load()
    from search.index import db  # a home there already: what the index's open says names the mount, not chmod
    said = db.read_only(tmp_path / "home" / "index.db", f"cannot write in {tmp_path / 'home'}")
    assert f"its file system is mounted read-only ({tmp_path}): mount it read-write" in said and "chmod" not in said


@pytest.mark.parametrize("given", ["env", "flag"])
def test_a_relative_home_without_an_index_names_the_folder_it_was_read_from(monkeypatch, tmp_path, given):
    """SIFT_HOME=sift-home in a client's "env" (or --home sift-home in its args): the client starts sift-mcp in a
    folder of its own (often /), so the home was /sift-home, empty, and every answer said only 'nothing is indexed
    yet' (its worker building a new index there). Served all the same (by hand, in the folder meant, it is the home
    meant: tests/test_cli.py), and every answer says where it was read."""
    from mcp_server import server
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIFT_HOME", raising=False)
    args = server.build_parser().parse_args(["--home", "sift-home"] if given == "flag" else [])
    if given == "env":
        monkeypatch.setenv("SIFT_HOME", "sift-home")
    served = server._served_settings(args)
    assert served.unusable is None and not served.no_worker
    named, where = ("--home ", CLIENT_ARGS) if given == "flag" else ("SIFT_HOME=", CLIENT_ENV)  # where it is fixed
    assert served.problems == [
        f"{named}sift-home is a relative path, read from the folder the server was started in ({tmp_path}) as "
        f"{tmp_path / 'sift-home'}, which held no index (a new one is made there): if another home was meant, give "
        f"its absolute path, or one starting with ~, {where} and restart the client"], served.problems
    (tmp_path / "sift-home").mkdir()
    (tmp_path / "sift-home" / "index.db").write_bytes(b"")
    monkeypatch.setenv("SIFT_HOME", "sift-home")
    assert server._served_settings(args).problems == [], "a relative home that holds an index is the one meant"


@pytest.mark.timeout(300)
def test_a_misspelled_setting_name_is_said_first_with_the_setting_meant(small, servers):
    """SIFT_EXCLUDE misspelt EXCLUDES in a client's "env" changed nothing and nothing said so: every draft was indexed
    and the user could not tell why. The answers say it first, with the setting meant (search.setting_names)."""
    slip = "SIFT" + "_EXCLUDES"  # in two pieces, or tests/test_docs.py would take it for a setting
    env = {**small, slip: "pasta.md"}

    async def scenario():
        async with servers.session(env) as s:
            return await call(s, "stats"), await call(s, "search", query="pasta", mode="keyword"), s.instructions
    stats, search, instructions = run(scenario)
    problem = (f"{slip} is not a Sift setting, so it changes nothing: did you mean SIFT_EXCLUDE? Fix it "
               f"{CLIENT_ENV} and restart the client")
    for answer in (stats, search):
        assert text(answer).splitlines()[0] == f"problem: {problem}", text(answer)
    assert "notes/pasta.md" in text(search), "served as usual"
    assert f"Problem at startup, to tell the user: {problem}." in instructions, instructions


@pytest.mark.parametrize("given", ["env", "flag"])
def test_an_absolute_home_that_is_not_there_names_the_one_beside_it_meant(monkeypatch, tmp_path, given):
    """SIFT_HOME=/Users/me/.sfit in a client's "env": a new, empty home, and every answer said only 'nothing is
    indexed yet', as if the notes indexed into ~/.sift were gone. The home beside it with a close name that holds
    an index is named, where to fix it too (search.setting_names.home_meant)."""
    from mcp_server import server
    from search.index import db
    db.connect(tmp_path / ".sift" / "index.db").close()
    monkeypatch.delenv("SIFT_HOME", raising=False)
    slip = str(tmp_path / ".sfit")
    args = server.build_parser().parse_args(["--home", slip] if given == "flag" else [])
    if given == "env":
        monkeypatch.setenv("SIFT_HOME", slip)
    served = server._served_settings(args)
    named, where = ("--home ", CLIENT_ARGS) if given == "flag" else ("SIFT_HOME=", CLIENT_ENV)
    assert served.unusable is None and served.problems == [
        f"{named}{slip} holds no index, but {tmp_path / '.sift'} beside it does: if that home was meant, give it "
        f"{where} and restart the client"], served.problems
    # its first start made the slip's home and its empty index: the second start said nothing of the home meant
    db.connect(tmp_path / ".sfit" / "index.db").close()
    served = server._served_settings(server.build_parser().parse_args(["--home", slip] if given == "flag" else []))
    assert served.problems == [
        f"{named}{slip} holds nothing indexed, but {tmp_path / '.sift'} beside it does: if that home was meant, give "
        f"it {where} and restart the client"], served.problems
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "elsewhere"))
    args = server.build_parser().parse_args([])
    assert server._served_settings(args).problems == [], "no home close to it holds an index: a new home"


def test_a_home_with_passages_is_not_told_of_a_close_one(tmp_path_factory, model_path):
    """The hint for a slip's home is given while that home has nothing indexed (search.setting_names.home_meant
    counts its passages): a home that holds some is the one meant, whatever is beside it."""
    from search.index import db
    from search.setting_names import home_meant
    from tests.conftest import tree_built_once
    from tests.test_cli_start_imports import TREE
    home = tree_built_once(tmp_path_factory, model_path, TREE, "mixed")  # the build that module shares
    db.connect(home.parent / "homes" / "index.db").close()  # a close name beside it, holding an index
    assert home_meant(home) is None
    assert home_meant(home.parent / "hom") == home, "a home not there is still told the close one"


@pytest.mark.timeout(300)
def test_a_slips_home_is_no_longer_said_once_the_servers_own_worker_built_its_index(sift_env, servers, tmp_path):
    """SIFT_HOME=/Users/me/.sfit with --root: the server's worker builds the slip's home, and 'holds no index, but
    ~/.sift beside it does' was worked out once at start and headed every answer after, though it held one."""
    from search.index import db
    from tests.test_mcp_server import _poll_search
    db.connect(tmp_path / ".sift" / "index.db").close()
    slip = str(tmp_path / ".sfit")
    root = write_tree(tmp_path / "notes", {"harbour.md": "# Harbour\n\nBoats in the harbour at dawn.\n"})
    env = {**sift_env, "SIFT_HOME": slip, "SIFT_EMBEDDINGS": "off"}

    async def scenario():
        async with servers.session(env, "--root", str(root)) as s:
            found = await _poll_search(s, "harbour")
            return s.instructions, found, await call(s, "stats"), await call(s, "search", query="dawn", mode="keyword")
    instructions, found, stats, search = run(scenario)
    assert f"{slip} holds no index, but {tmp_path / '.sift'} beside it does" in instructions, "said at start"
    assert found["results"][0]["path"] == "notes/harbour.md"
    for answer in (stats, search):
        assert "beside it does" not in text(answer) and not text(answer).startswith("problem:"), text(answer)
    assert not any("beside it does" in notice for notice in stats.structured_content["notices"])
