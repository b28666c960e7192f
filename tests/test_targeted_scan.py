"""A scan of the paths the watcher saw change: it reads those alone, and publishes what a walk of the whole
collection would have published (real discover jobs in huey immediate mode, real SQLite, the test model)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from watchfiles import Change

from tests.conftest import ingest, need_data, write_tree

TREE = {
    "alpha.md": "# Alpha\n\nThe alpha note is about otters.\n",
    "beta.md": "# Beta\n\nThe beta note is about beavers.\n",
    "paper.md": "# Paper\n\nThe converted text of a paper.\n",
    "reading.md": "# Reading\n\nSee [the paper](paper.pdf) and [[alpha]].\n",
    "sub/gamma.md": "# Gamma\n\nGamma is about herons.\n",
    "sub/deep/delta.py": "def delta():\n    return 'delta'\n",
    "sub/.gitignore": "secret.md\n",
    "sub/secret.md": "# Secret\n\nIgnored by the .gitignore.\n",
    "drafts/draft.md": "# Draft\n\nExcluded by SIFT_EXCLUDE.\n",
    **{f"many/note-{i:02d}.md": f"# Note {i}\n\nNote number {i} says nothing new.\n" for i in range(30)},
}


def _edit(root: Path) -> None:
    (root / "alpha.md").write_text("# Alpha\n\nThe alpha note is now about walruses.\n")


def _new(root: Path) -> None:
    (root / "sub/deep/new.md").write_text("# New\n\nA new note about puffins.\n")


def _delete(root: Path) -> None:
    (root / "beta.md").unlink()


def _rename_folder(root: Path) -> None:
    (root / "sub").rename(root / "moved")


def _new_folder(root: Path) -> None:
    write_tree(root, {"fresh/one.md": "# One\n\nAbout terns.\n", "fresh/two/three.md": "# Three\n\nKittiwakes.\n"})


def _code_added(root: Path) -> None:
    _edit(root)
    (root / "sub/deep/more.py").write_text("def more():\n    return 'more'\n")


def _pdf_beside_note(root: Path) -> None:
    shutil.copy(need_data("pdf") / "en/google-doc-document.pdf", root / "paper.pdf")


def _ignored(root: Path) -> None:
    (root / "sub/secret.md").write_text("# Secret\n\nStill ignored.\n")
    (root / "drafts/draft.md").write_text("# Draft\n\nStill excluded.\n")


def _png_added(root: Path) -> None:
    _edit(root)
    (root / "sub/deep/photo.png").write_bytes(b"\x89PNG")


# change, the paths the watcher names for it, the file to look at and what its text holds after
SCENARIOS = {
    # the published generation counts a file Sift does not read: an edit of a note is still read alone, and a
    # folder's rename (how many such files it held is not recorded) walks the collection, as before
    "edit beside a png": (_edit, ["alpha.md"], "alpha.md", "walruses"),
    "a png added": (_png_added, ["alpha.md", "sub/deep/photo.png"], "alpha.md", "walruses"),
    "folder rename beside a png": (_rename_folder, ["sub", "moved"], "moved/gamma.md", "herons"),
    "edit": (_edit, ["alpha.md"], "alpha.md", "walruses"),
    "new file": (_new, ["sub/deep/new.md"], "sub/deep/new.md", "puffins"),
    "deletion": (_delete, ["beta.md"], "beta.md", None),
    "folder rename": (_rename_folder, ["sub", "moved"], "moved/gamma.md", "herons"),
    # the watcher names a folder made and the files made in it, as their events come
    "new folder": (_new_folder, ["fresh", "fresh/one.md", "fresh/two", "fresh/two/three.md"], "fresh/two/three.md",
                   "Kittiwakes"),
    # SIFT_INCLUDE='*.md' (below): the code file made is left out, as the walk leaves it out
    "included notes alone": (_code_added, ["alpha.md", "sub/deep/more.py"], "sub/deep/more.py", None),
    "pdf beside a note": (_pdf_beside_note, ["paper.pdf"], "paper.md", '"attachments": ["paper.pdf"]'),
    "ignored files": (_ignored, ["sub/secret.md", "drafts/draft.md"], "sub/secret.md", None),
}


@pytest.fixture
def excluded_drafts(monkeypatch):
    monkeypatch.setenv("SIFT_EXCLUDE", "drafts/")
    from workers import runtime
    runtime.reset()


def published(conn, collection: int) -> dict:
    """What the collection's published generation holds, but for ids, times and mtimes (two copies of a tree
    differ in those): its counts, each file's progress row, version and chunks."""
    gen = conn.execute("SELECT id, model, seen, unchanged, unread FROM generations WHERE collection = ? "
                       "AND state = 'published'", (collection,)).fetchone()
    progress = conn.execute("SELECT path, change, stage, state, reason FROM progress WHERE generation = ? "
                            "ORDER BY path", (gen["id"],)).fetchall()
    files = conn.execute("SELECT path, kind, size, sha256, title, meta FROM files WHERE collection = ? "
                         "AND gen_to IS NULL ORDER BY path", (collection,)).fetchall()
    chunks = conn.execute("SELECT f.path, c.ordinal, c.heading_path, c.text, c.text_hash FROM chunks c "
                          "JOIN files f ON f.id = c.file WHERE f.collection = ? AND f.gen_to IS NULL "
                          "ORDER BY f.path, c.ordinal", (collection,)).fetchall()
    return {"generation": tuple(gen)[1:], "progress": [tuple(r) for r in progress],
            "files": [tuple(r) for r in files], "chunks": [tuple(r) for r in chunks]}


