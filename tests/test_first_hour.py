"""A new user's first hour, as the commands tell it: `ingest search` while a folder's first build is still under
way says so before its passages, as the MCP tool does (it answered from the other collections, or from the
first part of the folder, as if that were all there is); `sift-mcp` started by hand on a terminal prints the
command that gives it to an assistant, with this checkout's absolute paths, where the README's `/path/to/sift` was
the step a newcomer got wrong.

Real SQLite, the session's MiniLM, a real huey queue whose jobs this process runs (tests/test_parts_as_seen)."""
from __future__ import annotations

import re
import threading
import time
from pathlib import Path

from tests.test_parts_as_seen import between_parts, notes, run_jobs

DEADLINE = 900.0  # seconds: a safety net against a hung test, not a speed assertion


def test_ingest_search_says_a_first_build_is_partial_or_not_published(sift_env, tmp_path, monkeypatch, capsys):
    from ingest import cli
    from search.index import store
    conn, _ = between_parts(tmp_path, monkeypatch)  # 'notes': its first part of 5 files published, 18 not read yet
    (tmp_path / "later").mkdir()
    store.ensure_collection(conn, "later", str(tmp_path / "later"))  # registered, no worker has scanned it yet
    conn.commit()

    assert cli.main(["search", "pelican", "--mode", "keyword"]) == 0
    out = capsys.readouterr().out
    partial = ("note: partial results: only 5 of notes's 23 files searched so far, the newest first; the answer may be "
               "in one of the 18 not read yet: search again after its first build's next part (ingest stats says "
               "when)\n")
    unread = ("note: 'later' has published nothing yet, so none of its files were searched (its first build: "
              "ingest stats --watch shows how far)\n")
    assert partial in out and unread in out, out
    assert out.index(partial) < out.index(" 1. notes/n") and out.index(unread) < out.index(" 1. notes/n"), \
        "said before the passages, which are of the part read"

    assert cli.main(["search", "pelican", "--mode", "keyword", "--collection", "notes"]) == 0
    out = capsys.readouterr().out
    assert "of notes's 23 files searched so far" in out and "'later'" not in out, "only the collection searched is told"


def test_sift_mcp_on_a_terminal_prints_the_command_that_gives_it_to_an_assistant(tmp_path, monkeypatch, capsys):
    """The README's '/path/to/sift/.venv/bin/sift-mcp' and a relative --root were what newcomers got wrong (the
    client starts the server in a folder of its own); the line printed has this server's own absolute paths, the
    shell's settings a client would not pass, and runs as printed (shlex)."""
    import shlex
    import sys
    from mcp_server import server
    notes = tmp_path / "my notes"
    notes.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "venv" / "bin" / "sift-mcp"), "--root", "my notes"])
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setenv("SIFT_HOME", "home")
    monkeypatch.setenv("SIFT_MODEL", "minilm")
    monkeypatch.delenv("SIFT_EXCLUDE", raising=False)
    server._hint_on_a_terminal("my notes", "vault")
    err = capsys.readouterr().err.splitlines()
    assert err[0] == server.TERMINAL_HINT, err
    prefix = "sift-mcp: to give it to Claude Code: "
    assert err[1].startswith(prefix), err
    assert shlex.split(err[1][len(prefix):]) == [
        "claude", "mcp", "add", "sift", "-s", "user", "-e", f"SIFT_HOME={tmp_path / 'home'}", "-e", "SIFT_MODEL=minilm",
        "--", str(tmp_path / "venv" / "bin" / "sift-mcp"), "--root", str(notes.resolve()), "--name", "vault"], err


