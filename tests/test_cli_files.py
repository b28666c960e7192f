"""`ingest files`: the MCP tool list_files on the command line, from the same listing (search.query.listing).

Before it, what is indexed and where each file stands (pending, failed or skipped with the reason, deleted) could
be seen only through an MCP client, or as counts and the first failures in `ingest stats`."""
from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from tests.conftest import ingest, run_ingest, write_tree

@pytest.fixture
def env(immediate, sift_env, monkeypatch):
    """A keyword-only index (the model is not the point), built in this process; the environment for `ingest`."""
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    return {**sift_env, "SIFT_EMBEDDINGS": "off"}


@pytest.fixture
def notes(env, tmp_path) -> Path:
    root = write_tree(tmp_path / "notes", {
        "tech/fts5.md": "# SQLite FTS5\n\nBM25 ranking and prefix queries.\n",
        "tech/hello.py": "def hello():\n    return 1\n",
        "tech/broken.pdf": "not a pdf",
        "recipes/bread.md": "# Bread\n\nFlour, water, salt.\n",
        "tech/app.min.js": "var a=1;\n"})  # skipped: minified
    for n, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        os.utime(path, (datetime(2024, 5, 1 + n).timestamp(),) * 2)
    ingest(root, "notes")
    return root


def lines(result) -> list[str]:
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_files_lists_each_file_with_its_state_and_the_reason_of_a_failed_or_skipped_one(env, notes):
    out = lines(run_ingest(env, "files", "--sort", "path"))
    assert out == ["notes/recipes/bread.md  note  29 B  2024-05-01 00:00:00  indexed",
                   "notes/tech/app.min.js  code  9 B  2024-05-02 00:00:00  skipped: minified or generated: app.min.js "
                   "is a lock or minified file (at parse)",
                   "notes/tech/broken.pdf  pdf  9 B  2024-05-03 00:00:00  failed: unreadable PDF: not a PDF: it begins "
                   "b'not a pdf', where a PDF has %PDF-; it is read again once it changes (at parse)",
                   "notes/tech/fts5.md  note  48 B  2024-05-04 00:00:00  indexed",
                   "notes/tech/hello.py  code  26 B  2024-05-05 00:00:00  indexed",
                   "(5 files; showing 5, by path)"], out
    newest = lines(run_ingest(env, "files", "--limit", "2"))  # the default order: newest first, as list_files
    assert newest == ["notes/tech/hello.py  code  26 B  2024-05-05 00:00:00  indexed",
                      "notes/tech/fts5.md  note  48 B  2024-05-04 00:00:00  indexed",
                      "(5 files; showing 2, newest first: raise --limit, or narrow with --path-prefix or --glob)"]


def test_files_path_prefix_and_glob_narrow_the_list_with_the_notes_search_gives(env, notes):
    out = lines(run_ingest(env, "files", "--path-prefix", "notes/tech", "--sort", "path"))
    assert not any(line.startswith("note:") for line in out), "'notes/tech' is read as the paths show it"
    assert [line.split("  ")[0] for line in out[:-1]] == ["notes/tech/app.min.js", "notes/tech/broken.pdf",
                                                           "notes/tech/fts5.md", "notes/tech/hello.py"], out
    assert out[-1] == "(4 files; showing 4, by path)"
    assert [line.split("  ")[0] for line in lines(run_ingest(env, "files", "--glob", "*.md"))[:-1]] == [
        "notes/tech/fts5.md", "notes/recipes/bread.md"]
    assert lines(run_ingest(env, "files", "--path-prefix", "recipes", "--glob", "*.py")) == ["no files match"]


def test_search_with_a_glob_that_starts_with_the_collection_name_says_how_to_write_it(env, notes):
    """`ingest search bread --glob 'notes/*.md'` answered 'no results' and nothing more, while `ingest files`
    with the same glob said that it matches paths without the collection name; search says so too."""
    out = lines(run_ingest(env, "search", "bread", "--mode", "keyword", "--glob", "notes/recipes/*.md"))
    assert out[:2] == ["note: --glob matches paths relative to the collection root, without the collection name: "
                       "--collection notes --glob 'recipes/*.md'", "no results"], out
    found = lines(run_ingest(env, "search", "bread", "--mode", "keyword", "--glob", "recipes/*.md"))
    assert found[0].startswith(" 1. notes/recipes/bread.md") and not any("note:" in line for line in found), found