def _text(state: dict, path: str) -> str | None:
    texts = [f"{row[3]} {row[5]}" for row in state["files"] if row[0] == path]
    texts += [row[3] for row in state["chunks"] if row[0] == path]
    return " ".join(texts) or None


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_scan_of_the_changed_paths_publishes_what_a_full_scan_does(immediate, excluded_drafts, tmp_path,
                                                                       monkeypatch, scenario):
    from search.index import scan_reads
    from workers import runtime, tasks
    change, named, path, expected = SCENARIOS[scenario]
    if scenario == "included notes alone":
        monkeypatch.setenv("SIFT_INCLUDE", "*.md")
        runtime.reset()
    for copy in ("targeted", "full"):
        write_tree(tmp_path / copy, TREE)
        os.symlink("nowhere.md", tmp_path / copy / "dangling.md")  # skipped, saying why: read again by each scan
        if "png" in scenario:
            (tmp_path / copy / "photo.png").write_bytes(b"\x89PNG")
    targeted = ingest(tmp_path / "targeted", "targeted")["id"]
    full = ingest(tmp_path / "full", "full")["id"]
    conn = runtime.index()
    before = published(conn, targeted)
    assert before == published(conn, full), "the two copies start the same"
    change(tmp_path / "targeted")
    change(tmp_path / "full")
    scanned = scan_reads.last_scan(conn, targeted)
    with pytest.MonkeyPatch.context() as spying:
        read = _spy_on_the_file_system(spying)
        tasks.discover(targeted, paths=named)
    tasks.discover(full)
    assert scan_reads.last_scan(conn, targeted) > scanned, "the targeted scan ran"
    walked = "many/note-00.md" in {_inside((tmp_path / "targeted").resolve(), p) for p in read} or \
        str((tmp_path / "targeted/many").resolve()) in read
    # a path SIFT_INCLUDE leaves out, named while the published generation counts such files (stats says so when
    # it matched none): how many there are now is known only to a walk (the watcher does not name such paths)
    assert walked == (scenario in ("a png added", "folder rename beside a png", "included notes alone")), \
        "only the named paths are read, where that is sure"
    after = published(conn, targeted)
    assert after == published(conn, full)
    if expected is None:
        assert _text(after, path) is None
    else:
        assert expected in _text(after, path)
    if scenario == "ignored files":
        assert after == before, "nothing the index holds changed"


