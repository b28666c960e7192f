"""Freshness: the index follows the notes by itself.

With a real ``huey_consumer`` and a real watcher process (``python -m workers.watch``), or a real
``sift-mcp`` with its children: edits, additions, renames and deletions reach search once published;
a burst of saves during a build makes one generation after it, not one per save; a root deleted and restored keeps its
index; a moved folder re-embeds nothing; a collection registered later is watched too. Every wait
polls with a generous deadline: nothing here asserts on speed (bench/freshness.py measures that).

The grace period of a missing root, the watcher's filter and the scan gate are also tested in
process, with huey's immediate mode.
"""
from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from watchfiles import Change

from search.index import db, freshness, generation_reads, status
from search.query import reader
from search.query.engine import Engine
from tests.conftest import REPO, VENV_BIN, ingest, processes, write_tree

DEADLINE = 900.0  # seconds: a safety net against a hung test, not a speed assertion (180 s could run out at load 17)

NOTES = {
    "alpha.md": "# Alpha\n\nThe walrus sings at dawn on the ice.\n",
    "beta.md": "# Beta\n\nA pelican carries the mail across the bay.\n",
    "sub/gamma.md": "# Gamma\n\nThe axolotl regrows its legs.\n",
    "projects/one.md": "# One\n\nThe lighthouse keeper logs every ship.\n",
    "projects/two.md": "# Two\n\nThe glassblower shapes a blue vase.\n",
    "projects/deep/three.md": "# Three\n\nThe cartographer draws the coastline.\n",
}


class Live:
    """A collection kept fresh by a real consumer and a real watcher; searched like a client would."""

    def __init__(self, env: dict, root: Path, consumer, log: Path):
        self.env, self.root, self.consumer = env, root, consumer
        self.index = Path(env["SIFT_HOME"]) / "index.db"
        self.conn = db.connect(self.index)
        self.engine = Engine(self.index)
        self.log = open(log, "ab")
        self.watcher = subprocess.Popen([sys.executable, "-m", "workers.watch"], cwd=REPO, env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self) -> None:
        if self.watcher.poll() is None:
            os.killpg(self.watcher.pid, signal.SIGTERM)
            self.watcher.wait(timeout=30)
        self.log.close()

    def paths(self, word: str) -> set[str]:
        """Files whose published chunks contain ``word`` (keyword search)."""
        return {hit.path for hit in self.engine.search(word, limit=50, mode="keyword").hits}

    def wait(self, check, what: str):
        return _poll(check, {"consumer": self.consumer.proc, "watcher": self.watcher}, what)

    def settled(self) -> bool:
        """Published, nothing being built, nothing noticed and not yet scanned."""
        row = self.conn.execute("SELECT published, changes_noticed, (SELECT count(*) FROM generations g "
                                "WHERE g.collection = c.id AND g.state = 'building') AS building "
                                "FROM collections c").fetchone()
        return row["published"] is not None and not row["building"] and not row["changes_noticed"]

    def published(self) -> int:
        return self.conn.execute("SELECT published FROM collections").fetchone()[0]

    def generations_after(self, gen: int) -> list:
        return self.conn.execute("SELECT * FROM generations WHERE id > ? ORDER BY id", (gen,)).fetchall()

    def embedded_after(self, gen: int) -> int:
        return self.conn.execute("SELECT coalesce(sum(embedded), 0) FROM progress WHERE generation > ?",
                                 (gen,)).fetchone()[0]

    def vectors(self) -> int:
        return self.conn.execute("SELECT count(*) FROM vectors").fetchone()[0]


def _start_live(sift_env, consumer, tmp_path, touch=lambda: None) -> Live:
    """The collection of NOTES under a real consumer and watcher, once its first generation is published
    (``touch``: called at each look while it waits, to let a held scan go)."""
    from search.index import store
    root = write_tree(tmp_path / "notes", NOTES).resolve()
    conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db")
    store.ensure_collection(conn, "notes", str(root))  # the watcher scans it when it starts
    conn.close()
    running = Live(sift_env, root, consumer(workers=2), tmp_path / "watcher.log")
    running.wait(lambda: touch() or (running.settled() and running.paths("walrus")), "the first generation published")
    return running