def test_sift_mcp_on_a_terminal_prints_claude_desktops_config_too_and_keeps_the_flags_given(tmp_path):
    """A new user ran `sift-mcp --root … --no-worker` on a terminal: it printed only the Claude Code line, without
    --no-worker. It prints the README's Claude Desktop configuration too, with this install's absolute paths, and
    both keep the flags given. The real server, its stdin a terminal (a pty), stopped with Ctrl-D."""
    import json
    import os
    import pty
    import shlex
    import subprocess
    import sys
    from tests.conftest import REPO
    notes = tmp_path / "notes"
    notes.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIFT_")}
    env.update(SIFT_HOME="home", PYTHONPATH=str(REPO))
    terminal, its_end = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "mcp_server", "--root", "notes", "--no-worker"], cwd=tmp_path,
                            env=env, stdin=its_end, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    os.close(its_end)
    try:
        os.write(terminal, b"\x04")  # Ctrl-D: end of input
        err = proc.communicate(timeout=120)[1]  # a hang guard, not a speed assertion
    finally:
        proc.kill()
        os.close(terminal)
    code = next(line for line in err.splitlines() if line.startswith("sift-mcp: to give it to Claude Code: "))
    assert shlex.split(code.split(": ", 2)[2])[-7:] == [
        "--", sys.executable, "-m", "mcp_server", "--root", str(notes.resolve()), "--no-worker"], code
    said = "sift-mcp: to give it to Claude Desktop, in claude_desktop_config.json:\n"
    assert said in err, err
    config = json.JSONDecoder().raw_decode(err[err.index(said) + len(said):])[0]
    assert config == {"mcpServers": {"sift": {
        "command": sys.executable, "args": ["-m", "mcp_server", "--root", str(notes.resolve()), "--no-worker"],
        "env": {"SIFT_HOME": str((tmp_path / "home").resolve())}}}}, config


def test_a_folder_that_is_not_there_is_told_the_one_beside_it_meant(tmp_path, monkeypatch):
    """'--root ~/Notes' (or 'ingest enqueue ~/ntoes') said only that it did not exist; the folder beside it whose
    name differs in case or by a slip of the keyboard is offered, and a '~' says which home it was read in."""
    import pytest
    from ingest.discover import not_a_folder
    from mcp_server.server import StartupError, register_root
    (tmp_path / "Notes").mkdir()
    (tmp_path / "code").mkdir()
    assert not_a_folder("notes", tmp_path / "notes") == f"notes does not exist (did you mean {tmp_path / 'Notes'}?)"
    assert not_a_folder("x", tmp_path / "Ntoes") == f"x does not exist (did you mean {tmp_path / 'Notes'}?)"
    assert not_a_folder("x", tmp_path / "recipes") == "x does not exist", "nothing near: nothing offered"
    assert not_a_folder("x", tmp_path / "gone" / "notes") == "x does not exist", "its parent missing too"

    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(StartupError) as meant:
        register_root(None, "~/notes", None)
    assert str(meant.value) == f"--root ~/notes: not a folder: ~/notes does not exist (did you mean {tmp_path / 'Notes'}?)"
    with pytest.raises(StartupError) as nowhere:
        register_root(None, "~/recipes", None)
    assert str(nowhere.value) == f"--root ~/recipes: not a folder: ~/recipes does not exist (~ read as {tmp_path})"


def test_a_bare_ingest_prints_its_commands_not_an_argparse_error(capsys):
    """A bare `ingest` said only 'ingest: error: the following arguments are required: {enqueue,stats,…}': a
    newcomer's first command. It prints the help, each command with what it does (status 2, as before)."""
    from ingest import cli
    assert cli.main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("usage: ingest "), captured.err
    assert "    enqueue             register a folder as a collection" in captured.err, captured.err
    assert "error" not in captured.err
    assert cli.main(["model"]) == 2
    assert "    info          show the model's id" in capsys.readouterr().err


def test_the_demo_writes_its_worker_log_inside_its_home():
    """scripts/demo wrote "$SIFT_HOME.worker.log" beside the home: with SIFT_HOME=~/.sift, a stray
    ~/.sift.worker.log. It goes inside, as the README says."""
    from tests.conftest import REPO
    demo = (REPO / "scripts" / "demo").read_text()
    consumer = next(line for line in demo.splitlines() if "huey_consumer" in line)
    assert '>"$SIFT_HOME/worker.log"' in consumer, consumer
    assert demo.index('mkdir -p "$SIFT_HOME"') < demo.index(consumer)