def test_a_scan_of_the_changed_paths_stats_and_opens_those_alone(immediate, tmp_path):
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", TREE).resolve()
    collection = ingest(root)["id"]
    (root / "sub/gamma.md").write_text("# Gamma\n\nGamma is now about egrets.\n")
    (root / "many/note-31.md").write_text("# Note 31\n\nA new one.\n")
    with pytest.MonkeyPatch.context() as spying:
        read = _spy_on_the_file_system(spying)
        tasks.discover(collection, paths=["sub/gamma.md", "many/note-31.md"])
    named = {"sub/gamma.md", "many/note-31.md"}
    allowed = named | {"", "sub", "many", ".gitignore", "sub/.gitignore", "many/.gitignore"}
    touched = {rel for rel in (_inside(root, p) for p in read) if rel is not None}
    # parsing a note looks for a same-stem PDF beside it (paper.pdf, paper.PDF ...): those names, not other files
    assert {rel for rel in touched if rel not in allowed and not rel.startswith(("sub/gamma.", "many/note-31."))} \
        == set(), "only the named paths (their folders, .gitignores and same-stem PDFs) are read"
    assert named <= touched
    assert "egrets" in _text(published(runtime.index(), collection), "sub/gamma.md")


def test_the_watcher_queues_a_scan_of_the_paths_it_saw_change(immediate, tmp_path):
    from ingest.discover import Rules
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", TREE).resolve()
    collection = ingest(root)["id"]
    watcher = Watcher(runtime.index(), Rules())
    watcher.refresh()
    watcher.changed = {}  # the start-up scan of every collection (a walk) is done: ingest() did it
    (root / "many/note-07.md").write_text("# Note 7\n\nNote seven now speaks of narwhals.\n")
    with pytest.MonkeyPatch.context() as spying:
        read = _spy_on_the_file_system(spying)
        watcher.note([(Change.modified, str(root / "many/note-07.md"))])
        watcher.flush()
    touched = {rel for rel in (_inside(root, p) for p in read) if rel is not None}
    assert not {rel for rel in touched if rel.startswith("many/note-") and not rel.startswith("many/note-07.")}, \
        "the other notes of the folder are neither stat'ed nor opened"
    assert "narwhals" in _text(published(runtime.index(), collection), "many/note-07.md")
    assert watcher.changed == {}


def test_a_scan_put_off_is_a_walk_even_when_paths_changed_since(immediate, tmp_path):
    from ingest.discover import Rules
    from search.index import freshness
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", TREE).resolve()
    collection = ingest(root)["id"]
    watcher = Watcher(runtime.index(), Rules())
    watcher.refresh()
    watcher.changed = {}
    # a scan (of paths the watcher no longer holds, or asked for by hand) that found a build under way
    freshness.request(runtime.index(), collection)
    _edit(root)
    with pytest.MonkeyPatch.context() as spying:
        read = _spy_on_the_file_system(spying)
        watcher.note([(Change.modified, str(root / "alpha.md"))])
        watcher.flush()
    assert str(root / "many") in read, "the whole collection is walked"
    assert freshness.requested(runtime.index()) == []


def test_the_watcher_walks_everything_where_it_cannot_be_sure(immediate, tmp_path):
    from ingest.discover import Rules
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", TREE).resolve()
    ingest(root)
    watcher = Watcher(runtime.index(), Rules())
    watcher.refresh()
    assert watcher.paths(1) is None, "a root that came (and at start) is walked whole"
    watcher.changed = {}
    watcher.note([(Change.modified, str(root / "alpha.md"))])
    assert watcher.paths(1) == ["alpha.md"]
    watcher.note([(Change.modified, str(root / "sub/.gitignore"))])
    assert watcher.paths(1) is None, "a .gitignore changes what is left out anywhere below it"
    watcher.changed = {}
    watcher.note([(Change.modified, str(root / "alpha.md"))])
    watcher.walk_every = 0.0
    assert watcher.paths(1) is None, "every SIFT_RESCAN_MINUTES the watcher's scan walks the whole collection"
    watcher.walk_every = 600.0
    watcher.changed = {}
    watcher.force_polling = True
    watcher.note([(Change.modified, str(root / "alpha.md"))])
    assert watcher.paths(1) is None, "polling is not sure to name every path"


