"""A first build says nothing of the rescan the watcher asks for as it starts watching the new root: with the
watcher running, a new collection's build showed 'waiting: a rescan was asked for 15 s ago; …' for the whole
build, as if it waited for one. Real SQLite, the real watcher's refresh, the real `ingest stats`."""
from __future__ import annotations

from tests.conftest import run_ingest, write_tree


def test_a_first_build_does_not_say_a_rescan_waits(immediate, sift_env, tmp_path):
    from ingest.discover import Rules
    from search.index import freshness, store
    from workers import runtime
    from workers.watch import Watcher
    conn = runtime.index()
    root = write_tree(tmp_path / "notes", {"a.md": "# A\n\nalpha", "b.md": "# B\n\nbeta"})
    collection = store.ensure_collection(conn, "notes", str(root))
    gen = store.begin_generation(conn, collection["id"], runtime.model_id())  # its first build, under way
    store.record_plan(conn, gen, collection["id"], {"a.md": "added", "b.md": "added"}, {}, 2)
    watcher = Watcher(conn, Rules())
    watcher.refresh()  # the new root is watched from now on: a walk of it is asked for, put off by the build
    watcher.flush()
    assert freshness.requested(conn) == [collection["id"]], "the watcher's request is remembered"
    out = run_ingest(sift_env, "stats").stdout
    assert "building: generation" in out and "waiting:" not in out, out
    store.mark(conn, gen, ["a.md", "b.md"], "write", "done")
    assert store.publish_now(conn, gen)  # the build is over: the rescan it asked for is said now
    out = run_ingest(sift_env, "stats").stdout
    assert "waiting: a rescan was asked for " in out and "nothing of notes is under way now" in out, out