@pytest.fixture
def live(sift_env, consumer, tmp_path):
    running = _start_live(sift_env, consumer, tmp_path)
    yield running
    running.stop()


class HeldScans:
    """Every scan of the consumer waits, after it has read the files it plans, until the test lets it go
    (SIFT_FAULT_PAUSE_DISCOVER with SIFT_FAULT_RELEASE_DISCOVER: each scan takes one touch of the file)."""

    def __init__(self, env: dict, folder: Path):
        self.release = folder / "release-discover"
        env.update(SIFT_FAULT_PAUSE_DISCOVER=str(DEADLINE), SIFT_FAULT_RELEASE_DISCOVER=str(self.release))

    def let_go(self) -> None:
        """Let the scan waiting now go, and the next one once that one has taken the touch."""
        self.release.touch(exist_ok=True)

    def hold(self) -> None:
        """From now on a scan waits (a touch no scan took is taken back)."""
        self.release.unlink(missing_ok=True)


@pytest.fixture
def held_live(sift_env, consumer, tmp_path):
    held = HeldScans(sift_env, tmp_path)
    running = _start_live(sift_env, consumer, tmp_path, held.let_go)
    yield running, held
    running.stop()


@pytest.mark.slow
def test_edit_add_rename_and_delete_reach_search(live):
    alpha = live.root / "alpha.md"
    alpha.write_text(alpha.read_text().replace("walrus", "narwhal"))
    live.wait(lambda: live.paths("narwhal") == {"alpha.md"} and not live.paths("walrus"), "the edit")

    (live.root / "delta.md").write_text("# Delta\n\nA quokka smiles for the camera.\n")
    live.wait(lambda: live.paths("quokka") == {"delta.md"}, "the new file")

    (live.root / "beta.md").rename(live.root / "sub" / "beta-renamed.md")
    live.wait(lambda: live.paths("pelican") == {"sub/beta-renamed.md"}, "the rename")

    (live.root / "sub" / "gamma.md").unlink()
    live.wait(lambda: not live.paths("axolotl"), "the deletion")
    assert live.paths("lighthouse") == {"projects/one.md"}, "the other files are untouched"


@pytest.mark.slow
def test_a_burst_of_200_saves_during_a_build_makes_one_more_generation(held_live, tmp_path):
    """A burst is coalesced: the saves made while a build runs are one scan once it is published, not a scan per
    save or per batch of events. How many batches the watcher sees depends on the pace of the burst against its
    quiet time, and how many builds start during it on the build's pace: so the build runs held (its scan waits
    after reading its files) for the whole burst, until the watcher has seen its last save, and the test counts
    the scans started against the saves seen, which no machine's speed changes."""
    live, held = held_live
    before, log = live.published(), tmp_path / "watcher.log"
    queued = log.read_text().count("queued a scan")
    held.hold()
    (live.root / "trigger.md").write_text("# Trigger\n\nThe build the burst lands on.\n")
    _poll(lambda: log.read_text().count("queued a scan") > queued and live.generations_after(before),
          {"consumer": live.consumer.proc, "watcher": live.watcher}, "the trigger's scan held")
    files = [live.root / f"burst-{i:02d}.md" for i in range(40)]
    for save in range(200):  # five saves of each of 40 files
        files[save % 40].write_text(f"# Burst {save % 40}\n\nSave number {save}: token{save}x here.\n")
        time.sleep(0.02)
    (live.root / "last.md").write_text("# Last\n\nA quetzal closes the burst.\n")
    # the watcher has seen every save once it has seen the last file's: its events come in the order made; it
    # counts the files changed since its last scan (40 and the last one), none of them scanned while held
    live.wait(lambda: _noticed(live) == 41, "the watcher noticing the whole burst")
    during = live.generations_after(before)
    held_queued = log.read_text().count("queued a scan") - queued
    live.wait(lambda: held.let_go() or (live.settled() and live.paths("quetzal") and
                                        all(live.paths(f"token{save}x") for save in range(160, 200))),
              "the last saves searchable")
    assert not live.paths("token0x") and not live.paths("token159x"), "earlier saves are replaced"
    assert len(during) == 1 and held_queued == 1, f"while held: {len(during)} generations, {held_queued} scans queued"
    # the trigger's generation and one more, of the whole burst (a generation superseded is cleared away: its id
    # tells the count)
    scans = log.read_text().count("queued a scan") - queued
    assert (live.published() - before, scans) == (2, 2), f"{live.published() - before} generations, {scans} scans"
    burst = {r[0] for r in live.conn.execute("SELECT path FROM progress WHERE generation = ?", (live.published(),))}
    assert burst == {f.name for f in files} | {"last.md"}, sorted(burst)


