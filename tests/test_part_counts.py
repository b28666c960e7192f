"""What stats says of a part of a first build published in parts (workers.tasks.first_part): the files it added."""
from __future__ import annotations

from tests.test_first_parts import NOTES, notes, run_jobs


def test_a_published_part_counts_as_added_the_files_it_read(sift_env, tmp_path, monkeypatch):
    """A part's files left to later parts are recorded 'added' in its plan: stats said 'generation 1: 23 files
    seen, 23 added' of a part that added 5 (and 'generation 2: 18 added' of one that added 5 more), beside '5 of 23
    files searchable'. A part counts the files it added; the last counts the rest."""
    from search.index import collection_reads, status, store
    from workers import runtime, tasks
    from workers.app import huey
    from workers.stats import CLI, collection_lines
    monkeypatch.setenv("SIFT_FIRST_PART", "5")
    root = notes(tmp_path / "notes")
    conn = runtime.index()
    cid = store.ensure_collection(conn, "notes", str(root))["id"]
    tasks.discover(cid)
    added = []
    for _ in range(3):  # parts of 5, 5 and 13
        before = collection_reads.get_collection(conn, cid)["published"]
        run_jobs(huey, lambda: collection_reads.get_collection(conn, cid)["published"] != before)
        [c] = status.collect(conn)["collections"]
        added.append(c["published"]["changes"])
        said = "\n".join(collection_lines(c, CLI))
        assert f"{NOTES} files seen, {c['published']['changes']['added']} added" in said, said
        assert " -" not in said, said  # the files left to later parts taken off the added once, not twice
    assert added == [{"added": 5, "not read yet": 18}, {"added": 5, "not read yet": 13}, {"added": 13}]
    assert c["files"] == NOTES and c["published"]["not_read_yet"] == 0
