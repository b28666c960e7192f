"""A folder whose files a git checkout changes: switching to another branch and back embeds nothing the second time.

The cached vectors no chunk used any more were dropped at every publish, so a checkout back to the branch before
(an edit undone, a note restored from the trash likewise) embedded every changed chunk again. They are kept now,
until they outnumber UNUSED_VECTORS_KEPT and a quarter of those in use; ``ingest remove`` drops them at once."""
from __future__ import annotations

import subprocess

import pytest

from search.index import store
from tests.conftest import ingest, run_ingest, write_tree
from tests.test_freshness import live  # noqa: F401  (the fixture: a real consumer and a real watcher)

NOTES = {f"n{i}.md": f"# Note {i}\n\nThe heron number {i} fishes in the reeds at dawn.\n" for i in range(6)}


def embedded_last(conn) -> int:
    return conn.execute("SELECT coalesce(sum(embedded), 0) FROM progress WHERE generation = "
                        "(SELECT published FROM collections)").fetchone()[0]


def test_an_edit_undone_embeds_nothing_again(immediate, sift_env, tmp_path, monkeypatch):
    from workers import runtime
    root = write_tree(tmp_path / "notes", NOTES)
    ingest(root)
    conn = runtime.index()
    original = (root / "n1.md").read_text()
    (root / "n1.md").write_text(original + "\nA second paragraph about the kingfisher.\n")
    ingest(root)
    assert embedded_last(conn) > 0
    (root / "n1.md").write_text(original)  # undone: a checkout back, a note restored
    ingest(root)
    assert embedded_last(conn) == 0, "the vectors of the earlier text were kept"
    unused = conn.execute("SELECT count(*) FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)")
    assert unused.fetchone()[0] > 0

    monkeypatch.setattr(store, "UNUSED_VECTORS_KEPT", 0)  # too many: they all go at the next publish
    (root / "n2.md").write_text("# Note 2\n\nChanged.\n")
    ingest(root)
    assert conn.execute("SELECT count(*) FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)"
                        ).fetchone()[0] == 0


def test_remove_drops_the_unused_vectors_at_once(immediate, sift_env, tmp_path):
    from workers import runtime
    root = write_tree(tmp_path / "notes", NOTES)
    ingest(root)
    (root / "n1.md").write_text("# Note 1\n\nAn edit.\n")
    ingest(root)
    conn = runtime.index()
    assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] > len(NOTES)
    run_ingest(sift_env, "remove", "notes")
    assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0


def git(root, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True,
                   capture_output=True)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_branch_switch_makes_one_generation_and_switching_back_embeds_nothing(live):  # noqa: F811
    """A checkout changing 60 notes at once (20 moved, 40 edited, 10 added) with the real watcher and consumer."""
    root = live.root
    write_tree(root, {f"lake/h{i}.md": f"# Heron {i}\n\nHeron {i} waits by the lake for fish.\n" for i in range(20)})
    write_tree(root, {f"pond/k{i}.md": f"# Kingfisher {i}\n\nKingfisher {i} dives into the pond.\n"
                      for i in range(40)})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "main")
    live.wait(lambda: live.settled() and live.paths("kingfisher") and len(live.paths("heron")) == 20, "main built")
    git(root, "checkout", "-qb", "other")
    git(root, "mv", "lake", "river")
    for i in range(40):
        (root / f"pond/k{i}.md").write_text(f"# Kingfisher {i}\n\nOn this branch kingfisher {i} perches.\n")
    write_tree(root, {f"new/e{i}.md": f"# Egret {i}\n\nEgret {i} stands still.\n" for i in range(10)})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "other")
    live.wait(lambda: live.settled() and len(live.paths("perches")) == 40 and len(live.paths("egret")) == 10,
              "the other branch built")
    git(root, "checkout", "-q", "main")
    live.wait(lambda: live.settled() and not live.paths("egret") and not live.paths("perches"), "back on main")

    for branch, word, count in (("other", "perches", 40), ("main", "dives", 40)):
        before = live.published()
        git(root, "checkout", "-q", branch)
        live.wait(lambda: live.settled() and len(live.paths(word)) == count, f"checked out {branch}")
        generations = live.generations_after(before)
        assert len(generations) <= 2, f"{len(generations)} generations for one checkout"
        assert live.embedded_after(before) == 0, f"checking out {branch} again embedded chunks"
    assert {p.split("/")[0] for p in live.paths("heron")} == {"lake"}


def test_a_file_replaced_by_a_folder_of_its_name_and_back(immediate, sift_env, tmp_path):
    """What the watcher names after `rm note.md; mkdir note.md` (and the reverse) is the one path: the targeted scan
    takes the folder's notes and drops the file, then the file back and the folder's notes gone."""
    from search.index import collection_reads
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", NOTES)
    ingest(root)
    conn = runtime.index()
    cid = collection_reads.collections(conn)[0]["id"]

    def visible() -> set[str]:
        return {row["path"] for row in conn.execute(
            "SELECT f.path FROM files f JOIN collections c ON f.collection = c.id WHERE "
            "f.gen_from <= c.published AND (f.gen_to IS NULL OR f.gen_to > c.published)")}
    (root / "n1.md").unlink()
    write_tree(root, {"n1.md/inside.md": "# Inside\n\nA note in a folder named like a note.\n"})
    tasks.discover(cid, paths=["n1.md"])
    assert visible() == set(NOTES) - {"n1.md"} | {"n1.md/inside.md"}
    (root / "n1.md" / "inside.md").unlink()
    (root / "n1.md").rmdir()
    (root / "n1.md").write_text(NOTES["n1.md"])
    tasks.discover(cid, paths=["n1.md"])
    assert visible() == set(NOTES)
