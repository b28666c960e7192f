"""A SIFT_INCLUDE that matches nothing, or a SIFT_EXCLUDE or .gitignore that leaves out every file: a scan indexed
0 files and `ingest enqueue --wait`, `ingest stats` and the MCP stats tool said only '0 files seen'; a pattern that
cannot be a glob ('[') was taken, and matched nothing."""
from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ingest, run_ingest, write_tree
from tests.test_mcp_server import call, run, text

NOTES = {"a.md": "# A\n\nalpha", "b.md": "# B\n\nbeta", "deep/c.md": "# C\n\ngamma", "d.doc": "d"}
SAID = "0 files seen: SIFT_INCLUDE matched none of the 3 files of kinds Sift reads"


def _ingest_with_include(monkeypatch, root: Path, include: str) -> dict:
    return _ingest_with(monkeypatch, root, SIFT_INCLUDE=include)


def _ingest_with(monkeypatch, root: Path, **settings) -> dict:
    from workers import runtime
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    runtime.reset()
    return ingest(root, "notes")


def _stats_tool(servers, sift_env):
    """The MCP stats tool's answer, from a real sift-mcp over stdio (no worker)."""
    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "stats")
    tool = run(scenario)
    assert not tool.is_error, text(tool)
    return tool


def test_ingest_stats_says_sift_include_matched_none_of_the_files(immediate, sift_env, tmp_path, monkeypatch):
    root = write_tree(tmp_path / "notes", NOTES)
    c = _ingest_with_include(monkeypatch, root, "*.mdx")
    assert c["files"] == 0 and c["published"]["seen"] == 0
    assert c["published"]["not_included"] == 3
    assert c["published"]["unread"] == {}, "the files SIFT_INCLUDE left out are not counted as of kinds unread"
    result = run_ingest(sift_env, "stats")
    assert result.returncode == 0, result.stderr
    assert f"\n  {SAID}" in result.stdout, result.stdout


def test_enqueue_wait_summary_says_sift_include_matched_none(immediate, sift_env, tmp_path, monkeypatch):
    from ingest.cli import published_summary
    from workers import runtime
    root = write_tree(tmp_path / "notes", NOTES)
    _ingest_with_include(monkeypatch, root, "*.mdx")
    summary = published_summary(runtime.index(), "notes")
    assert summary.splitlines()[-1].startswith(SAID), summary


def test_a_matching_include_says_nothing_of_it(immediate, sift_env, tmp_path, monkeypatch):
    """Files left out while others are indexed is what SIFT_INCLUDE is for: no line about it."""
    root = write_tree(tmp_path / "notes", {**NOTES, "keep.txt": "kept"})
    c = _ingest_with_include(monkeypatch, root, "*.txt")
    assert c["files"] == 1 and c["published"]["not_included"] == 3
    result = run_ingest(sift_env, "stats")
    assert "SIFT_INCLUDE" not in result.stdout, result.stdout


def test_the_stats_tool_says_sift_include_matched_none(immediate, sift_env, tmp_path, monkeypatch, servers):
    root = write_tree(tmp_path / "notes", NOTES)
    _ingest_with_include(monkeypatch, root, "*.mdx")
    tool = _stats_tool(servers, sift_env)
    assert f"\n  {SAID}" in text(tool), text(tool)
    assert tool.structured_content["collections"][0]["published"]["not_included"] == 3


def test_a_pattern_that_is_no_glob_is_refused_naming_the_setting(sift_env, tmp_path):
    root = write_tree(tmp_path / "notes", NOTES)
    for name, pattern in (("SIFT_INCLUDE", "["), ("SIFT_INCLUDE", "*.md,notes/[a"), ("SIFT_EXCLUDE", "[z-a].md")):
        result = run_ingest({**sift_env, name: pattern}, "enqueue", str(root))
        assert result.returncode != 0, result.stdout
        assert f"{name}='{pattern}'" in result.stderr and "is not a glob" in result.stderr, result.stderr
    fine = run_ingest({**sift_env, "SIFT_INCLUDE": "*.[mM]d,\\[draft\\]*"}, "stats")
    assert fine.returncode == 0, fine.stderr


def test_discover_and_status_name_the_left_out_count_alike():
    """search/ does not import ingest/: the keys the walk counts under and the ones stats reads are constants twice."""
    from ingest import discover
    from search.index import status
    assert status.NOT_INCLUDED == discover.NOT_INCLUDED
    assert (status.LEFT_OUT, status.FOLDERS_LEFT_OUT) == (discover.LEFT_OUT, discover.FOLDERS_LEFT_OUT)
    assert discover.EXCLUDE_SETTING == "SIFT_EXCLUDE"


