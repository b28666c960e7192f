"""A SIFT_INCLUDE that matches nothing: a scan indexed 0 files and `ingest enqueue --wait`, `ingest stats` and the
MCP stats tool said only '0 files seen'; a pattern that cannot be a glob ('[') was taken, and matched nothing."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import ingest, run_ingest, write_tree
from tests.test_mcp_server import call, run, text

NOTES = {"a.md": "# A\n\nalpha", "b.md": "# B\n\nbeta", "deep/c.md": "# C\n\ngamma", "d.docx": "d"}
SAID = "0 files seen: SIFT_INCLUDE matched none of the 3 files of kinds Sift reads"


def _ingest_with_include(monkeypatch, root: Path, include: str) -> dict:
    from workers import runtime
    monkeypatch.setenv("SIFT_INCLUDE", include)
    runtime.reset()
    return ingest(root, "notes")


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

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            return await call(s, "stats")
    tool = run(scenario)
    assert not tool.is_error, text(tool)
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
    """search/ does not import ingest/: the key the walk counts under and the one stats reads are two constants."""
    from ingest.discover import NOT_INCLUDED
    from search.index import status
    assert status.NOT_INCLUDED == NOT_INCLUDED