def _noticed(live: Live) -> int:
    return live.conn.execute("SELECT changes_noticed FROM collections").fetchone()[0]


@pytest.mark.slow
def test_a_root_deleted_then_restored_keeps_its_index(live, tmp_path):
    backup = tmp_path / "backup"
    shutil.copytree(live.root, backup)  # copy2: the restored files keep their size and mtime
    before, vectors = live.published(), live.vectors()

    shutil.rmtree(live.root)
    missing = live.wait(lambda: live.conn.execute("SELECT root_missing_since FROM collections").fetchone()[0],
                        "the missing root recorded")
    assert missing <= time.time()
    assert live.paths("walrus") == {"alpha.md"} and live.published() == before, "the index is kept"

    shutil.copytree(backup, live.root)
    scanned = "SELECT root_missing_since IS NULL AND scanned_unchanged IS NOT NULL FROM collections"
    live.wait(lambda: live.conn.execute(scanned).fetchone()[0] and live.settled(), "a scan after the root came back")
    assert live.published() == before, "the files came back as they were: the scan found nothing changed"
    assert live.paths("walrus") == {"alpha.md"} and live.paths("axolotl") == {"sub/gamma.md"}
    assert live.embedded_after(before) == 0 and live.vectors() == vectors, "nothing is embedded again"
    changes = live.conn.execute("SELECT count(*) FROM progress WHERE generation > ? AND change = 'deleted'",
                                (before,)).fetchone()[0]
    assert changes == 0, "no file was taken as deleted"


@pytest.mark.slow
def test_moving_a_folder_reembeds_nothing(live):
    before, vectors = live.published(), live.vectors()
    (live.root / "projects").rename(live.root / "archive")
    live.wait(lambda: live.paths("cartographer") == {"archive/deep/three.md"}
              and live.paths("lighthouse") == {"archive/one.md"} and live.settled(), "the moved folder")
    assert live.embedded_after(before) == 0 and live.vectors() == vectors
    renamed = live.conn.execute("SELECT path FROM progress WHERE generation > ? AND change = 'renamed'",
                                (before,)).fetchall()
    assert {r["path"] for r in renamed} == {"archive/one.md", "archive/two.md", "archive/deep/three.md"}


@pytest.mark.slow
def test_a_collection_registered_later_is_watched_too(live, tmp_path):
    from search.index import store
    later = write_tree(tmp_path / "later", {"kiwi.md": "# Kiwi\n\nThe kiwi bird cannot fly.\n"}).resolve()
    store.ensure_collection(live.conn, "later", str(later))  # registered while the watcher runs
    live.wait(lambda: live.paths("kiwi") == {"kiwi.md"}, "the new collection scanned")
    (later / "kiwi.md").write_text("# Kiwi\n\nThe kiwi bird cannot fly but the kea can.\n")
    live.wait(lambda: live.paths("kea") == {"kiwi.md"}, "an edit in the new collection")


