"""The line that says how many more passages of a file were left off the page, and the file's hits it stands among.

It stood under the file's first hit, and the file's second passage came next: '+ 10 more passages of this file …
left off for other files' and then a passage of that file shown, which read as if the shown one were left off. It
now stands under the file's last hit on the page, after all that is shown of the file.
"""
from __future__ import annotations

import re

from tests.conftest import ingest, run_ingest_here, write_tree
from tests.test_mcp_server import call, run, text


def _bird_log(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    sections = "".join(f"## Day {n}\n\nA kestrel hovered over field {n}, then dropped.\n\n" for n in range(12))
    root = write_tree(tmp_path / "notes", {"birds/log.md": "# Bird log\n\n" + sections,
                                           **{f"other{n}.md": f"# Other {n}\n\nOne kestrel seen.\n" for n in range(3)}})
    ingest(root, "notes")


def test_the_left_off_line_follows_every_shown_passage_of_its_file(immediate, tmp_path, servers, sift_env,
                                                                    monkeypatch):
    _bird_log(tmp_path, monkeypatch)

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="kestrel field", mode="keyword", limit=5)
    page = run(scenario)
    results = page.structured_content["results"]
    shown = [n for n, h in enumerate(results, start=1) if h["path"] == "notes/birds/log.md"]
    assert len(shown) == 2 and results[0].get("more_in_file") == 10, text(page)  # the data keeps it on the first
    body = text(page)
    said = [m.start() for m in re.finditer(r"\n   \+ 10 more passages of this file ranked among these, left off", body)]
    assert len(said) == 1, body
    hits_at = {n: body.index(f"\n{n}. ") for n in range(1, len(results) + 1)}
    # after the last shown hit of the file, and before the next file's hit: no passage of it comes after the line
    assert hits_at[shown[-1]] < said[0], body
    assert all(at > said[0] for n, at in hits_at.items() if n > shown[-1]), body


def test_ingest_search_puts_the_left_off_line_after_the_files_last_shown_passage(immediate, tmp_path, capsys,
                                                                                 monkeypatch):
    """`ingest search` printed the line under the file's first hit too, the file's next passage right below it."""
    _bird_log(tmp_path, monkeypatch)
    body = run_ingest_here(capsys, "search", "kestrel field", "--mode", "keyword", "--limit", "5").stdout
    hits_at = {int(m.group(1)): m.start() for m in re.finditer(r"(?m)^ ?(\d+)\. (\S+)", body)}
    files = {int(m.group(1)): m.group(2) for m in re.finditer(r"(?m)^ ?(\d+)\. (\S+?)(?:  | \()", body)}
    shown = [n for n, path in sorted(files.items()) if "birds/log.md" in path]
    said = [m.start() for m in re.finditer(r"\+ 10 more passages of this file", body)]
    assert len(shown) == 2 and len(said) == 1, body
    assert hits_at[shown[-1]] < said[0], body
    assert all(at > said[0] for n, at in hits_at.items() if n > shown[-1]), body