def test_files_glob_takes_braces_globstar_and_a_leading_dot_slash_as_a_shell_does(env, notes):
    """'*.{md,py}', 'tech/**/*.md' (tech/fts5.md lies directly in tech/) and './tech/*' matched nothing, with no
    note: fnmatch knows none of these forms, and a model writes them as it would for a shell."""
    def paths(glob: str) -> list[str]:
        return [line.split("  ")[0] for line in lines(run_ingest(env, "files", "--sort", "path", "--glob", glob))[:-1]]
    assert paths("*.{md,py}") == ["notes/recipes/bread.md", "notes/tech/fts5.md", "notes/tech/hello.py"]
    assert paths("tech/**/*.md") == ["notes/tech/fts5.md"]
    assert paths("**/*.py") == ["notes/tech/hello.py"]
    assert paths("./tech/*.p?") == ["notes/tech/hello.py"]


def test_files_json_is_the_data_of_the_mcp_tool_list_files(env, notes):
    """The same call through the MCP tool's code: its structured content is this JSON without the keys whose
    null or empty value says nothing (tools.result) and without each file's collection and relative path (its
    path says both; the CLI keeps them for scripts), and both come from search.query.listing.files; only the
    notes differ, each in its reader's terms (--path-prefix, path_prefix)."""
    from ingest.discover import kind_on_disk
    from mcp_server import tools
    from mcp_server.service import Sift
    from search.index import db
    from search.query import listing
    from search.query.scope import CLI, scope
    from search.settings import load
    printed = json.loads(run_ingest(env, "files", "--path-prefix", "notes/tech", "--sort", "path",
                                    "--json").stdout)
    settings = load()
    answer = tools.Tools(Sift(settings)).list_files(path_prefix="notes/tech", sort="path")
    told = answer.structured_content.pop("notes", [])
    assert answer.structured_content.pop("freshness")[0]["collection"] == "notes", "the tool's own: search's line"
    lean = [{k: v for k, v in f.items() if k not in ("collection", "relative_path")} for f in printed["files"]]
    assert tools._without_empty({**printed, "files": lean, "notes": []}) == answer.structured_content
    assert told == [], "'notes/tech' is read as the paths show it: no note says so"
    conn = db.connect(settings.index_path, readonly=True)
    roots = {"notes": str(notes.resolve())}
    assert printed == listing.files(conn, scope(None, "notes/tech", roots, CLI, conn), None, "path", 50, roots, CLI,
                                    kind_on_disk)
    assert printed["total"] == 4 and printed["notes"] == []
    assert printed["files"][1] == {
        "path": "notes/tech/broken.pdf", "collection": "notes", "relative_path": "tech/broken.pdf", "kind": "pdf",
        "size": 9, "modified": "2024-05-03 00:00:00", "state": "failed",
        "reason": "unreadable PDF: not a PDF: it begins b'not a pdf', where a PDF has %PDF-; it is read again once it "
                  "changes (at parse)"}


def test_files_pending_show_the_kind_the_scan_gives(env, tmp_path):
    """A file not read yet showed kind '-' (null), though its name says what it is, as the scan that planned it
    read it (ingest.kinds); a folder that could not be read gives no kind: null, not a guess. A symlinked folder
    is a 'symlink'. An extensionless script showed '-' too: its shebang makes it code, as the scan reads it
    (its first bytes only)."""
    from search.index import db, store
    root = write_tree(tmp_path / "fresh", {"a.md": "# A\n", "b.py": "x = 1\n", "c.pdf": "%PDF-", "d.txt": "d\n",
                                           "private/e.md": "# E\n", "run": "#!/usr/bin/env bash\necho hi\n"})
    os.symlink(tmp_path, root / "linked")
    conn = db.connect(os.path.join(env["SIFT_HOME"], "index.db"))
    collection = store.ensure_collection(conn, "fresh", str(root))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], {p: "added" for p in ("a.md", "b.py", "c.pdf", "d.txt",
                                                                         "linked", "private", "run")}, {}, 7)
    store.mark(conn, gen, ["linked"], "parse", "skipped", "symbolic link to a folder outside the collection root")
    store.mark(conn, gen, ["private"], "parse", "skipped", "folder cannot be read (Permission denied)")
    conn.close()
    printed = json.loads(run_ingest(env, "files", "--sort", "path", "--json").stdout)
    assert [(f["relative_path"], f["kind"], f["state"]) for f in printed["files"]] == [
        ("a.md", "note", "pending"), ("b.py", "code", "pending"), ("c.pdf", "pdf", "pending"),
        ("d.txt", "text", "pending"), ("linked", "symlink", "skipped"), ("private", None, "skipped"),
        ("run", "code", "pending")], printed
    assert lines(run_ingest(env, "files", "--sort", "path"))[0].startswith("fresh/a.md  note  4 B  ")