EXCLUDED = "0 files seen: SIFT_EXCLUDE left out 2 files of kinds Sift reads and 1 folder; fix or unset SIFT_EXCLUDE"


def test_ingest_stats_says_sift_exclude_left_out_every_file(immediate, sift_env, tmp_path, monkeypatch):
    """SIFT_EXCLUDE='*.md,deep/' on a folder of notes: the two notes and the folder deep/ (not entered) it left
    out are named, the .doc is not (Sift does not read it), nor what the built-in list leaves out."""
    root = write_tree(tmp_path / "notes", {**NOTES, "node_modules/x.md": "x", ".hidden/y.md": "y"})
    c = _ingest_with(monkeypatch, root, SIFT_EXCLUDE="*.md,deep/")
    assert c["files"] == 0 and c["published"]["seen"] == 0
    assert c["published"]["left_out"] == {"SIFT_EXCLUDE": {"files": 2, "folders": 1}}
    assert c["published"]["unread"] == {".doc": 1}, "the counts of what was left out are not kinds unread"
    result = run_ingest(sift_env, "stats")
    assert result.returncode == 0, result.stderr
    assert f"\n  {EXCLUDED}" in result.stdout, result.stdout


GITIGNORED = ("0 files seen: the .gitignore at the root left out 2 files of kinds Sift reads; Sift honours every "
              ".gitignore: edit it, or index a folder it does not cover, and scan again; deep/.gitignore left out "
              "1 file of kinds Sift reads")


def test_enqueue_wait_summary_names_each_gitignore_that_left_out_every_file(immediate, sift_env, tmp_path,
                                                                            monkeypatch):
    from ingest.cli import published_summary
    from workers import runtime
    root = write_tree(tmp_path / "notes", {**NOTES, ".gitignore": "/a.md\n/b.md\n", "deep/.gitignore": "*\n"})
    c = _ingest_with(monkeypatch, root)
    assert c["published"]["left_out"] == {".gitignore": {"files": 2, "folders": 0},
                                          "deep/.gitignore": {"files": 1, "folders": 0}}
    summary = published_summary(runtime.index(), "notes")
    assert summary.splitlines()[-1].startswith(GITIGNORED), summary


def test_the_stats_tool_says_a_gitignore_left_out_every_file(immediate, sift_env, tmp_path, monkeypatch, servers):
    root = write_tree(tmp_path / "notes", {**NOTES, ".gitignore": "/a.md\n/b.md\n", "deep/.gitignore": "*\n"})
    _ingest_with(monkeypatch, root)
    tool = _stats_tool(servers, sift_env)
    assert f"\n  {GITIGNORED}" in text(tool), text(tool)
    assert tool.structured_content["collections"][0]["published"]["left_out"]["deep/.gitignore"]["files"] == 1


def test_what_a_gitignore_leaves_out_beside_indexed_files_is_not_said(immediate, sift_env, tmp_path, monkeypatch):
    """A .gitignore leaving out build output beside the notes is what it is for: no line, nothing kept."""
    root = write_tree(tmp_path / "notes", {**NOTES, ".gitignore": "deep/\n/a.md\n"})
    c = _ingest_with(monkeypatch, root, SIFT_EXCLUDE="b.md")
    assert c["published"]["seen"] == 0, "a.md, b.md and deep/ are all left out"
    assert c["published"]["left_out"] == {"SIFT_EXCLUDE": {"files": 1, "folders": 0},
                                          ".gitignore": {"files": 1, "folders": 1}}
    (root / "kept.md").write_text("# Kept\n\nkept\n")
    from workers import tasks
    tasks.discover(c["id"])
    result = run_ingest(sift_env, "stats", "--json")
    published = json.loads(result.stdout)["collections"][0]["published"]
    assert published["seen"] == 1 and published["left_out"] == {}, published
    assert "left out" not in run_ingest(sift_env, "stats").stdout


def test_a_scan_of_the_last_file_deleted_says_what_left_out_the_rest(immediate, sift_env, tmp_path, monkeypatch):
    """The watcher's scan of the paths it saw change reads those alone, and cannot count what a .gitignore leaves
    out elsewhere: where it may find no file left, the collection is walked, and the walk says why none is."""
    from workers import tasks
    root = write_tree(tmp_path / "notes", {**NOTES, ".gitignore": "/b.md\n/deep/\n"})
    c = _ingest_with(monkeypatch, root)
    assert c["files"] == 1 and c["published"]["left_out"] == {}
    (root / "a.md").unlink()
    tasks.discover(c["id"], paths=["a.md"])
    published = json.loads(run_ingest(sift_env, "stats", "--json").stdout)["collections"][0]["published"]
    assert published["seen"] == 0 and published["left_out"] == {".gitignore": {"files": 1, "folders": 1}}, published
