"""A 10,000-character path typed as a query (a pasted blob): the note that the passages writing it come first
(search.query.identifiers) repeated it whole, where keyword search's notes cut a long word (search.query.spelling)."""
from __future__ import annotations

from search.query.spelling import SHOWN
from tests.conftest import write_tree
from tests.test_disk_faults import built_index, keyword_env  # noqa: F401  (fixture: a keyword-only home)


def test_the_note_of_a_long_path_written_first_cuts_it(immediate, keyword_env, tmp_path):
    from search.query.engine import Engine
    long = "a" * 9_000
    path = f"/srv/{long}/app.log"
    index = built_index(write_tree(tmp_path / "a", {  # its words apart, more often: keyword search ranked it first
        "notes/logs.md": f"# Logs\n\nsrv {long} app log; srv {long} app log; srv {long} app log.\n",
        "runbooks/app.md": f"# App\n\nIts log is {path} on the host.\n"}))
    found = Engine(index, lambda: None).search(path, mode="keyword")
    assert found.hits and found.hits[0].path == "runbooks/app.md", [(h.path, h.score) for h in found.hits]
    said = [n for n in found.notes if "come first" in n]
    assert said == [f"the passages writing {path[:SHOWN - 1]}… come first, each keeping the score it ranked with"], \
        ([n[:200] for n in found.notes], [(h.path, h.score) for h in found.hits])