@pytest.mark.slow
def test_sift_mcp_runs_a_watcher_that_keeps_search_fresh(sift_env, tmp_path):
    root = write_tree(tmp_path / "mcp-notes", {"harbour.md": "# Harbour\n\nBoats at dawn.\n"}).resolve()
    with _sift_mcp_root(sift_env, root, tmp_path / "server.log") as (server, engine):
        (root / "zebra.md").write_text("# Crossing\n\nA zebra crossing near the station.\n")  # no refresh call
        assert _poll(lambda: _safe_paths(engine, "zebra"), {"server": server}, "the new note") == {"zebra.md"}
        children = [pid for pid, ppid in _processes() if ppid == server.pid]
        assert len(children) == 2, "a consumer and a watcher"
    deadline = time.monotonic() + 60
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in children), "the children stop with the server"


# --- in process: the grace period, the filter, the gate ---------------------------------------------

def test_a_missing_root_is_kept_for_a_rescan_interval_then_its_files_are_deleted(immediate, tmp_path):
    from workers import runtime, tasks
    root = write_tree(tmp_path / "notes", NOTES)
    first = ingest(root)["published"]
    conn = runtime.index()
    hidden = root.rename(tmp_path / "elsewhere")

    tasks.discover(1)
    row = conn.execute("SELECT * FROM collections").fetchone()
    assert row["root_missing_since"] is not None and row["published"] == first["id"]
    assert len(reader.visible_files(conn)) == len(NOTES), "kept while the root may come back"
    assert status.freshness_state(conn, row)["root_missing_since"] == row["root_missing_since"]

    interval = runtime.settings().rescan_minutes * 60
    conn.execute("UPDATE collections SET root_missing_since = root_missing_since - ?", (interval + 1,))
    tasks.discover(1)
    assert reader.visible_files(conn) == [], "gone for a whole interval: its files are deleted"

    hidden.rename(root)
    tasks.discover(1)
    assert len(reader.visible_files(conn)) == len(NOTES)
    assert conn.execute("SELECT root_missing_since FROM collections").fetchone()[0] is None


def test_the_watcher_ignores_what_cannot_change_the_index(immediate, tmp_path):
    from ingest.discover import Rules
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", NOTES)
    (root / "empty-folder").mkdir()
    ingest(root)
    (root / "projects").rename(tmp_path / "moved-out")
    watcher = Watcher(runtime.index(), Rules(exclude=("drafts/",)))
    relevant = lambda change, rel: watcher.relevant(1, str(root), change, rel)  # noqa: E731
    assert relevant(Change.modified, "alpha.md")
    assert relevant(Change.added, "sub/new.py")
    assert relevant(Change.deleted, "projects"), "a folder with indexed files moved out"
    assert relevant(Change.added, "empty-folder"), "a folder came in"
    assert not relevant(Change.modified, ".git/index")
    assert not relevant(Change.added, "node_modules/pkg/readme.md")
    assert not relevant(Change.added, "drafts/idea.md"), "excluded by settings"
    assert not relevant(Change.modified, "photo.jpg")
    (root / "setup").write_text("#!/bin/sh\necho hi\n")
    (root / "VERSION").write_text("1.2\n")
    (root / "Makefile").write_text("all:\n")
    assert relevant(Change.modified, "setup"), "a script without an extension is code (its shebang)"
    assert relevant(Change.modified, "Makefile"), "a build file known by its name is code"
    assert not relevant(Change.modified, "VERSION")
    assert not relevant(Change.added, ".#alpha.md"), "an editor's lock file"
    assert not relevant(Change.deleted, "old-folder"), "nothing indexed was under it"