def test_a_pending_file_says_which_stage_comes_next_and_what_a_worker_is_doing_with_it(env, tmp_path):
    """Progress records the last stage a file got through, and the listing said it as the next one: a big note
    whose chunks were cut and were being embedded for an hour read 'next: chunk', while stats said a worker
    was embedding it. A file a live worker has been at for a while says so, with its chunks done."""
    import time
    from search.index import db, store
    root = write_tree(tmp_path / "fresh", {"a.md": "# A\n", "b.md": "# B\n", "big.md": "# Big\n", "d.md": "# D\n"})
    conn = db.connect(os.path.join(env["SIFT_HOME"], "index.db"))
    collection = store.ensure_collection(conn, "fresh", str(root))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], dict.fromkeys(("a.md", "b.md", "big.md", "d.md"), "added"), {}, 4)
    store.mark(conn, gen, ["b.md"], "parse", "done")
    store.mark(conn, gen, ["big.md", "d.md"], "chunk", "done")
    store.record_work(conn, gen, "embed", ["big.md"], 4_000_000, time.time() - 3600, 3_200, 10_000)  # this pid: live
    conn.close()
    printed = json.loads(run_ingest(env, "files", "--sort", "path", "--json").stdout)
    assert [(f["relative_path"], f["reason"]) for f in printed["files"]] == [
        ("a.md", "waiting to be indexed (added; next: parse)"),
        ("b.md", "waiting to be indexed (added; next: chunk)"),
        ("big.md", "being indexed (added): embedding big.md (4.0 MB) for 1.0 h: 3,200 of 10,000 chunks"),
        ("d.md", "waiting to be indexed (added; next: embed)")], printed


def test_files_refuses_an_unknown_collection_or_limit_in_one_line(env, notes):
    unknown = run_ingest(env, "files", "--collection", "nope")
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr == "ingest: error: no collection named 'nope'; collections: notes\n"
    zero = run_ingest(env, "files", "--limit", "0")
    assert (zero.returncode, zero.stderr) == (2, "ingest: error: limit must be between 1 and 500 (got 0)\n")
    assert lines(run_ingest(env, "files", "--collection", "notes"))[-1] == "(5 files; showing 5, newest first)"


def test_files_on_a_home_never_used_says_so_and_makes_nothing(sift_env):
    home = Path(sift_env["SIFT_HOME"])
    result = run_ingest(sift_env, "files")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"nothing indexed yet: no index yet at {home / 'index.db'} (ingest enqueue PATH makes one)\n"
    assert not home.exists(), sorted(home.rglob("*"))


def test_files_show_control_characters_in_file_names_escaped(env, tmp_path):
    """A file name may hold a newline or a terminal escape sequence: the list must not split a file's line on it
    or pass the sequence to the terminal (stats escapes them too)."""
    root = write_tree(tmp_path / "odd", {"ok.md": "# OK\nfine\n", "bad\nname\x1b[2J.md": "# Bad\nname\n"})
    ingest(root, name="odd")
    out = run_ingest(env, "files", "--sort", "path").stdout
    assert "odd/bad\\nname\\x1b[2J.md  note  " in out, out
    assert "\x1b" not in out and "bad\n" not in out


def test_a_mistyped_folder_is_told_the_nearest_folder_that_holds_indexed_files(env, tmp_path):
    """The did-you-mean read the folders on disk, so it offered one the scan passes over, with a closer name than
    the folder meant: build/ (the built-in ignore list), drafts/ (a .gitignore), images/ (no file Sift reads).
    Asked there, search and list_files find nothing. Only folders the index holds files in are offered."""
    root = write_tree(tmp_path / "notes", {"builds/b.md": "# B\n", "build/x.md": "# X\n", ".gitignore": "drafts/\n",
                                           "drafts/d.md": "# D\n", "drafts2/e.md": "# E\n", "images/a.png": "png",
                                           "tech/deep/f.md": "# F\n", "tech/deeper.md": "# G\n"})
    ingest(root, "notes")
    asked = {"buil": "builds", "draftss": "drafts2", "imgaes": None, "tech/dep": "tech/deep"}
    for typed, meant in asked.items():
        out = lines(run_ingest(env, "files", "--path-prefix", typed))
        note = next(line for line in out if line.startswith("note: "))
        assert f"there is no folder {typed!r} in any collection (notes)" in note, out
        assert (f"(did you mean {meant!r}?)" in note) if meant else ("did you mean" not in note), out