def _spy_on_the_file_system(monkeypatch) -> list[str]:
    """Record the path of every stat, lstat, open, listing of this process (the real calls are made)."""
    seen: list[str] = []
    for name in ("stat", "lstat", "open", "scandir", "listdir"):
        real = getattr(os, name)

        def spy(path=".", *args, _real=real, **kwargs):
            if isinstance(path, (str, bytes, os.PathLike)):
                seen.append(os.fsdecode(path))
            return _real(path, *args, **kwargs)
        monkeypatch.setattr(os, name, spy)
    return seen


def _inside(root: Path, path: str) -> str | None:
    """``path`` relative to ``root`` ('' for the root), or None outside it."""
    path = os.path.abspath(path)
    if path == str(root):
        return ""
    return path[len(str(root)) + 1:] if path.startswith(str(root) + os.sep) else None


def test_more_paths_than_a_walk_costs_walk_the_collection(immediate, tmp_path, monkeypatch):
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", TREE).resolve()
    collection = ingest(root)["id"]
    monkeypatch.setattr(tasks, "MOST_NAMED", 1)
    _edit(root)
    (root / "beta.md").unlink()
    with pytest.MonkeyPatch.context() as spying:
        read = _spy_on_the_file_system(spying)
        tasks.discover(collection, paths=["alpha.md", "beta.md"])
    assert str(root / "many") in read, "the whole collection is walked"
    state = published(runtime.index(), collection)
    assert "walruses" in _text(state, "alpha.md") and _text(state, "beta.md") is None


def test_a_burst_the_event_queue_may_have_dropped_walks_every_collection(immediate, tmp_path):
    """inotify drops events past its queue's size and says so with one event watchfiles does not pass on: a burst
    that big walks every watched collection, so a file whose event was lost (here: never noted) is found."""
    from ingest.discover import Rules
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", TREE).resolve()
    other = write_tree(tmp_path / "other", {"kept.md": "# Kept\n\nA note about lynxes.\n"}).resolve()
    notes_id, other_id = ingest(root)["id"], ingest(other, "other")["id"]
    watcher = Watcher(runtime.index(), Rules(), storm=4)
    watcher.refresh()
    watcher.changed = {}
    (other / "lost.md").write_text("# Lost\n\nIts event was lost: a note about ibexes.\n")
    watcher.note([(Change.modified, str(root / f"many/note-{i:02d}.md")) for i in range(3)])
    assert watcher.paths(notes_id) == [f"many/note-{i:02d}.md" for i in range(3)], "a smaller batch is read alone"
    assert watcher.paths(other_id) is None and other_id not in watcher.changed
    watcher.note([(Change.modified, str(root / f"many/note-{i:02d}.md")) for i in range(4)])
    assert watcher.paths(notes_id) is None and watcher.paths(other_id) is None
    watcher.flush()
    assert "ibexes" in _text(published(runtime.index(), other_id), "lost.md")


def test_the_burst_size_is_a_quarter_of_the_kernel_queue(tmp_path, monkeypatch):
    from workers import watch
    limit = tmp_path / "max_queued_events"
    limit.write_text("16384\n")
    monkeypatch.setattr(watch, "QUEUE_LIMIT", limit)
    assert watch.storm_size() == 4096
    limit.write_text("100\n")
    assert watch.storm_size() == 25
    monkeypatch.setattr(watch, "QUEUE_LIMIT", tmp_path / "absent")
    assert watch.storm_size() == 4096