def test_the_watcher_notices_files_of_kinds_sift_does_not_read_come_and_go(immediate, tmp_path):
    """stats counts the files of kinds Sift does not read ('not read: 2 .doc'); the watcher dropped their events,
    so the count stayed as it was until the periodic rescan. A file that comes, or goes while such files were
    counted, now gets a scan; an edit of one changes no count and still does not."""
    from ingest.discover import Rules
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", {**NOTES, "old.doc": "x"})
    ingest(root)
    (root / "report.doc").write_text("y")
    (root / ".hidden.doc").write_text("y")
    (root / "drafts").mkdir()
    (root / "drafts" / "plan.doc").write_text("y")
    (root / "old.doc").unlink()
    watcher = Watcher(runtime.index(), Rules(exclude=("drafts/",)))
    relevant = lambda change, rel: watcher.relevant(1, str(root), change, rel)  # noqa: E731
    assert relevant(Change.added, "report.doc")
    assert relevant(Change.deleted, "old.doc"), "the last scan counted a .doc"
    assert not relevant(Change.modified, "report.doc"), "the count is the same"
    assert not relevant(Change.deleted, "gone.ppt"), "the last scan counted no .ppt"
    assert not relevant(Change.added, ".hidden.doc") and not relevant(Change.added, "drafts/plan.doc"), \
        "not counted: hidden, or excluded by settings"


def test_the_watcher_notices_an_indexed_script_without_an_extension_deleted(immediate, tmp_path):
    """Whether a script without an extension is code comes from its shebang, which cannot be read once the file
    is gone: its deletion was dropped, and only the periodic rescan (10 min) took it out of the index."""
    from ingest.discover import Rules
    from workers import runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", {**NOTES, "deploy": "#!/bin/sh\necho deploying\n"})
    ingest(root)
    (root / "deploy").unlink()
    watcher = Watcher(runtime.index(), Rules())
    assert watcher.relevant(1, str(root), Change.deleted, "deploy"), "an indexed script deleted"
    assert not watcher.relevant(1, str(root), Change.deleted, "notes"), "a file the index never held"


def test_a_scan_asked_for_during_another_scan_or_a_build_waits_for_it(immediate, tmp_path):
    from search.index import store
    from workers import rescan, runtime, tasks
    root = write_tree(tmp_path / "notes", NOTES)
    first = ingest(root)["published"]["id"]
    conn = runtime.index()
    assert freshness.begin_scan(conn, 1, True, 600) == freshness.PRESENT  # a scan that has not planned yet
    tasks.discover(1)  # queued directly meanwhile (ingest enqueue, refresh): it waits
    assert conn.execute("SELECT count(*) FROM generations").fetchone()[0] == 1, "no second scan ran"
    assert freshness.requested(conn) == [1] and rescan.due(conn, 600) == [1]
    said = _stats_text(conn) + "\n"  # stats say that a scan waits, and what will queue it (it said nothing)
    assert "\n  waiting: a rescan was asked for " in said and " ago; the watcher or a worker's periodic rescan " \
        "queues it once nothing of notes is under way\n" in said, said

    gen = store.begin_generation(conn, 1, runtime.model_id())  # the first scan goes on: a build in flight
    store.record_plan(conn, gen, 1, {"alpha.md": "changed"}, {}, len(NOTES))
    assert not rescan.request_scan(1, conn), "a build is under way: the request waits"
    tasks.discover(1)
    assert generation_reads.generation(conn, gen)["state"] == "building", "the files in flight were not queued again"

    for sql in ("UPDATE generations SET started = started - 3600, discovered = discovered - 3600 WHERE id = ?",
                "UPDATE progress SET updated = updated - 3600 WHERE generation = ?",
                "UPDATE collections SET scan_started = scan_started - 3600 WHERE published < ?"):
        conn.execute(sql, (gen,))  # nothing has moved for an hour
    assert rescan.request_scan(1, conn), "a stalled build is picked up again"
    assert conn.execute("SELECT published FROM collections").fetchone()[0] == gen > first
    assert freshness.requested(conn) == [] and "waiting:" not in _stats_text(conn)
    assert rescan.due(conn, 600) == [], "scanned lately"
    assert rescan.due(conn, 600, now=time.time() + 601) == [1]