def test_ingest_similar_of_a_file_not_indexed_yet_names_ingest_stats(sift_env, tmp_path, monkeypatch, capsys):
    """`ingest similar` of a file of the generation being built said 'stats shows the generation being built', the
    MCP tool's word: on the command line it is `ingest stats`. The tool's wording stays."""
    from ingest import cli
    from search.index import generation_reads, progress_reads
    from search.query.answer import SearchError
    from search.query.engine import from_settings
    from search.settings import load
    conn, cid = between_parts(tmp_path, monkeypatch)  # generation 2 builds its part: those 5 files wait
    waiting = progress_reads.pending_paths(conn, generation_reads.building_generation(conn, cid)["id"])[0]
    assert cli.main(["similar", f"notes/{waiting}"]) == 2
    assert capsys.readouterr().err == (f"ingest: error: notes/{waiting} has no passages in the published index: it "
                                       "waits to be indexed: ingest stats shows the generation being built\n")
    import pytest
    with pytest.raises(SearchError, match="waits to be indexed: stats shows the generation being built$"):
        from_settings(load()).similar(path=("notes", waiting))


def test_stats_says_a_rescan_asked_for_during_a_build_is_queued_within_a_minute_once_it_ended(immediate, tmp_path):
    """'waiting: a rescan was asked for 40 s ago; … queues it once nothing of notes is under way' stood up to a
    minute after the build had ended, nothing saying what it still waited for: the worker's periodic check."""
    from search.index import freshness
    from tests.conftest import ingest, write_tree
    from tests.test_freshness import _stats_text
    from workers import runtime
    ingest(write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha\n"}))
    conn = runtime.index()
    freshness.request(conn, 1)  # asked for while its build ran (workers.rescan.request_scan): the build is over
    said = _stats_text(conn).splitlines()
    line = next(line for line in said if line.startswith("  waiting: "))
    assert line.endswith(" ago; nothing of notes is under way now, so a worker's periodic check queues it within a "
                         "minute (SIFT_PERIODIC_SECONDS)"), said


def test_ingest_enqueue_of_a_file_of_a_collection_says_to_rescan_the_collection(sift_env, tmp_path, capsys):
    """`ingest enqueue "~/vault/sub dir/a note.md"` was told to give 'this file's' folder: registering it made a
    second collection of files already indexed. A file of a registered collection names the command that rescans
    that collection; a file of none is still told its folder."""
    from ingest import cli
    from search.index import store
    from tests.conftest import write_tree
    from workers import runtime
    root = write_tree(tmp_path / "my vault", {"sub dir/a note.md": "# A\n", "b.md": "# B\n"})
    loose = write_tree(tmp_path / "loose", {"c.md": "# C\n"})
    conn = runtime.index()
    store.ensure_collection(conn, "vault", str(root))
    conn.commit()
    assert cli.main(["enqueue", str(root / "sub dir" / "a note.md")]) == 2
    assert capsys.readouterr().err == (f"ingest: error: not a folder: {root / 'sub dir' / 'a note.md'} is a file of "
                                       f"the collection 'vault': `ingest enqueue '{root}'` rescans that collection, "
                                       "which indexes the files changed since its last scan (one file is not queued "
                                       "alone)\n")
    assert cli.main(["enqueue", str(loose / "c.md")]) == 2
    assert capsys.readouterr().err == (f"ingest: error: not a folder: {loose / 'c.md'} is a file: give the folder "
                                       f"that holds the notes (this file's: {loose})\n")


def test_commands_said_for_a_folder_with_spaces_run_as_printed(sift_env, tmp_path, capsys):
    """`ingest remove 'my notes'` said "`ingest enqueue /home/me/my notes --name my notes` indexes it again":
    copied, that registers '/home/me/my' with extra arguments. The paths and names in the commands Sift prints
    are quoted as a shell reads them."""
    import shlex
    from ingest import cli
    from search.index import store
    from search.index.status import freshness_lines
    from tests.conftest import write_tree
    from workers import runtime
    root = write_tree(tmp_path / "my notes", {"a.md": "# A\n"})
    conn = runtime.index()
    store.ensure_collection(conn, "my notes", str(root))
    conn.commit()
    assert cli.main(["remove", "my notes"]) == 0
    said = capsys.readouterr().out
    command = said.split("`")[1]
    assert shlex.split(command) == ["ingest", "enqueue", str(root), "--name", "my notes"], said
    gone = freshness_lines({"root_missing": True, "root_missing_since": 1.0}, None, "my notes", 0)
    assert "`ingest remove 'my notes'` forgets the collection" in gone[0], gone


def test_sift_mcp_help_says_who_starts_it_and_where_its_settings_come_from():
    """`sift-mcp --help` listed its flags alone: nothing said that a client starts it over stdio, that the
    SIFT_* settings come from the environment (which a client passes only when told), nor that --root wants
    an absolute path (a client starts it in a folder of its own)."""
    from mcp_server.server import build_parser
    said = " ".join(build_parser().format_help().split())
    assert "[--root FOLDER]" in said and "give its absolute path" in said, said
    assert "An MCP client (Claude Desktop, Claude Code) starts it" in said and "SIFT_HOME, SIFT_MODEL" in said
    assert "docs/configuration.md" in said and "`claude mcp add`" in said


def test_ingest_stats_json_before_an_index_gives_the_model_in_the_stats_tools_keys(tmp_path, monkeypatch, model_path,
                                                                                  capsys):
    """`ingest stats --json` on a fresh home gave model.id 'multilingual-e5-small (built at … on first need)': prose
    where a script reads an id. The model not built yet has no id; its name, path and `built: false` say it, in the
    keys the MCP stats tool's model has (configured, name, path); the report fits the tool's shape."""
    import json

    from pydantic import TypeAdapter

    from ingest import cli
    from mcp_server import shapes
    from mcp_server.model_state import ModelState
    from search.model.info import read_model_info
    from search.settings import load
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SIFT_MODEL", raising=False)
    monkeypatch.delenv("SIFT_EMBEDDINGS", raising=False)
    assert cli.main(["stats", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    TypeAdapter(shapes.Stats).validate_python(report)
    model = report["model"]
    assert "id" not in model and model["built"] is False, model
    served = ModelState(load()).describe()  # the server's, before it loads anything
    assert {key: model[key] for key in ("configured", "name", "path")} == \
        {key: served[key] for key in ("configured", "name", "path")} == \
        {"configured": "default", "name": "multilingual-e5-small",
         "path": str(tmp_path / "home" / "models" / "multilingual-e5-small.gguf")}
    assert report["collections"] == [] and report["index_path"] == str(tmp_path / "home" / "index.db")
    assert not (tmp_path / "home").exists(), "a command that reads makes no home"
    assert cli.main(["stats"]) == 0
    assert capsys.readouterr().out.startswith(f"model: multilingual-e5-small (built at {model['path']} on first need)\n")

    monkeypatch.setenv("SIFT_MODEL", str(model_path))
    assert cli.main(["stats", "--json"]) == 0
    model = json.loads(capsys.readouterr().out)["model"]
    assert model["id"] == read_model_info(model_path).model_id and model["dim"] == 384 and "built" not in model
    assert model["configured"] == str(model_path) and "name" not in model, "a GGUF file is no known model"


def test_ingest_search_names_commands_where_the_engine_names_the_tools(immediate, tmp_path, capsys):
    """`ingest search` printed the engine's lines in the MCP tools' words: an attached PDF not read yet said
    'refresh queues one', a sync conflict copy 'read_file reads each', a PDF the scan leaves out 'read_file on it
    says which'. A terminal user has none of those: the command that does it is named, or the reason itself."""
    from ingest import cli
    from search.query import unindexed
    from tests.conftest import ingest, write_tree
    root = write_tree(tmp_path / "notes", {"later.md": "# Later\n\nsee ![](later.pdf) for the pelican\n",
                                           "pasta.md": "# Pasta\n\nBoil water for the spaghetti.\n",
                                           "pasta (conflicted copy 2024-01-01).md": "# Pasta\n\nBoil water quickly "
                                                                                     "for the spaghetti.\n",
                                           ".gitignore": "drafts/\n"})
    ingest(root)
    (root / "later.pdf").write_bytes(b"%PDF-1.4\n")  # after the scan: none has read it yet
    assert cli.main(["search", "pelican", "--mode", "keyword"]) == 0
    out = capsys.readouterr().out
    assert (f"not indexed: later.pdf (in the folder, but no scan has read it yet (it changed after the last scan "
            f"began, ") in out and f"; `ingest enqueue {root}` queues one))\n" in out, out
    assert cli.main(["search", "spaghetti", "--mode", "keyword"]) == 0
    out = capsys.readouterr().out
    assert "matched too: left off the page for other notes: open each to compare)" in out, out
    assert cli.main(["search", "spaghetti pelican", "--mode", "keyword", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    for tool in ("refresh", "read_file", "list_files", "stats shows"):
        assert tool not in out, (tool, out)

    rules = cli._rules(None)
    assert cli._attachment_why(unindexed.LEFT_OUT, str(root), "drafts/a.pdf", rules) == \
        "in the folder, but the scan leaves it out: drafts/ is ignored by .gitignore"
    assert cli._attachment_why(unindexed.LEFT_OUT, str(root), "later.pdf", rules) == \
        f"in the folder, but no scan has read it yet (`ingest enqueue {root}` queues one)"
    assert cli._in_cli_words("not in the published index yet: list_files shows its state") == \
        "not in the published index yet: `ingest files` shows its state"


def test_the_tools_name_the_refresh_tool_where_the_model_and_the_index_name_ingest_enqueue(tmp_path):
    """The other way: a search whose index's model file is gone said '(`ingest enqueue` re-embeds with …)' to an
    assistant that has the refresh tool; an answer before any index said 'run `ingest enqueue PATH` first' inside
    the server's own sentence, which already says how (twice, in two forms)."""
    import pytest
    from mcp_server.service import NO_INDEX
    from mcp_server.tools import _message
    from search.index import db
    from search.model import embedding
    from search.model.info import ModelError
    from search.settings import Settings
    with pytest.raises(ModelError) as gone:
        embedding.locate("all-MiniLM-L6-v2-384d-000000000000", Settings(home=tmp_path, model=str(tmp_path / "m.gguf")))
    said = _message("search", gone.value, tmp_path / "index.db")
    assert "(the refresh tool, or `ingest enqueue` in a terminal, queues the scan that re-embeds with " in said, said
    assert "(`ingest enqueue` re-embeds" not in said
    with pytest.raises(db.NoIndex) as none:
        db.connect(tmp_path / "index.db", readonly=True)
    assert _message("stats", none.value, tmp_path / "index.db") == f"{NO_INDEX} (no index at {tmp_path / 'index.db'})"


def test_a_second_root_of_the_same_folder_name_is_told_to_take_a_name_not_to_fix_the_root(sift_env, tmp_path):
    """Two MCP servers, --root ~/work/notes and --root ~/home/notes: the second was told 'sift-mcp was started with
    collection 'notes' already indexes …; fix --root in the MCP client's configuration (the folder's absolute
    path)', of a folder that was right. It is told to give --name, where."""
    from mcp_server.server import served_root
    from search.settings import load
    from tests.conftest import write_tree
    first = write_tree(tmp_path / "work" / "notes", {"a.md": "# A\n"})
    second = write_tree(tmp_path / "home" / "notes", {"b.md": "# B\n"})
    assert served_root(load(), str(first), None) == ((1, "notes"), None)
    collection, problem = served_root(load(), str(second), None)
    assert collection is None and problem == (
        f"sift-mcp could not register --root {second}: collection 'notes' already indexes {first}, not {second}: give "
        "this folder another name with --name NAME (a collection whose folder was moved follows it here once nothing "
        "is left at the old path); give --name NAME after --root in the MCP client's configuration and restart the "
        "client; until then only what was indexed before is searched"), problem
    assert served_root(load(), str(second), "home-notes")[0] == (2, "home-notes")


def test_a_home_that_cannot_be_made_is_said_as_such_not_as_a_read_only_index(tmp_path, monkeypatch, capsys):
    """SIFT_HOME under a file (or a folder this user cannot write in): `ingest enqueue` said 'the index at
    …/index.db is read-only (cannot create …): make … writable (chmod u+w)', of a folder that is not there. It says
    the home cannot be made, and why, as every entry point reads its settings."""
    import pytest
    from ingest import cli
    (tmp_path / "notes").mkdir()
    (tmp_path / "sift.txt").write_text("a file\n")
    home = tmp_path / "sift.txt" / "home"
    monkeypatch.setenv("SIFT_HOME", str(home))
    said = (f"SIFT_HOME={home} does not exist and cannot be made: {tmp_path / 'sift.txt'} is a file, not a folder; "
            "point SIFT_HOME (--home) at a folder you can write (it is made if missing)")
    assert cli.main(["enqueue", str(tmp_path / "notes")]) == 2
    assert capsys.readouterr().err == f"ingest: error: {said}\n"
    from search.settings import SettingError, home_unmakeable, load
    with pytest.raises(SettingError, match="cannot be made"):
        load()
    assert home_unmakeable(tmp_path / "new" / "home") is None, "a home under a folder this user writes is made"


def test_a_bare_ingest_enqueue_in_the_notes_folder_names_the_command_meant(sift_env, tmp_path, monkeypatch, capsys):
    """`ingest enqueue` typed in the notes folder said only 'the following arguments are required: path'. It names
    `ingest enqueue .` for this folder, or, inside a registered collection, the command that rescans it."""
    from ingest import cli
    from search.index import store
    from tests.conftest import write_tree
    from workers import runtime
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert cli.main(["enqueue"]) == 2
    assert capsys.readouterr().err == (f"ingest: error: give the folder to index: `ingest enqueue FOLDER`, or "
                                       f"`ingest enqueue .` for this one ({elsewhere})\n")
    root = write_tree(tmp_path / "my notes", {"tech/a.md": "# A\n"})
    store.ensure_collection(runtime.index(), "notes", str(root))
    runtime.index().commit()
    monkeypatch.chdir(root / "tech")
    assert cli.main(["enqueue"]) == 2
    assert capsys.readouterr().err == ("ingest: error: give the folder to index: this one is in the collection "
                                       f"'notes', which `ingest enqueue '{root}'` rescans\n")


def test_wait_over_a_first_build_in_parts_names_the_whole_build(sift_env, tmp_path, monkeypatch, capsys):
    """``ingest enqueue --wait`` over a first build in parts counted each part alone: of notes-en's 1,879 files it
    printed 'generation 2: 21/100 files, ETA 1.2 min', part after part, so a new user read a minute's wait for a
    half hour's build, and nothing said that search already answered from the part published. Its line now says
    the counts and the ETA are this part's, then how many files of the whole are searchable and how many are left
    to later parts (SIFT_FIRST_PART=5 over 23 notes: the first part published, the second of 5 being built)."""
    from ingest import cli
    from search.index import db
    conn, cid = between_parts(tmp_path, monkeypatch)
    interrupted: list[bool] = []

    def wait() -> None:
        try:
            cli._wait(db.connect(Path(sift_env["SIFT_HOME"]) / "index.db"), cid, 1, time.time(), interrupted)
        except KeyboardInterrupt:  # the test's Ctrl-C, once the line is said
            pass

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    said, deadline = "", time.time() + DEADLINE
    while "generation 2:" not in said and time.time() < deadline:
        said += capsys.readouterr().err
        time.sleep(0.1)
    interrupted.append(True)
    waiter.join(DEADLINE)
    said += capsys.readouterr().err
    line = re.search(r"generation 2: \d+/5 files of this part[^\n]*", said)
    assert line and "a first build in parts: 5 of 23 files searchable so far, 13 in the parts after this one" \
        in line[0], said


def test_the_progress_line_of_a_build_not_in_parts_is_as_it_was():
    """A build that is no part of a first build says its counts alone, as before."""
    from ingest.cli import progress_line
    assert progress_line(4, 12, 40, "", 30.0) == "generation 4: 12/40 files, ETA 30 s"
    assert progress_line(3, 13, 13, "", 0.0, (10, 23, 0)) == (
        "generation 3: 13/13 files of this part; a first build in parts: 10 of 23 files searchable so far, this part "
        "is the last")
    assert progress_line(2, 21, 100, "", 72.0, (100, 1879, 1679)) == (
        "generation 2: 21/100 files of this part, ETA 1.2 min for this part; a first build in parts: 100 of 1,879 "
        "files searchable so far, 1,679 in the parts after this one")


def test_the_instructions_say_a_collection_is_a_part_of_its_first_build(sift_env, tmp_path, monkeypatch):
    """Connected while a folder's first build came in parts, an assistant read 'notes (notes, 100 files)' of a
    folder of 1,879 at initialize, as if that were all; the instructions now say the count is so far."""
    from mcp_server.server import instructions
    from search.settings import load
    between_parts(tmp_path, monkeypatch)  # 'notes': its first part of 5 files published, 18 not read yet
    assert "notes (notes, 5 files so far: its first build comes in parts, the most recently modified files " \
           "first)." in instructions(load())


def test_a_big_file_whose_worker_stopped_is_not_said_to_have_died():
    """sift-mcp stops its worker when the client closes; a big note it was embedding in the background was then
    'stopped being embedded … (its worker died)' in every search's freshness line, which an assistant passed on
    as a crash. A stopped worker is said to have stopped, as stats says it."""
    from search.index.working import background_state
    said = background_state({"path": "README.md", "state": "stopped", "done": 64, "total": 331})
    assert said == ("README.md stopped being embedded in the background after 64 of 331 chunks (its worker stopped "
                    "before the end); the next scan hands it on again")


def test_a_home_that_is_not_there_beside_one_with_an_index_is_told_the_one_meant(tmp_path, monkeypatch, capsys):
    """SIFT_HOME=~/.sfit (or --home with a slip) said only 'nothing indexed yet' and 'no index at …', as if the
    notes indexed into ~/.sift were gone: the home beside it whose name is close and holds an index is named."""
    from ingest import cli
    from search.index import db
    from search.query.answer_notes import NOTHING_REGISTERED
    db.connect(tmp_path / ".sift" / "index.db").close()  # a real index, made as a worker makes it
    (tmp_path / ".sfitt").mkdir()  # closer still, but holds no index: not offered
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / ".sfit"))
    meant = f"; did you mean the home {tmp_path / '.sift'}, which holds an index?"
    assert cli.main(["stats"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(f"(ingest enqueue PATH makes one){meant}")
    assert cli.main(["search", "pelican"]) == 2
    assert capsys.readouterr().err == (f"ingest: error: no index at {tmp_path / '.sfit' / 'index.db'}: run `ingest "
                                       f"enqueue PATH` first{meant}\n")
    assert not (tmp_path / ".sfit").exists(), "a command that only reads makes no home"
    db.connect(tmp_path / ".sfit" / "index.db").close()  # an earlier start made it: the hint was not given again
    assert cli.main(["stats"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(meant)
    assert cli.main(["search", "pelican", "--mode", "keyword"]) == 0  # 'no folder is registered' alone, before
    assert f"note: {NOTHING_REGISTERED}{meant}\n" in capsys.readouterr().out
    monkeypatch.setenv("SIFT_HOME", str(tmp_path / "elsewhere"))
    assert cli.main(["stats"]) == 0 and "did you mean" not in capsys.readouterr().out