def test_more_files_than_the_largest_limit_are_not_told_to_raise_it(env, tmp_path):
    """At --limit 500 the footer said 'raise --limit' to see the rest, and --limit 501 is refused: there it
    says to narrow, and that 500 is the most; list_files, which takes an offset, gives the one for the rest."""
    from mcp_server import tools
    from mcp_server.service import Sift
    from search.index import db, store
    from search.settings import load
    root = write_tree(tmp_path / "many", {"a.md": "# A\n"})
    conn = db.connect(os.path.join(env["SIFT_HOME"], "index.db"))
    collection = store.ensure_collection(conn, "many", str(root))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], {f"n{i:03d}.md": "added" for i in range(501)}, {}, 501)
    conn.close()
    assert lines(run_ingest(env, "files", "--limit", "500"))[-1] == (
        "(501 files; showing 500, newest first: narrow with --path-prefix or --glob (500 is the largest --limit))")
    assert lines(run_ingest(env, "files", "--limit", "499"))[-1] == (
        "(501 files; showing 499, newest first: raise --limit, or narrow with --path-prefix or --glob)")
    answer = tools.Tools(Sift(load())).list_files(limit=500)
    assert text_of(answer).splitlines()[-2] == "[1 more: offset=500 lists the next ones, or narrow with path_prefix or glob]"


def text_of(answer) -> str:
    return "\n".join(block.text for block in answer.content)


def test_a_collection_no_scan_has_listed_yet_says_so(env, tmp_path):
    """Right after `ingest enqueue`, before a worker has scanned the folder, the listing answered a bare 'no files
    match', as for an empty folder; it says the collection has not been scanned yet (once a scan is under way,
    its files are listed as pending and the note goes). It then said nothing of where to watch the scan or how to
    start the worker that makes it, as search does: it gives both."""
    from search.index import db, store
    root = write_tree(tmp_path / "waiting", {"a.md": "# A\n"})
    conn = db.connect(os.path.join(env["SIFT_HOME"], "index.db"))
    collection = store.ensure_collection(conn, "waiting", str(root))
    said = lines(run_ingest(env, "files"))
    assert said[:2] == [
        "note: collection 'waiting' has not been scanned yet: its files are listed once a worker has scanned it",
        "no files match"], said
    assert len(said) == 3 and said[2].startswith("progress: ingest stats --watch   (needs a running worker; start "
                                                 "one with: ") and "huey_consumer workers.app.huey" in said[2], said
    store.begin_generation(conn, collection["id"], None)
    conn.close()
    assert lines(run_ingest(env, "files")) == ["no files match"]


def test_files_takes_a_folder_on_disk_and_says_what_to_give_for_one_that_is_not_there(env, notes, tmp_path):
    """`ingest files FOLDER` said only 'unrecognized arguments: FOLDER', for a folder that exists or not. A folder
    inside a collection lists its files; one that does not exist, a file, or a folder of no collection is refused
    in one line saying what to give."""
    listed = lines(run_ingest(env, "files", str(notes / "tech"), "--sort", "path"))
    assert [line.split()[0] for line in listed[:-1]] == \
        ["notes/tech/app.min.js", "notes/tech/broken.pdf", "notes/tech/fts5.md", "notes/tech/hello.py"], listed
    assert len(lines(run_ingest(env, "files", str(notes), "--collection", "notes"))) == 6, "the root: every file"
    gone = run_ingest(env, "files", str(tmp_path / "nowhere"))
    assert gone.returncode == 2 and gone.stdout == "", gone
    assert gone.stderr.strip() == (f"ingest: error: no folder to list: {tmp_path / 'nowhere'} does not exist; give a "
                                   "collection's folder or a folder inside one (`ingest stats` lists each collection "
                                   "with its folder), or leave it out to list the files of every collection")
    a_file = run_ingest(env, "files", str(notes / "tech/fts5.md"))
    assert a_file.returncode == 2 and f"`ingest files {notes / 'tech'} --glob fts5.md`" in a_file.stderr, a_file
    elsewhere = run_ingest(env, "files", str(tmp_path))
    assert elsewhere.returncode == 2 and f"`ingest enqueue {tmp_path}` indexes it" in elsewhere.stderr, elsewhere
    assert f"notes: {notes.resolve()}" in elsewhere.stderr, elsewhere.stderr
    both = run_ingest(env, "files", str(notes), "--path-prefix", "tech")
    assert both.returncode == 2 and "give the folder or --path-prefix, not both" in both.stderr