def test_a_build_whose_live_worker_embeds_one_big_file_for_long_is_not_taken_as_stalled(immediate, tmp_path):
    """A job records no file's progress until it ends: a 4 MB note embedded for 20 minutes made its build look
    stalled after ten, and the next scan (ingest enqueue, the watcher, the periodic rescan) queued the note again,
    to be embedded twice over. While its worker lives, the build is under way; once the worker is gone, stalled."""
    from search.index import store
    from workers import rescan, runtime
    root = write_tree(tmp_path / "notes", NOTES)
    first = ingest(root)["published"]["id"]
    conn = runtime.index()
    gen = store.begin_generation(conn, 1, runtime.model_id())
    store.record_plan(conn, gen, 1, {"alpha.md": "changed"}, {}, len(NOTES))
    store.mark(conn, gen, ["alpha.md"], "chunk", "done")
    store.record_work(conn, gen, "embed", ["alpha.md"], 4_000_000, time.time() - 1200, 1_700, 3_540)  # this pid
    for sql in ("UPDATE generations SET started = started - 3600, discovered = discovered - 3600 WHERE id = ?",
                "UPDATE progress SET updated = updated - 3600 WHERE generation = ?"):
        conn.execute(sql, (gen,))  # no file has moved for an hour: the worker is still at its one job
    assert freshness.busy(conn, 1) and rescan.due(conn, 1e6) == []
    assert not rescan.request_scan(1, conn), "the note in flight is not queued again"
    assert generation_reads.generation(conn, gen)["state"] == "building" and freshness.requested(conn) == [1]

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    conn.execute("UPDATE working SET pid = ?", (int(dead.stdout),))  # its worker was killed mid-job
    assert not freshness.busy(conn, 1), "a build whose worker is gone and that has not moved is stalled"
    assert rescan.request_scan(1, conn), "a stalled build is picked up again"
    assert conn.execute("SELECT published FROM collections").fetchone()[0] == gen > first


def test_a_scan_that_finds_nothing_changed_ends_its_claim_and_is_the_last_scan(immediate, tmp_path):
    """A scan that finds nothing changed makes no generation, so the newest generation's start no longer tells
    when the collection was last scanned: the periodic rescan would scan it every minute once the interval had
    passed, and the scan's claim, never planned in a generation, would hold off every other scan as 'under
    way' for STALLED_SECONDS."""
    from workers import rescan, runtime, tasks
    root = write_tree(tmp_path / "notes", NOTES)
    first = ingest(root)["published"]["id"]
    conn = runtime.index()
    conn.execute("UPDATE generations SET started = started - 3600, finished = finished - 3600")  # an hour ago
    conn.execute("UPDATE collections SET scan_started = scan_started - 3600")  # the scan that made it, too
    assert rescan.due(conn, 600) == [1]
    rescan.rescan_due()  # the periodic task, run at once in immediate mode: nothing has changed
    assert [tuple(g) for g in conn.execute("SELECT id, state FROM generations")] == [(first, "published")]
    assert freshness.unplanned_scan(conn, 1) is None and not freshness.busy(conn, 1), "its claim is over"
    assert rescan.due(conn, 600) == [], "scanned just now"
    assert rescan.due(conn, 600, now=time.time() + 601) == [1]
    said = _stats_text(conn)
    assert f"\n  published: generation {first}, 1.0 h ago; " in said and "\n  last scanned " in said, said

    (root / "alpha.md").write_text("# Alpha\n\nThe walrus sleeps at noon.\n", encoding="utf-8")
    tasks.discover(1)  # not held off by the scan before
    assert conn.execute("SELECT published FROM collections").fetchone()[0] > first
    assert [f["path"] for f in reader.visible_files(conn) if "sleeps" in (root / f["path"]).read_text()] == \
        ["alpha.md"]


# --- helpers ---------------------------------------------------------------------------------------

def _stats_text(conn) -> str:
    """``ingest stats`` as the CLI renders it, for this process's home."""
    from search.settings import load
    from workers import stats
    return stats.render(stats.gather(conn, load(), {}), stats.CLI)


def _safe_paths(engine: Engine, word: str) -> set[str]:
    from search.index.db import IndexUnavailable
    try:
        return {hit.path for hit in engine.search(word, limit=50, mode="keyword").hits}
    except IndexUnavailable:
        return set()


def _poll(check, processes: dict, what: str):
    """``check()``'s first true result, polled while every named process lives (DEADLINE is a safety net)."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        for name, process in processes.items():
            assert process.poll() is None, f"the {name} died"
        time.sleep(0.2)
    raise TimeoutError(f"never happened: {what}")


@contextlib.contextmanager
def _sift_mcp_root(env: dict, root: Path, log_path: Path):
    """A real ``sift-mcp --root ROOT`` (stderr to ``log_path``), yielded with an engine on its index once its
    first generation (a note saying "Boats at dawn") answers; stopped by closing its stdin, as a client does."""
    with open(log_path, "ab") as log:
        server = subprocess.Popen([str(VENV_BIN / "sift-mcp"), "--root", str(root)], env=env, cwd=REPO,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
        try:
            engine = Engine(Path(env["SIFT_HOME"]) / "index.db")
            _poll(lambda: _safe_paths(engine, "boats"), {"server": server}, "the first generation")
            yield server, engine
        finally:
            server.stdin.close()
            server.wait(timeout=60)


def _processes() -> list[tuple[int, int]]:
    """(pid, ppid) of every live process."""
    return [(pid, ppid) for pid, state, ppid, _ in processes() if state != "Z"]


def _alive(pid: int) -> bool:
    return any(p == pid for p, _ in _processes())


SETTLE = 8.0  # seconds after the first publish: the watcher asks again within a tick (1 s) of it


def test_sift_mcp_root_makes_one_generation_at_start(sift_env, tmp_path):
    """`sift-mcp --root` queues a scan of the folder, and its watcher scanned every folder as it started too
    ("queued a scan of collection 1 (0 changed paths)", now "… fresh (its whole folder)", once the first was built): two generations per start."""
    root = write_tree(tmp_path / "fresh", {"harbour.md": "# Harbour\n\nBoats at dawn.\n"}).resolve()
    with _sift_mcp_root(sift_env, root, tmp_path / "server.log"):
        time.sleep(SETTLE)
        conn = db.connect(Path(sift_env["SIFT_HOME"]) / "index.db")
        generations = conn.execute("SELECT id, state FROM generations").fetchall()
        conn.close()
    said = (tmp_path / "server.log").read_text()
    assert [tuple(g) for g in generations] == [(1, "published")], said
    assert "(its whole folder)" not in said, said


def test_the_watcher_and_the_periodic_rescan_name_the_collection_in_their_log(immediate, tmp_path, caplog,
                                                                               monkeypatch):
    """Their log said 'queued a scan of collection 1 (0 changed paths)' and 'periodic rescan of collection 1
    queued': an id the user sees nowhere else (stats and every command name collections)."""
    from ingest.discover import Rules
    from workers import rescan, runtime
    from workers.watch import Watcher
    root = write_tree(tmp_path / "notes", NOTES)
    ingest(root, "notes")
    watcher = Watcher(runtime.index(), Rules())
    watcher.refresh()
    with caplog.at_level(logging.INFO):
        watcher.changed = {1: {"."}}
        watcher.flush()
        (root / "alpha.md").write_text("# Alpha\n\nedited\n")
        watcher.changed = {1: {"alpha.md"}}
        watcher.flush()
    said = [r.getMessage() for r in caplog.records if r.name == "sift.watch"]
    assert said == ["queued a scan of collection notes (its whole folder)",
                    "queued a scan of collection notes (1 changed path, read alone)"], caplog.text

    caplog.clear()
    monkeypatch.setenv("SIFT_RESCAN_MINUTES", "0.0001")  # due at once: its last scan is older than 6 ms
    runtime.reset()
    time.sleep(0.05)
    with caplog.at_level(logging.INFO):
        rescan.rescan_due.call_local()
    assert "periodic rescan of collection notes queued" in [r.getMessage() for r in caplog.records], caplog.text
